//! The portable random source that chance games carry in their states.
//!
//! Algorithm (documented so that any platform or language can reproduce a game):
//! - the generator is ChaCha with 8 rounds (`rand_chacha::ChaCha8Rng`), stream 0, keyed by a
//!   256-bit seed; a `u64` seed `s` becomes the key whose first 8 bytes are `s` little-endian and whose
//!   other 24 bytes are zero;
//! - `word_pos` is the number of 32-bit words consumed so far, so a state resumes the stream exactly;
//! - a uniform integer below `n` takes 32-bit words `x` until `x < 2^32 - (2^32 mod n)` and answers
//!   `x mod n` (rejection sampling: no bias); a die is `1 + below(6)`.
//!
//! **Keyed chance** (when the engine has seal keys, see `keys`): the same generator, but its 256-bit
//! key is `HMAC-SHA-256(secret of key K, "referee-chance/1\n" || game || "\n" || seed)`, the seed
//! being the 32 bytes the state shows. The state then reads
//! `{"algorithm": "chacha8-keyed", "keyed_by": "K", "seed": ..., "word_pos": ...}`: whoever holds it
//! (but not the secret) cannot compute a draw, and a key holder replays the same seed identically on
//! every platform. New games are keyed by the sealing key; a state keeps the key that keyed it, so it
//! plays on while that key is listed. The keys are an argument of every call that starts or reads a
//! generator (`Option<&ChanceKeys>`): a caller that has none says so.

use hmac::{Hmac, Mac};
use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use crate::error::{Error, Result};

pub const ALGORITHM: &str = "chacha8";
/// The generator of keyed chance: ChaCha8 keyed by a secret derived from a seal key and the seed.
pub const KEYED_ALGORITHM: &str = "chacha8-keyed";
/// What starts the derivation of a keyed generator's key (after it: game, newline, the seed's bytes).
pub const CHANCE_LABEL: &[u8] = b"referee-chance/1\n";
/// The furthest `word_pos` a state may hold: far beyond any game (2^48 words), and far enough below
/// 2^53 that every position a game reaches from it stays an exact JSON number and never wraps.
pub const MAX_WORD_POS: u64 = 1 << 48;

#[derive(Debug, Clone)]
pub struct Chance {
    rng: ChaCha8Rng,
    /// The word position a state gave, not yet set in `rng`: setting it generates a block, and
    /// most moves read from a state draw nothing (a Hypnosia die move, any refused move).
    pending_word_pos: Option<u64>,
    /// With keyed chance: the seed the state shows and the id of the key that keyed it (the
    /// generator's own key is secret and never written).
    keyed: Option<Keyed>,
}

/// The same generator at the same place in its stream (whether or not its place is set yet).
impl PartialEq for Chance {
    fn eq(&self, other: &Chance) -> bool {
        self.rng.get_seed() == other.rng.get_seed()
            && self.word_pos() == other.word_pos()
            && self.keyed == other.keyed
    }
}

impl Eq for Chance {}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Keyed {
    seed: [u8; 32],
    key_id: String,
}

/// Longest key id.
pub const MAX_KEY_ID_CHARS: usize = 64;

/// Whether `id` has the form of a key id: the seal keys' ids, which also key generators (a keyed
/// generator names its key, `keyed_by`), seals and opaque states.
pub(crate) fn is_key_id(id: &str) -> bool {
    (1..=MAX_KEY_ID_CHARS).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// The chance keys of one game: each key id with its HMAC already fed `CHANCE_LABEL`, the game and
/// a newline. The first keys new games; every one reads the generators it keyed.
#[cfg_attr(test, derive(Clone))]
pub struct ChanceKeys {
    keys: Vec<(String, Hmac<Sha256>)>,
}

impl ChanceKeys {
    pub(crate) fn new(keys: Vec<(String, Hmac<Sha256>)>) -> Self {
        ChanceKeys { keys }
    }

    fn derive(mac: &Hmac<Sha256>, seed: &[u8; 32]) -> [u8; 32] {
        let mut mac = mac.clone();
        mac.update(seed);
        mac.finalize().into_bytes().into()
    }

    /// The generator key of `keyed`, or why these keys cannot make it.
    fn key_of(keys: Option<&ChanceKeys>, keyed: &Keyed) -> Result<[u8; 32]> {
        let Some(keys) = keys else {
            return Err(Error::InvalidSeal {
                detail: format!(
                    "keyed chance: the generator is keyed by {:?} and this engine has no seal keys",
                    keyed.key_id
                ),
            });
        };
        let (_, mac) = keys
            .keys
            .iter()
            .find(|(id, _)| *id == keyed.key_id)
            .ok_or_else(|| Error::InvalidSeal {
                detail: format!(
                    "unknown key id: the generator is keyed by {:?}, not a key of this service",
                    keyed.key_id
                ),
            })?;
        Ok(ChanceKeys::derive(mac, &keyed.seed))
    }
}

/// The JSON form: `{"algorithm": "chacha8", "seed": "<64 hex digits>", "word_pos": 12}`, or keyed
/// `{"algorithm": "chacha8-keyed", "keyed_by": "k1", "seed": ..., "word_pos": ...}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    description = "The seeded generator: ChaCha8 (stream 0) keyed by a 256-bit seed, and `word_pos`, the 32-bit words consumed so far. With seal keys, `chacha8-keyed`: the generator's key is HMAC-SHA-256 of the seal key `keyed_by` over `referee-chance/1\\n`, the game, a newline and the seed's bytes, so only the service can compute a draw."
)]
pub struct ChanceState {
    #[schemars(extend("enum" = [ALGORITHM, KEYED_ALGORITHM]))]
    pub algorithm: String,
    /// Keyed chance only: the id of the seal key whose secret keys the generator.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^[A-Za-z0-9_-]{1,64}$"))]
    pub keyed_by: Option<String>,
    /// The 256-bit key: 64 hexadecimal digits.
    #[schemars(regex(pattern = r"^[0-9a-fA-F]{64}$"))]
    pub seed: String,
    /// 32-bit words consumed so far (at most 2^48).
    #[schemars(range(max = MAX_WORD_POS))]
    pub word_pos: u64,
}

impl Chance {
    /// A generator for a new game: keyed by the first of `keys`, if any.
    pub fn from_seed(seed: u64, keys: Option<&ChanceKeys>) -> Self {
        let mut key = [0u8; 32];
        key[..8].copy_from_slice(&seed.to_le_bytes());
        match keys.and_then(|keys| keys.keys.first()) {
            None => Chance {
                rng: ChaCha8Rng::from_seed(key),
                pending_word_pos: None,
                keyed: None,
            },
            Some((id, mac)) => Chance {
                rng: ChaCha8Rng::from_seed(ChanceKeys::derive(mac, &key)),
                pending_word_pos: None,
                keyed: Some(Keyed {
                    seed: key,
                    key_id: id.clone(),
                }),
            },
        }
    }

    /// Whether the generator is keyed by a secret (and the id of its key).
    pub fn keyed_by(&self) -> Option<&str> {
        self.keyed.as_ref().map(|keyed| keyed.key_id.as_str())
    }

    /// A uniform integer in `0..n` (`n >= 1`).
    pub fn below(&mut self, n: u32) -> u32 {
        assert!(n >= 1, "below(0)");
        let zone = u32::MAX - (u32::MAX - n + 1) % n; // largest multiple of n, minus one
        if let Some(word_pos) = self.pending_word_pos.take() {
            self.rng.set_word_pos(u128::from(word_pos));
        }
        loop {
            let x = self.rng.next_u32();
            if x <= zone {
                return x % n;
            }
        }
    }

    /// One six-sided die.
    pub fn die(&mut self) -> u8 {
        1 + self.below(6) as u8
    }

    pub fn to_state(&self) -> ChanceState {
        let (algorithm, keyed_by) = match &self.keyed {
            None => (ALGORITHM, None),
            Some(keyed) => (KEYED_ALGORITHM, Some(keyed.key_id.clone())),
        };
        ChanceState {
            algorithm: algorithm.to_owned(),
            keyed_by,
            seed: self.seed_hex(),
            word_pos: self.word_pos(),
        }
    }

    /// The 32-bit words consumed so far.
    pub fn word_pos(&self) -> u64 {
        self.pending_word_pos
            .unwrap_or(self.rng.get_word_pos() as u64)
    }

    /// The seed the state shows: the generator's key, or with keyed chance the seed it was derived
    /// from (the key itself is secret).
    fn shown_seed(&self) -> [u8; 32] {
        match &self.keyed {
            None => self.rng.get_seed(),
            Some(keyed) => keyed.seed,
        }
    }

    /// The shown seed as 64 lower-case hexadecimal digits.
    pub fn seed_hex(&self) -> String {
        hex_of(&self.shown_seed())
    }

    /// The generator as position strings write it: `<seed>:<word_pos>`, then `@<key id>` when
    /// keyed, so that a keyed generator reads back keyed (where its key is held).
    pub fn notation(&self, seeds: SeedText) -> String {
        let mut text = match (seeds, self.short_seed()) {
            (SeedText::Short, Some(seed)) => format!("{seed}:{}", self.word_pos()),
            _ => format!("{}:{}", self.seed_hex(), self.word_pos()),
        };
        if let Some(id) = self.keyed_by() {
            text.push('@');
            text.push_str(id);
        }
        text
    }

    /// The `u64` seed the shown seed was made from, when it was made from one (24 zero bytes follow it).
    pub fn short_seed(&self) -> Option<u64> {
        let key = self.shown_seed();
        let (low, rest) = key.split_at(8);
        let low: [u8; 8] = low.try_into().expect("8 bytes");
        rest.iter()
            .all(|&b| b == 0)
            .then(|| u64::from_le_bytes(low))
    }

    /// Checks an untrusted generator state; `field` names it in the error. A keyed generator needs
    /// its key among `keys`, else it is `invalid-seal`.
    pub fn from_state(state: &ChanceState, field: &str, keys: Option<&ChanceKeys>) -> Result<Self> {
        let keyed = match (state.algorithm.as_str(), &state.keyed_by) {
            (ALGORITHM, None) => false,
            (KEYED_ALGORITHM, Some(_)) => true,
            (ALGORITHM | KEYED_ALGORITHM, _) => {
                return Err(Error::invalid_state(
                    field,
                    format!("`keyed_by` is given with {KEYED_ALGORITHM:?} and only with it"),
                ))
            }
            (other, _) => {
                return Err(Error::invalid_state(
                    field,
                    format!(
                        "unknown generator {other:?}; expected {ALGORITHM:?} or {KEYED_ALGORITHM:?}"
                    ),
                ))
            }
        };
        let Some(key) = key_of_hex(state.seed.as_bytes()) else {
            return Err(Error::invalid_state(
                field,
                "the seed is 64 hexadecimal digits (256 bits)",
            ));
        };
        if state.word_pos > MAX_WORD_POS {
            return Err(Error::invalid_state(
                format!("{field}.word_pos"),
                format!(
                    "the generator is at most 2^48 words along (no game draws as many), not {}",
                    state.word_pos
                ),
            ));
        }
        let keyed = match (keyed, &state.keyed_by) {
            (true, Some(id)) => Some(Keyed {
                seed: key,
                key_id: id.clone(),
            }),
            _ => None,
        };
        let rng_key = match &keyed {
            None => key,
            Some(keyed) => ChanceKeys::key_of(keys, keyed)?,
        };
        Ok(Chance {
            rng: ChaCha8Rng::from_seed(rng_key),
            pending_word_pos: Some(state.word_pos),
            keyed,
        })
    }
}

/// How a position string writes the generator's seed: always as 64 hexadecimal digits (Caesar!),
/// or as the `u64` it was made from when it was made from one, the shorter (Hypnosia).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeedText {
    Hex,
    Short,
}

/// Reads `Chance::notation` back as the generator's JSON form, to be checked by `from_state` like
/// any generator state. Errors name the field `position`.
pub fn parse_notation(text: &str, seeds: SeedText) -> Result<ChanceState> {
    let bad = |why: &str| {
        let seed = match seeds {
            SeedText::Hex => "64 hexadecimal digits",
            SeedText::Short => "a u64 or 64 hexadecimal digits",
        };
        Error::invalid_state(
            "position",
            format!("{text:?} is not a random source ({why}): <seed>:<words used>[@<key id>], the seed {seed}"),
        )
    };
    let (rng, keyed_by) = match text.split_once('@') {
        None => (text, None),
        Some((rng, id)) if is_key_id(id) => (rng, Some(id.to_owned())),
        Some(_) => return Err(bad("a keyed generator ends with @<key id>")),
    };
    let (seed, word_pos) = rng.split_once(':').ok_or_else(|| bad("no `:`"))?;
    let word_pos = word_pos
        .parse::<u64>()
        .ok()
        .filter(|n| n.to_string() == word_pos)
        .ok_or_else(|| bad("the words used are a count"))?;
    let seed = if seeds == SeedText::Short && seed.len() != 64 {
        let short = Some(seed)
            .filter(|seed| seed.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|seed| seed.parse::<u64>().ok())
            .ok_or_else(|| bad("the seed is a u64 or 64 hexadecimal digits"))?;
        let mut key = [0u8; 32];
        key[..8].copy_from_slice(&short.to_le_bytes());
        hex_of(&key)
    } else if seed.bytes().any(|b| b.is_ascii_uppercase()) {
        return Err(bad("the seed is written in lower-case hexadecimal"));
    } else {
        // Its length and digits are checked by `from_state`, as any generator's.
        seed.to_owned()
    };
    Ok(ChanceState {
        algorithm: match keyed_by {
            None => ALGORITHM,
            Some(_) => KEYED_ALGORITHM,
        }
        .to_owned(),
        keyed_by,
        seed,
        word_pos,
    })
}

/// 32 bytes as 64 lower-case hexadecimal digits.
/// The 32 bytes written as 64 hexadecimal digits (of either case), if `text` is that.
fn key_of_hex(text: &[u8]) -> Option<[u8; 32]> {
    // Digits by table: every state read parses its seed, and `to_digit` a digit at a time cost
    // more than a Hypnosia batch item's die move.
    const VALUES: [u8; 256] = {
        let mut values = [u8::MAX; 256];
        let mut byte = 0;
        while byte < 256 {
            values[byte] = match (byte as u8 as char).to_digit(16) {
                Some(value) => value as u8,
                None => u8::MAX,
            };
            byte += 1;
        }
        values
    };
    if text.len() != 64 {
        return None;
    }
    let mut key = [0u8; 32];
    let mut valid = true;
    for (byte, pair) in key.iter_mut().zip(text.chunks_exact(2)) {
        let (high, low) = (VALUES[usize::from(pair[0])], VALUES[usize::from(pair[1])]);
        valid &= (high | low) < 16;
        *byte = high << 4 | low & 15;
    }
    valid.then_some(key)
}

fn hex_of(bytes: &[u8; 32]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut hex = String::with_capacity(64);
    for &byte in bytes {
        hex.push(char::from(DIGITS[usize::from(byte >> 4)]));
        hex.push(char::from(DIGITS[usize::from(byte & 15)]));
    }
    hex
}

/// A seed for a game whose caller gave none: 64 bits from the operating system's random source
/// (unpredictable: an opaque game's seed must not be guessed, see `opaque`).
pub fn fresh_seed() -> u64 {
    use chacha20poly1305::aead::rand_core::RngCore;
    chacha20poly1305::aead::OsRng.next_u64()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::caesar::Caesar;
    use crate::hypnosia::Hypnosia;
    use crate::keys::tests::{K1, K2};

    #[test]
    fn a_state_resumes_the_stream_exactly() {
        let mut chance = Chance::from_seed(7, None);
        let first: Vec<u8> = (0..5).map(|_| chance.die()).collect();
        let mut resumed = Chance::from_state(&chance.to_state(), "rng", None).unwrap();
        let mut reference = chance.clone();
        assert_eq!(first.len(), 5);
        // Read back, before its place in the stream is set (at the first draw), it is the same.
        assert_eq!(resumed, reference);
        assert_eq!(resumed.to_state(), reference.to_state());
        for _ in 0..100 {
            assert_eq!(resumed.die(), reference.die());
        }
        assert_eq!(resumed, reference);
        assert_ne!(resumed, chance);
        assert!(first.iter().all(|die| (1..=6).contains(die)));
        // Hex digits of either case, the high digit of each byte first.
        let mut state = Chance::from_seed(0xAB_0F, None).to_state();
        assert!(state.seed.starts_with("0fab"), "{}", state.seed);
        state.seed = state.seed.to_uppercase();
        let mut upper = Chance::from_state(&state, "rng", None).unwrap();
        let mut lower = Chance::from_seed(0xAB_0F, None);
        assert!((0..50).all(|_| upper.die() == lower.die()));
    }

    #[test]
    fn below_is_uniform_enough_and_in_range() {
        let mut chance = Chance::from_seed(1, None);
        let mut counts = [0u32; 6];
        for _ in 0..60_000 {
            counts[chance.below(6) as usize] += 1;
        }
        assert!(
            counts.iter().all(|&c| (9_000..11_000).contains(&c)),
            "{counts:?}"
        );
        assert_eq!(chance.below(1), 0);
    }

    #[test]
    fn bad_states_are_refused() {
        let mut state = Chance::from_seed(3, None).to_state();
        state.seed.pop();
        assert!(Chance::from_state(&state, "rng", None).is_err());
        let mut state = Chance::from_seed(3, None).to_state();
        state.algorithm = "pcg".into();
        assert!(Chance::from_state(&state, "rng", None).is_err());
        // Every byte that is not a hexadecimal digit, at either digit of a byte, is refused.
        let good = Chance::from_seed(0x0123_4567_89AB_CDEF, None).to_state();
        for at in [0, 1, 30, 63] {
            for byte in 0..=255u8 {
                let mut seed = good.seed.clone().into_bytes();
                seed[at] = byte;
                let Ok(seed) = String::from_utf8(seed) else {
                    continue;
                };
                let state = ChanceState {
                    seed,
                    ..good.clone()
                };
                let read = Chance::from_state(&state, "rng", None);
                assert_eq!(read.is_ok(), byte.is_ascii_hexdigit(), "{byte} at {at}");
            }
        }
    }

    #[test]
    fn a_generator_that_would_wrap_is_refused_with_its_field() {
        let mut state = Chance::from_seed(3, None).to_state();
        state.word_pos = MAX_WORD_POS;
        assert!(Chance::from_state(&state, "rng", None).is_ok());
        state.word_pos = u64::MAX;
        let error = Chance::from_state(&state, "rng", None).unwrap_err();
        assert!(format!("{error:?}").contains("rng.word_pos"), "{error:?}");
    }

    #[test]
    fn notations_read_back_as_the_same_generator() {
        let mut by_k1 = Chance::from_seed(9, Some(&keys::<Caesar>(K1)));
        let mut hex_only = Chance::from_state(
            &ChanceState {
                seed: "ab".repeat(32),
                ..Chance::from_seed(0, None).to_state()
            },
            "rng",
            None,
        )
        .unwrap();
        dice(&mut by_k1);
        dice(&mut hex_only);
        for chance in [Chance::from_seed(9, None), by_k1, hex_only] {
            for seeds in [SeedText::Hex, SeedText::Short] {
                let text = chance.notation(seeds);
                let state = parse_notation(&text, seeds).unwrap();
                let read = Chance::from_state(&state, "position", Some(&keys::<Caesar>(K1)));
                assert_eq!(read.unwrap(), chance, "{text}");
            }
        }
        assert_eq!(Chance::from_seed(9, None).notation(SeedText::Short), "9:0");
        let hex = Chance::from_seed(9, None).notation(SeedText::Hex);
        assert_eq!(hex, format!("09{}:0", "0".repeat(62)));
        for bad in [
            "9",
            "9:01",
            "9:x",
            "9:0@",
            "9:0@a b",
            "x:0",
            &format!("{}:0", "AB".repeat(32)),
        ] {
            assert!(parse_notation(bad, SeedText::Short).is_err(), "{bad}");
        }
        assert!(parse_notation("9:0", SeedText::Hex).is_ok_and(|state| state.seed == "9"));
    }

    fn keys<G: crate::game::Rules>(text: &str) -> ChanceKeys {
        let keys = crate::keys::SealKeys::parse(text).unwrap();
        crate::keys::chance_of::<G>(Some(&keys)).unwrap().clone()
    }

    fn dice(chance: &mut Chance) -> Vec<u8> {
        (0..40).map(|_| chance.die()).collect()
    }

    #[test]
    fn keyed_chance_shows_its_seed_but_not_its_stream() {
        let mut plain = Chance::from_seed(7, None);
        let mut by_k1 = Chance::from_seed(7, Some(&keys::<Hypnosia>(K1)));
        let state = by_k1.to_state();
        assert_eq!(state.algorithm, KEYED_ALGORITHM);
        assert_eq!(state.keyed_by.as_deref(), Some("k1"));
        // The seed shown is the documented one; read as the documented generator, it draws otherwise.
        assert_eq!(state.seed, plain.to_state().seed);
        assert_ne!(dice(&mut by_k1), dice(&mut plain));
        // Same seed, same key, same game: the same draws; another game or key: others.
        let again = || Chance::from_seed(7, Some(&keys::<Hypnosia>(K1)));
        assert_eq!(dice(&mut again()), dice(&mut again()));
        let other_game = Chance::from_seed(7, Some(&keys::<Caesar>(K1)));
        assert_ne!(dice(&mut other_game.clone()), dice(&mut again()));
        let other_key = Chance::from_seed(7, Some(&keys::<Hypnosia>(K2)));
        assert_ne!(dice(&mut other_key.clone()), dice(&mut again()));
        // The derivation is the documented one.
        let mac = keys::<Hypnosia>(K1).keys[0].1.clone();
        let mut seed = [0u8; 32];
        seed[0] = 7;
        let mut by_hand = Chance {
            rng: ChaCha8Rng::from_seed(ChanceKeys::derive(&mac, &seed)),
            pending_word_pos: None,
            keyed: None,
        };
        assert_eq!(dice(&mut by_hand), dice(&mut again()));
    }

    #[test]
    fn a_keyed_state_resumes_with_its_key_and_only_with_it() {
        let mut chance = Chance::from_seed(11, Some(&keys::<Caesar>(K1)));
        dice(&mut chance);
        let state = chance.to_state();
        let resumed = |keys: Option<ChanceKeys>| Chance::from_state(&state, "rng", keys.as_ref());
        let mut read = resumed(Some(keys::<Caesar>(K1))).unwrap();
        assert_eq!(read, chance);
        assert_eq!(dice(&mut read), dice(&mut chance.clone()));
        // Rotated: k2 keys new games, k1 still reads (and keeps) its own.
        let rotated = format!("{K2},{K1}");
        let read = resumed(Some(keys::<Caesar>(&rotated))).unwrap();
        assert_eq!(read.keyed_by(), Some("k1"));
        let new = Chance::from_seed(11, Some(&keys::<Caesar>(&rotated)));
        assert_eq!(new.keyed_by(), Some("k2"));
        for (keys, says) in [
            (None, "no seal keys"),
            (Some(keys::<Caesar>(K2)), "unknown key id"),
        ] {
            match resumed(keys) {
                Err(Error::InvalidSeal { detail }) => assert!(detail.contains(says), "{detail}"),
                other => panic!("{other:?}"),
            }
        }
        // Half keyed is no generator.
        let mut half = state.clone();
        half.keyed_by = None;
        assert!(matches!(
            Chance::from_state(&half, "rng", None),
            Err(Error::InvalidState { .. })
        ));
        let mut half = Chance::from_seed(1, None).to_state();
        half.keyed_by = Some("k1".into());
        assert!(matches!(
            Chance::from_state(&half, "rng", Some(&keys::<Caesar>(K1))),
            Err(Error::InvalidState { .. })
        ));
    }
}
