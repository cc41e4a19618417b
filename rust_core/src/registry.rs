//! The games this build knows, for code that picks a game by name at run time (the Python bindings,
//! batches of game records). Adding a game: a module implementing `Rules`, a variant, a `GAMES` entry
//! and an arm in `with_game!`.

use crate::caesar::Caesar;
use crate::game::Rules;
use crate::hypnosia::Hypnosia;
use crate::iago::Iago;
use crate::isaac::Isaac;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GameKind {
    Iago,
    Isaac,
    Hypnosia,
    Caesar,
}

pub const GAMES: [(&str, GameKind); 4] = [
    (Iago::NAME, GameKind::Iago),
    (Isaac::NAME, GameKind::Isaac),
    (Hypnosia::NAME, GameKind::Hypnosia),
    (Caesar::NAME, GameKind::Caesar),
];

impl GameKind {
    pub fn named(name: &str) -> Option<GameKind> {
        GAMES
            .iter()
            .find(|(known, _)| *known == name)
            .map(|&(_, kind)| kind)
    }

    pub fn names() -> Vec<&'static str> {
        GAMES.iter().map(|(name, _)| *name).collect()
    }
}

/// Runs `$body` with `$G` standing for the game type of `$kind`.
#[macro_export]
macro_rules! with_game {
    ($kind:expr, $G:ident => $body:expr) => {
        match $kind {
            $crate::registry::GameKind::Iago => {
                type $G = $crate::iago::Iago;
                $body
            }
            $crate::registry::GameKind::Isaac => {
                type $G = $crate::isaac::Isaac;
                $body
            }
            $crate::registry::GameKind::Hypnosia => {
                type $G = $crate::hypnosia::Hypnosia;
                $body
            }
            $crate::registry::GameKind::Caesar => {
                type $G = $crate::caesar::Caesar;
                $body
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::GAMES;
    use crate::game::Rules;
    use serde_json::json;

    /// `view` checks players against `Rules::PLAYERS` where a game gives it: the same names as `info()`.
    #[test]
    fn players_given_are_the_players_of_info() {
        for (name, kind) in GAMES {
            let (players, info) = with_game!(kind, G => (G::PLAYERS, G::info()));
            if !players.is_empty() {
                assert_eq!(json!(players), info["players"], "{name}");
            }
        }
    }
}
