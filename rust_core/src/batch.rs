//! Batches as JSON text: many (state, move) items validated, or many game records replayed, in parallel.
//!
//! Input and output stay JSON bytes, so that a batch crosses the Python boundary once as one buffer and
//! the parsing runs in parallel with the rules (converting Python objects needs the GIL; bytes do not).
//! Item envelopes are checked here exactly as the service's marshmallow `BatchItem` schema checks them
//! (same fields, same messages); a test holds the two together.

use std::fmt::Write as _;
use std::io::Write as _;

use rayon::prelude::*;

use serde::de::{DeserializeOwned, Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};

use crate::error::Error;
use crate::game::{self, Form, Played, Rules, StateIn, Verdict};
use crate::registry::GameKind;
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
    pub setup: &'a G::Setup,
    pub keys: Option<&'a SealKeys>,
}

impl<G: Rules> Clone for Reader<'_, G> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<G: Rules> Copy for Reader<'_, G> {}

/// A line of NDJSON input that is not JSON: the batch stops there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MalformedLine {
    /// 1-based line number within the input given.
    pub line: usize,
    pub detail: String,
}

/// The results of the lines before the first malformed one (all of them when none is), as NDJSON.
#[derive(Debug, Default)]
pub struct Output {
    pub ndjson: Vec<u8>,
    pub items: usize,
    pub malformed: Option<MalformedLine>,
}

/// The non-blank lines of NDJSON input with their 1-based line numbers.
fn lines(data: &[u8]) -> Vec<(usize, &[u8])> {
    data.split(|&byte| byte == b'\n')
        .enumerate()
        .map(|(index, line)| (index + 1, line.strip_suffix(b"\r").unwrap_or(line)))
        .filter(|(_, line)| !line.iter().all(u8::is_ascii_whitespace))
        .collect()
}

/// Validates NDJSON items (`{"state", "move", "player"?}` a line), one result a line in input order,
/// each with its `index` (counted from `first_index`). A bad item gets an error result and never fails
/// its neighbours; a line that is not JSON stops the batch there. With `keys`, every state must carry
/// a valid seal and every next state is sealed.
pub fn validate_lines<G: Rules>(
    data: &[u8],
    reader: Reader<G>,
    with_state: bool,
    first_index: usize,
) -> Output {
    let lines = lines(data);
    let chunks: Vec<(Vec<u8>, usize, Option<MalformedLine>)> = lines
        .par_chunks(ITEMS_PER_TASK)
        .enumerate()
        .map(|(task, chunk)| {
            let mut out = Vec::with_capacity(chunk.len() * RESULT_BYTES);
            for (offset, &(line, text)) in chunk.iter().enumerate() {
                let index = first_index + task * ITEMS_PER_TASK + offset;
                let written = std::str::from_utf8(text)
                    .map_err(|e| e.to_string())
                    .and_then(|text| write_result::<G>(&mut out, text, reader, index, with_state));
                if let Err(detail) = written {
                    return (out, offset, Some(MalformedLine { line, detail }));
                }
                out.push(b'\n');
            }
            (out, chunk.len(), None)
        })
        .collect();
    let mut output = Output::default();
    for (bytes, items, malformed) in chunks {
        output.ndjson.extend_from_slice(&bytes);
        output.items += items;
        if malformed.is_some() {
            output.malformed = malformed;
            break;
        }
    }
    output
}

/// Items judged by one parallel task: enough that a task's own buffer replaces a buffer per item.
const ITEMS_PER_TASK: usize = 256;
/// Room for a typical result (`{"index":12345,"legal":false,"reason":{...}}`).
const RESULT_BYTES: usize = 160;

/// Validates a JSON array of at most `max_items` items; the results as a JSON array in input order,
/// and their count. `Err` says why when the input is not such an array. `keys` as `validate_lines`.
pub fn validate_array<G: Rules>(
    data: &[u8],
    reader: Reader<G>,
    with_state: bool,
    max_items: usize,
) -> Result<(Vec<u8>, usize), Value> {
    let not_json = |detail: String| malformed_json(format!("the body is not valid JSON: {detail}"));
    let text = std::str::from_utf8(data).map_err(|e| not_json(e.to_string()))?;
    let items = array_items(text).map_err(|detail| match json_error(text) {
        Some(syntax) => not_json(syntax),
        None => malformed_request(&[(
            "body".into(),
            format!("not a JSON array of items: {detail}"),
        )]),
    })?;
    if items.len() > max_items {
        let message = format!("more than {max_items} items");
        let detail = format!(
            "a batch has at most {max_items} items, this one has {}",
            items.len()
        );
        return Err(malformed_request_detail(
            &[("body".into(), message)],
            detail,
        ));
    }
    let chunks: Vec<Vec<u8>> = items
        .par_chunks(ITEMS_PER_TASK)
        .enumerate()
        .map(|(task, chunk)| {
            let mut out = Vec::with_capacity(chunk.len() * RESULT_BYTES);
            for (offset, item) in chunk.iter().enumerate() {
                let index = task * ITEMS_PER_TASK + offset;
                if index > 0 {
                    out.push(b',');
                }
                write_result::<G>(&mut out, item, reader, index, with_state)
                    .map_err(|detail| not_json(format!("item {index}: {detail}")))?;
            }
            Ok(out)
        })
        .collect::<Result<_, Value>>()?;
    let mut out = Vec::with_capacity(chunks.iter().map(Vec::len).sum::<usize>() + 2);
    out.push(b'[');
    for chunk in &chunks {
        out.extend_from_slice(chunk);
    }
    out.push(b']');
    Ok((out, items.len()))
}

/// The items of a JSON array, as text. One pass finds where each item ends by following strings and
/// nesting only; whether each item is JSON is checked as it is parsed, in parallel. (Parsing the whole
/// array first would run on one core ahead of the parallel work, a fifth of a large batch's time.)
/// The array is JSON exactly when every item is: items are what lies between its top-level commas.
///
/// A large array's second half is scanned on another core from a likely boundary between items
/// (`},{` past the middle); that scan is kept only if the first half's scan reaches the same comma
/// outside every string and nesting, where the two scans are the one pass in two parts. Otherwise
/// the first scan goes on to the end alone.
fn array_items(text: &str) -> Result<Vec<&str>, String> {
    let body = text.trim_start_matches(WHITESPACE);
    let at = text.len() - body.len();
    if !body.starts_with('[') {
        return Err(format!("expected `[` at byte {at}"));
    }
    let middle = text.len() / 2;
    let split = (text.len() >= SPLIT_SCAN_BYTES)
        .then(|| {
            text.as_bytes()[middle..]
                .windows(3)
                .position(|w| w == b"},{")
        })
        .flatten()
        .map(|offset| middle + offset + 1);
    let Some(comma) = split else {
        return scan_items(text, at + 1, None, true).map(|(items, _)| items);
    };
    let (first, second) = rayon::join(
        || scan_items(text, at + 1, Some(comma), true),
        || scan_items(text, comma + 1, None, false),
    );
    match first? {
        (mut items, true) => {
            items.extend(second?.0);
            Ok(items)
        }
        (items, false) => Ok(items),
    }
}

/// JSON's whitespace.
const WHITESPACE: &[char] = &[' ', '\t', '\n', '\r'];

/// Arrays of this many bytes or more are scanned in two halves at once.
const SPLIT_SCAN_BYTES: usize = 1 << 20;

/// `array_items`' pass from byte `at`, outside any string or nesting, just after the array's `[`
/// (`first`) or after a top-level comma: the items to the end of the array, or (and `true`) those
/// up to the top-level comma at byte `stop` when the pass meets it.
fn scan_items(
    text: &str,
    mut at: usize,
    stop: Option<usize>,
    first: bool,
) -> Result<(Vec<&str>, bool), String> {
    let bytes = text.as_bytes();
    let mut items = Vec::new();
    let (mut start, mut depth) = (at, 0usize);
    while at < bytes.len() {
        match bytes[at] {
            b'"' => {
                at += 1;
                while at < bytes.len() && bytes[at] != b'"' {
                    at += if bytes[at] == b'\\' { 2 } else { 1 };
                }
            }
            b'[' | b'{' => depth += 1,
            b']' | b'}' if depth > 0 => depth -= 1,
            b',' | b']' if depth == 0 => {
                let item = text[start..at].trim_matches(WHITESPACE);
                let last = bytes[at] == b']';
                if item.is_empty() && !(last && first && items.is_empty()) {
                    return Err(format!("expected a value before byte {at}"));
                }
                if !item.is_empty() {
                    items.push(item);
                }
                if last {
                    let rest = text[at + 1..].trim_matches(WHITESPACE);
                    return match rest.is_empty() {
                        true => Ok((items, false)),
                        false => Err(format!("trailing characters after byte {at}")),
                    };
                }
                if stop == Some(at) {
                    return Ok((items, true));
                }
                start = at + 1;
            }
            b'}' => return Err(format!("unexpected `}}` at byte {at}")),
            _ => {}
        }
        at += 1;
    }
    Err("the array does not end".to_owned())
}

/// The verdict on one `(state, move, player)`: `{"legal": true}` or `{"legal": false, "reason": ...}`;
/// `Err` for a player the game does not have.
pub fn judge<G: Rules>(
    position: &G::Position,
    mv: &str,
    player: Option<&str>,
) -> Result<Value, Error> {
    game::validate::<G>(position, mv, player)
        .map(|verdict| verdict_json::<G>(verdict, None, None, None))
}

/// A verdict as JSON, with the next state in `form` (sealed with `keys`) when a form is given;
/// `mover`: the player to move before the move (whose view an opaque answer carries).
fn verdict_json<G: Rules>(
    verdict: Verdict<G::Position, G::Effects>,
    form: Option<Form>,
    keys: Option<&SealKeys>,
    mover: Option<&str>,
) -> Value {
    match (verdict, form) {
        (Verdict::Legal { position, effects }, Some(form)) => {
            let mut result = json!(Played::<G>::in_form(&position, effects, form, keys, mover));
            result["legal"] = Value::Bool(true);
            result
        }
        (Verdict::Legal { .. }, None) => json!({ "legal": true }),
        (Verdict::Illegal(error), _) => json!({ "legal": false, "reason": error.reason() }),
    }
}

/// The fields of an item envelope, each still raw JSON, and the names of any others.
#[derive(Default)]
struct Envelope<'a> {
    state: Option<&'a RawValue>,
    mv: Option<&'a RawValue>,
    player: Option<&'a RawValue>,
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
                        other => envelope.unknown.push(other.to_owned()),
                    }
                }
                Ok(envelope)
            }
        }
        deserializer.deserialize_map(EnvelopeVisitor)
    }
}

/// A JSON string of 1..=`max` characters, or the schema's message about it.
fn text_field(raw: &RawValue, max: usize) -> Result<String, String> {
    let text: String =
        serde_json::from_str(raw.get()).map_err(|_| "Not a valid string.".to_owned())?;
    if fits(&text, max) {
        Ok(text)
    } else {
        Err(format!("Length must be between 1 and {max}."))
    }
}

/// An item or request body taken apart.
#[derive(Debug, PartialEq)]
enum Taken<P> {
    /// The checked position (and the form its state came in), the move, the player.
    Item((P, Form), String, Option<String>),
    /// Why there is no item: a `malformed-request` about the envelope, or the state's error.
    Refused(Value),
    /// Not JSON at all; why.
    NotJson(String),
}

/// Takes an item (or a request body, as `whole` names it in errors) apart. An item in the usual good
/// shape is parsed in one pass (`quick_item`); any other takes the exact path, which finds what is
/// wrong (the envelope first, then the state). A test holds the two paths to the same answers.
/// With `keys`, the state's seal is checked before anything else about the state.
/// A state held by one player (see `opaque`) acts only on its holder's turn: else `not-your-state`.
fn take_item<G: Rules>(item: &str, whole: &str, reader: Reader<G>) -> Taken<G::Position> {
    let quick = match reader.keys {
        None => quick_item::<G>(item, reader.setup),
        Some(keys) => quick_sealed_item::<G>(item, keys),
    };
    match quick.unwrap_or_else(|| exact_item::<G>(item, whole, reader)) {
        Taken::Item((position, form), mv, player) => match form.act_as_mover::<G>(&position) {
            Ok(()) => Taken::Item((position, form), mv, player),
            Err(refusal) => Taken::Refused(refusal.reason()),
        },
        taken => taken,
    }
}

/// An item in the usual good shape, its state parsed straight into the game's type (any `seal`
/// ignored) or read from its position string; `None` for any other item.
fn quick_item<G: Rules>(item: &str, setup: &G::Setup) -> Option<Taken<G::Position>> {
    let mut json = serde_json::Deserializer::from_str(item);
    let good: GoodItem<StateIn<Unsealed<G::State>>> = crate::strict::object(&mut json).ok()?;
    json.end().ok()?;
    if !envelope_fits(&good.mv, good.player.as_deref()) {
        return None;
    }
    let position = match good.state {
        StateIn::Object(state) => state
            .into_state()
            .and_then(G::from_state)
            .map(|p| (p, Form::Object)),
        StateIn::Notation(text) => G::parse_position(&text, setup).map(|p| (p, Form::Notation)),
    };
    Some(taken(position, good.mv, good.player))
}

/// `quick_item` with keys: the state's text goes to the seal check.
fn quick_sealed_item<G: Rules>(item: &str, keys: &SealKeys) -> Option<Taken<G::Position>> {
    // An object only: serde's derive would also take the envelope's fields from an array.
    if !item.trim_start().starts_with('{') {
        return None;
    }
    let good = serde_json::from_str::<GoodSealedItem>(item).ok()?;
    if !good.state.get().starts_with('{') || !envelope_fits(&good.mv, good.player.as_deref()) {
        return None;
    }
    let position = seal::read_object::<G>(good.state.get(), Some(keys));
    Some(taken(position, good.mv, good.player))
}

fn taken<P>(position: Result<(P, Form), Error>, mv: String, player: Option<String>) -> Taken<P> {
    match position {
        Ok(position) => Taken::Item(position, mv, player),
        Err(error) => Taken::Refused(error.reason()),
    }
}

fn envelope_fits(mv: &str, player: Option<&str>) -> bool {
    fits(mv, MAX_MOVE_CHARS) && player.is_none_or(|p| fits(p, MAX_PLAYER_CHARS))
}

/// Any item: its JSON checked whole (so that a fault of the JSON is one everywhere in the item, as
/// on routes that parse the whole body first), then the envelope field by field, then the state.
fn exact_item<G: Rules>(item: &str, whole: &str, reader: Reader<G>) -> Taken<G::Position> {
    if let Some(detail) = json_error(item) {
        return Taken::NotJson(detail);
    }
    match open_item(item, whole) {
        Opened::Refused(reason) => Taken::Refused(reason),
        Opened::Item(state, mv, player) => taken(parse_state::<G>(state, reader), mv, player),
    }
}

/// An item in the usual good shape: exactly these fields, the state a JSON object of the game's state.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, bound = "S: DeserializeOwned")]
struct GoodItem<S> {
    state: S,
    #[serde(rename = "move")]
    mv: String,
    #[serde(default)]
    player: Option<String>,
}

/// `GoodItem` for engines with keys: the state's text, for the seal check.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GoodSealedItem<'a> {
    #[serde(borrow)]
    state: &'a RawValue,
    #[serde(rename = "move")]
    mv: String,
    #[serde(default)]
    player: Option<String>,
}

/// Whether a text has 1..=`max` characters, as the schemas count them.
fn fits(text: &str, max: usize) -> bool {
    (1..=max).contains(&text.chars().count())
}

/// What the envelope check makes of one item.
enum Opened<'a> {
    /// The state's JSON text, the move, the player.
    Item(&'a str, String, Option<String>),
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
    let mv = match envelope.mv.map(|raw| text_field(raw, MAX_MOVE_CHARS)) {
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
    let player = match envelope.player {
        Some(raw) if raw.get() != "null" => match text_field(raw, MAX_PLAYER_CHARS) {
            Ok(player) => Some(player),
            Err(message) => {
                errors.push(("player".into(), message));
                None
            }
        },
        _ => None,
    };
    for field in envelope.unknown {
        errors.push((field, "Unknown field.".into()));
    }
    match (state, mv) {
        (Some(state), Some(mv)) if errors.is_empty() => Opened::Item(state, mv, player),
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

fn malformed_json(detail: String) -> Value {
    json!({ "code": "malformed-json", "detail": detail })
}

fn malformed_request(errors: &[(String, String)]) -> Value {
    let mut detail = String::new();
    for (index, (field, message)) in errors.iter().enumerate() {
        let separator = if index == 0 { "" } else { "; " };
        let _ = write!(detail, "{separator}{field}: {message}");
    }
    malformed_request_detail(errors, detail)
}

fn malformed_request_detail(errors: &[(String, String)], detail: String) -> Value {
    let errors: Vec<Value> = errors
        .iter()
        .map(|(field, message)| json!({ "field": field, "message": message }))
        .collect();
    json!({ "code": "malformed-request", "detail": detail, "errors": errors })
}

/// A single `play` or `validate` request body, `{"state", "move", "player"?}` (a batch item's
/// envelope), answered as JSON bytes: for `play` the next state with its effects and outcome, for
/// `validate` the verdict. `Err` is the reason there is no answer: `malformed-json`,
/// `malformed-request`, the state's error (`invalid-seal` first, with `keys`), or (`play` only) the
/// move's. With `keys`, the next state is sealed.
pub fn answer_request<G: Rules>(
    body: &[u8],
    reader: Reader<G>,
    play: bool,
) -> Result<Vec<u8>, Value> {
    let not_json = |detail: String| malformed_json(format!("the body is not valid JSON: {detail}"));
    let body = std::str::from_utf8(body).map_err(|e| not_json(e.to_string()))?;
    let ((position, form), mv, player) = match take_item::<G>(body, "body", reader) {
        Taken::Item(position, mv, player) => (position, mv, player),
        Taken::Refused(reason) => return Err(reason),
        Taken::NotJson(detail) => return Err(not_json(detail)),
    };
    let answer = if play {
        let (next, effects) =
            game::play_text::<G>(&position, &mv, player.as_deref()).map_err(|e| e.reason())?;
        let mover = G::to_move(&position);
        serde_json::to_vec(&Played::<G>::in_form(
            &next,
            effects,
            form,
            reader.keys,
            mover,
        ))
    } else {
        serde_json::to_vec(&judge::<G>(&position, &mv, player.as_deref()).map_err(|e| e.reason())?)
    };
    Ok(answer.expect("an answer serializes"))
}

/// Writes one item's result as JSON, `index` first; `Err` (with nothing written) says why the item is
/// not JSON.
fn write_result<G: Rules>(
    out: &mut Vec<u8>,
    item: &str,
    reader: Reader<G>,
    index: usize,
    with_state: bool,
) -> Result<(), String> {
    let verdict = match take_item::<G>(item, "item", reader) {
        Taken::NotJson(detail) => return Err(detail),
        Taken::Refused(reason) => json!({ "error": reason }),
        Taken::Item((position, form), mv, player) => {
            match game::validate::<G>(&position, &mv, player.as_deref()) {
                // The common answer, written without building a JSON value.
                Ok(Verdict::Legal { .. }) if !with_state => {
                    let _ = write!(out, "{{\"index\":{index},\"legal\":true}}");
                    return Ok(());
                }
                Ok(verdict) => {
                    let mover = G::to_move(&position);
                    verdict_json::<G>(verdict, with_state.then_some(form), reader.keys, mover)
                }
                Err(error) => json!({ "error": error.reason() }),
            }
        }
    };
    let _ = write!(out, "{{\"index\":{index},");
    let start = out.len();
    serde_json::to_writer(&mut *out, &verdict).expect("a JSON value serializes");
    out.remove(start); // the verdict's own `{`: its fields follow the index
    Ok(())
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
            let mut summary = game::replay::<G, _>(&setup, record.seed, &record.moves)
                .summary(&record.moves, None);
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
    use crate::iago::Iago;

    fn setup() -> &'static <Iago as Rules>::Setup {
        static SETUP: std::sync::OnceLock<<Iago as Rules>::Setup> = std::sync::OnceLock::new();
        SETUP.get_or_init(game::default_setup::<Iago>)
    }

    /// The reader of an engine of the default setup, with `keys` or none.
    fn reader(keys: Option<&SealKeys>) -> Reader<'_, Iago> {
        Reader {
            setup: setup(),
            keys,
        }
    }

    fn start() -> String {
        let position = Iago::start(setup(), None);
        serde_json::to_string(&Iago::to_state(&position)).unwrap()
    }

    fn ndjson_values(ndjson: &[u8]) -> Vec<Value> {
        ndjson
            .split(|&b| b == b'\n')
            .filter(|line| !line.is_empty())
            .map(|line| serde_json::from_slice(line).unwrap())
            .collect()
    }

    #[test]
    fn lines_keep_order_and_stop_at_a_malformed_line() {
        let state = start();
        let input = format!(
            "{{\"state\":{state},\"move\":\"e4\"}}\n\n{{\"state\":{state},\"move\":\"e5\"}}\n{{\"move\":7}}\nnot json\n{{\"state\":{state},\"move\":\"e5\"}}\n"
        );
        let output = validate_lines::<Iago>(input.as_bytes(), reader(None), false, 10);
        let results = ndjson_values(&output.ndjson);
        assert_eq!(output.items, 3);
        assert_eq!(results[0]["index"], 10);
        assert_eq!(results[0]["legal"], true);
        assert_eq!(results[1]["legal"], false);
        assert_eq!(results[1]["reason"]["code"], "illegal-move");
        assert_eq!(results[2]["error"]["code"], "malformed-request");
        let fields: Vec<&str> = results[2]["error"]["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["field"].as_str().unwrap())
            .collect();
        assert_eq!(fields, ["state", "move"]);
        assert_eq!(output.malformed.as_ref().map(|m| m.line), Some(5));
    }

    #[test]
    fn an_array_gives_an_array_in_order() {
        let state = start();
        let input = format!(
            "[{{\"state\":{state},\"move\":\"e4\"}}, 3, {{\"state\":{{}},\"move\":\"e5\"}}]"
        );
        let results: Vec<Value> = serde_json::from_slice(
            &validate_array::<Iago>(input.as_bytes(), reader(None), true, 3)
                .unwrap()
                .0,
        )
        .unwrap();
        assert_eq!(results.len(), 3);
        assert_eq!(results[0]["legal"], true);
        assert!(results[0]["state"].is_object());
        assert_eq!(results[1]["error"]["errors"][0]["field"], "item");
        assert_eq!(results[2]["error"]["code"], "invalid-state");
        assert!(validate_array::<Iago>(b"{}", reader(None), false, 3).is_err());
        assert!(validate_array::<Iago>(input.as_bytes(), reader(None), false, 2).is_err());
    }

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
            assert_eq!(
                take_item::<Iago>(item, "item", reader(None)),
                exact,
                "{item}"
            );
        }
        assert_eq!(quick, 6, "the good shapes take the quick path");
        let refused = exact_item::<Iago>(&items[10], "item", reader(None));
        assert!(
            matches!(refused, Taken::Refused(reason) if reason["errors"][0]["message"] == STATE_TYPE_MESSAGE)
        );
    }

    #[test]
    fn with_keys_both_paths_check_the_seal_and_a_bad_one_fails_its_item_alone() {
        let keys = SealKeys::parse("k1:c2VhbC1zZWNyZXQtb25lLXNlYWwtc2VjcmV0LW9uZS0").unwrap();
        let setup = Iago::check_setup(serde_json::from_str("{}").unwrap()).unwrap();
        let stamped = seal::stamp::<Iago>(Iago::to_state(&Iago::start(&setup, None)), Some(&keys));
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

    #[test]
    fn array_items_follow_strings_and_nesting() {
        assert_eq!(array_items(" [ ] ").unwrap(), Vec::<&str>::new());
        assert_eq!(
            array_items(r#"[ {"a": "x,]\"}"} , [1,[2]] ,3]"#).unwrap(),
            [r#"{"a": "x,]\"}"}"#, "[1,[2]]", "3"]
        );
        for bad in ["", "{}", "[", "[1,]", "[,1]", "[1] x", "[1}", r#"["abc]"#] {
            assert!(array_items(bad).is_err(), "{bad}");
        }
        // Items are cut at top-level commas only; each is parsed later, which finds `[1 2]` is no JSON.
        assert_eq!(array_items("[1 2]").unwrap(), ["1 2"]);
        let refused = validate_array::<Iago>(b"[1 2]", reader(None), false, 10).unwrap_err();
        assert_eq!(refused["code"], "malformed-json");
        assert!(refused["detail"].as_str().unwrap().contains("item 0"));
        // JSON that is no array is a malformed request; text that is no JSON, malformed JSON.
        let refused = validate_array::<Iago>(b"{}", reader(None), false, 10).unwrap_err();
        assert_eq!(refused["code"], "malformed-request");
        assert_eq!(refused["errors"][0]["field"], "body");
        let refused = validate_array::<Iago>(b"{bad", reader(None), false, 10).unwrap_err();
        assert_eq!(refused["code"], "malformed-json");
    }

    #[test]
    fn a_large_array_scanned_in_two_halves_gives_the_one_pass_answer() {
        let item = r#"{"a":[{"b":1},{"c":"x},{y"}],"d":"\"},{"}"#;
        let count = SPLIT_SCAN_BYTES / item.len() + 2;
        let items = vec![item; count];
        let good = format!("[{}]", items.join(","));
        fn one_pass(text: &str) -> Result<Vec<&str>, String> {
            scan_items(text, 1, None, true).map(|(items, _)| items)
        }
        assert_eq!(array_items(&good).unwrap().len(), count);
        assert_eq!(array_items(&good), one_pass(&good));
        // Faults in the second half, and a `},{` in a string or in nesting at the middle.
        let middle = good.len() / 2;
        let mut cases = vec![
            format!("{},]", &good[..good.len() - 1]),
            format!("{}] x", &good[..good.len() - 1]),
            good[..good.len() - 1].to_owned(),
            format!("{},,{}", &good[..middle], &good[middle..]),
        ];
        for inner in [r#""},{""#, r#"[{},{}]"#] {
            let head = vec![item; count / 2].join(",");
            cases.push(format!("[{head},{inner},{}]", items[..count / 2].join(",")));
        }
        for case in &cases {
            assert_eq!(
                array_items(case),
                one_pass(case),
                "{}",
                &case[case.len() - 40..]
            );
        }
        assert!(array_items(&cases[0]).is_err());
        assert!(array_items(&cases[4]).is_ok());
    }

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
