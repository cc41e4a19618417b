//! One request: its envelope (`{"state", "move", "player"?, "secret"?}`, a `play`/`validate` body or a batch item)
//! read and checked, its state parsed, and a `play` or `validate` answered as JSON bytes.
//!
//! Envelopes are checked here exactly as the service's marshmallow schemas check them (same fields,
//! same messages); a test holds the two together. `batch` runs the same reading over many items.

use std::fmt::Write as _;

use std::borrow::Cow;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};

use crate::answer::Played;
use crate::error::Error;
use crate::game::{self, Rules, Verdict};
use crate::opaque::{Form, MAX_SECRET_CHARS, MIN_SECRET_CHARS};
use crate::seal::{self, SealKeys, Unsealed};

/// Longest move string of a batch item, in characters (as the HTTP schemas).
pub const MAX_MOVE_CHARS: usize = 256;
/// Longest player name of a batch item, in characters.
pub const MAX_PLAYER_CHARS: usize = 64;
/// What the envelope check says of a state that is neither an object nor a string (as the
/// service's `State` field says it).
pub const STATE_TYPE_MESSAGE: &str = "Not a valid state: a JSON object or a position string.";

/// How an engine reads the states it is given and writes those it answers: a position string with
/// its setup; with seal keys, every state sealed (objects only), without, seals ignored.
pub struct Reader<'a, G: Rules> {
    pub setup: &'a game::Checked<G::Setup>,
    pub keys: Option<&'a SealKeys>,
}

impl<G: Rules> Clone for Reader<'_, G> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<G: Rules> Copy for Reader<'_, G> {}

/// A single `play` or `validate` request body, `{"state", "move", "player"?, "secret"?}` (a batch
/// item's envelope), answered as JSON bytes: for `play` the next state with its effects and outcome,
/// for `validate` the verdict. `Err` is the reason there is no answer: `malformed-json`,
/// `malformed-request`, the state's error (`invalid-seal` first, with `keys`), `not-this-player`
/// (a committed state without the mover's secret), or (`play` only) the move's. With `keys`, the
/// next state is sealed.
pub fn answer_request<G: Rules>(
    body: &[u8],
    reader: Reader<G>,
    play: bool,
) -> Result<Vec<u8>, Value> {
    let not_json = |detail: String| malformed_json(format!("the body is not valid JSON: {detail}"));
    let body = std::str::from_utf8(body).map_err(|e| not_json(e.to_string()))?;
    let ((position, form), mv, player) = match take_item::<G>(body, "body", reader) {
        Taken::Item(position, mv, player, _) => (position, mv, player),
        Taken::Refused(reason) => return Err(reason),
        Taken::NotJson(detail) => return Err(not_json(detail)),
    };
    let answer = if play {
        let (next, effects) =
            game::play_text::<G>(&position, &mv, player.as_deref()).map_err(|e| e.reason())?;
        let mover = G::to_move(&position);
        // The next state is about as long as the one given: written once into room for both.
        let mut answer = Vec::with_capacity(body.len() + ANSWER_EXTRA_BYTES);
        serde_json::to_writer(
            &mut answer,
            &Played::<G>::in_form(&next, effects, &form, reader.keys, mover),
        )
        .map(|()| answer)
    } else {
        serde_json::to_vec(&judge::<G>(&position, &mv, player.as_deref()).map_err(|e| e.reason())?)
    };
    Ok(answer.expect("an answer serializes"))
}

/// Room in a `play` answer beyond the request's length: the effects and the outcome.
const ANSWER_EXTRA_BYTES: usize = 512;

/// The verdict on one `(state, move, player)`: `{"legal": true}` or `{"legal": false, "reason": ...}`;
/// `Err` for a player the game does not have.
pub fn judge<G: Rules>(
    position: &G::Position,
    mv: &str,
    player: Option<&str>,
) -> Result<Judged, Error> {
    game::validate::<G>(position, mv, player).map(|verdict| match verdict {
        Verdict::Legal { .. } => Judged::Legal,
        Verdict::Illegal(error) => Judged::Illegal(error),
    })
}

/// A verdict without the next state, written as `judge` says (straight to text: no tree of JSON
/// values built and dropped on the way).
pub enum Judged {
    Legal,
    Illegal(Error),
}

impl serde::Serialize for Judged {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut verdict = serializer.serialize_struct("Verdict", 2)?;
        match self {
            Judged::Legal => verdict.serialize_field("legal", &true)?,
            Judged::Illegal(error) => {
                verdict.serialize_field("legal", &false)?;
                verdict.serialize_field("reason", &error.reason_out())?;
            }
        }
        verdict.end()
    }
}

/// A verdict as JSON, with the next state in `form` (sealed with `keys`) when a form is given;
/// `mover`: the player to move before the move (whose view an opaque answer carries).
pub(crate) fn verdict_json<G: Rules>(
    verdict: Verdict<G::Position, G::Effects>,
    form: Option<Form>,
    keys: Option<&SealKeys>,
    mover: Option<&str>,
) -> Value {
    match (verdict, form) {
        (Verdict::Legal { position, effects }, Some(form)) => {
            let mut result = json!(Played::<G>::in_form(&position, effects, &form, keys, mover));
            result["legal"] = Value::Bool(true);
            result
        }
        (Verdict::Legal { .. }, None) => json!(Judged::Legal),
        (Verdict::Illegal(error), _) => json!(Judged::Illegal(error)),
    }
}

/// A state given as JSON text, checked, and its form: an object (with keys, its seal first, or
/// opened when opaque; its chance keyed by them), or a position string of the reader's setup (refused
/// with keys: it cannot carry a seal).
pub fn parse_state<G: Rules>(json: &str, reader: Reader<G>) -> Result<(G::Position, Form), Error> {
    if !json.starts_with('"') {
        return seal::read_object::<G>(json, reader.keys);
    }
    if reader.keys.is_some() {
        return Err(seal::position_refused());
    }
    let text: String =
        serde_json::from_str(json).map_err(|e| Error::invalid_state("state", e.to_string()))?;
    Ok((G::parse_position(&text, reader.setup)?, Form::Notation))
}

/// A state as a request gives it, in either form.
enum StateIn<S> {
    Object(S),
    Notation(String),
}

impl<'de, S: Deserialize<'de>> Deserialize<'de> for StateIn<S> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct StateVisitor<S>(std::marker::PhantomData<S>);
        impl<'de, S: Deserialize<'de>> Visitor<'de> for StateVisitor<S> {
            type Value = StateIn<S>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a state: a JSON object, or a position in the game's notation")
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Self::Value, E> {
                Ok(StateIn::Notation(text.to_owned()))
            }
            fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<Self::Value, M::Error> {
                let map = serde::de::value::MapAccessDeserializer::new(map);
                S::deserialize(map).map(StateIn::Object)
            }
        }
        deserializer.deserialize_any(StateVisitor(std::marker::PhantomData))
    }
}

/// The fields of an item envelope, each still raw JSON, and the names of any others.
#[derive(Default)]
struct Envelope<'a> {
    state: Option<&'a RawValue>,
    mv: Option<&'a RawValue>,
    player: Option<&'a RawValue>,
    secret: Option<&'a RawValue>,
    unknown: Vec<String>,
}

impl<'de: 'a, 'a> Deserialize<'de> for Envelope<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EnvelopeVisitor;
        impl<'de> Visitor<'de> for EnvelopeVisitor {
            type Value = Envelope<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
                let mut envelope = Envelope::default();
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    let value: &'de RawValue = map.next_value()?;
                    match key.as_ref() {
                        "state" => envelope.state = Some(value),
                        "move" => envelope.mv = Some(value),
                        "player" => envelope.player = Some(value),
                        "secret" => envelope.secret = Some(value),
                        other => envelope.unknown.push(other.to_owned()),
                    }
                }
                Ok(envelope)
            }
        }
        deserializer.deserialize_map(EnvelopeVisitor)
    }
}

/// A JSON string of `min..=max` characters, or the schema's message about it.
fn text_field(raw: &RawValue, min: usize, max: usize) -> Result<String, String> {
    let text: String =
        serde_json::from_str(raw.get()).map_err(|_| "Not a valid string.".to_owned())?;
    if fits(&text, min, max) {
        Ok(text)
    } else {
        Err(format!("Length must be between {min} and {max}."))
    }
}

/// An item or request body taken apart; its move borrowed from it where the JSON has no escape.
#[derive(Debug, PartialEq)]
pub(crate) enum Taken<'a, P> {
    /// The checked position (and the form its state came in), the move, the player, the secret.
    Item(
        (P, Form),
        Cow<'a, str>,
        Option<Cow<'a, str>>,
        Option<Cow<'a, str>>,
    ),
    /// Why there is no item: a `malformed-request` about the envelope, or the state's error.
    Refused(Value),
    /// Not JSON at all; why.
    NotJson(String),
}

/// Takes an item (or a request body, as `whole` names it in errors) apart: JSON with a key given twice
/// is no item (`json::fault`), wherever the key is. An item in the usual good
/// shape is parsed in one pass (`quick_item`); any other takes the exact path, which finds what is
/// wrong (the envelope first, then the state). A test holds the two paths to the same answers.
/// With `keys`, the state's seal is checked before anything else about the state.
/// A committed state (see `opaque`) acts only with the secret of the player to move: else
/// `not-this-player`.
pub(crate) fn take_item<'a, G: Rules>(
    item: &'a str,
    whole: &str,
    reader: Reader<G>,
) -> Taken<'a, G::Position> {
    if let Some(fault) = crate::json::fault(item) {
        return Taken::NotJson(fault);
    }
    let quick = match reader.keys {
        None => quick_item::<G>(item, reader.setup),
        Some(keys) => quick_sealed_item::<G>(item, keys),
    };
    match quick.unwrap_or_else(|| exact_item::<G>(item, whole, reader)) {
        Taken::Item((position, form), mv, player, secret) => {
            match form.act_as_mover::<G>(&position, secret.as_deref()) {
                Ok(()) => Taken::Item((position, form), mv, player, secret),
                Err(refusal) => Taken::Refused(refusal.reason()),
            }
        }
        taken => taken,
    }
}

/// An item in the usual good shape, its state parsed straight into the game's type (any `seal`
/// ignored) or read from its position string; `None` for any other item.
fn quick_item<'a, G: Rules>(
    item: &'a str,
    setup: &game::Checked<G::Setup>,
) -> Option<Taken<'a, G::Position>> {
    let good = good_item::<StateIn<Unsealed<G>>>(item)?;
    let position = match good.state {
        StateIn::Object(Unsealed(position)) => position.map(|p| (p, Form::Object)),
        StateIn::Notation(text) => G::parse_position(&text, setup).map(|p| (p, Form::Notation)),
    };
    Some(taken(position, good.mv, good.player, good.secret))
}

/// `quick_item` with keys: the state's text goes to the seal check.
fn quick_sealed_item<'a, G: Rules>(
    item: &'a str,
    keys: &SealKeys,
) -> Option<Taken<'a, G::Position>> {
    let good = good_item::<&RawValue>(item)?;
    if !good.state.get().starts_with('{') {
        return None;
    }
    let position = seal::read_object::<G>(good.state.get(), Some(keys));
    Some(taken(position, good.mv, good.player, good.secret))
}

/// An item in the usual good shape, its envelope's fields fitting; `None` for any other.
fn good_item<'a, S: Deserialize<'a>>(item: &'a str) -> Option<GoodItem<'a, S>> {
    // An object only: serde's derive would also take the envelope's fields from an array.
    if !item.trim_start().starts_with('{') {
        return None;
    }
    let good = serde_json::from_str::<GoodItem<S>>(item).ok()?;
    let fitting = envelope_fits(&good.mv, good.player.as_deref(), good.secret.as_deref());
    fitting.then_some(good)
}

fn taken<'a, P>(
    position: Result<(P, Form), Error>,
    mv: Cow<'a, str>,
    player: Option<Cow<'a, str>>,
    secret: Option<Cow<'a, str>>,
) -> Taken<'a, P> {
    match position {
        Ok(position) => Taken::Item(position, mv, player, secret),
        Err(error) => Taken::Refused(error.reason()),
    }
}

fn envelope_fits(mv: &str, player: Option<&str>, secret: Option<&str>) -> bool {
    fits(mv, 1, MAX_MOVE_CHARS)
        && player.is_none_or(|p| fits(p, 1, MAX_PLAYER_CHARS))
        && secret.is_none_or(|s| fits(s, MIN_SECRET_CHARS, MAX_SECRET_CHARS))
}

/// Any item: its JSON checked whole (so that a fault of the JSON is one everywhere in the item, as
/// on routes that parse the whole body first), then the envelope field by field, then the state.
fn exact_item<'a, G: Rules>(
    item: &'a str,
    whole: &str,
    reader: Reader<G>,
) -> Taken<'a, G::Position> {
    if let Some(detail) = json_error(item) {
        return Taken::NotJson(detail);
    }
    match open_item(item, whole) {
        Opened::Refused(reason) => Taken::Refused(reason),
        Opened::Item(state, mv, player, secret) => taken(
            parse_state::<G>(state, reader),
            mv.into(),
            player.map(Cow::Owned),
            secret.map(Cow::Owned),
        ),
    }
}

/// An item in the usual good shape: exactly these fields; the state the game's (`StateIn`) or, for
/// the seal check, its text; the move borrowed from the item when it has no escape.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, bound(deserialize = "S: Deserialize<'de>"))]
struct GoodItem<'a, S> {
    state: S,
    #[serde(rename = "move", borrow)]
    mv: Cow<'a, str>,
    #[serde(default)]
    player: Option<Cow<'a, str>>,
    #[serde(default)]
    secret: Option<Cow<'a, str>>,
}

/// Whether a text has `min..=max` characters, as the schemas count them.
fn fits(text: &str, min: usize, max: usize) -> bool {
    (min..=max).contains(&text.chars().count())
}

/// What the envelope check makes of one item.
enum Opened<'a> {
    /// The state's JSON text, the move, the player, the secret.
    Item(&'a str, String, Option<String>, Option<String>),
    /// JSON, but not a good envelope: the per-field errors of a `malformed-request`, in the shape
    /// the service gives them.
    Refused(Value),
}

/// The envelope check of one item (JSON already checked) (`whole` names it in errors: `item`, `body`).
fn open_item<'a>(item: &'a str, whole: &str) -> Opened<'a> {
    let mut errors: Vec<(String, String)> = Vec::new();
    // Parsing the envelope checks that all of it is JSON (its values are parsed as raw JSON).
    let envelope = match serde_json::from_str::<Envelope>(item) {
        Ok(envelope) => envelope,
        Err(_) => {
            errors.push((whole.into(), "not a JSON object".into()));
            return Opened::Refused(malformed_request(&errors));
        }
    };
    let state = match envelope.state {
        None => {
            errors.push(("state".into(), "Missing data for required field.".into()));
            None
        }
        Some(raw) if raw.get().starts_with(['{', '"']) => Some(raw.get()),
        Some(_) => {
            errors.push(("state".into(), STATE_TYPE_MESSAGE.into()));
            None
        }
    };
    let mv = match envelope.mv.map(|raw| text_field(raw, 1, MAX_MOVE_CHARS)) {
        None => {
            errors.push(("move".into(), "Missing data for required field.".into()));
            None
        }
        Some(Ok(mv)) => Some(mv),
        Some(Err(message)) => {
            errors.push(("move".into(), message));
            None
        }
    };
    let mut optional = |name: &str, raw: Option<&RawValue>, min: usize, max: usize| match raw {
        Some(raw) if raw.get() != "null" => match text_field(raw, min, max) {
            Ok(text) => Some(text),
            Err(message) => {
                errors.push((name.into(), message));
                None
            }
        },
        _ => None,
    };
    let player = optional("player", envelope.player, 1, MAX_PLAYER_CHARS);
    let secret = optional(
        "secret",
        envelope.secret,
        MIN_SECRET_CHARS,
        MAX_SECRET_CHARS,
    );
    for field in envelope.unknown {
        errors.push((field, "Unknown field.".into()));
    }
    match (state, mv) {
        (Some(state), Some(mv)) if errors.is_empty() => Opened::Item(state, mv, player, secret),
        _ => Opened::Refused(malformed_request(&errors)),
    }
}

/// Why a text is not JSON as every route reads it (serde_json's grammar, numbers that fit a double,
/// no lone surrogate, at most 128 levels of nesting); `None` when it is JSON.
pub fn json_error(text: &str) -> Option<String> {
    serde_json::from_str::<Checked>(text)
        .err()
        .map(|error| error.to_string())
}

/// Any JSON value, read in full and kept as nothing: unlike `IgnoredAny`, whose skipped values'
/// numbers and string escapes go unchecked.
struct Checked;

impl<'de> Deserialize<'de> for Checked {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(Checked)
    }
}

impl<'de> Visitor<'de> for Checked {
    type Value = Checked;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_str<E>(self, _: &str) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_unit<E>(self) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Checked, A::Error> {
        while seq.next_element::<Checked>()?.is_some() {}
        Ok(Checked)
    }
    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Checked, M::Error> {
        while map.next_entry::<Checked, Checked>()?.is_some() {}
        Ok(Checked)
    }
}

pub(crate) fn malformed_json(detail: String) -> Value {
    json!({ "code": "malformed-json", "detail": detail })
}

pub(crate) fn malformed_request(errors: &[(String, String)]) -> Value {
    let mut detail = String::new();
    for (index, (field, message)) in errors.iter().enumerate() {
        let separator = if index == 0 { "" } else { "; " };
        let _ = write!(detail, "{separator}{field}: {message}");
    }
    malformed_request_detail(errors, detail)
}

pub(crate) fn malformed_request_detail(errors: &[(String, String)], detail: String) -> Value {
    let errors: Vec<Value> = errors
        .iter()
        .map(|(field, message)| json!({ "field": field, "message": message }))
        .collect();
    json!({ "code": "malformed-request", "detail": detail, "errors": errors })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::tests::{reader, setup, start};
    use crate::batch::validate_array;
    use crate::iago::Iago;

    #[test]
    fn the_quick_path_agrees_with_the_exact_one() {
        let state = start();
        let array_state = r#"["iago@1","standard",{"penalty":false},[],"black",false]"#;
        let items = [
            format!(r#"{{"state":{state},"move":"e4"}}"#),
            format!(r#"{{"move":"e5","state":{state},"player":null}}"#),
            format!(r#"{{"state":{state},"move":"e4","player":"white"}}"#),
            format!(r#"{{"state":{state},"move":"zz","player":"black"}}"#),
            format!(r#"{{"state":{state},"move":""}}"#),
            format!(r#"{{"state":{state},"move":"e4","player":""}}"#),
            format!(r#"{{"state":{state},"move":"{}"}}"#, "é".repeat(256)),
            format!(r#"{{"state":{state},"move":"{}"}}"#, "é".repeat(257)),
            format!(r#"{{"state":{state},"move":"e4","extra":1}}"#),
            format!(r#"{{"state":{state},"state":{state},"move":"e4"}}"#),
            format!(r#"{{"state":{array_state},"move":"e4"}}"#),
            r#"{"state":{"rules":"iago@1"},"move":"e4"}"#.to_owned(),
            r#"{"state":{"rules":"iago@1","board":[],"to_move":"black"},"move":"e4"}"#.to_owned(),
            r#"{"state":{},"move":4}"#.to_owned(),
            r#"[1, 2]"#.to_owned(),
            r#"{"state": {"#.to_owned(),
        ];
        let mut quick = 0;
        for item in &items {
            let exact = exact_item::<Iago>(item, "item", reader(None));
            if let Some(answer) = quick_item::<Iago>(item, setup()) {
                quick += 1;
                assert_eq!(answer, exact, "{item}");
            }
            // A key given twice is refused before either path reads the item.
            let expected = crate::json::fault(item).map_or(exact, Taken::NotJson);
            assert_eq!(
                take_item::<Iago>(item, "item", reader(None)),
                expected,
                "{item}"
            );
        }
        // Good envelopes take the quick path, their states read there (or refused, worded).
        assert_eq!(quick, 6, "the good shapes take the quick path");
        assert_eq!(
            take_item::<Iago>(&items[9], "item", reader(None)),
            Taken::NotJson("duplicate key at state".into())
        );
        let refused = exact_item::<Iago>(&items[10], "item", reader(None));
        assert!(
            matches!(refused, Taken::Refused(reason) if reason["errors"][0]["message"] == STATE_TYPE_MESSAGE)
        );
    }
    #[test]
    fn with_keys_both_paths_check_the_seal_and_a_bad_one_fails_its_item_alone() {
        let keys = SealKeys::parse("k1:c2VhbC1zZWNyZXQtb25lLXNlYWwtc2VjcmV0LW9uZS0").unwrap();
        let setup = Iago::check_setup(serde_json::from_str("{}").unwrap()).unwrap();
        let position = Iago::start(&setup, None);
        let stamped = seal::stamp::<Iago>(&position, Some(&keys), None);
        let sealed = serde_json::to_string(&stamped).unwrap();
        let tampered = sealed.replace("\"black\"", "\"white\"");
        let unsealed = start();
        let items = [
            format!(r#"{{"state":{sealed},"move":"e4"}}"#),
            format!(r#"{{"state":{sealed},"move":"e4","player":"black"}}"#),
            format!(r#"{{"state":{tampered},"move":"e4"}}"#),
            format!(r#"{{"state":{unsealed},"move":"e4"}}"#),
            format!(r#"{{"state":{sealed},"move":""}}"#),
            format!(r#"[{sealed},"e4"]"#),
        ];
        let mut quick = 0;
        for item in &items {
            let exact = exact_item::<Iago>(item, "item", reader(Some(&keys)));
            if let Some(answer) = quick_sealed_item::<Iago>(item, &keys) {
                quick += 1;
                assert_eq!(answer, exact, "{item}");
            }
            assert_eq!(
                take_item::<Iago>(item, "item", reader(Some(&keys))),
                exact,
                "{item}"
            );
        }
        assert_eq!(quick, 4);
        let array = format!("[{}]", items.join(","));
        let (results, _) =
            validate_array::<Iago>(array.as_bytes(), reader(Some(&keys)), true, 10).unwrap();
        let results: Vec<Value> = serde_json::from_slice(&results).unwrap();
        assert_eq!(results[0]["legal"], true);
        assert!(results[0]["state"]["seal"]
            .as_str()
            .unwrap()
            .starts_with("k1."));
        assert_eq!(results[1]["legal"], true);
        for refused in [&results[2], &results[3]] {
            assert_eq!(refused["error"]["code"], "invalid-seal");
            assert_eq!(refused["error"]["field"], "state.seal");
        }
        assert_eq!(results[4]["error"]["code"], "malformed-request");
        assert_eq!(
            results[5]["error"]["errors"][0]["message"],
            "not a JSON object"
        );
        // Without keys, the seal of the same items is ignored.
        let (results, _) =
            validate_array::<Iago>(array.as_bytes(), reader(None), true, 10).unwrap();
        let results: Vec<Value> = serde_json::from_slice(&results).unwrap();
        assert_eq!(results[2]["error"]["code"], "invalid-state");
        assert_eq!(results[3]["legal"], true);
        assert!(results[0]["state"].get("seal").is_none());
    }
}
