//! Answers as clients receive them: a move's result (`Played`), a state in the form a request gave
//! it (`StateOut`), a replay's summary; states sealed or opaque as the engine's keys say (see
//! `seal::stamp`).

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;

use crate::game::{Outcome, Replay, Rules, StateOf};
use crate::keys::SealKeys;
use crate::opaque::{Commitments, Form};
use crate::seal::{self, Stamped};

/// A state as an answer gives it, in the form of the request's (an object sealed when there are
/// keys, or opaque; see `seal::stamp`).
#[derive(Serialize)]
#[serde(untagged, bound = "")]
pub enum StateOut<'a, G: Rules> {
    Object(Stamped<StateOf<'a, G>>),
    Notation(String),
}

impl<G: Rules> StateOut<'_, G> {
    fn is_opaque(&self) -> bool {
        matches!(self, StateOut::Object(state) if state.is_opaque())
    }
}

/// A move's result as clients receive it: the next state (sealed when there are keys), its notation,
/// what the move did, and where the game stands. An opaque state comes without its notation (which
/// would show it all) and with the view of the player who moved (never another player's hand).
#[derive(Serialize)]
#[serde(bound = "")]
pub struct Played<'a, G: Rules> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<StateOut<'a, G>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub view: Option<Box<RawValue>>,
    pub effects: G::Effects,
    pub outcome: Outcome,
}

impl<'a, G: Rules> Played<'a, G> {
    /// The next state in `form` (an object, its commitments carried on); `mover`: the player who
    /// played the move (the player to move before it).
    pub fn in_form(
        position: &'a G::Position,
        effects: G::Effects,
        form: &Form,
        keys: Option<&SealKeys>,
        mover: Option<&str>,
    ) -> Self {
        let mut played = Played {
            state: None,
            position: None,
            view: None,
            effects,
            outcome: G::outcome(position),
        };
        if *form == Form::Notation {
            let text = G::position_text(position);
            played.state = Some(StateOut::Notation(text.clone()));
            played.position = Some(text);
            return played;
        }
        let state = StateOut::Object(seal::stamp::<G>(position, keys, form.commitments()));
        if !state.is_opaque() {
            played.position = Some(G::position_text(position));
        }
        played.state = Some(state);
        if played.position.is_none() {
            played.view = mover.and_then(|mover| G::view_json(position, mover).ok());
        }
        played
    }
}

impl<G: Rules> Replay<G> {
    /// The result as clients receive it: the verdict with the final state (sealed when there are
    /// keys; opaque, without its notation, with `commitments` when the game has hidden information).
    pub fn summary<S: AsRef<str>>(
        &self,
        moves: &[S],
        keys: Option<&SealKeys>,
        commitments: Option<&Commitments>,
    ) -> Value {
        let state = seal::stamp::<G>(&self.position, keys, commitments);
        let mut result = self.verdict(moves);
        if state.is_opaque() {
            result.remove("position");
        }
        let state = serde_json::to_value(state).expect("a state serializes");
        result.insert("state".into(), state);
        Value::Object(result)
    }
}
