//! Archives: game records (NDJSON, one `{"game", "variant"?, "options"?, "seed"?, "moves", "id"?}` a
//! line) replayed in parallel, one result a record.

use std::fmt::Write as _;

use rayon::prelude::*;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};

use crate::batch::lines;
use crate::error::Error;
use crate::game::{self, Rules};
use crate::registry::GameKind;

/// One game record of an archive: which game, its setup, and the moves played.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Record<'a> {
    game: String,
    #[serde(borrow, default)]
    variant: Option<&'a RawValue>,
    #[serde(borrow, default)]
    options: Option<&'a RawValue>,
    #[serde(default)]
    seed: Option<u64>,
    moves: Vec<String>,
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
}

/// The results of an archive's records, as NDJSON, and how many were of each kind.
#[derive(Debug, Default)]
pub struct RecordsOutput {
    pub ndjson: Vec<u8>,
    pub legal: usize,
    pub illegal: usize,
    /// Lines that are not records a game can replay (not JSON, unknown game, bad options, ...).
    pub errors: usize,
}

/// Replays game records (NDJSON, one `{"game", "variant"?, "options"?, "seed"?, "moves", "id"?}` a
/// line), in parallel; one result a line in input order, numbered `record` from `first_record`. Every
/// line gets a result: a line that is not a record gets an error and the archive goes on.
pub fn replay_records(data: &[u8], first_record: usize) -> RecordsOutput {
    let lines = lines(data);
    let results: Vec<(Vec<u8>, Option<bool>)> = lines
        .par_iter()
        .enumerate()
        .map(|(offset, &(_, text))| record_result(text, first_record + offset))
        .collect();
    let mut output = RecordsOutput::default();
    for (bytes, legal) in results {
        match legal {
            Some(true) => output.legal += 1,
            Some(false) => output.illegal += 1,
            None => output.errors += 1,
        }
        output.ndjson.extend_from_slice(&bytes);
        output.ndjson.push(b'\n');
    }
    output
}

/// One record's result, and whether it was legal (`None`: not a record).
fn record_result(text: &[u8], number: usize) -> (Vec<u8>, Option<bool>) {
    let mut head = json!({ "record": number });
    let body = match serde_json::from_slice::<Record>(text) {
        Err(error) => {
            // Echo the id of a record that parses as JSON but is not a record, to help find it.
            if let Ok(Value::Object(object)) = serde_json::from_slice::<Value>(text) {
                if let Some(id) = object.get("id") {
                    head["id"] = id.clone();
                }
            }
            json!({ "error": { "code": "malformed-record", "detail": error.to_string() } })
        }
        Ok(record) => {
            if let Some(id) = record.id {
                head["id"] = serde_json::from_str(id.get()).expect("raw JSON parses");
            }
            head["game"] = json!(record.game);
            match GameKind::named(&record.game) {
                None => json!({ "error": {
                    "code": "unknown-game",
                    "detail": format!("unknown game {:?}; known games: {}", record.game, GameKind::names().join(", ")),
                } }),
                Some(kind) => crate::with_game!(kind, G => replay_record::<G>(&record)),
            }
        }
    };
    let legal = body.get("legal").and_then(Value::as_bool);
    if let (Some(target), Value::Object(fields)) = (head.as_object_mut(), body) {
        target.extend(fields);
    }
    (
        serde_json::to_vec(&head).expect("a JSON value serializes"),
        legal,
    )
}

fn replay_record<G: Rules>(record: &Record) -> Value {
    let mut setup = String::from("{");
    if let Some(variant) = record.variant {
        let _ = write!(setup, "\"variant\":{},", variant.get());
    }
    if let Some(options) = record.options {
        let _ = write!(setup, "\"options\":{},", options.get());
    }
    if setup.ends_with(',') {
        setup.pop();
    }
    setup.push('}');
    let setup = serde_json::from_str::<G::Setup>(&setup)
        .map_err(|e| Error::invalid_options("setup", e.to_string()))
        .and_then(G::check_setup);
    match setup {
        Err(error) => json!({ "error": error.reason() }),
        Ok(setup) => {
            let mut summary = game::replay::<G, _>(&setup, record.seed, &record.moves).summary(
                &record.moves,
                None,
                None,
            );
            // The position string says all the state does, in a fraction of the bytes of an archive.
            if let Some(object) = summary.as_object_mut() {
                object.remove("state");
            }
            summary
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::tests::ndjson_values;

    #[test]
    fn records_replay_and_report_the_first_illegal_ply() {
        let input = b"{\"game\":\"iago\",\"moves\":[\"e4\"],\"id\":\"g1\"}\n\
            {\"game\":\"iago\",\"moves\":[\"e4\",\"e5\"]}\n\
            {\"game\":\"chess\",\"moves\":[]}\n\
            {\"game\":\"iago\",\"variant\":\"nope\",\"moves\":[]}\n\
            broken\n";
        let output = replay_records(input, 1);
        assert_eq!((output.legal, output.illegal, output.errors), (1, 1, 3));
        let results = ndjson_values(&output.ndjson);
        assert_eq!(results.len(), 5);
        assert_eq!(results[0]["record"], 1);
        assert_eq!(results[0]["id"], "g1");
        assert_eq!(results[0]["legal"], true);
        assert_eq!(results[0]["plies"], 1);
        assert_eq!(results[1]["legal"], false);
        assert_eq!(results[1]["ply"], 1);
        assert_eq!(results[1]["reason"]["code"], "illegal-move");
        assert_eq!(results[2]["error"]["code"], "unknown-game");
        assert_eq!(results[3]["error"]["code"], "invalid-options");
        assert_eq!(results[4]["error"]["code"], "malformed-record");
    }
}
