//! Isaac: two players place straight pieces (3 to 7 cells) on a 10 × 10 board until neither can, then
//! remove them one by one for points, advancing score markers that run over the same board.
//! Spec: `rules/isaac.md`; the shared interface (notation, list orders, effects): `specs/isaac.md`.

mod geometry;

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::error::{Error, Result};
use crate::game::{Outcome, Rules, Status};
use crate::schemas::Nullable;
pub use geometry::{cell_name, parse_cell, Piece, CELL_COUNT, COLUMNS, ROWS};
use geometry::{
    cell_names, fitting, fitting_pieces, ALL, LENGTHS, MIN_LENGTH, PIECES_PER_PLAYER, SUPPLY,
};

/// A score at or above this wins at once.
pub const TARGET: u16 = 100;
/// The highest score a game can reach: 99 plus the most points one removal can give. After removing
/// a piece of length L from its line, at most 10 − L other pieces touch the line, so the most is
/// (10 − L) × value × 4, largest for the 7 (3 × 6 × 4 = 72).
pub const MAX_SCORE: u16 = 99 + 72;

pub use crate::players::Color;
use crate::players::COLORS;

// The contract's name for a colour of Isaac (the type is the shared `Color`). No doc comment: it
// would become the schema's description.
#[derive(JsonSchema)]
#[schemars(rename = "IsaacPlayer", rename_all = "lowercase")]
#[allow(dead_code)] // a schema only
enum PlayerSchema {
    Black,
    White,
}

/// Who opens the scoring phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, JsonSchema)]
#[schemars(rename = "IsaacScoringStarts", rename_all = "snake_case")]
pub enum ScoringStarts {
    /// The player who passed first in the placement phase.
    #[default]
    FirstToPass,
    /// The player who placed first.
    FirstPlayer,
}

impl ScoringStarts {
    pub fn name(self) -> &'static str {
        match self {
            ScoringStarts::FirstToPass => "first_to_pass",
            ScoringStarts::FirstPlayer => "first_player",
        }
    }
}

/// A finished game keeps the phase it ended in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, JsonSchema)]
#[schemars(rename = "IsaacPhase", rename_all = "lowercase")]
pub enum Phase {
    #[default]
    Placement,
    Scoring,
}

impl Phase {
    pub fn name(self) -> &'static str {
        match self {
            Phase::Placement => "placement",
            Phase::Scoring => "scoring",
        }
    }

    fn from_name(name: &str) -> Option<Phase> {
        match name {
            "placement" => Some(Phase::Placement),
            "scoring" => Some(Phase::Scoring),
            _ => None,
        }
    }
}

/// The checked options: what the engine plays by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Config {
    pub first_player: Color,
    pub scoring_starts: ScoringStarts,
}

impl Config {
    pub fn setup(self) -> Setup {
        Setup {
            variant: STANDARD.to_owned(),
            options: Options {
                first_player: self.first_player.name().to_owned(),
                scoring_starts: self.scoring_starts.name().to_owned(),
            },
        }
    }
}

const STANDARD: &str = "standard";

fn standard() -> String {
    STANDARD.to_owned()
}

fn black() -> String {
    Color::Black.name().to_owned()
}

fn first_to_pass() -> String {
    ScoringStarts::FirstToPass.name().to_owned()
}

/// The options as clients write them. Values stay text until `check_setup` (or `from_state`) reads
/// them, so that a bad value is refused with the field that holds it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "IsaacOptions", description = "")]
pub struct Options {
    /// Who places first (and wins the last tie-break).
    #[serde(default = "black")]
    #[schemars(with = "PlayerSchema")]
    first_player: String,
    /// Who opens the scoring phase: the player who passed first in the placement phase, or the
    /// first player.
    #[serde(default = "first_to_pass")]
    #[schemars(with = "ScoringStarts")]
    scoring_starts: String,
}

/// Isaac's variants (one).
#[derive(JsonSchema)]
#[schemars(rename = "IsaacVariant", rename_all = "lowercase")]
#[allow(dead_code)] // a schema only: the engine reads the variant as text (see `Setup::config`)
enum VariantName {
    Standard,
}

impl Default for Options {
    fn default() -> Self {
        Config::default().setup().options
    }
}

/// Variant and options: `{"variant": "standard", "options": {"first_player", "scoring_starts"}}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "IsaacSetup", description = "")]
pub struct Setup {
    #[serde(default = "standard")]
    #[schemars(with = "VariantName")]
    variant: String,
    #[serde(default)]
    options: Options,
}

impl Default for Setup {
    fn default() -> Self {
        Config::default().setup()
    }
}

impl Setup {
    pub fn new(first_player: Color, scoring_starts: ScoringStarts) -> Setup {
        Config {
            first_player,
            scoring_starts,
        }
        .setup()
    }

    /// The typed options, or the field that is wrong and why.
    pub fn config(&self) -> std::result::Result<Config, (String, String)> {
        if self.variant != STANDARD {
            return Err((
                "variant".into(),
                format!(
                    "unknown variant {:?}: Isaac has only \"standard\"",
                    self.variant
                ),
            ));
        }
        let first_player = Color::from_name(&self.options.first_player).ok_or_else(|| {
            (
                "options.first_player".to_owned(),
                format!(
                    "first_player is \"black\" or \"white\", not {:?}",
                    self.options.first_player
                ),
            )
        })?;
        let scoring_starts = match self.options.scoring_starts.as_str() {
            "first_to_pass" => ScoringStarts::FirstToPass,
            "first_player" => ScoringStarts::FirstPlayer,
            other => {
                return Err((
                    "options.scoring_starts".into(),
                    format!(
                        "scoring_starts is \"first_to_pass\" or \"first_player\", not {other:?}"
                    ),
                ))
            }
        };
        Ok(Config {
            first_player,
            scoring_starts,
        })
    }
}

/// A move: a placement `c4-g4`, a removal with its marker advance `xc4-g4+12`, or `pass`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Move {
    Place(Piece),
    Remove { piece: Piece, advance: u64 },
    Pass,
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Move::Place(piece) => write!(f, "{piece}"),
            Move::Remove { piece, advance } => write!(f, "x{piece}+{advance}"),
            Move::Pass => f.write_str("pass"),
        }
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
enum ActionKind {
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
struct EffectsSchema {
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
struct Scoring {
    pieces_on_line: u32,
    markers_on_line: u32,
    points: u32,
}

/// A valid Isaac position. Each player's pieces on the board are kept as cell masks sorted by their
/// lower-left cell; `occupied` is their union.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    config: Config,
    occupied: u128,
    pieces: [[u128; PIECES_PER_PLAYER]; 2],
    piece_count: [u8; 2],
    /// Pieces not yet placed, by length − 3.
    unplaced: [[u8; 5]; 2],
    phase: Phase,
    /// `None` once the game is over.
    to_move: Option<Color>,
    /// Who has passed in the current phase.
    passed: [bool; 2],
    first_to_pass: Option<Color>,
    scores: [u16; 2],
    /// Lengths removed, in removal order (never decreasing).
    removed: [[u8; PIECES_PER_PLAYER]; 2],
    removed_count: [u8; 2],
}

impl Position {
    pub fn start(config: Config) -> Position {
        Position {
            config,
            occupied: 0,
            pieces: [[0; PIECES_PER_PLAYER]; 2],
            piece_count: [0; 2],
            unplaced: [SUPPLY; 2],
            phase: Phase::Placement,
            to_move: Some(config.first_player),
            passed: [false; 2],
            first_to_pass: None,
            scores: [0; 2],
            removed: [[0; PIECES_PER_PLAYER]; 2],
            removed_count: [0; 2],
        }
    }

    pub fn config(&self) -> Config {
        self.config
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    pub fn to_move(&self) -> Option<Color> {
        self.to_move
    }

    pub fn score(&self, color: Color) -> u16 {
        self.scores[color as usize]
    }

    /// The pieces of a player on the board, as cell masks in lower-left cell order.
    pub fn pieces(&self, color: Color) -> &[u128] {
        &self.pieces[color as usize][..usize::from(self.piece_count[color as usize])]
    }

    fn removed(&self, color: Color) -> &[u8] {
        &self.removed[color as usize][..usize::from(self.removed_count[color as usize])]
    }

    /// The longest piece the player removed so far (0 if none): removals never get shorter.
    fn longest_removed(&self, color: Color) -> u8 {
        self.removed(color).last().copied().unwrap_or(0)
    }

    fn add_piece(&mut self, color: Color, mask: u128) {
        let c = color as usize;
        let count = usize::from(self.piece_count[c]);
        let list = &mut self.pieces[c];
        // Insertion into the anchor-sorted list; no two pieces share an anchor.
        let mut at = count;
        while at > 0 && list[at - 1].trailing_zeros() > mask.trailing_zeros() {
            list[at] = list[at - 1];
            at -= 1;
        }
        list[at] = mask;
        self.piece_count[c] += 1;
        self.occupied |= mask;
    }

    fn remove_piece(&mut self, color: Color, index: usize) {
        let c = color as usize;
        let count = usize::from(self.piece_count[c]);
        self.occupied &= !self.pieces[c][index];
        self.pieces[c].copy_within(index + 1..count, index);
        self.pieces[c][count - 1] = 0;
        self.piece_count[c] -= 1;
    }

    /// The cell of a player's marker; `None` once the score reached 100 (the marker left the board).
    pub fn marker(&self, color: Color) -> Option<usize> {
        let score = usize::from(self.scores[color as usize]);
        (score < usize::from(TARGET)).then_some(match color {
            Color::Black => score,
            Color::White => 99 - score,
        })
    }

    fn markers(&self) -> u128 {
        COLORS
            .iter()
            .filter_map(|&color| self.marker(color))
            .fold(0, |set, cell| set | 1u128 << cell)
    }

    // ------------------------------------------------------------------ placement

    /// The placements of `color` in list order: length ascending, horizontal first, anchor ascending.
    fn placements(&self, color: Color) -> impl Iterator<Item = Piece> + '_ {
        let empty = ALL & !self.occupied;
        LENGTHS
            .iter()
            .filter(move |&&length| self.unplaced[color as usize][length - MIN_LENGTH] > 0)
            .flat_map(move |&length| {
                [false, true]
                    .into_iter()
                    .flat_map(move |vertical| fitting_pieces(empty, length, vertical))
            })
    }

    fn placement_count(&self, color: Color) -> u64 {
        let empty = ALL & !self.occupied;
        LENGTHS
            .iter()
            .filter(|&&length| self.unplaced[color as usize][length - MIN_LENGTH] > 0)
            .map(|&length| {
                u64::from(fitting(empty, length, false).count_ones())
                    + u64::from(fitting(empty, length, true).count_ones())
            })
            .sum()
    }

    // ------------------------------------------------------------------ scoring

    fn scoring(&self, piece: Piece) -> Scoring {
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
    fn removal_refusal(&self, color: Color, piece: Piece) -> Option<Error> {
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
    fn removals(&self, color: Color) -> impl Iterator<Item = (usize, Piece)> + '_ {
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
    fn forbidden_advance(&self, color: Color) -> Option<u64> {
        let own = u64::from(self.scores[color as usize]);
        let other = u64::from(self.scores[color.other() as usize]);
        // Black's b and White's w share a cell exactly when b + w = 99.
        99u64.checked_sub(own + other)
    }

    fn removal_count(&self, color: Color) -> u64 {
        let forbidden = self.forbidden_advance(color);
        self.removals(color)
            .map(|(_, piece)| {
                let points = u64::from(self.scoring(piece).points);
                points + 1 - u64::from(forbidden.is_some_and(|a| a <= points))
            })
            .sum()
    }

    // ------------------------------------------------------------------ moves

    pub fn legal_moves(&self) -> Vec<Move> {
        let Some(mover) = self.to_move else {
            return Vec::new();
        };
        let mut moves: Vec<Move> = match self.phase {
            Phase::Placement => self.placements(mover).map(Move::Place).collect(),
            Phase::Scoring => {
                let forbidden = self.forbidden_advance(mover);
                let mut moves = Vec::new();
                for (_, piece) in self.removals(mover) {
                    let points = u64::from(self.scoring(piece).points);
                    moves.extend(
                        (0..=points)
                            .filter(|&advance| Some(advance) != forbidden)
                            .map(|advance| Move::Remove { piece, advance }),
                    );
                }
                moves
            }
        };
        if moves.is_empty() {
            moves.push(Move::Pass);
        }
        moves
    }

    /// The legal moves with one entry a removable piece: `xc4-g4+0..18`, or `xc4-g4+0..18!7` when
    /// advance 7 would land on the other marker.
    pub fn compact_moves(&self) -> Vec<String> {
        let Some(mover) = self.to_move else {
            return Vec::new();
        };
        if self.phase == Phase::Placement {
            return self.legal_moves().iter().map(ToString::to_string).collect();
        }
        let forbidden = self.forbidden_advance(mover);
        let mut moves: Vec<String> = self
            .removals(mover)
            .map(|(_, piece)| {
                let points = u64::from(self.scoring(piece).points);
                match forbidden.filter(|&a| a <= points) {
                    Some(a) => format!("x{piece}+0..{points}!{a}"),
                    None => format!("x{piece}+0..{points}"),
                }
            })
            .collect();
        if moves.is_empty() {
            moves.push(Move::Pass.to_string());
        }
        moves
    }

    /// The number of legal moves, without listing them.
    pub fn move_count(&self) -> u64 {
        let Some(mover) = self.to_move else {
            return 0;
        };
        let count = match self.phase {
            Phase::Placement => self.placement_count(mover),
            Phase::Scoring => self.removal_count(mover),
        };
        count.max(1)
    }

    /// Who moves after `mover` made a move other than a pass: the other player unless they are out.
    fn next_after(&self, mover: Color) -> Color {
        if self.passed[mover.other() as usize] {
            mover
        } else {
            mover.other()
        }
    }

    fn place(&self, mover: Color, piece: Piece) -> Position {
        let mut next = *self;
        next.add_piece(mover, piece.mask());
        next.unplaced[mover as usize][piece.length() - MIN_LENGTH] -= 1;
        next.to_move = Some(self.next_after(mover));
        next
    }

    fn remove(&self, mover: Color, index: usize, advance: u64) -> Position {
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
    fn pass(&self, mover: Color) -> (Position, bool) {
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
    fn scoring_starter(&self) -> Color {
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
                let available = self.move_count_without_pass(mover);
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

    fn move_count_without_pass(&self, mover: Color) -> u64 {
        match self.phase {
            Phase::Placement => self.placement_count(mover),
            Phase::Scoring => self.removal_count(mover),
        }
    }

    fn check_placement(&self, mover: Color, piece: Piece) -> Result<()> {
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
    fn check_removal(&self, mover: Color, piece: Piece, advance: u64) -> Result<(usize, Scoring)> {
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
        if depth == 1 {
            return self.move_count();
        }
        let mut nodes = 0;
        let mut any = false;
        match self.phase {
            Phase::Placement => {
                for piece in self.placements(mover) {
                    any = true;
                    nodes += self.place(mover, piece).perft(depth - 1);
                }
            }
            Phase::Scoring => {
                let forbidden = self.forbidden_advance(mover);
                for (index, piece) in self.removals(mover) {
                    any = true;
                    for advance in 0..=u64::from(self.scoring(piece).points) {
                        if Some(advance) != forbidden {
                            nodes += self.remove(mover, index, advance).perft(depth - 1);
                        }
                    }
                }
            }
        }
        if !any {
            nodes = self.pass(mover).0.perft(depth - 1);
        }
        nodes
    }

    // ------------------------------------------------------------------ outcome

    fn unplaced_cells(&self, color: Color) -> u32 {
        LENGTHS
            .iter()
            .map(|&length| length as u32 * u32::from(self.unplaced[color as usize][length - 3]))
            .sum()
    }

    fn unplaced_pieces(&self, color: Color) -> u32 {
        self.unplaced[color as usize]
            .iter()
            .map(|&n| u32::from(n))
            .sum()
    }

    pub fn outcome(&self) -> Outcome {
        let [black, white] = self.scores.map(i64::from);
        let scores = BTreeMap::from([("black", black), ("white", white)]);
        if let Some(mover) = self.to_move {
            return Outcome {
                status: Status::Ongoing,
                to_move: Some(mover.name()),
                scores,
                winner: None,
                decided_by: None,
                ranking: None,
            };
        }
        let (winner, decided_by) = self.result();
        Outcome {
            status: Status::Finished,
            to_move: None,
            scores,
            winner: Some(winner.name()),
            decided_by: Some(decided_by),
            ranking: None,
        }
    }

    /// The winner of a finished game and how it was decided.
    fn result(&self) -> (Color, &'static str) {
        let [black, white] = COLORS;
        if let Some(&winner) = COLORS.iter().find(|&&c| self.score(c) >= TARGET) {
            return (winner, "target");
        }
        let better = |a: u32, b: u32, more_wins: bool| match a.cmp(&b) {
            std::cmp::Ordering::Equal => None,
            std::cmp::Ordering::Greater => Some(if more_wins { black } else { white }),
            std::cmp::Ordering::Less => Some(if more_wins { white } else { black }),
        };
        if let Some(winner) = better(
            u32::from(self.score(black)),
            u32::from(self.score(white)),
            true,
        ) {
            return (winner, "score");
        }
        if let Some(winner) = better(self.unplaced_cells(black), self.unplaced_cells(white), true) {
            return (winner, "unplaced_cells");
        }
        if let Some(winner) = better(
            self.unplaced_pieces(black),
            self.unplaced_pieces(white),
            false,
        ) {
            return (winner, "unplaced_count");
        }
        (self.config.first_player, "first_player")
    }

    // ------------------------------------------------------------------ notation

    /// Every piece on the board with its owner, in lower-left cell order.
    fn all_pieces(&self) -> Vec<(Color, Piece)> {
        let mut all: Vec<(Color, Piece)> = COLORS
            .iter()
            .flat_map(|&color| {
                self.pieces(color)
                    .iter()
                    .filter_map(move |&mask| Piece::from_mask(mask).map(|piece| (color, piece)))
            })
            .collect();
        all.sort_by_key(|(_, piece)| piece.anchor());
        all
    }

    pub fn text(&self) -> String {
        let mut pieces = String::with_capacity(256);
        for (index, (color, piece)) in self.all_pieces().iter().enumerate() {
            let separator = if index == 0 { "" } else { "," };
            let _ = write!(
                pieces,
                "{separator}{}{piece}",
                color.letter().to_ascii_uppercase()
            );
        }
        if pieces.is_empty() {
            pieces.push('-');
        }
        let letter = |color: Option<Color>| color.map_or('-', Color::letter);
        let passed: String = COLORS
            .iter()
            .filter(|&&c| self.passed[c as usize])
            .map(|c| c.letter())
            .collect();
        let removed = |color: Color| {
            let lengths: String = self
                .removed(color)
                .iter()
                .map(|length| char::from(b'0' + length))
                .collect();
            if lengths.is_empty() {
                "-".to_owned()
            } else {
                lengths
            }
        };
        format!(
            "{pieces} {} {} {},{} {} {} {}/{}",
            self.phase.name(),
            letter(self.to_move),
            self.scores[0],
            self.scores[1],
            letter(self.first_to_pass),
            if passed.is_empty() { "-" } else { &passed },
            removed(Color::Black),
            removed(Color::White)
        )
    }

    /// Builds a position from untrusted parts, checking everything a reachable position satisfies,
    /// in this order (the first refusal a state meets is part of the contract).
    fn from_parts(parts: Parts, config: Config) -> Result<Position> {
        let mut position = Position::start(config);
        position.to_move = None;
        for color in COLORS {
            position.place_pieces(color, &parts.pieces[color as usize])?;
        }
        for color in COLORS {
            let c = color as usize;
            check_removal_order(color, &parts.removed[c])?;
            position.count_unplaced(color, &parts.removed[c])?;
            position.place_removed(color, &parts.removed[c]);
            position.place_score(color, parts.scores[c])?;
        }
        position.phase = parts.phase;
        position.passed = parts.passed;
        position.first_to_pass = parts.first_to_pass;
        let expected = match parts.phase {
            Phase::Placement => position.check_placement_phase()?,
            Phase::Scoring => position.check_scoring_phase()?,
        };
        check_to_move(parts.to_move, expected)?;
        position.to_move = expected;
        Ok(position)
    }

    /// Places `color`'s pieces: no more than it owns, none overlapping another.
    fn place_pieces(&mut self, color: Color, pieces: &[IndexedPiece]) -> Result<()> {
        if pieces.len() > PIECES_PER_PLAYER {
            return Err(Error::invalid_state(
                format!("pieces.{}", color.name()),
                format!(
                    "{} has {} pieces on the board, but owns only {PIECES_PER_PLAYER}",
                    color.name(),
                    pieces.len()
                ),
            ));
        }
        for &(piece, index) in pieces {
            let mask = piece.mask();
            if mask & self.occupied != 0 {
                return Err(Error::invalid_state(
                    piece_field(color, index),
                    format!(
                        "{piece} overlaps another piece on {}",
                        cell_names(mask & self.occupied).join(", ")
                    ),
                ));
            }
            self.add_piece(color, mask);
        }
        Ok(())
    }

    /// Counts `color`'s unplaced pieces of each length: with the removed ones, no more of a length
    /// on the board than it owns.
    fn count_unplaced(&mut self, color: Color, removed: &[i64]) -> Result<()> {
        let name = color.name();
        for length in LENGTHS {
            let on_board = self
                .pieces(color)
                .iter()
                .filter(|mask| mask.count_ones() as usize == length)
                .count();
            let gone = removed.iter().filter(|&&l| l == length as i64).count();
            let supply = usize::from(SUPPLY[length - MIN_LENGTH]);
            if on_board + gone > supply {
                let field = if on_board > supply {
                    "pieces"
                } else {
                    "removed"
                };
                return Err(Error::invalid_state(
                    format!("{field}.{name}"),
                    format!(
                        "{name} has {on_board} pieces of length {length} on the board and {gone} removed, but owns only {supply}"
                    ),
                ));
            }
            self.unplaced[color as usize][length - MIN_LENGTH] = (supply - on_board - gone) as u8;
        }
        Ok(())
    }

    /// Records `color`'s removed lengths, once checked by `check_removal_order` and `count_unplaced`.
    fn place_removed(&mut self, color: Color, removed: &[i64]) {
        let c = color as usize;
        // Lengths are 3..7 and at most 15 (checked before): they fit a u8 and the array.
        for (index, &length) in removed.iter().enumerate() {
            self.removed[c][index] = length as u8;
        }
        self.removed_count[c] = removed.len() as u8;
    }

    /// Records `color`'s score: 0 to `MAX_SCORE`.
    fn place_score(&mut self, color: Color, score: i64) -> Result<()> {
        if !(0..=i64::from(MAX_SCORE)).contains(&score) {
            return Err(Error::invalid_state(
                format!("scores.{}", color.name()),
                format!("a score is 0 to {MAX_SCORE} (99 and the most one removal can add), not {score}"),
            ));
        }
        self.scores[color as usize] = score as u16;
        Ok(())
    }

    fn placed(&self, color: Color) -> u32 {
        u32::from(self.piece_count[color as usize]) + u32::from(self.removed_count[color as usize])
    }

    /// The checks of a placement-phase position; answers who is to move.
    fn check_placement_phase(&self) -> Result<Option<Color>> {
        for color in COLORS {
            let name = color.name();
            if self.scores[color as usize] != 0 {
                return Err(Error::invalid_state(
                    format!("scores.{name}"),
                    "nobody scores before the scoring phase",
                ));
            }
            if self.removed_count[color as usize] != 0 {
                return Err(Error::invalid_state(
                    format!("removed.{name}"),
                    "nothing is removed before the scoring phase",
                ));
            }
        }
        let passers: Vec<Color> = COLORS
            .into_iter()
            .filter(|&c| self.passed[c as usize])
            .collect();
        match passers.as_slice() {
            [] if self.first_to_pass.is_some() => {
                return Err(Error::invalid_state(
                    "first_to_pass",
                    "nobody has passed in the placement phase",
                ))
            }
            [passer] if self.first_to_pass != Some(*passer) => {
                return Err(Error::invalid_state(
                    "first_to_pass",
                    format!("only {} has passed, so {0} passed first", passer.name()),
                ))
            }
            [_, _] => {
                return Err(Error::invalid_state(
                    "passed",
                    "both players have passed, so the placement phase is over",
                ))
            }
            _ => {}
        }
        for &passer in &passers {
            if let Some(piece) = self.placements(passer).next() {
                return Err(Error::invalid_state(
                    "passed",
                    format!(
                        "{} passed, so it cannot place any more (the board only fills up), but {piece} fits",
                        passer.name()
                    ),
                ));
            }
        }
        let placed = COLORS.map(|c| self.placed(c));
        turn_after(self.config.first_player, placed, self.passed)
            .map_err(|detail| Error::invalid_state("pieces", detail))
    }

    /// The checks of a scoring-phase position; answers who is to move (`None` when it is over).
    fn check_scoring_phase(&self) -> Result<Option<Color>> {
        let Some(first) = self.first_to_pass else {
            return Err(Error::invalid_state(
                "first_to_pass",
                "the scoring phase follows the placement phase, which ended when both passed: someone passed first",
            ));
        };
        self.check_placement_left_by(first)?;
        self.check_placement_ended()?;
        self.check_scores_need_removals()?;
        let starter = self.scoring_starter();
        let removals = COLORS.map(|c| u32::from(self.removed_count[c as usize]));
        let winners: Vec<Color> = COLORS
            .into_iter()
            .filter(|&c| self.score(c) >= TARGET)
            .collect();
        match winners.as_slice() {
            [] => {}
            [winner] => return self.check_winning_removal(*winner, starter, removals),
            _ => {
                return Err(Error::invalid_state(
                    "scores",
                    format!("the game ends as soon as one score reaches {TARGET}: both cannot"),
                ))
            }
        }
        self.check_markers_apart()?;
        let mover = turn_after(starter, removals, self.passed)
            .map_err(|detail| Error::invalid_state("removed", detail))?;
        if mover.is_none() {
            self.check_last_passer_had_no_removal()?;
        }
        Ok(mover)
    }

    /// Pieces placed (on the board or removed) fit the placement phase that `first` left first.
    fn check_placement_left_by(&self, first: Color) -> Result<()> {
        let placed = COLORS.map(|c| self.placed(c));
        let mut first_only = [false; 2];
        first_only[first as usize] = true;
        turn_after(self.config.first_player, placed, first_only).map_err(|detail| {
            Error::invalid_state(
                "first_to_pass",
                format!(
                    "{} passed first in the placement phase: {detail}",
                    first.name()
                ),
            )
        })?;
        Ok(())
    }

    /// Before any removal the board is still as the placement phase left it: full for both players.
    fn check_placement_ended(&self) -> Result<()> {
        if self.removed_count != [0, 0] {
            return Ok(());
        }
        for color in COLORS {
            if let Some(piece) = self.placements(color).next() {
                return Err(Error::invalid_state(
                    "pieces",
                    format!(
                        "the placement phase ended when neither player could place, but {} can still place {piece}",
                        color.name()
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Only removals score.
    fn check_scores_need_removals(&self) -> Result<()> {
        for color in COLORS {
            if self.scores[color as usize] > 0 && self.removed_count[color as usize] == 0 {
                return Err(Error::invalid_state(
                    format!("scores.{}", color.name()),
                    format!("{} has removed no piece, so its score is 0", color.name()),
                ));
            }
        }
        Ok(())
    }

    /// A winner reached the target with the last move, a removal made in its turn: the game is over.
    fn check_winning_removal(
        &self,
        winner: Color,
        starter: Color,
        removals: [u32; 2],
    ) -> Result<Option<Color>> {
        let w = winner as usize;
        if self.passed[w] {
            return Err(Error::invalid_state(
                "passed",
                format!(
                    "{} reached {TARGET} with the last move, so it had not passed",
                    winner.name()
                ),
            ));
        }
        let mut before = removals;
        before[w] -= 1; // at least one removal: its score is above 0
        let mover = turn_after(starter, before, self.passed)
            .map_err(|detail| Error::invalid_state("removed", detail))?;
        if mover != Some(winner) {
            return Err(Error::invalid_state(
                "removed",
                format!(
                    "{} reached {TARGET} with the last removal, but with these removal counts it was not {0}'s turn",
                    winner.name()
                ),
            ));
        }
        Ok(None)
    }

    /// The two score markers never share a cell.
    fn check_markers_apart(&self) -> Result<()> {
        if self.scores[0] + self.scores[1] == 99 {
            return Err(Error::invalid_state(
                "scores",
                format!(
                    "the two markers would share {}: no marker may end on the other",
                    cell_name(usize::from(self.scores[0]))
                ),
            ));
        }
        Ok(())
    }

    /// Both passed: the last to pass had no removal then, and a pass changes nothing.
    fn check_last_passer_had_no_removal(&self) -> Result<()> {
        if COLORS.iter().all(|&c| self.removals(c).next().is_some()) {
            return Err(Error::invalid_state(
                "passed",
                "both players passed, so the last to pass has no removal, but both have one",
            ));
        }
        Ok(())
    }
}

/// Refuses removed lengths outside 3 to 7 or getting shorter: each removal is at least as long as
/// the one before.
fn check_removal_order(color: Color, removed: &[i64]) -> Result<()> {
    let name = color.name();
    for (index, &length) in removed.iter().enumerate() {
        if !(3..=7).contains(&length) {
            return Err(Error::invalid_state(
                format!("removed.{name}"),
                format!("removed lengths are 3 to 7, not {length}"),
            ));
        }
        if index > 0 && length < removed[index - 1] {
            return Err(Error::invalid_state(
                format!("removed.{name}"),
                format!(
                    "{name} removed a {length} after a {}: removals never get shorter",
                    removed[index - 1]
                ),
            ));
        }
    }
    Ok(())
}

/// Refuses a player to move other than the one the position's phase and counts name.
fn check_to_move(to_move: Option<Color>, expected: Option<Color>) -> Result<()> {
    if to_move == expected {
        return Ok(());
    }
    let name = |c: Option<Color>| c.map_or("nobody (the game is over)", Color::name);
    Err(Error::invalid_state(
        "to_move",
        format!("{} is to move here, not {}", name(expected), name(to_move)),
    ))
}

/// Who moves next in a phase opened by `start`, after `moves` non-pass moves of each player and the
/// passes in `passed`: players alternate until one passes, then the other moves alone. `None` when
/// both passed; an error when the counts cannot arise.
fn turn_after(
    start: Color,
    moves: [u32; 2],
    passed: [bool; 2],
) -> std::result::Result<Option<Color>, String> {
    let other = start.other();
    let (s, o) = (moves[start as usize], moves[other as usize]);
    let (sn, on) = (start.name(), other.name());
    match (passed[start as usize], passed[other as usize]) {
        (false, false) if s == o => Ok(Some(start)),
        (false, false) if s == o + 1 => Ok(Some(other)),
        (false, false) => Err(format!(
            "{sn} moved first and turns alternate until someone passes, so {sn} has made as many moves as {on} or one more, not {s} against {o}"
        )),
        // `start` passed on its turn (with as many moves as `other`); `other` went on alone.
        (true, false) if o >= s => Ok(Some(other)),
        (true, false) => Err(format!(
            "{sn} passed on its own turn, when it had made as many moves as {on}, who then went on alone: {on} has made at least as many, not {o} against {s}"
        )),
        // `other` passed on its turn (one move behind `start`); `start` went on alone.
        (false, true) if s > o => Ok(Some(start)),
        (false, true) => Err(format!(
            "{on} passed on its own turn, when {sn} had made one move more, and {sn} went on alone: {sn} has made more moves, not {s} against {o}"
        )),
        (true, true) => Ok(None),
    }
}

/// The parsed fields of a state or position string, before the checks of `from_parts`.
/// A piece with its index in its state's list (for errors; `None` in a position string).
type IndexedPiece = (Piece, Option<usize>);

struct Parts {
    /// Each player's pieces with the index of each in its state's list (for errors; `None` in a
    /// position string).
    pieces: [Vec<IndexedPiece>; 2],
    phase: Phase,
    to_move: Option<Color>,
    scores: [i64; 2],
    first_to_pass: Option<Color>,
    passed: [bool; 2],
    removed: [Vec<i64>; 2],
}

/// The field that holds a piece, for an error about it: written only then.
fn piece_field(color: Color, index: Option<usize>) -> String {
    match index {
        Some(index) => format!("pieces.{}[{index}]", color.name()),
        None => "pieces".to_owned(),
    }
}

/// Per-player values in a JSON state: `{"black": ..., "white": ...}`.
pub type PerPlayer<T> = crate::players::PerPlayer<Color, T>;

/// The JSON form of an Isaac state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "IsaacState")]
pub struct State {
    #[schemars(extend("const" = Isaac::RULES_VERSION))]
    pub rules: String,
    #[serde(default = "standard")]
    #[schemars(with = "VariantName")]
    pub variant: String,
    #[serde(default, deserialize_with = "crate::strict::object")]
    pub options: Options,
    /// Each player's pieces on the board by their end cells (`c4-g4`), lower-left cell ascending.
    #[schemars(with = "PerPlayer<PiecesSchema>")]
    #[serde(deserialize_with = "crate::strict::object")]
    pub pieces: PerPlayer<Vec<String>>,
    /// `placement` or `scoring` (a finished game keeps the phase it ended in).
    #[schemars(with = "Phase")]
    pub phase: String,
    /// `black`, `white`, or null once the game is over. Required, even when null.
    #[serde(deserialize_with = "Option::deserialize")]
    #[schemars(with = "Nullable<PlayerSchema>")]
    pub to_move: Option<String>,
    /// Score-track positions; a winner's final score may pass 99 (at most 171).
    #[schemars(with = "PerPlayer<ScoreSchema>")]
    #[serde(deserialize_with = "crate::strict::object")]
    pub scores: PerPlayer<i64>,
    /// Who passed first in the placement phase; null until someone did. Required, even when null.
    #[serde(deserialize_with = "Option::deserialize")]
    #[schemars(with = "Nullable<PlayerSchema>")]
    pub first_to_pass: Option<String>,
    /// Who has passed in the current phase (in the scoring phase, who is out): `[]`, `["black"]`,
    /// `["white"]` or `["black", "white"]`.
    #[schemars(with = "Vec<PlayerSchema>", length(max = 2), extend("uniqueItems" = true))]
    pub passed: Vec<String>,
    /// Lengths each player removed, in removal order.
    #[schemars(with = "PerPlayer<LengthsSchema>")]
    #[serde(deserialize_with = "crate::strict::object")]
    pub removed: PerPlayer<Vec<i64>>,
}

/// Pieces on the board by their end cells, lower-left first (`c4-g4`), sorted by lower-left cell.
#[derive(JsonSchema)]
#[schemars(rename = "IsaacPieces")]
#[allow(dead_code)] // a schema only
struct PiecesSchema(
    #[schemars(
        length(max = PIECES_PER_PLAYER),
        inner(regex(pattern = r"^[a-j](10|[1-9])-[a-j](10|[1-9])$"))
    )]
    Vec<String>,
);

/// A score-track position; a winner's final score may pass 99 (at most 171).
#[derive(JsonSchema)]
#[schemars(rename = "IsaacScore")]
#[allow(dead_code)] // a schema only
struct ScoreSchema(#[schemars(range(min = 0, max = MAX_SCORE))] i64);

/// Lengths removed, in removal order (never decreasing).
#[derive(JsonSchema)]
#[schemars(rename = "IsaacLengths")]
#[allow(dead_code)] // a schema only
struct LengthsSchema(
    #[schemars(
        length(max = PIECES_PER_PLAYER),
        inner(range(min = MIN_LENGTH, max = geometry::MAX_LENGTH))
    )]
    Vec<i64>,
);

impl State {
    fn parts(&self) -> Result<Parts> {
        let mut pieces: [Vec<(Piece, Option<usize>)>; 2] = [Vec::new(), Vec::new()];
        for (color, list) in COLORS.into_iter().zip(self.pieces.values()) {
            for (index, text) in list.iter().enumerate() {
                let field = || piece_field(color, Some(index));
                let piece = Piece::parse(text).map_err(|d| Error::invalid_state(field(), d))?;
                if let Some((previous, _)) = pieces[color as usize].last() {
                    if previous.anchor() == piece.anchor() {
                        return Err(Error::invalid_state(
                            field(),
                            format!("{piece} is listed twice (two pieces cannot share a lower-left cell)"),
                        ));
                    }
                    if previous.anchor() > piece.anchor() {
                        return Err(Error::invalid_state(
                            field(),
                            format!("pieces are listed by lower-left cell: {piece} comes before {previous}"),
                        ));
                    }
                }
                pieces[color as usize].push((piece, Some(index)));
            }
        }
        let phase = Phase::from_name(&self.phase).ok_or_else(|| {
            Error::invalid_state(
                "phase",
                format!("the phase is placement or scoring, not {:?}", self.phase),
            )
        })?;
        let player = |field: &str, value: &Option<String>| match value {
            None => Ok(None),
            Some(name) => Color::from_name(name).map(Some).ok_or_else(|| {
                Error::invalid_state(field, format!("a player is black or white, not {name:?}"))
            }),
        };
        let passed = match self.passed.as_slice() {
            [] => [false, false],
            [one] if one == "black" => [true, false],
            [one] if one == "white" => [false, true],
            [a, b] if a == "black" && b == "white" => [true, true],
            _ => {
                return Err(Error::invalid_state(
                    "passed",
                    format!(
                    "passed is [], [\"black\"], [\"white\"] or [\"black\", \"white\"], not {:?}",
                    self.passed
                ),
                ))
            }
        };
        Ok(Parts {
            pieces,
            phase,
            to_move: player("to_move", &self.to_move)?,
            scores: *self.scores.values(),
            first_to_pass: player("first_to_pass", &self.first_to_pass)?,
            passed,
            removed: self.removed.values().clone(),
        })
    }
}

/// A refusal of a position string's syntax.
fn syntax(detail: String) -> Error {
    Error::invalid_state("position", detail)
}

/// Reads a position string's 7 fields, in order (the first refusal a string meets stays the same).
fn parse_text(text: &str) -> Result<Parts> {
    let fields: Vec<&str> = text.split(' ').collect();
    let [pieces, phase, to_move, scores, first, passed, removed] = fields.as_slice() else {
        return Err(syntax(format!(
            "a position has 7 fields separated by single spaces (pieces, phase, to move, scores, first to pass, passed, removed), not {}",
            fields.len()
        )));
    };
    let phase = Phase::from_name(phase)
        .ok_or_else(|| syntax(format!("the phase is placement or scoring, not {phase:?}")))?;
    let pieces = parse_pieces(pieces)?;
    let to_move = parse_player(to_move, "the player to move")?;
    let first_to_pass = parse_player(first, "the first to pass")?;
    let scores = parse_scores(scores)?;
    let passed = parse_passed(passed)?;
    let removed = parse_removed(removed)?;
    Ok(Parts {
        pieces,
        phase,
        to_move,
        scores,
        first_to_pass,
        passed,
        removed,
    })
}

/// Reads the pieces field: `-`, or pieces like `Bc4-g4` separated by commas, by lower-left cell.
fn parse_pieces(text: &str) -> Result<[Vec<IndexedPiece>; 2]> {
    let mut pieces = [Vec::new(), Vec::new()];
    if text == "-" {
        return Ok(pieces);
    }
    let mut last_anchor: Option<usize> = None;
    for entry in text.split(',') {
        let (color, piece) = match entry.split_at_checked(1) {
            Some(("B", piece)) => (Color::Black, piece),
            Some(("W", piece)) => (Color::White, piece),
            _ => {
                return Err(syntax(format!(
                    "{entry:?} is not a piece: B or W followed by its end cells (Bc4-g4)"
                )))
            }
        };
        let piece = Piece::parse(piece).map_err(syntax)?;
        if last_anchor.is_some_and(|anchor| anchor >= piece.anchor()) {
            return Err(syntax(format!(
                "pieces are listed by lower-left cell: {entry} is out of order"
            )));
        }
        last_anchor = Some(piece.anchor());
        pieces[color as usize].push((piece, None));
    }
    Ok(pieces)
}

/// Reads a player field (`b`, `w`, or `-` for nobody); `what` names it in the refusal.
fn parse_player(letter: &str, what: &str) -> Result<Option<Color>> {
    match letter {
        "-" => Ok(None),
        _ => Color::from_letter(letter)
            .map(Some)
            .ok_or_else(|| syntax(format!("{what} is b, w or -, not {letter:?}"))),
    }
}

/// Reads the scores field: black's and white's, canonical decimals separated by a comma.
fn parse_scores(scores: &str) -> Result<[i64; 2]> {
    let Some((black, white)) = scores.split_once(',') else {
        return Err(syntax(format!(
            "the scores are black's and white's separated by a comma, not {scores:?}"
        )));
    };
    Ok([parse_score(black)?, parse_score(white)?])
}

/// Reads one score: a decimal number without leading zeros.
fn parse_score(text: &str) -> Result<i64> {
    let canonical = text == "0" || (!text.starts_with('0') && !text.is_empty());
    text.parse::<u16>()
        .ok()
        .filter(|_| canonical && text.bytes().all(|b| b.is_ascii_digit()))
        .map(i64::from)
        .ok_or_else(|| syntax(format!("{text:?} is not a score: a decimal number")))
}

/// Reads the passed field: `-`, `b`, `w` or `bw`.
fn parse_passed(passed: &str) -> Result<[bool; 2]> {
    match passed {
        "-" => Ok([false, false]),
        "b" => Ok([true, false]),
        "w" => Ok([false, true]),
        "bw" => Ok([true, true]),
        other => Err(syntax(format!("passed is -, b, w or bw, not {other:?}"))),
    }
}

/// Reads the removed field: black's and white's lengths separated by /.
fn parse_removed(removed: &str) -> Result<[Vec<i64>; 2]> {
    let Some((black, white)) = removed.split_once('/') else {
        return Err(syntax(format!(
            "the removed lengths are black's and white's separated by /, not {removed:?}"
        )));
    };
    Ok([parse_lengths(black)?, parse_lengths(white)?])
}

/// Reads one player's removed lengths: digits 3 to 7, or `-` for none.
fn parse_lengths(text: &str) -> Result<Vec<i64>> {
    if text == "-" {
        return Ok(Vec::new());
    }
    text.bytes()
        .map(|b| match b {
            b'3'..=b'7' => Ok(i64::from(b - b'0')),
            _ => Err(syntax(format!(
                "removed lengths are digits 3 to 7 (or -), not {text:?}"
            ))),
        })
        .collect()
}

pub struct Isaac;

impl Rules for Isaac {
    const NAME: &'static str = "isaac";
    const RULES_VERSION: &'static str = "isaac@1";
    const PLAYERS: &'static [&'static str] = &<Color as crate::players::TwoPlayers>::NAMES;
    type Setup = Setup;
    type Position = Position;
    type Move = Move;
    type State = State;
    type Effects = Effects;

    fn info() -> Value {
        let pieces: Vec<Value> = LENGTHS
            .iter()
            .map(|&length| {
                json!({
                    "length": length,
                    "count": SUPPLY[length - MIN_LENGTH],
                    "value": geometry::VALUE[length - MIN_LENGTH],
                })
            })
            .collect();
        json!({
            "name": "isaac",
            "title": "Isaac",
            "rules": Self::RULES_VERSION,
            "players": Self::PLAYERS,
            "chance": false,
            "hidden_information": false,
            "variants": [
                { "name": "standard", "default": true, "description": "place straight pieces until neither player can, then remove them for points on the board's score track" }
            ],
            "options": [
                { "name": "first_player", "type": "string", "values": ["black", "white"], "default": "black",
                  "description": "who places first (and wins the last tie-break)" },
                { "name": "scoring_starts", "type": "string", "values": ["first_to_pass", "first_player"], "default": "first_to_pass",
                  "description": "who opens the scoring phase: the player who passed first in the placement phase, or the first player" }
            ],
            "board": {
                "shape": "square",
                "columns": ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"],
                "rows": 10,
                "pieces": pieces,
                "target": TARGET,
                "score_track": "black's score s is cell index s (a1 = 0, j10 = 99); white's score s is cell index 99 − s",
            },
            "notation": {
                "move": "a placement by its end cells, lower-left first (c4-g4); a removal with its marker advance (xc4-g4+12); pass",
                "compact_moves": "one entry a removable piece: xc4-g4+0..18, or xc4-g4+0..18!7 when advance 7 would land on the other marker",
                "position": "pieces (Bc4-g4,Wd2-d8 by lower-left cell, or -), phase, to move (b, w or -), scores (black,white), first to pass (b, w or -), passed (-, b, w or bw), removed lengths (black/white, e.g. 345/-)",
            },
        })
    }

    fn check_setup(setup: Setup) -> Result<Setup> {
        setup
            .config()
            .map(Config::setup)
            .map_err(|(field, detail)| Error::InvalidOptions { field, detail })
    }

    fn start(setup: &Setup, _seed: Option<u64>) -> Position {
        // Setups reach `start` checked by `check_setup`; an unchecked bad one plays the defaults.
        Position::start(setup.config().unwrap_or_default())
    }

    fn from_state(state: State) -> Result<Position> {
        crate::game::check_rules_version::<Self>(&state.rules)?;
        let config = Setup {
            variant: state.variant.clone(),
            options: state.options.clone(),
        }
        .config()
        .map_err(|(field, detail)| Error::InvalidState { field, detail })?;
        Position::from_parts(state.parts()?, config)
    }

    fn to_state(position: &Position) -> State {
        let setup = position.config.setup();
        let pieces = |color: Color| -> Vec<String> {
            position
                .pieces(color)
                .iter()
                .filter_map(|&mask| Piece::from_mask(mask).map(|piece| piece.to_string()))
                .collect()
        };
        let removed = |color: Color| {
            position
                .removed(color)
                .iter()
                .map(|&l| i64::from(l))
                .collect()
        };
        State {
            rules: Self::RULES_VERSION.to_owned(),
            variant: setup.variant,
            options: setup.options,
            pieces: PerPlayer::of(COLORS.map(pieces)),
            phase: position.phase.name().to_owned(),
            to_move: position.to_move.map(|c| c.name().to_owned()),
            scores: PerPlayer::of(position.scores.map(i64::from)),
            first_to_pass: position.first_to_pass.map(|c| c.name().to_owned()),
            passed: COLORS
                .iter()
                .filter(|&&c| position.passed[c as usize])
                .map(|c| c.name().to_owned())
                .collect(),
            removed: PerPlayer::of(COLORS.map(removed)),
        }
    }

    fn parse_position(text: &str, setup: &Setup) -> Result<Position> {
        let config = setup
            .config()
            .map_err(|(field, detail)| Error::InvalidOptions { field, detail })?;
        Position::from_parts(parse_text(text)?, config)
    }

    fn position_text(position: &Position) -> String {
        position.text()
    }

    fn to_move(position: &Position) -> Option<&'static str> {
        position.to_move.map(Color::name)
    }

    fn parse_move(text: &str) -> Result<Move> {
        text.parse()
    }

    fn legal_moves(position: &Position) -> Vec<Move> {
        position.legal_moves()
    }

    fn compact_moves(position: &Position) -> Vec<String> {
        position.compact_moves()
    }

    fn play(position: &Position, mv: Move) -> Result<(Position, Effects)> {
        position.play(mv)
    }

    fn outcome(position: &Position) -> Outcome {
        position.outcome()
    }

    fn perft(position: &Position, depth: u32) -> u64 {
        position.perft(depth)
    }
}

#[cfg(test)]
mod tests {
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
