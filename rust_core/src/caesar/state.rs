//! The JSON state of Caesar!, and reading an untrusted one into a `Position` (its consistency checks
//! are in `invariants.rs`).

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;
use std::sync::OnceLock;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::board::{
    border_id, is_symmetric, parse_border, parse_province, parse_token, province_code, token_code,
    Bonus, BORDERS, BORDER_COUNT, CONTROL_MARKERS, IT, PROVINCE_COUNT, START_HAND_LIMIT, TOKENS,
    TOKEN_KINDS,
};
use super::board::{token_list, Player, Tokens};
use super::invariants::check_consistency;
use super::{Placed, Position};
use crate::chance::{Chance, ChanceState};
use crate::digits::push_number;
use crate::error::{Error, Result};
use crate::schemas::Nullable;

pub(super) const RULES: &str = "caesar@1";

/// A name in a state (a player, a token, a province, a border, a bonus): borrowed from the engine's
/// tables when written, so that writing a state allocates no string.
pub type Name = Cow<'static, str>;

/// A JSON object whose keys keep a meaningful order (border order, table order) when written. Its
/// readers refuse a key given twice (each knows its keys: borders, provinces, faces, bonuses).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Ordered<T>(pub Vec<(Name, T)>);

impl<T> Ordered<T> {
    pub fn get(&self, key: &str) -> Option<&T> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
}

impl<T: Serialize> Serialize for Ordered<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (key, value) in &self.0 {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

impl<'de, T: de::DeserializeOwned> Deserialize<'de> for Ordered<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        struct OrderedVisitor<T>(PhantomData<T>);
        impl<'de, T: de::DeserializeOwned> Visitor<'de> for OrderedVisitor<T> {
            type Value = Ordered<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<M: MapAccess<'de>>(
                self,
                mut access: M,
            ) -> std::result::Result<Self::Value, M::Error> {
                // Sized once (borders are 30 entries of ~130 bytes): no regrowth copying them.
                let mut entries: Vec<(Name, T)> =
                    Vec::with_capacity(access.size_hint().unwrap_or(0).min(BORDER_COUNT));
                while let Some(key) = access.next_key_seed(NameSeed)? {
                    entries.push((key, access.next_value()?));
                }
                Ok(Ordered(entries))
            }
        }
        deserializer.deserialize_map(OrderedVisitor(PhantomData))
    }
}

/// A name as a state gives it: the tables' own `'static` copy when it is one of the game's names
/// (a player, token, province, border or bonus), so that reading a state allocates no string for
/// it; any other text as given, for the error that quotes it.
fn interned(text: &str) -> Name {
    let known = KNOWN_NAMES.get_or_init(KnownNames::new);
    match name_key(text).and_then(|key| known.find(key)) {
        Some(name) if name.len() == text.len() => Name::Borrowed(name),
        _ => Name::Owned(text.to_owned()),
    }
}

/// Every name of the game is at most 8 bytes, none with a zero byte: its bytes as an integer are
/// hashed to a slot of a small table with no two names in one slot (a state has ~130 names: this
/// costs no branch that mispredicts, unlike parsing them or searching a sorted table).
struct KnownNames {
    multiplier: u64,
    /// Per slot, the index in `names` plus one (0: empty).
    slots: [u8; 1 << SLOT_BITS],
    names: Vec<(u64, &'static str)>,
}

const SLOT_BITS: u32 = 10;

static KNOWN_NAMES: OnceLock<KnownNames> = OnceLock::new();

impl KnownNames {
    /// The table of the game's names: players, tokens, provinces, borders as the rules write them,
    /// bonuses; the first odd multiplier that gives each its own slot (found in a few tries).
    fn new() -> KnownNames {
        let players = Player::BOTH.into_iter().map(Player::name);
        let tokens = (0..TOKEN_KINDS).map(token_code);
        let provinces = (0..PROVINCE_COUNT).map(province_code);
        let borders = (0..BORDER_COUNT).map(border_id);
        let bonuses = Bonus::ALL.into_iter().map(Bonus::name);
        let names: Vec<(u64, &'static str)> = (players.chain(tokens).chain(provinces))
            .chain(borders.chain(bonuses))
            .map(|name| (name_key(name).expect("names are at most 8 bytes"), name))
            .collect();
        (0u64..)
            .map(|n| 0x9E37_79B9_7F4A_7C15_u64.wrapping_add(n << 1))
            .find_map(|multiplier| KnownNames::with(multiplier, &names))
            .expect("some multiplier separates the names")
    }

    fn with(multiplier: u64, names: &[(u64, &'static str)]) -> Option<KnownNames> {
        let mut slots = [0u8; 1 << SLOT_BITS];
        for (index, &(key, _)) in names.iter().enumerate() {
            let slot = &mut slots[slot_of(key, multiplier)];
            if *slot != 0 {
                return None;
            }
            *slot = u8::try_from(index + 1).expect("fewer than 255 names");
        }
        let names = names.to_vec();
        Some(KnownNames {
            multiplier,
            slots,
            names,
        })
    }

    fn find(&self, key: u64) -> Option<&'static str> {
        let index = usize::from(self.slots[slot_of(key, self.multiplier)]).checked_sub(1)?;
        let (known, name) = self.names[index];
        (known == key).then_some(name)
    }
}

fn slot_of(key: u64, multiplier: u64) -> usize {
    (key.wrapping_mul(multiplier) >> (64 - SLOT_BITS)) as usize
}

/// The bytes of a text of at most 8 bytes as an integer (the same for texts that differ only by
/// trailing zero bytes: the caller compares lengths).
fn name_key(text: &str) -> Option<u64> {
    if text.len() > 8 {
        return None;
    }
    let mut bytes = [0u8; 8];
    bytes[..text.len()].copy_from_slice(text.as_bytes());
    Some(u64::from_le_bytes(bytes))
}

/// Reads a `Name` (as serde reads a string) through `interned`.
struct NameSeed;

impl<'de> de::DeserializeSeed<'de> for NameSeed {
    type Value = Name;
    fn deserialize<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> std::result::Result<Name, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for NameSeed {
    type Value = Name;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_str<E: de::Error>(self, text: &str) -> std::result::Result<Name, E> {
        Ok(interned(text))
    }
}

/// For `deserialize_with` on a `Name` field.
fn name<'de, D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Name, D::Error> {
    de::DeserializeSeed::deserialize(NameSeed, deserializer)
}

/// For `deserialize_with` on an `Option<Name>` field (required, even when null).
fn optional_name<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> std::result::Result<Option<Name>, D::Error> {
    struct OptionVisitor;
    impl<'de> Visitor<'de> for OptionVisitor {
        type Value = Option<Name>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("option")
        }
        fn visit_none<E: de::Error>(self) -> std::result::Result<Option<Name>, E> {
            Ok(None)
        }
        fn visit_unit<E: de::Error>(self) -> std::result::Result<Option<Name>, E> {
            Ok(None)
        }
        fn visit_some<D: Deserializer<'de>>(
            self,
            deserializer: D,
        ) -> std::result::Result<Option<Name>, D::Error> {
            name(deserializer).map(Some)
        }
    }
    deserializer.deserialize_option(OptionVisitor)
}

/// A list of names, read through `interned`.
struct Names(Vec<Name>);

impl<'de> Deserialize<'de> for Names {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        struct NamesVisitor;
        impl<'de> Visitor<'de> for NamesVisitor {
            type Value = Names;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a sequence")
            }
            fn visit_seq<A: de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<Names, A::Error> {
                let mut names = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(16));
                while let Some(name) = seq.next_element_seed(NameSeed)? {
                    names.push(name);
                }
                Ok(Names(names))
            }
        }
        deserializer.deserialize_seq(NamesVisitor)
    }
}

/// For `deserialize_with` on the hands and bags: an object of each player's names.
fn names_per_player<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> std::result::Result<PerPlayer<Vec<Name>>, D::Error> {
    let names: PerPlayer<Names> = crate::strict::object(deserializer)?;
    Ok(PerPlayer::of(names.into_values().map(|names| names.0)))
}

/// In a schema, a JSON object of `T`s (its keys as the field's schema says).
impl<T: JsonSchema> JsonSchema for Ordered<T> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        format!("Ordered_{}", T::schema_name()).into()
    }

    fn schema_id() -> Cow<'static, str> {
        format!("referee_core::caesar::Ordered<{}>", T::schema_id()).into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "object",
            "additionalProperties": generator.subschema_for::<T>(),
        })
    }
}

/// One value per player: `{"caesar": ..., "pompey": ...}`.
pub type PerPlayer<T> = crate::players::PerPlayer<Player, T>;

/// An influence token on a border space.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(remote = "Self", deny_unknown_fields)]
#[schemars(rename = "CaesarBorder")]
pub struct BorderState {
    #[schemars(with = "Player")]
    #[serde(deserialize_with = "name")]
    pub player: Name,
    #[schemars(with = "TokenSchema")]
    #[serde(deserialize_with = "name")]
    pub token: Name,
    /// The number facing each of the border's two provinces.
    #[schemars(with = "FacesSchema")]
    pub faces: Ordered<u32>,
    /// Flipped by Might: counts 0 for provinces that close later.
    pub flipped: bool,
    /// A control marker on top of the token.
    #[schemars(with = "Nullable<Player>")]
    #[serde(deserialize_with = "optional_name")] // required, even when null
    pub marker: Option<Name>,
}
crate::object_only!(BorderState);

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(remote = "Self", deny_unknown_fields)]
#[schemars(rename = "CaesarProvince")]
pub struct ProvinceState {
    /// The bonus token still on the province's space; null once taken.
    #[schemars(with = "Nullable<Bonus>")]
    #[serde(deserialize_with = "optional_name")] // required, even when null
    pub bonus: Option<Name>,
    #[schemars(with = "Nullable<Player>")]
    #[serde(deserialize_with = "optional_name")] // required, even when null
    pub control: Option<Name>,
    /// The control marker was flipped by Might.
    pub flipped: bool,
}
crate::object_only!(ProvinceState);

/// The JSON form of a Caesar! state: the full state, both hands and bags and the random source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    rename = "CaesarState",
    description = "The full state (both hands, both bags, the generator); `POST .../view` shows one player's part."
)]
pub struct State {
    #[schemars(extend("const" = RULES))]
    pub rules: String,
    /// Null once a player has placed their 12th control marker.
    #[schemars(with = "Nullable<Player>")]
    #[serde(deserialize_with = "optional_name")] // required, even when null
    pub to_move: Option<Name>,
    /// All 30 borders by id (`HU-HC` ... `AS-SY`), in border order; null while a space is empty.
    #[schemars(extend("propertyNames" = {"enum": border_ids()}, "required" = border_ids()))]
    pub borders: Ordered<Option<BorderState>>,
    /// All 18 provinces by code, in table order.
    #[schemars(extend("propertyNames" = {"enum": province_codes()}, "required" = province_codes()))]
    pub provinces: Ordered<ProvinceState>,
    /// The marker on Italia's dashed space.
    #[schemars(with = "Nullable<Player>")]
    #[serde(deserialize_with = "optional_name")] // required, even when null
    pub italia_dashed: Option<Name>,
    #[schemars(with = "PerPlayer<TokensSchema>")]
    #[serde(deserialize_with = "names_per_player")]
    pub hands: PerPlayer<Vec<Name>>,
    #[schemars(with = "PerPlayer<TokensSchema>")]
    #[serde(deserialize_with = "names_per_player")]
    pub bags: PerPlayer<Vec<Name>>,
    #[schemars(with = "PerPlayer<CountSchema>")]
    #[serde(deserialize_with = "crate::strict::object")]
    pub hand_limits: PerPlayer<u32>,
    #[schemars(with = "PerPlayer<CountSchema>")]
    #[serde(deserialize_with = "crate::strict::object")]
    pub senate: PerPlayer<u32>,
    #[schemars(with = "PerPlayer<CountSchema>")]
    #[serde(deserialize_with = "crate::strict::object")]
    pub markers: PerPlayer<u32>,
    #[serde(deserialize_with = "crate::strict::object")]
    pub rng: ChanceState,
}

/// In a schema: every border's id, in border order (a state lists them all).
fn border_ids() -> Vec<&'static str> {
    (0..BORDER_COUNT).map(border_id).collect()
}

/// In a schema: every province's code, in table order (a state lists them all).
fn province_codes() -> Vec<&'static str> {
    (0..PROVINCE_COUNT).map(province_code).collect()
}

/// In a schema: an influence token, by its code in the token table.
pub(super) struct TokenSchema;

impl JsonSchema for TokenSchema {
    fn schema_name() -> Cow<'static, str> {
        "CaesarToken".into()
    }

    fn schema_id() -> Cow<'static, str> {
        "referee_core::caesar::Token".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let codes: Vec<&str> = TOKENS.iter().map(|token| token.0).collect();
        json_schema!({
            "type": "string",
            "description": "Icon letter (L laurel, S sword, D shield, N ship) and the two numbers, larger first.",
            "enum": codes,
        })
    }
}

/// Tokens in token order (L40, L31, L22, S60, ... N33).
#[derive(JsonSchema)]
#[schemars(rename = "CaesarTokens")]
#[allow(dead_code)] // a schema only
pub(super) struct TokensSchema(#[schemars(length(max = 16))] Vec<TokenSchema>);

/// A starting hand: two tokens (given in a setup instead of drawn).
#[derive(JsonSchema)]
#[schemars(rename = "CaesarStartingHand")]
#[allow(dead_code)] // a schema only
pub(super) struct StartingHandSchema(
    #[schemars(length(min = START_HAND_LIMIT, max = START_HAND_LIMIT))] Vec<TokenSchema>,
);

/// A count (hand limit, Senate markers, control markers placed, ...).
#[derive(JsonSchema)]
#[schemars(rename = "CaesarCount")]
#[allow(dead_code)] // a schema only
pub(super) struct CountSchema(u32);

/// The number facing each of a border's two provinces, by province code.
#[derive(JsonSchema)]
#[schemars(rename = "CaesarFaces")]
#[allow(dead_code)] // a schema only
pub(super) struct FacesSchema(
    #[schemars(extend("minProperties" = 2, "maxProperties" = 2, "propertyNames" = {"pattern": "^[A-Z]{2}$"}))]
     Ordered<u32>,
);

pub fn to_state(position: &Position) -> State {
    let player_name = |p: Option<Player>| p.map(|p| Name::from(p.name()));
    let borders = (0..BORDER_COUNT)
        .map(|b| {
            let state = position.borders[b].map(|placed| {
                let (a, c, _) = BORDERS[b];
                let (first, second) = placed.faces();
                BorderState {
                    player: placed.owner.name().into(),
                    token: token_code(placed.kind as usize).into(),
                    faces: Ordered(vec![
                        (province_code(a).into(), u32::from(first)),
                        (province_code(c).into(), u32::from(second)),
                    ]),
                    flipped: placed.flipped,
                    marker: player_name(placed.marker),
                }
            });
            (border_id(b).into(), state)
        })
        .collect();
    let provinces = (0..PROVINCE_COUNT)
        .map(|q| {
            let state = ProvinceState {
                bonus: position.bonus[q].map(|b| b.name().into()),
                control: player_name(position.control[q]),
                flipped: position.is_flipped(q),
            };
            (province_code(q).into(), state)
        })
        .collect();
    let counts = |values: [u8; 2]| PerPlayer::of(values.map(u32::from));
    State {
        rules: RULES.to_owned(),
        to_move: player_name(position.to_move),
        borders: Ordered(borders),
        provinces: Ordered(provinces),
        italia_dashed: player_name(position.italia_dashed),
        hands: PerPlayer::of([
            token_list(&position.hands[0]),
            token_list(&position.hands[1]),
        ]),
        bags: PerPlayer::of([token_list(&position.bags[0]), token_list(&position.bags[1])]),
        hand_limits: counts(position.hand_limits),
        senate: counts(position.senate),
        markers: counts(position.markers),
        rng: position.chance.to_state(),
    }
}

/// `to_state`'s JSON text, written straight from the position: serde writes a state's ~300 names
/// one at a time, each scanned for escapes, at several times the cost of the rules. The engine's
/// names need no escape. A test holds it to serde's text of `to_state`.
pub fn state_text(position: &Position) -> String {
    let mut out = String::with_capacity(3600);
    out.push_str(r#"{"rules":""#);
    out.push_str(RULES);
    out.push_str(r#"","to_move":"#);
    push_player(&mut out, position.to_move);
    out.push_str(r#","borders":"#);
    for (b, placed) in position.borders.iter().enumerate() {
        push_key(&mut out, b, border_id(b));
        match placed {
            None => out.push_str("null"),
            Some(placed) => push_placed(&mut out, b, *placed),
        }
    }
    out.push_str(r#"},"provinces":"#);
    for q in 0..PROVINCE_COUNT {
        push_key(&mut out, q, province_code(q));
        out.push_str(r#"{"bonus":"#);
        push_name(&mut out, position.bonus[q].map(Bonus::name));
        out.push_str(r#","control":"#);
        push_player(&mut out, position.control[q]);
        out.push_str(r#","flipped":"#);
        out.push_str(if position.is_flipped(q) {
            "true}"
        } else {
            "false}"
        });
    }
    out.push_str(r#"},"italia_dashed":"#);
    push_player(&mut out, position.italia_dashed);
    let per_player = |out: &mut String, field: &str, push_value: &dyn Fn(&mut String, usize)| {
        out.push_str(",\"");
        out.push_str(field);
        out.push_str("\":");
        for player in Player::BOTH {
            push_key(out, player as usize, player.name());
            push_value(out, player as usize);
        }
        out.push('}');
    };
    per_player(&mut out, "hands", &|out, p| {
        push_tokens(out, &position.hands[p])
    });
    per_player(&mut out, "bags", &|out, p| {
        push_tokens(out, &position.bags[p])
    });
    per_player(&mut out, "hand_limits", &|out, p| {
        push_number(out, u64::from(position.hand_limits[p]))
    });
    per_player(&mut out, "senate", &|out, p| {
        push_number(out, u64::from(position.senate[p]))
    });
    per_player(&mut out, "markers", &|out, p| {
        push_number(out, u64::from(position.markers[p]))
    });
    out.push_str(r#","rng":"#);
    let rng = serde_json::to_string(&position.chance.to_state()).expect("a generator serializes");
    out.push_str(&rng);
    out.push('}');
    out
}

/// An object's key (`"key":`), opening the object before its first.
fn push_key(out: &mut String, index: usize, key: &str) {
    out.push_str(if index == 0 { "{\"" } else { ",\"" });
    out.push_str(key);
    out.push_str("\":");
}

fn push_name(out: &mut String, name: Option<&str>) {
    match name {
        None => out.push_str("null"),
        Some(name) => {
            out.push('"');
            out.push_str(name);
            out.push('"');
        }
    }
}

fn push_player(out: &mut String, player: Option<Player>) {
    push_name(out, player.map(Player::name));
}

/// A token on `border`, as `BorderState` writes it.
fn push_placed(out: &mut String, border: usize, placed: Placed) {
    let (a, b, _) = BORDERS[border];
    let (first, second) = placed.faces();
    out.push_str(r#"{"player":""#);
    out.push_str(placed.owner.name());
    out.push_str(r#"","token":""#);
    out.push_str(token_code(placed.kind as usize));
    out.push_str(r#"","faces":"#);
    push_key(out, 0, province_code(a));
    push_number(out, u64::from(first));
    push_key(out, 1, province_code(b));
    push_number(out, u64::from(second));
    out.push_str(if placed.flipped {
        r#"},"flipped":true,"marker":"#
    } else {
        r#"},"flipped":false,"marker":"#
    });
    push_player(out, placed.marker);
    out.push('}');
}

/// Tokens in token order, as a list of codes.
fn push_tokens(out: &mut String, tokens: &Tokens) {
    out.push('[');
    let mut first = true;
    for (kind, &count) in tokens.iter().enumerate() {
        for _ in 0..count {
            out.push_str(if first { "\"" } else { ",\"" });
            out.push_str(token_code(kind));
            out.push('"');
            first = false;
        }
    }
    out.push(']');
}

fn player_of(name: &Option<Name>, field: impl Fn() -> String) -> Result<Option<Player>> {
    match name {
        None => Ok(None),
        Some(name) => Player::parse(name).map(Some).ok_or_else(|| {
            Error::invalid_state(
                field(),
                format!("{name:?} is not a player (caesar, pompey)"),
            )
        }),
    }
}

/// Token counts of a list that must be in token order (`field` names it in errors).
fn tokens_of(list: &[Name], field: impl Fn() -> String) -> Result<Tokens> {
    let mut counts = [0u8; TOKEN_KINDS];
    let mut last = 0;
    for code in list {
        let kind = parse_token(code)
            .ok_or_else(|| Error::invalid_state(field(), format!("{code:?} is not a token")))?;
        if kind < last {
            return Err(Error::invalid_state(
                field(),
                "tokens are listed in token order (L40 L31 L22 S60 S51 S42 S33 D60 .. N33)",
            ));
        }
        last = kind;
        counts[kind] = counts[kind].saturating_add(1);
        if counts[kind] > TOKENS[kind].4 {
            return Err(Error::invalid_state(
                field(),
                format!("a player has only {} {code}", TOKENS[kind].4),
            ));
        }
    }
    Ok(counts)
}

fn small(value: u32, max: u8, field: impl Fn() -> String, what: &str) -> Result<u8> {
    u8::try_from(value)
        .ok()
        .filter(|&v| v <= max)
        .ok_or_else(|| {
            Error::invalid_state(field(), format!("{what} is at most {max}, not {value}"))
        })
}

pub fn from_state(state: State) -> Result<Position> {
    crate::game::check_rules_version::<super::Caesar>(&state.rules)?;
    let chance = Chance::from_state(&state.rng, "rng")?;
    let mut position = Position::empty(chance);
    position.to_move = player_of(&state.to_move, || "to_move".into())?;
    read_borders(&state, &mut position)?;
    read_provinces(&state, &mut position)?;
    position.italia_dashed = player_of(&state.italia_dashed, || "italia_dashed".into())?;
    for player in Player::BOTH {
        let p = player as usize;
        let name = player.name();
        // Field names are written only for an error: most states have none.
        let field = |part: &'static str| move || format!("{part}.{name}");
        position.hands[p] = tokens_of(state.hands.get(player), field("hands"))?;
        position.bags[p] = tokens_of(state.bags.get(player), field("bags"))?;
        position.hand_limits[p] = small(
            *state.hand_limits.get(player),
            START_HAND_LIMIT + 4,
            field("hand_limits"),
            "a hand limit",
        )?;
        if position.hand_limits[p] < START_HAND_LIMIT {
            return Err(Error::invalid_state(
                field("hand_limits")(),
                "a hand limit is at least 2",
            ));
        }
        position.senate[p] = small(
            *state.senate.get(player),
            Bonus::Senate.count(),
            field("senate"),
            "Senate tokens held",
        )?;
        position.markers[p] = small(
            *state.markers.get(player),
            CONTROL_MARKERS,
            field("markers"),
            "control markers placed",
        )?;
    }
    check_consistency(&position)?;
    Ok(position)
}

/// The borders of a state, each listed once by its id, onto `position`.
fn read_borders(state: &State, position: &mut Position) -> Result<()> {
    let mut seen = 0u32;
    for (id, border_state) in &state.borders.0 {
        let border = border_listed_once(id, &mut seen)?;
        if let Some(border_state) = border_state {
            position.borders[border] = Some(placed_token(id, border, border_state)?);
            position.filled |= 1 << border;
        }
    }
    if let Some(missing) = (0..BORDER_COUNT).find(|b| seen >> b & 1 == 0) {
        return Err(Error::invalid_state(
            "borders",
            format!(
                "every border is listed (null when empty); {} is missing",
                border_id(missing)
            ),
        ));
    }
    Ok(())
}

/// The border named `id`, as the rules name it, and not already in `seen` (then added to it).
fn border_listed_once(id: &str, seen: &mut u32) -> Result<usize> {
    let field = || format!("borders.{id}");
    let border = match parse_border(id) {
        Some((border, true)) => border,
        Some((border, false)) => {
            return Err(Error::invalid_state(
                field(),
                format!(
                    "borders are named as the rules list them: {}",
                    border_id(border)
                ),
            ))
        }
        None => {
            return Err(Error::invalid_state(
                field(),
                format!("{id:?} is not a border"),
            ))
        }
    };
    if *seen >> border & 1 == 1 {
        return Err(Error::invalid_state(
            field(),
            format!("{id} is listed twice"),
        ));
    }
    *seen |= 1 << border;
    Ok(border)
}

/// The token on `border` (named `id`): its owner, a token of the border's icon, its faces and marker.
fn placed_token(id: &str, border: usize, border_state: &BorderState) -> Result<Placed> {
    let field = || format!("borders.{id}");
    let owner = Player::parse(&border_state.player).ok_or_else(|| {
        Error::invalid_state(
            format!("{}.player", field()),
            format!("{:?} is not a player (caesar, pompey)", border_state.player),
        )
    })?;
    let kind = parse_token(&border_state.token).ok_or_else(|| {
        Error::invalid_state(
            format!("{}.token", field()),
            format!("{:?} is not a token", border_state.token),
        )
    })?;
    let (_, _, icon) = BORDERS[border];
    if TOKENS[kind].1.is_some_and(|t| t != icon) {
        return Err(Error::invalid_state(
            format!("{}.token", field()),
            format!(
                "{} cannot lie on {id}, a {} border",
                border_state.token,
                icon.name()
            ),
        ));
    }
    let forward = faces_forward(id, border, kind, border_state)?;
    let marker = player_of(&border_state.marker, || format!("{}.marker", field()))?;
    Ok(Placed {
        kind: kind as u8,
        owner,
        forward: forward || is_symmetric(kind),
        flipped: border_state.flipped,
        marker,
    })
}

/// Whether the token of `kind` on `border` (named `id`) turns its larger number toward the border's
/// first province: its faces name both provinces, nothing else, and show the token's two numbers.
fn faces_forward(id: &str, border: usize, kind: usize, border_state: &BorderState) -> Result<bool> {
    let field = || format!("borders.{id}.faces");
    let (a, b, _) = BORDERS[border];
    let (_, _, hi, lo, _) = TOKENS[kind];
    let faces = &border_state.faces;
    let (code_a, code_b) = (province_code(a), province_code(b));
    let (Some(&face_a), Some(&face_b), 2) = (faces.get(code_a), faces.get(code_b), faces.0.len())
    else {
        return Err(Error::invalid_state(
            field(),
            format!("faces gives the number toward {code_a} and toward {code_b}, nothing else"),
        ));
    };
    if (face_a, face_b) == (u32::from(hi), u32::from(lo)) {
        Ok(true)
    } else if (face_a, face_b) == (u32::from(lo), u32::from(hi)) {
        Ok(false)
    } else {
        Err(Error::invalid_state(
            field(),
            format!(
                "{} shows {hi} and {lo}, not {face_a} and {face_b}",
                border_state.token
            ),
        ))
    }
}

fn read_provinces(state: &State, position: &mut Position) -> Result<()> {
    let mut seen = 0u32;
    for (code, province_state) in &state.provinces.0 {
        let field = || format!("provinces.{code}");
        let province = parse_province(code)
            .ok_or_else(|| Error::invalid_state(field(), format!("{code:?} is not a province")))?;
        if seen >> province & 1 == 1 {
            return Err(Error::invalid_state(
                field(),
                format!("{code} is listed twice"),
            ));
        }
        seen |= 1 << province;
        position.bonus[province] = match &province_state.bonus {
            None => None,
            Some(name) => Some(Bonus::parse(name).ok_or_else(|| {
                Error::invalid_state(
                    format!("{}.bonus", field()),
                    format!("{name:?} is not a bonus (senate, tactics, wealth, might)"),
                )
            })?),
        };
        if province == IT && position.bonus[IT].is_some_and(|b| b != Bonus::Senate) {
            return Err(Error::invalid_state(
                format!("{}.bonus", field()),
                "Italia's bonus is a Senate token",
            ));
        }
        position.control[province] =
            player_of(&province_state.control, || format!("{}.control", field()))?;
        if province_state.flipped {
            if position.control[province].is_none() {
                return Err(Error::invalid_state(
                    format!("{}.flipped", field()),
                    format!("{code} has no control marker to be flipped"),
                ));
            }
            position.province_flipped |= 1 << province;
        }
    }
    if let Some(missing) = (0..PROVINCE_COUNT).find(|q| seen >> q & 1 == 0) {
        return Err(Error::invalid_state(
            "provinces",
            format!(
                "every province is listed; {} is missing",
                province_code(missing)
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{default_setup, JsonText, Rules};

    #[test]
    fn the_state_text_is_serdes_text_of_the_state() {
        let setup = default_setup::<super::super::Caesar>();
        for seed in 0..6u64 {
            let mut position = super::super::Caesar::start(&setup, Some(seed));
            for ply in 0.. {
                let (text, state) = (state_text(&position), to_state(&position));
                assert_eq!(text, serde_json::to_string(&state).unwrap());
                // As answers carry it, through both of serde_json's writers.
                let written = JsonText(text);
                assert_eq!(serde_json::to_string(&written).unwrap(), written.0);
                assert_eq!(
                    serde_json::to_value(&written).unwrap(),
                    serde_json::to_value(&state).unwrap()
                );
                let moves = super::super::Caesar::legal_moves(&position);
                let Some(mv) = moves.get((seed as usize * 5 + ply) % moves.len().max(1)) else {
                    break;
                };
                position = super::super::Caesar::play(&position, mv.clone()).unwrap().0;
            }
        }
    }

    #[test]
    fn every_name_of_the_game_and_only_those_are_interned() {
        let names = Player::BOTH.into_iter().map(Player::name);
        let names = names.chain((0..TOKEN_KINDS).map(token_code));
        let names = names.chain((0..PROVINCE_COUNT).map(province_code));
        let names = names.chain((0..BORDER_COUNT).map(border_id));
        for name in names.chain(Bonus::ALL.into_iter().map(Bonus::name)) {
            assert!(matches!(interned(name), Name::Borrowed(known) if known == name));
        }
        // a border written backwards, a name with a trailing zero byte, a longer text, an empty one
        for text in ["HC-HU", "HU\0", "caesar\0\0", "caesars", "pompey-x", ""] {
            assert!(matches!(interned(text), Name::Owned(given) if given == text));
        }
    }
}
