//! Reading an untrusted Caesar! state straight into a `Position`, from its JSON object or from its
//! position string, with every refusal worded (as shakmaty reads a FEN into a `Setup` and checks it
//! into a `Position`). Each reader fills the same `Parts`, each part checked alone as it is read;
//! `Parts::position` then reports the first fault in the order of the state's fields, whatever
//! order the text gives them in, and checks the parts together (`invariants`).
//!
//! A fault of the text's own form is told at once: for an object, as serde's derive of the state's
//! structs words it (an unknown, missing or repeated field, a value of another type); for a
//! position string, as its notation is written (field `position`).

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use super::board::{
    border_id, parse_border, parse_province, parse_token, province_code, token_code, token_of_code,
    Bonus, Player, Tokens, BORDERS, BORDER_COUNT, CONTROL_MARKERS, IT, PROVINCE_COUNT,
    START_HAND_LIMIT, TOKENS,
};
use super::invariants::check_consistency;
use super::state::PerPlayer;
use super::{Placed, Position};
use crate::chance::{Chance, ChanceState};
use crate::error::{Error, Result};

/// What a state gives, each part read and checked alone: its value, or its first fault.
pub(super) struct Parts {
    pub(super) rules: Result<()>,
    pub(super) rng: ChanceState,
    pub(super) to_move: Result<Option<Player>>,
    pub(super) borders: Result<Borders>,
    pub(super) provinces: Result<Provinces>,
    pub(super) italia_dashed: Result<Option<Player>>,
    /// Each player's hand and bag, or what is wrong with the list.
    pub(super) hands: [TokenList; 2],
    pub(super) bags: [TokenList; 2],
    pub(super) hand_limits: [u32; 2],
    pub(super) senate: [u32; 2],
    pub(super) markers: [u32; 2],
}

impl Parts {
    /// The position, or the first fault of its parts in the order of the state's fields (each
    /// player's after the board's), then of the parts together.
    pub(super) fn position(self) -> Result<Position> {
        self.rules?;
        let mut position = Position::empty(Chance::from_state(&self.rng, "rng")?);
        position.to_move = self.to_move?;
        let borders = self.borders?;
        (position.borders, position.filled) = (borders.placed, borders.filled);
        let provinces = self.provinces?;
        position.bonus = provinces.bonus;
        position.control = provinces.control;
        position.province_flipped = provinces.flipped;
        position.italia_dashed = self.italia_dashed?;
        let [hands, bags] = [self.hands, self.bags];
        for ((player, hand), bag) in Player::BOTH.into_iter().zip(hands).zip(bags) {
            let p = player as usize;
            let name = player.name();
            // Field names are written only for a fault: most states have none.
            let field = |part: &'static str| move || format!("{part}.{name}");
            position.hands[p] = hand.counts(field("hands"))?;
            position.bags[p] = bag.counts(field("bags"))?;
            position.hand_limits[p] = hand_limit(self.hand_limits[p], field("hand_limits"))?;
            let senate = Bonus::Senate.count();
            position.senate[p] = small(
                self.senate[p],
                senate,
                field("senate"),
                "Senate tokens held",
            )?;
            position.markers[p] = small(
                self.markers[p],
                CONTROL_MARKERS,
                field("markers"),
                "control markers placed",
            )?;
        }
        check_consistency(&position)?;
        Ok(position)
    }
}

/// A hand limit: 2, and one more for each Wealth token taken (four at most).
fn hand_limit(value: u32, field: impl Fn() -> String) -> Result<u8> {
    let limit = small(value, START_HAND_LIMIT + 4, &field, "a hand limit")?;
    if limit < START_HAND_LIMIT {
        return Err(Error::invalid_state(field(), "a hand limit is at least 2"));
    }
    Ok(limit)
}

fn small(value: u32, max: u8, field: impl Fn() -> String, what: &str) -> Result<u8> {
    u8::try_from(value)
        .ok()
        .filter(|&v| v <= max)
        .ok_or_else(|| {
            Error::invalid_state(field(), format!("{what} is at most {max}, not {value}"))
        })
}

/// A player named in a state (`None`: null), or the refusal of a name that is no player.
pub(super) fn player_named(
    name: std::result::Result<Option<Player>, String>,
    field: impl Fn() -> String,
) -> Result<Option<Player>> {
    name.map_err(|name| {
        Error::invalid_state(
            field(),
            format!("{name:?} is not a player (caesar, pompey)"),
        )
    })
}

/// A list of tokens as read: in token order, each kind at most as many times as a bag holds it,
/// else the first fault found.
#[derive(Default)]
pub(super) struct TokenList {
    counts: Tokens,
    /// The kind listed last.
    last: usize,
    fault: Option<String>,
}

impl TokenList {
    /// Adds the token a list names next (nothing once a fault is found).
    #[inline]
    pub(super) fn add(&mut self, code: &[u8]) {
        if self.fault.is_some() {
            return;
        }
        let Some(kind) = token_of_code(code) else {
            let code = String::from_utf8_lossy(code);
            self.fault = Some(format!("{code:?} is not a token"));
            return;
        };
        if kind < self.last {
            self.fault = Some(
                "tokens are listed in token order (L40 L31 L22 S60 S51 S42 S33 D60 .. N33)".into(),
            );
            return;
        }
        self.last = kind;
        self.counts[kind] = self.counts[kind].saturating_add(1);
        if self.counts[kind] > TOKENS[kind].4 {
            let code = token_code(kind);
            self.fault = Some(format!("a player has only {} {code}", TOKENS[kind].4));
        }
    }

    /// The token counts, or the list's fault (`field` names the list).
    fn counts(self, field: impl Fn() -> String) -> Result<Tokens> {
        match self.fault {
            None => Ok(self.counts),
            Some(detail) => Err(Error::invalid_state(field(), detail)),
        }
    }
}

/// The tokens on the borders, each border listed once by its id as the rules write it.
pub(super) struct Borders {
    placed: [Option<Placed>; BORDER_COUNT],
    /// Bit set of the borders holding a token.
    filled: u32,
}

/// `Borders` as they are read, one border after another: the first fault stops the checks.
#[derive(Default)]
pub(super) struct BordersRead {
    placed: [Option<Placed>; BORDER_COUNT],
    filled: u32,
    /// Bit set of the borders listed.
    seen: u32,
    fault: Option<Error>,
}

/// A border's key as given: a border by its id as the rules write it, or any other text.
pub(super) enum BorderKey {
    Border(usize),
    Other(String),
}

impl BorderKey {
    fn of(text: &str) -> BorderKey {
        match parse_border(text) {
            Some((border, true)) => BorderKey::Border(border),
            _ => BorderKey::Other(text.to_owned()),
        }
    }
}

impl BordersRead {
    /// Borders given by their place in border order (the notation's), each listed once.
    pub(super) fn in_order() -> BordersRead {
        BordersRead {
            seen: (1 << BORDER_COUNT) - 1,
            ..BordersRead::default()
        }
    }

    /// The border a key names, when no fault was found before and it is listed once, by its id.
    #[inline]
    pub(super) fn listed(&mut self, key: BorderKey) -> Option<usize> {
        if self.fault.is_some() {
            return None;
        }
        let border = match key {
            BorderKey::Border(border) => border,
            BorderKey::Other(given) => {
                let fault = match parse_border(&given) {
                    Some((border, _)) => format!(
                        "borders are named as the rules list them: {}",
                        border_id(border)
                    ),
                    None => format!("{given:?} is not a border"),
                };
                self.fault = Some(Error::invalid_state(format!("borders.{given}"), fault));
                return None;
            }
        };
        if self.seen >> border & 1 == 1 {
            let id = border_id(border);
            let fault =
                Error::invalid_state(format!("borders.{id}"), format!("{id} is listed twice"));
            self.fault = Some(fault);
            return None;
        }
        self.seen |= 1 << border;
        Some(border)
    }

    /// The token on `border` (listed), checked (nothing once a fault is found).
    #[inline]
    pub(super) fn place(&mut self, border: usize, placed: Result<Placed>) {
        if self.fault.is_some() {
            return;
        }
        match placed {
            Ok(placed) => {
                self.placed[border] = Some(placed);
                self.filled |= 1 << border;
            }
            Err(fault) => self.fault = Some(fault),
        }
    }

    /// The borders, or the first fault: of a border, or a border missing.
    pub(super) fn finish(self) -> Result<Borders> {
        if let Some(fault) = self.fault {
            return Err(fault);
        }
        if let Some(missing) = (0..BORDER_COUNT).find(|b| self.seen >> b & 1 == 0) {
            return Err(Error::invalid_state(
                "borders",
                format!(
                    "every border is listed (null when empty); {} is missing",
                    border_id(missing)
                ),
            ));
        }
        Ok(Borders {
            placed: self.placed,
            filled: self.filled,
        })
    }
}

/// A token on `border` of `kind`, refused when the border's icon does not take it (`token` names
/// the token as given).
#[inline(always)]
pub(super) fn check_icon(border: usize, kind: usize) -> Result<()> {
    let (_, _, icon) = BORDERS[border];
    if TOKENS[kind].1.is_some_and(|t| t != icon) {
        let id = border_id(border);
        return Err(Error::invalid_state(
            format!("borders.{id}.token"),
            format!(
                "{} cannot lie on {id}, a {} border",
                token_code(kind),
                icon.name()
            ),
        ));
    }
    Ok(())
}

/// The bonus tokens, control markers and flips of the provinces, each listed once by its code.
pub(super) struct Provinces {
    bonus: [Option<Bonus>; PROVINCE_COUNT],
    control: [Option<Player>; PROVINCE_COUNT],
    /// Bit set of the provinces whose marker Might flipped.
    flipped: u32,
}

/// A province as a state gives it: its bonus, its controller (each, or the text that names
/// none), and whether its marker is flipped.
pub(super) struct ProvinceRead {
    pub(super) bonus: std::result::Result<Option<Bonus>, String>,
    pub(super) control: std::result::Result<Option<Player>, String>,
    pub(super) flipped: bool,
}

/// `Provinces` as they are read, one after another: the first fault stops the checks.
#[derive(Default)]
pub(super) struct ProvincesRead {
    bonus: [Option<Bonus>; PROVINCE_COUNT],
    control: [Option<Player>; PROVINCE_COUNT],
    flipped: u32,
    seen: u32,
    fault: Option<Error>,
}

impl ProvincesRead {
    /// Provinces given by their place in table order (the notation's), each listed once.
    pub(super) fn in_order() -> ProvincesRead {
        ProvincesRead {
            seen: (1 << PROVINCE_COUNT) - 1,
            ..ProvincesRead::default()
        }
    }

    /// The province a key names (`Err`: the key as given), when no fault was found before and it
    /// is listed once.
    #[inline]
    pub(super) fn listed(&mut self, key: std::result::Result<usize, String>) -> Option<usize> {
        if self.fault.is_some() {
            return None;
        }
        match key {
            Err(code) => {
                let fault = format!("{code:?} is not a province");
                self.fault = Some(Error::invalid_state(format!("provinces.{code}"), fault));
                None
            }
            Ok(province) if self.seen >> province & 1 == 1 => {
                let code = province_code(province);
                let fault = format!("{code} is listed twice");
                self.fault = Some(Error::invalid_state(format!("provinces.{code}"), fault));
                None
            }
            Ok(province) => {
                self.seen |= 1 << province;
                Some(province)
            }
        }
    }

    /// `province` (listed) as read, checked: its bonus, Italia's a Senate token, its controller, a
    /// flip only of a marker.
    #[inline]
    pub(super) fn place(&mut self, province: usize, read: ProvinceRead) {
        if self.fault.is_some() {
            return;
        }
        if let Err(fault) = self.checked(province, read) {
            self.fault = Some(fault);
        }
    }

    #[inline]
    fn checked(&mut self, province: usize, read: ProvinceRead) -> Result<()> {
        let field = |part: &str| format!("provinces.{}.{part}", province_code(province));
        let bonus = read.bonus.map_err(|name| {
            Error::invalid_state(
                field("bonus"),
                format!("{name:?} is not a bonus (senate, tactics, wealth, might)"),
            )
        })?;
        if province == IT && bonus.is_some_and(|b| b != Bonus::Senate) {
            return Err(Error::invalid_state(
                field("bonus"),
                "Italia's bonus is a Senate token",
            ));
        }
        let control = player_named(read.control, || field("control"))?;
        if read.flipped && control.is_none() {
            return Err(Error::invalid_state(
                field("flipped"),
                format!(
                    "{} has no control marker to be flipped",
                    province_code(province)
                ),
            ));
        }
        self.bonus[province] = bonus;
        self.control[province] = control;
        self.flipped |= u32::from(read.flipped) << province;
        Ok(())
    }

    /// The provinces, or the first fault: of a province, or a province missing.
    pub(super) fn finish(self) -> Result<Provinces> {
        if let Some(fault) = self.fault {
            return Err(fault);
        }
        if let Some(missing) = (0..PROVINCE_COUNT).find(|q| self.seen >> q & 1 == 0) {
            return Err(Error::invalid_state(
                "provinces",
                format!(
                    "every province is listed; {} is missing",
                    province_code(missing)
                ),
            ));
        }
        Ok(Provinces {
            bonus: self.bonus,
            control: self.control,
            flipped: self.flipped,
        })
    }
}

// ---------------------------------------------------------------------------- the JSON object

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
) -> std::result::Result<Result<Position>, D::Error> {
    deserializer
        .deserialize_map(StateVisitor)
        .map(Parts::position)
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
                2 => borders = Some(map.next_value_seed(BordersSeed)?),
                3 => provinces = Some(map.next_value_seed(ProvincesSeed)?),
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

/// A key of an object of places (borders, provinces), as given: `parse` reads it (`expected`,
/// whose name is `name(expected)`, is tried first: states list their places in one order).
struct PlaceKey<T> {
    expected: usize,
    count: usize,
    name: fn(usize) -> &'static str,
    parse: fn(&str) -> T,
    known: fn(usize) -> T,
}

impl<'de, T> DeserializeSeed<'de> for PlaceKey<T> {
    type Value = T;
    fn deserialize<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> std::result::Result<T, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<T> Visitor<'_> for PlaceKey<T> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_str<E: de::Error>(self, text: &str) -> std::result::Result<T, E> {
        if self.expected < self.count && (self.name)(self.expected) == text {
            return Ok((self.known)(self.expected));
        }
        Ok((self.parse)(text))
    }
}

/// The borders of a state: an object of every border by id, each null or a token.
struct BordersSeed;

impl<'de> DeserializeSeed<'de> for BordersSeed {
    type Value = Result<Borders>;
    fn deserialize<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> std::result::Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for BordersSeed {
    type Value = Result<Borders>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<M: MapAccess<'de>>(
        self,
        mut map: M,
    ) -> std::result::Result<Self::Value, M::Error> {
        let mut borders = BordersRead::default();
        let mut expected = 0;
        loop {
            let key = PlaceKey {
                expected,
                count: BORDER_COUNT,
                name: border_id,
                parse: BorderKey::of,
                known: BorderKey::Border,
            };
            let Some(key) = map.next_key_seed(key)? else {
                break;
            };
            if let BorderKey::Border(border) = key {
                expected = border + 1;
            }
            let border = borders.listed(key);
            if let Some(token) = map.next_value_seed(BorderSeed(border))? {
                if let Some(border) = border {
                    borders.place(border, token.placed(border));
                }
            }
        }
        Ok(borders.finish())
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

/// The provinces of a state: an object of every province by code.
struct ProvincesSeed;

impl<'de> DeserializeSeed<'de> for ProvincesSeed {
    type Value = Result<Provinces>;
    fn deserialize<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> std::result::Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ProvincesSeed {
    type Value = Result<Provinces>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<M: MapAccess<'de>>(
        self,
        mut map: M,
    ) -> std::result::Result<Self::Value, M::Error> {
        let mut provinces = ProvincesRead::default();
        let mut expected = 0;
        loop {
            let key = PlaceKey {
                expected,
                count: PROVINCE_COUNT,
                name: province_code,
                parse: |code: &str| parse_province(code).ok_or_else(|| code.to_owned()),
                known: Ok,
            };
            let Some(key) = map.next_key_seed(key)? else {
                break;
            };
            if let Ok(province) = key {
                expected = province + 1;
            }
            let province = provinces.listed(key);
            let read = map.next_value::<ProvinceFields>()?.0;
            if let Some(province) = province {
                provinces.place(province, read);
            }
        }
        Ok(provinces.finish())
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

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::super::{position, state, Caesar, Position};
    use crate::game::default_setup;
    use crate::game::Rules;
    use crate::mutations::check_reader;

    /// Positions of seeded games, from the start to the end.
    fn positions() -> Vec<Position> {
        let setup = default_setup::<Caesar>();
        (0..4)
            .flat_map(|seed| {
                crate::mutations::positions::<Caesar>(&setup, Some(seed), 11, seed as usize * 3)
            })
            .collect()
    }

    /// Emits `state` with the tokens of two borders swapped (each showing the other's numbers
    /// toward its own provinces, in the same order): the token counts still agree, so only the
    /// border's icon can refuse it.
    fn swap_tokens(state: &Value, emit: &mut dyn FnMut(Value)) {
        let borders = state["borders"].as_object().unwrap();
        let filled: Vec<&String> = borders
            .keys()
            .filter(|id| !borders[*id].is_null())
            .collect();
        let token = |id: &str| {
            let (a, b) = id.split_once('-').unwrap();
            let faces = &borders[id]["faces"];
            (
                borders[id]["token"].clone(),
                [faces[a].clone(), faces[b].clone()],
            )
        };
        for (at, first) in filled.iter().enumerate() {
            for second in &filled[at + 1..] {
                let mut swapped = state.clone();
                for (id, (kind, [x, y])) in [(first, token(second)), (second, token(first))] {
                    let (a, b) = id.split_once('-').unwrap();
                    let border = &mut swapped["borders"][id.as_str()];
                    border["token"] = kind;
                    border["faces"] = json!({ a: x, b: y });
                }
                emit(swapped);
            }
        }
    }

    #[test]
    fn the_one_reader_reads_what_from_state_reads() {
        let others = [
            "null",
            "true",
            "0",
            "1",
            "6",
            "300",
            "-1",
            "2.0",
            "\"caesar\"",
            "\"pompey\"",
            "\"S60\"",
            "\"L22\"",
            "\"senate\"",
            "\"might\"",
            "\"caesar@1\"",
            "\"x\"",
            "[]",
            "[\"L40\",\"L40\"]",
            "{}",
        ];
        // Also each border named backwards, and the state as written (fields in their order).
        let swapped = |state: &Value| {
            let mut texts = Vec::new();
            swap_tokens(state, &mut |value| texts.push(value.to_string()));
            let text = state.to_string();
            for id in state["borders"].as_object().unwrap().keys() {
                let (a, b) = id.split_once('-').unwrap();
                texts.push(text.replacen(&format!("\"{id}\""), &format!("\"{b}-{a}\""), 1));
            }
            let position = Caesar::read_quick(&mut serde_json::Deserializer::from_str(&text));
            texts.push(
                serde_json::to_string(&Caesar::to_state(&position.unwrap().unwrap())).unwrap(),
            );
            texts
        };
        let seen = check_reader::<Caesar>(&positions(), &others, swapped);
        assert!(seen.taken > 0 && seen.refused > 0 && seen.malformed > 0);
    }

    #[test]
    fn the_one_notation_reader_reads_what_parse_text_and_from_state_read() {
        let changes = [
            "", ".", "c", "p", "C", "P", "-", ">", "<", "!", "^", "/", ",", " ", "0", "1", "9",
            "12", "S", "T", "M", "L", "D", "N", "x", "é",
        ];
        let (mut taken, mut cases) = (0, 0);
        for position in positions() {
            let text = position::text(&position);
            assert_eq!(position::read_text(&text), Ok(position));
            let at = text.char_indices().map(|(at, _)| at);
            for (at, end) in at.clone().zip(at.skip(1).chain([text.len()])) {
                let doubled = text[at..end].repeat(2);
                for change in changes.iter().copied().chain([doubled.as_str()]) {
                    let changed = format!("{}{change}{}", &text[..at], &text[end..]);
                    let exact = position::parse_text(&changed).and_then(state::from_state);
                    let one = position::read_text(&changed);
                    taken += usize::from(one.is_ok());
                    cases += 1;
                    assert_eq!(one, exact, "{changed}");
                }
            }
        }
        println!("{taken} taken of {cases}");
        assert!(taken > 0 && taken < cases, "{taken} taken of {cases}");
    }
}
