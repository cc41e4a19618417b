//! Playing an Iago move on a position: the flips a placement causes (captures and releases), the
//! placement checked (why a refused one is not legal), applied, and what it did (`Effects`).

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::json;

use super::board::{all_if, cell_name, cell_names, PlayerSchema, ANCHORS, CENTRE, RAYS};
use super::generate::Turn;
use super::notation::Move;
use super::{Position, Variant};
use crate::error::{Error, Result};

/// The flips a placement causes, computed on the board before it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Flips {
    pub(super) captured: u64,
    released: u64,
}

impl Flips {
    pub(super) fn any(self) -> bool {
        self.captured | self.released != 0
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
}
