//! An untrusted state object, opened and read into a position: an opaque state decrypted (see
//! `opaque`); with keys, a sealed one verified against its canonical form (see `seal`) and read from
//! exactly those bytes; without keys, read with its `seal` set aside but for its form (a string as
//! the contract states it, else `invalid-seal`). Every read keys chance with the engine's keys.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::value::MapAccessDeserializer;
use serde::de::{DeserializeSeed, IntoDeserializer, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use crate::canonical::{self, Key, SEAL_FIELD};
use crate::error::Error;
use crate::game::{read_json, CheckedSetup, Rules};
use crate::keys::{chance_of, SealKeys};
use crate::opaque::{self, Form, OPAQUE_FIELD};
use crate::seal::{self, invalid_seal, seal_parts, unknown_key};

/// An opaque state's fields, given the JSON text of a state object that may be one (`holder`: only
/// to refuse format 1 precisely).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OpaqueForm {
    opaque: Value,
    #[serde(default)]
    holder: Option<Value>,
}

/// The text of the state inside an opaque one, decrypted, and its form (committed, for a game with
/// hidden information).
fn open_opaque<G: Rules>(
    form: &OpaqueForm,
    keys: Option<&SealKeys>,
) -> Result<(String, Form), Error> {
    if form.holder.is_some() {
        return Err(opaque::held_refused());
    }
    let Some(keys) = keys else {
        return Err(invalid_seal(
            "opaque: this engine has no seal keys, so it cannot open an opaque state",
        ));
    };
    let text = form
        .opaque
        .as_str()
        .ok_or_else(|| opaque::parts("").unwrap_err())?;
    let (id, bytes) = opaque::parts(text)?;
    let key = keys.find(id).ok_or_else(|| unknown_key(id))?;
    let binding = opaque::Binding {
        game: G::NAME,
        rules: G::RULES_VERSION,
        key_id: id,
    };
    opaque::read_plaintext::<G>(&opaque::open(&key.opaque, &binding, &bytes)?)
}

/// The refusal of a plain state where the keys keep a game with hidden information opaque: it has
/// no commitments to carry on (and shows every hand to whoever holds it).
fn not_opaque_refused<G: Rules>() -> Error {
    invalid_seal(format!(
        "not opaque: this service keeps {} states opaque, with the players' commitments; a plain state has none: start the game again with `new` and `commitments`",
        G::NAME
    ))
}

/// A state object's text, opened: an unsealed one's, read with its seal set aside, or the text of a
/// state that keys vouch for (a sealed state's canonical form, its seal verified; an opaque state's,
/// decrypted).
enum Opened<'a> {
    Unsealed(&'a str),
    Vouched(String, Form),
}

/// An untrusted state given as JSON text, opened: opaque, decrypted; else with keys, its seal
/// verified against its canonical form; without, to be read with any `seal` set aside.
fn open<'a, G: Rules>(text: &'a str, keys: Option<&SealKeys>) -> Result<Opened<'a>, Error> {
    let not_state = |e: serde_json::Error| Error::invalid_state("state", e.to_string());
    if text.contains(OPAQUE_FIELD) {
        if let Ok(form) = serde_json::from_str::<OpaqueForm>(text) {
            return open_opaque::<G>(&form, keys).map(|(text, form)| Opened::Vouched(text, form));
        }
    }
    match keys {
        None => Ok(Opened::Unsealed(text)),
        Some(keys) if G::HIDDEN_INFORMATION && keys.opaque_for(G::NAME) => {
            Err(not_opaque_refused::<G>())
        }
        Some(keys) => {
            if !text.trim_start().starts_with('{') {
                return Err(Error::invalid_state("state", "a state is a JSON object"));
            }
            let mut reader = serde_json::Deserializer::from_str(text);
            let (canonical, seal) = canonical::opened(&mut reader).map_err(no_canonical_form)?;
            reader.end().map_err(not_state)?;
            seal::verify(keys, G::NAME, &canonical, seal.as_ref())?;
            let canonical = String::from_utf8(canonical).expect("canonical JSON is UTF-8");
            Ok(Opened::Vouched(canonical, Form::Object))
        }
    }
}

/// A position string of `setup`, read into a position: refused with keys (a string has no room
/// for a seal), before its text is read (`text`, which may fail); else parsed without chance keys
/// (none without keys).
pub fn read_notation<'a, G: Rules>(
    text: impl FnOnce() -> Result<Cow<'a, str>, Error>,
    setup: &CheckedSetup<G::Setup>,
    keys: Option<&SealKeys>,
) -> Result<(G::Position, Form), Error> {
    if keys.is_some() {
        return Err(invalid_seal(
            "missing: a state given as a position string cannot carry a seal; send the state object",
        ));
    }
    let position = G::parse_position(&text()?, setup, None)?;
    Ok((position, Form::Notation))
}

/// A state object given as JSON text, read into a position, and its form: opened (see `open`),
/// then read by the game's reader, its chance keyed by `keys` (see `chance`).
pub fn read_object<G: Rules>(
    text: &str,
    keys: Option<&SealKeys>,
) -> Result<(G::Position, Form), Error> {
    match open::<G>(text, keys)? {
        Opened::Unsealed(text) => {
            let not_state = |e: serde_json::Error| Error::invalid_state("state", e.to_string());
            let mut reader = serde_json::Deserializer::from_str(text);
            let read = Unsealed::<G>::deserialize(&mut reader).map_err(not_state)?;
            reader.end().map_err(not_state)?;
            read.0.map(|position| (position, Form::Object))
        }
        Opened::Vouched(text, form) => {
            read_json::<G>(&text, chance_of::<G>(keys)).map(|position| (position, form))
        }
    }
}

fn no_canonical_form(error: serde_json::Error) -> Error {
    invalid_seal(format!("mismatch: {error}"))
}

/// A state object read by the game's reader with its `seal` field set aside (engines without keys
/// ignore it, but for its form): the position, or the refusal (a malformed seal's first). Read only
/// where there are no keys, so a keyed random source in it is refused (see `chance`).
pub struct Unsealed<G: Rules>(pub Result<G::Position, Error>);

impl<'de, G: Rules> Deserialize<'de> for Unsealed<G> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct UnsealedVisitor<G>(PhantomData<G>);
        impl<'de, G: Rules> Visitor<'de> for UnsealedVisitor<G> {
            type Value = Unsealed<G>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<Unsealed<G>, M::Error> {
                let mut seal = None;
                let entries = WithoutSeal {
                    map,
                    seal: &mut seal,
                };
                let read = G::read_state(MapAccessDeserializer::new(entries), None)?;
                let seal = seal
                    .as_ref()
                    .map_or(Ok(()), |seal| seal_parts(seal).map(|_| ()));
                Ok(Unsealed(seal.and(read)))
            }
        }
        deserializer.deserialize_map(UnsealedVisitor(PhantomData))
    }
}

/// A map's entries but `seal`, which goes aside.
struct WithoutSeal<'a, M> {
    map: M,
    seal: &'a mut Option<Value>,
}

impl<'de, M: MapAccess<'de>> MapAccess<'de> for WithoutSeal<'_, M> {
    type Error = M::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, M::Error> {
        while let Some(key) = self.map.next_key::<Key<'de>>()? {
            if key.0 != SEAL_FIELD {
                return seed.deserialize(key.0.into_deserializer()).map(Some);
            }
            if self.seal.is_some() {
                return Err(canonical::twice::<M::Error>(SEAL_FIELD));
            }
            *self.seal = Some(self.map.next_value::<Value>()?);
        }
        Ok(None)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, M::Error> {
        self.map.next_value_seed(seed)
    }
}
