//! Reading a state straight from the Python objects the API takes, without JSON text in between:
//! writing Caesar!'s 3 KB dict with orjson and scanning the text again cost more than the rules.
//!
//! Only plain JSON values are read (exact `dict`, `list`, `str`, `int`, `bool`, `float`, `None`), as
//! `serde_json` reads their JSON text, so a value read here is the value the JSON path reads. Anything
//! else (a subclass, a tuple, an int beyond 64 bits, a float that is not finite, a string orjson would
//! refuse, deep nesting) is `NotPlain`, and the caller takes the JSON path, which decides and words
//! the error as it always has.

use std::fmt;

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString};
use serde::de::{
    self, DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, SeqAccess, Visitor,
};
use serde::{forward_to_deserialize_any, Deserialize};

use crate::error::Error;
use crate::game::Rules;
use crate::incoming::Unsealed;
use crate::opaque::OPAQUE_FIELD;

/// Deeper values are left to the JSON path (whose own limit is 128), so that this reader's
/// recursion stays shallow.
const MAX_DEPTH: u32 = 64;

/// Why a value was not read here: the JSON path reads it instead.
#[derive(Debug)]
pub struct NotPlain(String);

impl fmt::Display for NotPlain {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NotPlain {}

impl de::Error for NotPlain {
    fn custom<T: fmt::Display>(message: T) -> Self {
        NotPlain(message.to_string())
    }
}

fn not_plain(what: &str) -> NotPlain {
    NotPlain(format!("not a plain JSON value: {what}"))
}

/// A Python value read as a JSON value by serde.
pub struct Plain<'a, 'py> {
    value: &'a Bound<'py, PyAny>,
    depth: u32,
}

impl<'a, 'py> Plain<'a, 'py> {
    pub fn new(value: &'a Bound<'py, PyAny>) -> Self {
        Plain { value, depth: 0 }
    }

    /// A dict's entries, read in order.
    fn entries<'r>(&'r self, dict: &'a Bound<'py, PyDict>) -> Entries<'r, 'a, 'py> {
        Entries {
            dict,
            position: 0,
            value: None,
            reader: self,
        }
    }

    fn inner<'b>(&self, value: &'b Bound<'py, PyAny>) -> Result<Plain<'b, 'py>, NotPlain> {
        if self.depth >= MAX_DEPTH {
            return Err(not_plain("nested too deep"));
        }
        Ok(Plain {
            value,
            depth: self.depth + 1,
        })
    }
}

fn text<'a>(value: &'a Bound<'_, PyString>) -> Result<&'a str, NotPlain> {
    value
        .to_str()
        .map_err(|_| not_plain("a string that is not UTF-8"))
}

impl<'de> Deserializer<'de> for Plain<'_, '_> {
    type Error = NotPlain;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NotPlain> {
        let value = self.value;
        if let Ok(string) = value.cast_exact::<PyString>() {
            return visitor.visit_str(text(string)?);
        }
        if value.is_none() {
            return visitor.visit_unit();
        }
        if let Ok(dict) = value.cast_exact::<PyDict>() {
            return visitor.visit_map(self.entries(dict));
        }
        if let Ok(list) = value.cast_exact::<PyList>() {
            return visitor.visit_seq(Items {
                list,
                next: 0,
                reader: &self,
            });
        }
        if let Ok(flag) = value.cast_exact::<PyBool>() {
            return visitor.visit_bool(flag.is_true());
        }
        if value.cast_exact::<PyInt>().is_ok() {
            let mut overflow = 0;
            // SAFETY: an exact int, read without raising (an int beyond i64 is left to the JSON path).
            let n = unsafe { ffi::PyLong_AsLongLongAndOverflow(value.as_ptr(), &mut overflow) };
            return match (overflow, u64::try_from(n)) {
                (0, Ok(n)) => visitor.visit_u64(n),
                (0, Err(_)) => visitor.visit_i64(n),
                _ => Err(not_plain("an int beyond 64 bits")),
            };
        }
        if let Ok(float) = value.cast_exact::<PyFloat>() {
            let float = float.value();
            if float.is_finite() {
                return visitor.visit_f64(float);
            }
        }
        Err(not_plain("another type"))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NotPlain> {
        if self.value.is_none() {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, NotPlain> {
        visitor.visit_newtype_struct(self)
    }

    /// A unit variant by its name, as JSON gives it; any other form is left to the JSON path.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, NotPlain> {
        match self.value.cast_exact::<PyString>() {
            Ok(string) => visitor.visit_enum(text(string)?.into_deserializer()),
            Err(_) => Err(not_plain("an enum that is not a name")),
        }
    }

    // The type asked for is tried first (any other value is read as `deserialize_any` reads it):
    // a state's ~400 values then cost one type check each instead of a chain of them.
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NotPlain> {
        match self.value.cast_exact::<PyString>() {
            Ok(string) => visitor.visit_str(text(string)?),
            Err(_) => self.deserialize_any(visitor),
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NotPlain> {
        match self.value.cast_exact::<PyBool>() {
            Ok(flag) => visitor.visit_bool(flag.is_true()),
            Err(_) => self.deserialize_any(visitor),
        }
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NotPlain> {
        match self.value.cast_exact::<PyDict>() {
            Ok(dict) => visitor.visit_map(self.entries(dict)),
            Err(_) => self.deserialize_any(visitor),
        }
    }

    forward_to_deserialize_any! {
        i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char string
        bytes byte_buf unit unit_struct seq tuple tuple_struct struct identifier ignored_any
    }
}

/// A dict's entries in their order (JSON text's order, as orjson writes them); keys are strings.
/// Keys and values are borrowed from the dict (no reference counting, a call each in the stable
/// ABI): nothing can change the dict while a state is read (see `read_position`).
struct Entries<'r, 'a, 'py> {
    dict: &'a Bound<'py, PyDict>,
    position: ffi::Py_ssize_t,
    value: Option<Borrowed<'a, 'py, PyAny>>,
    reader: &'r Plain<'a, 'py>,
}

impl<'de> MapAccess<'de> for Entries<'_, '_, '_> {
    type Error = NotPlain;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, NotPlain> {
        let (mut key, mut value) = (std::ptr::null_mut(), std::ptr::null_mut());
        // SAFETY: the dict is a dict, and it does not change while it is read (`read_position`):
        // PyDict_Next lends its key and value for as long as the dict holds them.
        let more = unsafe {
            ffi::PyDict_Next(self.dict.as_ptr(), &mut self.position, &mut key, &mut value)
        };
        if more == 0 {
            return Ok(None);
        }
        let py = self.dict.py();
        // SAFETY: as above, both are valid objects the dict holds.
        let (key, value) = unsafe { (Borrowed::from_ptr(py, key), Borrowed::from_ptr(py, value)) };
        self.value = Some(value);
        let key = key
            .cast_exact::<PyString>()
            .map_err(|_| not_plain("a key that is not a string"))?;
        seed.deserialize(text(&key)?.into_deserializer()).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, NotPlain> {
        let value = self
            .value
            .take()
            .ok_or_else(|| not_plain("a value without its key"))?;
        seed.deserialize(self.reader.inner(&value)?)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.dict.len())
    }
}

/// A list's items in order.
struct Items<'r, 'a, 'l, 'py> {
    list: &'l Bound<'py, PyList>,
    next: usize,
    reader: &'r Plain<'a, 'py>,
}

impl<'de> SeqAccess<'de> for Items<'_, '_, '_, '_> {
    type Error = NotPlain;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, NotPlain> {
        if self.next >= self.list.len() {
            return Ok(None);
        }
        let at = ffi::Py_ssize_t::try_from(self.next).map_err(|_| not_plain("a long list"))?;
        // SAFETY: `next` is below the length of the list, which does not change while it is read
        // (`read_position`); PyList_GetItem lends the item for as long as the list holds it.
        let item = unsafe {
            Borrowed::from_ptr(self.list.py(), ffi::PyList_GetItem(self.list.as_ptr(), at))
        };
        self.next += 1;
        seed.deserialize(self.reader.inner(&item)?).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.list.len().saturating_sub(self.next))
    }
}

/// A state dict read as `incoming::read_object` reads its JSON text without keys, or `None` when the JSON
/// path must read it: not a plain dict, an opaque state, or anything `Plain` leaves to it. A state
/// read here is the one the JSON path would read, so its checks answer the same.
pub fn read_position<G: Rules>(state: &Bound<'_, PyAny>) -> Option<Result<G::Position, Error>> {
    let dict = state.cast_exact::<PyDict>().ok()?;
    if dict.contains(OPAQUE_FIELD).ok()? {
        return None;
    }
    let position = without_collection(|| Unsealed::<G>::deserialize(Plain::new(state))).ok()?;
    Some(position.0)
}

/// `read` with Python's cyclic garbage collection paused: `Plain` borrows the objects of a state
/// from their dicts and lists and runs no Python code (the one exception it may meet, a string
/// that is not UTF-8, is a built-in one), so with the GIL held and no collection (whose finalizers
/// could run any code) nothing changes them while they are read.
fn without_collection<T>(read: impl FnOnce() -> T) -> T {
    // SAFETY: the GIL is held (the caller holds a `Bound`); the collector's previous state is restored.
    let was_enabled = unsafe { ffi::PyGC_Disable() } == 1;
    let value = read();
    if was_enabled {
        // SAFETY: as above.
        unsafe { ffi::PyGC_Enable() };
    }
    value
}
