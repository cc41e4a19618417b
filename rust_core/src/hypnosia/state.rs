//! The JSON form of a state and the checked building of a position from its parts.

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Serialize};

use super::board::{
    colour_seat, home, on_space, Board, ColourSchema, DieSchema, Loc, PawnsSchema, CAPTURED,
    CENTRE, CENTRE_SPACES, COLOURS, SEATS,
};
use super::notation::Start;
use super::position::{Parts, Position, NOBODY};
use super::setup::{CompiledSetup, Options, Setup, Variant};
use super::{notation, Hypnosia};
use crate::borrowed::Name;
use crate::chance::{Chance, ChanceKeys, ChanceState};
use crate::error::{Error, Result};
use crate::game::Rules;

/// The JSON form of a Hypnosia state, its names of type `S`: `String` as written, borrowed from the
/// text read where they have no escape (`Name`), so that reading a state copies none of them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    rename = "HypnosiaState",
    description = "A Hypnosia state, self-contained: the options (with the board, null for the default one) and the seeded random source travel with it. Scores are checked against the centre entries, captures and lost pawns."
)]
pub struct State<S: Ord = String> {
    #[schemars(extend("const" = Hypnosia::RULES_VERSION))]
    pub rules: S,
    #[serde(default)]
    pub variant: Variant,
    #[serde(default, deserialize_with = "crate::strict::object")]
    pub options: Options,
    /// The seeded random source the dice are drawn from.
    #[serde(deserialize_with = "crate::strict::object")]
    pub rng: ChanceState,
    /// The colour to move; null once the game is over.
    #[schemars(with = "Option<ColourSchema>")]
    pub to_move: Option<S>,
    /// Null before the roll, else the unused dice in the order they remain.
    #[schemars(with = "Option<Vec<DieSchema>>")]
    pub dice: Option<Vec<i64>>,
    /// Each seated colour's 4 pawns: home by distance, then spaces by (circle, index), then
    /// centre, then captured.
    #[schemars(
        with = "BTreeMap<String, PawnsSchema>",
        extend("propertyNames" = {"enum": COLOURS})
    )]
    pub pawns: Entries<S, Vec<S>>,
    /// Each seated colour's score.
    #[schemars(
        with = "BTreeMap<String, i64>",
        extend("propertyNames" = {"enum": COLOURS})
    )]
    pub scores: Entries<S, i64>,
    /// The colours of the pawns in the centre, in order of entry.
    #[schemars(with = "Vec<ColourSchema>", length(max = CENTRE_SPACES))]
    pub centre: Vec<S>,
    /// Enemy pawns each seated colour has captured.
    #[schemars(
        with = "BTreeMap<String, i64>",
        extend("propertyNames" = {"enum": COLOURS})
    )]
    pub captures: Entries<S, i64>,
}

/// A JSON object's entries in the order of their keys (as a `BTreeMap` holds them, without building
/// a tree: its nodes cost a twentieth of a batch item), written in that order. A key given twice is
/// refused (and then named by `json::fault`: see `request::take_item`).
#[derive(Debug, Clone, PartialEq)]
pub struct Entries<K, V>(Vec<(K, V)>);

impl<K: Ord, V> FromIterator<(K, V)> for Entries<K, V> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(entries: I) -> Self {
        let mut entries: Vec<(K, V)> = entries.into_iter().collect();
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        Entries(entries)
    }
}

impl<K, V> Entries<K, V> {
    pub fn iter(&self) -> impl Iterator<Item = &(K, V)> {
        self.0.iter()
    }
}

impl<K: Serialize, V: Serialize> Serialize for Entries<K, V> {
    fn serialize<Z: serde::Serializer>(
        &self,
        serializer: Z,
    ) -> std::result::Result<Z::Ok, Z::Error> {
        serializer.collect_map(self.0.iter().map(|(key, value)| (key, value)))
    }
}

impl<'de, K: Deserialize<'de> + Ord, V: Deserialize<'de>> Deserialize<'de> for Entries<K, V> {
    fn deserialize<D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> std::result::Result<Self, D::Error> {
        struct EntriesVisitor<K, V>(PhantomData<(K, V)>);
        impl<'de, K: Deserialize<'de> + Ord, V: Deserialize<'de>> Visitor<'de> for EntriesVisitor<K, V> {
            type Value = Entries<K, V>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<M: MapAccess<'de>>(
                self,
                mut map: M,
            ) -> std::result::Result<Self::Value, M::Error> {
                let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(4).min(SEATS));
                while let Some(entry) = map.next_entry()? {
                    entries.push(entry);
                }
                let entries = Entries::from_iter(entries);
                if entries.0.windows(2).any(|pair| pair[0].0 == pair[1].0) {
                    return Err(de::Error::custom("a key given twice"));
                }
                Ok(entries)
            }
        }
        deserializer.deserialize_map(EntriesVisitor(PhantomData))
    }
}

pub(super) fn parse_loc(text: &str, board: &Board) -> std::result::Result<Loc, String> {
    match text {
        "centre" => return Ok(CENTRE),
        "captured" => return Ok(CAPTURED),
        _ => {}
    }
    match notation::parse_start(text) {
        Some(Start::Home(square)) => Ok(home(square.distance())),
        Some(Start::Space(circle, index)) => board
            .space(circle as usize, index as usize)
            .map(on_space)
            .ok_or_else(|| format!("the board has no space {text}")),
        None => Err(format!(
            "{text:?} is not a location: h1..h4, circle.index, centre or captured"
        )),
    }
}

/// Checks the seated colours of a `{colour: value}` map: known, seated, each present once.
pub(super) fn seat_keys<'a, S: AsRef<str>, T>(
    entries: &'a [(S, T)],
    game: &CompiledSetup,
    field: &str,
) -> Result<[Option<&'a T>; SEATS]> {
    let mut by_seat: [Option<&T>; SEATS] = [None; SEATS];
    for (name, value) in entries {
        let name = name.as_ref();
        let seat = colour_seat(name)
            .ok_or_else(|| Error::invalid_state(field, format!("{name:?} is not a colour")))?;
        if !game.seats.contains(&(seat as u8)) {
            return Err(Error::invalid_state(
                format!("{field}.{name}"),
                format!("{name} is not seated in this game"),
            ));
        }
        if by_seat[seat].is_some() {
            return Err(Error::invalid_state(
                format!("{field}.{name}"),
                format!("{name} appears twice"),
            ));
        }
        by_seat[seat] = Some(value);
    }
    if let Some(&missing) = game
        .seats
        .iter()
        .find(|&&s| by_seat[usize::from(s)].is_none())
    {
        let name = COLOURS[usize::from(missing)];
        return Err(Error::invalid_state(
            format!("{field}.{name}"),
            format!("{name} is seated but missing"),
        ));
    }
    Ok(by_seat)
}

impl Position {
    /// Builds a position from untrusted parts, checking everything that can be checked, in this
    /// order (the first refusal a state meets is part of the contract).
    pub(super) fn from_parts<S: AsRef<str>>(
        game: Arc<CompiledSetup>,
        chance: Chance,
        parts: Parts<S>,
    ) -> Result<Position> {
        let mut position = Position::initial(game.clone(), chance, NOBODY);
        position.place_pawns(&parts.pawns, &game)?;
        position.check_space_occupancy(&game)?;
        position.place_centre(&parts.centre, &game)?;
        position.check_centre_entries_match_pawns(&game)?;
        position.place_captures(&parts.captures, &game)?;
        position.compute_scores(&game);
        position.check_scores(parts.scores.as_deref(), &game)?;
        let over = position.is_over();
        position.place_to_move(parts.to_move.as_ref().map(AsRef::as_ref), over, &game)?;
        position.place_dice(parts.dice.as_deref(), over)?;
        Ok(position)
    }
}

/// The position of a state, checked in this order: the rules version, the setup (its board
/// compiled), the random source (keyed by `keys`), then the parts (`Position::from_parts`).
pub(super) fn from_state<S: AsRef<str> + Ord>(
    state: State<S>,
    keys: Option<&ChanceKeys>,
) -> Result<Position> {
    crate::game::check_rules_version::<Hypnosia>(state.rules.as_ref())?;
    let setup = Setup {
        variant: state.variant,
        options: state.options,
        compiled: None,
    };
    let game = setup.compiled().map_err(|error| match error {
        Error::InvalidOptions { field, detail } => Error::InvalidState { field, detail },
        other => other,
    })?;
    let chance = Chance::from_state(&state.rng, "rng", keys)?;
    let parts = Parts {
        pawns: state.pawns.0,
        to_move: state.to_move,
        dice: state.dice,
        centre: state.centre,
        captures: state.captures.0,
        scores: Some(state.scores.0),
    };
    Position::from_parts(game, chance, parts)
}

/// A state object read in one pass, its names borrowed from the text: the position, or the refusal
/// of its checks; `Err` when it is not a state's shape.
pub(super) fn read<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
    keys: Option<&ChanceKeys>,
) -> std::result::Result<Result<Position>, D::Error> {
    let state: State<Name<'de>> = crate::strict::object(deserializer)?;
    Ok(from_state(state, keys))
}

pub(super) fn to_state(position: &Position) -> State {
    let game = &position.game;
    let seated = || {
        game.seats
            .iter()
            .map(|&s| (COLOURS[usize::from(s)].to_owned(), usize::from(s)))
    };
    State {
        rules: Hypnosia::RULES_VERSION.to_owned(),
        variant: Variant::Standard,
        options: game.options.clone(),
        rng: position.chance.to_state(),
        to_move: (position.to_move != NOBODY)
            .then(|| COLOURS[usize::from(position.to_move)].to_owned()),
        dice: (position.dice_len > 0)
            .then(|| position.dice().iter().map(|&d| i64::from(d)).collect()),
        pawns: seated()
            .map(|(name, s)| {
                (
                    name,
                    position.pawns[s]
                        .iter()
                        .map(|&l| position.loc_name(l))
                        .collect(),
                )
            })
            .collect(),
        scores: seated()
            .map(|(name, s)| (name, position.scores[s]))
            .collect(),
        centre: position
            .centre()
            .iter()
            .map(|&s| COLOURS[usize::from(s)].to_owned())
            .collect(),
        captures: seated()
            .map(|(name, s)| (name, i64::from(position.captures[s])))
            .collect(),
    }
}
