//! The contract every game module fulfils, and the game-independent operations built on it
//! (validate, replay, perft). The Python bindings and the service only ever talk to this trait.

use std::collections::BTreeMap;
use std::fmt;

use schemars::JsonSchema;
use serde::de::{DeserializeOwned, Deserializer};
use serde::{Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::Value;

use crate::chance::ChanceKeys;
use crate::error::{Error, Result};

/// The rules of one game. Inside the core every `Position` is valid: the only ways to get one are
/// `start`, `read_state`, `parse_position` (which check untrusted input) and `play`.
pub trait Rules {
    /// The game's name in URLs and the registry (`iago`).
    const NAME: &'static str;
    /// The rules version that states record (`iago@1`); a change of behaviour bumps it.
    const RULES_VERSION: &'static str;
    /// Games with hidden information (Caesar!'s hands): opaque, their states carry each player's
    /// commitment, and a request that reveals a player's information proves it is that player (see
    /// `opaque`). Such a game names its `PLAYERS`.
    const HIDDEN_INFORMATION: bool = false;
    /// The players' names, as `info()` lists them (see `info::Described`), for `view` to check a
    /// player without building `info()`.
    const PLAYERS: &'static [&'static str];
    /// What may decide a finished game (`Outcome::decided_by`): the codes of the game's `DecidedBy`,
    /// each with what it means.
    const DECIDED_BY: &'static [(&'static str, &'static str)];

    /// Variant and options as deserialized from `{"variant": ..., "options": {...}}`, unchecked:
    /// `check_setup` makes the `CheckedSetup` that `start` and `parse_position` take.
    type Setup: Serialize + DeserializeOwned + Clone + Send + Sync + JsonSchema + 'static;
    type Position: Clone + Send + Sync;
    type Move: Clone + Eq + fmt::Display;
    /// The JSON form of a state, exactly as clients send and receive it: its schema, which
    /// `read_state` reads and `write_state` writes.
    type State: JsonSchema;
    /// What a move did (captures, releases, ...), as reported to clients.
    type Effects: Serialize + JsonSchema;

    /// The game's check of a deserialized setup (combinations of variant and options), in its
    /// normal form; `check_setup` marks what it accepts as checked.
    fn validate_setup(setup: Self::Setup) -> Result<Self::Setup>;
    /// Checks a deserialized setup: the only way to a `CheckedSetup`.
    fn check_setup(setup: Self::Setup) -> Result<CheckedSetup<Self::Setup>> {
        Self::validate_setup(setup).map(CheckedSetup)
    }
    /// Whether the setup fixes hidden starting information (Caesar!'s starting hands, when given),
    /// which a game kept opaque must draw itself.
    fn fixes_hidden_start(_setup: &Self::Setup) -> bool {
        false
    }
    /// The initial position. Games without chance ignore the seed and the keys; chance games seed
    /// their random source with it (a fresh one from the operating system when none is given),
    /// keyed by the first of `keys` if any (see `chance`).
    fn start(
        setup: &CheckedSetup<Self::Setup>,
        seed: Option<u64>,
        keys: Option<&ChanceKeys>,
    ) -> Self::Position;

    /// Reads a state object in one pass, the game's one reader of states: the position, or the
    /// refusal of what it holds (the first fault in the order of the state's fields); `Err`, the
    /// deserializer's, for a fault of its form (a field unknown, missing or of another type), which
    /// every caller words as `invalid-state` of the field `state` (see `read_json`). A keyed
    /// random source needs its key among `keys` (see `chance`).
    fn read_state<'de, D: Deserializer<'de>>(
        deserializer: D,
        keys: Option<&ChanceKeys>,
    ) -> std::result::Result<Result<Self::Position>, D::Error>;
    /// Writes a position's state, the game's one writer of states (see `StateOf`).
    fn write_state<S: Serializer>(
        position: &Self::Position,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error>;
    /// The one-line position notation, for the given setup (a keyed random source needs its key
    /// among `keys`).
    fn parse_position(
        text: &str,
        setup: &CheckedSetup<Self::Setup>,
        keys: Option<&ChanceKeys>,
    ) -> Result<Self::Position>;
    fn position_text(position: &Self::Position) -> String;

    /// The player to move, or `None` when the game is over.
    fn to_move(position: &Self::Position) -> Option<&'static str>;
    fn parse_move(text: &str) -> Result<Self::Move>;
    fn legal_moves(position: &Self::Position) -> Vec<Self::Move>;
    /// The legal moves in notation, in `legal_moves`' order. A game may write them from its own
    /// compact form of a move without building its moves (Caesar!).
    fn legal_move_texts(position: &Self::Position) -> Vec<String> {
        Self::legal_moves(position)
            .iter()
            .map(ToString::to_string)
            .collect()
    }
    /// The legal moves in a shorter form, for clients who do not want every variation spelled out
    /// (Isaac: one entry a removable piece with its range of advances). Defaults to the full list.
    fn compact_moves(position: &Self::Position) -> Vec<String> {
        Self::legal_move_texts(position)
    }
    /// Plays a move, or says exactly which rule forbids it.
    fn play(position: &Self::Position, mv: Self::Move) -> Result<(Self::Position, Self::Effects)>;
    fn outcome(position: &Self::Position) -> Outcome;
    /// Games that rank their players (Hypnosia, any number of them): the players ranked as the
    /// position stands, by the rules of the final ranking, best first, tied players sharing an
    /// entry; what a game that stops here (a resignation) is ranked by. `None`: the game's result
    /// is its winner alone (the two-player games).
    fn standing(_position: &Self::Position) -> Option<Vec<Vec<&'static str>>> {
        None
    }

    /// What `player` may see of a position. Games without hidden information show the whole state;
    /// games with it override this. An unknown player is an error.
    fn view(position: &Self::Position, player: &str) -> Result<Value> {
        if !Self::PLAYERS.contains(&player) {
            return Err(Error::unknown_player(player, Self::PLAYERS));
        }
        serde_json::to_value(StateOf::<Self>(position))
            .map_err(|e| Error::invalid_state("state", e.to_string()))
    }

    /// `view` as JSON text, for answers (games with a typed view write it without a tree of values).
    fn view_json(position: &Self::Position, player: &str) -> Result<Box<RawValue>> {
        let view = Self::view(position, player)?;
        Ok(serde_json::value::to_raw_value(&view).expect("a view serializes"))
    }

    /// Number of move sequences of exactly `depth` plies. Games override it with a faster count.
    fn perft(position: &Self::Position, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = Self::legal_moves(position);
        if depth == 1 {
            return moves.len() as u64;
        }
        moves
            .into_iter()
            .map(|mv| {
                let (next, _) = Self::play(position, mv).expect("a generated move is legal");
                Self::perft(&next, depth - 1)
            })
            .sum()
    }
}

/// A position's state, written by its game (`Rules::write_state`).
pub struct StateOf<'a, G: Rules + ?Sized>(pub &'a G::Position);

impl<G: Rules + ?Sized> Serialize for StateOf<'_, G> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        G::write_state(self.0, serializer)
    }
}

/// A setup that `Rules::check_setup` accepted (as shakmaty's `Position` is a checked `Setup`). Its
/// field is private to this module, so no other code can build one: whatever takes a
/// `CheckedSetup` may rely on the check. It reads as the setup it holds and serializes as it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct CheckedSetup<S>(S);

impl<S> std::ops::Deref for CheckedSetup<S> {
    type Target = S;

    fn deref(&self) -> &S {
        &self.0
    }
}

/// Refuses a state of another rules version than `G`'s: every game's check of a state's `rules`.
pub fn check_rules_version<G: Rules + ?Sized>(rules: &str) -> Result<()> {
    if rules == G::RULES_VERSION {
        return Ok(());
    }
    Err(Error::invalid_state(
        "rules",
        format!(
            "unknown rules version {rules:?}: this engine plays {}",
            G::RULES_VERSION
        ),
    ))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(rename = "OutcomeStatus")]
pub enum Status {
    Ongoing,
    Finished,
}

/// Where a game stands: whose turn it is, the scores as they are now, and the result once it is over.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Outcome {
    pub status: Status,
    /// The player to move; null once the game is over.
    pub to_move: Option<&'static str>,
    /// Scores as they stand, by player.
    pub scores: BTreeMap<&'static str, i64>,
    /// The winner once the game is over; null while it goes on, or when the top rank is shared.
    pub winner: Option<&'static str>,
    /// How the winner was decided, once the game is over, in the game's own words (each game's
    /// `DecidedBy`):
    pub decided_by: Option<&'static str>,
    /// Hypnosia (any number of players), once over: the final ranking, best first; tied players
    /// share an entry. The other games leave it out.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<Vec<String>>")]
    pub ranking: Option<Vec<Vec<&'static str>>>,
}

impl Outcome {
    /// A game going on: whose turn it is and the scores so far.
    pub fn ongoing(to_move: &'static str, scores: BTreeMap<&'static str, i64>) -> Self {
        Outcome {
            status: Status::Ongoing,
            to_move: Some(to_move),
            scores,
            winner: None,
            decided_by: None,
            ranking: None,
        }
    }

    /// A two-player game over: its winner and what decided it.
    pub fn won(
        scores: BTreeMap<&'static str, i64>,
        winner: &'static str,
        decided_by: &'static str,
    ) -> Self {
        Outcome {
            status: Status::Finished,
            to_move: None,
            scores,
            winner: Some(winner),
            decided_by: Some(decided_by),
            ranking: None,
        }
    }

    /// A game over without a winner (a draw): what decided it.
    pub fn drawn(scores: BTreeMap<&'static str, i64>, decided_by: &'static str) -> Self {
        Outcome {
            status: Status::Finished,
            to_move: None,
            scores,
            winner: None,
            decided_by: Some(decided_by),
            ranking: None,
        }
    }

    /// A game that ranks its players, over: its final ranking, best first, tied players sharing an
    /// entry. The winner is the first rank's player when alone in it (none when it is shared).
    pub fn ranked(
        scores: BTreeMap<&'static str, i64>,
        ranking: Vec<Vec<&'static str>>,
        decided_by: &'static str,
    ) -> Self {
        let winner = match ranking.first().map(Vec::as_slice) {
            Some(&[alone]) => Some(alone),
            _ => None,
        };
        Outcome {
            status: Status::Finished,
            to_move: None,
            scores,
            winner,
            decided_by: Some(decided_by),
            ranking: Some(ranking),
        }
    }
}

/// A state object given as JSON text, read by the game's reader (`Rules::read_state`): the position,
/// or the refusal, a fault of its form worded as `invalid-state` of the field `state`.
pub fn read_json<G: Rules>(text: &str, keys: Option<&ChanceKeys>) -> Result<G::Position> {
    let not_state = |error: serde_json::Error| Error::invalid_state("state", error.to_string());
    let mut reader = serde_json::Deserializer::from_str(text);
    let read = G::read_state(&mut reader, keys).map_err(not_state)?;
    reader.end().map_err(not_state)?;
    read
}

/// A setup given as JSON text (`{"variant"?, "options"?}`), checked: the one reader of setups (an
/// engine's, the bindings', a record's); a fault of its form is `invalid-options` of the field `setup`.
pub fn read_setup<G: Rules>(json: &str) -> Result<CheckedSetup<G::Setup>> {
    let setup = serde_json::from_str::<G::Setup>(json)
        .map_err(|e| Error::invalid_options("setup", e.to_string()))?;
    G::check_setup(setup)
}

/// The game's default setup, checked (every game's default is valid).
pub fn default_setup<G: Rules>() -> CheckedSetup<G::Setup> {
    let setup = serde_json::from_str("{}").expect("every setup field has a default");
    G::check_setup(setup).expect("the default setup is valid")
}

/// The answer to "may this move be played here?" (an illegal move is an answer, not an error).
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict<P, E> {
    Legal { position: P, effects: E },
    Illegal(Error),
}

/// Parses and plays a move announced (optionally) by `player`.
pub fn play_text<G: Rules>(
    position: &G::Position,
    mv: &str,
    player: Option<&str>,
) -> Result<(G::Position, G::Effects)> {
    mover::<G>(position, player)?;
    let mv = G::parse_move(mv)?;
    G::play(position, mv)
}

/// The player to move, who `player` (when given) must be: `GameOver` once over, `UnknownPlayer` for
/// a name the game does not have, `NotYourTurn` for another player.
pub fn mover<G: Rules>(position: &G::Position, player: Option<&str>) -> Result<&'static str> {
    let to_move = G::to_move(position).ok_or(Error::GameOver)?;
    if let Some(player) = player {
        if player != to_move {
            // Every player has a score, so the scores' keys name the players of this game.
            let players: Vec<&str> = G::outcome(position).scores.into_keys().collect();
            if !players.contains(&player) {
                return Err(Error::unknown_player(player, &players));
            }
            return Err(Error::NotYourTurn {
                detail: format!("{to_move} is to move, not {player}"),
            });
        }
    }
    Ok(to_move)
}

/// Like `play_text`, but a move the rules refuse is a verdict rather than an error. `Err` is a fault of
/// the request rather than of the move (a player the game does not have).
pub fn validate<G: Rules>(
    position: &G::Position,
    mv: &str,
    player: Option<&str>,
) -> Result<Verdict<G::Position, G::Effects>> {
    match play_text::<G>(position, mv, player) {
        Ok((position, effects)) => Ok(Verdict::Legal { position, effects }),
        Err(error) if error.is_about_move() => Ok(Verdict::Illegal(error)),
        Err(error) => Err(error),
    }
}

/// Result of replaying a game record from its initial position.
pub struct Replay<G: Rules> {
    /// The position after the last legal ply.
    pub position: G::Position,
    /// Number of plies played.
    pub plies: usize,
    /// The first illegal ply (its index) and why, if any.
    pub failure: Option<(usize, Error)>,
    /// Where the game stands after the last legal ply (the verdict's, and what claims are judged by).
    pub outcome: Outcome,
}

pub fn replay<G: Rules, S: AsRef<str>>(
    setup: &CheckedSetup<G::Setup>,
    seed: Option<u64>,
    keys: Option<&ChanceKeys>,
    moves: &[S],
) -> Replay<G> {
    replay_watched(setup, seed, keys, moves, |_, _| {})
}

/// `replay`, showing `watch` the initial position and the position after every legal ply, with how it
/// was reached: the position before and the move played (none at the start).
pub fn replay_watched<G: Rules, S: AsRef<str>>(
    setup: &CheckedSetup<G::Setup>,
    seed: Option<u64>,
    keys: Option<&ChanceKeys>,
    moves: &[S],
    mut watch: impl FnMut(&G::Position, Option<(&G::Position, &str)>),
) -> Replay<G> {
    let mut position = G::start(setup, seed, keys);
    watch(&position, None);
    for (index, mv) in moves.iter().enumerate() {
        match play_text::<G>(&position, mv.as_ref(), None) {
            Ok((next, _)) => {
                watch(&next, Some((&position, mv.as_ref())));
                position = next;
            }
            Err(error) => {
                return Replay {
                    outcome: G::outcome(&position),
                    position,
                    plies: index,
                    failure: Some((index, error)),
                }
            }
        }
    }
    Replay {
        outcome: G::outcome(&position),
        position,
        plies: moves.len(),
        failure: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scores() -> BTreeMap<&'static str, i64> {
        BTreeMap::from([("red", 3), ("blue", 3), ("green", 1)])
    }

    #[test]
    fn a_draw_is_over_without_a_winner_or_a_ranking() {
        let drawn = Outcome::drawn(scores(), "board_full");
        let written = serde_json::to_value(&drawn).unwrap();
        let expected = serde_json::json!({"status": "finished", "to_move": null, "scores": scores(),
            "winner": null, "decided_by": "board_full"});
        assert_eq!(written, expected);
    }

    #[test]
    fn a_ranking_s_winner_is_its_first_rank_alone() {
        let ranking = vec![vec!["red"], vec!["blue"], vec!["green"]];
        let ranked = Outcome::ranked(scores(), ranking.clone(), "first_to_centre");
        assert_eq!(
            (ranked.status, ranked.to_move, ranked.winner),
            (Status::Finished, None, Some("red"))
        );
        assert_eq!(
            (ranked.decided_by, ranked.ranking),
            (Some("first_to_centre"), Some(ranking))
        );
        let shared = Outcome::ranked(scores(), vec![vec!["red", "blue"], vec!["green"]], "shared");
        assert_eq!(shared.winner, None);
        let written = serde_json::to_value(&shared).unwrap();
        assert_eq!(
            written["ranking"],
            serde_json::json!([["red", "blue"], ["green"]])
        );
    }

    #[test]
    fn a_won_game_ranks_nobody() {
        let won = Outcome::won(scores(), "red", "score");
        assert_eq!((won.winner, won.decided_by), (Some("red"), Some("score")));
        let written = serde_json::to_value(&won).unwrap();
        assert!(written.get("ranking").is_none(), "{written}");
    }
}
