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

    use super::super::{Iago, Setup};
    use crate::game::Rules;
    use crate::mutations::{check_quick_reader, positions};

    #[test]
    fn the_quick_reader_reads_what_from_state_reads() {
        let setups = [
            json!({}),
            json!({"variant": "loose"}),
            json!({"variant": "simple"}),
            json!({"options": {"penalty": true}}),
        ];
        let mut games = Vec::new();
        for (first, setup) in setups.into_iter().enumerate() {
            let setup = Iago::check_setup(serde_json::from_value::<Setup>(setup).unwrap());
            games.extend(positions::<Iago>(&setup.unwrap(), None, 7, first));
        }
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
        ];
        // Each state also with a penalty claim, which only some states may have.
        let claimed = |state: &Value| {
            let mut claimed = state.clone();
            claimed["penalty_claim"] = json!(true);
            vec![claimed.to_string()]
        };
        let seen = check_quick_reader::<Iago>(&games, &others, claimed);
        assert!(seen.taken > 0 && seen.refused > 0 && seen.left > 0);
    }
}
