//! Answers as clients receive them: a move's result (`Played`), a state in the form a request gave
//! it (`StateOut`), a replay's summary; states sealed or opaque as the engine's keys say (see
//! `seal::stamp`).

use std::collections::BTreeMap;

use serde::{Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::Value;

use crate::claims::ClaimVerdict;
use crate::game::{Outcome, Replay, Rules, StateOf};
use crate::keys::SealKeys;
use crate::opaque::{Commitments, Form};
use crate::result::{write_claim, Fields, Verdict};
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
    /// The answer to a replay of `moves`, as clients receive it: the verdict, the claim's, and the final
    /// state (sealed when there are keys; opaque, without its notation, with `commitments` when the
    /// game has hidden information).
    pub fn summary<S: AsRef<str>>(
        self,
        moves: &[S],
        keys: Option<&SealKeys>,
        commitments: Option<&Commitments>,
        claim: ClaimVerdict,
    ) -> Value {
        let state = seal::stamp::<G>(&self.position, keys, commitments);
        let opaque = state.is_opaque();
        let state = serde_json::to_value(state).expect("a state serializes");
        let summary = ReplaySummary {
            verdict: Verdict::of(self, moves),
            claim,
            state,
            opaque,
        };
        serde_json::to_value(summary).expect("a summary serializes")
    }
}

/// A replay's answer: the record's verdict (the one an archive's result gives), its claim's, and the
/// final state; an opaque state comes without the position's notation, which would show it all.
struct ReplaySummary {
    verdict: Verdict,
    claim: ClaimVerdict,
    state: Value,
    opaque: bool,
}

/// The fields in their names' order (as a JSON object's keys sorted, which replays have always been).
impl Serialize for ReplaySummary {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let no_kept_fields = BTreeMap::new();
        let mut fields = Fields::new(serializer.serialize_map(None)?, &no_kept_fields);
        write_claim(Some(&self.claim), &mut fields)?;
        self.verdict.write(&mut fields, !self.opaque)?;
        self.verdict.write_reason(&mut fields)?;
        fields.field("state", Some(&self.state))?;
        fields.end()
    }
}
