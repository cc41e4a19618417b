//! Deserializing the parts of a state that are JSON objects, refusing a JSON array in their place:
//! serde's derive takes a struct from an array of its fields in order, which the API does not accept.

use std::marker::PhantomData;

use serde::de::value::MapAccessDeserializer;
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};

/// For `#[serde(deserialize_with = "crate::strict::object")]` on a struct-typed field: a JSON object
/// and nothing else, read in one pass.
pub fn object<'de, D: Deserializer<'de>, S: Deserialize<'de>>(
    deserializer: D,
) -> Result<S, D::Error> {
    struct ObjectVisitor<S>(PhantomData<S>);
    impl<'de, S: Deserialize<'de>> Visitor<'de> for ObjectVisitor<S> {
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

/// `Serialize` and `Deserialize` for a struct derived with `#[serde(remote = "Self")]` (which makes
/// the derived code inherent functions): written as derived, read from a JSON object only, in one
/// pass. For structs that are read where `object` cannot be named, such as the values of a map.
#[macro_export]
macro_rules! object_only {
    ($T:ty) => {
        impl serde::Serialize for $T {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                <$T>::serialize(self, serializer)
            }
        }

        impl<'de> serde::Deserialize<'de> for $T {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<$T, D::Error> {
                struct ObjectVisitor;
                impl<'de> serde::de::Visitor<'de> for ObjectVisitor {
                    type Value = $T;
                    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                        f.write_str("a JSON object")
                    }
                    fn visit_map<M: serde::de::MapAccess<'de>>(
                        self,
                        map: M,
                    ) -> Result<$T, M::Error> {
                        <$T>::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    }
                }
                deserializer.deserialize_map(ObjectVisitor)
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    use serde::{Deserialize, Serialize};

    #[derive(Debug, Deserialize, Serialize, PartialEq)]
    #[serde(remote = "Self")]
    struct Pair {
        a: u32,
        b: Option<u32>,
    }
    crate::object_only!(Pair);

    #[derive(Debug, Deserialize)]
    struct Holder {
        #[serde(deserialize_with = "object")]
        pair: Pair,
        #[serde(default)]
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
        assert!(serde_json::from_str::<Pair>("[1, 2]").is_err());
        // Serde alone would take the array.
        assert_eq!(
            Pair::deserialize(&mut serde_json::Deserializer::from_str("[1, 2]")).unwrap(),
            Pair { a: 1, b: Some(2) }
        );
        assert_eq!(
            serde_json::to_string(&Pair { a: 1, b: None }).unwrap(),
            r#"{"a":1,"b":null}"#
        );
    }
}
