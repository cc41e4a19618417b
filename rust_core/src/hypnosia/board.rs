//! The Hypnosia board as data: a client's board description (JSON) is checked field by field and
//! compiled once into flat tables (where `n` steps along a circle lead, where each bridge leads).
//!
//! Spaces are numbered globally, circle by circle from the outermost, so that the order of space ids
//! is the order of `(circle, index)`. Also here: the colours and their letters, and the location
//! codes of pawns.

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};

use crate::error::{Error, Result};

pub const SEATS: usize = 6;
/// Pawns per player, one per home square.
pub const PAWNS: usize = 4;
/// Centre spaces, one per entry of `centre_points`.
pub const CENTRE_SPACES: usize = 5;
const MAX_CIRCLES: usize = 8;
const MAX_CIRCLE_LENGTH: u64 = 360;
/// The longest die move: a die shows at most 6.
const MAX_STEPS: usize = 6;

/// What the bridge on a space leads to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bridge {
    None,
    Space(u16),
    Centre,
}

/// A checked board, compiled into the tables move generation uses.
#[derive(Debug, Clone, PartialEq)]
pub struct Board {
    lengths: Vec<u16>,
    offsets: Vec<u16>,
    /// Outer-circle index where each seat's start track joins.
    entries: [u16; SEATS],
    /// For each space, its bridge.
    bridges: Vec<Bridge>,
    /// For each space, `(circle, index)`.
    coords: Vec<(u8, u16)>,
    /// `steps[space * 7 + n]`: the space `n` steps further along the same circle.
    steps: Vec<u16>,
    pub centre_points: [i32; CENTRE_SPACES],
    /// The canonical description (bridges sorted by their `from` space), as states carry it.
    description: Description,
}

/// A board description as a setup or a state carries it: compact JSON text, shared by every state of
/// its games. (As a tree of JSON values, a board of 2,880 spaces took 2.4 MB, its text 90 KB.)
#[derive(Debug, Clone)]
pub struct Description(Arc<RawValue>);

impl Description {
    fn of(value: &Value) -> Description {
        let text = serde_json::value::to_raw_value(value).expect("a JSON value serializes");
        Description(Arc::from(text))
    }

    /// The description as JSON values, for the board's check (`Board::from_description`). Its text
    /// is checked here, where a board is compiled (a description compiled before is found by its
    /// text, see `Setup::compiled`): JSON in full, as it was skipped over unread, and no key given
    /// twice, as every reader of a request refuses one. The fault is worded within the description;
    /// a request's reader words it again within the request (see `request::take_item`).
    pub fn value(&self) -> Result<Value> {
        if let Some(fault) = crate::json::fault(self.text()) {
            return Err(Error::malformed_json(fault));
        }
        serde_json::from_str(self.text()).map_err(Error::not_json)
    }

    /// Its JSON text.
    pub fn text(&self) -> &str {
        self.0.get()
    }

    /// Bytes it holds.
    pub fn heap_bytes(&self) -> usize {
        self.0.get().len()
    }
}

impl PartialEq for Description {
    fn eq(&self, other: &Self) -> bool {
        self.0.get() == other.0.get()
    }
}

impl Serialize for Description {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

/// Read from JSON text only (a description in Python objects is written as JSON text first), kept
/// as it is: `value` checks it.
impl<'de> Deserialize<'de> for Description {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Box::<RawValue>::deserialize(deserializer).map(|text| Description(Arc::from(text)))
    }
}

/// The schema of a board description (what `Board::from_description` checks, as far as a schema can
/// say it; the rest, such as one bridge per space and a bridge on every circle, only the check says).
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    rename = "HypnosiaBoard",
    description = "A board description. Checked field by field; a fault is a 422 `invalid-board` naming the field. Circles are closed loops numbered in the direction pawns move; a bridge goes exactly one circle inward (or to the centre from the innermost circle); at most one bridge per space; every circle has a bridge."
)]
#[allow(dead_code)] // a schema only: the engine reads a description as JSON (`from_description`)
pub(super) struct BoardSchema {
    /// The lengths of the circles, outermost first.
    #[schemars(length(min = 1, max = MAX_CIRCLES), inner(range(min = 1, max = MAX_CIRCLE_LENGTH)))]
    circles: Vec<u64>,
    /// For each of the 6 seats, the outer-circle space where its start track joins.
    #[schemars(length(equal = SEATS), inner(range(max = MAX_CIRCLE_LENGTH - 1)))]
    entries: Vec<u64>,
    bridges: Vec<BridgeSchema>,
    /// Points of the 1st..5th pawn to enter the centre.
    #[schemars(length(equal = CENTRE_SPACES))]
    centre_points: Vec<i32>,
    #[schemars(extend("const" = PAWNS))]
    home_length: u64,
}

/// A bridge: from a space to a space one circle inward, or to the centre.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "HypnosiaBridge")]
#[allow(dead_code)] // a schema only
struct BridgeSchema {
    from: SpaceSchema,
    #[schemars(with = "BridgeTargetSchema")]
    to: (),
}

/// `[circle, index]`, circle 0 the outermost.
#[derive(JsonSchema)]
#[schemars(rename = "HypnosiaSpace")]
#[allow(dead_code)] // a schema only
struct SpaceSchema(#[schemars(length(equal = 2))] Vec<u64>);

/// Where a bridge leads: a space, or `"centre"`.
struct BridgeTargetSchema;

impl JsonSchema for BridgeTargetSchema {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        "HypnosiaBridgeTarget".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A space, or `centre`.",
            "anyOf": [
                generator.subschema_for::<SpaceSchema>(),
                {"type": "string", "enum": ["centre"]},
            ],
        })
    }
}

fn board_error(field: impl Into<String>, detail: impl Into<String>) -> Error {
    Error::InvalidBoard {
        field: field.into(),
        detail: detail.into(),
    }
}

/// The integer at `value`, in `range`, or an error naming `field`.
fn integer(value: &Value, field: &str, low: i64, high: i64) -> Result<i64> {
    match value.as_i64() {
        Some(n) if (low..=high).contains(&n) => Ok(n),
        Some(n) => Err(board_error(
            field,
            format!("{n} is out of range: it must be in {low}..{high}"),
        )),
        None => Err(board_error(field, format!("{value} is not an integer"))),
    }
}

fn list<'a>(value: &'a Value, field: &str) -> Result<&'a Vec<Value>> {
    value
        .as_array()
        .ok_or_else(|| board_error(field, format!("{value} is not a list")))
}

/// A `[circle, index]` pair with both in range of `lengths`.
fn space_pair(value: &Value, field: &str, lengths: &[u16]) -> Result<(usize, usize)> {
    let pair = list(value, field)?;
    if pair.len() != 2 {
        return Err(board_error(
            field,
            "a space is [circle, index]: a list of two integers",
        ));
    }
    let circle = integer(&pair[0], field, 0, lengths.len() as i64 - 1)? as usize;
    let index = integer(&pair[1], field, 0, i64::from(lengths[circle]) - 1)? as usize;
    Ok((circle, index))
}

/// The description as an object with no field but the five a board has.
fn description_object(description: &Value) -> Result<&Map<String, Value>> {
    let object = description
        .as_object()
        .ok_or_else(|| board_error("board", "a board description is a JSON object"))?;
    for key in object.keys() {
        if !matches!(
            key.as_str(),
            "circles" | "entries" | "bridges" | "centre_points" | "home_length"
        ) {
            return Err(board_error(
                format!("board.{key}"),
                format!("unknown field {key:?}: a board has circles, entries, bridges, centre_points and home_length"),
            ));
        }
    }
    Ok(object)
}

/// The field `key` of the description, which must be there.
fn required<'a>(object: &'a Map<String, Value>, key: &str) -> Result<&'a Value> {
    object
        .get(key)
        .ok_or_else(|| board_error(format!("board.{key}"), format!("{key} is missing")))
}

/// The circle lengths: 1 to `MAX_CIRCLES` circles of 1 to `MAX_CIRCLE_LENGTH` spaces.
fn read_circles(value: &Value) -> Result<Vec<u16>> {
    let circles = list(value, "board.circles")?;
    if circles.is_empty() || circles.len() > MAX_CIRCLES {
        return Err(board_error(
            "board.circles",
            format!(
                "a board has 1 to {MAX_CIRCLES} circles, not {}",
                circles.len()
            ),
        ));
    }
    circles
        .iter()
        .enumerate()
        .map(|(c, length)| {
            let field = format!("board.circles[{c}]");
            integer(length, &field, 1, MAX_CIRCLE_LENGTH as i64).map(|n| n as u16)
        })
        .collect()
}

/// One entry per seat, each a space of the outer circle (`outer_length` spaces).
fn read_entries(value: &Value, outer_length: u16) -> Result<[u16; SEATS]> {
    let entries_value = list(value, "board.entries")?;
    if entries_value.len() != SEATS {
        return Err(board_error(
            "board.entries",
            format!(
                "there are 6 entries, one per seat, not {}",
                entries_value.len()
            ),
        ));
    }
    let mut entries = [0u16; SEATS];
    for (s, entry) in entries_value.iter().enumerate() {
        let field = format!("board.entries[{s}]");
        entries[s] = integer(entry, &field, 0, i64::from(outer_length) - 1)? as u16;
    }
    Ok(entries)
}

/// The points of the 1st..5th pawn to enter the centre, each an `i32`.
fn read_centre_points(value: &Value) -> Result<[i32; CENTRE_SPACES]> {
    let points_value = list(value, "board.centre_points")?;
    if points_value.len() != CENTRE_SPACES {
        return Err(board_error(
            "board.centre_points",
            format!(
                "there are 5 centre spaces, so 5 points, not {}",
                points_value.len()
            ),
        ));
    }
    let mut centre_points = [0i32; CENTRE_SPACES];
    for (k, points) in points_value.iter().enumerate() {
        let field = format!("board.centre_points[{k}]");
        centre_points[k] =
            integer(points, &field, i64::from(i32::MIN), i64::from(i32::MAX))? as i32;
    }
    Ok(centre_points)
}

/// The start track has one square per pawn.
fn check_home_length(home: &Value) -> Result<()> {
    if home.as_i64() != Some(PAWNS as i64) {
        return Err(board_error(
            "board.home_length",
            format!("the start track has 4 squares (4 pawns, one per square), not {home}"),
        ));
    }
    Ok(())
}

/// The `from` and `to` of a bridge object at `at`, which has no other field.
fn bridge_ends<'a>(bridge: &'a Value, at: &str) -> Result<(&'a Value, &'a Value)> {
    let bridge = bridge.as_object().ok_or_else(|| {
        board_error(
            at,
            "a bridge is an object {\"from\": [circle, index], \"to\": ...}",
        )
    })?;
    if let Some(key) = bridge
        .keys()
        .find(|key| !matches!(key.as_str(), "from" | "to"))
    {
        return Err(board_error(
            format!("{at}.{key}"),
            format!("unknown field {key:?}: a bridge has from and to"),
        ));
    }
    let from = bridge
        .get("from")
        .ok_or_else(|| board_error(format!("{at}.from"), "from is missing"))?;
    let to = bridge
        .get("to")
        .ok_or_else(|| board_error(format!("{at}.to"), "to is missing"))?;
    Ok((from, to))
}

impl Board {
    /// The default board: a symmetric reconstruction (the rules doc says why), circles 36, 24, 12,
    /// each cut into 6 sectors whose last space bridges to the first space of the sector inside.
    pub fn default_description() -> Value {
        let mut bridges = Vec::new();
        for s in 0..6 {
            bridges.push(json!({ "from": [0, 6 * s + 5], "to": [1, 4 * s] }));
        }
        for s in 0..6 {
            bridges.push(json!({ "from": [1, 4 * s + 3], "to": [2, 2 * s] }));
        }
        for s in 0..6 {
            bridges.push(json!({ "from": [2, 2 * s + 1], "to": "centre" }));
        }
        json!({
            "circles": [36, 24, 12],
            "entries": [0, 6, 12, 18, 24, 30],
            "bridges": bridges,
            "centre_points": [5, 4, 3, 2, 1],
            "home_length": 4,
        })
    }

    /// Checks a description; every fault names its field under `board`.
    pub fn from_description(description: &Value) -> Result<Board> {
        let object = description_object(description)?;
        let lengths = read_circles(required(object, "circles")?)?;
        let entries = read_entries(required(object, "entries")?, lengths[0])?;
        let centre_points = read_centre_points(required(object, "centre_points")?)?;
        check_home_length(required(object, "home_length")?)?;
        let mut board = Board::without_bridges(lengths, entries, centre_points);
        board.read_bridges(list(required(object, "bridges")?, "board.bridges")?)?;
        board.description = Description::of(&board.canonical_description());
        Ok(board)
    }

    /// The tables of a board whose circles, entries and points are checked, before its bridges are
    /// read (the description is filled in last).
    fn without_bridges(
        lengths: Vec<u16>,
        entries: [u16; SEATS],
        centre_points: [i32; CENTRE_SPACES],
    ) -> Board {
        let mut offsets = Vec::with_capacity(lengths.len());
        let mut total = 0usize;
        let mut coords = Vec::new();
        for (c, &len) in lengths.iter().enumerate() {
            offsets.push(total as u16);
            total += usize::from(len);
            coords.extend((0..len).map(|i| (c as u8, i)));
        }
        let mut steps = Vec::with_capacity(total * (MAX_STEPS + 1));
        for &(circle, index) in &coords {
            let len = lengths[usize::from(circle)];
            for n in 0..=MAX_STEPS as u16 {
                steps.push(offsets[usize::from(circle)] + (index + n) % len);
            }
        }
        Board {
            lengths,
            offsets,
            entries,
            bridges: vec![Bridge::None; total],
            coords,
            steps,
            centre_points,
            description: Description::of(&Value::Null),
        }
    }

    /// Reads every bridge: at most one per space, and at least one on every circle.
    fn read_bridges(&mut self, bridge_list: &[Value]) -> Result<()> {
        // For each space, the index of the bridge read on it.
        let mut source = vec![usize::MAX; self.bridges.len()];
        let mut bridged = vec![false; self.lengths.len()];
        for (b, bridge) in bridge_list.iter().enumerate() {
            let at = format!("board.bridges[{b}]");
            let (from, to) = bridge_ends(bridge, &at)?;
            let from_field = format!("{at}.from");
            let (circle, index) = space_pair(from, &from_field, &self.lengths)?;
            let space = usize::from(self.offsets[circle]) + index;
            if source[space] != usize::MAX {
                return Err(board_error(
                    &from_field,
                    format!(
                        "space {circle}.{index} already has a bridge (bridges[{}]): at most one bridge per space",
                        source[space]
                    ),
                ));
            }
            self.bridges[space] = self.bridge_target(circle, index, to, &format!("{at}.to"))?;
            source[space] = b;
            bridged[circle] = true;
        }
        let Some(circle) = bridged.iter().position(|&has| !has) else {
            return Ok(());
        };
        let why = if circle == self.lengths.len() - 1 {
            format!("the innermost circle ({circle}) has no bridge to the centre")
        } else {
            format!("circle {circle} has no bridge to circle {}", circle + 1)
        };
        Err(board_error("board.bridges", why))
    }

    /// Where the bridge from `circle.index` leads: the centre from the innermost circle, else a space
    /// exactly one circle inward.
    fn bridge_target(
        &self,
        circle: usize,
        index: usize,
        to: &Value,
        to_field: &str,
    ) -> Result<Bridge> {
        let innermost = self.lengths.len() - 1;
        if circle == innermost {
            if to.as_str() != Some("centre") {
                return Err(board_error(
                    to_field,
                    format!(
                        "a bridge of the innermost circle ({circle}) leads to \"centre\", not {to}"
                    ),
                ));
            }
            return Ok(Bridge::Centre);
        }
        if to.as_str() == Some("centre") {
            return Err(board_error(
                to_field,
                format!(
                    "only the innermost circle ({innermost}) bridges to the centre; {circle}.{index} bridges to circle {}",
                    circle + 1
                ),
            ));
        }
        let (to_circle, to_index) = space_pair(to, to_field, &self.lengths)?;
        if to_circle != circle + 1 {
            return Err(board_error(
                to_field,
                format!(
                    "a bridge goes exactly one circle inward: from circle {circle} to circle {}, not {to_circle}",
                    circle + 1
                ),
            ));
        }
        Ok(Bridge::Space(self.offsets[to_circle] + to_index as u16))
    }

    /// The description as states carry it: bridges sorted by their `from` space.
    fn canonical_description(&self) -> Value {
        let bridges: Vec<Value> = (0..self.bridges.len())
            .filter(|&space| self.bridges[space] != Bridge::None)
            .map(|space| {
                let (c, i) = self.coords[space];
                let to = match self.bridges[space] {
                    Bridge::Space(t) => {
                        let (tc, ti) = self.coords[usize::from(t)];
                        json!([tc, ti])
                    }
                    _ => json!("centre"),
                };
                json!({ "from": [c, i], "to": to })
            })
            .collect();
        let mut canonical = Map::new();
        canonical.insert("circles".into(), json!(self.lengths));
        canonical.insert("entries".into(), json!(self.entries));
        canonical.insert("bridges".into(), Value::Array(bridges));
        canonical.insert("centre_points".into(), json!(self.centre_points));
        canonical.insert("home_length".into(), json!(PAWNS));
        Value::Object(canonical)
    }

    pub fn description(&self) -> &Description {
        &self.description
    }

    /// Bytes the board's tables and description hold.
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.lengths.capacity() * size_of::<u16>()
            + self.offsets.capacity() * size_of::<u16>()
            + self.bridges.capacity() * size_of::<Bridge>()
            + self.coords.capacity() * size_of::<(u8, u16)>()
            + self.steps.capacity() * size_of::<u16>()
            + self.description.heap_bytes()
    }

    /// Whether this is the default board (whatever description named it): states then leave the
    /// board out (`null`), which is most of their size otherwise.
    pub fn is_default(&self) -> bool {
        static DEFAULT: OnceLock<Description> = OnceLock::new();
        let default = DEFAULT.get_or_init(|| {
            let board = Board::from_description(&Board::default_description());
            board.expect("the default board compiles").description
        });
        &self.description == default
    }

    pub fn circles(&self) -> usize {
        self.lengths.len()
    }

    /// The space id of `circle.index`, if the board has it.
    pub fn space(&self, circle: usize, index: usize) -> Option<u16> {
        let len = usize::from(*self.lengths.get(circle)?);
        (index < len).then(|| self.offsets[circle] + index as u16)
    }

    pub fn coords(&self, space: u16) -> (u8, u16) {
        self.coords[usize::from(space)]
    }

    /// The space `n` (0..=6) steps along the circle from `space`.
    pub fn step(&self, space: u16, n: u8) -> u16 {
        self.steps[usize::from(space) * (MAX_STEPS + 1) + usize::from(n)]
    }

    pub fn bridge(&self, space: u16) -> Bridge {
        self.bridges[usize::from(space)]
    }

    /// Where a pawn at home distance `distance` lands when it leaves with `die` (`die >= distance`).
    pub fn exit(&self, seat: usize, distance: u8, die: u8) -> u16 {
        let len = self.lengths[0];
        (self.entries[seat] + u16::from(die - distance)) % len
    }

    pub fn space_count(&self) -> usize {
        self.bridges.len()
    }
}

pub const COLOURS: [&str; SEATS] = ["red", "yellow", "green", "blue", "purple", "orange"];

/// One letter per colour, for the position notation.
pub(super) const LETTERS: [u8; SEATS] = *b"rygbpo";

/// Location codes: home distance k is `k - 1`, space s is `SPACE_BASE + s`.
pub(super) type Loc = u16;

pub(super) const SPACE_BASE: Loc = PAWNS as Loc;

pub(super) const CENTRE: Loc = 0xFFFE;

pub(super) const CAPTURED: Loc = 0xFFFF;

pub(super) fn home(distance: u8) -> Loc {
    Loc::from(distance - 1)
}

pub(super) fn on_space(space: u16) -> Loc {
    SPACE_BASE + space
}

/// Still in play: at home or on a circle.
pub(super) fn is_active(loc: Loc) -> bool {
    loc < CENTRE
}

pub(super) fn colour_seat(name: &str) -> Option<usize> {
    COLOURS.iter().position(|&colour| colour == name)
}

pub(super) fn seat_of_letter(letter: u8) -> Option<usize> {
    LETTERS.iter().position(|&l| l == letter)
}

/// In a schema: a player's colour (seat 0..5 is red, yellow, green, blue, purple, orange).
pub(super) struct ColourSchema;

impl JsonSchema for ColourSchema {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "HypnosiaColour".into()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        "referee_core::hypnosia::Colour".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "description": "Seat 0..5 has the colour red, yellow, green, blue, purple, orange.",
            "enum": COLOURS,
        })
    }
}

/// A pawn's location: `h1`..`h4` (home, by distance), `<circle>.<index>`, `centre` or `captured`.
#[derive(JsonSchema)]
#[schemars(rename = "HypnosiaLocation")]
#[allow(dead_code)] // a schema only
pub(super) struct LocationSchema(
    #[schemars(regex(pattern = r"^(h[1-4]|(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)|centre|captured)$"))]
    String,
);

/// A seated colour's 4 pawns: home by distance, then spaces by (circle, index), then centre, then
/// captured.
#[derive(JsonSchema)]
#[schemars(rename = "HypnosiaPawns")]
#[allow(dead_code)] // a schema only
pub(super) struct PawnsSchema(#[schemars(length(equal = PAWNS))] Vec<LocationSchema>);

/// One die.
#[derive(JsonSchema)]
#[schemars(rename = "HypnosiaDie")]
#[allow(dead_code)] // a schema only
pub(super) struct DieSchema(#[schemars(range(min = 1, max = 6))] u8);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_board_compiles_as_documented() {
        let board = Board::from_description(&Board::default_description()).unwrap();
        assert_eq!(board.space_count(), 72);
        assert_eq!(board.bridge(5), Bridge::Space(36));
        assert_eq!(board.bridge(36 + 3), Bridge::Space(60));
        assert_eq!(board.bridge(60 + 1), Bridge::Centre);
        assert_eq!(board.step(35, 2), 1);
        assert_eq!(board.exit(5, 4, 6), 32);
        assert_eq!(board.description().value().unwrap(), Board::default_description());
    }
}
