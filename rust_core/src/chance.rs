//! The portable random source that chance games carry in their states.
//!
//! Algorithm (documented so that any platform or language can reproduce a game):
//! - the generator is ChaCha with 8 rounds (`rand_chacha::ChaCha8Rng`), stream 0, keyed by a
//!   256-bit seed; a `u64` seed `s` becomes the key whose first 8 bytes are `s` little-endian and whose
//!   other 24 bytes are zero;
//! - `word_pos` is the number of 32-bit words consumed so far, so a state resumes the stream exactly;
//! - a uniform integer below `n` takes 32-bit words `x` until `x < 2^32 - (2^32 mod n)` and answers
//!   `x mod n` (rejection sampling: no bias); a die is `1 + below(6)`.

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

pub const ALGORITHM: &str = "chacha8";
/// The furthest `word_pos` a state may hold: far beyond any game (2^48 words), and far enough below
/// 2^53 that every position a game reaches from it stays an exact JSON number and never wraps.
pub const MAX_WORD_POS: u64 = 1 << 48;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chance {
    rng: ChaCha8Rng,
}

/// The JSON form: `{"algorithm": "chacha8", "seed": "<64 hex digits>", "word_pos": 12}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    description = "The seeded generator: ChaCha8 (stream 0) keyed by a 256-bit seed, and `word_pos`, the 32-bit words consumed so far."
)]
pub struct ChanceState {
    #[schemars(extend("const" = ALGORITHM))]
    pub algorithm: String,
    /// The 256-bit key: 64 hexadecimal digits.
    #[schemars(regex(pattern = r"^[0-9a-fA-F]{64}$"))]
    pub seed: String,
    /// 32-bit words consumed so far (at most 2^48).
    #[schemars(range(max = MAX_WORD_POS))]
    pub word_pos: u64,
}

impl Chance {
    pub fn from_seed(seed: u64) -> Self {
        let mut key = [0u8; 32];
        key[..8].copy_from_slice(&seed.to_le_bytes());
        Chance {
            rng: ChaCha8Rng::from_seed(key),
        }
    }

    /// A uniform integer in `0..n` (`n >= 1`).
    pub fn below(&mut self, n: u32) -> u32 {
        assert!(n >= 1, "below(0)");
        let zone = u32::MAX - (u32::MAX - n + 1) % n; // largest multiple of n, minus one
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
        ChanceState {
            algorithm: ALGORITHM.to_owned(),
            seed: self.seed_hex(),
            word_pos: self.word_pos(),
        }
    }

    /// The 32-bit words consumed so far.
    pub fn word_pos(&self) -> u64 {
        self.rng.get_word_pos() as u64
    }

    /// The key as 64 lower-case hexadecimal digits.
    pub fn seed_hex(&self) -> String {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut hex = String::with_capacity(64);
        for byte in self.rng.get_seed() {
            hex.push(char::from(DIGITS[usize::from(byte >> 4)]));
            hex.push(char::from(DIGITS[usize::from(byte & 15)]));
        }
        hex
    }

    /// The `u64` seed the key was made from, when it was made from one (24 zero bytes follow it).
    pub fn short_seed(&self) -> Option<u64> {
        let key = self.rng.get_seed();
        let (low, rest) = key.split_at(8);
        let low: [u8; 8] = low.try_into().expect("8 bytes");
        rest.iter()
            .all(|&b| b == 0)
            .then(|| u64::from_le_bytes(low))
    }

    /// Checks an untrusted generator state; `field` names it in the error.
    pub fn from_state(state: &ChanceState, field: &str) -> Result<Self> {
        if state.algorithm != ALGORITHM {
            return Err(Error::invalid_state(
                field,
                format!(
                    "unknown generator {:?}; expected {ALGORITHM:?}",
                    state.algorithm
                ),
            ));
        }
        let text = state.seed.as_bytes();
        if text.len() != 64 || !text.iter().all(u8::is_ascii_hexdigit) {
            return Err(Error::invalid_state(
                field,
                "the seed is 64 hexadecimal digits (256 bits)",
            ));
        }
        let mut key = [0u8; 32];
        for (byte, pair) in key.iter_mut().zip(text.chunks(2)) {
            let digits = std::str::from_utf8(pair).expect("ASCII hex digits");
            *byte = u8::from_str_radix(digits, 16).expect("checked hex digits");
        }
        if state.word_pos > MAX_WORD_POS {
            return Err(Error::invalid_state(
                format!("{field}.word_pos"),
                format!(
                    "the generator is at most 2^48 words along (no game draws as many), not {}",
                    state.word_pos
                ),
            ));
        }
        let mut rng = ChaCha8Rng::from_seed(key);
        rng.set_word_pos(u128::from(state.word_pos));
        Ok(Chance { rng })
    }
}

/// A seed for a game whose caller gave none: the standard library's per-process random keys
/// (drawn from the operating system), so that no extra dependency is needed for it.
pub fn fresh_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_resumes_the_stream_exactly() {
        let mut chance = Chance::from_seed(7);
        let first: Vec<u8> = (0..5).map(|_| chance.die()).collect();
        let mut resumed = Chance::from_state(&chance.to_state(), "rng").unwrap();
        let mut reference = chance.clone();
        assert_eq!(first.len(), 5);
        for _ in 0..100 {
            assert_eq!(resumed.die(), reference.die());
        }
        assert!(first.iter().all(|die| (1..=6).contains(die)));
    }

    #[test]
    fn below_is_uniform_enough_and_in_range() {
        let mut chance = Chance::from_seed(1);
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
        let mut state = Chance::from_seed(3).to_state();
        state.seed.pop();
        assert!(Chance::from_state(&state, "rng").is_err());
        let mut state = Chance::from_seed(3).to_state();
        state.algorithm = "pcg".into();
        assert!(Chance::from_state(&state, "rng").is_err());
    }

    #[test]
    fn a_generator_that_would_wrap_is_refused_with_its_field() {
        let mut state = Chance::from_seed(3).to_state();
        state.word_pos = MAX_WORD_POS;
        assert!(Chance::from_state(&state, "rng").is_ok());
        state.word_pos = u64::MAX;
        let error = Chance::from_state(&state, "rng").unwrap_err();
        assert!(format!("{error:?}").contains("rng.word_pos"), "{error:?}");
    }
}
