//! The native module `referee._core`: one `Engine` class whose methods are generic over `Rules`.
//! States, setups and results cross the boundary as plain Python dicts (via serde); errors become the
//! exception classes of `referee.errors`, each with its stable code.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use pythonize::{depythonize, pythonize};
use rayon::prelude::*;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

use crate::error::Error;
use crate::game::{self, Outcome, Rules, Verdict};
use crate::hypnosia::Hypnosia;
use crate::iago::Iago;

/// The games this build knows. Adding a game: a module implementing `Rules` and one arm here.
#[derive(Clone, Copy)]
enum GameKind {
    Iago,
    Hypnosia,
}

const GAMES: [(&str, GameKind); 2] = [
    (Iago::NAME, GameKind::Iago),
    (Hypnosia::NAME, GameKind::Hypnosia),
];

/// Runs `$body` with `$G` standing for the game type of `$kind`.
macro_rules! with_game {
    ($kind:expr, $G:ident => $body:expr) => {
        match $kind {
            GameKind::Iago => {
                type $G = Iago;
                $body
            }
            GameKind::Hypnosia => {
                type $G = Hypnosia;
                $body
            }
        }
    };
}

fn raise(py: Python<'_>, error: &Error) -> PyErr {
    let class_name = match error {
        Error::InvalidOptions { .. } => "InvalidOptions",
        Error::InvalidState { .. } => "InvalidState",
        Error::InvalidBoard { .. } => "InvalidBoard",
        Error::MalformedMove { .. } => "MalformedMove",
        Error::IllegalMove { .. } => "IllegalMove",
        Error::GameOver => "GameOver",
        Error::NotYourTurn { .. } => "NotYourTurn",
    };
    let build = || -> PyResult<PyErr> {
        let class = py.import("referee.errors")?.getattr(class_name)?;
        let data = pythonize(py, &error.data())?;
        Ok(PyErr::from_value(class.call1((error.detail(), data))?))
    };
    build().unwrap_or_else(|failure| failure)
}

/// The reason of a refused move (or bad batch item) as a plain object: code, detail and the facts.
fn reason(error: &Error) -> Value {
    let mut reason = json!({ "code": error.code(), "detail": error.detail() });
    if let (Some(target), Value::Object(data)) = (reason.as_object_mut(), error.data()) {
        target.extend(data);
    }
    reason
}

fn to_py<T: Serialize>(py: Python<'_>, value: &T) -> PyResult<Py<PyAny>> {
    Ok(pythonize(py, value)?.unbind())
}

/// A Python value read with JSON's strict types: through a JSON value, so that (unlike a direct
/// depythonize) `{}` is not a boolean and a string is not a list of characters.
fn from_python<T: DeserializeOwned>(value: &Bound<'_, PyAny>) -> Result<T, String> {
    let json = depythonize::<Value>(value).map_err(|e| e.to_string())?;
    serde_json::from_value(json).map_err(|e| e.to_string())
}

fn setup_of<G: Rules>(py: Python<'_>, setup: Option<&Bound<'_, PyAny>>) -> PyResult<G::Setup> {
    let parsed = match setup {
        None => from_python::<G::Setup>(&PyDict::new(py).into_any()),
        Some(setup) => from_python::<G::Setup>(setup),
    };
    let setup = parsed.map_err(|detail| raise(py, &Error::invalid_options("setup", detail)))?;
    G::check_setup(setup).map_err(|e| raise(py, &e))
}

fn parse_state<G: Rules>(state: &Bound<'_, PyAny>) -> Result<G::Position, Error> {
    let state =
        from_python::<G::State>(state).map_err(|detail| Error::invalid_state("state", detail))?;
    G::from_state(state)
}

fn position_of<G: Rules>(state: &Bound<'_, PyAny>) -> PyResult<G::Position> {
    parse_state::<G>(state).map_err(|e| raise(state.py(), &e))
}

#[derive(Serialize)]
struct Played<S, E> {
    state: S,
    position: String,
    effects: E,
    outcome: Outcome,
}

fn played<G: Rules>(position: &G::Position, effects: G::Effects) -> Played<G::State, G::Effects> {
    Played {
        state: G::to_state(position),
        position: G::position_text(position),
        effects,
        outcome: G::outcome(position),
    }
}

/// One item of a batch, already taken out of Python.
struct BatchItem<P> {
    position: Result<P, Error>,
    mv: Option<String>,
    player: Option<String>,
}

fn batch_item<G: Rules>(item: &Bound<'_, PyAny>) -> BatchItem<G::Position> {
    // A dict lookup, not `get_item`: a missing key must not cost a raised KeyError per item.
    let item = item.cast::<PyDict>().ok();
    let field = |name: &str| {
        item.and_then(|item| item.get_item(name).ok().flatten())
            .filter(|value| !value.is_none())
    };
    let text = |name: &str| field(name).and_then(|value| value.extract::<String>().ok());
    let position = match (item, field("state")) {
        (_, Some(state)) => parse_state::<G>(&state),
        (Some(_), None) => Err(Error::invalid_state("state", "the item has no state")),
        (None, _) => Err(Error::invalid_state(
            "item",
            "an item is a dict with a state, a move and optionally a player",
        )),
    };
    BatchItem {
        position,
        mv: text("move"),
        player: text("player"),
    }
}

fn judge<G: Rules>(item: &BatchItem<G::Position>, with_state: bool) -> Value {
    let position = match &item.position {
        Ok(position) => position,
        Err(error) => return json!({ "error": reason(error) }),
    };
    let Some(mv) = &item.mv else {
        return json!({ "error": reason(&Error::malformed_move("the item has no move string")) });
    };
    match game::validate::<G>(position, mv, item.player.as_deref()) {
        Verdict::Legal { position, effects } if with_state => {
            let mut result = json!(played::<G>(&position, effects));
            result["legal"] = Value::Bool(true);
            result
        }
        Verdict::Legal { .. } => json!({ "legal": true }),
        Verdict::Illegal(error) => json!({ "legal": false, "reason": reason(&error) }),
    }
}

/// A game engine: every operation of one game on plain Python values.
#[pyclass(module = "referee._core", frozen)]
struct Engine {
    kind: GameKind,
}

#[pymethods]
impl Engine {
    #[new]
    fn new(py: Python<'_>, game: &str) -> PyResult<Self> {
        match GAMES.iter().find(|(name, _)| *name == game) {
            Some(&(_, kind)) => Ok(Engine { kind }),
            None => {
                let class = py.import("referee.errors")?.getattr("UnknownGame")?;
                let known: Vec<&str> = GAMES.iter().map(|(name, _)| *name).collect();
                let detail = format!("unknown game {game:?}; known games: {}", known.join(", "));
                Err(PyErr::from_value(class.call1((
                    detail,
                    pythonize(py, &json!({ "known": known }))?,
                ))?))
            }
        }
    }

    #[getter]
    fn name(&self) -> &'static str {
        with_game!(self.kind, G => G::NAME)
    }

    #[getter]
    fn rules_version(&self) -> &'static str {
        with_game!(self.kind, G => G::RULES_VERSION)
    }

    /// Static description of the game: variants, options, board.
    fn info(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        with_game!(self.kind, G => to_py(py, &G::info()))
    }

    /// The setup with every default filled in; raises InvalidOptions.
    #[pyo3(signature = (setup=None))]
    fn check_setup(&self, py: Python<'_>, setup: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        with_game!(self.kind, G => to_py(py, &setup_of::<G>(py, setup)?))
    }

    /// The initial state for a setup (`{"variant": ..., "options": {...}}`).
    #[pyo3(signature = (setup=None, seed=None))]
    fn new_state(
        &self,
        py: Python<'_>,
        setup: Option<&Bound<'_, PyAny>>,
        seed: Option<u64>,
    ) -> PyResult<Py<PyAny>> {
        with_game!(self.kind, G => {
            let position = G::start(&setup_of::<G>(py, setup)?, seed);
            to_py(py, &G::to_state(&position))
        })
    }

    /// Checks an untrusted state and returns it normalised (defaults filled in).
    fn check_state(&self, py: Python<'_>, state: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        with_game!(self.kind, G => to_py(py, &G::to_state(&position_of::<G>(state)?)))
    }

    /// The one-line position notation of a state.
    fn position(&self, state: &Bound<'_, PyAny>) -> PyResult<String> {
        with_game!(self.kind, G => Ok(G::position_text(&position_of::<G>(state)?)))
    }

    /// The state of a position written in notation, for a setup.
    #[pyo3(signature = (text, setup=None))]
    fn parse_position(
        &self,
        py: Python<'_>,
        text: &str,
        setup: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        with_game!(self.kind, G => {
            let setup = setup_of::<G>(py, setup)?;
            let position = G::parse_position(text, &setup).map_err(|e| raise(py, &e))?;
            to_py(py, &G::to_state(&position))
        })
    }

    fn legal_moves(&self, py: Python<'_>, state: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
        with_game!(self.kind, G => {
            let position = position_of::<G>(state)?;
            Ok(py.detach(|| G::legal_moves(&position).iter().map(ToString::to_string).collect()))
        })
    }

    fn outcome(&self, py: Python<'_>, state: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        with_game!(self.kind, G => to_py(py, &G::outcome(&position_of::<G>(state)?)))
    }

    /// Plays a move: `{"state", "position", "effects", "outcome"}`; raises the move's error.
    #[pyo3(signature = (state, r#move, player=None))]
    fn play(
        &self,
        py: Python<'_>,
        state: &Bound<'_, PyAny>,
        r#move: &str,
        player: Option<&str>,
    ) -> PyResult<Py<PyAny>> {
        with_game!(self.kind, G => {
            let position = position_of::<G>(state)?;
            let (next, effects) = game::play_text::<G>(&position, r#move, player).map_err(|e| raise(py, &e))?;
            to_py(py, &played::<G>(&next, effects))
        })
    }

    /// `{"legal": true}` or `{"legal": false, "reason": {...}}`; raises only for a bad state.
    #[pyo3(signature = (state, r#move, player=None))]
    fn validate(
        &self,
        py: Python<'_>,
        state: &Bound<'_, PyAny>,
        r#move: &str,
        player: Option<&str>,
    ) -> PyResult<Py<PyAny>> {
        with_game!(self.kind, G => {
            let item = BatchItem { position: Ok(position_of::<G>(state)?), mv: Some(r#move.to_owned()), player: player.map(str::to_owned) };
            to_py(py, &judge::<G>(&item, false))
        })
    }

    /// Replays a record from the initial position of `setup`.
    #[pyo3(signature = (moves, setup=None, seed=None))]
    fn replay(
        &self,
        py: Python<'_>,
        moves: Vec<String>,
        setup: Option<&Bound<'_, PyAny>>,
        seed: Option<u64>,
    ) -> PyResult<Py<PyAny>> {
        with_game!(self.kind, G => {
            let setup = setup_of::<G>(py, setup)?;
            let replay = py.detach(|| game::replay::<G, _>(&setup, seed, &moves));
            let mut result = json!({
                "legal": replay.failure.is_none(),
                "plies": replay.plies,
                "state": G::to_state(&replay.position),
                "position": G::position_text(&replay.position),
                "outcome": G::outcome(&replay.position),
            });
            if let Some((ply, error)) = &replay.failure {
                let object = result.as_object_mut().expect("object");
                object.insert("ply".into(), json!(ply));
                object.insert("move".into(), json!(moves[*ply]));
                object.insert("reason".into(), reason(error));
            }
            to_py(py, &result)
        })
    }

    /// Validates many `{"state", "move", "player"?}` items in one call, in parallel without the GIL.
    /// Results keep input order; a bad item gets `{"error": ...}` and never fails its neighbours.
    #[pyo3(signature = (items, with_state=false))]
    fn validate_batch(
        &self,
        py: Python<'_>,
        items: &Bound<'_, PyList>,
        with_state: bool,
    ) -> PyResult<Py<PyAny>> {
        with_game!(self.kind, G => {
            let items: Vec<BatchItem<<G as Rules>::Position>> = items.iter().map(|item| batch_item::<G>(&item)).collect();
            let results: Vec<Value> = py.detach(|| items.par_iter().map(|item| judge::<G>(item, with_state)).collect());
            to_py(py, &results)
        })
    }

    /// Number of move sequences of exactly `depth` plies from a state.
    fn perft(&self, py: Python<'_>, state: &Bound<'_, PyAny>, depth: u32) -> PyResult<u64> {
        if depth > 12 {
            return Err(PyValueError::new_err("perft depth is at most 12"));
        }
        with_game!(self.kind, G => {
            let position = position_of::<G>(state)?;
            Ok(py.detach(|| G::perft(&position, depth)))
        })
    }
}

/// The names of the games this build knows.
#[pyfunction]
fn games() -> Vec<&'static str> {
    GAMES.iter().map(|(name, _)| *name).collect()
}

#[pymodule]
fn _core(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<Engine>()?;
    module.add_function(wrap_pyfunction!(games, module)?)?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
