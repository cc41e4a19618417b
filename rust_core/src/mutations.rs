//! Test inputs: a JSON state changed one way at one place, for holding a quick reader to the exact
//! one on states near the good ones.

use serde_json::{json, Value};

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
