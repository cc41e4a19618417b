//! Seals: a keyed MAC over a state, so that a state Referee issued can be verified when a client
//! sends it back, and any change to it is refused.
//!
//! - **Keys** (see `keys`): the first key seals, every key verifies, so keys rotate without
//!   breaking games in flight.
//! - **Seal**: `"seal": "<key id>.<MAC>"` in the state object, the MAC HMAC-SHA-256 written as 43
//!   characters of unpadded base64url (exactly one spelling is accepted).
//! - **What the MAC covers**: `referee-seal/1`, a newline, the game's name, a newline, then the
//!   state object without its `seal` in canonical JSON (see `canonical`). The state holds the
//!   rules version (`rules`), the setup (variant and options) and the whole position, so all of them
//!   are covered, and so is every field as sent: a field changed, added or removed (even one at its
//!   default) breaks the seal. A state with a key twice in one object has no canonical form and is
//!   refused.
//! - **Verification** reads the state's canonical form, checks the MAC in constant time
//!   (`Mac::verify_slice`), and then the state is read from exactly those canonical bytes (see
//!   `incoming`): what is verified is what is played.
//!
//! With keys, a game listed as opaque answers its states encrypted instead (see `opaque`).
//! Without keys, answers carry no seal.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use hmac::Mac;
use serde::Serialize;
use serde_json::Value;

use crate::canonical;
use crate::chance::is_key_id;
use crate::error::Error;
use crate::game::{Rules, StateOf};
use crate::keys::{HmacSha256, SealKey, SealKeys};
use crate::opaque::{self, Commitments};

/// What starts every MAC's input: the seal format's version.
const DOMAIN: &[u8] = b"referee-seal/1\n";
/// Characters of a MAC in a seal (32 bytes in unpadded base64url).
const MAC_CHARS: usize = 43;
/// A seal as the contract states it: 43 base64url characters hold 258 bits, so the last one's low
/// two bits are zero in the one spelling of 32 bytes.
pub const SEAL_PATTERN: &str = r"^[A-Za-z0-9_-]{1,64}\.[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$";
/// The characters that may end a MAC (see `SEAL_PATTERN`).
#[cfg(test)]
const MAC_LAST: &str = "AEIMQUYcgkosw048";

/// The MAC of a state's canonical form for `game`, by `key`, before it is finalized or verified.
fn mac(key: &SealKey, game: &str, canonical: &[u8]) -> HmacSha256 {
    let mut mac = key.mac.clone();
    mac.update(DOMAIN);
    mac.update(game.as_bytes());
    mac.update(b"\n");
    mac.update(canonical);
    mac
}

/// The seal of a state's canonical form, with the first key.
fn new_seal(keys: &SealKeys, game: &str, canonical: &[u8]) -> String {
    let key = keys.first();
    let tag = mac(key, game, canonical).finalize().into_bytes();
    format!("{}.{}", key.id, URL_SAFE_NO_PAD.encode(tag))
}

/// Checks a state's seal (the JSON value of its `seal` field, if any) against its canonical form.
pub(crate) fn verify(
    keys: &SealKeys,
    game: &str,
    canonical: &[u8],
    seal: Option<&Value>,
) -> Result<(), Error> {
    let seal = seal.ok_or_else(|| {
        invalid_seal(
            "missing: the state has no seal, and this service accepts only states it sealed",
        )
    })?;
    let (id, tag) = seal_parts(seal)?;
    let key = keys.find(id).ok_or_else(|| unknown_key(id))?;
    verify_tag(mac(key, game, canonical), &tag).map_err(|_| {
        invalid_seal("mismatch: the seal does not match this state (the state or its seal was changed, or another key sealed it)")
    })
}

/// A state encrypted with the first key, bound to `G`, with its commitments when `G` has hidden
/// information.
fn encrypt<'a, G: Rules>(
    keys: &SealKeys,
    state: &StateOf<'a, G>,
    commitments: Option<&Commitments>,
) -> Stamped<StateOf<'a, G>> {
    let key = keys.first();
    let binding = opaque::Binding {
        game: G::NAME,
        rules: G::RULES_VERSION,
        key_id: &key.id,
    };
    let plaintext = opaque::plaintext::<G, _>(state, commitments);
    Stamped::Opaque {
        opaque: opaque::seal(&key.opaque, &binding, &plaintext),
    }
}

/// A seal's key id and MAC, or why it is malformed.
pub(crate) fn seal_parts(seal: &Value) -> Result<(&str, Vec<u8>), Error> {
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

pub(crate) fn invalid_seal(detail: impl Into<String>) -> Error {
    Error::InvalidSeal {
        detail: detail.into(),
    }
}

/// The refusal of a key id that is none of the keys'.
pub(crate) fn unknown_key(id: &str) -> Error {
    invalid_seal(format!(
        "unknown key id: {id:?} is not a key of this service"
    ))
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
        return encrypt::<G>(keys, &state, commitments);
    }
    let seal = new_seal(keys, G::NAME, &canonical::of(&state));
    Stamped::Plain {
        state,
        seal: Some(seal),
    }
}

#[cfg(test)]
mod tests {
    use std::fmt;

    use super::*;
    use crate::caesar::Caesar;
    use crate::canonical::opened;
    use crate::iago::Iago;
    use crate::incoming::read_object;
    use crate::keys::tests::{keys, SECRET_1, SECRET_2};
    use crate::opaque::Form;

    type IagoPosition = <Iago as Rules>::Position;

    fn iago_start() -> IagoPosition {
        Iago::start(&crate::game::default_setup::<Iago>(), None, None)
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
            let mut position = Caesar::start(&setup, Some(seed), None);
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
                assert_eq!(new_seal(&keys, "caesar", &canonical), seal);
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
        assert_ne!(
            new_seal(&keys, "iago", canonical),
            new_seal(&keys, "isaac", canonical)
        );
        let setup = Caesar::check_setup(serde_json::from_str("{}").unwrap()).unwrap();
        let position = Caesar::start(&setup, Some(7), None);
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
        // The other modules of the trust layer that hold keys or read states finalize no MAC and
        // compare none.
        for (name, source) in [
            ("keys.rs", include_str!("keys.rs")),
            ("incoming.rs", include_str!("incoming.rs")),
            ("canonical.rs", include_str!("canonical.rs")),
        ] {
            let code = source.split("#[cfg(test)]").next().unwrap();
            for primitive in [".finalize()", "verify_slice", "into_bytes()"] {
                assert!(!code.contains(primitive), "{name} uses {primitive}");
            }
        }
        // A MAC wrong in its first byte or in its last is refused alike.
        let keys = keys(&format!("k1:{SECRET_1}"));
        let right = mac(keys.first(), "iago", b"{}").finalize().into_bytes();
        for at in [0, right.len() - 1] {
            let mut wrong = right;
            wrong[at] ^= 1;
            let mac = mac(keys.first(), "iago", b"{}");
            assert!(verify_tag(mac, &wrong).is_err());
        }
        assert!(verify_tag(mac(keys.first(), "iago", b"{}"), &right).is_ok());
    }
}
