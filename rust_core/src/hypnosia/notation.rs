//! Hypnosia's move notation: die moves (`D0.17+4`, `h2+5`, `2.1^1`), rolls (`roll`, `5-4`), whole
//! turns (`h2+5 0.3+4`, `pass`) and roll-prefixed turns (`5-4: h2+5 0.3+4`). Parsing needs no board:
//! a space that the board lacks is a legality question, answered by `play`.

use std::fmt;

use crate::digits::{decimal, write_number};
use crate::error::{Error, Result};

/// Dice and home squares in a module of their own, so that nothing, this file included, builds one
/// but through `new` (or the generator's `generated`): a die is 1 to 6, a home square 1 to 4.
mod values {
    /// One die of a roll, 1 to 6.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct Die(u8);

    impl Die {
        pub fn new(value: u8) -> Option<Die> {
            (1..=6).contains(&value).then_some(Die(value))
        }

        pub fn value(self) -> u8 {
            self.0
        }
    }

    /// A home square, by its distance from the seat's entry: 1 to 4.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct HomeSquare(u8);

    impl HomeSquare {
        pub fn new(distance: u8) -> Option<HomeSquare> {
            (1..=4).contains(&distance).then_some(HomeSquare(distance))
        }

        /// A home square of the move generator, which builds them from pawn locations (1 to 4):
        /// on its hot path only debug builds check them again.
        pub(in crate::hypnosia) fn generated(distance: u8) -> HomeSquare {
            debug_assert!(HomeSquare::new(distance).is_some());
            HomeSquare(distance)
        }

        pub fn distance(self) -> u8 {
            self.0
        }
    }
}

pub use values::{Die, HomeSquare};

/// Where a die move starts: a home square or a space `circle.index`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Start {
    Home(HomeSquare),
    Space(u32, u32),
}

/// One die move: the unit on `from` (a double when `double`) moves `die` spaces, first crossing the
/// bridge it stands on when `cross`. Built only by `DieMove::new`: the die is 1 to 6.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DieMove {
    from: Start,
    double: bool,
    cross: bool,
    die: u8,
}

impl DieMove {
    pub fn new(from: Start, double: bool, cross: bool, die: u8) -> Option<DieMove> {
        Die::new(die).map(|_| DieMove {
            from,
            double,
            cross,
            die,
        })
    }

    /// A die move of the move generator, which builds them from the dice rolled (1 to 6) and the
    /// four home squares: on its hot path only debug builds check them again.
    pub(super) fn generated(from: Start, double: bool, cross: bool, die: u8) -> DieMove {
        debug_assert!(DieMove::new(from, double, cross, die).is_some());
        DieMove {
            from,
            double,
            cross,
            die,
        }
    }

    pub fn from(self) -> Start {
        self.from
    }

    /// A double (two pawns of one colour on one space) moves.
    pub fn double(self) -> bool {
        self.double
    }

    /// The unit first crosses the bridge it stands on.
    pub fn cross(self) -> bool {
        self.cross
    }

    /// The die used, 1 to 6.
    pub fn die(self) -> u8 {
        self.die
    }
}

/// The die moves of (the rest of) a turn, or `pass` when no die can be used.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Turn {
    Pass,
    /// One or two die moves, in the order played.
    Moves(Vec<DieMove>),
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Move {
    /// The engine draws both dice from the state's seeded source.
    Roll,
    /// The client supplies the roll, optionally with that whole turn.
    Supplied { dice: [Die; 2], turn: Option<Turn> },
    /// After the roll: the whole remaining turn, or the first of its two die moves.
    Turn(Turn),
}

// The notation is written by `write_to`, generic over the writer, so that a `String` (the legal
// turns' texts) is written without the formatter's indirect calls; `Display` uses the same code.

impl Start {
    fn write_to(&self, out: &mut impl fmt::Write) -> fmt::Result {
        match *self {
            Start::Home(square) => {
                out.write_str("h")?;
                write_number(out, u64::from(square.distance()))
            }
            Start::Space(circle, index) => {
                write_number(out, u64::from(circle))?;
                out.write_str(".")?;
                write_number(out, u64::from(index))
            }
        }
    }
}

impl fmt::Display for Start {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_to(f)
    }
}

impl DieMove {
    fn write_to(&self, out: &mut impl fmt::Write) -> fmt::Result {
        if self.double {
            out.write_str("D")?;
        }
        self.from.write_to(out)?;
        out.write_str(if self.cross { "^" } else { "+" })?;
        write_number(out, u64::from(self.die))
    }
}

impl fmt::Display for DieMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_to(f)
    }
}

impl Turn {
    pub(super) fn write_to(&self, out: &mut impl fmt::Write) -> fmt::Result {
        match self {
            Turn::Pass => out.write_str("pass"),
            Turn::Moves(moves) => {
                for (i, mv) in moves.iter().enumerate() {
                    if i > 0 {
                        out.write_str(" ")?;
                    }
                    mv.write_to(out)?;
                }
                Ok(())
            }
        }
    }
}

impl fmt::Display for Turn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_to(f)
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Move::Roll => f.write_str("roll"),
            Move::Supplied { dice, turn: None } => {
                write!(f, "{}-{}", dice[0].value(), dice[1].value())
            }
            Move::Supplied {
                dice,
                turn: Some(turn),
            } => write!(f, "{}-{}: {turn}", dice[0].value(), dice[1].value()),
            Move::Turn(turn) => write!(f, "{turn}"),
        }
    }
}

fn die(text: &str) -> Option<u8> {
    match text.as_bytes() {
        [d @ b'1'..=b'6'] => Some(d - b'0'),
        _ => None,
    }
}

/// `h1`..`h4` or `<circle>.<index>`.
pub fn parse_start(text: &str) -> Option<Start> {
    if let Some(distance) = text.strip_prefix('h') {
        return match distance.as_bytes() {
            [d @ b'1'..=b'4'] => HomeSquare::new(d - b'0').map(Start::Home),
            _ => None,
        };
    }
    // The dot found byte by byte: `split_once` costs more than these short texts (every pawn of
    // a state and every die move is one).
    let dot = text.bytes().position(|b| b == b'.')?;
    Some(Start::Space(
        decimal(&text[..dot])?,
        decimal(&text[dot + 1..])?,
    ))
}

fn parse_die_move(text: &str) -> Option<DieMove> {
    let (double, rest) = match text.strip_prefix('D') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let at = rest.find(['+', '^'])?;
    let cross = rest.as_bytes()[at] == b'^';
    DieMove::new(
        parse_start(&rest[..at])?,
        double,
        cross,
        die(&rest[at + 1..])?,
    )
}

fn parse_turn(text: &str) -> Option<Turn> {
    if text == "pass" {
        return Some(Turn::Pass);
    }
    let parts: Vec<&str> = text.split(' ').collect();
    if parts.len() > 2 {
        return None;
    }
    parts
        .into_iter()
        .map(parse_die_move)
        .collect::<Option<Vec<_>>>()
        .map(Turn::Moves)
}

fn parse_roll(text: &str) -> Option<[Die; 2]> {
    let (a, b) = text.split_once('-')?;
    Some([Die::new(die(a)?)?, Die::new(die(b)?)?])
}

pub fn parse_move(text: &str) -> Result<Move> {
    let parsed = if text == "roll" {
        Some(Move::Roll)
    } else if let Some((roll, turn)) = text.split_once(": ") {
        parse_roll(roll).and_then(|dice| {
            Some(Move::Supplied {
                dice,
                turn: Some(parse_turn(turn)?),
            })
        })
    } else if let Some(dice) = parse_roll(text) {
        Some(Move::Supplied { dice, turn: None })
    } else {
        parse_turn(text).map(Move::Turn)
    };
    parsed.ok_or_else(|| {
        Error::malformed_move(format!(
            "{text:?} is not a Hypnosia move: `roll`, a roll `5-4`, one or two die moves such as \
             `h2+5 0.3+4` (`[D]<from>(+|^)<die>`, from h1..h4 or circle.index, die 1..6), `pass`, \
             or a roll and its turn `5-4: h2+5 0.3+4`"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dice_and_home_squares_hold_only_their_values() {
        assert_eq!(Die::new(0), None);
        assert_eq!(Die::new(7), None);
        assert_eq!(Die::new(6).map(Die::value), Some(6));
        assert_eq!(HomeSquare::new(0), None);
        assert_eq!(HomeSquare::new(5), None);
        assert_eq!(HomeSquare::new(4).map(HomeSquare::distance), Some(4));
        assert_eq!(parse_start("h5"), None);
    }

    #[test]
    fn moves_round_trip_and_junk_is_malformed() {
        for text in [
            "roll",
            "5-4",
            "6-6: pass",
            "5-4: h2+5 0.3+4",
            "h2+5",
            "0.17+4",
            "D0.17+4",
            "0.5^3",
            "2.1^1",
            "D2.1^1",
            "pass",
            "Dh1+3",
        ] {
            assert_eq!(parse_move(text).unwrap().to_string(), text);
        }
        for text in [
            "",
            " roll",
            "7-1",
            "5-4:",
            "5-4 h2+5",
            "h5+1",
            "h0+1",
            "0.05+1",
            "00.5+1",
            "0.5+0",
            "0.5+7",
            "0.5",
            "h2+5  0.3+4",
            "a b c",
            "0.1+1 0.1+1 0.1+1",
            "d0.1+1",
            "0.1-1",
            "1234567890.1+1",
            "0.1+12",
        ] {
            assert!(parse_move(text).is_err(), "{text:?}");
        }
    }
}
