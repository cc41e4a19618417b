//! The strings of a state read without allocating where the input allows (by the games' readers):
//! borrowed from JSON text where a string has no escapes, else copied, in place when short (a
//! state's names are: colours, locations, pieces), so that a state read from Python objects (whose
//! strings serde hands over only for the call) allocates no more than one from JSON text.

use std::cmp::Ordering;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, Visitor};

/// Bytes a `Name` holds in place.
const SHORT: usize = 22;

/// A string of a state.
pub enum Name<'a> {
    Borrowed(&'a str),
    /// A copy of a short string: its length and bytes (the first `len` are the string's).
    Short(u8, [u8; SHORT]),
    Owned(String),
}

impl<'a> Name<'a> {
    fn copied(text: &str) -> Name<'a> {
        let mut bytes = [0; SHORT];
        match bytes.get_mut(..text.len()) {
            Some(start) => {
                start.copy_from_slice(text.as_bytes());
                Name::Short(text.len() as u8, bytes)
            }
            None => Name::Owned(text.to_owned()),
        }
    }
}

impl AsRef<str> for Name<'_> {
    fn as_ref(&self) -> &str {
        match self {
            Name::Borrowed(text) => text,
            Name::Short(len, bytes) => {
                std::str::from_utf8(&bytes[..usize::from(*len)]).expect("copied from a str")
            }
            Name::Owned(text) => text,
        }
    }
}

impl PartialEq for Name<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.as_ref() == other.as_ref()
    }
}

impl Eq for Name<'_> {}

impl PartialOrd for Name<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// As the strings compare (a map of names is ordered as a map of `String`s).
impl Ord for Name<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.as_ref().cmp(other.as_ref())
    }
}

impl fmt::Debug for Name<'_> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        fmt::Debug::fmt(self.as_ref(), f)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Name<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(NameVisitor(std::marker::PhantomData))
    }
}

struct NameVisitor<'a>(std::marker::PhantomData<Name<'a>>);

impl<'de: 'a, 'a> Visitor<'de> for NameVisitor<'a> {
    type Value = Name<'a>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Name<'a>, E> {
        Ok(Name::Borrowed(text))
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Name<'a>, E> {
        Ok(Name::copied(text))
    }
}

#[cfg(test)]
mod tests {
    use super::Name;

    #[test]
    fn a_name_is_its_string_however_it_is_held() {
        let long = "x".repeat(40);
        for text in [
            "",
            "red",
            "é",
            "1234567890123456789012",
            "12345678901234567890123",
            &long,
        ] {
            let names = [Name::Borrowed(text), Name::copied(text)];
            for name in &names {
                assert_eq!(name.as_ref(), text);
                assert_eq!(format!("{name:?}"), format!("{text:?}"));
            }
            assert!(
                matches!(names[1], Name::Short(..)) == (text.len() <= 22),
                "{text}"
            );
            assert_eq!(names[0], names[1]);
            assert_eq!(Name::copied("m").cmp(&names[1]), "m".cmp(text));
        }
    }
}
