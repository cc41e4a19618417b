//! A state object read in one pass without copying its names (`Rules::read_quick`): `State`'s
//! fields, each name borrowed from the JSON text where it has no escapes (a string with escapes, or
//! one read from a Python object, is copied). A state it does not take whole (a seal, a field
//! unknown or of another type) fails here, a serde error that is discarded, and is read again
//! through `State` and `from_state`, which word the refusal; a state it takes gets the same checks,
//! in the same order (`state::from_fields`).

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::Deserialize;

use super::position::Position;
use super::setup::{Options, Variant};
use super::state::{from_fields, Parts};
use crate::borrowed::Name;
use crate::chance::ChanceState;
use crate::error::Result;

/// The position of a state object, or the refusal of its checks; `Err` for any state left to
/// `from_state`.
pub(super) fn read<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> std::result::Result<Result<Position>, D::Error> {
    let quick: Quick = crate::strict::object(deserializer)?;
    let parts = Parts {
        pawns: quick.pawns.0,
        to_move: quick.to_move,
        dice: quick.dice,
        centre: quick.centre,
        captures: quick.captures.0,
        scores: Some(quick.scores.0),
    };
    Ok(from_fields(
        quick.rules.as_ref(),
        quick.variant,
        quick.options,
        &quick.rng,
        parts,
    ))
}

/// `State`'s fields, its names as `Name`s.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Quick<'a> {
    #[serde(borrow)]
    rules: Name<'a>,
    #[serde(default)]
    variant: Variant,
    #[serde(default, deserialize_with = "crate::strict::object")]
    options: Options,
    #[serde(deserialize_with = "crate::strict::object")]
    rng: ChanceState,
    #[serde(borrow)]
    to_move: Option<Name<'a>>,
    dice: Option<Vec<i64>>,
    #[serde(borrow)]
    pawns: Entries<Name<'a>, Vec<Name<'a>>>,
    #[serde(borrow)]
    scores: Entries<Name<'a>, i64>,
    #[serde(borrow)]
    centre: Vec<Name<'a>>,
    #[serde(borrow)]
    captures: Entries<Name<'a>, i64>,
}

/// A map's entries in the order of their keys, as `State`'s `BTreeMap`s hold them, without building
/// a tree (its nodes cost a twentieth of a batch item). A key given twice fails here (`State` keeps
/// the last): such a state is left to `from_state`.
struct Entries<K, V>(Vec<(K, V)>);

impl<'de, K: Deserialize<'de> + Ord, V: Deserialize<'de>> Deserialize<'de> for Entries<K, V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        deserializer.deserialize_map(EntriesVisitor(PhantomData))
    }
}

struct EntriesVisitor<K, V>(PhantomData<(K, V)>);

impl<'de, K: Deserialize<'de> + Ord, V: Deserialize<'de>> Visitor<'de> for EntriesVisitor<K, V> {
    type Value = Entries<K, V>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<M: MapAccess<'de>>(
        self,
        mut map: M,
    ) -> std::result::Result<Self::Value, M::Error> {
        let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(4));
        while let Some(entry) = map.next_entry()? {
            entries.push(entry);
        }
        entries.sort_by(|a: &(K, V), b| a.0.cmp(&b.0));
        if entries.windows(2).any(|pair| pair[0].0 == pair[1].0) {
            return Err(de::Error::custom("a key given twice"));
        }
        Ok(Entries(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Hypnosia, Setup};
    use crate::game::Rules;
    use crate::mutations::{check_quick_reader, positions};

    #[test]
    fn the_quick_reader_reads_what_from_state_reads() {
        let mut games = Vec::new();
        for players in 2..=4u64 {
            let setup = serde_json::json!({"options": {"players": players}});
            let setup = Hypnosia::check_setup(serde_json::from_value::<Setup>(setup).unwrap());
            games.extend(positions::<Hypnosia>(
                &setup.unwrap(),
                Some(players),
                23,
                players as usize,
            ));
        }
        let others = [
            "null",
            "true",
            "0",
            "1",
            "2",
            "-1",
            "[]",
            "{}",
            "\"\"",
            "\"x\"",
            "\"red\"",
            "\"blue\"",
            "\"green\"",
            "\"centre\"",
            "\"captured\"",
            "\"h1\"",
            "\"h4\"",
            "\"0.1\"",
            "\"1.20\"",
            "\"hypnosia@1\"",
            "\"hypnosia@2\"",
            "[3]",
            "[6,6]",
            "\"r\\u0065d\"",
        ];
        let seen = check_quick_reader::<Hypnosia>(&games, &others, |_| Vec::new());
        assert!(seen.taken > 0 && seen.refused > 0 && seen.left > 0);
    }
}
