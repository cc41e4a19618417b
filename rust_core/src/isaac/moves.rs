//! Moves: placements, removals and passes, their notation and effects, the legal moves, playing one,
//! perft.

use std::fmt;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::json;

use super::board::{
    cell_name, cell_names, fitting, pieces_at, Piece, PlayerSchema, ALL, LENGTHS, MAX_SCORE,
    MIN_LENGTH, PIECES_PER_PLAYER, SUPPLY, TARGET,
};
use super::position::{Phase, Position};
use super::{Color, ScoringStarts};
use crate::digits::push_number;
use crate::error::{Error, Result};
use crate::players::COLORS;

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
    points: u32,
}

/// A group of legal moves that the generator counts without listing them: the placements of one
/// length (at their anchors, horizontal then vertical), or the removals of one piece (its advances).
#[derive(Debug, Clone, Copy)]
pub(super) enum Group {
    Place {
        length: usize,
        /// The anchors of the horizontal pieces, then of the vertical ones.
        anchors: [u128; 2],
    },
    /// The mover's piece `index`, with the advances 0..=points but the forbidden one.
    Remove {
        index: usize,
        piece: Piece,
        points: u64,
        forbidden: Option<u64>,
    },
}

impl Group {
    fn len(&self) -> u64 {
        match *self {
            Group::Place {
                anchors: [across, up],
                ..
            } => u64::from(across.count_ones() + up.count_ones()),
            Group::Remove {
                points, forbidden, ..
            } => points + 1 - u64::from(forbidden.is_some_and(|a| a <= points)),
        }
    }

    /// The group's k-th move (k below its `len`).
    fn nth(&self, k: u64) -> Step {
        match *self {
            Group::Place {
                length,
                anchors: [across, up],
            } => {
                let horizontal = u64::from(across.count_ones());
                let piece = if k < horizontal {
                    pieces_at(across, length, false).nth(k as usize)
                } else {
                    pieces_at(up, length, true).nth((k - horizontal) as usize)
                };
                Step::Place(piece.expect("k is below the group's count"))
            }
            Group::Remove {
                index,
                piece,
                forbidden,
                ..
            } => Step::Remove {
                index,
                piece,
                // The k-th of 0..=points, skipping the forbidden advance.
                advance: k + u64::from(forbidden.is_some_and(|a| a <= k)),
            },
        }
    }

    /// Calls `f` with the group's moves in order: a placement group walks its anchors, a removal
    /// its advances. (Plain loops: a chain of flattened iterators cost Isaac's `legal_actions`
    /// from Python 85% more.)
    fn for_each(&self, f: &mut impl FnMut(Step)) {
        match *self {
            Group::Place {
                length,
                anchors: [across, up],
            } => {
                for piece in pieces_at(across, length, false).chain(pieces_at(up, length, true)) {
                    f(Step::Place(piece));
                }
            }
            Group::Remove { .. } => {
                for k in 0..self.len() {
                    f(self.nth(k));
                }
            }
        }
    }
}

/// The groups of the placement phase or of the scoring phase, as one iterator.
enum PhaseGroups<P, R> {
    Placement(P),
    Scoring(R),
}

impl<P: Iterator<Item = Group>, R: Iterator<Item = Group>> Iterator for PhaseGroups<P, R> {
    type Item = Group;

    #[inline(always)] // perft's last ply sums the groups' counts: a call a group cost perft(3) 20%
    fn next(&mut self) -> Option<Group> {
        match self {
            PhaseGroups::Placement(groups) => groups.next(),
            PhaseGroups::Scoring(groups) => groups.next(),
        }
    }
}

/// A legal move as the generator makes it, with what taking it unchecked needs (the removed
/// piece's index in the mover's list).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Step {
    Place(Piece),
    Remove {
        index: usize,
        piece: Piece,
        advance: u64,
    },
    Pass,
}

impl Step {
    pub(super) fn to_move(self) -> Move {
        match self {
            Step::Place(piece) => Move::Place(piece),
            Step::Remove { piece, advance, .. } => Move::Remove { piece, advance },
            Step::Pass => Move::Pass,
        }
    }
}

/// The legal moves of the player to move, as the generator enumerates them: counted by groups and
/// the k-th found in its group, without listing them (perft's last ply, a random decision), or
/// listed (`legal_moves`, perft's other plies); the pass alone when no group has a move.
pub(super) struct Moves<'a> {
    position: &'a Position,
    mover: Color,
}

impl Moves<'_> {
    /// The groups of the phase in list order (computed as they are walked).
    fn groups(&self) -> impl Iterator<Item = Group> + '_ {
        match self.position.phase {
            Phase::Placement => PhaseGroups::Placement(self.position.placement_groups(self.mover)),
            Phase::Scoring => PhaseGroups::Scoring(self.position.removal_groups(self.mover)),
        }
    }

    /// How many placements or removals there are: 0 when the only move is the pass.
    pub(super) fn without_pass(&self) -> u64 {
        self.groups().map(|group| group.len()).sum()
    }

    /// How many legal moves there are, the pass included when it is the only one.
    pub(super) fn count(&self) -> u64 {
        self.without_pass().max(1)
    }

    /// The move `pick` chooses by its index in list order, given the count: one walk of the
    /// groups, which are kept to find the chosen one (a rollout's step).
    pub(super) fn pick(&self, pick: impl FnOnce(u64) -> u64) -> Step {
        // A group a placement length (5) or a removable piece (a player has 15): at most 15.
        let mut groups = [None; PIECES_PER_PLAYER];
        debug_assert!(self.groups().count() <= groups.len());
        let mut total = 0;
        for (slot, group) in groups.iter_mut().zip(self.groups()) {
            total += group.len();
            *slot = Some(group);
        }
        let mut k = pick(total.max(1));
        for group in groups.iter().flatten() {
            let n = group.len();
            if k < n {
                return group.nth(k);
            }
            k -= n;
        }
        debug_assert!(k == 0, "the pick is below the count");
        Step::Pass
    }

    /// Calls `f` with the legal moves in list order.
    pub(super) fn for_each(&self, mut f: impl FnMut(Step)) {
        let mut any = false;
        for group in self.groups() {
            group.for_each(&mut |step| {
                any = true;
                f(step);
            });
        }
        if !any {
            f(Step::Pass);
        }
    }
}

impl Position {
    /// The legal moves of `mover`, who is to move.
    pub(super) fn moves(&self, mover: Color) -> Moves<'_> {
        Moves {
            position: self,
            mover,
        }
    }

    /// The placement groups of `color` in list order: length ascending (each group's pieces
    /// horizontal first, anchor ascending).
    fn placement_groups(&self, color: Color) -> impl Iterator<Item = Group> + '_ {
        let empty = ALL & !self.occupied;
        LENGTHS
            .iter()
            .filter(move |&&length| self.unplaced[color as usize][length - MIN_LENGTH] > 0)
            .map(move |&length| Group::Place {
                length,
                anchors: [false, true].map(|vertical| fitting(empty, length, vertical)),
            })
    }

    /// The removal groups of `color` in list order (the pieces' lower-left cells ascending).
    fn removal_groups(&self, color: Color) -> impl Iterator<Item = Group> + '_ {
        let forbidden = self.forbidden_advance(color);
        self.removals(color)
            .map(move |(index, piece)| Group::Remove {
                index,
                piece,
                points: u64::from(self.scoring(piece).points),
                forbidden,
            })
    }

    /// The first placement of `color` in list order, if it has one.
    pub(super) fn first_placement(&self, color: Color) -> Option<Piece> {
        let group = self.placement_groups(color).find(|group| group.len() > 0)?;
        match group.nth(0) {
            Step::Place(piece) => Some(piece),
            _ => None,
        }
    }

    /// `mover`'s legal move `step`, taken without checks (perft's and rollouts' step).
    pub(super) fn take(&self, mover: Color, step: Step) -> Position {
        match step {
            Step::Place(piece) => self.place(mover, piece),
            Step::Remove { index, advance, .. } => self.remove(mover, index, advance),
            Step::Pass => self.pass(mover).0,
        }
    }

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

    /// The removable pieces of `color` in list order (lower-left cell ascending), with their index.
    pub(super) fn removals(&self, color: Color) -> impl Iterator<Item = (usize, Piece)> + '_ {
        let markers = self.markers();
        let longest = self.longest_removed(color);
        self.pieces(color)
            .iter()
            .enumerate()
            .filter(move |(_, &mask)| mask & markers == 0)
            .filter_map(|(index, &mask)| Piece::from_mask(mask).map(|piece| (index, piece)))
            .filter(move |(_, piece)| piece.length() >= usize::from(longest))
    }

    /// The one advance of `color` that would land on the other marker, if there is one.
    pub(super) fn forbidden_advance(&self, color: Color) -> Option<u64> {
        let own = u64::from(self.scores[color as usize]);
        let other = u64::from(self.scores[color.other() as usize]);
        // Black's b and White's w share a cell exactly when b + w = 99.
        99u64.checked_sub(own + other)
    }

    pub fn legal_moves(&self) -> Vec<Move> {
        let Some(mover) = self.to_move else {
            return Vec::new();
        };
        let mut moves = Vec::new();
        self.moves(mover)
            .for_each(|step| moves.push(step.to_move()));
        moves
    }

    /// The legal moves with one entry a removable piece: `xc4-g4+0..18`, or `xc4-g4+0..18!7` when
    /// advance 7 would land on the other marker.
    pub fn compact_moves(&self) -> Vec<String> {
        let Some(mover) = self.to_move else {
            return Vec::new();
        };
        let moves = self.moves(mover);
        if self.phase == Phase::Placement {
            let mut texts = Vec::new();
            moves.for_each(|step| texts.push(step.to_move().text()));
            return texts;
        }
        let removal = |group: Group| match group {
            Group::Remove {
                piece,
                points,
                forbidden,
                ..
            } => Some(match forbidden.filter(|&a| a <= points) {
                Some(a) => format!("x{piece}+0..{points}!{a}"),
                None => format!("x{piece}+0..{points}"),
            }),
            Group::Place { .. } => None, // the scoring phase has removal groups only
        };
        let mut compact: Vec<String> = moves.groups().filter_map(removal).collect();
        if compact.is_empty() {
            compact.push(Move::Pass.text());
        }
        compact
    }

    /// The number of legal moves, without listing them.
    pub fn move_count(&self) -> u64 {
        self.to_move.map_or(0, |mover| self.moves(mover).count())
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

    /// Move paths counted by bulk: the last ply is the number of legal moves.
    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let Some(mover) = self.to_move else {
            return 0;
        };
        let moves = self.moves(mover);
        if depth == 1 {
            return moves.count();
        }
        let mut nodes = 0;
        moves.for_each(|step| nodes += self.take(mover, step).perft(depth - 1));
        nodes
    }
}

#[cfg(test)]
mod tests {
    use super::super::Config;
    use super::*;

    #[test]
    fn the_empty_board_offers_600_placements() {
        let start = Position::start(Config::default());
        let moves = start.legal_moves();
        assert_eq!(moves.len(), 600);
        assert_eq!(start.move_count(), 600);
        assert_eq!(moves[0].to_string(), "a1-c1");
        assert_eq!(moves[1].to_string(), "b1-d1");
        assert_eq!(moves[599].to_string(), "j4-j10");
    }
}
