//! The strings of a state read without copying them where the input allows (by the quick readers):
//! borrowed from JSON text where a string has no escapes, copied from anything else (an escape, a
//! Python object).

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, Visitor};

/// A string of a state, borrowed from the text it was read from when it can be.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Name<'a>(pub Cow<'a, str>);

impl AsRef<str> for Name<'_> {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Name<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        deserializer.deserialize_str(NameVisitor(std::marker::PhantomData))
    }
}

struct NameVisitor<'a>(std::marker::PhantomData<Name<'a>>);

impl<'de: 'a, 'a> Visitor<'de> for NameVisitor<'a> {
    type Value = Name<'a>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> std::result::Result<Name<'a>, E> {
        Ok(Name(Cow::Borrowed(text)))
    }

    fn visit_str<E: de::Error>(self, text: &str) -> std::result::Result<Name<'a>, E> {
        Ok(Name(Cow::Owned(text.to_owned())))
    }
}
