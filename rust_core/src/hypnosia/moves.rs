//! Hypnosia's move notation: die moves (`D0.17+4`, `h2+5`, `2.1^1`), rolls (`roll`, `5-4`), whole
//! turns (`h2+5 0.3+4`, `pass`) and roll-prefixed turns (`5-4: h2+5 0.3+4`). Parsing needs no board:
//! a space that the board lacks is a legality question, answered by `play`.

use std::fmt;

use crate::error::{Error, Result};

/// Where a die move starts: a home square (distance 1..=4) or a space `circle.index`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Start {
    Home(u8),
    Space(u32, u32),
}

/// One die move: the unit on `from` (a double when `double`) moves `die` spaces, first crossing the
/// bridge it stands on when `cross`. Built only by `DieMove::new`: the die is 1 to 6, a home
/// square 1 to 4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DieMove {
    from: Start,
    double: bool,
    cross: bool,
    die: u8,
}

impl DieMove {
    pub fn new(from: Start, double: bool, cross: bool, die: u8) -> Option<DieMove> {
        let home_exists = !matches!(from, Start::Home(distance) if !(1..=4).contains(&distance));
        (home_exists && (1..=6).contains(&die)).then_some(DieMove {
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
    Supplied { dice: [u8; 2], turn: Option<Turn> },
    /// After the roll: the whole remaining turn, or the first of its two die moves.
    Turn(Turn),
}

/// A number in decimal, handed to the formatter as one string: a list of legal turns writes many
/// numbers, and `write!` costs several times more.
fn write_number(f: &mut fmt::Formatter<'_>, mut number: u32) -> fmt::Result {
    let mut digits = [0u8; 10];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (number % 10) as u8;
        number /= 10;
        if number == 0 {
            break;
        }
    }
    f.write_str(std::str::from_utf8(&digits[start..]).expect("digits are ASCII"))
}

impl fmt::Display for Start {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Start::Home(distance) => {
                f.write_str("h")?;
                write_number(f, u32::from(distance))
            }
            Start::Space(circle, index) => {
                write_number(f, circle)?;
                f.write_str(".")?;
                write_number(f, index)
            }
        }
    }
}

impl fmt::Display for DieMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.double {
            f.write_str("D")?;
        }
        fmt::Display::fmt(&self.from, f)?;
        f.write_str(if self.cross { "^" } else { "+" })?;
        write_number(f, u32::from(self.die))
    }
}

impl fmt::Display for Turn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Turn::Pass => f.write_str("pass"),
            Turn::Moves(moves) => {
                for (i, mv) in moves.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" ")?;
                    }
                    fmt::Display::fmt(mv, f)?;
                }
                Ok(())
            }
        }
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Move::Roll => f.write_str("roll"),
            Move::Supplied { dice, turn: None } => write!(f, "{}-{}", dice[0], dice[1]),
            Move::Supplied {
                dice,
                turn: Some(turn),
            } => write!(f, "{}-{}: {turn}", dice[0], dice[1]),
            Move::Turn(turn) => write!(f, "{turn}"),
        }
    }
}

/// A decimal number without leading zeros (at most 9 digits, so it fits a `u32`).
pub fn decimal(text: &str) -> Option<u32> {
    let bytes = text.as_bytes();
    if bytes.is_empty()
        || bytes.len() > 9
        || !bytes.iter().all(u8::is_ascii_digit)
        || (bytes.len() > 1 && bytes[0] == b'0')
    {
        return None;
    }
    text.parse().ok()
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
            [d @ b'1'..=b'4'] => Some(Start::Home(d - b'0')),
            _ => None,
        };
    }
    let (circle, index) = text.split_once('.')?;
    Some(Start::Space(decimal(circle)?, decimal(index)?))
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

fn parse_roll(text: &str) -> Option<[u8; 2]> {
    let (a, b) = text.split_once('-')?;
    Some([die(a)?, die(b)?])
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
