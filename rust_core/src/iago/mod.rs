//! Iago: placement on a 61-hex board with captures (discs turn red) and releases (red discs turn
//! back), forced maximal capture, and the outer-area/centre restrictions.
//! Spec: `docs/rules/iago.md`.

mod actions;
mod board;
mod generate;
mod invariants;
mod moves;
mod notation;
mod observation;
mod position;
mod setup;
mod state;

use serde::{Deserializer, Serializer};
use serde_json::{json, Value};

use crate::chance::ChanceKeys;
use crate::error::{Error, Result};
use crate::game::{CheckedSetup, Outcome, Rules};
use crate::info::{Described, GameOption, GameVariant, Info};
pub use board::{cell_name, parse_cell, CELL_COUNT};
use board::{CENTRE_CELL, OUTER, ROW_LENGTHS};
pub use moves::Effects;
pub use notation::Move;
pub use position::{DecidedBy, Position};
pub use setup::{Options, Setup, Variant};
pub use state::State;

pub use crate::players::Color;

pub struct Iago;

impl Rules for Iago {
    const NAME: &'static str = "iago";
    const RULES_VERSION: &'static str = "iago@1";
    const PLAYERS: &'static [&'static str] = &<Color as crate::players::TwoPlayers>::NAMES;
    const DECIDED_BY: &'static [(&'static str, &'static str)] = DecidedBy::GLOSSARY;
    type Setup = Setup;
    type Position = Position;
    type Move = Move;
    type State = State;
    type Effects = Effects;

    fn validate_setup(setup: Setup) -> Result<Setup> {
        setup
            .check()
            .map_err(|(field, detail)| Error::InvalidOptions { field, detail })
    }

    fn start(
        setup: &CheckedSetup<Setup>,
        _seed: Option<u64>,
        _keys: Option<&ChanceKeys>,
    ) -> Position {
        Position::empty(**setup)
    }

    fn read_state<'de, D: Deserializer<'de>>(
        deserializer: D,
        _keys: Option<&ChanceKeys>,
    ) -> std::result::Result<Result<Position>, D::Error> {
        state::read(deserializer)
    }

    fn write_state<S: Serializer>(
        position: &Position,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        state::write(position, serializer)
    }

    fn parse_position(
        text: &str,
        setup: &CheckedSetup<Setup>,
        _keys: Option<&ChanceKeys>,
    ) -> Result<Position> {
        position::parse_position(text, setup)
    }

    fn position_text(position: &Position) -> String {
        position::position_text(position)
    }

    fn to_move(position: &Position) -> Option<&'static str> {
        (!position.is_finished()).then(|| position.to_move.name())
    }

    fn parse_move(text: &str) -> Result<Move> {
        parse_cell(text).and_then(Move::new).ok_or_else(|| {
            Error::malformed_move(format!(
                "{text:?} is not a cell: a move is a cell name, a row a..i and a diagonal 1..9 (e.g. e4)"
            ))
        })
    }

    fn legal_moves(position: &Position) -> Vec<Move> {
        position.legal_moves()
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

/// What only the game's description tells; the rest is its constants'.
impl Described for Iago {
    fn info() -> Info {
        let cells: Vec<Value> = (0..CELL_COUNT)
            .map(|cell| {
                let area = if cell == CENTRE_CELL {
                    "centre"
                } else if OUTER >> cell & 1 == 1 {
                    "outer"
                } else {
                    "inner"
                };
                json!({ "cell": cell_name(cell), "area": area })
            })
            .collect();
        let variants = vec![
            GameVariant::default("standard", "forced maximal capture, releases anchored on the outer area or the centre"),
            GameVariant::other("loose", "no forced capture"),
            GameVariant::other("simple", "no releases; every face-up disc scores 1"),
        ];
        let options = vec![GameOption::new(
            "penalty",
            "boolean",
            false.into(),
            "a forced capture may be skipped; the opponent may then claim one free placement",
        )
        .of_variants(&["standard"])];
        let board = json!({
            "shape": "hexhex",
            "side": 5,
            "rows": ["a", "b", "c", "d", "e", "f", "g", "h", "i"],
            "row_lengths": ROW_LENGTHS,
            "centre": cell_name(CENTRE_CELL),
            "cells": cells,
        });
        let notation = [
            ("move", "the cell placed on, e.g. e4"),
            ("position", "rows a..i joined by '/', one character a hex (. B W b w), then the side to move (b or w), then 'p' when a penalty claim is pending"),
        ];
        Info::of::<Self>("Iago", variants, options, board, &notation)
    }
}
