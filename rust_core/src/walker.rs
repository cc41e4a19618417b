//! A game walked a decision or a move at a time: `Walker<G>`, the position handle of bots, search
//! and learning. It keeps the checked position (see `decisions`), so that a move costs what the
//! engine costs: push and pop moves or action ids, copy, ask for legal actions, chance outcomes,
//! observations; the JSON state and the effects of the last move only when asked for. Python's
//! `referee.Position` is its binding (`python/handle.rs`).

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use serde_json::Value;

use crate::chance::Chance;
use crate::decisions::{self, Decisions, Node};
use crate::error::Error;
use crate::keys::SealKeys;
use crate::seal;
use crate::search;

/// One game's handle: the node, and what was pushed to reach it (the node before each push and the
/// move the push completed, if it completed one), for `pop` and `effects`.
pub struct Walker<G: Decisions> {
    node: Node<G>,
    stack: Vec<(Node<G>, Option<G::Move>)>,
    keys: Option<Arc<SealKeys>>,
}

impl<G: Decisions + 'static> Walker<G>
where
    G::Move: Send + Sync + 'static,
    G::Position: 'static,
{
    /// A handle on `position`, nothing pushed; `keys` seal (or make opaque) the states it writes.
    pub fn new(position: G::Position, keys: Option<Arc<SealKeys>>) -> Self {
        Walker::<G> {
            node: Node::new(position),
            stack: Vec::new(),
            keys,
        }
    }

    /// The number of the player named `player`.
    fn player(&self, player: &str) -> Result<usize, Error> {
        decisions::player_number::<G>(&self.node.position, player)
    }

    /// An independent copy; `stack: false` leaves the pushes behind (`pop` then has nothing).
    pub fn copy(&self, stack: bool) -> Walker<G> {
        Walker::<G> {
            node: self.node.clone(),
            stack: if stack {
                self.stack.clone()
            } else {
                Vec::new()
            },
            keys: self.keys.clone(),
        }
    }

    /// The game's players, in player-number order (Hypnosia: the seated colours, by seat).
    pub fn players(&self) -> Vec<&'static str> {
        G::players(&self.node.position)
    }

    /// How many action ids this position's setup has.
    pub fn num_actions(&self) -> usize {
        G::num_actions(&self.node.position)
    }

    /// The id of one decision written in notation.
    pub fn action_of(&self, text: &str) -> Result<usize, Error> {
        G::action_of(&self.node.position, text)
    }

    /// The notation of an action id.
    pub fn move_of(&self, action: usize) -> Result<String, Error> {
        G::move_of(&self.node.position, action)
    }

    /// The legal action ids, ascending (the chance outcomes at a chance node).
    pub fn legal_actions(&self) -> Vec<usize> {
        G::legal_actions(&self.node)
    }

    /// The legal moves in notation (inside a turn decided in part by action ids, the legal
    /// decisions' notation).
    pub fn legal_moves(&self) -> Vec<String> {
        if self.node.at_turn_start() {
            return G::legal_move_texts(&self.node.position);
        }
        let legal = G::legal_actions(&self.node);
        legal
            .into_iter()
            .filter_map(|a| self.move_of(a).ok())
            .collect()
    }

    /// Takes a decision (an action id), in place; on an error the handle is as it was.
    pub fn push_action(&mut self, action: usize) -> Result<(), Error> {
        let before = self.node.clone();
        match G::apply(&mut self.node, action) {
            Ok(completed) => {
                self.stack.push((before, completed));
                Ok(())
            }
            Err(error) => {
                self.node = before;
                Err(error)
            }
        }
    }

    /// Plays a move given in notation (a whole move, as `play` plays it), in place; on an error the
    /// handle is as it was.
    pub fn push_move(&mut self, text: &str) -> Result<(), Error> {
        if !self.node.at_turn_start() {
            return Err(Error::illegal_move(
                "turn-under-way",
                "a turn is under way, decided in part by action ids: push its remaining decisions (or pop them) before a move",
                serde_json::json!({}),
            ));
        }
        let mv = G::parse_move(text)?;
        let (next, _) = G::play(&self.node.position, mv.clone())?;
        let before = std::mem::replace(&mut self.node, Node::new(next));
        self.stack.push((before, Some(mv)));
        Ok(())
    }

    /// Takes back the last push exactly; false when there is none.
    pub fn pop(&mut self) -> bool {
        match self.stack.pop() {
            Some((before, _)) => {
                self.node = before;
                true
            }
            None => false,
        }
    }

    /// Decisions and moves pushed since the handle was made (or copied without its stack).
    pub fn plies(&self) -> usize {
        self.stack.len()
    }

    /// The moves completed since the handle was made, in notation.
    pub fn history(&self) -> Vec<String> {
        let moves = self.stack.iter().filter_map(|(_, mv)| mv.as_ref());
        moves.map(ToString::to_string).collect()
    }

    /// No decision of a turn is pending (Caesar!: the turn's placement, choices and draws are all
    /// taken or none is).
    pub fn at_turn_start(&self) -> bool {
        self.node.at_turn_start()
    }

    /// The game is over: nobody is to move.
    pub fn is_over(&self) -> bool {
        G::to_move(&self.node.position).is_none()
    }

    /// Whether chance takes the next decision (Hypnosia's roll, Caesar!'s draws).
    pub fn is_chance(&self) -> bool {
        G::is_chance(&self.node)
    }

    /// At a chance node, each outcome (an action id) with its probability; else none.
    pub fn chance_outcomes(&self) -> Vec<(usize, f64)> {
        G::chance_outcomes(&self.node)
    }

    /// The player to move (at a chance node, the player whose turn it is); `None` once over.
    pub fn to_move(&self) -> Option<&'static str> {
        G::to_move(&self.node.position)
    }

    /// Status, player to move, scores, and the winner once over, as JSON.
    pub fn outcome(&self) -> Value {
        serde_json::to_value(G::outcome(&self.node.position)).expect("an outcome serializes")
    }

    /// Per player (in `players` order): 0 while the game goes on; then +1 for the winner, −1 for
    /// the other (Hypnosia: by rank, +1 first to −1 last, ties sharing), summing to 0.
    pub fn returns(&self) -> Vec<f64> {
        decisions::returns::<G>(&self.node.position)
    }

    /// The JSON state as the stateless API answers it (sealed, or opaque, as the keys say).
    pub fn state(&self) -> Vec<u8> {
        let state = seal::stamp::<G>(&self.node.position, self.keys.as_deref(), None);
        serde_json::to_vec(&state).expect("a state serializes")
    }

    /// The position notation.
    pub fn position(&self) -> String {
        G::position_text(&self.node.position)
    }

    /// A 64-bit key, equal for equal positions (with equal pending decisions).
    pub fn hash(&self) -> u64 {
        decisions::node_hash(&self.node)
    }

    /// What `player` may see.
    pub fn view(&self, player: &str) -> Result<Value, Error> {
        G::view(&self.node.position, player)
    }

    /// What the last push did (as `play`'s effects), computed now; `None` when it completed no move.
    pub fn effects(&self) -> Option<Value> {
        let (before, mv) = self.stack.last()?;
        let (_, effects) = G::play(&before.position, mv.clone()?).ok()?;
        serde_json::to_value(effects).ok()
    }

    /// The shape of `observation`'s tensor.
    pub fn observation_shape(&self) -> Vec<usize> {
        G::observation_shape(&self.node.position)
    }

    /// What `player` sees as numbers.
    pub fn observation(&self, player: &str) -> Result<Vec<f32>, Error> {
        Ok(G::observation(&self.node, self.player(player)?))
    }

    /// A key equal for two positions exactly when `player` cannot tell them apart.
    pub fn information_state(&self, player: &str) -> Result<String, Error> {
        Ok(G::information_state(&self.node, self.player(player)?))
    }

    /// A full position consistent with what `player` sees of this one (Caesar!: the other hand dealt
    /// again, a new generator), drawn from `seed`, nothing pushed.
    pub fn resample(&self, player: &str, seed: u64) -> Result<Walker<G>, Error> {
        let player = self.player(player)?;
        // The bot's own draws: no secret keys them.
        let mut chance = Chance::from_seed(seed, None);
        Ok(Walker::<G> {
            node: G::resample(&self.node, player, &mut chance),
            stack: Vec::new(),
            keys: self.keys.clone(),
        })
    }

    /// What the engine's search suggests for the player to decide here (see `search`).
    pub fn suggest(
        &self,
        asked: &search::Asked,
        stop: &AtomicBool,
    ) -> Result<search::Suggestion, Error> {
        search::Search::new(self.node.clone(), asked)?.run(None, stop)
    }

    /// The position played out at random from `seed` (chance by its probabilities, every player
    /// uniformly among its legal decisions): the returns per player, and the decisions taken.
    pub fn rollout(&self, seed: u64) -> (Vec<f64>, usize) {
        decisions::rollout(self.node.clone(), &mut Chance::from_seed(seed, None))
    }
}

#[cfg(test)]
mod tests {
    use super::Walker;
    use crate::game::{self, Rules};
    use crate::iago::Iago;

    #[test]
    fn a_push_is_taken_back_exactly() {
        let start = Iago::start(&game::default_setup::<Iago>(), None, None);
        let mut walker = Walker::<Iago>::new(start, None);
        let before = walker.position();
        let first = walker.legal_moves()[0].clone();
        walker.push_move(&first).unwrap();
        assert_eq!((walker.plies(), walker.history()), (1, vec![first]));
        assert!(walker.effects().is_some());
        assert!(walker.pop());
        assert_eq!(walker.position(), before);
        assert!(!walker.pop());
    }
}
