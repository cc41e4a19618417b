//! A game as a tree of single decisions, for search and learning: integer action ids, chance
//! outcomes with their probabilities, observations per player and determinization. Built on `Rules`:
//! a decision that completes a move plays that move through `Rules`' own checks (or the game's
//! internals `Rules::play` is made of), so the handle and the stateless API are one engine.
//!
//! Every game's `actions.rs` documents its encoding and `observation.rs` its tensor.

use std::hash::{Hash, Hasher};

pub use crate::chance::Chance;
use crate::error::{Error, Result};
use crate::game::Rules;

/// A node of the tree: a position and the decisions of the turn under way that do not make a whole
/// move yet (Caesar!'s placement, bonus choices and draws; `()` in games where each decision is a move).
pub struct Node<G: Decisions> {
    pub position: G::Position,
    pub pending: G::Pending,
}

impl<G: Decisions> Clone for Node<G> {
    fn clone(&self) -> Self {
        Node {
            position: self.position.clone(),
            pending: self.pending.clone(),
        }
    }
}

impl<G: Decisions> Node<G> {
    pub fn new(position: G::Position) -> Self {
        Node {
            position,
            pending: G::Pending::default(),
        }
    }

    /// No decision of a turn is pending: the node is a position the engine can write.
    pub fn at_turn_start(&self) -> bool {
        self.pending == G::Pending::default()
    }
}

/// What an adapter (OpenSpiel, PettingZoo) knows of a game before any position: its `Decisions`'
/// bounds and whether it has chance and hidden information (exported to Python as `Engine.facts`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Facts {
    pub min_players: usize,
    pub max_players: usize,
    pub max_decisions: usize,
    pub max_chance_outcomes: usize,
    pub chance: bool,
    pub hidden_information: bool,
}

/// A game's facts (see `Facts`).
pub fn facts<G: Decisions>() -> Facts {
    Facts {
        min_players: G::PLAYER_COUNTS.0,
        max_players: G::PLAYER_COUNTS.1,
        max_decisions: G::MAX_DECISIONS,
        max_chance_outcomes: G::MAX_CHANCE_OUTCOMES,
        chance: G::MAX_CHANCE_OUTCOMES > 0,
        hidden_information: G::HIDDEN_INFORMATION,
    }
}

/// The decisions of a game. Ids run `0..num_actions(position)` for the position's setup (Hypnosia's
/// board sets its size); at a chance node the legal ids are the chance outcomes.
pub trait Decisions: Rules + Sized {
    type Pending: Clone + Default + PartialEq + Eq + Hash + Send + Sync + std::fmt::Debug;

    /// An upper bound of a game's length in decisions (OpenSpiel asks for one).
    const MAX_DECISIONS: usize;
    /// The most outcomes of a chance node, the last ids of the action space; 0: no chance.
    const MAX_CHANCE_OUTCOMES: usize = 0;
    /// The fewest and the most players a setup seats.
    const PLAYER_COUNTS: (usize, usize) = (2, 2);

    /// How many action ids the setup of `position` has.
    fn num_actions(position: &Self::Position) -> usize;
    /// The id of one decision in notation (`MalformedMove` for a text that names none).
    fn action_of(position: &Self::Position, text: &str) -> Result<usize>;
    /// The notation of an id (`MalformedMove` out of range).
    fn move_of(position: &Self::Position, action: usize) -> Result<String>;

    /// The legal ids at a node, ascending: chance outcomes at a chance node, none once over.
    fn legal_actions(node: &Node<Self>) -> Vec<usize>;
    /// Whether chance takes the next decision.
    fn is_chance(node: &Node<Self>) -> bool;
    /// At a chance node, its outcomes with their probabilities (summing to 1); else none.
    fn chance_outcomes(node: &Node<Self>) -> Vec<(usize, f64)>;
    /// Takes one decision, refusing an illegal one with the engine's typed error; the move it
    /// completed, if it completed one (then the node is at a turn start again).
    fn apply(node: &mut Node<Self>, action: usize) -> Result<Option<Self::Move>>;

    /// The shape of `observation`'s tensor (row-major).
    fn observation_shape(position: &Self::Position) -> Vec<usize>;
    /// What `player` may see of a node, as `observation_shape` numbers.
    fn observation(node: &Node<Self>, player: usize) -> Vec<f32>;
    /// A key equal for two nodes exactly when `player` cannot tell them apart. Games without hidden
    /// information: the position and the decisions pending.
    fn information_state(node: &Node<Self>, _player: usize) -> String {
        let mut key = Self::position_text(&node.position);
        if !node.at_turn_start() {
            key.push_str(&format!(" | {:?}", node.pending));
        }
        key
    }
    /// A full node consistent with what `player` sees of this one (determinization), drawing from
    /// `chance`; games without hidden information answer the node itself.
    fn resample(node: &Node<Self>, _player: usize, _chance: &mut Chance) -> Node<Self> {
        node.clone()
    }

    /// Takes the `pick`-th of the legal decisions of the player to decide (at a node that is not a
    /// chance node), in the move generator's order: the generator counts them, `pick` is given the
    /// count and answers an index below it, and the generator makes that one decision without
    /// listing the others. False when there is none (the game is over). Games whose generator
    /// lists its moves anyway take the default, through `legal_actions`.
    fn take_nth(node: &mut Node<Self>, pick: impl FnOnce(usize) -> usize) -> bool {
        take_listed(node, pick)
    }

    /// Takes one decision at random: chance by its probabilities, a player uniformly among its legal
    /// decisions (`take_nth`, one count and one decision of the generator); false when the game is
    /// over. This is every rollout's step, written once here for every game.
    fn random_decision(node: &mut Node<Self>, chance: &mut Chance) -> bool {
        if Self::is_chance(node) {
            let outcome = sample(&Self::chance_outcomes(node), chance);
            Self::apply(node, outcome).expect("a chance outcome applies");
            return true;
        }
        Self::take_nth(node, |count| {
            let count = u32::try_from(count).expect("fewer than 2^32 decisions");
            chance.below(count) as usize
        })
    }

    /// The decision a search prefers at a player's node, a legal action id drawn from `chance`: its
    /// playouts take it, and its tree tries it before the others. None where chance decides, or to
    /// take one uniformly (the default: the game knows nothing better than chance).
    fn preferred(_node: &Node<Self>, _chance: &mut Chance) -> Option<usize> {
        None
    }

    /// The players of the position's game, in player-number order (Hypnosia: its seated colours).
    fn players(_position: &Self::Position) -> Vec<&'static str> {
        Self::PLAYERS.to_vec()
    }
}

/// `take_nth` through the listed decisions (`legal_actions`, ascending ids): the default, and the
/// way of the decisions a game's generator does not count apart (Caesar!'s bonus choices).
pub fn take_listed<G: Decisions>(node: &mut Node<G>, pick: impl FnOnce(usize) -> usize) -> bool {
    let legal = G::legal_actions(node);
    if legal.is_empty() {
        return false;
    }
    let action = legal[pick(legal.len())];
    G::apply(node, action).expect("a legal decision applies");
    true
}

/// The number of `player` among the position's players, or `UnknownPlayer`.
pub fn player_number<G: Decisions>(position: &G::Position, player: &str) -> Result<usize> {
    let players = G::players(position);
    players
        .iter()
        .position(|&name| name == player)
        .ok_or_else(|| Error::unknown_player(player, &players))
}

/// The returns of a node, in player-number order: 0 for everyone while the game goes on; then +1 for
/// the winner and −1 for the other player (0 each when no one wins); with more players, by rank: the
/// i-th of n places is worth 1 − 2i/(n − 1) (+1 first, −1 last), tied players sharing the mean of
/// their places. Every game's returns sum to 0.
pub fn returns<G: Decisions>(position: &G::Position) -> Vec<f64> {
    let players = G::players(position);
    let n = players.len();
    let mut returns = vec![0.0; n];
    let outcome = G::outcome(position);
    if G::to_move(position).is_some() || n < 2 {
        return returns;
    }
    let place_value = |i: usize| 1.0 - 2.0 * i as f64 / (n - 1) as f64;
    let ranking = outcome.ranking.unwrap_or_else(|| match outcome.winner {
        Some(winner) => vec![
            vec![winner],
            players.iter().copied().filter(|&p| p != winner).collect(),
        ],
        None => vec![players.clone()],
    });
    let mut place = 0;
    for group in ranking {
        let value = (place..place + group.len()).map(place_value).sum::<f64>() / group.len() as f64;
        for name in &group {
            if let Some(p) = players.iter().position(|player| player == name) {
                returns[p] = value;
            }
        }
        place += group.len();
    }
    returns
}

/// A 64-bit key of a node, equal for equal nodes: the position's notation (which holds all of it)
/// and the pending decisions, through SipHash with fixed keys (the same in every process).
pub fn node_hash<G: Decisions>(node: &Node<G>) -> u64 {
    #[allow(deprecated)]
    // SipHasher's fixed keys: the same key in every process, unlike RandomState
    let mut hasher = std::hash::SipHasher::new();
    G::position_text(&node.position).hash(&mut hasher);
    node.pending.hash(&mut hasher);
    hasher.finish()
}

/// The outcome chosen by `chance` among weighted outcomes.
pub fn sample(outcomes: &[(usize, f64)], chance: &mut Chance) -> usize {
    // 2^24 steps: exact for the games' probabilities (multiples of 1/36 and of 1/(bag size)).
    sample_at(
        outcomes,
        f64::from(chance.below(1 << 24)) / f64::from(1u32 << 24),
    )
}

/// The outcome at `point` (in [0, 1)) of weighted outcomes laid end to end: the one sampling of
/// chance, for Rust's playouts and (with a point from Python's `random`) the Python bots.
pub fn sample_at(outcomes: &[(usize, f64)], mut point: f64) -> usize {
    for &(action, probability) in outcomes {
        if point < probability {
            return action;
        }
        point -= probability;
    }
    outcomes.last().map_or(0, |&(action, _)| action)
}

/// Plays a node out at random to the end (chance by its probabilities, every player uniformly among
/// its legal decisions), drawing from `chance`: the returns, and the decisions taken.
pub fn rollout<G: Decisions>(mut node: Node<G>, chance: &mut Chance) -> (Vec<f64>, usize) {
    let mut decisions = 0;
    while G::random_decision(&mut node, chance) {
        decisions += 1;
    }
    (returns::<G>(&node.position), decisions)
}

/// `MalformedMove` for an id outside `0..count`.
pub fn out_of_range(action: usize, count: usize) -> Error {
    Error::malformed_move(format!(
        "{action} is not an action id of this setup: ids are 0..{count}"
    ))
}

/// `MalformedMove` for a text that names no single decision.
pub fn not_a_decision(text: &str, what: &str) -> Error {
    Error::malformed_move(format!(
        "{text:?} is not one decision: a decision is {what}"
    ))
}

/// Checks at a player's node that `take_nth` counts exactly the listed decisions and that its
/// 0..count take exactly them (as a set: the generator's order may differ from the ids'): what
/// makes a random decision uniform among the legal ones. The count, for tests that check more.
#[cfg(test)]
pub fn check_take_nth<G: Decisions>(node: &Node<G>) -> usize {
    use std::collections::HashSet;
    let listed: HashSet<u64> = G::legal_actions(node)
        .into_iter()
        .map(|action| {
            let mut child = node.clone();
            G::apply(&mut child, action).expect("a listed decision applies");
            node_hash(&child)
        })
        .collect();
    let mut count = 0;
    let probe = G::take_nth(&mut node.clone(), |n| {
        count = n;
        0
    });
    assert_eq!(probe, count > 0);
    assert_eq!(
        count,
        G::legal_actions(node).len(),
        "the count is the listed decisions'"
    );
    let taken: HashSet<u64> = (0..count)
        .map(|k| {
            let mut child = node.clone();
            assert!(G::take_nth(&mut child, |n| {
                assert_eq!(n, count);
                k
            }));
            node_hash(&child)
        })
        .collect();
    assert_eq!(taken.len(), count, "every k takes another decision");
    assert_eq!(taken, listed);
    count
}
