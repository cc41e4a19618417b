//! The JSON form of a state and the checked building of a position from its parts.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::board::{
    self, cell_names, Piece, PlayerSchema, LENGTHS, MAX_SCORE, MIN_LENGTH, PIECES_PER_PLAYER,
    SUPPLY,
};
use super::invariants::{check_removal_order, check_to_move};
use super::position::{IndexedPiece, Parts, Phase, Position};
use super::setup::{standard, Config, Options, Setup, VariantName};
use super::{Color, Isaac};
use crate::borrowed::Name;
use crate::error::{Error, Result};
use crate::game::Rules;
use crate::nullable::Nullable;
use crate::players::COLORS;

/// Per-player values in a JSON state: `{"black": ..., "white": ...}`.
pub type PerPlayer<T> = crate::players::PerPlayer<Color, T>;

/// The JSON form of an Isaac state, its names of type `S`: `String` as written, borrowed from the
/// text read where they have no escape (`Name`), so that reading a state copies none of them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    rename = "IsaacState",
    description = "The JSON form of an Isaac state."
)]
pub struct State<S = String> {
    #[schemars(extend("const" = Isaac::RULES_VERSION))]
    pub rules: S,
    #[serde(default = "standard")]
    #[schemars(with = "VariantName")]
    pub variant: String,
    #[serde(default, deserialize_with = "crate::strict::object")]
    pub options: Options,
    /// Each player's pieces on the board by their end cells (`c4-g4`), lower-left cell ascending.
    #[schemars(with = "PerPlayer<PiecesSchema>")]
    #[serde(deserialize_with = "crate::strict::object")]
    pub pieces: PerPlayer<Vec<S>>,
    /// `placement` or `scoring` (a finished game keeps the phase it ended in).
    #[schemars(with = "Phase")]
    pub phase: S,
    /// `black`, `white`, or null once the game is over. Required, even when null.
    #[serde(deserialize_with = "Option::deserialize")]
    #[schemars(with = "Nullable<PlayerSchema>")]
    pub to_move: Option<S>,
    /// Score-track positions; a winner's final score may pass 99 (at most 171).
    #[schemars(with = "PerPlayer<ScoreSchema>")]
    #[serde(deserialize_with = "crate::strict::object")]
    pub scores: PerPlayer<i64>,
    /// Who passed first in the placement phase; null until someone did. Required, even when null.
    #[serde(deserialize_with = "Option::deserialize")]
    #[schemars(with = "Nullable<PlayerSchema>")]
    pub first_to_pass: Option<S>,
    /// Who has passed in the current phase (in the scoring phase, who is out): `[]`, `["black"]`,
    /// `["white"]` or `["black", "white"]`.
    #[schemars(with = "Vec<PlayerSchema>", length(max = 2), extend("uniqueItems" = true))]
    pub passed: Vec<S>,
    /// Lengths each player removed, in removal order.
    #[schemars(with = "PerPlayer<LengthsSchema>")]
    #[serde(deserialize_with = "crate::strict::object")]
    pub removed: PerPlayer<Vec<i64>>,
}

/// Pieces on the board by their end cells, lower-left first (`c4-g4`), sorted by lower-left cell.
#[derive(JsonSchema)]
#[schemars(rename = "IsaacPieces")]
#[allow(dead_code)] // a schema only
pub(super) struct PiecesSchema(
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
pub(super) struct ScoreSchema(#[schemars(range(min = 0, max = MAX_SCORE))] i64);

/// Lengths removed, in removal order (never decreasing).
#[derive(JsonSchema)]
#[schemars(rename = "IsaacLengths")]
#[allow(dead_code)] // a schema only
pub(super) struct LengthsSchema(
    #[schemars(
        length(max = PIECES_PER_PLAYER),
        inner(range(min = MIN_LENGTH, max = board::MAX_LENGTH))
    )]
    Vec<i64>,
);

impl<S: AsRef<str>> State<S> {
    /// The parts of the state, each read and checked alone.
    fn parts(self) -> Result<Parts> {
        let mut pieces: [Vec<(Piece, Option<usize>)>; 2] = [Vec::new(), Vec::new()];
        for (color, list) in COLORS.into_iter().zip(self.pieces.values()) {
            for (index, text) in list.iter().enumerate() {
                let field = || piece_field(color, Some(index));
                let piece =
                    Piece::parse(text.as_ref()).map_err(|d| Error::invalid_state(field(), d))?;
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
        let phase = self.phase.as_ref();
        let phase = Phase::from_name(phase).ok_or_else(|| {
            Error::invalid_state(
                "phase",
                format!("the phase is placement or scoring, not {phase:?}"),
            )
        })?;
        let player = |field: &str, value: Option<&str>| match value {
            None => Ok(None),
            Some(name) => Color::from_name(name).map(Some).ok_or_else(|| {
                Error::invalid_state(field, format!("a player is black or white, not {name:?}"))
            }),
        };
        let passed: Vec<&str> = self.passed.iter().map(AsRef::as_ref).collect();
        let passed = match passed.as_slice() {
            [] => [false, false],
            ["black"] => [true, false],
            ["white"] => [false, true],
            ["black", "white"] => [true, true],
            _ => {
                return Err(Error::invalid_state(
                    "passed",
                    format!(
                    "passed is [], [\"black\"], [\"white\"] or [\"black\", \"white\"], not {:?}",
                    passed
                ),
                ))
            }
        };
        Ok(Parts {
            pieces,
            phase,
            to_move: player("to_move", self.to_move.as_ref().map(AsRef::as_ref))?,
            scores: self.scores.into_values(),
            first_to_pass: player(
                "first_to_pass",
                self.first_to_pass.as_ref().map(AsRef::as_ref),
            )?,
            passed,
            removed: self.removed.into_values(),
        })
    }
}

/// The field that holds a piece, for an error about it: written only then.
pub(super) fn piece_field(color: Color, index: Option<usize>) -> String {
    match index {
        Some(index) => format!("pieces.{}[{index}]", color.name()),
        None => "pieces".to_owned(),
    }
}

impl Position {
    /// Builds a position from untrusted parts, checking everything a reachable position satisfies,
    /// in this order (the first refusal a state meets is part of the contract).
    pub(super) fn from_parts(parts: Parts, config: Config) -> Result<Position> {
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
    pub(super) fn place_pieces(&mut self, color: Color, pieces: &[IndexedPiece]) -> Result<()> {
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
    pub(super) fn count_unplaced(&mut self, color: Color, removed: &[i64]) -> Result<()> {
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
    pub(super) fn place_removed(&mut self, color: Color, removed: &[i64]) {
        let c = color as usize;
        // Lengths are 3..7 and at most 15 (checked before): they fit a u8 and the array.
        for (index, &length) in removed.iter().enumerate() {
            self.removed[c][index] = length as u8;
        }
        self.removed_count[c] = removed.len() as u8;
    }

    /// Records `color`'s score: 0 to `MAX_SCORE`.
    pub(super) fn place_score(&mut self, color: Color, score: i64) -> Result<()> {
        if !(0..=i64::from(MAX_SCORE)).contains(&score) {
            return Err(Error::invalid_state(
                format!("scores.{}", color.name()),
                format!("a score is 0 to {MAX_SCORE} (99 and the most one removal can add), not {score}"),
            ));
        }
        self.scores[color as usize] = score as u16;
        Ok(())
    }

    pub(super) fn placed(&self, color: Color) -> u32 {
        u32::from(self.piece_count[color as usize]) + u32::from(self.removed_count[color as usize])
    }
}

/// The position of a state, checked in this order: the rules version, the setup, each part, then
/// the parts together.
pub(super) fn from_state<S: AsRef<str>>(mut state: State<S>) -> Result<Position> {
    crate::game::check_rules_version::<Isaac>(state.rules.as_ref())?;
    let setup = Setup {
        variant: std::mem::take(&mut state.variant),
        options: std::mem::take(&mut state.options),
    };
    let config = setup
        .config()
        .map_err(|(field, detail)| Error::InvalidState { field, detail })?;
    Position::from_parts(state.parts()?, config)
}

/// A state object read in one pass, its names borrowed from the text: the position, or the refusal
/// of its checks; `Err` when it is not a state's shape.
pub(super) fn read<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> std::result::Result<Result<Position>, D::Error> {
    let state: State<Name<'de>> = crate::strict::object(deserializer)?;
    Ok(from_state(state))
}

pub(super) fn to_state(position: &Position) -> State {
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
        rules: Isaac::RULES_VERSION.to_owned(),
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
