//! The JSON form of a Caesar! state: its schema (`State`) and its one writer (`Written`, from the
//! position); its one reader, a state object straight into a `Position`, is `reader::read`.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::de::{Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeMap, SerializeStruct};
use serde::{Deserialize, Serialize, Serializer};

use super::board::{
    border_id, codes_in_order, province_code, token_code, Bonus, Player, Tokens, BORDERS,
    BORDER_COUNT, PROVINCE_COUNT, START_HAND_LIMIT, TOKENS,
};
use super::{Placed, Position};
use crate::chance::ChanceState;
use crate::nullable::Nullable;

pub(super) const RULES: &str = "caesar@1";

/// A name in a JSON object (a province, a border): the tables' own when written.
pub type Name = Cow<'static, str>;

/// A JSON object whose keys keep a meaningful order (border order, table order) when written.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Ordered<T>(pub Vec<(Name, T)>);

impl<T> Ordered<T> {
    pub fn get(&self, key: &str) -> Option<&T> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
}

impl<T: Serialize> Serialize for Ordered<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(key, value)| (key, value)))
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Ordered<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        struct OrderedVisitor<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for OrderedVisitor<T> {
            type Value = Ordered<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<M: MapAccess<'de>>(
                self,
                mut map: M,
            ) -> std::result::Result<Self::Value, M::Error> {
                let mut entries = Vec::new();
                while let Some((key, value)) = map.next_entry::<String, T>()? {
                    entries.push((Name::Owned(key), value));
                }
                Ok(Ordered(entries))
            }
        }
        deserializer.deserialize_map(OrderedVisitor(PhantomData))
    }
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
#[derive(JsonSchema)]
#[schemars(rename = "CaesarBorder", deny_unknown_fields)]
pub struct BorderState {
    #[schemars(with = "Player")]
    pub player: Name,
    #[schemars(with = "TokenSchema")]
    pub token: Name,
    /// The number facing each of the border's two provinces.
    #[schemars(with = "FacesSchema")]
    pub faces: Ordered<u32>,
    /// Flipped by Might: counts 0 for provinces that close later.
    pub flipped: bool,
    /// A control marker on top of the token.
    #[schemars(with = "Nullable<Player>")]
    pub marker: Option<Name>,
}

#[derive(JsonSchema)]
#[schemars(rename = "CaesarProvince", deny_unknown_fields)]
pub struct ProvinceState {
    /// The bonus token still on the province's space; null once taken.
    #[schemars(with = "Nullable<Bonus>")]
    pub bonus: Option<Name>,
    #[schemars(with = "Nullable<Player>")]
    pub control: Option<Name>,
    /// The control marker was flipped by Might.
    pub flipped: bool,
}

/// The JSON form of a Caesar! state: the full state, both hands and bags and the random source. A
/// schema only: `reader::read` reads a state straight into its position, and `Written` writes it from
/// there, each as this type says.
#[derive(JsonSchema)]
#[schemars(
    rename = "CaesarState",
    deny_unknown_fields,
    description = "The full state (both hands, both bags, the generator); `POST .../view` shows one player's part."
)]
pub struct State {
    #[schemars(extend("const" = RULES))]
    pub rules: String,
    /// Null once a player has placed their 12th control marker.
    #[schemars(with = "Nullable<Player>")]
    pub to_move: Option<Name>,
    /// All 30 borders by id (`HU-HC` ... `AS-SY`), in border order; null while a space is empty.
    #[schemars(extend("propertyNames" = {"enum": border_ids()}, "required" = border_ids()))]
    pub borders: Ordered<Option<BorderState>>,
    /// All 18 provinces by code, in table order.
    #[schemars(extend("propertyNames" = {"enum": province_codes()}, "required" = province_codes()))]
    pub provinces: Ordered<ProvinceState>,
    /// The marker on Italia's dashed space.
    #[schemars(with = "Nullable<Player>")]
    pub italia_dashed: Option<Name>,
    #[schemars(with = "PerPlayer<TokensSchema>")]
    pub hands: PerPlayer<Vec<Name>>,
    #[schemars(with = "PerPlayer<TokensSchema>")]
    pub bags: PerPlayer<Vec<Name>>,
    #[schemars(with = "PerPlayer<CountSchema>")]
    pub hand_limits: PerPlayer<u32>,
    #[schemars(with = "PerPlayer<CountSchema>")]
    pub senate: PerPlayer<u32>,
    #[schemars(with = "PerPlayer<CountSchema>")]
    pub markers: PerPlayer<u32>,
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

/// A position's state, written as `State` says (its fields in that order).
pub struct Written<'a>(pub &'a Position);

impl Serialize for Written<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let position = self.0;
        let mut state = serializer.serialize_struct("State", 11)?;
        state.serialize_field("rules", RULES)?;
        state.serialize_field("to_move", &position.to_move.map(Player::name))?;
        state.serialize_field("borders", &BordersOf(position))?;
        state.serialize_field("provinces", &ProvincesOf(position))?;
        state.serialize_field("italia_dashed", &position.italia_dashed.map(Player::name))?;
        state.serialize_field("hands", &TokensOf::both(&position.hands))?;
        state.serialize_field("bags", &TokensOf::both(&position.bags))?;
        state.serialize_field("hand_limits", &PerPlayer::of(position.hand_limits))?;
        state.serialize_field("senate", &PerPlayer::of(position.senate))?;
        state.serialize_field("markers", &PerPlayer::of(position.markers))?;
        state.serialize_field("rng", &position.chance.to_state())?;
        state.end()
    }
}

/// Every border by id, in border order: null, or its token.
pub(super) struct BordersOf<'a>(pub(super) &'a Position);

impl Serialize for BordersOf<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let mut borders = serializer.serialize_map(Some(BORDER_COUNT))?;
        for (border, placed) in self.0.borders.iter().enumerate() {
            let token = placed.map(|placed| TokenOf(border, placed));
            borders.serialize_entry(border_id(border), &token)?;
        }
        borders.end()
    }
}

/// A token on a border, as `BorderState` says.
struct TokenOf(usize, Placed);

impl Serialize for TokenOf {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let TokenOf(border, placed) = *self;
        let mut token = serializer.serialize_struct("BorderState", 5)?;
        token.serialize_field("player", placed.owner.name())?;
        token.serialize_field("token", token_code(placed.kind as usize))?;
        token.serialize_field("faces", &FacesOf(border, placed))?;
        token.serialize_field("flipped", &placed.flipped)?;
        token.serialize_field("marker", &placed.marker.map(Player::name))?;
        token.end()
    }
}

/// The numbers a token shows toward its border's two provinces, by province code.
pub(super) struct FacesOf(pub(super) usize, pub(super) Placed);

impl Serialize for FacesOf {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let FacesOf(border, placed) = *self;
        let (a, b, _) = BORDERS[border];
        let (first, second) = placed.faces();
        let mut faces = serializer.serialize_map(Some(2))?;
        faces.serialize_entry(province_code(a), &first)?;
        faces.serialize_entry(province_code(b), &second)?;
        faces.end()
    }
}

/// Every province by code, in table order, as `ProvinceState` says.
pub(super) struct ProvincesOf<'a>(pub(super) &'a Position);

impl Serialize for ProvincesOf<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Province {
            bonus: Option<&'static str>,
            control: Option<&'static str>,
            flipped: bool,
        }
        let position = self.0;
        let mut provinces = serializer.serialize_map(Some(PROVINCE_COUNT))?;
        for q in 0..PROVINCE_COUNT {
            let province = Province {
                bonus: position.bonus[q].map(Bonus::name),
                control: position.control[q].map(Player::name),
                flipped: position.is_flipped(q),
            };
            provinces.serialize_entry(province_code(q), &province)?;
        }
        provinces.end()
    }
}

/// Tokens in token order, as a list of codes.
pub(super) struct TokensOf<'a>(pub(super) &'a Tokens);

impl<'a> TokensOf<'a> {
    fn both(tokens: &'a [Tokens; 2]) -> PerPlayer<TokensOf<'a>> {
        PerPlayer::of(tokens.each_ref().map(TokensOf))
    }
}

impl Serialize for TokensOf<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.collect_seq(codes_in_order(self.0))
    }
}
