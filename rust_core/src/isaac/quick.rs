//! A state object read in one pass without copying its names (`Rules::read_quick`): `State`'s
//! fields, each name borrowed from the JSON text where it has no escapes (`borrowed::Name`). A state
//! it does not take whole (a seal, a field unknown, missing or of another type) fails here, a serde
//! error that is discarded, and is read again through `State` and `from_state`, which word the
//! refusal; a state it takes gets the same checks, in the same order (`state::from_fields`).

use serde::de::Deserializer;
use serde::Deserialize;

use super::position::Position;
use super::setup::{standard, Options, Setup};
use super::state::{from_fields, Fields, PerPlayer};
use crate::borrowed::Name;
use crate::error::Result;

/// The position of a state object, or the refusal of its checks; `Err` for any state left to
/// `from_state`.
pub(super) fn read<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> std::result::Result<Result<Position>, D::Error> {
    let quick: Quick = crate::strict::object(deserializer)?;
    let setup = Setup {
        variant: quick.variant,
        options: quick.options,
    };
    let fields = Fields {
        pieces: quick.pieces.values().each_ref().map(Vec::as_slice),
        phase: quick.phase.as_ref(),
        to_move: quick.to_move.as_ref().map(AsRef::as_ref),
        scores: *quick.scores.values(),
        first_to_pass: quick.first_to_pass.as_ref().map(AsRef::as_ref),
        passed: &quick.passed,
        removed: quick.removed.values().clone(),
    };
    Ok(from_fields(quick.rules.as_ref(), setup, || fields.parts()))
}

/// `State`'s fields, its names as `Name`s.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Quick<'a> {
    #[serde(borrow)]
    rules: Name<'a>,
    #[serde(default = "standard")]
    variant: String,
    #[serde(default, deserialize_with = "crate::strict::object")]
    options: Options,
    #[serde(borrow, deserialize_with = "crate::strict::object")]
    pieces: PerPlayer<Vec<Name<'a>>>,
    #[serde(borrow)]
    phase: Name<'a>,
    #[serde(borrow, deserialize_with = "Option::deserialize")]
    to_move: Option<Name<'a>>,
    #[serde(deserialize_with = "crate::strict::object")]
    scores: PerPlayer<i64>,
    #[serde(borrow, deserialize_with = "Option::deserialize")]
    first_to_pass: Option<Name<'a>>,
    #[serde(borrow)]
    passed: Vec<Name<'a>>,
    #[serde(deserialize_with = "crate::strict::object")]
    removed: PerPlayer<Vec<i64>>,
}

#[cfg(test)]
mod tests {
    use super::super::Isaac;
    use crate::game::default_setup;
    use crate::mutations::{check_quick_reader, positions};

    #[test]
    fn the_quick_reader_reads_what_from_state_reads() {
        let setup = default_setup::<Isaac>();
        let games: Vec<_> = (0..3)
            .flat_map(|first| positions::<Isaac>(&setup, None, 5, first))
            .collect();
        let others = [
            "null",
            "true",
            "0",
            "1",
            "99",
            "-1",
            "[]",
            "{}",
            "\"\"",
            "\"x\"",
            "\"black\"",
            "\"white\"",
            "\"placement\"",
            "\"scoring\"",
            "\"a1-e1\"",
            "\"c4-c6\"",
            "\"isaac@1\"",
            "\"isaac@2\"",
            "[\"black\"]",
            "[\"white\",\"black\"]",
            "[5]",
            "\"bl\\u0061ck\"",
        ];
        let seen = check_quick_reader::<Isaac>(&games, &others, |_| Vec::new());
        assert!(seen.taken > 0 && seen.refused > 0 && seen.left > 0);
    }
}
