//! Seals: a keyed MAC over a state, so that a state Referee issued can be verified when a client
//! sends it back, and any change to it is refused.
//!
//! - **Keys**: `k2:SECRET,k1:SECRET`, a key id (`[A-Za-z0-9_-]`, 1 to 64 characters), a colon and the
//!   secret as base64url (padded or not) of at least 32 bytes; comma-separated. The first key seals,
//!   every key verifies, so keys rotate without breaking games in flight.
//! - **Seal**: `"seal": "<key id>.<MAC>"` in the state object, the MAC HMAC-SHA-256 written as 43
//!   characters of unpadded base64url (exactly one spelling is accepted).
//! - **What the MAC covers**: `referee-seal/1`, a newline, the game's name, a newline, then the
//!   state object without its `seal` in canonical JSON: compact, the keys of every object sorted by
//!   their UTF-8 bytes, strings escaped as serde_json writes them (`"` `\` and control characters
//!   only), integers in decimal. The state holds the rules version (`rules`), the setup (variant
//!   and options) and the whole position, so all of them are covered, and so is every field as sent:
//!   a field changed, added or removed (even one at its default) breaks the seal. A state with a key
//!   twice in one object has no canonical form and is refused.
//! - **Verification** reads the state's canonical form, checks the MAC in constant time
//!   (`Mac::verify_slice`), and then parses the state from exactly those canonical bytes: what is
//!   verified is what is played.
//!
//! With keys, a game listed as opaque answers its states encrypted instead (see `opaque`), and every
//! engine with keys accepts them; chance games key their generators (see `chance`).
//!
//! Without keys, a `seal` field is ignored but for its form (a string as above, else `invalid-seal`,
//! as the contract types it): it is not verified, and answers carry none.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig, URL_SAFE_NO_PAD};
use base64::engine::DecodePaddingMode;
use base64::{alphabet, Engine as _};

use hmac::{Hmac, Mac};
use serde::de::value::MapAccessDeserializer;
use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use sha2::Sha256;

use crate::chance::{self, is_key_id, ChanceKeys, CHANCE_LABEL, MAX_KEY_ID_CHARS};
use crate::error::Error;
use crate::game::{read_json, Rules, StateOf};
use crate::opaque::{self, Commitments, Form, OPAQUE_FIELD};

type HmacSha256 = Hmac<Sha256>;

/// The name of the seal field in a state object.
pub const SEAL_FIELD: &str = "seal";
/// What starts every MAC's input: the seal format's version.
const DOMAIN: &[u8] = b"referee-seal/1\n";
/// Fewest bytes a secret has.
pub const MIN_SECRET_BYTES: usize = 32;
/// Characters of a MAC in a seal (32 bytes in unpadded base64url).
const MAC_CHARS: usize = 43;
/// A seal as the contract states it: 43 base64url characters hold 258 bits, so the last one's low
/// two bits are zero in the one spelling of 32 bytes.
pub const SEAL_PATTERN: &str = r"^[A-Za-z0-9_-]{1,64}\.[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$";
/// The characters that may end a MAC (see `SEAL_PATTERN`).
#[cfg(test)]
const MAC_LAST: &str = "AEIMQUYcgkosw048";

/// Secrets are read padded or not; MACs are written and read unpadded, in their one canonical spelling.
const SECRET_BASE64: GeneralPurpose = GeneralPurpose::new(
    &alphabet::URL_SAFE,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

struct SealKey {
    id: String,
    /// The HMAC keyed once: each use clones it instead of hashing the secret again.
    mac: HmacSha256,
    /// The cipher of opaque states, keyed by a secret derived from this key (see `opaque`).
    opaque: chacha20poly1305::XChaCha20Poly1305,
}

/// The keys of a service or an embedding: the first seals, all verify. Never shows its secrets.
/// Also the games whose states are answered opaque (encrypted).
pub struct SealKeys {
    keys: Vec<SealKey>,
    opaque_games: Vec<String>,
}

impl fmt::Debug for SealKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SealKeys(ids={:?}", self.ids())?;
        if !self.opaque_games.is_empty() {
            write!(f, ", opaque={:?}", self.opaque_games)?;
        }
        f.write_str(")")
    }
}

impl SealKeys {
    /// Reads `id:SECRET,id:SECRET,...`. The error names the entry at fault and never repeats a secret.
    pub fn parse(text: &str) -> Result<SealKeys, String> {
        if text.trim().is_empty() {
            return Err("no key given: at least one `key-id:secret` is needed".into());
        }
        let mut keys: Vec<SealKey> = Vec::new();
        for (index, entry) in text.split(',').map(str::trim).enumerate() {
            let number = index + 1;
            let Some((id, secret)) = entry.split_once(':') else {
                return Err(format!(
                    "entry {number} is not `key-id:secret` (no colon; entries are separated by commas)"
                ));
            };
            if !is_key_id(id) {
                return Err(format!(
                    "entry {number}: a key id is 1 to {MAX_KEY_ID_CHARS} characters of A-Z a-z 0-9 _ -"
                ));
            }
            if keys.iter().any(|key| key.id == id) {
                return Err(format!("entry {number}: the key id {id:?} is given twice"));
            }
            let secret = SECRET_BASE64.decode(secret).map_err(|_| {
                format!("entry {number}: the secret of key {id:?} is not base64url")
            })?;
            if secret.len() < MIN_SECRET_BYTES {
                return Err(format!(
                    "entry {number}: the secret of key {id:?} is {} bytes; at least {MIN_SECRET_BYTES} random bytes are needed",
                    secret.len()
                ));
            }
            let mac = HmacSha256::new_from_slice(&secret).expect("HMAC takes a key of any length");
            keys.push(SealKey {
                id: id.to_owned(),
                opaque: opaque::cipher(&mac),
                mac,
            });
        }
        Ok(SealKeys {
            keys,
            opaque_games: Vec::new(),
        })
    }

    /// A state encrypted with the first key, bound to `G`, with its commitments when `G` has hidden
    /// information.
    fn encrypt<'a, G: Rules>(
        &self,
        state: &StateOf<'a, G>,
        commitments: Option<&Commitments>,
    ) -> Stamped<StateOf<'a, G>> {
        let commitments = commitments.filter(|_| G::HIDDEN_INFORMATION);
        let key = &self.keys[0];
        let binding = opaque::Binding {
            game: G::NAME,
            rules: G::RULES_VERSION,
            key_id: &key.id,
        };
        let plaintext =
            serde_json::to_vec(&Inside { state, commitments }).expect("a state serializes");
        Stamped::Opaque {
            opaque: opaque::seal(&key.opaque, &binding, &plaintext),
        }
    }

    /// These keys, answering the states of `games` opaque (encrypted). The caller checks the names.
    pub fn with_opaque_games(mut self, games: Vec<String>) -> SealKeys {
        self.opaque_games = games;
        self
    }

    /// The games whose states are answered opaque.
    pub fn opaque_games(&self) -> &[String] {
        &self.opaque_games
    }

    /// Whether `game`'s states are answered opaque.
    pub fn opaque_for(&self, game: &str) -> bool {
        self.opaque_games.iter().any(|name| name == game)
    }

    /// The chance keys of `game` (see `chance`): every key, the sealing one first.
    pub fn chance_keys(&self, game: &str) -> ChanceKeys {
        ChanceKeys::new(
            self.keys
                .iter()
                .map(|key| {
                    let mut mac = key.mac.clone();
                    mac.update(CHANCE_LABEL);
                    mac.update(game.as_bytes());
                    mac.update(b"\n");
                    (key.id.clone(), mac)
                })
                .collect(),
        )
    }

    /// The key ids, the sealing one first.
    pub fn ids(&self) -> Vec<&str> {
        self.keys.iter().map(|key| key.id.as_str()).collect()
    }

    fn mac(key: &SealKey, game: &str, canonical: &[u8]) -> HmacSha256 {
        let mut mac = key.mac.clone();
        mac.update(DOMAIN);
        mac.update(game.as_bytes());
        mac.update(b"\n");
        mac.update(canonical);
        mac
    }

    /// The seal of a state's canonical form, with the first key.
    fn seal(&self, game: &str, canonical: &[u8]) -> String {
        let key = &self.keys[0];
        let tag = Self::mac(key, game, canonical).finalize().into_bytes();
        format!("{}.{}", key.id, URL_SAFE_NO_PAD.encode(tag))
    }

    /// Checks a state's seal (the JSON value of its `seal` field, if any) against its canonical form.
    fn verify(&self, game: &str, canonical: &[u8], seal: Option<&Value>) -> Result<(), Error> {
        let seal = seal.ok_or_else(|| {
            invalid_seal(
                "missing: the state has no seal, and this service accepts only states it sealed",
            )
        })?;
        let (id, tag) = seal_parts(seal)?;
        let key = self.keys.iter().find(|key| key.id == id).ok_or_else(|| {
            invalid_seal(format!(
                "unknown key id: {id:?} is not a key of this service"
            ))
        })?;
        verify_tag(Self::mac(key, game, canonical), &tag).map_err(|_| {
            invalid_seal("mismatch: the seal does not match this state (the state or its seal was changed, or another key sealed it)")
        })
    }
}

/// A seal's key id and MAC, or why it is malformed.
fn seal_parts(seal: &Value) -> Result<(&str, Vec<u8>), Error> {
    let malformed = || {
        invalid_seal(format!(
            "malformed: a seal is a string, a key id, a dot and {MAC_CHARS} base64url characters"
        ))
    };
    let (id, tag) = seal
        .as_str()
        .and_then(|text| text.split_once('.'))
        .ok_or_else(malformed)?;
    if !is_key_id(id) || tag.len() != MAC_CHARS {
        return Err(malformed());
    }
    let tag = URL_SAFE_NO_PAD.decode(tag).map_err(|_| malformed())?;
    Ok((id, tag))
}

/// The one comparison of a MAC with a seal's: the `hmac` crate's constant-time check (`subtle`),
/// whatever number of leading bytes agree. Nothing else compares MAC bytes.
fn verify_tag(mac: HmacSha256, tag: &[u8]) -> Result<(), hmac::digest::MacError> {
    mac.verify_slice(tag)
}

fn invalid_seal(detail: impl Into<String>) -> Error {
    Error::InvalidSeal {
        detail: detail.into(),
    }
}

/// The refusal of a state given as a position string to an engine with keys: a string has no room
/// for a seal.
pub fn position_refused() -> Error {
    invalid_seal(
        "missing: a state given as a position string cannot carry a seal; send the state object",
    )
}

/// A state as Referee answers it: its own fields, then `seal` when the engine has keys; or, for the
/// games the keys make opaque, `{"opaque": ...}`.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Stamped<S> {
    Plain {
        #[serde(flatten)]
        state: S,
        #[serde(skip_serializing_if = "Option::is_none")]
        seal: Option<String>,
    },
    Opaque {
        opaque: String,
    },
}

impl<S> Stamped<S> {
    pub fn is_opaque(&self) -> bool {
        matches!(self, Stamped::Opaque { .. })
    }
}

/// What an opaque state encrypts: the state's JSON as the engine writes it (the tag authenticates
/// these exact bytes, so no canonical form is needed), and the players' commitments when the game
/// has hidden information.
#[derive(Serialize)]
struct Inside<'a, S> {
    state: &'a S,
    #[serde(skip_serializing_if = "Option::is_none")]
    commitments: Option<&'a Commitments>,
}

/// `Inside`, read back: the state's text is read by `read_object`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InsideRead {
    state: Box<serde_json::value::RawValue>,
    #[serde(default)]
    commitments: Option<Value>,
}

/// A state's canonical JSON (what a seal's MAC covers).
fn canonical_of<S: Serialize>(state: &S) -> Vec<u8> {
    let text = serde_json::to_vec(state).expect("a state serializes");
    let mut reader = serde_json::Deserializer::from_slice(&text);
    opened(&mut reader)
        .expect("a serialized state is canonical")
        .0
}

/// Whether `keys` answer a state of `G` opaque: when they make the game opaque, or when the state is
/// committed. A committed state stays opaque whatever the keys' opaque games say now: turning opaque
/// mode off must not show the hands of a game under way.
pub fn answers_opaque<G: Rules>(keys: &SealKeys, commitments: Option<&Commitments>) -> bool {
    keys.opaque_for(G::NAME) || (G::HIDDEN_INFORMATION && commitments.is_some())
}

/// A position's state on its way out: sealed with the first key when there are keys, encrypted
/// with it (with `commitments`, for a game with hidden information) when they make the game opaque.
pub fn stamp<'a, G: Rules>(
    position: &'a G::Position,
    keys: Option<&SealKeys>,
    commitments: Option<&Commitments>,
) -> Stamped<StateOf<'a, G>> {
    let state = StateOf(position);
    let Some(keys) = keys else {
        return Stamped::Plain { state, seal: None };
    };
    if answers_opaque::<G>(keys, commitments) {
        return keys.encrypt::<G>(&state, commitments);
    }
    let seal = keys.seal(G::NAME, &canonical_of(&state));
    Stamped::Plain {
        state,
        seal: Some(seal),
    }
}

/// Runs `f` (which starts or reads positions of `G`) with `G`'s chance keyed by `keys`, if any.
pub fn with_chance<G: Rules, R>(keys: Option<&SealKeys>, f: impl FnOnce() -> R) -> R {
    chance::keyed(keys.map(|keys| keys.chance_keys(G::NAME)), f)
}

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
    let key = keys.keys.iter().find(|key| key.id == id).ok_or_else(|| {
        invalid_seal(format!(
            "unknown key id: {id:?} is not a key of this service"
        ))
    })?;
    let binding = opaque::Binding {
        game: G::NAME,
        rules: G::RULES_VERSION,
        key_id: id,
    };
    let plaintext = opaque::open(&key.opaque, &binding, &bytes)?;
    let inside: InsideRead = serde_json::from_slice(&plaintext)
        .map_err(|e| Error::invalid_state("state", e.to_string()))?;
    let form = match (G::HIDDEN_INFORMATION, inside.commitments) {
        (false, _) => Form::Object,
        (true, Some(commitments)) => Form::Committed(
            Commitments::parse::<G>(&commitments)
                .map_err(|(field, message)| Error::invalid_state(field, message))?,
        ),
        (true, None) => return Err(Error::invalid_state("commitments", "missing")),
    };
    Ok((Box::<str>::from(inside.state).into(), form))
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
            let (canonical, seal) = opened(&mut reader).map_err(no_canonical_form)?;
            reader.end().map_err(not_state)?;
            keys.verify(G::NAME, &canonical, seal.as_ref())?;
            let canonical = String::from_utf8(canonical).expect("canonical JSON is UTF-8");
            Ok(Opened::Vouched(canonical, Form::Object))
        }
    }
}

/// A state object given as JSON text, read into a position, and its form: opened (see `open`),
/// then read by the game's reader, its chance keyed by `keys` (see `chance`).
pub fn read_object<G: Rules>(
    text: &str,
    keys: Option<&SealKeys>,
) -> Result<(G::Position, Form), Error> {
    let opened = open::<G>(text, keys)?;
    with_chance::<G, _>(keys, || match opened {
        Opened::Unsealed(text) => {
            let not_state = |e: serde_json::Error| Error::invalid_state("state", e.to_string());
            let mut reader = serde_json::Deserializer::from_str(text);
            let read = Unsealed::<G>::deserialize(&mut reader).map_err(not_state)?;
            reader.end().map_err(not_state)?;
            read.0.map(|position| (position, Form::Object))
        }
        Opened::Vouched(text, form) => read_json::<G>(&text).map(|position| (position, form)),
    })
}

fn no_canonical_form(error: serde_json::Error) -> Error {
    invalid_seal(format!("mismatch: {error}"))
}

/// A state object taken apart: its canonical form without `seal`, and the `seal` as given.
fn opened<'de, D: Deserializer<'de>>(state: D) -> Result<(Vec<u8>, Option<Value>), D::Error> {
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

fn twice<E: de::Error>(key: &str) -> E {
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

/// A state object read by the game's reader with its `seal` field set aside (engines without keys
/// ignore it, but for its form): the position, or the refusal (a malformed seal's first).
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
                let read = G::read_state(MapAccessDeserializer::new(entries))?;
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
                return Err(twice::<M::Error>(SEAL_FIELD));
            }
            *self.seal = Some(self.map.next_value::<Value>()?);
        }
        Ok(None)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, M::Error> {
        self.map.next_value_seed(seed)
    }
}

/// A map key, borrowed from the input when it can be.
struct Key<'de>(Cow<'de, str>);

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
    use crate::caesar::Caesar;
    use crate::iago::Iago;

    const SECRET_1: &str = "c2VhbC1zZWNyZXQtb25lLXNlYWwtc2VjcmV0LW9uZS0"; // 32 bytes, unpadded
    const SECRET_2: &str = "c2VhbC1zZWNyZXQtdHdvLXNlYWwtc2VjcmV0LXR3by0="; // 32 bytes, padded

    fn keys(text: &str) -> SealKeys {
        SealKeys::parse(text).unwrap()
    }

    type IagoPosition = <Iago as Rules>::Position;

    fn iago_start() -> IagoPosition {
        Iago::start(&crate::game::default_setup::<Iago>(), None)
    }

    /// A state as a client gets it: the JSON text of a stamped state.
    fn issued_text(keys: &SealKeys) -> String {
        serde_json::to_string(&stamp::<Iago>(&iago_start(), Some(keys), None)).unwrap()
    }

    /// A state given as JSON text, opened and read.
    fn open_text<G: Rules>(text: &str, keys: Option<&SealKeys>) -> Result<G::Position, Error> {
        read_object::<G>(text, keys).map(|(position, _)| position)
    }

    #[test]
    fn a_sealed_state_is_its_state_and_its_seal_and_reads_back() {
        let keys = keys(&format!("k1:{SECRET_1}"));
        let setup = crate::game::default_setup::<Caesar>();
        for seed in 0..4u64 {
            let mut position = Caesar::start(&setup, Some(seed));
            for ply in 0usize.. {
                let state = serde_json::to_string(&StateOf::<Caesar>(&position)).unwrap();
                let stamped = stamp::<Caesar>(&position, Some(&keys), None);
                let stamped = serde_json::to_string(&stamped).unwrap();
                let (canonical, seal) =
                    opened(&mut serde_json::Deserializer::from_str(&stamped)).unwrap();
                let seal = seal.unwrap();
                let seal = seal.as_str().unwrap();
                let fields = &state[..state.len() - 1];
                assert_eq!(stamped, format!("{fields},\"seal\":\"{seal}\"}}"));
                assert_eq!(keys.seal("caesar", &canonical), seal);
                let (read, form) = read_object::<Caesar>(&stamped, Some(&keys)).unwrap();
                assert_eq!((read, form), (position.clone(), Form::Object));
                let moves = Caesar::legal_moves(&position);
                let Some(mv) = moves.get((seed as usize * 7 + ply) % moves.len().max(1)) else {
                    break;
                };
                position = Caesar::play(&position, mv.clone()).unwrap().0;
            }
        }
    }

    fn refusal(result: Result<impl fmt::Debug, Error>) -> String {
        match result.unwrap_err() {
            Error::InvalidSeal { detail } => detail,
            other => panic!("not invalid-seal: {other:?}"),
        }
    }

    #[test]
    fn keys_are_read_and_faults_named_without_the_secret() {
        let read = keys(&format!(" k2:{SECRET_2} , k1:{SECRET_1}"));
        assert_eq!(read.ids(), ["k2", "k1"]);
        assert_eq!(format!("{read:?}"), r#"SealKeys(ids=["k2", "k1"])"#);
        let short = "c2hvcnQ"; // 5 bytes
        for (text, says) in [
            ("", "no key"),
            ("  ", "no key"),
            (SECRET_1, "entry 1 is not `key-id:secret`"),
            (&format!("k1:{SECRET_1},"), "entry 2"),
            (&format!("k.1:{SECRET_1}"), "key id"),
            (&format!(":{SECRET_1}"), "key id"),
            (&format!("k1:{SECRET_1},k1:{SECRET_2}"), "given twice"),
            (&format!("k1:{SECRET_1}!"), "not base64url"),
            (&format!("k1:{short}"), "5 bytes; at least 32"),
        ] {
            let error = SealKeys::parse(text).unwrap_err();
            assert!(error.contains(says), "{text:?}: {error}");
            assert!(
                !error.contains(SECRET_1) && !error.contains(short),
                "{error}"
            );
        }
    }

    #[test]
    fn a_sealed_state_opens_as_sent_and_as_a_client_rewrites_it() {
        let keys = keys(&format!("k1:{SECRET_1}"));
        let text = issued_text(&keys);
        let seal = serde_json::from_str::<Value>(&text).unwrap()["seal"].clone();
        assert!(regex_like_seal(seal.as_str().unwrap()), "{seal}");
        assert_eq!(open_text::<Iago>(&text, Some(&keys)).unwrap(), iago_start());
        // Key order, whitespace and string escapes are not part of the canonical form.
        let mut value: Value = serde_json::from_str(&text).unwrap();
        let pretty = serde_json::to_string_pretty(&value)
            .unwrap()
            .replace("iago@1", "\\u0069ago@1");
        assert_eq!(
            open_text::<Iago>(&pretty, Some(&keys)).unwrap(),
            iago_start()
        );
        let object = value.as_object_mut().unwrap();
        let reversed: serde_json::Map<String, Value> = object
            .iter()
            .rev()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        assert_eq!(
            open_text::<Iago>(&Value::Object(reversed).to_string(), Some(&keys)).unwrap(),
            iago_start()
        );
    }

    #[test]
    fn the_contract_pattern_is_exactly_the_mac_spelling() {
        let alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        for last in alphabet.chars() {
            let seal = json_str(&format!("k1.{}{last}", "A".repeat(MAC_CHARS - 1)));
            assert_eq!(seal_parts(&seal).is_ok(), MAC_LAST.contains(last), "{last}");
        }
        assert!(SEAL_PATTERN.ends_with(&format!("[{MAC_LAST}]$")));
    }

    fn regex_like_seal(seal: &str) -> bool {
        let (id, mac) = seal.split_once('.').unwrap();
        is_key_id(id) && mac.len() == MAC_CHARS && URL_SAFE_NO_PAD.decode(mac).is_ok()
    }

    #[test]
    fn any_field_changed_added_or_removed_breaks_the_seal() {
        let keys = keys(&format!("k1:{SECRET_1}"));
        let value: Value = serde_json::from_str(&issued_text(&keys)).unwrap();
        type Change = fn(&mut serde_json::Map<String, Value>);
        let changes: [(&str, Change); 5] = [
            ("a cell", |s| s["board"][4] = json_str("...BW....")),
            ("the side", |s| s["to_move"] = json_str("white")),
            ("a default removed", |s| drop(s.remove("penalty_claim"))),
            ("a field added", |s| {
                drop(s.insert("extra".into(), Value::Null))
            }),
            ("an option", |s| s["options"]["penalty"] = Value::Bool(true)),
        ];
        for (what, change) in changes {
            let mut changed = value.clone();
            change(changed.as_object_mut().unwrap());
            let detail = refusal(open_text::<Iago>(&changed.to_string(), Some(&keys)));
            assert!(detail.starts_with("mismatch"), "{what}: {detail}");
        }
    }

    fn json_str(text: &str) -> Value {
        Value::String(text.into())
    }

    #[test]
    fn missing_malformed_unknown_and_mismatched_seals_are_told_apart() {
        let keys = keys(&format!("k1:{SECRET_1}"));
        let text = issued_text(&keys);
        let value: Value = serde_json::from_str(&text).unwrap();
        let seal = value["seal"].as_str().unwrap().to_owned();
        let with_seal = |seal: Value| {
            let mut state = value.clone();
            state["seal"] = seal;
            state
        };
        let mut unsealed = value.clone();
        unsealed.as_object_mut().unwrap().remove("seal");
        assert!(
            refusal(open_text::<Iago>(&unsealed.to_string(), Some(&keys))).starts_with("missing")
        );
        let mac = seal.split_once('.').unwrap().1;
        for bad in [
            json_str(""),
            json_str("k1"),
            json_str(&format!("k1.{mac}=")),
            json_str(&format!("k1.{}", &mac[1..])),
            json_str(&format!("k 1.{mac}")),
            Value::Null,
            serde_json::json!(7),
        ] {
            let detail = refusal(open_text::<Iago>(
                &with_seal(bad.clone()).to_string(),
                Some(&keys),
            ));
            assert!(detail.starts_with("malformed"), "{bad}: {detail}");
        }
        let detail = refusal(open_text::<Iago>(
            &with_seal(json_str(&format!("k9.{mac}"))).to_string(),
            Some(&keys),
        ));
        assert!(detail.starts_with("unknown key id"), "{detail}");
        // Every character of the seal changed: never accepted, whichever part it hits.
        for at in 0..seal.len() {
            for replacement in ['A', 'g', '-', '_', '0'] {
                let mut changed: Vec<char> = seal.chars().collect();
                if changed[at] == replacement || changed[at] == '.' {
                    continue;
                }
                changed[at] = replacement;
                let changed: String = changed.into_iter().collect();
                assert!(
                    open_text::<Iago>(&with_seal(json_str(&changed)).to_string(), Some(&keys))
                        .is_err()
                );
            }
        }
    }

    #[test]
    fn the_first_key_seals_and_every_key_verifies() {
        let old = keys(&format!("k1:{SECRET_1}"));
        let rotated = keys(&format!("k2:{SECRET_2},k1:{SECRET_1}"));
        let by_old = issued_text(&old);
        assert!(open_text::<Iago>(&by_old, Some(&rotated)).is_ok());
        let by_new = issued_text(&rotated);
        assert!(by_new.contains("\"seal\":\"k2."));
        assert!(refusal(open_text::<Iago>(&by_new, Some(&old))).starts_with("unknown key id"));
        // The same id with another secret: another key set.
        let other = keys(&format!("k1:{SECRET_2}"));
        assert!(refusal(open_text::<Iago>(&by_old, Some(&other))).starts_with("mismatch"));
    }

    #[test]
    fn a_seal_binds_the_game() {
        let keys = keys(&format!("k1:{SECRET_1}"));
        let canonical = b"{}";
        assert_ne!(keys.seal("iago", canonical), keys.seal("isaac", canonical));
        let setup = Caesar::check_setup(serde_json::from_str("{}").unwrap()).unwrap();
        let position = Caesar::start(&setup, Some(7));
        let text = serde_json::to_string(&stamp::<Caesar>(&position, Some(&keys), None)).unwrap();
        assert_eq!(open_text::<Caesar>(&text, Some(&keys)).unwrap(), position);
    }

    #[test]
    fn a_key_twice_in_one_object_has_no_canonical_form() {
        let keys = keys(&format!("k1:{SECRET_1}"));
        let text = issued_text(&keys);
        let doubled = text.replacen("{\"rules\"", "{\"to_move\":\"black\",\"rules\"", 1);
        assert!(refusal(open_text::<Iago>(&doubled, Some(&keys))).contains("twice"));
        let nested = text.replacen("\"options\":{", "\"options\":{\"penalty\":false,", 1);
        assert!(refusal(open_text::<Iago>(&nested, Some(&keys))).contains("twice"));
        let seal_twice = text.replacen("{\"rules\"", "{\"seal\":\"x\",\"rules\"", 1);
        assert!(refusal(open_text::<Iago>(&seal_twice, Some(&keys))).contains("twice"));
    }

    #[test]
    fn without_keys_a_seal_is_ignored_and_none_is_written() {
        let keys = keys(&format!("k1:{SECRET_1}"));
        let mut value: Value = serde_json::from_str(&issued_text(&keys)).unwrap();
        assert_eq!(
            open_text::<Iago>(&value.clone().to_string(), None).unwrap(),
            iago_start()
        );
        value["seal"] = json_str("k9.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
        let text = value.to_string();
        assert_eq!(open_text::<Iago>(&text, None).unwrap(), iago_start());
        // But for its form, which the contract states.
        for malformed in [
            serde_json::json!({"any": ["thing"]}),
            json_str("x"),
            Value::Null,
        ] {
            value["seal"] = malformed;
            let refused = open_text::<Iago>(&value.to_string(), None);
            assert!(refusal(refused).starts_with("malformed"));
        }
        value["seal"] = json_str("k9.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
        let unsealed = serde_json::to_value(stamp::<Iago>(&iago_start(), None, None)).unwrap();
        let state = serde_json::to_value(StateOf::<Iago>(&iago_start())).unwrap();
        assert_eq!(unsealed, state);
        // Only the state's own `seal` is left out: other unknown fields are still refused.
        value["extra"] = Value::Null;
        assert!(matches!(
            open_text::<Iago>(&value.to_string(), None),
            Err(Error::InvalidState { .. })
        ));
    }

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

    #[test]
    fn the_mac_is_compared_only_by_the_constant_time_primitive() {
        // Timing is measured in bench/, never in a test; this holds the code to the one primitive.
        let source = include_str!("seal.rs");
        let code = source.split("#[cfg(test)]\nmod tests").next().unwrap();
        let verify = code
            .split("fn verify_tag")
            .nth(1)
            .unwrap()
            .split("\n}\n")
            .next()
            .unwrap();
        assert!(verify.contains("mac.verify_slice(tag)"), "{verify}");
        for early_exit in ["==", "!=", "for ", "while ", "iter", "return", "?"] {
            assert!(
                !verify.contains(early_exit),
                "verify_tag has {early_exit:?}"
            );
        }
        assert_eq!(
            code.matches("verify_tag(").count(),
            2,
            "defined once, called once"
        );
        assert_eq!(
            code.matches(".finalize()").count(),
            1,
            "a MAC is finalized only to seal"
        );
        assert_eq!(code.matches(".verify_slice(").count(), 1);
        // A MAC wrong in its first byte or in its last is refused alike.
        let keys = keys(&format!("k1:{SECRET_1}"));
        let right = SealKeys::mac(&keys.keys[0], "iago", b"{}")
            .finalize()
            .into_bytes();
        for at in [0, right.len() - 1] {
            let mut wrong = right;
            wrong[at] ^= 1;
            let mac = SealKeys::mac(&keys.keys[0], "iago", b"{}");
            assert!(verify_tag(mac, &wrong).is_err());
        }
        assert!(verify_tag(SealKeys::mac(&keys.keys[0], "iago", b"{}"), &right).is_ok());
    }
}
