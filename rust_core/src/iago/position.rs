//! The position: discs, side to move, setup; its scores and outcome, and its text (written, read).

use std::collections::BTreeMap;

use super::board::{CELL_COUNT, CENTRE, INNER, OUTER, ROW_LENGTHS};
use super::{Color, Setup, Variant};
use crate::error::{codes, Error, Result};
use crate::game::{CheckedSetup, Outcome};

codes! {
    /// What decided a finished game of Iago (its outcome's `decided_by`).
    pub enum DecidedBy {
        /// The higher score.
        Score => "score",
        /// Tied scores: the centre disc is face up, and its owner wins.
        CentreFaceUp => "centre-face-up",
        /// Tied scores: the centre disc is captive, and its owner loses.
        CentreCaptive => "centre-captive",
    }
}

/// A valid Iago position. Discs are split by owner (`black`, `white`); `captive` marks the discs that
/// show their red side. A disc is "up" when it shows its owner's colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    pub(super) owners: [u64; 2],
    pub(super) captive: u64,
    pub(super) to_move: Color,
    /// The side to move may claim a skipped forced capture: one free placement.
    pub(super) penalty_claim: bool,
    pub(super) setup: Setup,
}

impl Position {
    pub fn empty(setup: Setup) -> Self {
        Position {
            owners: [0, 0],
            captive: 0,
            to_move: Color::Black,
            penalty_claim: false,
            setup,
        }
    }

    pub fn setup(&self) -> Setup {
        self.setup
    }

    pub(super) fn occupied(&self) -> u64 {
        self.owners[0] | self.owners[1]
    }

    pub(super) fn up(&self, color: Color) -> u64 {
        self.owners[color as usize] & !self.captive
    }

    /// The owner of the disc on an occupied `cell`.
    pub(super) fn owner_of(&self, cell: usize) -> Color {
        if self.owners[0] >> cell & 1 == 1 {
            Color::Black
        } else {
            Color::White
        }
    }

    pub fn is_finished(&self) -> bool {
        INNER & !self.occupied() == 0
    }

    pub fn score(&self, color: Color) -> i64 {
        let up = self.up(color);
        if self.setup.variant == Variant::Simple {
            return i64::from(up.count_ones());
        }
        let factor = |area: u64| i64::from((up & area).count_ones().max(1));
        factor(INNER) * factor(OUTER)
    }

    /// Where the game stands; once over, its winner and what decided it (`DecidedBy`).
    pub fn outcome(&self) -> Outcome {
        let (black, white) = (self.score(Color::Black), self.score(Color::White));
        let scores = BTreeMap::from([("black", black), ("white", white)]);
        if !self.is_finished() {
            return Outcome::ongoing(self.to_move.name(), scores);
        }
        let (winner, decided_by) = if black != white {
            (
                if black > white {
                    Color::Black
                } else {
                    Color::White
                },
                DecidedBy::Score,
            )
        } else {
            // Tie: the centre disc's owner wins if it is face up, loses if it is captive.
            let owner = if self.owners[0] & CENTRE != 0 {
                Color::Black
            } else {
                Color::White
            };
            if self.captive & CENTRE == 0 {
                (owner, DecidedBy::CentreFaceUp)
            } else {
                (owner.other(), DecidedBy::CentreCaptive)
            }
        };
        Outcome::won(scores, winner.name(), decided_by.code())
    }

    /// The hexes as notation characters, in cell order.
    pub(super) fn cell_chars(&self) -> impl Iterator<Item = char> + '_ {
        (0..CELL_COUNT).map(move |cell| {
            let bit = 1u64 << cell;
            let captive = self.captive & bit != 0;
            match (
                self.owners[0] & bit != 0,
                self.owners[1] & bit != 0,
                captive,
            ) {
                (true, _, false) => 'B',
                (true, _, true) => 'b',
                (_, true, false) => 'W',
                (_, true, true) => 'w',
                _ => '.',
            }
        })
    }

    /// The board's hexes row after row (a..i), one character each (`.`, `B`, `W`, `b`, `w`): one
    /// text that `rows` cuts into the board's rows, without a string a row.
    pub fn cells(&self) -> String {
        self.cell_chars().collect()
    }
}

/// The 9 rows a..i of a board's `cells`.
pub fn rows(cells: &str) -> [&str; ROW_LENGTHS.len()] {
    let mut rest = cells;
    ROW_LENGTHS.map(|len| {
        let (row, after) = rest.split_at(len);
        rest = after;
        row
    })
}

pub(super) fn parse_position(text: &str, setup: &CheckedSetup<Setup>) -> Result<Position> {
    let fields: Vec<&str> = text.split(' ').collect();
    let (board, to_move, claim) = match fields.as_slice() {
        [board, side] => (board, side, false),
        [board, side, "p"] => (board, side, true),
        _ => {
            return Err(Error::invalid_state(
                "position",
                "a position is the board, a space and the side to move (b or w), then ' p' if a penalty claim is pending",
            ))
        }
    };
    if !matches!(*to_move, "b" | "w") {
        return Err(Error::invalid_state(
            "position",
            format!("side to move is b or w, not {to_move:?}"),
        ));
    }
    let rows: Vec<&str> = board.split('/').collect();
    Position::from_parts(&rows, to_move, claim, **setup)
}

pub(super) fn position_text(position: &Position) -> String {
    let side = if position.to_move == Color::Black {
        "b"
    } else {
        "w"
    };
    let claim = if position.penalty_claim { " p" } else { "" };
    format!("{} {side}{claim}", rows(&position.cells()).join("/"))
}
