//! One record's result (`referee validate`, an archive's line): made once by `archive`, read by field by
//! its counts and `tally`, and written once as its NDJSON line. Apart from `archive`, so that the tally
//! reads results without reaching the archive that makes them. Its `Verdict` is also the service's
//! `replay` answer's (`answer::ReplaySummary`), written by the same code.

use std::collections::{btree_map, BTreeMap};
use std::iter::Peekable;

use serde::ser::{Error as _, SerializeMap};
use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::claims::ClaimVerdict;
use crate::error::Error;
use crate::game::{Outcome, Replay, Rules};
use crate::rows::Plies;

/// One record's result, made once: what `Counts` and `Tally` read, written as its NDJSON line.
#[derive(Debug, Default)]
pub struct RecordResult {
    pub record: usize,
    pub id: Option<Value>,
    /// The record's fields to keep (`--keep`), by name (none is a result's field: `Options::new`).
    pub kept: BTreeMap<String, Value>,
    /// The record's game, when it names one (known or not).
    pub game: Option<String>,
    /// Why the line is no record its game replays.
    pub error: Option<Error>,
    pub verdict: Option<Verdict>,
    pub positions: Option<Vec<String>>,
    /// A legal record's plies, for a data set's rows (`--dataset`; not written in the result's line).
    pub plies: Option<Plies>,
    pub claim: Option<ClaimVerdict>,
}

/// The verdict on a replayed record: what a record's result (`RecordResult`) and the service's `replay`
/// answer (`answer::ReplaySummary`) say of it.
#[derive(Debug)]
pub struct Verdict {
    pub legal: bool,
    pub plies: usize,
    pub outcome: Outcome,
    pub position: String,
    /// The first illegal ply: its index, its move and why (written as its reason, counted by its code).
    pub failure: Option<(usize, String, Error)>,
}

impl Verdict {
    /// The verdict on a replay of `moves`.
    pub fn of<G: Rules, S: AsRef<str>>(replay: Replay<G>, moves: &[S]) -> Verdict {
        let failure = replay
            .failure
            .map(|(ply, error)| (ply, moves[ply].as_ref().to_owned(), error));
        Verdict {
            legal: failure.is_none(),
            plies: replay.plies,
            position: G::position_text(&replay.position),
            outcome: replay.outcome,
            failure,
        }
    }

    /// Writes `legal`, `move`, `outcome`, `plies`, `ply` and (unless `position` is false) `position`:
    /// all but `reason` (`write_reason`), which other fields may come before.
    pub(crate) fn write<M: SerializeMap>(
        &self,
        fields: &mut Fields<'_, M>,
        position: bool,
    ) -> Result<(), M::Error> {
        let failure = self.failure.as_ref();
        fields.field("legal", Some(self.legal))?;
        fields.field("move", failure.map(|failure| &failure.1))?;
        // As a JSON object's keys sorted, as the other fields.
        let outcome = serde_json::to_value(&self.outcome).map_err(M::Error::custom)?;
        fields.field("outcome", Some(outcome))?;
        fields.field("plies", Some(self.plies))?;
        fields.field("ply", failure.map(|failure| failure.0))?;
        fields.field("position", Some(&self.position).filter(|_| position))
    }

    /// Writes `reason`, why the first illegal ply is.
    pub(crate) fn write_reason<M: SerializeMap>(
        &self,
        fields: &mut Fields<'_, M>,
    ) -> Result<(), M::Error> {
        let reason = self.failure.as_ref().map(|failure| failure.2.reason_out());
        fields.field("reason", reason)
    }
}

/// Writes a claim's verdict: `claim`, and `claim_reason` when the claim disagrees.
pub(crate) fn write_claim<M: SerializeMap>(
    claim: Option<&ClaimVerdict>,
    fields: &mut Fields<'_, M>,
) -> Result<(), M::Error> {
    let reason = match claim {
        Some(ClaimVerdict::Disagrees(reason)) => Some(reason),
        _ => None,
    };
    fields.field("claim", claim.map(ClaimVerdict::name))?;
    fields.field("claim_reason", reason)
}

/// An answer's fields written in their names' order (as a JSON object's keys sorted, which results and
/// replays have always been), a record's kept fields placed among them by name.
pub(crate) struct Fields<'a, M> {
    map: M,
    kept: Peekable<btree_map::Iter<'a, String, Value>>,
}

impl<'a, M: SerializeMap> Fields<'a, M> {
    pub(crate) fn new(map: M, kept: &'a BTreeMap<String, Value>) -> Self {
        Fields {
            map,
            kept: kept.iter().peekable(),
        }
    }

    /// Writes a field when it has a value, after the kept fields whose names come before its name.
    pub(crate) fn field<T: Serialize>(
        &mut self,
        name: &'static str,
        value: Option<T>,
    ) -> Result<(), M::Error> {
        while let Some((kept, value)) = self.kept.next_if(|(kept, _)| kept.as_str() < name) {
            self.map.serialize_entry(kept, value)?;
        }
        match value {
            Some(value) => self.map.serialize_entry(name, &value),
            None => Ok(()),
        }
    }

    /// Writes the kept fields left, and ends the object.
    pub(crate) fn end(mut self) -> Result<M::Ok, M::Error> {
        for (name, value) in self.kept {
            self.map.serialize_entry(name, value)?;
        }
        self.map.end()
    }
}

/// A result's fields in their names' order, the kept ones among them.
impl Serialize for RecordResult {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut fields = Fields::new(serializer.serialize_map(None)?, &self.kept);
        write_claim(self.claim.as_ref(), &mut fields)?;
        fields.field("error", self.error.as_ref().map(Error::reason_out))?;
        fields.field("game", self.game.as_ref())?;
        fields.field("id", self.id.as_ref())?;
        if let Some(verdict) = &self.verdict {
            verdict.write(&mut fields, true)?;
        }
        fields.field("positions", self.positions.as_ref())?;
        if let Some(verdict) = &self.verdict {
            verdict.write_reason(&mut fields)?;
        }
        fields.field("record", Some(self.record))?;
        fields.end()
    }
}
