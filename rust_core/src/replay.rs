//! A `replay` request: its body, a game record as archives hold it, read by the archives' own reader
//! (`archive::RawRecord`: the fields a replay needs kept as their text, any other read through and
//! dropped, after the one rule on keys given twice), its envelope checked as the service's
//! `ReplayRequest` schema checks it (same fields, same messages, in its order), then replayed. No
//! value of the body is built beyond what the replay reads: a record's metadata costs nothing.

use serde::de::{Deserializer, IgnoredAny, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use crate::archive::{self, RawRecord};
use crate::claims::Claim;
use crate::engine::Engine;
use crate::error::message::{
    MAX_COMMITMENTS, MAX_SEED, MISSING, NOT_AN_INTEGER, NOT_A_COMMITMENT, NOT_A_LIST,
    NOT_A_MAPPING, NOT_A_SEED, NOT_A_STRING, NOT_NULL, TOO_MANY_PLAYERS,
};
use crate::error::Error;
use crate::game::Rules;
use crate::request::{self, Field};

/// Longest variant name, in characters.
const MAX_VARIANT_CHARS: usize = 64;
/// Errors told about the moves at most (the schema tells all: a million of them would be hundreds of
/// MiB of errors).
const MAX_ERRORS_A_FIELD: usize = 100;

/// A `replay` body (JSON bytes) answered as JSON bytes: the replay's summary with its claim's
/// verdict. `Err` is the reason there is none: `malformed-json`, `malformed-request` (the envelope;
/// more than `max_moves` moves, told before anything else about them; a record of another game),
/// the committed engine's refusal, `invalid-options`, or a malformed claim.
pub fn answer_replay<G: Rules>(
    engine: &Engine<G>,
    body: &[u8],
    max_moves: usize,
) -> Result<Vec<u8>, Error> {
    let text = std::str::from_utf8(body).map_err(Error::not_json)?;
    if let Some(detail) = crate::json::syntax_error(text) {
        return Err(Error::not_json(detail));
    }
    let record = RawRecord::read(body, &[], true).map_err(|detail| match detail {
        // Valid JSON without a key twice: the only fault left is not being an object.
        _ if crate::json::fault(text).is_some() => Error::not_json(detail),
        _ => Error::malformed_field("body", "not a JSON object"),
    })?;
    if record
        .moves
        .and_then(list_length)
        .is_some_and(|count| count > max_moves)
    {
        let detail = format!("a replay has at most {max_moves} moves");
        let errors = vec![("moves".into(), format!("longer than {max_moves}"))];
        return Err(Error::malformed_request_detail(errors, detail));
    }
    let envelope = Envelope::checked(&record).map_err(Error::malformed_request)?;
    if let Some(game) = envelope.game.filter(|game| game != G::NAME) {
        let errors = vec![("game".into(), format!("not {}", G::NAME))];
        let detail = format!("the record is a game of {game:?}, not of {}", G::NAME);
        return Err(Error::malformed_request_detail(errors, detail));
    }
    engine.replayable()?;
    let setup = archive::checked_setup::<G>(record.variant, record.options)?;
    let claim = claim_of(&record).map_err(Error::malformed_request)?;
    let summary = engine.replay(&envelope.moves, Some(setup), envelope.seed, None, &claim)?;
    Ok(serde_json::to_vec(&summary).expect("a summary serializes"))
}

/// What a replay takes from its envelope, checked.
struct Envelope {
    moves: Vec<String>,
    seed: Option<u64>,
    game: Option<String>,
}

impl Envelope {
    /// The envelope, or the per-field errors of a `malformed-request` in the schema's order: the
    /// setup's fields, the seed, the commitments, the moves, the game.
    fn checked(record: &RawRecord) -> Result<Envelope, Vec<(String, String)>> {
        let mut errors: Vec<(String, String)> = Vec::new();
        let mut error = |field: &str, message: String| errors.push((field.into(), message));
        if let Err(message) = optional(record.variant, |raw| {
            field(raw)?.text(1, MAX_VARIANT_CHARS).map(|_| ())
        }) {
            error("variant", message);
        }
        if let Err(message) = optional(record.options, |raw| match raw.get().starts_with('{') {
            true => Ok(()),
            false => Err(NOT_A_MAPPING.to_owned()),
        }) {
            error("options", message);
        }
        let seed = match record.seed.filter(|raw| raw.get() != "null").map(seed_of) {
            None => None,
            Some(Ok(seed)) => Some(seed),
            Some(Err(message)) => {
                error("seed", message);
                None
            }
        };
        if let Some(raw) = record.commitments.filter(|raw| raw.get() != "null") {
            for (field, message) in commitment_errors(raw) {
                error(&field, message);
            }
        }
        let moves = match record.moves.map(moves_of) {
            None => {
                error("moves", MISSING.into());
                Vec::new()
            }
            Some(Ok(moves)) => moves,
            Some(Err(faults)) => {
                for (field, message) in faults {
                    error(&field, message);
                }
                Vec::new()
            }
        };
        let game = optional(record.game, |raw| {
            field(raw)?
                .text(0, usize::MAX)
                .map(|game| game.into_owned())
        });
        let game = game.unwrap_or_else(|message| {
            error("game", message);
            None
        });
        match errors.is_empty() {
            true => Ok(Envelope { moves, seed, game }),
            false => Err(errors),
        }
    }
}

/// An optional field that may not be null, checked by `check` when given.
fn optional<'a, T>(
    raw: Option<&'a RawValue>,
    check: impl FnOnce(&'a RawValue) -> Result<T, String>,
) -> Result<Option<T>, String> {
    match raw {
        None => Ok(None),
        Some(raw) if raw.get() == "null" => Err(NOT_NULL.into()),
        Some(raw) => check(raw).map(Some),
    }
}

/// A field read as a string, `null` or another value (`Err`: null, which the schema refuses).
fn field(raw: &RawValue) -> Result<Field<'_>, String> {
    match serde_json::from_str::<Field>(raw.get()) {
        Ok(Field::Null) => Err(NOT_NULL.into()),
        Ok(field) => Ok(field),
        Err(error) => Err(error.to_string()), // checked JSON: not reached
    }
}

/// A seed: a whole number 0..=MAX_SEED (`3.0` too), or a state's `rng.seed` (16 hexadecimal digits,
/// the seed little-endian, then 48 zeros).
fn seed_of(raw: &RawValue) -> Result<u64, String> {
    match serde_json::from_str::<Value>(raw.get()) {
        Ok(Value::String(text)) => hex_seed(&text).ok_or_else(|| NOT_A_SEED.to_owned()),
        Ok(Value::Number(number)) => match (number.as_u64(), number.as_i64(), number.as_f64()) {
            (Some(seed), _, _) if seed <= MAX_SEED => Ok(seed),
            (Some(_), _, _) | (None, Some(_), _) => Err(NOT_A_SEED.to_owned()),
            (None, None, Some(float)) if float.fract() == 0.0 => match float {
                0.0..=9_007_199_254_740_991.0 => Ok(float as u64),
                _ => Err(NOT_A_SEED.to_owned()),
            },
            _ => Err(NOT_AN_INTEGER.into()),
        },
        _ => Err(NOT_AN_INTEGER.into()),
    }
}

fn hex_seed(text: &str) -> Option<u64> {
    let (digits, zeros) = (text.get(..16)?, text.get(16..)?);
    let fits = text.len() == 64
        && digits.bytes().all(|b| b.is_ascii_hexdigit())
        && zeros.bytes().all(|b| b == b'0');
    fits.then(|| u64::from_str_radix(digits, 16).ok().map(u64::swap_bytes))
        .flatten()
}

/// The errors of a commitments object (one value a player, each the 64 lowercase hex digits of a
/// SHA-256), each named `commitments.<player>`; one for the whole when it is no object, or has more
/// than MAX_COMMITMENTS entries.
fn commitment_errors(raw: &RawValue) -> Vec<(String, String)> {
    struct Errors;
    impl<'de> Visitor<'de> for Errors {
        type Value = Vec<(String, String)>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<M: serde::de::MapAccess<'de>>(
            self,
            mut map: M,
        ) -> Result<Self::Value, M::Error> {
            let (mut errors, mut entries) = (Vec::new(), 0);
            while let Some((player, value)) = map.next_entry::<String, Field>()? {
                entries += 1;
                let message = match value {
                    Field::Text(text) if is_commitment(&text) => continue,
                    Field::Text(_) => NOT_A_COMMITMENT,
                    Field::Null => NOT_NULL,
                    Field::Other => NOT_A_STRING,
                };
                if entries <= MAX_COMMITMENTS {
                    errors.push((format!("commitments.{player}"), message.to_owned()));
                }
            }
            if entries > MAX_COMMITMENTS {
                return Ok(vec![("commitments".into(), TOO_MANY_PLAYERS.to_owned())]);
            }
            Ok(errors)
        }
    }
    let mut deserializer = serde_json::Deserializer::from_str(raw.get());
    deserializer
        .deserialize_map(Errors)
        .unwrap_or_else(|_| vec![("commitments".into(), NOT_A_MAPPING.into())])
}

/// Whether a text is a commitment, as the schema's pattern says (`^[0-9a-f]{64}$`, whose `$` also
/// matches before a final newline).
fn is_commitment(text: &str) -> bool {
    let digits = text.strip_suffix('\n').unwrap_or(text);
    digits.len() == 64
        && digits
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// The number of elements of a list, if the value is one (counted without reading them into
/// anything).
fn list_length(raw: &RawValue) -> Option<usize> {
    struct Count;
    impl<'de> Visitor<'de> for Count {
        type Value = usize;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a list")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<usize, A::Error> {
            let mut count = 0;
            while seq.next_element::<IgnoredAny>()?.is_some() {
                count += 1;
            }
            Ok(count)
        }
    }
    let mut deserializer = serde_json::Deserializer::from_str(raw.get());
    deserializer.deserialize_seq(Count).ok()
}

/// The moves of a record, or the schema's errors: about the whole (`moves`), or about each move
/// that is not a move's string (`moves.<index>`).
fn moves_of(raw: &RawValue) -> Result<Vec<String>, Vec<(String, String)>> {
    if raw.get() == "null" {
        return Err(vec![("moves".into(), NOT_NULL.into())]);
    }
    let Ok(fields) = serde_json::from_str::<Vec<Field>>(raw.get()) else {
        return Err(vec![("moves".into(), NOT_A_LIST.into())]);
    };
    let mut moves = Vec::with_capacity(fields.len());
    let mut errors = Vec::new();
    for (index, field) in fields.into_iter().enumerate() {
        let checked = match field {
            Field::Null => Err(NOT_NULL.to_owned()),
            field => field.text(1, request::MAX_MOVE_CHARS),
        };
        match checked {
            Ok(mv) => moves.push(mv.into_owned()),
            Err(_) if errors.len() == MAX_ERRORS_A_FIELD => {}
            Err(message) => errors.push((format!("moves.{index}"), message)),
        }
    }
    match errors.is_empty() {
        true => Ok(moves),
        false => Err(errors),
    }
}

/// The record's claim, or the field at fault and why (serde's words, without a place in the text).
fn claim_of(record: &RawRecord) -> Result<Claim, Vec<(String, String)>> {
    fn typed<'a, T: Deserialize<'a>>(
        raw: Option<&'a RawValue>,
        name: &str,
    ) -> Result<Option<T>, Vec<(String, String)>> {
        let Some(raw) = raw else { return Ok(None) };
        serde_json::from_str::<Option<T>>(raw.get())
            .map_err(|error| vec![(name.to_owned(), archive::field_error(error))])
    }
    Ok(Claim {
        result: typed(record.result, "result")?,
        termination: typed(record.termination, "termination")?,
        by: typed(record.by, "by")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::tests::setup;
    use crate::iago::Iago;

    fn replay(body: &str) -> Result<Value, Value> {
        let engine = Engine::<Iago>::new(setup().clone(), None);
        answer_replay::<Iago>(&engine, body.as_bytes(), 5)
            .map(|bytes| serde_json::from_slice(&bytes).unwrap())
            .map_err(|error| error.reason())
    }

    fn errors(reason: &Value) -> Vec<(String, String)> {
        assert_eq!(reason["code"], "malformed-request", "{reason}");
        let errors = reason["errors"].as_array().unwrap();
        errors
            .iter()
            .map(|e| {
                (
                    e["field"].as_str().unwrap().into(),
                    e["message"].as_str().unwrap().into(),
                )
            })
            .collect()
    }

    fn fields(reason: &Value) -> Vec<String> {
        errors(reason).into_iter().map(|(field, _)| field).collect()
    }

    #[test]
    fn metadata_passes_unread_and_the_record_replays() {
        let answer = replay(
            r#"{"moves": ["e4"], "players": {"a": [{}, {}, "\u00e9"]}, "date": 2026, "result": null}"#,
        )
        .unwrap();
        assert_eq!(
            (answer["legal"].clone(), answer["plies"].clone()),
            (true.into(), 1.into())
        );
        assert_eq!(answer["claim"], "absent");
        let seeded = replay(r#"{"moves": [], "seed": 7.0, "game": "iago", "variant": "standard"}"#);
        assert_eq!(seeded.unwrap()["legal"], true);
    }

    #[test]
    fn a_key_twice_anywhere_and_bad_json_in_metadata_are_malformed_json() {
        let twice = replay(r#"{"moves": [], "meta": {"a": {"b": 1, "b": 2}}}"#).unwrap_err();
        assert_eq!(twice["code"], "malformed-json");
        assert!(twice["detail"]
            .as_str()
            .unwrap()
            .ends_with("duplicate key at meta.a.b"));
        for bad in [
            r#"{"moves": [], "meta": "\ud800"}"#,
            r#"{"moves": [], "meta": 1e400}"#,
            r#"{"moves": [] "#,
        ] {
            assert_eq!(replay(bad).unwrap_err()["code"], "malformed-json", "{bad}");
        }
    }

    #[test]
    fn a_body_that_is_no_object_and_too_many_moves_are_told_first() {
        for body in ["[]", "1", "null", r#""moves""#] {
            let reason = replay(body).unwrap_err();
            assert_eq!(
                errors(&reason),
                [("body".into(), "not a JSON object".into())]
            );
            assert_eq!(reason["detail"], "body: not a JSON object");
        }
        // Six moves, none a string, and a bad variant: the count alone is told.
        let reason = replay(r#"{"moves": [1, 2, 3, 4, 5, 6], "variant": 1}"#).unwrap_err();
        assert_eq!(errors(&reason), [("moves".into(), "longer than 5".into())]);
        assert_eq!(reason["detail"], "a replay has at most 5 moves");
    }

    #[test]
    fn every_field_at_fault_is_named_in_the_schemas_order_and_words() {
        let reason = replay(
            r#"{"game": 3, "moves": [1, "", null, "e4"], "commitments": {"a": 1, "b": "x", "c": null},
                "seed": "x", "options": [], "variant": null}"#,
        )
        .unwrap_err();
        let expected = [
            ("variant", NOT_NULL),
            ("options", NOT_A_MAPPING),
            ("seed", NOT_A_SEED),
            ("commitments.a", NOT_A_STRING),
            ("commitments.b", NOT_A_COMMITMENT),
            ("commitments.c", NOT_NULL),
            ("moves.0", NOT_A_STRING),
            ("moves.1", "Length must be between 1 and 256."),
            ("moves.2", NOT_NULL),
            ("game", NOT_A_STRING),
        ]
        .map(|(field, message)| (field.to_owned(), message.to_owned()));
        assert_eq!(errors(&reason), expected);
        let detail = reason["detail"].as_str().unwrap();
        assert!(
            detail.starts_with("variant: Field may not be null.; options: "),
            "{detail}"
        );
        assert_eq!(
            errors(&replay("{}").unwrap_err()),
            [("moves".into(), MISSING.into())]
        );
        let moves = [("moves".to_owned(), NOT_A_LIST.to_owned())];
        assert_eq!(errors(&replay(r#"{"moves": {}}"#).unwrap_err()), moves);
        let commitments = [("commitments".to_owned(), NOT_A_MAPPING.to_owned())];
        let body = r#"{"moves": [], "commitments": [], "seed": null}"#;
        assert_eq!(errors(&replay(body).unwrap_err()), commitments);
    }

    #[test]
    fn errors_about_the_moves_are_told_a_hundred_at_most_and_commitments_are_few() {
        let members: Vec<String> = (0..1000).map(|k| format!("\"p{k}\": {k}")).collect();
        let body = |count: usize| {
            let members = members[..count].join(",");
            format!(r#"{{"moves": [], "commitments": {{{members}}}}}"#)
        };
        let too_many = [("commitments".to_owned(), TOO_MANY_PLAYERS.to_owned())];
        assert_eq!(errors(&replay(&body(1000)).unwrap_err()), too_many);
        assert_eq!(errors(&replay(&body(17)).unwrap_err()), too_many);
        assert_eq!(errors(&replay(&body(16)).unwrap_err()).len(), 16);
        let engine = Engine::<Iago>::new(setup().clone(), None);
        let moves = format!("{{\"moves\": [{}0]}}", "0,".repeat(999));
        let reason = answer_replay::<Iago>(&engine, moves.as_bytes(), 1000)
            .unwrap_err()
            .reason();
        assert_eq!(errors(&reason).len(), MAX_ERRORS_A_FIELD);
    }

    #[test]
    fn seeds_are_whole_numbers_in_range_or_a_states_hex() {
        let seed = |text: &str| seed_of(serde_json::from_str::<&RawValue>(text).unwrap());
        assert_eq!(seed("7"), Ok(7));
        assert_eq!(seed("7.0"), Ok(7));
        assert_eq!(seed("9007199254740991"), Ok(MAX_SEED));
        let hex = format!("\"0700000000000000{}\"", "0".repeat(48));
        assert_eq!(seed(&hex), Ok(7));
        for out_of_range in ["9007199254740992", "-1", "1e300", "18446744073709551616"] {
            assert_eq!(
                seed(out_of_range),
                Err(NOT_A_SEED.to_owned()),
                "{out_of_range}"
            );
        }
        for not_integer in ["1.5", "true", "[]", "{}"] {
            assert_eq!(
                seed(not_integer),
                Err(NOT_AN_INTEGER.into()),
                "{not_integer}"
            );
        }
        assert_eq!(
            seed(&hex.replace("\"07", "\"0g")),
            Err(NOT_A_SEED.to_owned())
        );
        assert_eq!(
            seed(&format!("\"07{}\"", "0".repeat(61))),
            Err(NOT_A_SEED.to_owned())
        );
    }

    #[test]
    fn the_game_the_setup_and_the_claim_are_refused_after_the_envelope() {
        let other = replay(r#"{"moves": [], "game": "isaac"}"#).unwrap_err();
        assert_eq!(errors(&other), [("game".into(), "not iago".into())]);
        assert_eq!(
            other["detail"],
            "the record is a game of \"isaac\", not of iago"
        );
        let setup = replay(r#"{"moves": [], "variant": "chess"}"#).unwrap_err();
        assert_eq!(setup["code"], "invalid-options");
        let claim = replay(r#"{"moves": ["e4"], "termination": "resigned"}"#).unwrap_err();
        assert_eq!(fields(&claim), ["termination"]);
        let message = &errors(&claim)[0].1;
        assert!(
            message.starts_with("unknown variant `resigned`") && !message.contains(" at line ")
        );
    }
}
