//! Iago's legal placements, as the move generator finds them: the turn's legal set (`Turn`, with
//! the forced captures and the outer-area/centre restrictions that explain the others), the legal
//! moves, perft.

use super::board::{cells_of, ALL, ANCHORS, CENTRE, INNER, NEIGHBOURS, OUTER};
use super::notation::Move;
use super::{Position, Variant};

/// The legal placements of a turn, and the facts that explain why others are not.
pub(super) struct Turn {
    /// The legal placements, a bit a cell.
    pub(super) legal: u64,
    /// The legal placements if no penalty claim were pending.
    pub(super) normal: u64,
    /// Hexes with the largest capture count, when forced capture applies.
    pub(super) forced: u64,
    pub(super) max_capture: u32,
    /// Placements allowed by rules 2 and 3 (the only ones without forced capture).
    pub(super) free: u64,
}

impl Position {
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

    pub fn legal_moves(&self) -> Vec<Move> {
        if self.is_finished() {
            return Vec::new();
        }
        cells_of(self.turn().legal).filter_map(Move::new).collect()
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
    use super::super::Setup;
    use super::*;

    #[test]
    fn empty_board_offers_the_inner_hexes_but_the_centre() {
        let start = Position::empty(Setup::default());
        assert_eq!(start.legal_moves().len(), 36);
        assert_eq!(start.perft(2), 1260);
    }
}
