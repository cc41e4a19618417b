//! Opaque states: with seal keys, a game may answer its states encrypted and authenticated, so that
//! whoever carries one can neither read nor change it (hidden hands, bags).
//!
//! - **Form**: `{"opaque": "<key id>.<base64url(nonce || ciphertext)>"}`, unpadded base64url, the
//!   object's one field.
//! - **Cipher**: XChaCha20-Poly1305 (the `chacha20poly1305` crate), a fresh random 24-byte nonce
//!   from the operating system for every state. Its key, one a seal key, is
//!   `HMAC-SHA-256(secret, "referee-opaque-key/1")` (the seal MAC's input starts `referee-seal/1`,
//!   keyed chance's `referee-chance/1`: the three never meet).
//! - **Plaintext**: `{"state": <the state's JSON as the engine writes it>, "commitments": {...}}` (the
//!   tag authenticates those exact bytes, so unlike a seal it needs no canonical form). A game with
//!   hidden information (`Rules::HIDDEN_INFORMATION`, Caesar!) carries each player's **commitment**,
//!   the SHA-256 (64 lowercase hex digits) of the secret the player chose, given when the game started;
//!   other games carry none. Inside the ciphertext nobody can read or swap them.
//! - **Associated data** `referee-opaque/2\n<game>\n<rules version>\n<key id>`: a state of another game,
//!   rules version or key does not open. (Format 1 bound a `holder` instead of commitments: refused.)
//! - **Secrets**: a request that reveals a player's information (the mover's hand through `play`,
//!   `validate`, `legal-moves` and batch items; a player's `view` or picture) gives that player's
//!   `secret`; its SHA-256 is compared with the commitment in constant time (`subtle`). Else
//!   `not-this-player`. One opaque state serves both players: what it shows depends on the secret.
//! - A state that does not open is `invalid-seal`; the detail says which check failed and nothing
//!   of the key.

use std::collections::BTreeMap;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use chacha20poly1305::aead::{Aead, AeadCore, KeyInit, OsRng, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::Value;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::error::Error;
use crate::game::Rules;

/// The one field of an opaque state.
pub const OPAQUE_FIELD: &str = "opaque";
/// An opaque state's text as the contract states it.
pub const OPAQUE_PATTERN: &str = r"^[A-Za-z0-9_-]{1,64}\.[A-Za-z0-9_-]{54,}$";
/// Fewest characters of a player's secret.
pub const MIN_SECRET_CHARS: usize = 16;
/// Most characters of a player's secret.
pub const MAX_SECRET_CHARS: usize = 256;
/// The field of a request that gives the commitments.
pub const COMMITMENTS_FIELD: &str = "commitments";
const KEY_LABEL: &[u8] = b"referee-opaque-key/1";
const AD_LABEL: &str = "referee-opaque/2";
const NONCE_BYTES: usize = 24;
const TAG_BYTES: usize = 16;

/// The cipher of one seal key, derived from its HMAC (already keyed with the secret).
pub(crate) fn cipher(mac: &Hmac<Sha256>) -> XChaCha20Poly1305 {
    let mut mac = mac.clone();
    mac.update(KEY_LABEL);
    XChaCha20Poly1305::new(&mac.finalize().into_bytes())
}

/// Where an opaque state belongs: its game, rules version and key id.
pub(crate) struct Binding<'a> {
    pub game: &'a str,
    pub rules: &'a str,
    pub key_id: &'a str,
}

impl Binding<'_> {
    /// The associated data: every field, one a line.
    fn associated(&self) -> String {
        let Binding {
            game,
            rules,
            key_id,
        } = self;
        format!("{AD_LABEL}\n{game}\n{rules}\n{key_id}")
    }
}

/// Encrypts a state's plaintext: the text of the `opaque` field.
pub(crate) fn seal(cipher: &XChaCha20Poly1305, binding: &Binding, plaintext: &[u8]) -> String {
    let nonce = XChaCha20Poly1305::generate_nonce(&mut OsRng);
    let aad = binding.associated();
    let sealed = cipher
        .encrypt(
            &nonce,
            Payload {
                msg: plaintext,
                aad: aad.as_bytes(),
            },
        )
        .expect("XChaCha20-Poly1305 encrypts any state");
    let mut bytes = Vec::with_capacity(NONCE_BYTES + sealed.len());
    bytes.extend_from_slice(&nonce);
    bytes.extend_from_slice(&sealed);
    format!("{}.{}", binding.key_id, URL_SAFE_NO_PAD.encode(bytes))
}

/// The key id and the encrypted bytes of an opaque text, or why it is malformed.
pub(crate) fn parts(text: &str) -> Result<(&str, Vec<u8>), Error> {
    let malformed = || Error::InvalidSeal {
        detail: "malformed: an opaque state is {\"opaque\": \"<key id>.<base64url>\"}".into(),
    };
    let (id, body) = text.split_once('.').ok_or_else(malformed)?;
    let bytes = URL_SAFE_NO_PAD.decode(body).map_err(|_| malformed())?;
    if !crate::chance::is_key_id(id) || bytes.len() < NONCE_BYTES + TAG_BYTES {
        return Err(malformed());
    }
    Ok((id, bytes))
}

/// Decrypts and authenticates an opaque state's bytes: its plaintext.
pub(crate) fn open(
    cipher: &XChaCha20Poly1305,
    binding: &Binding,
    bytes: &[u8],
) -> Result<Vec<u8>, Error> {
    let (nonce, sealed) = bytes.split_at(NONCE_BYTES);
    let aad = binding.associated();
    cipher
        .decrypt(
            XNonce::from_slice(nonce),
            Payload {
                msg: sealed,
                aad: aad.as_bytes(),
            },
        )
        .map_err(|_| {
            let Binding { game, rules, key_id } = binding;
            Error::InvalidSeal {
                detail: format!(
                    "undecryptable: the opaque state does not open with key {key_id:?} for {game} ({rules}): it was changed, or is of another game, rules version, service or format ({AD_LABEL} is the one accepted)"
                ),
            }
        })
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

/// `Inside`, read back: the state's text is read by the game's reader.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InsideRead {
    state: Box<RawValue>,
    #[serde(default)]
    commitments: Option<Value>,
}

/// The plaintext of an opaque state of `G` (see `Inside`).
pub(crate) fn plaintext<G: Rules, S: Serialize>(
    state: &S,
    commitments: Option<&Commitments>,
) -> Vec<u8> {
    let commitments = commitments.filter(|_| G::HIDDEN_INFORMATION);
    serde_json::to_vec(&Inside { state, commitments }).expect("a state serializes")
}

/// A decrypted plaintext of `G`, read back: the state's JSON text and its form (committed, for a
/// game with hidden information).
pub(crate) fn read_plaintext<G: Rules>(plaintext: &[u8]) -> Result<(String, Form), Error> {
    let inside: InsideRead = serde_json::from_slice(plaintext)
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

/// The refusal of an opaque state of format 1, bound to one player (`holder`).
pub(crate) fn held_refused() -> Error {
    Error::InvalidSeal {
        detail: format!(
            "held state: opaque states bound to a `holder` are no longer accepted ({AD_LABEL} carries the players' commitments instead); start the game again with `new` and `commitments`"
        ),
    }
}

/// Each player's commitment, the SHA-256 of the secret the player chose, in `Rules::PLAYERS`' order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Commitments(Vec<(&'static str, [u8; 32])>);

impl Serialize for Commitments {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let hex: BTreeMap<&str, String> = self
            .0
            .iter()
            .map(|(player, digest)| (*player, to_hex(digest)))
            .collect();
        hex.serialize(serializer)
    }
}

/// A request's `commitments` that are not one commitment a player: `(field, message)`.
pub type CommitmentsFault = (String, String);

impl Commitments {
    /// The commitments a request gives (`{"<player>": "<64 lowercase hex>"}`), one for each of
    /// `G::PLAYERS`, all different; else the field at fault and why.
    pub fn parse<G: Rules>(value: &Value) -> Result<Commitments, CommitmentsFault> {
        let fault = |field: String, message: String| Err((field, message));
        let players = G::PLAYERS.join(", ");
        let Some(given) = value.as_object() else {
            let message = format!("not an object: one commitment a player ({players})");
            return fault(COMMITMENTS_FIELD.into(), message);
        };
        if let Some(other) = given
            .keys()
            .find(|name| !G::PLAYERS.contains(&name.as_str()))
        {
            let message = format!("{other:?} is not a player of {} ({players})", G::NAME);
            return fault(COMMITMENTS_FIELD.into(), message);
        }
        let mut commitments = Vec::with_capacity(G::PLAYERS.len());
        for &player in G::PLAYERS {
            let field = format!("{COMMITMENTS_FIELD}.{player}");
            let digest = match given.get(player) {
                None => return fault(field, "Missing: one commitment a player.".into()),
                Some(text) => text.as_str().and_then(from_hex),
            };
            let Some(digest) = digest else {
                let message = "not 64 lowercase hex digits (the SHA-256 of the player's secret)";
                return fault(field, message.into());
            };
            if commitments.iter().any(|(_, other)| *other == digest) {
                let message =
                    "the same as another player's: each player commits to a secret of their own";
                return fault(field, message.into());
            }
            commitments.push((player, digest));
        }
        Ok(Commitments(commitments))
    }

    /// The player whose commitment `secret` opens (compared in constant time), if any.
    fn owner(&self, secret: &str) -> Option<&'static str> {
        let digest: [u8; 32] = Sha256::digest(secret.as_bytes()).into();
        let mut owner = None;
        for (player, commitment) in &self.0 {
            if bool::from(digest.ct_eq(commitment)) {
                owner = Some(*player);
            }
        }
        owner
    }

    /// Refuses a request that acts as `player` without `player`'s secret.
    pub fn prove(&self, player: &str, secret: Option<&str>) -> Result<(), Error> {
        let refused = |detail: String| {
            Err(Error::NotThisPlayer {
                player: Some(player.to_owned()),
                detail,
            })
        };
        let Some(secret) = secret else {
            return refused(format!(
                "missing: this request acts as {player}; give {player}'s `secret`"
            ));
        };
        match self.owner(secret) {
            Some(owner) if owner == player => Ok(()),
            Some(owner) => refused(format!(
                "another player's: the secret is {owner}'s, and this request acts as {player}"
            )),
            None => refused(format!(
                "wrong: the secret is not {player}'s (its SHA-256 is no player's commitment)"
            )),
        }
    }

    /// The player a `secret` proves to be (for a request that names none), or why it proves none.
    pub fn prover(&self, secret: Option<&str>) -> Result<&'static str, Error> {
        let refused = |detail: &str| Error::NotThisPlayer {
            player: None,
            detail: detail.to_owned(),
        };
        let secret = secret.ok_or_else(|| {
            refused("missing: an opaque state of a game with hidden information is shown to one player: give their `secret`")
        })?;
        self.owner(secret).ok_or_else(|| {
            refused("wrong: the secret is no player's (its SHA-256 is no player's commitment)")
        })
    }
}

/// SHA-256 in lowercase hex.
fn to_hex(digest: &[u8; 32]) -> String {
    digest.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// 64 lowercase hex digits as 32 bytes.
fn from_hex(text: &str) -> Option<[u8; 32]> {
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    let bytes = text.as_bytes();
    if bytes.len() != 64 {
        return None;
    }
    let mut digest = [0u8; 32];
    for (at, pair) in bytes.chunks(2).enumerate() {
        digest[at] = digit(pair[0])? << 4 | digit(pair[1])?;
    }
    Some(digest)
}

/// The forms a state travels in: the game's JSON object, or its position notation (a string,
/// read with the setup of the engine that reads it, the default one in the service: the compact
/// form, a fraction of the bytes for big states). An answer gives a state back in the form the
/// request gave it. A position cannot carry a seal: engines with seal keys take objects only. An
/// opaque state (see `opaque`) is an object answered opaque again; one of a game with hidden
/// information is `Committed` to its players' secrets, and a request acting as a player gives its secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Form {
    Object,
    Notation,
    Committed(Commitments),
}

impl Form {
    /// Refuses a request that acts as `player` without `player`'s secret (a committed state only).
    pub fn act_as(&self, player: &str, secret: Option<&str>) -> Result<(), Error> {
        match self {
            Form::Committed(commitments) => commitments.prove(player, secret),
            _ => Ok(()),
        }
    }

    /// Refuses a move, a verdict or the legal moves (the mover's hand) without the secret of the
    /// player to move; once the game is over anyone may ask (there is no move).
    pub fn act_as_mover<G: Rules>(
        &self,
        position: &G::Position,
        secret: Option<&str>,
    ) -> Result<(), Error> {
        G::to_move(position).map_or(Ok(()), |mover| self.act_as(mover, secret))
    }

    /// The player a request that names none is shown as: none (the whole state), but for a committed
    /// state, the player whose secret it gives.
    pub fn viewer<'a>(
        &self,
        player: Option<&'a str>,
        secret: Option<&str>,
    ) -> Result<Option<&'a str>, Error> {
        match (self, player) {
            (Form::Committed(commitments), None) => commitments.prover(secret).map(Some),
            _ => Ok(player),
        }
    }

    /// The commitments a committed state carries on to its next states.
    pub fn commitments(&self) -> Option<&Commitments> {
        match self {
            Form::Committed(commitments) => Some(commitments),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::Form;
    use super::*;
    use crate::caesar::Caesar;
    use crate::engine::Engine;
    use crate::hypnosia::Hypnosia;
    use crate::incoming::read_object;
    use crate::keys::tests::{K1, K2};
    use crate::keys::{chance_of, SealKeys};
    use crate::request::answer_request;
    use crate::seal::stamp;

    type Position = <Caesar as Rules>::Position;

    /// A state given as a JSON value, read as the engines read states (from JSON text).
    fn open_value<G: Rules>(value: Value, keys: Option<&SealKeys>) -> Result<G::Position, Error>
    where
        G::Position: std::fmt::Debug,
    {
        read_object::<G>(&value.to_string(), keys).map(|(position, _)| position)
    }

    const CAESARS: &str = "caesar's own secret, 16+ chars";
    const POMPEYS: &str = "pompey's own secret, 16+ chars";

    fn keys(text: &str) -> SealKeys {
        SealKeys::parse(text)
            .unwrap()
            .with_opaque_games(vec!["caesar".into()])
    }

    fn commitments_of(caesars: &str, pompeys: &str) -> Commitments {
        let hex = |secret: &str| to_hex(&Sha256::digest(secret.as_bytes()).into());
        Commitments::parse::<Caesar>(&json!({"caesar": hex(caesars), "pompey": hex(pompeys)}))
            .unwrap()
    }

    fn commitments() -> Commitments {
        commitments_of(CAESARS, POMPEYS)
    }

    fn start(keys: &SealKeys) -> (Position, Value) {
        let setup = Caesar::check_setup(serde_json::from_str("{}").unwrap()).unwrap();
        let position = Caesar::start(&setup, Some(5), chance_of::<Caesar>(Some(keys)));
        let answered = stamp::<Caesar>(&position, Some(keys), Some(&commitments()));
        let answered = serde_json::to_value(answered).unwrap();
        (position, answered)
    }

    fn refusal<T: std::fmt::Debug>(result: Result<T, Error>) -> String {
        match result {
            Err(Error::InvalidSeal { detail }) => detail,
            other => panic!("not invalid-seal: {other:?}"),
        }
    }

    fn not_this_player<T: std::fmt::Debug>(result: Result<T, Error>) -> (Option<String>, String) {
        match result {
            Err(Error::NotThisPlayer { player, detail }) => (player, detail),
            other => panic!("not not-this-player: {other:?}"),
        }
    }

    /// The plaintext inside an opaque state, opened with the first key of `keys`.
    fn inside(answered: &Value, keys: &SealKeys) -> Value {
        let (id, bytes) = parts(answered["opaque"].as_str().unwrap()).unwrap();
        let binding = Binding {
            game: "caesar",
            rules: "caesar@1",
            key_id: id,
        };
        let mac = <Hmac<Sha256> as Mac>::new_from_slice(&secret_of(keys)).unwrap();
        let cipher = cipher(&mac);
        serde_json::from_slice(&open(&cipher, &binding, &bytes).unwrap()).unwrap()
    }

    fn secret_of(keys: &SealKeys) -> Vec<u8> {
        use base64::engine::general_purpose::URL_SAFE;
        let text = if keys.ids()[0] == "k1" { K1 } else { K2 };
        let secret = text.split_once(':').unwrap().1.trim_end_matches('=');
        URL_SAFE
            .decode(format!(
                "{secret}{}",
                "=".repeat((4 - secret.len() % 4) % 4)
            ))
            .unwrap()
    }

    #[test]
    fn an_opaque_state_hides_everything_and_carries_the_commitments_inside() {
        let keys = keys(K1);
        let (state, answered) = start(&keys);
        let object = answered.as_object().unwrap();
        assert_eq!(object.len(), 1, "one state for both players: {answered}");
        let text = object["opaque"].as_str().unwrap();
        assert!(text.starts_with("k1."));
        // The bytes carried show none of the plaintext (the base64 text itself could show nothing).
        let carried = parts(text).unwrap().1;
        for plain in [
            &b"\"hands\""[..],
            b"\"bags\"",
            b"\"caesar\"",
            b"\"commitments\"",
        ] {
            assert!(!carried.windows(plain.len()).any(|w| w == plain));
        }
        let (read, form) = read_object::<Caesar>(&answered.to_string(), Some(&keys)).unwrap();
        assert_eq!(form, Form::Committed(commitments()));
        assert_eq!(read, state);
        let plaintext = inside(&answered, &keys);
        assert_eq!(
            plaintext["commitments"],
            serde_json::to_value(commitments()).unwrap()
        );
        assert!(plaintext["state"]["hands"].as_object().unwrap().len() == 2);
        // A fresh nonce every time: the same state never encrypts the same twice.
        let again = stamp::<Caesar>(&state, Some(&keys), Some(&commitments()));
        let again = serde_json::to_value(again).unwrap();
        assert_ne!(again, answered);
    }

    #[test]
    fn a_request_proves_it_is_the_player_it_acts_as() {
        let form = Form::Committed(commitments());
        assert!(form.act_as("caesar", Some(CAESARS)).is_ok());
        assert!(form.act_as("pompey", Some(POMPEYS)).is_ok());
        let (player, detail) = not_this_player(form.act_as("caesar", None));
        assert_eq!(player.as_deref(), Some("caesar"));
        assert!(detail.starts_with("missing"), "{detail}");
        let (_, detail) = not_this_player(form.act_as("caesar", Some(POMPEYS)));
        assert!(
            detail.starts_with("another player's: the secret is pompey's"),
            "{detail}"
        );
        let (_, detail) = not_this_player(form.act_as("caesar", Some("a guess of sixteen chars")));
        assert!(detail.starts_with("wrong"), "{detail}");
        // A secret one character off, at either end, is wrong too.
        for changed in [
            format!("x{}", &CAESARS[1..]),
            format!("{}x", &CAESARS[..CAESARS.len() - 1]),
        ] {
            assert!(form.act_as("caesar", Some(&changed)).is_err());
        }
        // A request naming no player is shown as the secret's owner, never the whole state.
        assert_eq!(form.viewer(None, Some(POMPEYS)).unwrap(), Some("pompey"));
        assert_eq!(form.viewer(Some("caesar"), None).unwrap(), Some("caesar"));
        assert!(not_this_player(form.viewer(None, None))
            .1
            .starts_with("missing"));
        assert!(
            not_this_player(form.viewer(None, Some("no player's secret!")))
                .1
                .starts_with("wrong")
        );
        // Plain states carry no commitments: a secret is neither needed nor checked.
        for plain in [Form::Object, Form::Notation] {
            assert!(plain.act_as("caesar", None).is_ok());
            assert_eq!(plain.viewer(None, None).unwrap(), None);
        }
    }

    #[test]
    fn commitments_cannot_be_swapped_or_changed() {
        let keys = keys(K1);
        let (state, answered) = start(&keys);
        // A game started with other commitments refuses caesar's secret.
        let other = commitments_of("someone else's secret", POMPEYS);
        let theirs =
            serde_json::to_value(stamp::<Caesar>(&state, Some(&keys), Some(&other))).unwrap();
        let (_, form) = read_object::<Caesar>(&theirs.to_string(), Some(&keys)).unwrap();
        assert!(not_this_player(form.act_as("caesar", Some(CAESARS)))
            .1
            .starts_with("wrong"));
        assert!(form.act_as("pompey", Some(POMPEYS)).is_ok());
        // Splicing the two ciphertexts' halves opens neither.
        let (ours, theirs) = (
            answered["opaque"].as_str().unwrap(),
            theirs["opaque"].as_str().unwrap(),
        );
        let half = ours.len() / 2;
        let spliced = format!("{}{}", &ours[..half], &theirs[half..]);
        assert!(refusal(open_value::<Caesar>(
            json!({ "opaque": spliced }),
            Some(&keys)
        ))
        .starts_with("undecryptable"));
        // Commitments are checked where they are given: one a player, 64 lowercase hex, different.
        let digest = "ab".repeat(32);
        for (given, field) in [
            (json!("ab"), "commitments"),
            (json!({"caesar": digest}), "commitments.pompey"),
            (
                json!({"caesar": digest, "pompey": digest}),
                "commitments.pompey",
            ),
            (
                json!({"caesar": digest, "pompey": "AB".repeat(32)}),
                "commitments.pompey",
            ),
            (
                json!({"caesar": digest, "pompey": "ab"}),
                "commitments.pompey",
            ),
            (json!({"caesar": digest, "pompey": 7}), "commitments.pompey"),
            (
                json!({"caesar": digest, "pompey": "cd".repeat(32), "crassus": digest}),
                "commitments",
            ),
        ] {
            assert_eq!(
                Commitments::parse::<Caesar>(&given).unwrap_err().0,
                field,
                "{given}"
            );
        }
    }

    #[test]
    fn changed_foreign_keyless_and_held_opaque_states_are_refused() {
        let keys = keys(K1);
        let (_, answered) = start(&keys);
        let text = answered["opaque"].as_str().unwrap().to_owned();
        let with = |text: String| json!({ "opaque": text });
        // Every character of the ciphertext changed, in turn.
        let (id, body) = text.split_once('.').unwrap();
        for at in 0..body.len() {
            let mut bytes = body.as_bytes().to_vec();
            bytes[at] = if bytes[at] == b'A' { b'B' } else { b'A' };
            let changed = format!("{id}.{}", String::from_utf8(bytes).unwrap());
            let detail = refusal(open_value::<Caesar>(with(changed), Some(&keys)));
            assert!(
                detail.starts_with("undecryptable") || detail.starts_with("malformed"),
                "{detail}"
            );
        }
        let mut bytes = URL_SAFE_NO_PAD.decode(body).unwrap();
        bytes.pop();
        let truncated = format!("{id}.{}", URL_SAFE_NO_PAD.encode(bytes));
        assert!(refusal(open_value::<Caesar>(with(truncated), Some(&keys)))
            .starts_with("undecryptable"));
        // Another key with the same id, another game, no keys, an unknown id, a malformed form.
        let other = SealKeys::parse("k1:c2VhbC1zZWNyZXQtdHdvLXNlYWwtc2VjcmV0LXR3by0=").unwrap();
        assert!(
            refusal(open_value::<Caesar>(with(text.clone()), Some(&other)))
                .starts_with("undecryptable")
        );
        let as_iago = open_value::<crate::iago::Iago>(with(text.clone()), Some(&keys));
        assert!(matches!(as_iago, Err(Error::InvalidSeal { .. })));
        assert!(refusal(open_value::<Caesar>(with(text.clone()), None)).contains("no seal keys"));
        let renamed = text.replacen("k1.", "k9.", 1);
        assert!(
            refusal(open_value::<Caesar>(with(renamed), Some(&keys))).starts_with("unknown key id")
        );
        for bad in ["", "k1", "k1.!!", "k1.AAAA"] {
            assert!(refusal(open_value::<Caesar>(with(bad.into()), Some(&keys)))
                .starts_with("malformed"));
        }
        assert!(
            refusal(open_value::<Caesar>(json!({"opaque": 3}), Some(&keys)))
                .starts_with("malformed")
        );
        // Format 1's held states, whatever their holder, are refused with what to do instead.
        for holder in [json!("caesar"), json!("pompey"), json!(7)] {
            let held = json!({ "opaque": text, "holder": holder });
            let detail = refusal(open_value::<Caesar>(held, Some(&keys)));
            assert!(
                detail.starts_with("held state") && detail.contains("commitments"),
                "{detail}"
            );
        }
        // A plain (sealed) Caesar! state has no commitments: an engine keeping Caesar! opaque refuses it.
        let sealed_keys = SealKeys::parse(K1).unwrap();
        let (state, _) = start(&keys);
        let sealed =
            serde_json::to_value(stamp::<Caesar>(&state, Some(&sealed_keys), None)).unwrap();
        assert!(refusal(open_value::<Caesar>(sealed, Some(&keys))).starts_with("not opaque"));
    }

    #[test]
    fn rotation_reads_older_opaque_states_and_writes_with_the_new_key() {
        let old = keys(K1);
        let (state, answered) = start(&old);
        let rotated = keys(&format!("{K2},{K1}"));
        let (position, form) =
            read_object::<Caesar>(&answered.to_string(), Some(&rotated)).unwrap();
        assert_eq!(position, state);
        let again = stamp::<Caesar>(&position, Some(&rotated), form.commitments());
        let again = serde_json::to_value(again).unwrap();
        assert!(again["opaque"].as_str().unwrap().starts_with("k2."));
        assert_eq!(
            inside(&again, &rotated)["commitments"],
            inside(&answered, &old)["commitments"]
        );
        assert!(refusal(open_value::<Caesar>(again, Some(&old))).starts_with("unknown key id"));
    }

    #[test]
    fn a_play_answers_one_state_and_the_movers_view_only() {
        let keys = keys(K1);
        let (_, answered) = start(&keys);
        let (position, form) = read_object::<Caesar>(&answered.to_string(), Some(&keys)).unwrap();
        let mover = Caesar::to_move(&position).unwrap();
        let (secret, other) = if mover == "caesar" {
            (CAESARS, "pompey")
        } else {
            (POMPEYS, "caesar")
        };
        let mv = Caesar::legal_move_texts(&position).remove(0);
        let setup = crate::game::default_setup::<Caesar>();
        let engine = Engine::<Caesar>::new(
            setup,
            Some(std::sync::Arc::new(crate::keys::tests::keys(K1))),
        );
        let body = |secret: Option<&str>| {
            let mut body = json!({ "state": answered, "move": mv });
            if let Some(secret) = secret {
                body["secret"] = secret.into();
            }
            body.to_string().into_bytes()
        };
        let played: Value = serde_json::from_slice(
            &answer_request::<Caesar>(&body(Some(secret)), &engine, true).unwrap(),
        )
        .unwrap();
        let fields: Vec<&str> = played
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(fields, ["effects", "outcome", "state", "view"]);
        let view_hands = played["view"]["hands"].as_object().unwrap();
        assert_eq!(view_hands.keys().collect::<Vec<_>>(), [mover]);
        assert_eq!(
            inside(&played["state"], &keys)["state"]["hands"]
                .as_object()
                .unwrap()
                .len(),
            2
        );
        for refused in [
            None,
            Some(if secret == CAESARS { POMPEYS } else { CAESARS }),
        ] {
            let reason = answer_request::<Caesar>(&body(refused), &engine, true)
                .unwrap_err()
                .reason();
            assert_eq!(reason["code"], "not-this-player", "{reason}");
            assert_eq!(reason["player"], mover);
        }
        // The next state carries the same commitments: the other player now moves with their own.
        let (next, next_form) =
            read_object::<Caesar>(&played["state"].to_string(), Some(&keys)).unwrap();
        assert_eq!(next_form, form);
        if Caesar::to_move(&next) == Some(other) {
            assert!(next_form
                .act_as_mover::<Caesar>(&next, Some(secret))
                .is_err());
        }
    }

    #[test]
    fn a_game_without_hidden_information_carries_no_commitments() {
        let keys = SealKeys::parse(K1)
            .unwrap()
            .with_opaque_games(vec!["hypnosia".into()]);
        let setup = crate::game::default_setup::<Hypnosia>();
        let position = Hypnosia::start(&setup, Some(5), chance_of::<Hypnosia>(Some(&keys)));
        let one = stamp::<Hypnosia>(&position, Some(&keys), Some(&commitments()));
        let one = serde_json::to_value(one).unwrap();
        assert_eq!(one.as_object().unwrap().len(), 1, "{one}");
        let (_, form) = read_object::<Hypnosia>(&one.to_string(), Some(&keys)).unwrap();
        assert_eq!(form, Form::Object);
    }

    #[test]
    fn a_committed_state_stays_opaque_when_opaque_mode_is_off() {
        let keys = keys(K1);
        let (_, answered) = start(&keys);
        let sealed_only = SealKeys::parse(K1).unwrap();
        assert!(!sealed_only.opaque_for("caesar"));
        let (position, form) =
            read_object::<Caesar>(&answered.to_string(), Some(&sealed_only)).unwrap();
        assert_eq!(form, Form::Committed(commitments()));
        let again = stamp::<Caesar>(&position, Some(&sealed_only), form.commitments());
        let again = serde_json::to_value(again).unwrap();
        assert_eq!(again.as_object().unwrap().len(), 1, "{again}");
        assert_eq!(
            inside(&again, &keys)["commitments"],
            inside(&answered, &keys)["commitments"]
        );
    }

    #[test]
    fn with_keyed_chance_a_move_cannot_list_its_draws() {
        let keys = keys(K1);
        let (position, _) = start(&keys);
        let mv = Caesar::legal_move_texts(&position)[0].clone();
        for listed in ["D42", "L40"] {
            let refused =
                crate::game::play_text::<Caesar>(&position, &format!("{mv} ={listed}"), None);
            match refused {
                Err(Error::IllegalMove { rule, data, .. }) => {
                    assert_eq!(rule, "listed-draws");
                    assert!(data.get("bag").is_none(), "{data}");
                }
                other => panic!("not refused: {other:?}"),
            }
        }
        assert!(crate::game::play_text::<Caesar>(&position, &mv, None).is_ok());
    }
}
