//! What the games' integration tests share: `mod common;` in a test file, then
//! `common::game_helpers!(Game);` writes the helpers below for that game.

/// The helpers every game's tests use, for the game `$game` (its `Rules` type): a position's state as
/// JSON (`state_of`), a state read back (`read`), the legal moves as text (`moves`) and the rule and
/// facts of an illegal move (`refusal`). Each test file uses some of them.
macro_rules! game_helpers {
    ($game:ty) => {
        /// A position's state, as JSON.
        #[allow(dead_code)]
        fn state_of(
            position: &<$game as ::referee_core::game::Rules>::Position,
        ) -> ::serde_json::Value {
            ::serde_json::to_value(::referee_core::game::StateOf::<$game>(position)).unwrap()
        }

        /// A state read back.
        #[allow(dead_code)]
        fn read(
            state: &::serde_json::Value,
        ) -> Result<<$game as ::referee_core::game::Rules>::Position, ::referee_core::Error> {
            ::referee_core::game::read_json::<$game>(&state.to_string(), None)
        }

        /// The legal moves, as text.
        #[allow(dead_code)]
        fn moves(position: &<$game as ::referee_core::game::Rules>::Position) -> Vec<String> {
            <$game as ::referee_core::game::Rules>::legal_moves(position)
                .iter()
                .map(ToString::to_string)
                .collect()
        }

        /// The rule and facts of an illegal move.
        #[allow(dead_code)]
        fn refusal(
            position: &<$game as ::referee_core::game::Rules>::Position,
            mv: &str,
        ) -> (&'static str, ::serde_json::Value) {
            use ::referee_core::game::Verdict;
            match ::referee_core::game::validate::<$game>(position, mv, None)
                .expect("no request fault")
            {
                Verdict::Illegal(::referee_core::Error::IllegalMove { rule, data, .. }) => {
                    (rule, data)
                }
                Verdict::Illegal(other) => panic!("{mv}: expected illegal-move, got {other:?}"),
                Verdict::Legal { .. } => panic!("{mv} should be illegal"),
            }
        }
    };
}
pub(crate) use game_helpers;
