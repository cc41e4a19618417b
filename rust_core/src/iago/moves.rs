//! Moves: the placement, its notation, the legal placements, playing one, perft.

use std::fmt;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::json;

use super::board::{
    all_if, cell_name, cell_names, cells_of, PlayerSchema, ALL, ANCHORS, CENTRE, INNER, NEIGHBOURS,
    OUTER, RAYS,
};
use super::{Position, Variant};
use crate::error::{Error, Result};

/// Moves in a module of their own, so that nothing, this file included, builds one but through
/// `Move::new`: a move always names a cell of the board, and `1u64 << cell` cannot overflow.
mod placement {
    use super::super::board::CELL_COUNT;

    /// A placement: the cell a disc is put on, always one of the board's 61.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct Move(u8);

    impl Move {
        /// The placement on `cell`, if the board has that cell.
        pub fn new(cell: usize) -> Option<Move> {
            (cell < CELL_COUNT).then_some(Move(cell as u8))
        }

        /// The cell placed on, below `CELL_COUNT`.
        pub fn cell(self) -> usize {
            usize::from(self.0)
        }
    }
}

pub use placement::Move;

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&cell_name(self.cell()))
    }
}

/// The flips a placement causes, computed on the board before it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Flips {
    captured: u64,
    released: u64,
}

impl Flips {
    pub(super) fn any(self) -> bool {
        self.captured | self.released != 0
    }
}

/// The legal placements of a turn, and the facts that explain why others are not.
pub(super) struct Turn {
    legal: u64,
    /// The legal placements if no penalty claim were pending.
    normal: u64,
    /// Hexes with the largest capture count, when forced capture applies.
    forced: u64,
    max_capture: u32,
    /// Placements allowed by rules 2 and 3 (the only ones without forced capture).
    free: u64,
}

impl Turn {
    /// The legal placements, a bit a cell.
    pub(super) fn legal(&self) -> u64 {
        self.legal
    }
}

/// What a move did, as reported to clients.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[schemars(rename = "IagoEffects")]
pub struct Effects {
    #[schemars(with = "PlayerSchema")]
    pub player: &'static str,
    /// The cell the disc was placed on.
    pub cell: String,
    /// Discs turned captive.
    pub captured: Vec<String>,
    /// Captives turned face up.
    pub released: Vec<String>,
    /// The move skipped a forced capture (penalty option): the opponent may claim a free placement.
    pub penalty_skip: bool,
    /// The move used a pending penalty claim: rules 1–3 did not restrict it.
    pub penalty_claimed: bool,
}

impl Position {
    /// Captures and releases of a placement at `cell` by the side to move, in all six directions.
    pub(super) fn flips(&self, cell: usize) -> Flips {
        let own_up = self.up(self.to_move);
        let opponent_up = self.up(self.to_move.other());
        let releases = self.setup.variant != Variant::Simple;
        let mut flips = Flips::default();
        // A run flips when a disc of the mover's, face up, brackets it: opponent discs face up are
        // captured; captives (where the variant releases) are released if either end is an anchor.
        // Each ray's two runs are both taken, kept or not without a branch (a board's discs are
        // not predictable); a run is empty when the first hex is not of its kind.
        let captives = if releases { self.captive } else { 0 };
        let anchored = ANCHORS >> cell & 1 == 1;
        for ray in &RAYS[cell] {
            let (run, end) = ray.run(opponent_up);
            flips.captured |= run & all_if(end & own_up != 0);
            let (run, end) = ray.run(captives);
            flips.released |= run & all_if(end & own_up != 0 && (anchored || end & ANCHORS != 0));
        }
        flips
    }

    pub(super) fn turn(&self) -> Turn {
        let empty = ALL & !self.occupied();
        // Only a hex next to an opponent's face-up disc or a captive can flip anything.
        let near = self.up(self.to_move.other()) | self.captive;
        let mut flipping = 0u64;
        let mut forced = 0u64;
        let mut max_capture = 0u32;
        for cell in cells_of(empty) {
            if NEIGHBOURS[cell] & near == 0 {
                continue;
            }
            let flips = self.flips(cell);
            if flips.any() {
                flipping |= 1 << cell;
            }
            let count = flips.captured.count_ones();
            if count > max_capture {
                max_capture = count;
                forced = 0;
            }
            if count == max_capture && count > 0 {
                forced |= 1 << cell;
            }
        }
        // Rule 2: inner hexes but the centre; outer hexes and the centre only with a flip action.
        let mut free = empty & INNER & !CENTRE | empty & ANCHORS & flipping;
        // Rule 3: the centre, last inner hole, when no outer hex is playable.
        if empty & INNER == CENTRE && free & OUTER == 0 {
            free |= CENTRE;
        }
        let forced_capture = self.setup.variant != Variant::Loose && max_capture > 0;
        let normal = if !forced_capture {
            free
        } else if self.setup.options.penalty {
            forced | free
        } else {
            forced
        };
        let legal = if self.penalty_claim { empty } else { normal };
        Turn {
            legal,
            normal,
            forced: if forced_capture { forced } else { 0 },
            max_capture,
            free,
        }
    }

    /// Why a placement on an empty `cell` is not legal.
    pub(super) fn refusal(&self, cell: usize, turn: &Turn) -> Error {
        let bit = 1u64 << cell;
        let name = cell_name(cell);
        if turn.forced != 0 && turn.free & bit != 0 {
            let cells = cell_names(turn.forced);
            return Error::illegal_move(
                "forced-capture",
                format!(
                    "a capture of {} is available at {}: {name} captures fewer",
                    turn.max_capture,
                    cells.join(", ")
                ),
                json!({ "capture": turn.max_capture, "cells": cells }),
            );
        }
        let (rule, detail) = if bit & CENTRE != 0 {
            (
                "centre-needs-flip",
                format!(
                    "{name} is the centre: it may be taken only by a placement that flips discs, or as \
                     the last empty inner hex when no outer hex can be taken"
                ),
            )
        } else {
            (
                "outer-needs-flip",
                format!("{name} is in the outer area: a placement there must flip discs"),
            )
        };
        let mut data = json!({});
        let mut detail = detail;
        if turn.forced != 0 {
            let cells = cell_names(turn.forced);
            detail = format!(
                "{detail}; a capture of {} is available at {}",
                turn.max_capture,
                cells.join(", ")
            );
            data = json!({ "capture": turn.max_capture, "cells": cells });
        }
        Error::illegal_move(rule, detail, data)
    }

    pub fn legal_moves(&self) -> Vec<Move> {
        if self.is_finished() {
            return Vec::new();
        }
        cells_of(self.turn().legal).filter_map(Move::new).collect()
    }

    pub fn play(&self, mv: Move) -> Result<(Position, Effects)> {
        if self.is_finished() {
            return Err(Error::GameOver);
        }
        let cell = mv.cell();
        let bit = 1u64 << cell;
        if self.occupied() & bit != 0 {
            return Err(Error::illegal_move(
                "occupied",
                format!("{} already holds a disc", cell_name(cell)),
                json!({}),
            ));
        }
        let turn = self.turn();
        if turn.legal & bit == 0 {
            return Err(self.refusal(cell, &turn));
        }
        let flips = self.flips(cell);
        let (next, penalty_skip) = self.apply(cell, flips, &turn);
        let effects = Effects {
            player: self.to_move.name(),
            cell: cell_name(cell),
            captured: cell_names(flips.captured),
            released: cell_names(flips.released),
            penalty_skip,
            penalty_claimed: self.penalty_claim && turn.normal & bit == 0,
        };
        Ok((next, effects))
    }

    /// The position after a legal placement on `cell` with its `flips`; also whether it skipped a
    /// forced capture.
    pub(super) fn apply(&self, cell: usize, flips: Flips, turn: &Turn) -> (Position, bool) {
        let bit = 1u64 << cell;
        let penalty_skip = !self.penalty_claim && turn.forced != 0 && turn.forced & bit == 0;
        let mut next = *self;
        next.owners[self.to_move as usize] |= bit;
        next.captive = (self.captive | flips.captured) & !flips.released;
        next.to_move = self.to_move.other();
        // A skip that ends the game leaves nothing to claim.
        next.penalty_claim = penalty_skip && !next.is_finished();
        (next, penalty_skip)
    }

    /// Placements counted by bulk: the last ply is the size of the legal set.
    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        if self.is_finished() {
            return 0;
        }
        let turn = self.turn();
        if depth == 1 {
            return u64::from(turn.legal.count_ones());
        }
        cells_of(turn.legal)
            .map(|cell| self.apply(cell, self.flips(cell), &turn).0.perft(depth - 1))
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Iago, Setup, CELL_COUNT};
    use super::*;
    use crate::game::Rules;

    #[test]
    fn empty_board_offers_the_inner_hexes_but_the_centre() {
        let start = Position::empty(Setup::default());
        assert_eq!(start.legal_moves().len(), 36);
        assert_eq!(start.perft(2), 1260);
    }

    #[test]
    fn a_move_names_a_cell_of_the_board() {
        assert_eq!(Move::new(CELL_COUNT), None);
        assert_eq!(Move::new(u8::MAX.into()), None);
        for cell in 0..CELL_COUNT {
            let mv = Move::new(cell).unwrap();
            assert_eq!(Iago::parse_move(&mv.to_string()), Ok(mv));
        }
    }
}
