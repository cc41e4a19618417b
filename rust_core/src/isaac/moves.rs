//! Playing an Isaac move on a position: a placement or a removal checked (its scoring, the
//! markers, the advance), a pass allowed only without another move, the move applied and the
//! turn passed on, and what the move did (`Effects`, `Action` and their schemas).

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::json;

use super::board::{
    cell_name, cell_names, Piece, PlayerSchema, MAX_SCORE, MIN_LENGTH, SUPPLY, TARGET,
};
use super::notation::Move;
use super::position::{Phase, Position};
use super::{Color, ScoringStarts};
use crate::error::{Error, Result};
use crate::players::COLORS;

/// What a move did, as reported to clients: `player`, `kind` and the kind's facts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[schemars(with = "EffectsSchema", rename = "IsaacEffects")]
pub struct Effects {
    pub player: &'static str,
    #[serde(flatten)]
    pub action: Action,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Action {
    Place {
        piece: String,
    },
    Remove {
        piece: String,
        /// `row 5` or `column d`.
        line: String,
        /// Pieces of either colour touching the line after the removal (N).
        pieces_on_line: u32,
        value: u32,
        markers_on_line: u32,
        points: u32,
        advance: u64,
        /// The mover's new score.
        score: u64,
    },
    Pass {
        /// This pass ended the placement phase.
        phase_ended: bool,
    },
}

/// The kinds of move.
#[derive(JsonSchema)]
#[schemars(rename = "IsaacMoveKind", rename_all = "lowercase")]
#[allow(dead_code)] // a schema only: `Action`'s tag
pub(super) enum ActionKind {
    Place,
    Remove,
    Pass,
}

/// The schema of `Effects` as one object, the facts of each kind optional: what generated clients
/// read best (a flattened tagged enum is a `oneOf` that they read poorly).
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    rename = "IsaacEffects",
    description = "`player` and `kind` always; a placement adds `piece`; a removal adds `piece`, `line`, `pieces_on_line`, `value`, `markers_on_line`, `points`, `advance` and `score`; a pass adds `phase_ended`."
)]
#[allow(dead_code)] // a schema only
pub(super) struct EffectsSchema {
    player: PlayerSchema,
    kind: ActionKind,
    /// The piece placed or removed (`c4-g4`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    piece: Option<String>,
    /// The removed piece's row or column: `row 5`, `column d`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    line: Option<String>,
    /// Pieces of either colour touching the line after the removal.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u32")]
    pieces_on_line: Option<u32>,
    /// The removed piece's value in dots.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u32", range(min = 1))]
    value: Option<u32>,
    /// Markers on the line; each doubles the points.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u32", range(max = 2))]
    markers_on_line: Option<u32>,
    /// pieces_on_line × value × 2^markers_on_line.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u32")]
    points: Option<u32>,
    /// How far the mover advanced their marker.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    advance: Option<u64>,
    /// The mover's new score.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    score: Option<u64>,
    /// This pass ended the placement phase.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    phase_ended: Option<bool>,
}

/// The scoring of a removal, computed with the markers where they stand before the advance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Scoring {
    pieces_on_line: u32,
    markers_on_line: u32,
    pub(super) points: u32,
}

impl Position {
    pub(super) fn scoring(&self, piece: Piece) -> Scoring {
        let line = piece.line();
        // Every piece touching the line, less the removed piece itself (which lies in it).
        let touching = COLORS
            .iter()
            .flat_map(|&color| self.pieces(color))
            .filter(|&&mask| mask & line != 0)
            .count() as u32;
        let markers_on_line = (self.markers() & line).count_ones();
        let pieces_on_line = touching.saturating_sub(1);
        Scoring {
            pieces_on_line,
            markers_on_line,
            points: (pieces_on_line * piece.value()) << markers_on_line,
        }
    }

    /// Why `color` may not remove its piece `mask` (markers or length), if it may not.
    pub(super) fn removal_refusal(&self, color: Color, piece: Piece) -> Option<Error> {
        let covered = self.markers() & piece.mask();
        if covered != 0 {
            let owners: Vec<&str> = COLORS
                .iter()
                .filter(|&&c| self.marker(c).is_some_and(|cell| covered >> cell & 1 == 1))
                .map(|c| c.name())
                .collect();
            let cells = cell_names(covered);
            return Some(Error::illegal_move(
                "marker-on-piece",
                format!(
                    "{piece} cannot be removed: the {} marker stands on it at {}",
                    owners.join(" and "),
                    cells.join(", ")
                ),
                json!({ "piece": piece.to_string(), "cells": cells, "markers": owners }),
            ));
        }
        let longest = self.longest_removed(color);
        if piece.length() < usize::from(longest) {
            return Some(Error::illegal_move(
                "shorter-than-removed",
                format!(
                    "{piece} has length {}, but {} already removed a piece of length {longest}: removals never get shorter",
                    piece.length(),
                    color.name()
                ),
                json!({ "piece": piece.to_string(), "length": piece.length(), "longest_removed": longest }),
            ));
        }
        None
    }

    /// The one advance of `color` that would land on the other marker, if there is one.
    pub(super) fn forbidden_advance(&self, color: Color) -> Option<u64> {
        let own = u64::from(self.scores[color as usize]);
        let other = u64::from(self.scores[color.other() as usize]);
        // Black's b and White's w share a cell exactly when b + w = 99.
        99u64.checked_sub(own + other)
    }

    /// Who moves after `mover` made a move other than a pass: the other player unless they are out.
    pub(super) fn next_after(&self, mover: Color) -> Color {
        if self.passed[mover.other() as usize] {
            mover
        } else {
            mover.other()
        }
    }

    pub(super) fn place(&self, mover: Color, piece: Piece) -> Position {
        let mut next = *self;
        next.add_piece(mover, piece.mask());
        next.unplaced[mover as usize][piece.length() - MIN_LENGTH] -= 1;
        next.to_move = Some(self.next_after(mover));
        next
    }

    pub(super) fn remove(&self, mover: Color, index: usize, advance: u64) -> Position {
        let mut next = *self;
        let length = self.pieces(mover)[index].count_ones() as u8;
        next.remove_piece(mover, index);
        let c = mover as usize;
        next.removed[c][usize::from(self.removed_count[c])] = length;
        next.removed_count[c] += 1;
        // A legal advance is at most the points of one removal (≤ 72): the sum fits.
        next.scores[c] = (u64::from(self.scores[c]) + advance).min(u64::from(MAX_SCORE)) as u16;
        next.to_move = if next.scores[c] >= TARGET {
            None
        } else {
            Some(self.next_after(mover))
        };
        next
    }

    /// The position after `mover` passes, and whether the pass ended the placement phase.
    pub(super) fn pass(&self, mover: Color) -> (Position, bool) {
        let mut next = *self;
        next.passed[mover as usize] = true;
        if self.phase == Phase::Placement && self.first_to_pass.is_none() {
            next.first_to_pass = Some(mover);
        }
        if !self.passed[mover.other() as usize] {
            next.to_move = Some(mover.other());
            return (next, false);
        }
        match self.phase {
            Phase::Placement => {
                next.phase = Phase::Scoring;
                next.passed = [false; 2];
                next.to_move = Some(next.scoring_starter());
                (next, true)
            }
            Phase::Scoring => {
                next.to_move = None;
                (next, false)
            }
        }
    }

    /// Who opens the scoring phase (meaningful once someone passed in the placement phase).
    pub(super) fn scoring_starter(&self) -> Color {
        match self.config.scoring_starts {
            ScoringStarts::FirstToPass => self.first_to_pass.unwrap_or(self.config.first_player),
            ScoringStarts::FirstPlayer => self.config.first_player,
        }
    }

    pub fn play(&self, mv: Move) -> Result<(Position, Effects)> {
        let mover = self.to_move.ok_or(Error::GameOver)?;
        let player = mover.name();
        match (self.phase, mv) {
            (Phase::Placement, Move::Place(piece)) => {
                self.check_placement(mover, piece)?;
                let effects = Effects {
                    player,
                    action: Action::Place {
                        piece: piece.to_string(),
                    },
                };
                Ok((self.place(mover, piece), effects))
            }
            (Phase::Scoring, Move::Remove { piece, advance }) => {
                let (index, scoring) = self.check_removal(mover, piece, advance)?;
                let next = self.remove(mover, index, advance);
                let effects = Effects {
                    player,
                    action: Action::Remove {
                        piece: piece.to_string(),
                        line: piece.line_name(),
                        pieces_on_line: scoring.pieces_on_line,
                        value: piece.value(),
                        markers_on_line: scoring.markers_on_line,
                        points: scoring.points,
                        advance,
                        score: u64::from(self.scores[mover as usize]) + advance,
                    },
                };
                Ok((next, effects))
            }
            (phase, Move::Pass) => {
                let available = self.moves(mover).without_pass();
                if available > 0 {
                    let (rule, what) = match phase {
                        Phase::Placement => ("must-place", "place a piece"),
                        Phase::Scoring => ("must-remove", "remove a piece"),
                    };
                    return Err(Error::illegal_move(
                        rule,
                        format!(
                            "{player} can {what} ({available} legal moves), so {player} may not pass"
                        ),
                        json!({ "moves": available }),
                    ));
                }
                let (next, phase_ended) = self.pass(mover);
                Ok((
                    next,
                    Effects {
                        player,
                        action: Action::Pass { phase_ended },
                    },
                ))
            }
            (phase, _) => {
                let expected = match phase {
                    Phase::Placement => {
                        "the placement phase: a move places a piece (c4-g4) or passes"
                    }
                    Phase::Scoring => {
                        "the scoring phase: a move removes a piece (xc4-g4+12) or passes"
                    }
                };
                Err(Error::illegal_move(
                    "wrong-phase",
                    format!("{mv} cannot be played in {expected}"),
                    json!({ "phase": phase.name() }),
                ))
            }
        }
    }

    pub(super) fn check_placement(&self, mover: Color, piece: Piece) -> Result<()> {
        let length = piece.length();
        if self.unplaced[mover as usize][length - MIN_LENGTH] == 0 {
            return Err(Error::illegal_move(
                "no-piece-left",
                format!(
                    "{} has no unplaced piece of length {length} (it had {})",
                    mover.name(),
                    SUPPLY[length - MIN_LENGTH]
                ),
                json!({ "length": length }),
            ));
        }
        let taken = piece.mask() & self.occupied;
        if taken != 0 {
            let cells = cell_names(taken);
            return Err(Error::illegal_move(
                "occupied",
                format!(
                    "{piece} overlaps the pieces already on {}",
                    cells.join(", ")
                ),
                json!({ "cells": cells }),
            ));
        }
        Ok(())
    }

    /// The index of the removed piece in the mover's list and its scoring, or why the removal is
    /// refused.
    pub(super) fn check_removal(
        &self,
        mover: Color,
        piece: Piece,
        advance: u64,
    ) -> Result<(usize, Scoring)> {
        let mask = piece.mask();
        let Some(index) = self.pieces(mover).iter().position(|&own| own == mask) else {
            let (rule, detail) = if self.pieces(mover.other()).contains(&mask) {
                (
                    "not-your-piece",
                    format!("{piece} belongs to {}", mover.other().name()),
                )
            } else {
                (
                    "no-such-piece",
                    format!("no piece of {} lies exactly on {piece}", mover.name()),
                )
            };
            return Err(Error::illegal_move(
                rule,
                detail,
                json!({ "piece": piece.to_string() }),
            ));
        };
        if let Some(refusal) = self.removal_refusal(mover, piece) {
            return Err(refusal);
        }
        let scoring = self.scoring(piece);
        if advance > u64::from(scoring.points) {
            return Err(Error::illegal_move("advance-too-far", format!(
                    "removing {piece} scores {} points ({} pieces on the {}, value {}, {} markers on it): an advance of {advance} is too far",
                    scoring.points,
                    scoring.pieces_on_line,
                    piece.line_name(),
                    piece.value(),
                    scoring.markers_on_line
                ), json!({ "advance": advance, "points": scoring.points })));
        }
        if Some(advance) == self.forbidden_advance(mover) {
            let other = mover.other();
            let cell = self.marker(other).map(cell_name).unwrap_or_default();
            return Err(Error::illegal_move("lands-on-marker", format!(
                    "an advance of {advance} would put the {} marker on {cell}, where the {} marker stands",
                    mover.name(),
                    other.name()
                ), json!({ "advance": advance, "cell": cell })));
        }
        Ok((index, scoring))
    }
}
