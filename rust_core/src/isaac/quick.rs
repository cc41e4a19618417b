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
    use serde_json::Value;

    use super::super::{Isaac, Position};
    use crate::game::{default_setup, QuickState, Rules};
    use crate::seal::read_object;

    /// Positions of seeded games, start to end.
    fn positions() -> Vec<Position> {
        let setup = default_setup::<Isaac>();
        let mut positions = Vec::new();
        for seed in 0..3usize {
            let mut position = Isaac::start(&setup, None);
            for ply in 0..400 {
                if ply % 5 == seed {
                    positions.push(position);
                }
                let moves = Isaac::legal_moves(&position);
                let Some(mv) = moves.get((ply * 13 + seed * 5) % moves.len().max(1)) else {
                    break;
                };
                position = Isaac::play(&position, *mv).unwrap().0;
            }
        }
        positions
    }

    #[test]
    fn the_quick_reader_reads_what_from_state_reads() {
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
        ]
        .map(|text| serde_json::from_str::<Value>(text).unwrap());
        let state_of = |position: Result<Position, _>| position.map(|p| Isaac::to_state(&p));
        let (mut taken, mut refused, mut left, mut cases) = (0, 0, 0, 0);
        for position in positions() {
            let text = serde_json::to_string(&Isaac::to_state(&position)).unwrap();
            let quick = serde_json::from_str::<QuickState<Isaac>>(&text).unwrap().0;
            assert_eq!(state_of(quick), Ok(Isaac::to_state(&position)));
            let state: Value = serde_json::from_str(&text).unwrap();
            for text in crate::mutations::changed(&state, &others) {
                let exact = read_object::<Isaac>(&text, None).map(|(position, _)| position);
                match serde_json::from_str::<QuickState<Isaac>>(&text) {
                    Ok(QuickState(quick)) => {
                        (taken, refused) = (
                            taken + quick.is_ok() as u32,
                            refused + quick.is_err() as u32,
                        );
                        assert_eq!(state_of(quick), state_of(exact), "{text}");
                    }
                    Err(_) => left += 1,
                }
                cases += 1;
            }
        }
        println!("{taken} taken, {refused} refused alike, {left} left of {cases}");
        assert!(taken > 0 && refused > 0 && left > 0);
    }
}
