//! Reading a Caesar! state in one pass straight into a `Position`: a state object
//! (`Rules::read_quick`) or a position string. A state object is ~400 JSON values, and reading them
//! (or the notation's fields) into `State`'s names before checking those cost several times the
//! rules. Only a state in the usual good shape is taken: anything else (a field missing, repeated
//! or unknown, a name that is not the game's, a seal, a state `from_state` would refuse) fails
//! here, and `State` and `from_state` read it again and word the refusal. Tests hold the two
//! readers to the same positions.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use super::board::{
    border_id, is_symmetric, parse_border, parse_province, parse_token, province_code,
    token_of_code, Bonus, Player, Tokens, BORDERS, BORDER_COUNT, CONTROL_MARKERS, IT,
    PROVINCE_COUNT, START_HAND_LIMIT, TOKENS,
};
use super::invariants::check_consistency;
use super::state::{PerPlayer, RULES};
use super::{Placed, Position};
use crate::chance::{Chance, ChanceState, SeedText};
use crate::digits::decimal;

/// A state read by `read`, or the serde error that leaves it to `State`.
pub(super) fn read<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Position, D::Error> {
    deserializer.deserialize_map(StateVisitor)
}

/// The error that leaves a state to `State` (never shown: the caller reads the state again).
fn not_quick<E: de::Error>() -> E {
    E::custom("not a Caesar! state in the usual shape")
}

/// `Ok` only for `Some`.
fn taken<T, E: de::Error>(value: Option<T>) -> Result<T, E> {
    value.ok_or_else(not_quick)
}

/// The state's fields, in the order `State` declares them.
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

/// The index of a key in `names` (`expected` first: good states list their keys in one order).
struct Key<'a> {
    names: &'a [&'a str],
    expected: usize,
}

impl<'de> DeserializeSeed<'de> for Key<'_> {
    type Value = usize;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<usize, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for Key<'_> {
    type Value = usize;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a field name")
    }
    fn visit_str<E: de::Error>(self, text: &str) -> Result<usize, E> {
        if self.names.get(self.expected) == Some(&text) {
            return Ok(self.expected);
        }
        taken(self.names.iter().position(|name| *name == text))
    }
}

/// Marks `index` seen in `seen`; fails when it was already.
fn once<E: de::Error>(seen: &mut u32, index: usize) -> Result<(), E> {
    if *seen >> index & 1 == 1 {
        return Err(not_quick());
    }
    *seen |= 1 << index;
    Ok(())
}

/// Fails unless all of the first `count` indices are in `seen`.
fn all_seen<E: de::Error>(seen: u32, count: usize) -> Result<(), E> {
    if seen == (1u32 << count) - 1 {
        Ok(())
    } else {
        Err(not_quick())
    }
}

/// A name read by `parse`, or null when `nullable` (read as `None`).
struct Named<T> {
    parse: fn(&str) -> Option<T>,
    nullable: bool,
}

impl<T> Named<T> {
    fn required(parse: fn(&str) -> Option<T>) -> Self {
        Named {
            parse,
            nullable: false,
        }
    }

    fn nullable(parse: fn(&str) -> Option<T>) -> Self {
        Named {
            parse,
            nullable: true,
        }
    }
}

impl<'de, T> DeserializeSeed<'de> for Named<T> {
    type Value = Option<T>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<T>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<T> Visitor<'_> for Named<T> {
    type Value = Option<T>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a name")
    }
    fn visit_str<E: de::Error>(self, text: &str) -> Result<Option<T>, E> {
        taken((self.parse)(text)).map(Some)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Option<T>, E> {
        if self.nullable {
            Ok(None)
        } else {
            Err(not_quick())
        }
    }
}

fn read_player<'de, M: MapAccess<'de>>(map: &mut M) -> Result<Option<Player>, M::Error> {
    map.next_value_seed(Named::nullable(Player::parse))
}

/// What `from_state` fills in, read in one pass.
#[derive(Default)]
struct Parts {
    to_move: Option<Player>,
    borders: [Option<Placed>; BORDER_COUNT],
    filled: u32,
    control: [Option<Player>; PROVINCE_COUNT],
    province_flipped: u32,
    bonus: [Option<Bonus>; PROVINCE_COUNT],
    italia_dashed: Option<Player>,
    hands: [Tokens; 2],
    bags: [Tokens; 2],
    hand_limits: [u8; 2],
    senate: [u8; 2],
    markers: [u8; 2],
    rng: Option<ChanceState>,
}

impl Parts {
    /// A province's bonus token, controller and flip, as `from_state` takes them (`None`: it
    /// would refuse them).
    fn set_province(
        &mut self,
        province: usize,
        bonus: Option<Bonus>,
        control: Option<Player>,
        flipped: bool,
    ) -> Option<()> {
        let wrong_bonus = province == IT && bonus.is_some_and(|b| b != Bonus::Senate);
        if wrong_bonus || (flipped && control.is_none()) {
            return None;
        }
        self.bonus[province] = bonus;
        self.control[province] = control;
        self.province_flipped |= u32::from(flipped) << province;
        Some(())
    }

    /// The token on `border`, if any.
    fn set_border(&mut self, border: usize, placed: Option<Placed>) {
        if let Some(placed) = placed {
            self.borders[border] = Some(placed);
            self.filled |= 1 << border;
        }
    }

    /// The position, as `from_state` builds it from the same state, once it passes its checks.
    fn into_position(self) -> Option<Position> {
        let chance = Chance::from_state(self.rng.as_ref()?, "rng").ok()?;
        let mut position = Position::empty(chance);
        position.to_move = self.to_move;
        position.borders = self.borders;
        position.filled = self.filled;
        position.control = self.control;
        position.province_flipped = self.province_flipped;
        position.bonus = self.bonus;
        position.italia_dashed = self.italia_dashed;
        position.hands = self.hands;
        position.bags = self.bags;
        position.hand_limits = self.hand_limits;
        position.senate = self.senate;
        position.markers = self.markers;
        check_consistency(&position).ok()?;
        Some(position)
    }
}

struct StateVisitor;

impl<'de> Visitor<'de> for StateVisitor {
    type Value = Position;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a Caesar! state")
    }
    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Position, M::Error> {
        let mut parts = Parts::default();
        let mut seen = 0u32;
        let mut expected = 0;
        while let Some(field) = map.next_key_seed(Key {
            names: &FIELDS,
            expected,
        })? {
            once(&mut seen, field)?;
            expected = field + 1;
            read_field(&mut map, field, &mut parts)?;
        }
        all_seen(seen, FIELDS.len())?;
        taken(parts.into_position())
    }
}

/// The value of `FIELDS[field]`, checked as `from_state` checks it, into `parts`.
fn read_field<'de, M: MapAccess<'de>>(
    map: &mut M,
    field: usize,
    parts: &mut Parts,
) -> Result<(), M::Error> {
    match field {
        0 => taken(map.next_value_seed(Named::required(|text| (text == RULES).then_some(())))?)?,
        1 => parts.to_move = read_player(map)?,
        2 => map.next_value_seed(Places::<Borders>(parts, PhantomData))?,
        3 => map.next_value_seed(Places::<Provinces>(parts, PhantomData))?,
        4 => parts.italia_dashed = read_player(map)?,
        5 => parts.hands = token_lists(map)?,
        6 => parts.bags = token_lists(map)?,
        7 => {
            parts.hand_limits = counts(map, START_HAND_LIMIT + 4)?;
            taken(
                parts
                    .hand_limits
                    .iter()
                    .all(|&l| l >= START_HAND_LIMIT)
                    .then_some(()),
            )?;
        }
        8 => parts.senate = counts(map, Bonus::Senate.count())?,
        9 => parts.markers = counts(map, CONTROL_MARKERS)?,
        _ => parts.rng = Some(map.next_value::<Rng>()?.0),
    }
    Ok(())
}

/// Each player's count, at most `max`.
fn counts<'de, M: MapAccess<'de>>(map: &mut M, max: u8) -> Result<[u8; 2], M::Error> {
    let [a, b] = map.next_value::<PerPlayer<u32>>()?.into_values();
    let small = |value: u32| u8::try_from(value).ok().filter(|&v| v <= max);
    taken(small(a).zip(small(b))).map(|(a, b)| [a, b])
}

/// Each player's tokens (a hand or a bag).
fn token_lists<'de, M: MapAccess<'de>>(map: &mut M) -> Result<[Tokens; 2], M::Error> {
    Ok(map
        .next_value::<PerPlayer<TokenList>>()?
        .into_values()
        .map(|list| list.counts))
}

/// A list of tokens in token order, each kind at most as many times as a bag holds it.
#[derive(Default)]
struct TokenList {
    counts: Tokens,
    /// The kind listed last: the list is in token order.
    last: usize,
}

impl<'de> Deserialize<'de> for TokenList {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_seq(TokenListVisitor)
    }
}

struct TokenListVisitor;

impl<'de> Visitor<'de> for TokenListVisitor {
    type Value = TokenList;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of tokens")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<TokenList, A::Error> {
        let mut list = TokenList::default();
        while let Some(kind) = seq.next_element_seed(Named::required(parse_token))? {
            taken(list.add(taken(kind)?))?;
        }
        Ok(list)
    }
}

impl TokenList {
    /// Adds a token listed after the others: `None` when it comes before the last in token order,
    /// or is one more of its kind than a bag holds.
    fn add(&mut self, kind: usize) -> Option<()> {
        if kind < self.last {
            return None;
        }
        self.last = kind;
        self.counts[kind] += 1;
        (self.counts[kind] <= TOKENS[kind].4).then_some(())
    }
}

/// The generator's state, an object only (as `State` reads it).
struct Rng(ChanceState);

impl<'de> Deserialize<'de> for Rng {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        crate::strict::object(deserializer).map(Rng)
    }
}

/// The 30 borders or the 18 provinces (`P`), each listed once by its key, read into `parts`.
struct Places<'a, P>(&'a mut Parts, PhantomData<P>);

/// What `Places` reads: borders or provinces.
trait Place {
    const COUNT: usize;
    /// The key of a place, `expected` first.
    fn key(expected: usize) -> PlaceKey;
    /// Reads the value of `place` into `parts`.
    fn read_value<'de, M: MapAccess<'de>>(
        parts: &mut Parts,
        place: usize,
        map: &mut M,
    ) -> Result<(), M::Error>;
}

/// The borders, by their ids as the rules write them.
enum Borders {}

impl Place for Borders {
    const COUNT: usize = BORDER_COUNT;
    fn key(expected: usize) -> PlaceKey {
        PlaceKey::border(expected)
    }
    fn read_value<'de, M: MapAccess<'de>>(
        parts: &mut Parts,
        border: usize,
        map: &mut M,
    ) -> Result<(), M::Error> {
        let placed = map.next_value_seed(Border(border))?;
        parts.set_border(border, placed);
        Ok(())
    }
}

/// The provinces, by their codes.
enum Provinces {}

impl Place for Provinces {
    const COUNT: usize = PROVINCE_COUNT;
    fn key(expected: usize) -> PlaceKey {
        PlaceKey::province(expected)
    }
    fn read_value<'de, M: MapAccess<'de>>(
        parts: &mut Parts,
        province: usize,
        map: &mut M,
    ) -> Result<(), M::Error> {
        let (bonus, control, flipped) = map.next_value::<Province>()?.0;
        taken(parts.set_province(province, bonus, control, flipped))
    }
}

impl<'de, P: Place> DeserializeSeed<'de> for Places<'_, P> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de, P: Place> Visitor<'de> for Places<'_, P> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("the borders or the provinces")
    }
    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<(), M::Error> {
        let (mut seen, mut expected) = (0u32, 0);
        while let Some(place) = map.next_key_seed(P::key(expected))? {
            once(&mut seen, place)?;
            expected = place + 1;
            P::read_value(self.0, place, &mut map)?;
        }
        all_seen(seen, P::COUNT)
    }
}

/// A key naming one of `count` places (borders, provinces) by `name` (`expected` first: good
/// states list them in order), else as `parse` reads it.
struct PlaceKey {
    expected: usize,
    count: usize,
    name: fn(usize) -> &'static str,
    parse: fn(&str) -> Option<usize>,
}

impl PlaceKey {
    fn border(expected: usize) -> Self {
        let canonical =
            |text: &str| parse_border(text).and_then(|(b, canonical)| canonical.then_some(b));
        PlaceKey {
            expected,
            count: BORDER_COUNT,
            name: border_id,
            parse: canonical,
        }
    }

    fn province(expected: usize) -> Self {
        PlaceKey {
            expected,
            count: PROVINCE_COUNT,
            name: province_code,
            parse: parse_province,
        }
    }
}

impl<'de> DeserializeSeed<'de> for PlaceKey {
    type Value = usize;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<usize, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for PlaceKey {
    type Value = usize;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a border or a province")
    }
    fn visit_str<E: de::Error>(self, text: &str) -> Result<usize, E> {
        if self.expected < self.count && (self.name)(self.expected) == text {
            return Ok(self.expected);
        }
        taken((self.parse)(text))
    }
}

/// The token on a border, or null for an empty space.
struct Border(usize);

impl<'de> DeserializeSeed<'de> for Border {
    type Value = Option<Placed>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Border {
    type Value = Option<Placed>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a border's token or null")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
        let border = self.0;
        let (mut owner, mut kind, mut faces, mut flipped, mut marker) =
            (None, None, None, None, None);
        let (mut seen, mut expected) = (0u32, 0);
        while let Some(field) = map.next_key_seed(Key {
            names: &BORDER_FIELDS,
            expected,
        })? {
            once(&mut seen, field)?;
            expected = field + 1;
            match field {
                0 => owner = map.next_value_seed(Named::required(Player::parse))?,
                1 => kind = map.next_value_seed(Named::required(parse_token))?,
                2 => faces = Some(map.next_value_seed(Faces(border))?),
                3 => flipped = Some(map.next_value::<bool>()?),
                _ => marker = Some(read_player(&mut map)?),
            }
        }
        all_seen(seen, BORDER_FIELDS.len())?;
        let (Some(owner), Some(kind), Some(faces), Some(flipped), Some(marker)) =
            (owner, kind, faces, flipped, marker)
        else {
            return Err(not_quick());
        };
        let (_, _, hi, lo, _) = TOKENS[kind];
        let forward = match faces {
            [a, b] if (a, b) == (hi, lo) => true,
            [a, b] if (a, b) == (lo, hi) => false,
            _ => return Err(not_quick()),
        };
        taken(placed(border, owner, kind, forward, flipped, marker)).map(Some)
    }
}

/// A token of `kind` on `border`, `forward` when its larger number faces the border's first
/// province; `None` when the border's icon does not take it.
fn placed(
    border: usize,
    owner: Player,
    kind: usize,
    forward: bool,
    flipped: bool,
    marker: Option<Player>,
) -> Option<Placed> {
    let (_, _, icon) = BORDERS[border];
    if TOKENS[kind].1.is_some_and(|token_icon| token_icon != icon) {
        return None;
    }
    Some(Placed {
        kind: kind as u8,
        owner,
        forward: forward || is_symmetric(kind),
        flipped,
        marker,
    })
}

/// The numbers a border's token shows toward its two provinces, in the border's order: an object of
/// exactly those two provinces.
struct Faces(usize);

impl<'de> DeserializeSeed<'de> for Faces {
    type Value = [u8; 2];
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<[u8; 2], D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Faces {
    type Value = [u8; 2];
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a token's faces")
    }
    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<[u8; 2], M::Error> {
        let (a, b, _) = BORDERS[self.0];
        let names = [province_code(a), province_code(b)];
        let (mut faces, mut seen, mut expected) = ([0u8; 2], 0u32, 0);
        while let Some(side) = map.next_key_seed(Key {
            names: &names,
            expected,
        })? {
            once(&mut seen, side)?;
            expected = side + 1;
            faces[side] = taken(u8::try_from(map.next_value::<u32>()?).ok())?;
        }
        all_seen(seen, 2)?;
        Ok(faces)
    }
}

/// A province's bonus token, its controller and whether Might flipped its marker.
struct Province((Option<Bonus>, Option<Player>, bool));

impl<'de> Deserialize<'de> for Province {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(ProvinceVisitor)
    }
}

struct ProvinceVisitor;

impl<'de> Visitor<'de> for ProvinceVisitor {
    type Value = Province;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a province")
    }
    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Province, M::Error> {
        let (mut bonus, mut control, mut flipped) = (None, None, false);
        let (mut seen, mut expected) = (0u32, 0);
        while let Some(field) = map.next_key_seed(Key {
            names: &PROVINCE_FIELDS,
            expected,
        })? {
            once(&mut seen, field)?;
            expected = field + 1;
            match field {
                0 => bonus = map.next_value_seed(Named::nullable(Bonus::parse))?,
                1 => control = read_player(&mut map)?,
                _ => flipped = map.next_value::<bool>()?,
            }
        }
        all_seen(seen, PROVINCE_FIELDS.len())?;
        Ok(Province((bonus, control, flipped)))
    }
}

/// A position string (see `position::POSITION_NOTATION`) read straight into its position, or `None`
/// for any text that `parse_text` and `from_state` would not take as it is.
pub(super) fn read_notation(text: &str) -> Option<Position> {
    let [borders, provinces, dashed, to_move, hands, bags, limits, senate, markers, rng] =
        split_exact(text, b' ')?;
    let mut parts = Parts::default();
    let entries: [&str; BORDER_COUNT] = split_exact(borders, b',')?;
    for (border, entry) in entries.into_iter().enumerate() {
        let placed = match entry {
            "." => None,
            _ => Some(placed_of_text(entry, border)?),
        };
        parts.set_border(border, placed);
    }
    let provinces = provinces.as_bytes();
    if provinces.len() != 2 * PROVINCE_COUNT {
        return None;
    }
    for (province, pair) in provinces.chunks(2).enumerate() {
        let bonus = match pair[0] {
            b'-' => None,
            letter => Some(
                *Bonus::ALL
                    .iter()
                    .find(|b| b.letter() as u32 == u32::from(letter))?,
            ),
        };
        let control = match pair[1] {
            b'.' => None,
            letter => Some(player_of_letter(letter.to_ascii_lowercase())?),
        };
        parts.set_province(province, bonus, control, pair[1].is_ascii_uppercase())?;
    }
    parts.italia_dashed = player_or(dashed, ".")?;
    parts.to_move = player_or(to_move, "-")?;
    parts.hands = pair_of(hands, tokens_of_text)?;
    parts.bags = pair_of(bags, tokens_of_text)?;
    parts.hand_limits = pair_of(limits, |text| count_of_text(text, START_HAND_LIMIT + 4))?;
    if parts
        .hand_limits
        .iter()
        .any(|&limit| limit < START_HAND_LIMIT)
    {
        return None;
    }
    parts.senate = pair_of(senate, |text| count_of_text(text, Bonus::Senate.count()))?;
    parts.markers = pair_of(markers, |text| count_of_text(text, CONTROL_MARKERS))?;
    parts.rng = Some(crate::chance::parse_notation(rng, SeedText::Hex).ok()?);
    parts.into_position()
}

/// Exactly `N` parts of `text` separated by `separator` (an ASCII byte, so every part is a `str`).
fn split_exact<const N: usize>(text: &str, separator: u8) -> Option<[&str; N]> {
    let mut parts = [""; N];
    let mut rest = text;
    for part in parts.iter_mut().take(N - 1) {
        let at = rest.bytes().position(|b| b == separator)?;
        *part = &rest[..at];
        rest = &rest[at + 1..];
    }
    if rest.bytes().any(|b| b == separator) {
        return None;
    }
    parts[N - 1] = rest;
    Some(parts)
}

fn player_of_letter(letter: u8) -> Option<Player> {
    match letter {
        b'c' => Some(Player::Caesar),
        b'p' => Some(Player::Pompey),
        _ => None,
    }
}

/// A player's letter, or `none` for no player (`Some(None)`).
fn player_or(text: &str, none: &str) -> Option<Option<Player>> {
    match text.as_bytes() {
        _ if text == none => Some(None),
        &[letter] => player_of_letter(letter).map(Some),
        _ => None,
    }
}

/// A border's token as the notation writes it: owner, token, `>` or `<`, `!` when flipped, `^`
/// and the marker's owner.
fn placed_of_text(entry: &str, border: usize) -> Option<Placed> {
    let bytes = entry.as_bytes();
    if bytes.len() < 5 || !entry.is_ascii() {
        return None;
    }
    let owner = player_of_letter(bytes[0])?;
    let kind = parse_token(&entry[1..4])?;
    let forward = match bytes[4] {
        b'>' => true,
        b'<' if !is_symmetric(kind) => false,
        _ => return None,
    };
    let (flipped, rest) = match entry[5..].strip_prefix('!') {
        Some(rest) => (true, rest),
        None => (false, &entry[5..]),
    };
    let marker = match rest {
        "" => None,
        "^c" => Some(Player::Caesar),
        "^p" => Some(Player::Pompey),
        _ => return None,
    };
    placed(border, owner, kind, forward, flipped, marker)
}

/// `caesar/pompey`, each read by `read`.
fn pair_of<T>(text: &str, read: impl Fn(&str) -> Option<T>) -> Option<[T; 2]> {
    let (caesar, pompey) = text.split_once('/')?;
    Some([read(caesar)?, read(pompey)?])
}

/// Concatenated 3-character token codes in token order, or `-` for none.
fn tokens_of_text(text: &str) -> Option<Tokens> {
    let mut list = TokenList::default();
    if text == "-" {
        return Some(list.counts);
    }
    if !text.is_ascii() || text.is_empty() || text.len() % 3 != 0 {
        return None;
    }
    for code in text.as_bytes().chunks(3) {
        list.add(token_of_code(code)?)?;
    }
    Some(list.counts)
}

/// A count in canonical decimal (no sign, no leading zero), at most `max`.
fn count_of_text(text: &str, max: u8) -> Option<u8> {
    let count = decimal(text)?;
    (count <= u32::from(max)).then_some(count as u8)
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::super::{position, state, Caesar, Position};
    use super::read_notation;
    use crate::game::default_setup;
    use crate::mutations::check_quick_reader;

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
    fn the_quick_reader_takes_every_good_state_and_reads_what_from_state_reads() {
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
        let swapped = |state: &Value| {
            let mut texts = Vec::new();
            swap_tokens(state, &mut |value| texts.push(value.to_string()));
            texts
        };
        let seen = check_quick_reader::<Caesar>(&positions(), &others, swapped);
        assert!(seen.taken > 0 && seen.left > seen.taken);
    }

    #[test]
    fn the_quick_notation_reader_reads_what_parse_text_and_from_state_read() {
        let changes = [
            "", ".", "c", "p", "C", "P", "-", ">", "<", "!", "^", "/", ",", " ", "0", "1", "9",
            "12", "S", "T", "M", "L", "D", "N", "x", "é",
        ];
        let (mut taken, mut left, mut cases) = (0, 0, 0);
        for position in positions() {
            let text = position::text(&position);
            assert_eq!(read_notation(&text), Some(position));
            let at = text.char_indices().map(|(at, _)| at);
            for (at, end) in at.clone().zip(at.skip(1).chain([text.len()])) {
                let doubled = text[at..end].repeat(2);
                for change in changes.iter().copied().chain([doubled.as_str()]) {
                    let changed = format!("{}{change}{}", &text[..at], &text[end..]);
                    let exact = position::parse_text(&changed).and_then(state::from_state);
                    match read_notation(&changed) {
                        Some(quick) => {
                            assert_eq!(Some(&quick), exact.as_ref().ok(), "{changed}");
                            taken += 1;
                        }
                        None => left += 1,
                    }
                    cases += 1;
                }
            }
        }
        println!("{taken} taken, {left} left of {cases}");
        assert!(
            taken > 0 && left > cases / 2,
            "{taken} taken, {left} left of {cases}"
        );
    }
}
