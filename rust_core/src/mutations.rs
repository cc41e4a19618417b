//! Holding a game's one state reader (`Rules::read_quick`) to the exact one (`State` and
//! `from_state`) on the states of seeded games and on those states changed one way at one place.

use serde_json::{json, Value};

use crate::error::{Error, Result};
use crate::game::{Checked, QuickState, Rules};
use crate::seal::read_object;

/// Every `every`th position (from the `first`th) of a game from `setup` and `seed` playing, at ply
/// `n`, its legal move `(n * 7 + first) % count` (or the last one), to its end or 400 plies.
pub fn positions<G: Rules>(
    setup: &Checked<G::Setup>,
    seed: Option<u64>,
    every: usize,
    first: usize,
) -> Vec<G::Position> {
    let mut positions = Vec::new();
    let mut position = G::start(setup, seed);
    for ply in 0..400 {
        if ply % every == first {
            positions.push(position.clone());
        }
        let moves = G::legal_moves(&position);
        let Some(mv) = moves
            .get((ply * 7 + first) % (moves.len() + 1))
            .or(moves.last())
        else {
            break;
        };
        position = G::play(&position, mv.clone()).unwrap().0;
    }
    positions
}

/// What `check_reader` saw: states read (a position), refused by their checks, refused as not a
/// state's shape.
#[derive(Debug, Default)]
pub struct Read {
    pub taken: usize,
    pub refused: usize,
    pub malformed: usize,
}

/// A state object's text read by the game's one reader (`Rules::read_quick`), its shape's faults
/// worded as every entry point words them.
fn read_one<G: Rules>(text: &str) -> Result<G::Position> {
    match serde_json::from_str::<QuickState<G>>(text) {
        Ok(QuickState(position)) => position,
        Err(error) => Err(Error::invalid_state("state", error.to_string())),
    }
}

/// Asserts that the game's one reader reads each position's state as that position, and every
/// change of it (each value replaced by each of `others`, and as `changed` says; plus `extra`'s
/// texts) as the exact reader does: the same state, or the same
/// refusal. A text with a key given twice is left out: `json::fault` refuses it before any reader.
pub fn check_reader<G: Rules>(
    positions: &[G::Position],
    others: &[&str],
    extra: impl Fn(&Value) -> Vec<String>,
) -> Read
where
    G::State: PartialEq + std::fmt::Debug,
{
    let others: Vec<Value> = others
        .iter()
        .map(|text| serde_json::from_str(text).unwrap())
        .collect();
    let state_of = |position: Result<G::Position>| position.map(|p| G::to_state(&p));
    let mut read = Read::default();
    for position in positions {
        let text = serde_json::to_string(&G::to_state(position)).unwrap();
        assert_eq!(
            state_of(read_one::<G>(&text)),
            Ok(G::to_state(position)),
            "{text}"
        );
        let state: Value = serde_json::from_str(&text).unwrap();
        for text in changed(&state, &others).into_iter().chain(extra(&state)) {
            if crate::json::fault(&text).is_some() {
                continue;
            }
            let exact = read_object::<G>(&text, None).map(|(position, _)| position);
            let one = read_one::<G>(&text);
            match &one {
                Ok(_) => read.taken += 1,
                Err(Error::InvalidState { field, .. }) if field == "state" => read.malformed += 1,
                Err(_) => read.refused += 1,
            }
            assert_eq!(state_of(one), state_of(exact), "{text}");
        }
    }
    println!("{read:?}");
    read
}

/// `state`'s text changed one way at one place: each value (at any depth) replaced by each of
/// `others`, each object's key removed, renamed, or its first entry given twice, each list reversed
/// or short of one item.
pub fn changed(state: &Value, others: &[Value]) -> Vec<String> {
    let (mut changed, mut twice) = (Vec::new(), Vec::new());
    mutate(
        state,
        &mut |value| changed.push(value.to_string()),
        &mut twice,
        others,
    );
    let text = state.to_string();
    let twice = twice
        .iter()
        .map(|(object, doubled)| text.replacen(object, doubled, 1));
    changed.into_iter().chain(twice).collect()
}

/// Emits `value` changed at one place; adds to `twice` each object's text and that text with
/// its first entry given twice.
fn mutate(
    value: &Value,
    emit: &mut dyn FnMut(Value),
    twice: &mut Vec<(String, String)>,
    others: &[Value],
) {
    for other in others {
        emit(other.clone());
    }
    match value {
        Value::Object(map) => {
            if let Some((key, inner)) = map.iter().next() {
                let text = value.to_string();
                let doubled = format!("{{{}:{inner},{}", json!(key), &text[1..]);
                twice.push((text, doubled));
            }
            for (key, inner) in map {
                let mut removed = map.clone();
                removed.remove(key);
                emit(Value::Object(removed.clone()));
                removed.insert(format!("{key}x"), inner.clone());
                emit(Value::Object(removed));
                let mut at_key = |changed| {
                    let mut map = map.clone();
                    map.insert(key.clone(), changed);
                    emit(Value::Object(map));
                };
                mutate(inner, &mut at_key, twice, others);
            }
        }
        Value::Array(items) => {
            emit(Value::Array(items.iter().rev().cloned().collect()));
            for (at, inner) in items.iter().enumerate() {
                let mut fewer = items.clone();
                fewer.remove(at);
                emit(Value::Array(fewer));
                let mut at_index = |changed| {
                    let mut items = items.clone();
                    items[at] = changed;
                    emit(Value::Array(items));
                };
                mutate(inner, &mut at_index, twice, others);
            }
        }
        _ => {}
    }
}
