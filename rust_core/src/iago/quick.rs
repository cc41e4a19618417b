//! A state object read in one pass straight into its position (`Rules::read_quick`): each row of
//! the board is placed as it is read, and no string is kept. A state it does not take whole fails
//! here (a serde error, discarded) and is read again through `State` and `from_state`, which word
//! the refusal; a state it takes gets the same checks as there (`Position::checked`).

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, SeqAccess, Visitor};
use serde::Deserialize;

use super::board::ROW_LENGTHS;
use super::state::parse_side;
use super::{Color, Iago, Options, Position, Setup, Variant};
use crate::error::Result;
use crate::game::Rules;

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
    let mut position = quick.board;
    position.setup = setup.check().map_err(|_| de::Error::custom("setup"))?;
    Ok(position.checked(quick.to_move, quick.penalty_claim))
}

/// `State`'s fields, its strings read where they are.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Quick {
    #[serde(deserialize_with = "rules")]
    #[allow(dead_code)] // read to be checked
    rules: (),
    #[serde(default)]
    variant: Variant,
    #[serde(default, deserialize_with = "crate::strict::object")]
    options: Options,
    #[serde(deserialize_with = "board")]
    board: Position,
    #[serde(deserialize_with = "side")]
    to_move: Color,
    #[serde(default)]
    penalty_claim: bool,
}

fn rules<'de, D: Deserializer<'de>>(deserializer: D) -> std::result::Result<(), D::Error> {
    Text(|rules: &str| (rules == Iago::RULES_VERSION).then_some(())).deserialize(deserializer)
}

fn side<'de, D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Color, D::Error> {
    Text(|side: &str| parse_side(side).ok()).deserialize(deserializer)
}

/// The discs of the 9 rows, on a position of the default setup.
fn board<'de, D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Position, D::Error> {
    deserializer.deserialize_seq(Rows)
}

struct Rows;

impl<'de> Visitor<'de> for Rows {
    type Value = Position;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("9 rows")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut rows: A) -> std::result::Result<Position, A::Error> {
        let mut position = Position::empty(Setup::default());
        let mut first_cell = 0;
        for (index, &len) in ROW_LENGTHS.iter().enumerate() {
            let row = Text(|row: &str| position.read_row(index, row, len, first_cell).ok());
            rows.next_element_seed(row)?
                .ok_or_else(|| de::Error::custom("a row is missing"))?;
            first_cell += len;
        }
        match rows.next_element::<IgnoredAny>()? {
            None => Ok(position),
            Some(_) => Err(de::Error::custom("more than 9 rows")),
        }
    }
}

/// A string turned into a value by `read` where it is (a JSON string without escapes is never
/// copied), or refused when `read` gives `None`.
struct Text<F>(F);

impl<'de, T, F: FnOnce(&str) -> Option<T>> DeserializeSeed<'de> for Text<F> {
    type Value = T;

    fn deserialize<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> std::result::Result<T, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de, T, F: FnOnce(&str) -> Option<T>> Visitor<'de> for Text<F> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> std::result::Result<T, E> {
        (self.0)(text).ok_or_else(|| E::custom("refused"))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::super::{Iago, Position, Setup};
    use crate::game::{QuickState, Rules};
    use crate::seal::read_object;

    /// Positions of seeded games of every variant (and the penalty option), start to end.
    fn positions() -> Vec<Position> {
        let setups = [
            json!({}),
            json!({"variant": "loose"}),
            json!({"variant": "simple"}),
            json!({"options": {"penalty": true}}),
        ];
        let mut positions = Vec::new();
        for (seed, setup) in setups.iter().enumerate() {
            let setup: Setup = serde_json::from_value(setup.clone()).unwrap();
            let mut position = Iago::start(&Iago::check_setup(setup).unwrap(), None);
            for ply in 0.. {
                if ply % 7 == seed {
                    positions.push(position);
                }
                let moves = Iago::legal_moves(&position);
                // A spread of the legal moves (with the penalty option, some skip a forced capture).
                let Some(&mv) = moves
                    .get((ply * 5 + seed) % (moves.len() + 1))
                    .or(moves.last())
                else {
                    break;
                };
                position = Iago::play(&position, mv).unwrap().0;
            }
        }
        positions
    }

    #[test]
    fn the_quick_reader_reads_what_from_state_reads() {
        let others = [
            "null",
            "true",
            "false",
            "0",
            "1",
            "[]",
            "{}",
            "\"\"",
            "\"x\"",
            "\"black\"",
            "\"white\"",
            "\"b\"",
            "\"w\"",
            "\"iago@1\"",
            "\"iago@2\"",
            "\"standard\"",
            "\"loose\"",
            "\"simple\"",
            "{\"penalty\":true}",
            "\".....\"",
            "\"B....\"",
            "\"b....\"",
            "\"W....\"",
            "\"w....\"",
            "\"......\"",
            "\".......\"",
            "\"....é\"",
            "\"B\\u002e...\"",
        ]
        .map(|text| serde_json::from_str::<Value>(text).unwrap());
        let (mut taken, mut refused, mut left, mut cases) = (0, 0, 0, 0);
        for position in positions() {
            let text = serde_json::to_string(&Iago::to_state(&position)).unwrap();
            let quick = serde_json::from_str::<QuickState<Iago>>(&text).unwrap().0;
            assert_eq!(quick, Ok(position));
            let state: Value = serde_json::from_str(&text).unwrap();
            let claimed = json!({"penalty_claim": true}).as_object().unwrap().clone();
            let mut with_claim = state.clone();
            with_claim.as_object_mut().unwrap().extend(claimed);
            for mutated in [state, with_claim] {
                for text in crate::mutations::changed(&mutated, &others) {
                    let exact = read_object::<Iago>(&text, None).map(|(position, _)| position);
                    match serde_json::from_str::<QuickState<Iago>>(&text) {
                        Ok(QuickState(quick)) => {
                            assert_eq!(quick, exact, "{text}");
                            (taken, refused) = (
                                taken + quick.is_ok() as u32,
                                refused + quick.is_err() as u32,
                            );
                        }
                        Err(_) => left += 1,
                    }
                    cases += 1;
                }
            }
        }
        println!("{taken} taken, {refused} refused alike, {left} left of {cases}");
        assert!(taken > 0 && refused > 0 && left > cases / 2);
    }
}
