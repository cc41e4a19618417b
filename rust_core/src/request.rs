//! One request: its envelope (`{"state", "move", "player"?, "secret"?}`, a `play`/`validate` body or a batch item)
//! read and checked, its state parsed, and a `play` or `validate` answered as JSON bytes.
//!
//! Envelopes are checked here exactly as the service's marshmallow schemas check them (same fields,
//! same messages: `error::message`, which the schemas take too); a test holds the two together. `batch` runs the same reading over many items.

use std::borrow::Cow;

use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::engine::Engine;
use crate::error::message::{self, MISSING, NOT_A_STRING, STATE_TYPE};
use crate::error::Error;
use crate::game::{Rules, Verdict};
use crate::incoming::{self, Unsealed};
use crate::json::{once, syntax_error};
use crate::opaque::{Form, MAX_SECRET_CHARS, MIN_SECRET_CHARS};

/// Longest move string of a batch item, in characters (as the HTTP schemas).
pub const MAX_MOVE_CHARS: usize = 256;
/// Longest player name of a batch item, in characters.
pub const MAX_PLAYER_CHARS: usize = 64;

/// A single `play` or `validate` request body, `{"state", "move", "player"?, "secret"?}` (a batch
/// item's envelope), answered as JSON bytes: for `play` the next state with its effects and outcome,
/// for `validate` the verdict. `Err` is the reason there is no answer: `malformed-json`,
/// `malformed-request`, the state's error (`invalid-seal` first, with `keys`), `not-this-player`
/// (a committed state without the mover's secret), or (`play` only) the move's. With keys, the
/// next state is sealed. The engine plays or judges the move (see `Engine::play`).
pub fn answer_request<G: Rules>(
    body: &[u8],
    engine: &Engine<G>,
    play: bool,
) -> Result<Vec<u8>, Error> {
    let body = std::str::from_utf8(body).map_err(Error::not_json)?;
    let ((position, form), mv, player, secret) = match take_item::<G>(body, "body", engine) {
        Taken::Item(position, mv, player, secret) => (position, mv, player, secret),
        Taken::Refused(error) => return Err(error),
        Taken::NotJson(detail) => return Err(Error::not_json(detail)),
    };
    let (player, secret) = (player.as_deref(), secret.as_deref());
    let answer = if play {
        let (next, effects) = engine.play(&position, &form, &mv, player, secret)?;
        // The next state is about as long as the one given: written once into room for both.
        let mut answer = Vec::with_capacity(body.len() + ANSWER_EXTRA_BYTES);
        serde_json::to_writer(
            &mut answer,
            &engine.played(&position, &next, effects, &form),
        )
        .map(|()| answer)
    } else {
        let verdict = engine.validate(&position, &form, &mv, player, secret)?;
        serde_json::to_vec(&Judged::from(verdict))
    };
    Ok(answer.expect("an answer serializes"))
}

/// Room in a `play` answer beyond the request's length: the effects and the outcome.
const ANSWER_EXTRA_BYTES: usize = 512;

/// A verdict without the next state: `{"legal": true}` or `{"legal": false, "reason": ...}`, written
/// straight to text (no tree of JSON values built and dropped on the way).
pub enum Judged {
    Legal,
    Illegal(Error),
}

impl<P, E> From<Verdict<P, E>> for Judged {
    fn from(verdict: Verdict<P, E>) -> Judged {
        match verdict {
            Verdict::Legal { .. } => Judged::Legal,
            Verdict::Illegal(error) => Judged::Illegal(error),
        }
    }
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

/// A state given as JSON text, checked, and its form: an object (with keys, its seal first, or
/// opened when opaque; its chance keyed by them), or a position string of the engine's setup (refused
/// with keys: it cannot carry a seal).
pub fn parse_state<G: Rules>(json: &str, engine: &Engine<G>) -> Result<(G::Position, Form), Error> {
    if !json.starts_with('"') {
        return engine.read_object(json);
    }
    let text = || {
        serde_json::from_str::<String>(json)
            .map(Cow::Owned)
            .map_err(|e| Error::invalid_state("state", e.to_string()))
    };
    incoming::read_notation::<G>(text, engine.setup(), engine.keys())
}

/// A state as a request gives it, in either form, or a value of another type (skipped).
enum StateIn<S> {
    Object(S),
    Notation(String),
    Other,
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
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(StateIn::Other)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(StateIn::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(StateIn::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(StateIn::Other)
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(StateIn::Other)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(StateIn::Other)
            }
        }
        deserializer.deserialize_any(StateVisitor(std::marker::PhantomData))
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
    Refused(Error),
    /// Not JSON at all; why.
    NotJson(String),
}

/// Takes an item (or a request body, as `whole` names it in errors) apart: one pass reads the
/// envelope and, on an engine without keys, the state with the game's reader as it goes (with keys,
/// the state's text goes to the seal check). What is wrong is told in order: a key given twice
/// (`json::fault`, wherever the key is; a syntax error the parser finds first wins), the JSON, the
/// envelope, then the state. Every reader refuses a key given twice, so only a refused item is
/// scanned for one, to name it (a test holds every reader to it). Whoever acts on the item hands
/// its secret to the engine (see `Engine::play`).
pub(crate) fn take_item<'a, G: Rules>(
    item: &'a str,
    whole: &str,
    engine: &Engine<G>,
) -> Taken<'a, G::Position> {
    let read = match engine.keys() {
        None => read_item::<G, StateIn<Unsealed<G>>>(item, engine),
        Some(_) => read_item::<G, &RawValue>(item, engine),
    };
    match read.unwrap_or_else(|| worded_item::<G>(item, whole, engine)) {
        taken @ Taken::Item(..) => taken,
        refused => crate::json::fault(item).map_or(refused, Taken::NotJson),
    }
}

/// Takes an item apart in one pass (see `take_item`): `None` when the pass stops (the item is not
/// JSON, not an object, gives a key twice, or its state is read by the game's reader and stops on a
/// fault of its form).
fn read_item<'a, G: Rules, S: ItemState<'a, G>>(
    item: &'a str,
    engine: &Engine<G>,
) -> Option<Taken<'a, G::Position>> {
    let envelope: Envelope<S> = serde_json::from_str(item).ok()?;
    Some(match envelope.checked::<G>() {
        Ok((state, mv, player, secret)) => match state.read(engine) {
            Ok(position) => Taken::Item(position, mv, player, secret),
            // The JSON first: a state kept as text for the seal check was skipped over unchecked.
            Err(error) => match syntax_error(item) {
                Some(detail) => Taken::NotJson(detail),
                None => Taken::Refused(error),
            },
        },
        Err(errors) => match syntax_error(item) {
            Some(detail) => Taken::NotJson(detail),
            None => Taken::Refused(Error::malformed_request(errors)),
        },
    })
}

/// An item the one pass stopped on: its JSON fault, else why it is no object, else read again with
/// its state kept as text, so that the envelope is checked first and a fault of the state's form is
/// worded from the state alone.
fn worded_item<'a, G: Rules>(
    item: &'a str,
    whole: &str,
    engine: &Engine<G>,
) -> Taken<'a, G::Position> {
    if let Some(detail) = syntax_error(item) {
        return Taken::NotJson(detail);
    }
    // An object that stops this pass too gives a key twice, which `take_item` names instead.
    read_item::<G, &RawValue>(item, engine)
        .unwrap_or_else(|| Taken::Refused(Error::malformed_field(whole, "not a JSON object")))
}

/// How the one pass takes an item's state: read by the game's reader as it goes (an engine without
/// keys), or kept as its text (for the seal check, or to word a fault of its form).
trait ItemState<'a, G: Rules>: Deserialize<'a> {
    /// Whether it is a state's type: an object or a string.
    fn is_state(&self) -> bool;
    /// The position and its form.
    fn read(self, engine: &Engine<G>) -> Result<(G::Position, Form), Error>;
}

impl<G: Rules> ItemState<'_, G> for StateIn<Unsealed<G>> {
    fn is_state(&self) -> bool {
        !matches!(self, StateIn::Other)
    }

    fn read(self, engine: &Engine<G>) -> Result<(G::Position, Form), Error> {
        match self {
            StateIn::Object(Unsealed(position)) => position.map(|p| (p, Form::Object)),
            StateIn::Notation(text) => {
                // Read so only without keys (see `take_item`).
                debug_assert!(engine.keys().is_none());
                engine.read_notation(&text)
            }
            StateIn::Other => unreachable!("read only when it is a state"),
        }
    }
}

impl<'a, G: Rules> ItemState<'a, G> for &'a RawValue {
    fn is_state(&self) -> bool {
        self.get().starts_with(['{', '"'])
    }

    fn read(self, engine: &Engine<G>) -> Result<(G::Position, Form), Error> {
        parse_state::<G>(self.get(), engine)
    }
}

/// One field of an envelope as the item gives it: a string (borrowed where it has no escape),
/// `null`, or any other value (skipped).
pub(crate) enum Field<'a> {
    Text(Cow<'a, str>),
    Null,
    Other,
}

impl<'de> Deserialize<'de> for Field<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct FieldVisitor;
        impl<'de> Visitor<'de> for FieldVisitor {
            type Value = Field<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Field<'de>, E> {
                Ok(Field::Text(Cow::Borrowed(text)))
            }
            fn visit_str<E>(self, text: &str) -> Result<Field<'de>, E> {
                Ok(Field::Text(Cow::Owned(text.to_owned())))
            }
            fn visit_unit<E>(self) -> Result<Field<'de>, E> {
                Ok(Field::Null)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Field<'de>, E> {
                Ok(Field::Other)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Field<'de>, E> {
                Ok(Field::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Field<'de>, E> {
                Ok(Field::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Field<'de>, E> {
                Ok(Field::Other)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Field<'de>, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Field::Other)
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Field<'de>, M::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Field::Other)
            }
        }
        deserializer.deserialize_any(FieldVisitor)
    }
}

impl<'a> Field<'a> {
    /// A string of `min..=max` characters, or the schema's message about the field.
    pub(crate) fn text(self, min: usize, max: usize) -> Result<Cow<'a, str>, String> {
        match self {
            Field::Text(text) if fits(&text, min, max) => Ok(text),
            Field::Text(_) => Err(message::length(min, max)),
            Field::Null | Field::Other => Err(NOT_A_STRING.to_owned()),
        }
    }
}

/// The fields of an item envelope, and the names of any others.
struct Envelope<'a, S> {
    state: Option<S>,
    mv: Option<Field<'a>>,
    player: Option<Field<'a>>,
    secret: Option<Field<'a>>,
    unknown: Vec<String>,
}

impl<'de, S: Deserialize<'de>> Deserialize<'de> for Envelope<'de, S> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EnvelopeVisitor<S>(std::marker::PhantomData<S>);
        impl<'de, S: Deserialize<'de>> Visitor<'de> for EnvelopeVisitor<S> {
            type Value = Envelope<'de, S>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
                let mut envelope = Envelope {
                    state: None,
                    mv: None,
                    player: None,
                    secret: None,
                    unknown: Vec::new(),
                };
                while let Some(key) = map.next_key::<Key>()? {
                    match key {
                        Key::State => once(&mut envelope.state, "state", &mut map)?,
                        Key::Move => once(&mut envelope.mv, "move", &mut map)?,
                        Key::Player => once(&mut envelope.player, "player", &mut map)?,
                        Key::Secret => once(&mut envelope.secret, "secret", &mut map)?,
                        Key::Unknown(name) => {
                            map.next_value::<IgnoredAny>()?;
                            envelope.unknown.push(name);
                        }
                    }
                }
                Ok(envelope)
            }
        }
        deserializer.deserialize_map(EnvelopeVisitor(std::marker::PhantomData))
    }
}

/// A key of an envelope, told from the input without copying it (only an unknown one is kept).
enum Key {
    State,
    Move,
    Player,
    Secret,
    Unknown(String),
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = Key;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a field name")
            }
            fn visit_str<E>(self, name: &str) -> Result<Key, E> {
                Ok(match name {
                    "state" => Key::State,
                    "move" => Key::Move,
                    "player" => Key::Player,
                    "secret" => Key::Secret,
                    other => Key::Unknown(other.to_owned()),
                })
            }
        }
        deserializer.deserialize_identifier(KeyVisitor)
    }
}

/// The state, the move, the player and the secret of an envelope that checks.
type Fields<'a, S> = (S, Cow<'a, str>, Option<Cow<'a, str>>, Option<Cow<'a, str>>);

impl<'a, S> Envelope<'a, S> {
    /// The fields, or the per-field errors of a `malformed-request` in the order the service gives
    /// them (the state, the move, the player, the secret, then fields it does not know).
    fn checked<G: Rules>(self) -> Result<Fields<'a, S>, Vec<(String, String)>>
    where
        S: ItemState<'a, G>,
    {
        let mut errors: Vec<(String, String)> = Vec::new();
        let mut error = |field: &str, message: String| errors.push((field.into(), message));
        let missing = || MISSING.to_owned();
        let state = match self.state {
            Some(state) if state.is_state() => Some(state),
            Some(_) => {
                error("state", STATE_TYPE.into());
                None
            }
            None => {
                error("state", missing());
                None
            }
        };
        let mv = match self.mv.map(|mv| mv.text(1, MAX_MOVE_CHARS)) {
            Some(Ok(mv)) => Some(mv),
            Some(Err(message)) => {
                error("move", message);
                None
            }
            None => {
                error("move", missing());
                None
            }
        };
        let mut optional =
            |name: &str, field: Option<Field<'a>>, min: usize, max: usize| match field
                .filter(|field| !matches!(field, Field::Null))?
                .text(min, max)
            {
                Ok(text) => Some(text),
                Err(message) => {
                    error(name, message);
                    None
                }
            };
        let player = optional("player", self.player, 1, MAX_PLAYER_CHARS);
        let secret = optional("secret", self.secret, MIN_SECRET_CHARS, MAX_SECRET_CHARS);
        for field in self.unknown {
            error(&field, message::UNKNOWN_FIELD.into());
        }
        match (state, mv) {
            (Some(state), Some(mv)) if errors.is_empty() => Ok((state, mv, player, secret)),
            _ => Err(errors),
        }
    }
}

/// Whether a text has `min..=max` characters, as the schemas count them.
fn fits(text: &str, min: usize, max: usize) -> bool {
    (min..=max).contains(&text.chars().count())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::batch::tests::{engine, setup, start};
    use crate::batch::validate_array;
    use crate::iago::Iago;
    use crate::keys::SealKeys;
    use crate::seal;
    use serde_json::Value;

    /// The answer to an item as the service words it: the position read, or the reason.
    fn answer(item: &str, keys: Option<&Arc<SealKeys>>) -> Result<String, Value> {
        match take_item::<Iago>(item, "item", &engine(keys)) {
            Taken::Item((_, form), mv, player, secret) => {
                Ok(format!("{form:?} {mv} {player:?} {secret:?}"))
            }
            Taken::Refused(error) => Err(error.reason()),
            Taken::NotJson(detail) => Err(Error::malformed_json(detail).reason()),
        }
    }

    fn errors(reason: &Value) -> Vec<(&str, &str)> {
        let errors = reason["errors"].as_array().unwrap();
        errors
            .iter()
            .map(|e| (e["field"].as_str().unwrap(), e["message"].as_str().unwrap()))
            .collect()
    }

    #[test]
    fn an_item_is_read_in_one_pass_and_its_faults_told_in_order() {
        let state = start();
        let good = answer(&format!(r#"{{"state":{state},"move":"e4"}}"#), None);
        assert_eq!(good.unwrap(), "Object e4 None None");
        let any_order = format!(r#"{{"player":null,"move":"e\u0035","state":{state}}}"#);
        assert_eq!(answer(&any_order, None).unwrap(), "Object e5 None None");
        let position = Iago::position_text(&Iago::start(setup(), None, None));
        let notation = format!(r#"{{"state":"{position}","move":"e4"}}"#);
        assert_eq!(answer(&notation, None).unwrap(), "Notation e4 None None");
        let garbled = notation.replacen(" b\"", " q\"", 1);
        assert!(matches!(answer(&garbled, None), Err(reason) if reason["code"] == "invalid-state"));
        // The envelope's faults, field by field in the service's order, before the state's.
        let item = format!(
            r#"{{"extra":1,"secret":7,"player":"","move":"{}"}}"#,
            "é".repeat(257)
        );
        let reason = answer(&item, None).unwrap_err();
        assert_eq!(
            errors(&reason),
            [
                ("state", "Missing data for required field."),
                ("move", "Length must be between 1 and 256."),
                ("player", "Length must be between 1 and 64."),
                ("secret", "Not a valid string."),
                ("extra", "Unknown field.")
            ]
        );
        for wrong in ["7", "null", "[1]", "true"] {
            let reason = answer(&format!(r#"{{"state":{wrong},"move":4}}"#), None).unwrap_err();
            assert_eq!(
                errors(&reason),
                [("state", STATE_TYPE), ("move", "Not a valid string.")]
            );
        }
        // A state the game's reader stops on (an unknown field) is worded from the state alone,
        // and only once the envelope is good.
        let unknown = r#"{"rules":"iago@1","bogus":1}"#;
        let reason = answer(&format!(r#"{{"state":{unknown},"move":"e4"}}"#), None).unwrap_err();
        assert_eq!(reason["code"], "invalid-state");
        assert!(
            reason["detail"].as_str().unwrap().contains("bogus"),
            "{reason}"
        );
        let reason = answer(&format!(r#"{{"state":{unknown}}}"#), None).unwrap_err();
        assert_eq!(
            errors(&reason),
            [("move", "Missing data for required field.")]
        );
        // The JSON before anything else: a fault anywhere, a key twice, no object.
        for (item, says) in [
            (
                format!(r#"{{"state":{state},"move":"e4","extra":1e999}}"#),
                "number out of range",
            ),
            (format!(r#"{{"state":{state},"move":"e4""#), "EOF"),
            (
                format!(r#"{{"state":{state},"state":{state},"move":"e4"}}"#),
                "duplicate key at state",
            ),
        ] {
            let reason = answer(&item, None).unwrap_err();
            assert_eq!(reason["code"], "malformed-json", "{item}");
            assert!(
                reason["detail"].as_str().unwrap().contains(says),
                "{reason}"
            );
        }
        let reason = answer(r#"[1, 2]"#, None).unwrap_err();
        assert_eq!(errors(&reason), [("item", "not a JSON object")]);
    }

    /// A fault of the JSON inside the state is told alike with keys (the state kept as text for the
    /// seal check) and without (the state read by the game's reader as the item is); any other
    /// fault is the state's without keys and the seal's with them (a changed state breaks it).
    #[test]
    fn a_fault_inside_the_state_is_told_alike_with_and_without_keys() {
        let keys = Arc::new(crate::keys::tests::keys(crate::keys::tests::K1));
        let state = start();
        let cases = [
            (
                state.replacen("false", "1e999", 1),
                "malformed-json",
                "malformed-json",
            ),
            (
                state.replacen("\"black\"", "\"\\ud800\"", 1),
                "malformed-json",
                "malformed-json",
            ),
            (
                state.replacen("{", "{\"bogus\":1,", 1),
                "invalid-state",
                "invalid-seal",
            ),
            (
                state.replacen("\"black\"", "7", 1),
                "invalid-state",
                "invalid-seal",
            ),
            (
                state.replacen("iago@1", "iago@9", 1),
                "invalid-state",
                "invalid-seal",
            ),
        ];
        for (state, without, with) in cases {
            let item = format!(r#"{{"state":{state},"move":"e4"}}"#);
            for (keys, code) in [(None, without), (Some(&keys), with)] {
                let reason = answer(&item, keys).unwrap_err();
                assert_eq!(reason["code"], code, "{item} {reason}");
            }
        }
    }

    #[test]
    fn with_keys_the_seal_is_checked_and_a_bad_one_fails_its_item_alone() {
        let keys =
            Arc::new(SealKeys::parse("k1:c2VhbC1zZWNyZXQtb25lLXNlYWwtc2VjcmV0LW9uZS0").unwrap());
        let setup = Iago::check_setup(serde_json::from_str("{}").unwrap()).unwrap();
        let position = Iago::start(&setup, None, None);
        let stamped = seal::stamp::<Iago>(&position, Some(&*keys), None);
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
        assert_eq!(
            answer(&items[1], Some(&keys)).unwrap(),
            "Object e4 Some(\"black\") None"
        );
        let notation = format!(
            r#"{{"state":"{}","move":"e4"}}"#,
            Iago::position_text(&position)
        );
        let refused = answer(&notation, Some(&keys));
        assert!(matches!(refused, Err(reason) if reason["code"] == "invalid-seal"));
        let array = format!("[{}]", items.join(","));
        let results = validate_array::<Iago>(array.as_bytes(), &engine(Some(&keys)), true, 10)
            .unwrap()
            .into_vec();
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
        let results = validate_array::<Iago>(array.as_bytes(), &engine(None), true, 10)
            .unwrap()
            .into_vec();
        let results: Vec<Value> = serde_json::from_slice(&results).unwrap();
        assert_eq!(results[2]["error"]["code"], "invalid-state");
        assert_eq!(results[3]["legal"], true);
        assert!(results[0]["state"].get("seal").is_none());
    }

    /// A key given twice is refused by its path (`json::fault`'s words), in every object of states of
    /// every game, early to late, with keys (sealed) and without: `take_item` scans only what the
    /// readers refuse, so this holds only while every reader refuses a key given twice itself.
    #[test]
    fn a_key_given_twice_in_any_object_is_refused_by_its_path() {
        fn check<G: Rules>(keys: Option<&Arc<SealKeys>>) {
            let engine = Engine::<G>::new(crate::game::default_setup::<G>(), keys.cloned());
            let chance_keys = crate::keys::chance_of::<G>(keys.map(|keys| &**keys));
            for seed in 0..2 {
                let mut position = G::start(engine.setup(), Some(seed), chance_keys);
                let mut chance = crate::chance::Chance::from_seed(seed, None);
                for ply in 0.. {
                    let moves = G::legal_moves(&position);
                    if ply % 11 == 0 || moves.is_empty() {
                        let state = seal::stamp::<G>(&position, keys.map(|keys| &**keys), None);
                        let mv = moves.first().map_or("pass".into(), ToString::to_string);
                        let player = G::to_move(&position).unwrap_or("nobody");
                        let secret = "s".repeat(MIN_SECRET_CHARS);
                        let body = serde_json::json!({"state": state, "move": mv, "player": player, "secret": secret});
                        refuses_every_key_twice::<G>(&body, &engine);
                    }
                    let Some(mv) = moves.get(chance.below(moves.len().max(1) as u32) as usize)
                    else {
                        break;
                    };
                    position = G::play(&position, mv.clone()).unwrap().0;
                }
            }
        }
        let keys = Arc::new(crate::keys::tests::keys(crate::keys::tests::K1));
        for (_, kind) in crate::registry::GAMES {
            for keys in [None, Some(&keys)] {
                crate::with_game!(kind, G => check::<G>(keys));
            }
        }
    }

    /// `body` is taken whole, and with any one of its keys, in any object, given again at the end of
    /// its object (same value: a reader keeping either would read the same item) refused as the scan
    /// words it.
    fn refuses_every_key_twice<G: Rules>(body: &Value, engine: &Engine<G>) {
        let (text, keys) = with_key_twice(body, usize::MAX);
        assert!(keys > 4, "{text}");
        assert!(
            matches!(take_item::<G>(&text, "body", engine), Taken::Item(..)),
            "{text}"
        );
        for key in 0..keys {
            let (twice, _) = with_key_twice(body, key);
            let fault = crate::json::fault(&twice).expect("a key twice");
            assert!(fault.starts_with("duplicate key at "), "{fault}");
            match take_item::<G>(&twice, "body", engine) {
                Taken::NotJson(detail) => assert_eq!(detail, fault, "{}", G::NAME),
                _ => panic!("{}: {twice} taken, or refused otherwise", G::NAME),
            }
        }
    }

    /// The JSON text of `value` with its `target`th key (depth first, every key of every object
    /// counted) given again at the end of its object, and how many keys `value` has.
    fn with_key_twice(value: &Value, target: usize) -> (String, usize) {
        fn write(value: &Value, target: usize, keys: &mut usize, out: &mut String) {
            match value {
                Value::Object(map) => {
                    let mut again = None;
                    out.push('{');
                    for (index, (key, value)) in map.iter().enumerate() {
                        if *keys == target {
                            again = Some((key, value));
                        }
                        *keys += 1;
                        out.push_str(if index == 0 { "" } else { "," });
                        out.push_str(&format!("{}:", Value::from(key.as_str())));
                        write(value, target, keys, out);
                    }
                    if let Some((key, value)) = again {
                        out.push_str(&format!(",{}:{value}", Value::from(key.as_str())));
                    }
                    out.push('}');
                }
                Value::Array(items) => {
                    out.push('[');
                    for (index, item) in items.iter().enumerate() {
                        out.push_str(if index == 0 { "" } else { "," });
                        write(item, target, keys, out);
                    }
                    out.push(']');
                }
                other => out.push_str(&other.to_string()),
            }
        }
        let (mut out, mut keys) = (String::new(), 0);
        write(value, target, &mut keys, &mut out);
        (out, keys)
    }
}
