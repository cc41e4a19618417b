//! The games this build knows, for code that picks a game by name at run time (the Python bindings,
//! batches of game records). Adding a game: its folder (a module implementing `Rules` and
//! `Decisions`) and its line in `games!`; the rest comes from the list (see docs/development.md).

/// The one list of the games of this build, a line a game: its type (named as its `GameKind`
/// variant) and its module. Every dispatch over games comes from it: the game modules (lib.rs),
/// `GameKind`, `GAMES` and `with_game!` (here), `AnyEngine` and `with_engine!` (`engine`), the
/// position handles' `AnyWalker` and `with_walker!` (the bindings). It hands the list to
/// `games_from!` with what is asked of it.
#[macro_export]
macro_rules! games {
    ($($asked:tt)*) => {
        $crate::games_from! {
            [
                Iago iago,
                Isaac isaac,
                Hypnosia hypnosia,
                Caesar caesar,
            ]
            $($asked)*
        }
    };
}

/// What is made of the list of games (`games!`): the games' modules, the `GameKind` enum, the
/// engine enum, an enum with a variant a game (of a type generic over the game), or a match of a
/// game picked at run time (its kind, or a value of such an enum) to its type.
#[doc(hidden)]
#[macro_export]
macro_rules! games_from {
    ([$($Game:ident $module:ident,)*] modules) => {
        $(pub mod $module;)*
    };
    ([$($Game:ident $module:ident,)*] kinds) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum GameKind {
            $($Game,)*
        }

        /// Every game's name and kind, in the list's order.
        pub const GAMES: [(&str, GameKind); [$(stringify!($Game)),*].len()] = [
            $((<$crate::$module::$Game as $crate::game::Rules>::NAME, GameKind::$Game),)*
        ];
    };
    ([$($Game:ident $module:ident,)*] engines) => {
        /// One of the games' engines, for code that picks a game by name at run time.
        pub enum AnyEngine {
            $($Game(Engine<$crate::$module::$Game>),)*
        }

        impl AnyEngine {
            /// The engine of `kind` with `setup` (JSON text; the game's default when none is given).
            pub fn new(
                kind: GameKind,
                keys: Option<Arc<SealKeys>>,
                setup: Option<&str>,
            ) -> Result<AnyEngine, Error> {
                Ok(match kind {
                    $(GameKind::$Game => AnyEngine::$Game(Engine::of_setup(setup, keys)?),)*
                })
            }

            pub fn kind(&self) -> GameKind {
                match self {
                    $(AnyEngine::$Game(_) => GameKind::$Game,)*
                }
            }
        }
    };
    ([$($Game:ident $module:ident,)*] match_kind $kind:expr, $G:ident => $body:expr) => {
        match $kind {
            $($crate::registry::GameKind::$Game => {
                #[allow(dead_code)] // where only the game's value is used
                type $G = $crate::$module::$Game;
                $body
            })*
        }
    };
    ([$($Game:ident $module:ident,)*] enum_of $Enum:ident of $Wrapper:ident) => {
        // A value holds one game's wrapper, whose size is that game's: boxing the largest would only
        // add an indirection to every call.
        #[allow(clippy::large_enum_variant)]
        enum $Enum {
            $($Game($Wrapper<$crate::$module::$Game>),)*
        }

        $(impl From<$Wrapper<$crate::$module::$Game>> for $Enum {
            fn from(value: $Wrapper<$crate::$module::$Game>) -> Self {
                $Enum::$Game(value)
            }
        })*
    };
    ([$($Game:ident $module:ident,)*] match_enum $Enum:ident, $any:expr, $G:ident, $value:ident => $body:expr) => {
        match $any {
            $($Enum::$Game($value) => {
                #[allow(dead_code)] // where only `$value` is used
                type $G = $crate::$module::$Game;
                $body
            })*
        }
    };
}

games!(kinds);

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
        $crate::games!(match_kind $kind, $G => $body)
    };
}

#[cfg(test)]
mod tests {
    use super::GAMES;

    /// The facts adapters read hold of seeded random games: chance outcomes are the last ids of the
    /// action space, a game lasts at most its bound of decisions, and its players are within its counts.
    #[test]
    fn a_games_facts_hold_of_its_games() {
        use crate::chance::Chance;
        use crate::decisions::{self, Decisions, Node};
        fn check<G: Decisions>() {
            let facts = decisions::facts::<G>();
            for seed in 0..4 {
                let start = G::start(&crate::game::default_setup::<G>(), Some(seed), None);
                let players = G::players(&start).len();
                assert!((facts.min_players..=facts.max_players).contains(&players));
                let mut node = Node::<G>::new(start);
                let mut chance = Chance::from_seed(seed, None);
                let (mut decisions, mut chance_nodes) = (0, 0);
                loop {
                    if G::is_chance(&node) {
                        chance_nodes += 1;
                        let first = G::num_actions(&node.position) - facts.max_chance_outcomes;
                        assert!(
                            G::legal_actions(&node).iter().all(|id| *id >= first),
                            "{}",
                            G::NAME
                        );
                    }
                    if !G::random_decision(&mut node, &mut chance) {
                        break;
                    }
                    let outcome = G::outcome(&node.position);
                    if let Some(decided_by) = outcome.decided_by {
                        // What decided it is one of the game's own `DecidedBy`.
                        assert!(
                            G::DECIDED_BY.iter().any(|(code, _)| *code == decided_by),
                            "{decided_by}"
                        );
                    }
                    decisions += 1;
                }
                assert!(decisions <= facts.max_decisions, "{} {decisions}", G::NAME);
                assert_eq!(chance_nodes > 0, facts.chance, "{}", G::NAME);
            }
        }
        for (_, kind) in GAMES {
            with_game!(kind, G => check::<G>());
        }
    }
}
