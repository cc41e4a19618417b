//! The one reader of Caesar! states: a state object straight into a `Position` (`read`), every
//! refusal worded, as `State` says.
//!
//! The reader fills `invariants::Parts`, each part checked alone as it is read; a fault of the
//! object's own form is told at once, as serde's derive words a struct's (a field unknown, missing
//! or given twice, a value of another type).

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use super::board::{
    border_id, parse_province, parse_token, province_code, token_code, Bonus, Player, BORDERS,
    BORDER_COUNT, PROVINCE_COUNT, TOKENS,
};
use super::invariants::{
    check_icon, player_named, BorderKey, Borders, BordersRead, Parts, ProvinceRead, Provinces,
    ProvincesRead, TokenList,
};
use super::state::PerPlayer;
use super::{Placed, Position};
use crate::chance::{ChanceKeys, ChanceState};
use crate::error::{Error, Result};

/// A state object's fields, in `State`'s order.
const FIELDS: [&str; 11] = [
    "rules",
    "to_move",
    "borders",
    "provinces",
    "italia_dashed",
    "hands",
    "bags",
    "hand_limits",
    "senate",
    "markers",
    "rng",
];
const BORDER_FIELDS: [&str; 5] = ["player", "token", "faces", "flipped", "marker"];
const PROVINCE_FIELDS: [&str; 3] = ["bonus", "control", "flipped"];

/// A state object read into its position (or the first fault of its parts); `Err` for a fault of
/// its form.
pub(super) fn read<'de, D: Deserializer<'de>>(
    deserializer: D,
    keys: Option<&ChanceKeys>,
) -> std::result::Result<Result<Position>, D::Error> {
    deserializer
        .deserialize_map(StateVisitor)
        .map(|parts| parts.position(keys))
}

/// The index of a field in `names`, or serde's refusal of an unknown field (`expected` is tried
/// first: states list their fields in one order).
struct FieldKey {
    names: &'static [&'static str],
    expected: usize,
}

impl<'de> DeserializeSeed<'de> for FieldKey {
    type Value = usize;
    fn deserialize<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> std::result::Result<usize, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl Visitor<'_> for FieldKey {
    type Value = usize;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("field identifier")
    }
    fn visit_str<E: de::Error>(self, text: &str) -> std::result::Result<usize, E> {
        if self.names.get(self.expected) == Some(&text) {
            return Ok(self.expected);
        }
        self.names
            .iter()
            .position(|name| *name == text)
            .ok_or_else(|| E::unknown_field(text, self.names))
    }
}

/// The fields of a struct read by hand as serde's derive reads them: each once (a field given
/// twice is refused), and a field missing refused in the order of `names`.
struct Fields {
    names: &'static [&'static str],
    seen: u32,
    expected: usize,
}

impl Fields {
    fn of(names: &'static [&'static str]) -> Fields {
        Fields {
            names,
            seen: 0,
            expected: 0,
        }
    }

    /// The next field of `map`, once.
    fn next<'de, M: MapAccess<'de>>(
        &mut self,
        map: &mut M,
    ) -> std::result::Result<Option<usize>, M::Error> {
        let key = FieldKey {
            names: self.names,
            expected: self.expected,
        };
        let Some(field) = map.next_key_seed(key)? else {
            return Ok(None);
        };
        if self.seen >> field & 1 == 1 {
            return Err(de::Error::duplicate_field(self.names[field]));
        }
        self.seen |= 1 << field;
        self.expected = field + 1;
        Ok(Some(field))
    }

    /// The value read for `field`, or serde's refusal of a missing field.
    fn given<T, E: de::Error>(&self, field: usize, value: Option<T>) -> std::result::Result<T, E> {
        value.ok_or_else(|| E::missing_field(self.names[field]))
    }
}

struct StateVisitor;

impl<'de> Visitor<'de> for StateVisitor {
    type Value = Parts;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> std::result::Result<Parts, M::Error> {
        let mut fields = Fields::of(&FIELDS);
        let (mut rules, mut to_move, mut borders, mut provinces, mut italia_dashed) =
            (None, None, None, None, None);
        let (mut hands, mut bags, mut hand_limits, mut senate, mut markers, mut rng) =
            (None, None, None, None, None, None);
        while let Some(field) = fields.next(&mut map)? {
            match field {
                0 => rules = Some(map.next_value_seed(RulesVersion)?),
                1 => to_move = Some(map.next_value_seed(Named::optional(Player::parse))?),
                2 => borders = Some(map.next_value_seed(PlacesSeed::<BordersRead>::new())?),
                3 => provinces = Some(map.next_value_seed(PlacesSeed::<ProvincesRead>::new())?),
                4 => italia_dashed = Some(map.next_value_seed(Named::optional(Player::parse))?),
                5 => hands = Some(map.next_value::<Object<PerPlayer<TokenList>>>()?.0),
                6 => bags = Some(map.next_value::<Object<PerPlayer<TokenList>>>()?.0),
                7 => hand_limits = Some(map.next_value::<Object<PerPlayer<u32>>>()?.0),
                8 => senate = Some(map.next_value::<Object<PerPlayer<u32>>>()?.0),
                9 => markers = Some(map.next_value::<Object<PerPlayer<u32>>>()?.0),
                _ => rng = Some(map.next_value::<Object<ChanceState>>()?.0),
            }
        }
        let rules = fields.given(0, rules)?;
        let to_move = fields.given(1, to_move)?;
        let borders = fields.given(2, borders)?;
        let provinces = fields.given(3, provinces)?;
        let italia_dashed = fields.given(4, italia_dashed)?;
        let hands = fields.given(5, hands)?;
        let bags = fields.given(6, bags)?;
        let hand_limits = fields.given(7, hand_limits)?;
        let senate = fields.given(8, senate)?;
        let markers = fields.given(9, markers)?;
        let rng = fields.given(10, rng)?;
        Ok(Parts {
            rules,
            rng,
            to_move: player_named(to_move, || "to_move".into()),
            borders,
            provinces,
            italia_dashed: player_named(italia_dashed, || "italia_dashed".into()),
            hands: hands.into_values(),
            bags: bags.into_values(),
            hand_limits: hand_limits.into_values(),
            senate: senate.into_values(),
            markers: markers.into_values(),
        })
    }
}

/// A value that is a JSON object and nothing else (`strict::object`).
struct Object<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        crate::strict::object(deserializer).map(Object)
    }
}

/// The rules version: this engine's, or its refusal.
struct RulesVersion;

impl<'de> DeserializeSeed<'de> for RulesVersion {
    type Value = Result<()>;
    fn deserialize<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> std::result::Result<Result<()>, D::Error> {
        deserializer.deserialize_string(self)
    }
}

impl Visitor<'_> for RulesVersion {
    type Value = Result<()>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_str<E: de::Error>(self, text: &str) -> std::result::Result<Result<()>, E> {
        Ok(crate::game::check_rules_version::<super::Caesar>(text))
    }
}

/// A name read by `parse`: what it names, or the text as given (for the refusal that quotes it).
/// `optional`: null too, as `None`.
struct Named<T> {
    parse: fn(&str) -> Option<T>,
}

impl<T> Named<T> {
    fn required(parse: fn(&str) -> Option<T>) -> Named<T> {
        Named { parse }
    }

    fn optional(parse: fn(&str) -> Option<T>) -> Optional<T> {
        Optional(Named { parse })
    }
}

impl<'de, T> DeserializeSeed<'de> for Named<T> {
    type Value = std::result::Result<T, String>;
    fn deserialize<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> std::result::Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<T> Visitor<'_> for Named<T> {
    type Value = std::result::Result<T, String>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_str<E: de::Error>(self, text: &str) -> std::result::Result<Self::Value, E> {
        Ok((self.parse)(text).ok_or_else(|| text.to_owned()))
    }
}

/// A `Named` or null (required, even when null).
struct Optional<T>(Named<T>);

impl<'de, T> DeserializeSeed<'de> for Optional<T> {
    type Value = std::result::Result<Option<T>, String>;
    fn deserialize<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> std::result::Result<Self::Value, D::Error> {
        deserializer.deserialize_option(self)
    }
}

impl<'de, T> Visitor<'de> for Optional<T> {
    type Value = std::result::Result<Option<T>, String>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("option")
    }
    fn visit_none<E: de::Error>(self) -> std::result::Result<Self::Value, E> {
        Ok(Ok(None))
    }
    fn visit_unit<E: de::Error>(self) -> std::result::Result<Self::Value, E> {
        Ok(Ok(None))
    }
    fn visit_some<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> std::result::Result<Self::Value, D::Error> {
        Ok(self.0.deserialize(deserializer)?.map(Some))
    }
}

/// A list of tokens: each a string, added to the `TokenList` as read.
impl<'de> Deserialize<'de> for TokenList {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        struct ListVisitor;
        impl<'de> Visitor<'de> for ListVisitor {
            type Value = TokenList;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a sequence")
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<TokenList, A::Error> {
                let mut list = TokenList::default();
                while seq.next_element_seed(Token(&mut list))?.is_some() {}
                Ok(list)
            }
        }
        deserializer.deserialize_seq(ListVisitor)
    }
}

/// The next token of a list.
struct Token<'a>(&'a mut TokenList);

impl<'de> DeserializeSeed<'de> for Token<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> std::result::Result<(), D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for Token<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_str<E: de::Error>(self, code: &str) -> std::result::Result<(), E> {
        self.0.add(code.as_bytes());
        Ok(())
    }
}

/// An object of every place of one kind (borders, provinces) by name, as it is read: each key
/// parsed, listed once, its value read and placed; the first fault stops the checks (the reader
/// of the kind, in `invariants`, keeps it).
trait PlacesRead: Default {
    /// A key as given: a place named as the rules name it, or the text as given.
    type Key;
    /// The places, once all are read.
    type Places;
    const COUNT: usize;
    /// A place's name as the rules write it.
    fn name(place: usize) -> &'static str;
    fn parse(text: &str) -> Self::Key;
    /// The key of a place named as the rules write it.
    fn known(place: usize) -> Self::Key;
    fn place_of(key: &Self::Key) -> Option<usize>;
    /// The place a key names, when it is listed once and no fault was found before.
    fn listed(&mut self, key: Self::Key) -> Option<usize>;
    /// The value of the entry of `place` (`None`: no place to fill) read from `map`, and placed.
    fn read_value<'de, M: MapAccess<'de>>(
        &mut self,
        map: &mut M,
        place: Option<usize>,
    ) -> std::result::Result<(), M::Error>;
    /// The places, or the first fault: of a place, or a place missing.
    fn finish(self) -> Result<Self::Places>;
}

impl PlacesRead for BordersRead {
    type Key = BorderKey;
    type Places = Borders;
    const COUNT: usize = BORDER_COUNT;

    fn name(border: usize) -> &'static str {
        border_id(border)
    }

    fn parse(text: &str) -> BorderKey {
        BorderKey::of(text)
    }

    fn known(border: usize) -> BorderKey {
        BorderKey::Border(border)
    }

    fn place_of(key: &BorderKey) -> Option<usize> {
        match key {
            BorderKey::Border(border) => Some(*border),
            BorderKey::Other(_) => None,
        }
    }

    fn listed(&mut self, key: BorderKey) -> Option<usize> {
        BordersRead::listed(self, key)
    }

    /// Null, or a token (read for the border when it is one listed once).
    #[inline]
    fn read_value<'de, M: MapAccess<'de>>(
        &mut self,
        map: &mut M,
        border: Option<usize>,
    ) -> std::result::Result<(), M::Error> {
        if let (Some(token), Some(border)) = (map.next_value_seed(BorderSeed(border))?, border) {
            self.place(border, token.placed(border));
        }
        Ok(())
    }

    fn finish(self) -> Result<Borders> {
        BordersRead::finish(self)
    }
}

impl PlacesRead for ProvincesRead {
    /// A province, or the code as given.
    type Key = std::result::Result<usize, String>;
    type Places = Provinces;
    const COUNT: usize = PROVINCE_COUNT;

    fn name(province: usize) -> &'static str {
        province_code(province)
    }

    fn parse(code: &str) -> Self::Key {
        parse_province(code).ok_or_else(|| code.to_owned())
    }

    fn known(province: usize) -> Self::Key {
        Ok(province)
    }

    fn place_of(key: &Self::Key) -> Option<usize> {
        key.as_ref().ok().copied()
    }

    fn listed(&mut self, key: Self::Key) -> Option<usize> {
        ProvincesRead::listed(self, key)
    }

    /// The province's fields.
    #[inline]
    fn read_value<'de, M: MapAccess<'de>>(
        &mut self,
        map: &mut M,
        province: Option<usize>,
    ) -> std::result::Result<(), M::Error> {
        let read = map.next_value::<ProvinceFields>()?.0;
        if let Some(province) = province {
            self.place(province, read);
        }
        Ok(())
    }

    fn finish(self) -> Result<Provinces> {
        ProvincesRead::finish(self)
    }
}

/// The places of a state of one kind (`P`): an object of every place by name.
struct PlacesSeed<P>(PhantomData<P>);

impl<P> PlacesSeed<P> {
    fn new() -> PlacesSeed<P> {
        PlacesSeed(PhantomData)
    }
}

impl<'de, P: PlacesRead> DeserializeSeed<'de> for PlacesSeed<P> {
    type Value = Result<P::Places>;
    fn deserialize<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> std::result::Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de, P: PlacesRead> Visitor<'de> for PlacesSeed<P> {
    type Value = Result<P::Places>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<M: MapAccess<'de>>(
        self,
        mut map: M,
    ) -> std::result::Result<Self::Value, M::Error> {
        let mut places = P::default();
        let mut expected = 0;
        while let Some(key) = map.next_key_seed(PlaceKey::<P>(expected, PhantomData))? {
            if let Some(place) = P::place_of(&key) {
                expected = place + 1;
            }
            let place = places.listed(key);
            places.read_value(&mut map, place)?;
        }
        Ok(places.finish())
    }
}

/// A key of an object of places, as given (the place `.0`, after the last one read, is tried
/// first: states list their places in one order).
struct PlaceKey<P>(usize, PhantomData<P>);

impl<'de, P: PlacesRead> DeserializeSeed<'de> for PlaceKey<P> {
    type Value = P::Key;
    fn deserialize<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> std::result::Result<P::Key, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<P: PlacesRead> Visitor<'_> for PlaceKey<P> {
    type Value = P::Key;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_str<E: de::Error>(self, text: &str) -> std::result::Result<P::Key, E> {
        let expected = self.0;
        if expected < P::COUNT && P::name(expected) == text {
            return Ok(P::known(expected));
        }
        Ok(P::parse(text))
    }
}

/// A border's token as given, each part read (and a name that names nothing kept as given).
struct TokenRead {
    player: std::result::Result<Player, String>,
    token: std::result::Result<usize, String>,
    faces: Faces,
    flipped: bool,
    marker: std::result::Result<Option<Player>, String>,
}

impl TokenRead {
    /// The token on `border`, checked: its owner, a token of the border's icon, its faces, its
    /// marker.
    fn placed(self, border: usize) -> Result<Placed> {
        let field = |part: &str| format!("borders.{}.{part}", border_id(border));
        let owner = self.player.map_err(|name| {
            Error::invalid_state(
                field("player"),
                format!("{name:?} is not a player (caesar, pompey)"),
            )
        })?;
        let kind = self.token.map_err(|token| {
            Error::invalid_state(field("token"), format!("{token:?} is not a token"))
        })?;
        check_icon(border, kind)?;
        let forward = self.faces.forward(border, kind)?;
        let marker = player_named(self.marker, || field("marker"))?;
        Ok(Placed {
            kind: kind as u8,
            owner,
            forward: forward || super::board::is_symmetric(kind),
            flipped: self.flipped,
            marker,
        })
    }
}

/// The numbers a token's faces show toward the border's two provinces (the first given for each),
/// and how many faces are given.
#[derive(Default)]
struct Faces {
    toward: [Option<u32>; 2],
    given: usize,
}

impl Faces {
    /// Whether the token of `kind` turns its larger number toward the border's first province: its
    /// faces name both provinces, nothing else, and show the token's two numbers.
    fn forward(&self, border: usize, kind: usize) -> Result<bool> {
        let field = || format!("borders.{}.faces", border_id(border));
        let (a, b, _) = BORDERS[border];
        let (_, _, hi, lo, _) = TOKENS[kind];
        let ([Some(face_a), Some(face_b)], 2) = (self.toward, self.given) else {
            return Err(Error::invalid_state(
                field(),
                format!(
                    "faces gives the number toward {} and toward {}, nothing else",
                    province_code(a),
                    province_code(b)
                ),
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
                    token_code(kind)
                ),
            ))
        }
    }
}

/// A border's value: null, or a token (read for `border` when it is one listed once).
struct BorderSeed(Option<usize>);

impl<'de> DeserializeSeed<'de> for BorderSeed {
    type Value = Option<TokenRead>;
    fn deserialize<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> std::result::Result<Self::Value, D::Error> {
        deserializer.deserialize_option(self)
    }
}

impl<'de> Visitor<'de> for BorderSeed {
    type Value = Option<TokenRead>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("option")
    }
    fn visit_none<E: de::Error>(self) -> std::result::Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E: de::Error>(self) -> std::result::Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_some<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> std::result::Result<Self::Value, D::Error> {
        deserializer.deserialize_map(TokenVisitor(self.0)).map(Some)
    }
}

struct TokenVisitor(Option<usize>);

impl<'de> Visitor<'de> for TokenVisitor {
    type Value = TokenRead;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> std::result::Result<TokenRead, M::Error> {
        let mut fields = Fields::of(&BORDER_FIELDS);
        let (mut player, mut token, mut faces, mut flipped, mut marker) =
            (None, None, None, None, None);
        while let Some(field) = fields.next(&mut map)? {
            match field {
                0 => player = Some(map.next_value_seed(Named::required(Player::parse))?),
                1 => token = Some(map.next_value_seed(Named::required(parse_token))?),
                2 => faces = Some(map.next_value_seed(FacesSeed(self.0))?),
                3 => flipped = Some(map.next_value::<bool>()?),
                _ => marker = Some(map.next_value_seed(Named::optional(Player::parse))?),
            }
        }
        Ok(TokenRead {
            player: fields.given(0, player)?,
            token: fields.given(1, token)?,
            faces: fields.given(2, faces)?,
            flipped: fields.given(3, flipped)?,
            marker: fields.given(4, marker)?,
        })
    }
}

/// A token's faces: an object of numbers by province code (those of `border`'s two provinces
/// kept).
struct FacesSeed(Option<usize>);

impl<'de> DeserializeSeed<'de> for FacesSeed {
    type Value = Faces;
    fn deserialize<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> std::result::Result<Faces, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for FacesSeed {
    type Value = Faces;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> std::result::Result<Faces, M::Error> {
        let codes = self.0.map(|border| {
            let (a, b, _) = BORDERS[border];
            [province_code(a), province_code(b)]
        });
        let mut faces = Faces::default();
        while let Some(side) = map.next_key_seed(Side(codes))? {
            let number = map.next_value::<u32>()?;
            if let Some(side) = side {
                faces.toward[side].get_or_insert(number);
            }
            faces.given += 1;
        }
        Ok(faces)
    }
}

/// A key of a token's faces: which of the border's two provinces it names, if either.
struct Side(Option<[&'static str; 2]>);

impl<'de> DeserializeSeed<'de> for Side {
    type Value = Option<usize>;
    fn deserialize<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> std::result::Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for Side {
    type Value = Option<usize>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_str<E: de::Error>(self, text: &str) -> std::result::Result<Self::Value, E> {
        Ok(self
            .0
            .and_then(|codes| codes.iter().position(|code| *code == text)))
    }
}

/// A province's fields.
struct ProvinceFields(ProvinceRead);

impl<'de> Deserialize<'de> for ProvinceFields {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        deserializer.deserialize_map(ProvinceVisitor)
    }
}

struct ProvinceVisitor;

impl<'de> Visitor<'de> for ProvinceVisitor {
    type Value = ProvinceFields;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<M: MapAccess<'de>>(
        self,
        mut map: M,
    ) -> std::result::Result<ProvinceFields, M::Error> {
        let mut fields = Fields::of(&PROVINCE_FIELDS);
        let (mut bonus, mut control, mut flipped) = (None, None, None);
        while let Some(field) = fields.next(&mut map)? {
            match field {
                0 => bonus = Some(map.next_value_seed(Named::optional(Bonus::parse))?),
                1 => control = Some(map.next_value_seed(Named::optional(Player::parse))?),
                _ => flipped = Some(map.next_value::<bool>()?),
            }
        }
        Ok(ProvinceFields(ProvinceRead {
            bonus: fields.given(0, bonus)?,
            control: fields.given(1, control)?,
            flipped: fields.given(2, flipped)?,
        }))
    }
}
