//! The keys of a service or an embedding: what seals states (`seal`), encrypts opaque ones
//! (`opaque`) and keys chance games' generators (`chance`).
//!
//! `k2:SECRET,k1:SECRET`: a key id (`[A-Za-z0-9_-]`, 1 to 64 characters), a colon and the secret as
//! base64url (padded or not) of at least 32 bytes; comma-separated. The first key seals, encrypts and
//! keys new games; every key verifies, opens and reads, so keys rotate without breaking games in
//! flight.

use std::fmt;

use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::{alphabet, Engine as _};
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::chance::{is_key_id, ChanceKeys, CHANCE_LABEL, MAX_KEY_ID_CHARS};
use crate::game::Rules;
use crate::opaque;
use crate::registry::GAMES;

pub(crate) type HmacSha256 = Hmac<Sha256>;

/// Fewest bytes a secret has.
pub const MIN_SECRET_BYTES: usize = 32;

/// Secrets are read padded or not.
const SECRET_BASE64: GeneralPurpose = GeneralPurpose::new(
    &alphabet::URL_SAFE,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

pub(crate) struct SealKey {
    pub(crate) id: String,
    /// The HMAC keyed once: each use clones it instead of hashing the secret again.
    pub(crate) mac: HmacSha256,
    /// The cipher of opaque states, keyed by a secret derived from this key (see `opaque`).
    pub(crate) opaque: chacha20poly1305::XChaCha20Poly1305,
}

/// The keys of a service or an embedding: the first seals, all verify. Never shows its secrets.
/// Also the games whose states are answered opaque (encrypted), and each game's chance keys.
pub struct SealKeys {
    keys: Vec<SealKey>,
    opaque_games: Vec<String>,
    /// Each game's chance keys, in the order of `registry::GAMES`.
    chance: Vec<ChanceKeys>,
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
        let chance = GAMES
            .iter()
            .map(|(game, _)| chance_keys(&keys, game))
            .collect();
        Ok(SealKeys {
            keys,
            opaque_games: Vec::new(),
            chance,
        })
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

    /// The chance keys of `G` (see `chance`): every key, the sealing one first.
    fn chance<G: Rules>(&self) -> &ChanceKeys {
        let at = GAMES.iter().position(|(game, _)| *game == G::NAME);
        &self.chance[at.expect("every game is in the registry")]
    }

    /// The key ids, the sealing one first.
    pub fn ids(&self) -> Vec<&str> {
        self.keys.iter().map(|key| key.id.as_str()).collect()
    }

    /// The key that seals, encrypts and keys new games.
    pub(crate) fn first(&self) -> &SealKey {
        &self.keys[0]
    }

    /// The key of id `id`, if it is one of these.
    pub(crate) fn find(&self, id: &str) -> Option<&SealKey> {
        self.keys.iter().find(|key| key.id == id)
    }
}

/// The chance keys of `game`: each key's HMAC fed `CHANCE_LABEL`, the game and a newline.
fn chance_keys(keys: &[SealKey], game: &str) -> ChanceKeys {
    ChanceKeys::new(
        keys.iter()
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

/// The chance keys of `G` that `keys` hold (none without keys): what every call that starts or
/// reads a position of `G` passes on.
pub fn chance_of<G: Rules>(keys: Option<&SealKeys>) -> Option<&ChanceKeys> {
    keys.map(SealKeys::chance::<G>)
}

/// Secrets and keys the tests of the trust layer share.
#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) const SECRET_1: &str = "c2VhbC1zZWNyZXQtb25lLXNlYWwtc2VjcmV0LW9uZS0"; // 32 bytes, unpadded
    pub(crate) const SECRET_2: &str = "c2VhbC1zZWNyZXQtdHdvLXNlYWwtc2VjcmV0LXR3by0="; // 32 bytes, padded
    /// Key `k1` of secret 1, key `k2` of secret 2, as `REFEREE_SEAL_KEYS` entries.
    pub(crate) const K1: &str = "k1:c2VhbC1zZWNyZXQtb25lLXNlYWwtc2VjcmV0LW9uZS0";
    pub(crate) const K2: &str = "k2:c2VhbC1zZWNyZXQtdHdvLXNlYWwtc2VjcmV0LXR3by0=";

    pub(crate) fn keys(text: &str) -> SealKeys {
        SealKeys::parse(text).unwrap()
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
}
