//! A game's engine, for a Rust caller and the Python bindings alike: a checked setup (for the games
//! it starts and the position strings it reads), seal keys, and the rules of the modes the keys set:
//! sealed (every state taken must carry a valid seal, every state answered is sealed), opaque, and
//! committed (a game with hidden information kept opaque: its states carry the players'
//! commitments, the service draws each game's seed and starting hands, nothing shows a hand without
//! its player's secret). `AnyEngine` is one of the games' (see `registry::games!`), for code that
//! picks a game by name.

use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use crate::answer::Played;
use crate::chance::ChanceKeys;
use crate::claims::{self, Claim};
use crate::decisions::{Decisions, Node};
use crate::error::Error;
use crate::game::{self, CheckedSetup, Outcome, Rules, StateOf, Verdict};
use crate::incoming;
use crate::keys::{self, SealKeys};
use crate::opaque::{Commitments, Form, COMMITMENTS_FIELD};
use crate::registry::GameKind;
use crate::seal::{self, Stamped};
use crate::search;

/// One game's engine (see the module's doc).
pub struct Engine<G: Rules> {
    setup: CheckedSetup<G::Setup>,
    keys: Option<Arc<SealKeys>>,
}

impl<G: Rules> Engine<G> {
    pub fn new(setup: CheckedSetup<G::Setup>, keys: Option<Arc<SealKeys>>) -> Self {
        Engine { setup, keys }
    }

    /// The engine of a setup given as JSON text (see `game::read_setup`); the game's default when
    /// none is given.
    pub fn of_setup(setup: Option<&str>, keys: Option<Arc<SealKeys>>) -> Result<Self, Error> {
        let setup = setup.map(game::read_setup::<G>).transpose()?;
        Ok(Engine::new(
            setup.unwrap_or_else(game::default_setup::<G>),
            keys,
        ))
    }

    /// The setup of the games it starts and of the position strings it reads.
    pub fn setup(&self) -> &CheckedSetup<G::Setup> {
        &self.setup
    }

    pub fn keys(&self) -> Option<&SealKeys> {
        self.keys.as_deref()
    }

    /// The chance keys of its games (see `chance`): what keys the generators it starts and reads.
    pub fn chance_keys(&self) -> Option<&ChanceKeys> {
        keys::chance_of::<G>(self.keys())
    }

    /// Its keys, for what outlives a call (a position handle writes states with them).
    pub fn shared_keys(&self) -> Option<Arc<SealKeys>> {
        self.keys.clone()
    }

    /// Whether it answers its states opaque (encrypted; see `SealKeys`).
    pub fn opaque(&self) -> bool {
        self.keys().is_some_and(|keys| keys.opaque_for(G::NAME))
    }

    /// Whether its states carry commitments: its keys keep a game with hidden information opaque.
    /// `start` then needs commitments (and draws its own seed and starting hands), `replay` and
    /// `whole` are refused, and every call that reveals a player's information needs that player's
    /// secret.
    pub fn commits(&self) -> bool {
        G::HIDDEN_INFORMATION && self.opaque()
    }

    /// The commitments a new game starts with: required when the engine `commits`; otherwise
    /// ignored (a client may send them whatever the service's mode).
    pub fn commitments(&self, given: Option<&Value>) -> Result<Option<Commitments>, Error> {
        if !self.commits() {
            return Ok(None);
        }
        let Some(given) = given.filter(|given| !given.is_null()) else {
            let message = format!(
                "Missing: this service keeps {} states opaque; give each player's commitment, the SHA-256 (hex) of their secret.",
                G::NAME
            );
            return Err(Error::malformed_field(COMMITMENTS_FIELD, message));
        };
        Commitments::parse::<G>(given)
            .map(Some)
            .map_err(|(field, message)| Error::malformed_field(field, message))
    }

    /// A new game (of `setup`, else the engine's own), and the commitments its states carry. In
    /// committed mode the seed is the engine's, from the operating system (it travels only inside
    /// the ciphertext), and the starting hands are drawn, so that nobody can start a copy of a game
    /// under way (same draws, same hands) and view it with a secret of their own.
    pub fn start(
        &self,
        setup: Option<CheckedSetup<G::Setup>>,
        seed: Option<u64>,
        commitments: Option<&Value>,
    ) -> Result<(G::Position, Option<Commitments>), Error> {
        let setup = setup.unwrap_or_else(|| self.setup.clone());
        let commitments = self.commitments(commitments)?;
        if self.commits() {
            self.committed_start(&setup, seed)?;
        }
        let position = G::start(&setup, seed, self.chance_keys());
        Ok((position, commitments))
    }

    /// Refuses what a committed start must not be given: a seed, or starting hands.
    fn committed_start(&self, setup: &G::Setup, seed: Option<u64>) -> Result<(), Error> {
        if seed.is_some() {
            let message = format!(
                "Not allowed: this service keeps {} states opaque and draws each game's seed itself; a seed given would let anyone start a copy of a game under way.",
                G::NAME
            );
            return Err(Error::malformed_field("seed", message));
        }
        if G::fixes_hidden_start(setup) {
            let detail = format!(
                "not allowed: this service keeps {} states opaque and draws the starting hands itself; hands given would let anyone start a copy of a game under way",
                G::NAME
            );
            return Err(Error::invalid_options("options.hands", detail));
        }
        Ok(())
    }

    /// A position's state on its way out (see `seal::stamp`), with the commitments it carries.
    pub fn stamp<'a>(
        &self,
        position: &'a G::Position,
        commitments: Option<&Commitments>,
    ) -> Stamped<StateOf<'a, G>> {
        seal::stamp::<G>(position, self.keys(), commitments)
    }

    /// The checked position of an untrusted state object given as JSON text, and its form (with
    /// keys, its seal verified first; opaque, decrypted).
    pub fn read_object(&self, json: &str) -> Result<(G::Position, Form), Error> {
        incoming::read_object::<G>(json, self.keys())
    }

    /// The checked position of a position string of the engine's setup; refused with keys (it
    /// cannot carry a seal).
    pub fn read_notation(&self, text: &str) -> Result<(G::Position, Form), Error> {
        incoming::read_notation::<G>(|| Ok(text.into()), &self.setup, self.keys())
    }

    /// A position written in notation, for `setup` (else the engine's own): a game's start for a
    /// new state, never a state the engine vouches for.
    pub fn parse_position(
        &self,
        text: &str,
        setup: Option<&CheckedSetup<G::Setup>>,
    ) -> Result<G::Position, Error> {
        let setup = setup.unwrap_or(&self.setup);
        G::parse_position(text, setup, self.chance_keys())
    }

    /// Refuses to show a committed state whole (its notation, perft): it is shown to one player at
    /// a time, never whole.
    pub fn whole(&self, form: &Form) -> Result<(), Error> {
        if form.commitments().is_none() {
            return Ok(());
        }
        Err(Error::NotThisPlayer {
            player: None,
            detail: "whole: a committed state (a game with hidden information, opaque) is shown to one player at a time, with their `secret` (`view`); its notation and perft would show every hand".into(),
        })
    }

    /// Refuses to hold its games whole (a position handle, which shows every hand) when it
    /// `commits`.
    pub fn whole_games(&self) -> Result<(), Error> {
        if !self.commits() {
            return Ok(());
        }
        Err(Error::NotThisPlayer {
            player: None,
            detail: format!(
                "whole: {} keeps its states opaque with each player's secret; a position handle would show every hand",
                G::NAME
            ),
        })
    }

    /// Plays a move on a state of `form`, acting as its mover (with the mover's `secret` when it is
    /// committed): the next state in that form.
    pub fn play(
        &self,
        position: &G::Position,
        form: &Form,
        mv: &str,
        player: Option<&str>,
        secret: Option<&str>,
    ) -> Result<(G::Position, G::Effects), Error> {
        form.act_as_mover::<G>(position, secret)?;
        game::play_text::<G>(position, mv, player)
    }

    /// Judges a move on a state of `form` as `play` would play it (acting as its mover): a move the
    /// rules refuse is a verdict; `Err`, a fault of the request (the mover's secret missing, a
    /// player the game does not have).
    pub fn validate(
        &self,
        position: &G::Position,
        form: &Form,
        mv: &str,
        player: Option<&str>,
        secret: Option<&str>,
    ) -> Result<Verdict<G::Position, G::Effects>, Error> {
        form.act_as_mover::<G>(position, secret)?;
        game::validate::<G>(position, mv, player)
    }

    /// The engine's search for the player to move of a state of `form` (who `player` must be when
    /// given; with the mover's `secret` when it is committed), checked and ready to run: it sees
    /// what the mover sees (see `search`).
    pub fn search(
        &self,
        position: &G::Position,
        form: &Form,
        player: Option<&str>,
        secret: Option<&str>,
        asked: &search::Asked,
    ) -> Result<search::Search<G>, Error>
    where
        G: Decisions,
    {
        form.act_as_mover::<G>(position, secret)?;
        game::mover::<G>(position, player)?;
        search::Search::new(Node::<G>::new(position.clone()), asked)
    }

    /// The legal moves of a state of `form` (the mover's hand: with the mover's `secret` when it is
    /// committed), in notation; `compact`, the game's shorter form (see `Rules::compact_moves`).
    pub fn legal_moves(
        &self,
        position: &G::Position,
        form: &Form,
        compact: bool,
        secret: Option<&str>,
    ) -> Result<Vec<String>, Error> {
        form.act_as_mover::<G>(position, secret)?;
        Ok(if compact {
            G::compact_moves(position)
        } else {
            G::legal_move_texts(position)
        })
    }

    /// The answer of `play`: the next state in `form` (sealed, or opaque with the mover's view).
    pub fn played<'a>(
        &self,
        before: &G::Position,
        next: &'a G::Position,
        effects: G::Effects,
        form: &Form,
    ) -> Played<'a, G> {
        Played::in_form(next, effects, form, self.keys(), G::to_move(before))
    }

    /// Refuses a replay in committed mode: a replay's refusals (`token-not-in-hand` with
    /// `data.hand`, ...) would show the hands of a game drawn like one under way, without any
    /// secret; archives, which replay, do not keep opaque states. Callers ask before reading what a
    /// replay is given, so that this refusal comes first.
    pub fn replayable(&self) -> Result<(), Error> {
        if !self.commits() {
            return Ok(());
        }
        let detail = format!(
            "opaque: this service keeps {} states opaque, and a replay would show hands without a secret; play the moves one by one with `play`",
            G::NAME
        );
        let fields = vec![("moves".into(), detail.clone())];
        Err(Error::malformed_request_detail(fields, detail))
    }

    /// Replays a record from the initial position of `setup` (else the engine's own) and judges its
    /// `claim` (see `claims`): the summary clients receive. Refused in committed mode (see
    /// `replayable`).
    pub fn replay<S: AsRef<str>>(
        &self,
        moves: &[S],
        setup: Option<CheckedSetup<G::Setup>>,
        seed: Option<u64>,
        commitments: Option<&Value>,
        claim: &Claim,
    ) -> Result<Value, Error> {
        self.replayable()?;
        let setup = setup.unwrap_or_else(|| self.setup.clone());
        let commitments = self.commitments(commitments)?;
        let keys = self.keys();
        let replay = game::replay::<G, _>(&setup, seed, self.chance_keys(), moves);
        let claim = claims::judge(claim, &replay);
        Ok(replay.summary(moves, keys, commitments.as_ref(), claim))
    }

    /// What `player` may see of a state of `form` (the whole state when `None`), as a request with
    /// `secret` may: a committed state, one player's view, with that player's secret.
    pub fn view<'a>(
        &self,
        position: &'a G::Position,
        form: &Form,
        player: Option<&str>,
        secret: Option<&str>,
    ) -> Result<Shown<'a, G>, Error> {
        // An unknown name is refused as such before any secret is looked at.
        if let Some(player) = player.filter(|player| !G::PLAYERS.contains(player)) {
            return Err(Error::unknown_player(player, G::PLAYERS));
        }
        match form.viewer(player, secret)? {
            Some(player) => form
                .act_as(player, secret)
                .and_then(|()| G::view(position, player))
                .map(Shown::View),
            None => Ok(Shown::Whole(StateOf(position))),
        }
    }

    /// What a picture of a state of `form` shows, after `mv` when one is given (for a committed
    /// state, with the mover's `secret`), as `player` sees it (a committed state: with `player`'s
    /// `secret`, `player` defaulting to the secret's owner), with the legal moves when `legal` and
    /// the viewer may see them (their own turn, or nothing hidden).
    pub fn scene<'a>(
        &self,
        position: G::Position,
        form: &Form,
        mv: Option<&str>,
        player: Option<&'a str>,
        legal: bool,
        secret: Option<&str>,
    ) -> Result<Scene<'a, G>, Error> {
        let (position, effects) = match mv {
            None => (position, None),
            Some(mv) => {
                let (next, effects) = self.play(&position, form, mv, None, secret)?;
                (next, Some(effects))
            }
        };
        let viewer = form.viewer(player, secret)?;
        let shown = match self.view(&position, form, viewer, secret)? {
            Shown::View(view) => Some(view),
            Shown::Whole(_) => None,
        };
        let outcome = G::outcome(&position);
        let may_see = viewer.is_none() || !G::HIDDEN_INFORMATION || viewer == outcome.to_move;
        let moves = (legal && may_see).then(|| {
            G::legal_moves(&position)
                .iter()
                .map(ToString::to_string)
                .collect()
        });
        Ok(Scene {
            view: shown,
            position,
            viewer,
            outcome,
            effects,
            moves,
        })
    }
}

/// What a view answers: a player's view, or the whole state (in the state's own field order).
#[derive(Serialize)]
#[serde(untagged, bound = "")]
pub enum Shown<'a, G: Rules> {
    View(Value),
    Whole(StateOf<'a, G>),
}

/// What a picture shows (see `Engine::scene`): `{"shown", "viewer", "outcome", "effects", "moves"}`.
pub struct Scene<'a, G: Rules> {
    /// The viewer's view; `None`: the whole state, `position`'s.
    view: Option<Value>,
    position: G::Position,
    pub viewer: Option<&'a str>,
    pub outcome: Outcome,
    pub effects: Option<G::Effects>,
    pub moves: Option<Vec<String>>,
}

impl<G: Rules> Serialize for Scene<'_, G> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let shown = match &self.view {
            Some(view) => Shown::View(view.clone()),
            None => Shown::<G>::Whole(StateOf(&self.position)),
        };
        let mut scene = serializer.serialize_struct("Scene", 5)?;
        scene.serialize_field("shown", &shown)?;
        scene.serialize_field("viewer", &self.viewer)?;
        scene.serialize_field("outcome", &self.outcome)?;
        scene.serialize_field("effects", &self.effects)?;
        scene.serialize_field("moves", &self.moves)?;
        scene.end()
    }
}

crate::games!(engines);

/// Runs `$body` with `$engine` bound to the `Engine<$G>` inside `$any` (an `&AnyEngine`), `$G`
/// standing for its game type: the one dispatch from a game picked at run time to its engine.
#[macro_export]
macro_rules! with_engine {
    ($any:expr, $G:ident, $engine:ident => $body:expr) => {{
        use $crate::engine::AnyEngine;
        $crate::games!(match_enum AnyEngine, $any, $G, $engine => $body)
    }};
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::{json, Value};
    use sha2::{Digest, Sha256};

    use super::{AnyEngine, Engine, Shown};
    use crate::caesar::Caesar;
    use crate::error::Error;
    use crate::game::Rules;
    use crate::iago::Iago;
    use crate::keys::tests::K1;
    use crate::keys::SealKeys;
    use crate::opaque::Form;
    use crate::registry::GameKind;

    const CAESARS: &str = "caesar's own secret, 16+ chars";
    const POMPEYS: &str = "pompey's own secret, 16+ chars";

    fn committed() -> Engine<Caesar> {
        let keys = SealKeys::parse(K1)
            .unwrap()
            .with_opaque_games(vec!["caesar".into()]);
        Engine::new(crate::game::default_setup::<Caesar>(), Some(Arc::new(keys)))
    }

    fn commitments() -> Value {
        let hex = |secret: &str| {
            Sha256::digest(secret.as_bytes())
                .iter()
                .map(|byte| format!("{byte:02x}"))
                .collect::<String>()
        };
        json!({"caesar": hex(CAESARS), "pompey": hex(POMPEYS)})
    }

    /// The code of a refusal, and the field a `malformed-request` names.
    fn refused<T>(result: Result<T, Error>) -> (String, Value) {
        let Err(refusal) = result else {
            panic!("not refused")
        };
        let reason = refusal.reason();
        let field = reason["errors"][0]["field"].clone();
        (reason["code"].as_str().unwrap().to_owned(), field)
    }

    #[test]
    fn a_committed_engine_starts_only_from_commitments_with_its_own_seed_and_hands() {
        let engine = committed();
        assert!(engine.commits() && engine.opaque());
        let (code, field) = refused(engine.start(None, None, None));
        assert_eq!(
            (code.as_str(), field),
            ("malformed-request", json!("commitments"))
        );
        let (code, field) = refused(engine.start(None, Some(5), Some(&commitments())));
        assert_eq!((code.as_str(), field), ("malformed-request", json!("seed")));
        let hands =
            json!({"options": {"hands": {"caesar": ["L40", "L31"], "pompey": ["L40", "L31"]}}});
        let setup = Caesar::check_setup(serde_json::from_value(hands).unwrap()).unwrap();
        let (code, _) = refused(engine.start(Some(setup), None, Some(&commitments())));
        assert_eq!(code, "invalid-options");
        let (position, carried) = engine.start(None, None, Some(&commitments())).unwrap();
        assert!(carried.is_some());
        // Its state is opaque, and read back committed: never shown whole, a hand only with its secret.
        let state = serde_json::to_string(&engine.stamp(&position, carried.as_ref())).unwrap();
        let (read, form) = engine.read_object(&state).unwrap();
        assert!(matches!(form, Form::Committed(_)));
        assert!(matches!(
            engine.whole(&form),
            Err(Error::NotThisPlayer { .. })
        ));
        assert!(matches!(
            engine.view(&read, &form, Some("caesar"), Some(POMPEYS)),
            Err(Error::NotThisPlayer { .. })
        ));
        let view = engine.view(&read, &form, None, Some(CAESARS)).unwrap();
        assert!(matches!(view, Shown::View(view) if view["hands"].get("pompey").is_none()));
        let mover = Caesar::to_move(&read).unwrap();
        let mv = Caesar::legal_move_texts(&read)[0].clone();
        let other = if mover == "caesar" { POMPEYS } else { CAESARS };
        let secret = if mover == "caesar" { CAESARS } else { POMPEYS };
        // Every call that acts as the mover is refused without the mover's secret: the one policy.
        assert!(matches!(
            engine.play(&read, &form, &mv, None, Some(other)),
            Err(Error::NotThisPlayer { .. })
        ));
        assert!(matches!(
            engine.validate(&read, &form, &mv, None, Some(other)),
            Err(Error::NotThisPlayer { .. })
        ));
        assert!(matches!(
            engine.legal_moves(&read, &form, false, None),
            Err(Error::NotThisPlayer { .. })
        ));
        assert!(matches!(
            engine.validate(&read, &form, &mv, None, Some(secret)),
            Ok(crate::game::Verdict::Legal { .. })
        ));
        let moves = engine
            .legal_moves(&read, &form, false, Some(secret))
            .unwrap();
        assert_eq!(moves, Caesar::legal_move_texts(&read));
        let replay = engine.replay(&[mv], None, None, Some(&commitments()), &Default::default());
        let (code, field) = refused(replay);
        assert_eq!(
            (code.as_str(), field),
            ("malformed-request", json!("moves"))
        );
    }

    #[test]
    fn an_engine_without_hidden_information_ignores_commitments_and_takes_a_seed() {
        let keys = SealKeys::parse(K1)
            .unwrap()
            .with_opaque_games(vec!["iago".into()]);
        let engine =
            Engine::<Iago>::new(crate::game::default_setup::<Iago>(), Some(Arc::new(keys)));
        assert!(engine.opaque() && !engine.commits());
        let (_, carried) = engine
            .start(None, Some(3), Some(&json!("anything")))
            .unwrap();
        assert!(carried.is_none());
        assert!(
            engine.read_notation(".").is_err(),
            "with keys, no position string"
        );
    }

    #[test]
    fn any_engine_is_the_engine_of_its_game_with_the_setup_given() {
        for (name, kind) in crate::registry::GAMES {
            let engine = AnyEngine::new(kind, None, None).unwrap();
            assert_eq!(engine.kind(), kind);
            let engine_name = crate::with_engine!(&engine, G, _engine => G::NAME);
            assert_eq!(engine_name, name);
        }
        let loose = r#"{"variant": "loose"}"#;
        let engine = AnyEngine::new(GameKind::Iago, None, Some(loose)).unwrap();
        let AnyEngine::Iago(engine) = engine else {
            panic!("not Iago's")
        };
        assert_eq!(
            serde_json::to_value(engine.setup()).unwrap()["variant"],
            "loose"
        );
        let bad = r#"{"variant": "no such"}"#;
        assert!(matches!(
            AnyEngine::new(GameKind::Iago, None, Some(bad)),
            Err(Error::InvalidOptions { .. })
        ));
    }
}
