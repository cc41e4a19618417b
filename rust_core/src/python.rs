//! The native module `referee._core`: one `Engine` class whose methods are generic over `Rules`.
//! States, setups and results cross the boundary as plain Python dicts (via serde); errors become the
//! exception classes of `referee.errors`, each with its stable code.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{IntoPyDict, PyBytes, PyString};

use pythonize::{depythonize, pythonize};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use crate::archive;
use crate::batch;
use crate::claims::Claim;
use crate::engine::{self, AnyEngine};
use crate::error::Error;
use crate::game::{self, Rules, StateOf};
use crate::info::Described;
use crate::keys::SealKeys;
use crate::opaque::{Form, COMMITMENTS_FIELD};
use crate::registry::GameKind;
use crate::request;
use crate::search;
use crate::search::Search as GameSearch;
use crate::tally::Tally;
use crate::with_engine;

mod handle;
mod plain;
mod rows;

// Batches allocate and free many small strings from every core at once, where glibc's allocator took
// a third of the time (perf); mimalloc keeps a heap per thread.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay`, which libmimalloc-sys does not name: mimalloc.h's enum has it
/// just before `mi_option_use_numa_nodes`.
const PURGE_DELAY: libmimalloc_sys::mi_option_t = libmimalloc_sys::mi_option_use_numa_nodes - 1;

/// Freed memory goes back to the system at once rather than 10 ms later: mimalloc's deferred purge runs
/// only when the thread that freed allocates again, and threads that judge a batch then sit idle (the
/// service's engine threads, rayon's), so what a batch freed stayed with them: 3-4 MiB a streamed batch.
fn purge_at_once() {
    // SAFETY: setting an option is allowed at any time; purges read it when they run.
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, 0) };
}

/// The exception of `referee.errors` for an error (its class named after its code).
fn raise(py: Python<'_>, error: &Error) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let from_reason = py.import("referee.errors")?.getattr("from_reason")?;
        Ok(PyErr::from_value(
            from_reason.call1((pythonize(py, &error.reason())?,))?,
        ))
    };
    build().unwrap_or_else(|failure| failure)
}

/// A value as Python objects, through JSON text that orjson reads: several times faster than
/// building the objects one by one from Rust, for a big state.
fn to_py<T: Serialize>(py: Python<'_>, value: &T) -> PyResult<Py<PyAny>> {
    static LOADS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let json = serde_json::to_vec(value).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let loads = LOADS.import(py, "orjson", "loads")?;
    Ok(loads.call1((PyBytes::new(py, &json),))?.unbind())
}

/// A Python value as JSON text, with JSON's strict types: orjson writes a dict or a list many times
/// faster than pythonize walks it (a state of plain values is read by `plain` without text, and
/// comes here only when that leaves it); anything orjson does not write (a mapping that is
/// not a dict, say) goes through a JSON value. Either way `{}` is not a boolean and a string is not
/// a list of characters.
fn json_text(value: &Bound<'_, PyAny>) -> Result<String, String> {
    static DUMPS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let dumped = DUMPS
        .import(value.py(), "orjson", "dumps")
        .and_then(|dumps| dumps.call1((value,)))
        .and_then(|json| Ok(json.cast_into::<PyBytes>()?));
    if let Ok(json) = dumped {
        return String::from_utf8(json.as_bytes().to_vec()).map_err(|e| e.to_string());
    }
    let json = depythonize::<Value>(value).map_err(|e| e.to_string())?;
    Ok(json.to_string())
}

fn from_python<T: DeserializeOwned>(value: &Bound<'_, PyAny>) -> Result<T, String> {
    serde_json::from_str(&json_text(value)?).map_err(|e| e.to_string())
}

/// A record's claim given as a dict of `result`, `termination` and `by` (each optional); raises
/// MalformedRequest naming the field at fault.
fn claim_of(py: Python<'_>, claim: Option<&Bound<'_, PyAny>>) -> PyResult<Claim> {
    let Some(claim) = claim.filter(|claim| !claim.is_none()) else {
        return Ok(Claim::default());
    };
    let fields = from_python::<serde_json::Map<String, Value>>(claim)
        .map_err(|detail| raise(py, &Error::malformed_field("body", detail)))?;
    Claim::from_fields(fields)
        .map_err(|(field, message)| raise(py, &Error::malformed_field(field, message)))
}

/// Seal keys, read once (`id:SECRET,...`, see `keys`): the first seals, all verify; `opaque`, the
/// games whose states are answered encrypted (see `opaque`). Raises ValueError naming the entry at
/// fault (or the unknown game), never showing a secret.
#[pyclass(module = "referee._core", frozen, name = "SealKeys")]
struct PySealKeys(Arc<SealKeys>);

#[pymethods]
impl PySealKeys {
    #[new]
    #[pyo3(signature = (text, opaque=Vec::new()))]
    fn new(text: &str, opaque: Vec<String>) -> PyResult<Self> {
        let keys = SealKeys::parse(text).map_err(PyValueError::new_err)?;
        for game in &opaque {
            if GameKind::named(game).is_none() {
                return Err(PyValueError::new_err(format!(
                    "opaque states: {game:?} is not a game ({})",
                    GameKind::names().join(", ")
                )));
            }
        }
        Ok(PySealKeys(Arc::new(keys.with_opaque_games(opaque))))
    }

    /// The games whose states are answered opaque (encrypted).
    #[getter]
    fn opaque(&self) -> Vec<String> {
        self.0.opaque_games().to_vec()
    }

    /// The key ids, the sealing one first.
    #[getter]
    fn ids(&self) -> Vec<String> {
        self.0.ids().into_iter().map(str::to_owned).collect()
    }

    fn __repr__(&self) -> String {
        let ids: Vec<String> = self.0.ids().iter().map(|id| format!("'{id}'")).collect();
        let opaque = self.0.opaque_games();
        if opaque.is_empty() {
            return format!("SealKeys(ids=[{}])", ids.join(", "));
        }
        let opaque: Vec<String> = opaque.iter().map(|game| format!("'{game}'")).collect();
        format!(
            "SealKeys(ids=[{}], opaque=[{}])",
            ids.join(", "),
            opaque.join(", ")
        )
    }
}

/// A game engine: every operation of one game on plain Python values, with a setup of its own (checked
/// once) for the calls that start a game and for states given as position strings. With seal keys,
/// every state it takes must carry a valid seal (so it takes no position string), and every state it
/// answers is sealed. The rules of its modes are the core's (`engine::Engine`): these methods only
/// read Python values and raise Python errors.
#[pyclass(module = "referee._core", frozen)]
struct Engine(AnyEngine);

/// A setup given from Python as JSON text, for the one reader of setups (`game::read_setup`).
fn setup_text(setup: Option<&Bound<'_, PyAny>>) -> Result<Option<String>, Error> {
    setup
        .map(|setup| json_text(setup).map_err(|detail| Error::invalid_options("setup", detail)))
        .transpose()
}

/// The setup given (checked), if any.
fn setup_given<G: Rules>(
    py: Python<'_>,
    setup: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<game::CheckedSetup<G::Setup>>> {
    let read =
        setup_text(setup).and_then(|text| text.as_deref().map(game::read_setup::<G>).transpose());
    read.map_err(|e| raise(py, &e))
}

/// The commitments given, as JSON: a value that is not JSON is refused only where commitments are
/// read (`engine::Engine::commitments`), in committed mode.
fn commitments_given<G: Rules>(
    py: Python<'_>,
    engine: &engine::Engine<G>,
    given: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<Value>> {
    let Some(given) = given.filter(|given| !given.is_none() && engine.commits()) else {
        return Ok(None);
    };
    from_python::<Value>(given)
        .map(Some)
        .map_err(|detail| raise(py, &Error::malformed_field(COMMITMENTS_FIELD, detail)))
}

/// The checked position of an untrusted state in any form, and its form: a dict (its seal first,
/// with keys; or opaque, decrypted), or a position string of the engine's setup (refused with
/// keys: it cannot carry a seal).
fn position_of<G: Rules>(
    engine: &engine::Engine<G>,
    state: &Bound<'_, PyAny>,
) -> PyResult<(G::Position, Form)> {
    let position = match state.cast::<PyString>() {
        Ok(text) => engine.read_notation(&text.to_cow()?),
        Err(_) => match read_plain::<G>(engine, state) {
            Some(read) => read.map(|position| (position, Form::Object)),
            None => json_text(state)
                .map_err(|detail| Error::invalid_state("state", detail))
                .and_then(|json| engine.read_object(&json)),
        },
    };
    position.map_err(|e| raise(state.py(), &e))
}

/// A state dict read straight from its Python objects (see `plain`) where it can be: without
/// keys (a seal is verified over the state's canonical JSON text).
fn read_plain<G: Rules>(
    engine: &engine::Engine<G>,
    state: &Bound<'_, PyAny>,
) -> Option<Result<G::Position, Error>> {
    engine
        .keys()
        .is_none()
        .then(|| plain::read_position::<G>(state))
        .flatten()
}

/// The position of a state for a call that shows all of it (its notation, `perft`): a committed
/// state is refused (`not-this-player`).
fn whole_position_of<G: Rules>(
    engine: &engine::Engine<G>,
    state: &Bound<'_, PyAny>,
) -> PyResult<G::Position> {
    let (position, form) = position_of(engine, state)?;
    engine.whole(&form).map_err(|e| raise(state.py(), &e))?;
    Ok(position)
}

#[pymethods]
impl Engine {
    #[new]
    #[pyo3(signature = (game, setup=None, seal_keys=None))]
    fn new(
        py: Python<'_>,
        game: &str,
        setup: Option<&Bound<'_, PyAny>>,
        seal_keys: Option<&Bound<'_, PySealKeys>>,
    ) -> PyResult<Self> {
        let keys = seal_keys.map(|keys| Arc::clone(&keys.get().0));
        match GameKind::named(game) {
            Some(kind) => setup_text(setup)
                .and_then(|setup| AnyEngine::new(kind, keys, setup.as_deref()))
                .map(Engine)
                .map_err(|e| raise(py, &e)),
            None => Err(raise(py, &Error::unknown_game(game, &GameKind::names()))),
        }
    }

    #[getter]
    fn name(&self) -> &'static str {
        with_engine!(&self.0, G, _engine => G::NAME)
    }

    #[getter]
    fn rules_version(&self) -> &'static str {
        with_engine!(&self.0, G, _engine => G::RULES_VERSION)
    }

    /// Whether the engine has seal keys (checks and seals every state).
    #[getter]
    fn sealed(&self) -> bool {
        with_engine!(&self.0, G, engine => engine.keys().is_some())
    }

    /// Whether the engine answers its states opaque (encrypted; see `SealKeys`).
    #[getter]
    fn opaque(&self) -> bool {
        with_engine!(&self.0, G, engine => engine.opaque())
    }

    /// Whether the engine's states carry the players' commitments (a game with hidden information,
    /// answered opaque): `new_state` then needs `commitments` (and draws its own seed), `replay`,
    /// `position` and `perft` are refused, and every call that reveals a player's information needs
    /// that player's `secret`.
    #[getter]
    fn committed(&self) -> bool {
        with_engine!(&self.0, G, engine => engine.commits())
    }

    /// What adapters (OpenSpiel, PettingZoo) need of the game before any position
    /// (`decisions::Facts`): `min_players`, `max_players`, `max_decisions`, `max_chance_outcomes`,
    /// `chance`, `hidden_information`.
    #[getter]
    fn facts(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        with_engine!(&self.0, G, _engine => to_py(py, &crate::decisions::facts::<G>()))
    }

    /// Static description of the game: variants, options, board.
    fn info(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        with_engine!(&self.0, G, _engine => to_py(py, &G::info().to_json()))
    }

    /// The setup with every default filled in (the engine's own when none is given); raises
    /// InvalidOptions.
    #[pyo3(signature = (setup=None))]
    fn check_setup(&self, py: Python<'_>, setup: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        with_engine!(&self.0, G, engine => match setup_given::<G>(py, setup)? {
            Some(setup) => to_py(py, &setup),
            None => to_py(py, engine.setup()),
        })
    }

    /// The initial state for a setup (`{"variant": ..., "options": {...}}`); `commitments`
    /// (`{player: SHA-256 hex of the player's secret}`) when the engine is `committed`.
    #[pyo3(signature = (setup=None, seed=None, commitments=None))]
    fn new_state(
        &self,
        py: Python<'_>,
        setup: Option<&Bound<'_, PyAny>>,
        seed: Option<u64>,
        commitments: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        with_engine!(&self.0, G, engine => {
            let setup = setup_given::<G>(py, setup)?;
            let commitments = commitments_given(py, engine, commitments)?;
            let (position, commitments) = engine
                .start(setup, seed, commitments.as_ref())
                .map_err(|error| raise(py, &error))?;
            to_py(py, &engine.stamp(&position, commitments.as_ref()))
        })
    }

    /// Checks an untrusted state and returns it normalised (defaults filled in; sealed again with
    /// keys).
    fn check_state(&self, py: Python<'_>, state: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        with_engine!(&self.0, G, engine => {
            let (position, form) = position_of(engine, state)?;
            to_py(py, &engine.stamp(&position, form.commitments()))
        })
    }

    /// The one-line position notation of a state.
    fn position(&self, state: &Bound<'_, PyAny>) -> PyResult<String> {
        with_engine!(&self.0, G, engine => Ok(G::position_text(&whole_position_of(engine, state)?)))
    }

    /// The state of a position written in notation, for a setup. Never sealed: notation is untrusted.
    #[pyo3(signature = (text, setup=None))]
    fn parse_position(
        &self,
        py: Python<'_>,
        text: &str,
        setup: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        with_engine!(&self.0, G, engine => {
            let setup = setup_given::<G>(py, setup)?;
            let position = engine
                .parse_position(text, setup.as_ref())
                .map_err(|e| raise(py, &e))?;
            to_py(py, &StateOf::<G>(&position))
        })
    }

    /// The legal moves in notation; `compact` asks for the game's compact form (Isaac: one entry a
    /// removable piece with its range of advances); `secret`: the mover's, for a committed state.
    #[pyo3(signature = (state, compact=false, secret=None))]
    fn legal_moves(
        &self,
        py: Python<'_>,
        state: &Bound<'_, PyAny>,
        compact: bool,
        secret: Option<&str>,
    ) -> PyResult<Vec<String>> {
        with_engine!(&self.0, G, engine => {
            let (position, form) = position_of(engine, state)?;
            py.detach(|| engine.legal_moves(&position, &form, compact, secret))
                .map_err(|e| raise(py, &e))
        })
    }

    fn outcome(&self, py: Python<'_>, state: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        with_engine!(&self.0, G, engine => to_py(py, &G::outcome(&position_of(engine, state)?.0)))
    }

    /// Plays a move: `{"state", "position", "effects", "outcome"}`, the state in the form it was
    /// given in (as over HTTP and in batches); raises the move's error. `secret`: the mover's, for a
    /// committed state.
    #[pyo3(signature = (state, r#move, player=None, secret=None))]
    fn play(
        &self,
        py: Python<'_>,
        state: &Bound<'_, PyAny>,
        r#move: &str,
        player: Option<&str>,
        secret: Option<&str>,
    ) -> PyResult<Py<PyAny>> {
        with_engine!(&self.0, G, engine => {
            let (position, form) = position_of(engine, state)?;
            let (next, effects) = engine
                .play(&position, &form, r#move, player, secret)
                .map_err(|e| raise(py, &e))?;
            to_py(py, &engine.played(&position, &next, effects, &form))
        })
    }

    /// `{"legal": true}` or `{"legal": false, "reason": {...}}`; raises only for a bad state (or,
    /// for a committed state, without the mover's `secret`).
    #[pyo3(signature = (state, r#move, player=None, secret=None))]
    fn validate(
        &self,
        py: Python<'_>,
        state: &Bound<'_, PyAny>,
        r#move: &str,
        player: Option<&str>,
        secret: Option<&str>,
    ) -> PyResult<Py<PyAny>> {
        with_engine!(&self.0, G, engine => {
            let (position, form) = position_of(engine, state)?;
            let verdict = engine
                .validate(&position, &form, r#move, player, secret)
                .map_err(|e| raise(py, &e))?;
            to_py(py, &request::Judged::from(verdict))
        })
    }

    /// A `play` request body (`{"state", "move", "player"?}` as JSON bytes) answered as JSON bytes: the
    /// whole request in one call, without a Python object. Raises MalformedJson, MalformedRequest (the
    /// envelope, checked as a batch item's), or the error of the state or the move. The GIL is
    /// released while it works (the service runs a big body's call on a thread of its own).
    fn play_json<'py>(&self, py: Python<'py>, body: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
        let answer = with_engine!(&self.0, G, engine => py.detach(|| request::answer_request::<G>(body, engine, true)));
        answer
            .map(|bytes| PyBytes::new(py, &bytes))
            .map_err(|error| raise(py, &error))
    }

    /// A `validate` request body answered as JSON bytes, as `play_json`; an illegal move is a verdict.
    fn validate_json<'py>(&self, py: Python<'py>, body: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
        let answer = with_engine!(&self.0, G, engine => py.detach(|| request::answer_request::<G>(body, engine, false)));
        answer
            .map(|bytes| PyBytes::new(py, &bytes))
            .map_err(|error| raise(py, &error))
    }

    /// A `replay` request body (a game record as archives hold it, as JSON bytes) answered as JSON
    /// bytes: the record read by the archives' reader, its envelope checked as the service's schema
    /// checks it, at most `max_moves` moves, then replayed (see `record`); no Python object is made
    /// of it, and the GIL is released while it works. Raises MalformedJson, MalformedRequest,
    /// InvalidOptions, or the replay's refusal.
    fn replay_json<'py>(
        &self,
        py: Python<'py>,
        body: &[u8],
        max_moves: usize,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let answer = with_engine!(&self.0, G, engine => py.detach(|| crate::replay::answer_replay::<G>(engine, body, max_moves)));
        answer
            .map(|bytes| PyBytes::new(py, &bytes))
            .map_err(|error| raise(py, &error))
    }

    /// Replays a record from the initial position of `setup`, and judges its `claim` (a dict of
    /// `result`, `termination` and `by`, each optional: see `claims`); refused when the engine is
    /// `committed`. A malformed claim raises MalformedRequest naming its field.
    #[pyo3(signature = (moves, setup=None, seed=None, commitments=None, claim=None))]
    fn replay(
        &self,
        py: Python<'_>,
        moves: Vec<String>,
        setup: Option<&Bound<'_, PyAny>>,
        seed: Option<u64>,
        commitments: Option<&Bound<'_, PyAny>>,
        claim: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        with_engine!(&self.0, G, engine => {
            engine.replayable().map_err(|error| raise(py, &error))?;
            let setup = setup_given::<G>(py, setup)?;
            let commitments = commitments_given(py, engine, commitments)?;
            let claim = claim_of(py, claim)?;
            let summary = py.detach(|| engine.replay(&moves, setup, seed, commitments.as_ref(), &claim));
            to_py(py, &summary.map_err(|error| raise(py, &error))?)
        })
    }

    /// Validates NDJSON items given as bytes (one `{"state", "move", "player"?}` a line), parsing and
    /// judging in parallel without the GIL. Returns the NDJSON results of the lines before the first
    /// line that is not JSON, their count, that line's `(number, detail)` if there is one, and
    /// where the next call starts: the lines of `data` from byte `start` are judged, at most
    /// `max_lines` of them (the rest is left for another call). `compact`: a result equal to the
    /// last one written in full is `{"index", "same_as"}`.
    #[pyo3(signature = (data, with_state=false, first_index=0, compact=false, max_lines=usize::MAX, start=0))]
    #[allow(clippy::too_many_arguments)] // Python's keyword arguments
    fn validate_lines<'py>(
        &self,
        py: Python<'py>,
        data: &[u8],
        with_state: bool,
        first_index: usize,
        compact: bool,
        max_lines: usize,
        start: usize,
    ) -> (Bound<'py, PyBytes>, usize, Option<(usize, String)>, usize) {
        let answer = batch::LinesAnswer {
            with_state,
            first_index,
            compact,
            max_lines,
        };
        let data = data.get(start..).unwrap_or_default();
        let output = with_engine!(&self.0, G, engine => py.detach(|| batch::validate_lines::<G>(data, engine, answer)));
        let malformed = output.malformed.map(|m| (m.line, m.detail));
        let next = start + output.consumed;
        (
            PyBytes::new(py, &output.ndjson),
            output.items,
            malformed,
            next,
        )
    }

    /// Validates a JSON array of at most `max_items` items given as bytes; the results as a JSON
    /// array (bytes) and their count. Raises MalformedJson when the input (or an item) is not JSON,
    /// MalformedRequest when it is not an array or has too many items.
    #[pyo3(signature = (data, with_state=false, max_items=usize::MAX))]
    fn validate_array<'py>(
        &self,
        py: Python<'py>,
        data: &[u8],
        with_state: bool,
        max_items: usize,
    ) -> PyResult<(Bound<'py, PyBytes>, usize)> {
        let output = with_engine!(&self.0, G, engine => py.detach(|| batch::validate_array::<G>(data, engine, with_state, max_items)));
        let results = output.map_err(|error| raise(py, &error))?;
        let bytes = PyBytes::new_with(py, results.byte_len(), |out| {
            results.write_into(out);
            Ok(())
        })?;
        Ok((bytes, results.items))
    }

    /// The engine's search for the player to move (`player`, when given, must be it; `secret`, the
    /// mover's, for a committed state), checked and ready to `run`: `POST .../suggest` (see
    /// `search`). `level` (1 to 8) or `simulations`, `think_ms`, `seed`; the bounds of whoever asks
    /// (`max_simulations`, `max_think_ms`; the tree's bytes are `run`'s). Raises what the engine
    /// refuses of the request (the state, the player, a budget out of range) without thinking.
    #[pyo3(signature = (state, player=None, secret=None, *, level=None, simulations=None, think_ms=None,
                        seed=None, max_simulations=u32::MAX, max_think_ms=u32::MAX))]
    #[allow(clippy::too_many_arguments)]
    fn search(
        &self,
        py: Python<'_>,
        state: &Bound<'_, PyAny>,
        player: Option<&str>,
        secret: Option<&str>,
        level: Option<u64>,
        simulations: Option<u64>,
        think_ms: Option<u64>,
        seed: Option<u64>,
        max_simulations: u32,
        max_think_ms: u32,
    ) -> PyResult<Search> {
        let asked = search::Asked {
            level,
            simulations,
            think_ms,
            seed,
            max_simulations,
            max_think_ms,
            ..search::Asked::default()
        };
        with_engine!(&self.0, G, engine => {
            let (position, form) = position_of(engine, state)?;
            let search = engine.search(&position, &form, player, secret, &asked);
            Ok(Search(AnySearch::from(search.map_err(|e| raise(py, &e))?)))
        })
    }

    /// What `player` may see of a state (games with hidden information hide the rest), or the whole
    /// state without a player; raises UnknownPlayer for a name that is not a player of the game, and
    /// NotThisPlayer for a committed state without `player`'s `secret` (or without a player: a
    /// committed state is shown to the player whose secret is given, never whole). A view is never
    /// sealed: it is not a state to send back.
    #[pyo3(signature = (state, player=None, secret=None))]
    fn view(
        &self,
        py: Python<'_>,
        state: &Bound<'_, PyAny>,
        player: Option<&str>,
        secret: Option<&str>,
    ) -> PyResult<Py<PyAny>> {
        with_engine!(&self.0, G, engine => {
            let (position, form) = position_of(engine, state)?;
            let view = engine.view(&position, &form, player, secret).map_err(|e| raise(py, &e))?;
            to_py(py, &view)
        })
    }

    /// What a picture of a state shows (see `referee.pictures` and `engine::Engine::scene`):
    /// `{"shown", "viewer", "outcome", "effects", "moves"}`.
    #[pyo3(signature = (state, r#move=None, player=None, legal=false, secret=None))]
    fn scene(
        &self,
        py: Python<'_>,
        state: &Bound<'_, PyAny>,
        r#move: Option<&str>,
        player: Option<&str>,
        legal: bool,
        secret: Option<&str>,
    ) -> PyResult<Py<PyAny>> {
        with_engine!(&self.0, G, engine => {
            let (position, form) = position_of(engine, state)?;
            let scene = engine
                .scene(position, &form, r#move, player, legal, secret)
                .map_err(|e| raise(py, &e))?;
            to_py(py, &scene)
        })
    }

    /// Number of move sequences of exactly `depth` plies from a state.
    fn perft(&self, py: Python<'_>, state: &Bound<'_, PyAny>, depth: u32) -> PyResult<u64> {
        if depth > 12 {
            return Err(PyValueError::new_err("perft depth is at most 12"));
        }
        with_engine!(&self.0, G, engine => {
            let position = whole_position_of(engine, state)?;
            Ok(py.detach(|| G::perft(&position, depth)))
        })
    }
}

/// The names of the games this build knows.
#[pyfunction]
fn games() -> Vec<&'static str> {
    GameKind::names()
}

/// Replays game records given as NDJSON bytes (any mix of games), in parallel without the GIL:
/// NDJSON results in input order, numbered from `first_record`, with the fields `keep` names and,
/// with `positions`, every position of a legal record; their counts (`archive::Counts`); and, with
/// `tally`, what a report shows of them (`tally::Tally`). A record longer than `max_record_bytes`
/// is its own `malformed-record`, unread. Raises ValueError for a field to keep that results already
/// have.
#[pyfunction]
#[pyo3(signature = (data, first_record=1, keep=Vec::new(), positions=false, tally=false, max_record_bytes=None))]
fn replay_records<'py>(
    py: Python<'py>,
    data: &[u8],
    first_record: usize,
    keep: Vec<String>,
    positions: bool,
    tally: bool,
    max_record_bytes: Option<usize>,
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyAny>, Option<NativeTally>)> {
    let options = archive::Options::new(keep, positions, tally)
        .map_err(PyValueError::new_err)?
        .bounded(max_record_bytes);
    let output = py.detach(|| archive::replay_records(data, first_record, &options));
    let bytes = PyBytes::new(py, &output.ndjson);
    Ok((
        bytes,
        pythonize(py, &output.counts)?,
        output.tally.map(NativeTally),
    ))
}

/// What a report shows of records (`tally::Tally`), as `replay_records` counts it: merged across chunks
/// and partitions natively, read as Python values (`as_dict`) once, for the report and the manifest.
/// Pickled as its JSON (Dask sends it from a worker).
#[pyclass(name = "Tally", module = "referee._core")]
struct NativeTally(Tally);

#[pymethods]
impl NativeTally {
    /// A tally from its JSON (`json`), or the tally of no records.
    #[new]
    #[pyo3(signature = (json=None))]
    fn new(json: Option<&[u8]>) -> PyResult<Self> {
        match json {
            None => Ok(NativeTally(Tally::default())),
            Some(json) => serde_json::from_slice(json)
                .map(NativeTally)
                .map_err(|e| PyValueError::new_err(format!("not a tally: {e}"))),
        }
    }

    /// The tally of a dict `as_dict` gave.
    #[staticmethod]
    fn from_dict(value: &Bound<'_, PyAny>) -> PyResult<Self> {
        depythonize::<Tally>(value)
            .map(NativeTally)
            .map_err(|e| PyValueError::new_err(format!("not a tally: {e}")))
    }

    /// Adds the tally of other records to this one.
    fn merge(&mut self, other: &NativeTally) {
        self.0.merge(other.0.clone());
    }

    /// The tally as Python values (its histograms keyed by numbers, as `pythonize` keeps them).
    fn as_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(pythonize(py, &self.0)?)
    }

    fn json<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(
            py,
            &serde_json::to_vec(&self.0).expect("a tally serializes"),
        )
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        let json = slf.borrow().json(slf.py());
        Ok((slf.get_type().into_any(), (json,)))
    }
}

/// The most a request body read as Python objects (`loads`) may become, as `json::python_bytes`
/// estimates it from above: twice the estimate of the largest state of any game (the largest Hypnosia
/// board's: 85 KB of JSON, estimated at 2 MiB of objects, 1 MiB in fact), so that no body becomes more
/// than this, and none holds the GIL for more than a few milliseconds while its objects are made.
pub const MAX_PYTHON_BYTES: usize = 4 << 20;

/// A request body read as JSON by the same rules as `play_json` (serde_json: numbers that fit a
/// double, no lone surrogate, at most 128 levels of nesting, no key twice in an object), so that
/// every route takes the same JSON; raises MalformedJson, or PayloadTooLarge for a body that would
/// become more than MAX_PYTHON_BYTES of Python objects. The text is checked and measured without the
/// GIL; only then does orjson make the objects (its reading of what serde_json takes is the same).
#[pyfunction]
fn loads(py: Python<'_>, data: &[u8]) -> PyResult<Py<PyAny>> {
    static LOADS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let checked = py.detach(|| {
        match crate::json::python_bytes(data, MAX_PYTHON_BYTES) {
            Err(detail) => return Err(Error::not_json(detail)),
            Ok(None) => return Err(too_many_objects(data.len())),
            Ok(Some(_)) => {}
        }
        let text = std::str::from_utf8(data).expect("JSON text serde_json read is UTF-8");
        crate::json::fault(text).map_or(Ok(()), |detail| Err(Error::not_json(detail)))
    });
    checked.map_err(|error| raise(py, &error))?;
    let loads = LOADS.import(py, "orjson", "loads")?;
    Ok(loads.call1((PyBytes::new(py, data),))?.unbind())
}

/// The refusal of a body that would become more than MAX_PYTHON_BYTES of Python objects.
fn too_many_objects(body_bytes: usize) -> Error {
    let detail = format!(
        "the body's {body_bytes} bytes of JSON would become more than {MAX_PYTHON_BYTES} bytes of \
         objects (its values are too many or too long); the largest state of any game takes half \
         of that"
    );
    Error::payload_too_large(detail, MAX_PYTHON_BYTES)
}

/// Sets the most bytes of compiled Hypnosia boards the process keeps (64 MiB until set); the oldest
/// go first beyond it.
#[pyfunction]
fn set_board_cache_bytes(bytes: usize) {
    crate::hypnosia::set_cache_bytes(bytes);
}

/// The bytes of compiled Hypnosia boards the process keeps now, and its bound.
#[pyfunction]
fn board_cache_bytes() -> (usize, usize) {
    crate::hypnosia::cache_bytes()
}

/// The JSON Schemas of states, setups, effects and outcomes, derived from the Rust types:
/// `{"iago": {"State": ..., "Setup": ..., "Effects": ...}, ..., "common": {"Outcome": ...}}`, every
/// `$ref` pointing at `#/components/schemas/<Prefix><Name>` (see `schemas::all`).
#[pyfunction]
fn json_schemas(py: Python<'_>) -> PyResult<Py<PyAny>> {
    to_py(py, &crate::schemas::all())
}

/// The refusal of a name that is no game (`referee.errors.UnknownGame`), as every entry point words
/// it: the service's routes answer it too.
#[pyfunction]
fn unknown_game(py: Python<'_>, game: &str) -> Py<PyAny> {
    raise(py, &Error::unknown_game(game, &GameKind::names()))
        .into_value(py)
        .into_any()
}

/// The refusal of a request's envelope whose `(field, message)`s are at fault
/// (`referee.errors.MalformedRequest`), worded as the engine's own checks word it: the service's
/// schemas refuse with it.
#[pyfunction]
fn malformed_request(py: Python<'_>, errors: Vec<(String, String)>) -> Py<PyAny> {
    raise(py, &Error::malformed_request(errors))
        .into_value(py)
        .into_any()
}

crate::games!(enum_of AnySearch of GameSearch);

/// A search checked and ready to run (`Engine.search`): its `simulations` at most, and `run`.
#[pyclass(module = "referee._core", name = "Search", frozen)]
struct Search(AnySearch);

#[pymethods]
impl Search {
    /// The simulations it runs at most.
    #[getter]
    fn simulations(&self) -> u32 {
        crate::games!(match_enum AnySearch, &self.0, G, search => search.limits.simulations)
    }

    /// Thinks, the GIL released, its tree within `memory` bytes (64 MiB when not given), until a
    /// raised `stop`: the answer of `POST .../suggest`.
    #[pyo3(signature = (*, memory=None, stop=None))]
    fn run(
        &self,
        py: Python<'_>,
        memory: Option<usize>,
        stop: Option<&Stop>,
    ) -> PyResult<Py<PyAny>> {
        let stop = stop.map_or_else(Arc::default, |stop| stop.0.clone());
        crate::games!(match_enum AnySearch, &self.0, G, search => {
            let found = py.detach(|| search.run(memory, &stop)).map_err(|e| raise(py, &e))?;
            to_py(py, &found)
        })
    }
}

/// A flag that ends a search at its next look (`Search.run`'s `stop`): raised by whoever no
/// longer needs its answer (a client gone), from any thread.
#[pyclass(module = "referee._core", name = "Stop", frozen)]
#[derive(Default)]
struct Stop(Arc<AtomicBool>);

#[pymethods]
impl Stop {
    #[new]
    fn new() -> Self {
        Stop::default()
    }

    /// Ends the search (or the next one given this flag).
    fn set(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

#[pymodule]
fn _core(module: &Bound<'_, PyModule>) -> PyResult<()> {
    purge_at_once();
    module.add_class::<Engine>()?;
    module.add_class::<Search>()?;
    module.add_class::<PySealKeys>()?;
    module.add_class::<handle::PyPosition>()?;
    module.add_function(wrap_pyfunction!(handle::start, module)?)?;
    module.add_function(wrap_pyfunction!(handle::load, module)?)?;
    module.add_function(wrap_pyfunction!(handle::action_space, module)?)?;
    module.add_function(wrap_pyfunction!(games, module)?)?;
    module.add_function(wrap_pyfunction!(replay_records, module)?)?;
    module.add_function(wrap_pyfunction!(rows::replay_rows, module)?)?;
    module.add_class::<NativeTally>()?;
    module.add_class::<Stop>()?;
    // The simulations of each level of the engine's search, level 1 first, and the default level.
    module.add("LEVELS", crate::search::LEVELS.to_vec())?;
    module.add("DEFAULT_LEVEL", crate::search::DEFAULT_LEVEL)?;
    module.add(
        "TREE_BYTES_PER_SIMULATION",
        crate::search::TREE_BYTES_PER_SIMULATION,
    )?;
    module.add("RESULT_FIELDS", archive::RESULT_FIELDS.to_vec())?;
    module.add_function(wrap_pyfunction!(loads, module)?)?;
    module.add_function(wrap_pyfunction!(json_schemas, module)?)?;
    module.add_function(wrap_pyfunction!(set_board_cache_bytes, module)?)?;
    module.add_function(wrap_pyfunction!(board_cache_bytes, module)?)?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // A player's secret's length bounds, the one home of the service's schemas and `referee.commitment`.
    module.add("MIN_SECRET_CHARS", crate::opaque::MIN_SECRET_CHARS)?;
    module.add("MAX_SECRET_CHARS", crate::opaque::MAX_SECRET_CHARS)?;
    // What the service's envelopes (`referee.http.schemas`) and its contract share with the engine's own
    // checks and schemas: their one home.
    module.add("MAX_MOVE_CHARS", crate::request::MAX_MOVE_CHARS)?;
    module.add("MAX_PLAYER_CHARS", crate::request::MAX_PLAYER_CHARS)?;
    module.add("MAX_COMMITMENTS", crate::error::message::MAX_COMMITMENTS)?;
    module.add("MAX_SEED", crate::error::message::MAX_SEED)?;
    module.add(
        "SCHEMA_MESSAGES",
        crate::error::message::ALL.into_py_dict(module.py())?,
    )?;
    // Every code of the engine's refusals: a test holds them to `referee.codes`.
    module.add("ERROR_CODES", Error::CODES.to_vec())?;
    // Every code of why a claim disagrees: a test holds them to `referee.codes.CLAIM_CODES`.
    module.add("CLAIM_CODES", crate::claims::ClaimCode::CODES.to_vec())?;
    module.add_function(wrap_pyfunction!(unknown_game, module)?)?;
    module.add_function(wrap_pyfunction!(malformed_request, module)?)?;
    module.add(
        "SCHEMA_PREFIXES",
        crate::schemas::games().into_py_dict(module.py())?,
    )?;
    Ok(())
}
