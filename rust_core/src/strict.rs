//! Deserializing the parts of a state that are JSON objects, refusing a JSON array in their place:
//! serde's derive takes a struct from an array of its fields in order, which the API does not accept.

use std::marker::PhantomData;

use serde::de::value::MapAccessDeserializer;
use serde::de::{DeserializeOwned, Deserializer, Error as _, MapAccess, Unexpected, Visitor};
use serde::Deserialize;
use serde_json::Value;

/// For `#[serde(deserialize_with = "crate::strict::object")]` on a struct-typed field: a JSON object
/// and nothing else, read in one pass.
pub fn object<'de, D: Deserializer<'de>, S: DeserializeOwned>(
    deserializer: D,
) -> Result<S, D::Error> {
    struct ObjectVisitor<S>(PhantomData<S>);
    impl<'de, S: DeserializeOwned> Visitor<'de> for ObjectVisitor<S> {
        type Value = S;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<S, M::Error> {
            S::deserialize(MapAccessDeserializer::new(map))
        }
    }
    deserializer.deserialize_map(ObjectVisitor(PhantomData))
}

/// Any value as `T` unless it is a JSON array: for values that may also be null or a scalar (the
/// values of a map such as Caesar!'s borders, which are a struct or null). Read as a JSON value first,
/// so that `Option`s, enums and scalars read as they always do.
pub fn no_array<'de, D: Deserializer<'de>, T: DeserializeOwned>(
    deserializer: D,
) -> Result<T, D::Error> {
    let value = Value::deserialize(deserializer)?;
    if value.is_array() {
        return Err(D::Error::invalid_type(Unexpected::Seq, &"a JSON object"));
    }
    T::deserialize(value).map_err(D::Error::custom)
}

/// `no_array` as a seed, for values read one by one (`MapAccess::next_value_seed`).
pub struct NoArray<T>(pub PhantomData<T>);

impl<'de, T: DeserializeOwned> serde::de::DeserializeSeed<'de> for NoArray<T> {
    type Value = T;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<T, D::Error> {
        no_array(deserializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize, PartialEq)]
    struct Pair {
        a: u32,
        b: Option<u32>,
    }

    #[derive(Debug, Deserialize)]
    struct Holder {
        #[serde(deserialize_with = "object")]
        pair: Pair,
        #[serde(default, deserialize_with = "no_array")]
        maybe: Option<Pair>,
    }

    #[test]
    fn an_object_is_read_and_an_array_is_refused() {
        let read: Holder =
            serde_json::from_str(r#"{"pair": {"a": 1, "b": null}, "maybe": null}"#).unwrap();
        assert_eq!(read.pair, Pair { a: 1, b: None });
        assert!(read.maybe.is_none());
        let read: Holder =
            serde_json::from_str(r#"{"pair": {"a": 1}, "maybe": {"a": 2, "b": 3}}"#).unwrap();
        assert_eq!(read.maybe, Some(Pair { a: 2, b: Some(3) }));
        assert!(serde_json::from_str::<Holder>(r#"{"pair": [1, 2]}"#).is_err());
        assert!(
            serde_json::from_str::<Holder>(r#"{"pair": {"a": 1, "b": 2}, "maybe": [1, 2]}"#)
                .is_err()
        );
        // Serde alone would take the array.
        assert_eq!(
            serde_json::from_str::<Pair>("[1, 2]").unwrap(),
            Pair { a: 1, b: Some(2) }
        );
    }
}
