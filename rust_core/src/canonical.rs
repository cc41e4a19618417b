//! The canonical JSON text of a state object, what a seal's MAC covers (see `seal`): compact, the
//! keys of every object sorted by their UTF-8 bytes, strings escaped as serde_json writes them (`"`
//! `\` and control characters only), integers in decimal, the top-level `seal` set aside. An object
//! with a key twice has no canonical form.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

/// The name of the seal field in a state object.
pub const SEAL_FIELD: &str = "seal";

/// A state's canonical JSON, written.
pub(crate) fn of<S: Serialize>(state: &S) -> Vec<u8> {
    let text = serde_json::to_vec(state).expect("a state serializes");
    let mut reader = serde_json::Deserializer::from_slice(&text);
    opened(&mut reader)
        .expect("a serialized state is canonical")
        .0
}

/// A state object taken apart: its canonical form without `seal`, and the `seal` as given.
pub(crate) fn opened<'de, D: Deserializer<'de>>(
    state: D,
) -> Result<(Vec<u8>, Option<Value>), D::Error> {
    struct StateVisitor<'a> {
        out: &'a mut Vec<u8>,
        seal: &'a mut Option<Value>,
    }
    impl<'de> Visitor<'de> for StateVisitor<'_> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a state object")
        }
        fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<(), M::Error> {
            write_object(self.out, map, Some(self.seal))
        }
    }
    let (mut out, mut seal) = (Vec::with_capacity(1024), None);
    state.deserialize_map(StateVisitor {
        out: &mut out,
        seal: &mut seal,
    })?;
    Ok((out, seal))
}

pub(crate) fn twice<E: de::Error>(key: &str) -> E {
    E::custom(format!(
        "the state has the key {key:?} twice in one object, so no seal can match it"
    ))
}

/// Writes the canonical JSON text of a value into its buffer (see the module's documentation).
struct Canonical<'a>(&'a mut Vec<u8>);

impl<'de> DeserializeSeed<'de> for Canonical<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Canonical<'_> {
    fn json<T: Serialize + ?Sized, E>(self, value: &T) -> Result<(), E> {
        serde_json::to_writer(&mut *self.0, value).expect("a JSON scalar serializes");
        Ok(())
    }
}

impl<'de> Visitor<'de> for Canonical<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        self.0.extend_from_slice(b"null");
        Ok(())
    }
    fn visit_none<E>(self) -> Result<(), E> {
        self.0.extend_from_slice(b"null");
        Ok(())
    }
    fn visit_some<D: Deserializer<'de>>(self, value: D) -> Result<(), D::Error> {
        value.deserialize_any(self)
    }
    fn visit_bool<E>(self, value: bool) -> Result<(), E> {
        self.json(&value)
    }
    fn visit_i64<E>(self, value: i64) -> Result<(), E> {
        self.json(&value)
    }
    fn visit_u64<E>(self, value: u64) -> Result<(), E> {
        self.json(&value)
    }
    fn visit_f64<E>(self, value: f64) -> Result<(), E> {
        self.json(&value)
    }
    fn visit_str<E>(self, value: &str) -> Result<(), E> {
        self.json(value)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.0.push(b'[');
        let mut first = true;
        loop {
            let mark = self.0.len();
            if !first {
                self.0.push(b',');
            }
            if seq.next_element_seed(Canonical(&mut *self.0))?.is_none() {
                self.0.truncate(mark);
                break;
            }
            first = false;
        }
        self.0.push(b']');
        Ok(())
    }
    fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<(), M::Error> {
        write_object(self.0, map, None)
    }
}

/// Writes an object with its keys sorted by their bytes: each value is written canonical as it is
/// read, then the values are put in key order. With `seal`, a top-level `seal` goes there instead.
fn write_object<'de, M: MapAccess<'de>>(
    out: &mut Vec<u8>,
    mut map: M,
    mut seal: Option<&mut Option<Value>>,
) -> Result<(), M::Error> {
    let start = out.len();
    let mut entries: Vec<(Key<'de>, std::ops::Range<usize>)> = Vec::new();
    while let Some(key) = map.next_key::<Key<'de>>()? {
        if let (Some(seal), SEAL_FIELD) = (seal.as_deref_mut(), key.0.as_ref()) {
            if seal.is_some() {
                return Err(twice::<M::Error>(SEAL_FIELD));
            }
            *seal = Some(map.next_value::<Value>()?);
            continue;
        }
        let from = out.len() - start;
        map.next_value_seed(Canonical(&mut *out))?;
        entries.push((key, from..out.len() - start));
    }
    entries.sort_unstable_by(|a, b| a.0 .0.as_bytes().cmp(b.0 .0.as_bytes()));
    if let Some(pair) = entries.windows(2).find(|pair| pair[0].0 .0 == pair[1].0 .0) {
        return Err(twice::<M::Error>(&pair[0].0 .0));
    }
    let values = out.split_off(start);
    out.push(b'{');
    for (index, (key, range)) in entries.iter().enumerate() {
        if index > 0 {
            out.push(b',');
        }
        serde_json::to_writer(&mut *out, key.0.as_ref()).expect("a string serializes");
        out.push(b':');
        out.extend_from_slice(&values[range.clone()]);
    }
    out.push(b'}');
    Ok(())
}

/// A map key, borrowed from the input when it can be.
pub(crate) struct Key<'de>(pub(crate) Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E>(self, key: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(key)))
            }
            fn visit_str<E>(self, key: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(key.to_owned())))
            }
            fn visit_string<E>(self, key: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(key)))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_json_is_compact_with_sorted_keys() {
        let text =
            r#" { "b" : [1, -2, {"z": null, "a": true}], "a": "x\u00e9\"", "\u00e9": 1.5 } "#;
        let mut canonical = Vec::new();
        Canonical(&mut canonical)
            .deserialize(&mut serde_json::Deserializer::from_str(text))
            .unwrap();
        assert_eq!(
            String::from_utf8(canonical).unwrap(),
            "{\"a\":\"xé\\\"\",\"b\":[1,-2,{\"a\":true,\"z\":null}],\"é\":1.5}"
        );
    }
}
