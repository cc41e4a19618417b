//! The players of the two-player games without a name of their own for them (Iago, Isaac): black
//! and white. Each game keeps its own schema name for them in the contract (`IagoPlayer`,
//! `IsaacPlayer`), so this type has no schema. And one value per player of a two-player game
//! (`PerPlayer`, Isaac's and Caesar!'s), keyed by the game's player names.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;
use std::ops::{Index, IndexMut};

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};

/// Black or white; black is the default first player.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Color {
    #[default]
    Black = 0,
    White = 1,
}

/// Both colours, in index order.
pub const COLORS: [Color; 2] = [Color::Black, Color::White];

impl Color {
    pub fn other(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// The name states and answers use: `black`, `white`.
    pub const fn name(self) -> &'static str {
        match self {
            Color::Black => "black",
            Color::White => "white",
        }
    }

    /// The letter position notations use: `b`, `w`.
    pub fn letter(self) -> char {
        match self {
            Color::Black => 'b',
            Color::White => 'w',
        }
    }

    pub fn from_name(name: &str) -> Option<Color> {
        COLORS.into_iter().find(|color| color.name() == name)
    }

    pub fn from_letter(letter: &str) -> Option<Color> {
        COLORS
            .into_iter()
            .find(|color| letter.len() == 1 && letter.starts_with(color.letter()))
    }
}

/// The two players of a two-player game, in index order.
pub trait TwoPlayers: Copy + 'static {
    /// Their names in index order, as states write them (the keys of a `PerPlayer`).
    const NAMES: [&'static str; 2];
    /// 0 for the first player, 1 for the second.
    fn index(self) -> usize;
}

impl TwoPlayers for Color {
    const NAMES: [&'static str; 2] = [Color::Black.name(), Color::White.name()];
    fn index(self) -> usize {
        self as usize
    }
}

/// One value per player of a two-player game `P`: in JSON an object of exactly the two players'
/// names (`{"black": ..., "white": ...}`), as serde's derive of a struct with those fields writes
/// and reads it (same messages), and named `<T>PerPlayer` in the contract.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PerPlayer<P, T> {
    values: [T; 2],
    players: PhantomData<P>,
}

impl<P: TwoPlayers, T> PerPlayer<P, T> {
    /// The values in the players' index order.
    pub fn of(values: [T; 2]) -> Self {
        PerPlayer {
            values,
            players: PhantomData,
        }
    }

    pub fn get(&self, player: P) -> &T {
        &self.values[player.index()]
    }

    /// The values in the players' index order.
    pub fn values(&self) -> &[T; 2] {
        &self.values
    }

    pub fn into_values(self) -> [T; 2] {
        self.values
    }
}

impl<P: TwoPlayers, T> Index<P> for PerPlayer<P, T> {
    type Output = T;
    fn index(&self, player: P) -> &T {
        self.get(player)
    }
}

impl<P: TwoPlayers, T> IndexMut<P> for PerPlayer<P, T> {
    fn index_mut(&mut self, player: P) -> &mut T {
        &mut self.values[player.index()]
    }
}

impl<P: TwoPlayers, T: Default> Default for PerPlayer<P, T> {
    fn default() -> Self {
        PerPlayer::of([T::default(), T::default()])
    }
}

impl<P: TwoPlayers, T: Serialize> Serialize for PerPlayer<P, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut object = serializer.serialize_struct("PerPlayer", 2)?;
        for (name, value) in P::NAMES.into_iter().zip(&self.values) {
            object.serialize_field(name, value)?;
        }
        object.end()
    }
}

/// A key of a `PerPlayer` object: the index of the player it names; any other key is refused.
struct PlayerKey<P>(PhantomData<P>);

impl<'de, P: TwoPlayers> DeserializeSeed<'de> for PlayerKey<P> {
    type Value = usize;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<usize, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl<P: TwoPlayers> Visitor<'_> for PlayerKey<P> {
    type Value = usize;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("field identifier")
    }
    fn visit_str<E: de::Error>(self, key: &str) -> Result<usize, E> {
        P::NAMES
            .iter()
            .position(|name| *name == key)
            .ok_or_else(|| E::unknown_field(key, &P::NAMES))
    }
}

impl<'de, P: TwoPlayers, T: Deserialize<'de>> Deserialize<'de> for PerPlayer<P, T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PerPlayerVisitor<P, T>(PhantomData<(P, T)>);
        impl<'de, P: TwoPlayers, T: Deserialize<'de>> Visitor<'de> for PerPlayerVisitor<P, T> {
            type Value = PerPlayer<P, T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("struct PerPlayer")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
                let mut values: [Option<T>; 2] = [None, None];
                while let Some(index) = map.next_key_seed(PlayerKey::<P>(PhantomData))? {
                    if values[index].is_some() {
                        return Err(de::Error::duplicate_field(P::NAMES[index]));
                    }
                    values[index] = Some(map.next_value()?);
                }
                let [Some(first), Some(second)] = values else {
                    let missing = values.iter().position(Option::is_none).unwrap_or(0);
                    return Err(de::Error::missing_field(P::NAMES[missing]));
                };
                Ok(PerPlayer::of([first, second]))
            }
        }
        deserializer.deserialize_struct("PerPlayer", &P::NAMES, PerPlayerVisitor(PhantomData))
    }
}

/// The schema serde's derive would give: both names required, nothing else.
impl<P: TwoPlayers, T: JsonSchema> JsonSchema for PerPlayer<P, T> {
    fn schema_name() -> Cow<'static, str> {
        format!("{}PerPlayer", T::schema_name()).into()
    }

    fn schema_id() -> Cow<'static, str> {
        let players = std::any::type_name::<P>();
        format!(
            "referee_core::players::PerPlayer<{players}, {}>",
            T::schema_id()
        )
        .into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let value = generator.subschema_for::<T>();
        let [first, second] = P::NAMES;
        json_schema!({
            "type": "object",
            "properties": { first: value.clone(), second: value },
            "additionalProperties": false,
            "required": [first, second],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_letters_read_back() {
        for color in COLORS {
            assert_eq!(Color::from_name(color.name()), Some(color));
            assert_eq!(Color::from_letter(&color.letter().to_string()), Some(color));
            assert_eq!(color.other().other(), color);
            assert_ne!(color.other(), color);
        }
        assert_eq!(Color::from_name("b"), None);
        assert_eq!(Color::from_letter("black"), None);
        assert_eq!(Color::from_letter("bb"), None);
    }

    #[test]
    fn per_player_values_read_and_write_as_an_object_of_both_names() {
        let scores: PerPlayer<Color, i64> =
            serde_json::from_str(r#"{"white": 2, "black": 1}"#).unwrap();
        assert_eq!((scores[Color::Black], scores[Color::White]), (1, 2));
        assert_eq!(
            serde_json::to_string(&scores).unwrap(),
            r#"{"black":1,"white":2}"#
        );
        for (bad, says) in [
            (r#"{"black": 1}"#, "missing field `white`"),
            (
                r#"{"black": 1, "white": 2, "red": 3}"#,
                "unknown field `red`, expected `black` or `white`",
            ),
            (r#"{"black": 1, "black": 2}"#, "duplicate field `black`"),
            ("3", "expected struct PerPlayer"),
        ] {
            let error = serde_json::from_str::<PerPlayer<Color, i64>>(bad).unwrap_err();
            assert!(error.to_string().contains(says), "{bad}: {error}");
        }
    }
}
