//! Isaac's move notation: a placement by its end cells, lower-left first (`c4-g4`), a removal with
//! its marker advance (`xc4-g4+12`), or `pass`; the `Move` written and read. Parsing needs no
//! board: whether the piece is there or the advance allowed is a legality question, answered by
//! `play`.

use std::fmt;

use super::board::Piece;
use crate::digits::push_number;
use crate::error::{Error, Result};

/// A move: a placement `c4-g4`, a removal with its marker advance `xc4-g4+12`, or `pass`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Move {
    Place(Piece),
    Remove { piece: Piece, advance: u64 },
    Pass,
}

impl Move {
    /// The move's notation, written straight into one string of the right size: a list of legal
    /// moves writes dozens, and the formatting machinery (`to_string`) cost more than the moves.
    pub fn text(&self) -> String {
        let mut text = String::with_capacity(12); // `xa10-j10+18` at most
        match self {
            Move::Place(piece) => piece.push_name(&mut text),
            Move::Remove { piece, advance } => {
                text.push('x');
                piece.push_name(&mut text);
                text.push('+');
                push_number(&mut text, *advance);
            }
            Move::Pass => text.push_str("pass"),
        }
        text
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}

impl std::str::FromStr for Move {
    type Err = Error;

    fn from_str(text: &str) -> Result<Move> {
        if text == "pass" {
            return Ok(Move::Pass);
        }
        if let Some(removal) = text.strip_prefix('x') {
            let Some((piece, advance)) = removal.split_once('+') else {
                return Err(Error::malformed_move(format!(
                    "{text:?} is not a removal: a removal is x, the piece and +advance (e.g. xc4-g4+12)"
                )));
            };
            let piece = Piece::parse(piece).map_err(Error::malformed_move)?;
            let digits_ok = !advance.is_empty()
                && advance.bytes().all(|b| b.is_ascii_digit())
                && (advance == "0" || !advance.starts_with('0'));
            let advance = advance.parse::<u64>().ok().filter(|_| digits_ok).ok_or_else(|| {
                Error::malformed_move(format!(
                    "{advance:?} is not an advance: a decimal number without leading zeros (0 allowed)"
                ))
            })?;
            return Ok(Move::Remove { piece, advance });
        }
        Piece::parse(text).map(Move::Place).map_err(|detail| {
            Error::malformed_move(format!(
                "{detail}; a move is a placement (c4-g4), a removal (xc4-g4+12) or pass"
            ))
        })
    }
}
