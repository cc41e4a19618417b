//! Opaque states: with seal keys, a game may answer its states encrypted and authenticated, so that
//! whoever carries one can neither read nor change it (hidden hands, bags).
//!
//! - **Form**: `{"opaque": "<key id>.<base64url(nonce || ciphertext)>"}`, unpadded base64url, the
//!   object's one field.
//! - **Cipher**: XChaCha20-Poly1305 (the `chacha20poly1305` crate), a fresh random 24-byte nonce
//!   from the operating system for every state. Its key, one a seal key, is
//!   `HMAC-SHA-256(secret, "referee-opaque-key/1")` (the seal MAC's input starts `referee-seal/1`,
//!   keyed chance's `referee-chance/1`: the three never meet).
//! - **Holder**: a game with hidden information (`Rules::HOLDERS`, Caesar!) answers one opaque state
//!   a player, `{"opaque": ..., "holder": "<player>"}`; a request carrying one acts only as its holder
//!   (sees only its hand, moves only on its turn; else `not-your-state`). Games without hidden
//!   information answer one state, without `holder`.
//! - **Plaintext**: the state's JSON as the engine writes it (the tag authenticates those exact
//!   bytes, so unlike a seal it needs no canonical form); the
//!   **associated data** `referee-opaque/1\n<game>\n<rules version>\n<key id>\n<holder>` (the
//!   holder empty for games without one): a state of another game, rules version, key or holder does
//!   not open, so a holder can be neither stripped nor swapped.
//! - A state that does not open is `invalid-seal`; the detail says which check failed and nothing
//!   of the key.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use chacha20poly1305::aead::{Aead, AeadCore, KeyInit, OsRng, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::error::Error;

/// The one field of an opaque state.
pub const OPAQUE_FIELD: &str = "opaque";
/// An opaque state's text as the contract states it.
pub const OPAQUE_PATTERN: &str = r"^[A-Za-z0-9_-]{1,64}\.[A-Za-z0-9_-]{54,}$";
const KEY_LABEL: &[u8] = b"referee-opaque-key/1";
const AD_LABEL: &str = "referee-opaque/1";
const NONCE_BYTES: usize = 24;
const TAG_BYTES: usize = 16;

/// The cipher of one seal key, derived from its HMAC (already keyed with the secret).
pub(crate) fn cipher(mac: &Hmac<Sha256>) -> XChaCha20Poly1305 {
    let mut mac = mac.clone();
    mac.update(KEY_LABEL);
    XChaCha20Poly1305::new(&mac.finalize().into_bytes())
}

/// Where an opaque state belongs: its game, rules version, key id and holder (if the game has one).
pub(crate) struct Binding<'a> {
    pub game: &'a str,
    pub rules: &'a str,
    pub key_id: &'a str,
    pub holder: Option<&'a str>,
}

impl Binding<'_> {
    /// The associated data: every field, one a line.
    fn associated(&self) -> String {
        let Binding {
            game,
            rules,
            key_id,
            holder,
        } = self;
        format!(
            "{AD_LABEL}\n{game}\n{rules}\n{key_id}\n{}",
            holder.unwrap_or("")
        )
    }
}

/// Encrypts a state's JSON: the text of the `opaque` field.
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
    if !crate::seal::is_key_id(id) || bytes.len() < NONCE_BYTES + TAG_BYTES {
        return Err(malformed());
    }
    Ok((id, bytes))
}

/// Decrypts and authenticates an opaque state's bytes: its JSON.
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
            let Binding { game, rules, key_id, holder } = binding;
            let holder = holder.map_or("no holder".to_owned(), |holder| format!("holder {holder:?}"));
            Error::InvalidSeal {
                detail: format!(
                    "undecryptable: the opaque state does not open with key {key_id:?} for {game} ({rules}), {holder}: it was changed, or is of another game, rules version, holder or service"
                ),
            }
        })
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::caesar::Caesar;
    use crate::game::Form;
    use crate::game::Rules;
    use crate::seal::{carry, open_text, read_object, stamp_for, with_chance, Carried, SealKeys};

    /// A state given as a JSON value, opened as the engines open states (from JSON text).
    fn open_value<G: Rules>(value: Value, keys: Option<&SealKeys>) -> Result<G::State, Error> {
        open_text::<G>(&value.to_string(), keys)
    }

    const K1: &str = "k1:c2VhbC1zZWNyZXQtb25lLXNlYWwtc2VjcmV0LW9uZS0";
    const K2: &str = "k2:c2VhbC1zZWNyZXQtdHdvLXNlYWwtc2VjcmV0LXR3by0=";

    fn keys(text: &str) -> SealKeys {
        SealKeys::parse(text)
            .unwrap()
            .with_opaque_games(vec!["caesar".into()])
    }

    fn start(keys: &SealKeys) -> (crate::caesar::State, Value) {
        let setup = Caesar::check_setup(serde_json::from_str("{}").unwrap()).unwrap();
        let position = with_chance::<Caesar, _>(Some(keys), || Caesar::start(&setup, Some(5)));
        let state = Caesar::to_state(&position);
        let answered = serde_json::to_value(stamp_for::<Caesar>(
            state.clone(),
            Some(keys),
            Some("caesar"),
        ))
        .unwrap();
        (state, answered)
    }

    /// A state as the engine reads it back (maps in the game's own order).
    fn normal(state: crate::caesar::State, keys: &SealKeys) -> crate::caesar::State {
        with_chance::<Caesar, _>(Some(keys), || {
            Caesar::to_state(&Caesar::from_state(state).unwrap())
        })
    }

    fn refusal(result: Result<crate::caesar::State, Error>) -> String {
        match result {
            Err(Error::InvalidSeal { detail }) => detail,
            other => panic!("not invalid-seal: {other:?}"),
        }
    }

    #[test]
    fn an_opaque_state_hides_everything_and_opens_with_the_key() {
        let keys = keys(K1);
        let (state, answered) = start(&keys);
        let object = answered.as_object().unwrap();
        assert_eq!(object.len(), 2);
        assert_eq!(object["holder"], "caesar");
        let text = object["opaque"].as_str().unwrap();
        assert!(text.starts_with("k1."));
        assert!(!text.contains("caesar") && !text.contains("hands"));
        let opened = open_value::<Caesar>(answered.clone(), Some(&keys)).unwrap();
        assert_eq!(normal(opened, &keys), state);
        let opened = open_text::<Caesar>(&answered.to_string(), Some(&keys)).unwrap();
        assert_eq!(normal(opened, &keys), state);
        // A fresh nonce every time: the same state never encrypts the same twice.
        let again =
            serde_json::to_value(stamp_for::<Caesar>(state, Some(&keys), Some("caesar"))).unwrap();
        assert_ne!(again, answered);
    }

    #[test]
    fn changed_foreign_or_keyless_opaque_states_are_refused() {
        let keys = keys(K1);
        let (_, answered) = start(&keys);
        let text = answered["opaque"].as_str().unwrap().to_owned();
        let with = |text: String| serde_json::json!({ "opaque": text, "holder": "caesar" });
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
        assert!(
            refusal(open_text::<Caesar>(&with(text.clone()).to_string(), None))
                .contains("no seal keys")
        );
        let renamed = text.replacen("k1.", "k9.", 1);
        assert!(
            refusal(open_value::<Caesar>(with(renamed), Some(&keys))).starts_with("unknown key id")
        );
        for bad in ["", "k1", "k1.!!", "k1.AAAA"] {
            assert!(refusal(open_value::<Caesar>(with(bad.into()), Some(&keys)))
                .starts_with("malformed"));
        }
        assert!(refusal(open_value::<Caesar>(
            serde_json::json!({"opaque": 3, "holder": "caesar"}),
            Some(&keys)
        ))
        .starts_with("malformed"));
    }

    #[test]
    fn rotation_reads_older_opaque_states_and_writes_with_the_new_key() {
        let old = keys(K1);
        let (state, answered) = start(&old);
        let rotated = keys(&format!("{K2},{K1}"));
        let opened = open_value::<Caesar>(answered, Some(&rotated)).unwrap();
        assert_eq!(normal(opened.clone(), &rotated), state);
        let again =
            serde_json::to_value(stamp_for::<Caesar>(opened, Some(&rotated), Some("caesar")))
                .unwrap();
        assert!(again["opaque"].as_str().unwrap().starts_with("k2."));
        assert!(refusal(open_value::<Caesar>(again, Some(&old))).starts_with("unknown key id"));
    }

    #[test]
    fn a_held_state_is_bound_to_its_holder() {
        let keys = keys(K1);
        let (state, _) = start(&keys);
        let Carried::Held(states) = carry::<Caesar>(state.clone(), Some(&keys)) else {
            panic!("a game with hidden information answers one state a holder");
        };
        assert_eq!(
            states.keys().copied().collect::<Vec<_>>(),
            ["caesar", "pompey"]
        );
        let pompeys = serde_json::to_value(&states["pompey"]).unwrap();
        assert_eq!(pompeys["holder"], "pompey");
        let (position, form) = read_object::<Caesar>(&pompeys.to_string(), Some(&keys)).unwrap();
        assert_eq!(form, Form::Held("pompey"));
        assert_eq!(
            normal(Caesar::to_state(&position), &keys),
            normal(state, &keys)
        );
        // The holder is in the associated data: swapped, stripped or unknown, the state does not open.
        let with_holder = |holder: Value| {
            let mut changed = pompeys.clone();
            changed["holder"] = holder;
            if changed["holder"].is_null() {
                changed.as_object_mut().unwrap().remove("holder");
            }
            refusal(open_value::<Caesar>(changed, Some(&keys)))
        };
        assert!(with_holder("caesar".into()).starts_with("undecryptable"));
        assert!(with_holder(Value::Null).starts_with("malformed"));
        assert!(with_holder("crassus".into()).starts_with("malformed"));
        assert!(with_holder(7.into()).starts_with("malformed"));
        // A held state acts as its holder only.
        assert!(form.act_as("pompey").is_ok());
        assert!(matches!(
            form.act_as("caesar"),
            Err(Error::NotYourState { holder, .. }) if holder == "pompey"
        ));
        assert!(form.see_all().is_err() && Form::Object.see_all().is_ok());
        assert_eq!(Caesar::to_move(&position), Some("caesar"));
        assert!(form.act_as_mover::<Caesar>(&position).is_err());
        // A game without hidden information has no holder: one opaque state, anyone's.
        let hypnosia_keys = SealKeys::parse(K1)
            .unwrap()
            .with_opaque_games(vec!["hypnosia".into()]);
        let hypnosia =
            crate::hypnosia::Hypnosia::to_state(&with_chance::<crate::hypnosia::Hypnosia, _>(
                Some(&hypnosia_keys),
                || {
                    crate::hypnosia::Hypnosia::start(
                        &crate::game::default_setup::<crate::hypnosia::Hypnosia>(),
                        Some(5),
                    )
                },
            ));
        let Carried::One(one) = carry::<crate::hypnosia::Hypnosia>(hypnosia, Some(&hypnosia_keys))
        else {
            panic!("one state");
        };
        let one = serde_json::to_value(one).unwrap();
        assert_eq!(one.as_object().unwrap().len(), 1, "{one}");
        let (_, form) =
            read_object::<crate::hypnosia::Hypnosia>(&one.to_string(), Some(&hypnosia_keys))
                .unwrap();
        assert_eq!(form, Form::Object);
    }
}
