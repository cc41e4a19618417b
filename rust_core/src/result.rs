//! One record's result (`referee validate`, an archive's line): made once by `archive`, read by field by
//! its counts and `tally`, and written once as its NDJSON line. Apart from `archive`, so that the tally
//! reads results without reaching the archive that makes them.

use std::collections::BTreeMap;

use serde::ser::{Error as _, SerializeMap};
use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::claims::ClaimVerdict;
use crate::game::Outcome;
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
    pub error: Option<Value>,
    pub verdict: Option<Verdict>,
    pub positions: Option<Vec<String>>,
    /// A legal record's plies, for a data set's rows (`--dataset`; not written in the result's line).
    pub plies: Option<Plies>,
    pub claim: Option<ClaimVerdict>,
}

/// The verdict on a replayed record.
#[derive(Debug)]
pub struct Verdict {
    pub legal: bool,
    pub plies: usize,
    pub outcome: Outcome,
    pub position: String,
    /// The first illegal ply: its index, its move and why.
    pub failure: Option<(usize, String, Value)>,
}

/// A result's fields in their names' order, the kept ones among them (as a JSON object's keys sorted,
/// which results have always been).
impl Serialize for RecordResult {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        let mut kept = self.kept.iter().peekable();
        let verdict = self.verdict.as_ref();
        let failure = verdict.and_then(|verdict| verdict.failure.as_ref());
        let reason = match &self.claim {
            Some(ClaimVerdict::Disagrees(reason)) => Some(reason),
            _ => None,
        };
        macro_rules! field {
            ($name:literal, $value:expr) => {
                while let Some((name, value)) = kept.next_if(|(name, _)| name.as_str() < $name) {
                    map.serialize_entry(name, value)?;
                }
                if let Some(value) = $value {
                    map.serialize_entry($name, &value)?;
                }
            };
        }
        field!("claim", self.claim.as_ref().map(ClaimVerdict::name));
        field!("claim_reason", reason);
        field!("error", self.error.as_ref());
        field!("game", self.game.as_ref());
        field!("id", self.id.as_ref());
        field!("legal", verdict.map(|verdict| verdict.legal));
        field!("move", failure.map(|failure| &failure.1));
        // As a JSON object's keys sorted, as the other fields.
        let outcome = verdict.map(|verdict| serde_json::to_value(&verdict.outcome));
        field!("outcome", outcome.transpose().map_err(S::Error::custom)?);
        field!("plies", verdict.map(|verdict| verdict.plies));
        field!("ply", failure.map(|failure| failure.0));
        field!("position", verdict.map(|verdict| &verdict.position));
        field!("positions", self.positions.as_ref());
        field!("reason", failure.map(|failure| &failure.2));
        field!("record", Some(self.record));
        for (name, value) in kept {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}
