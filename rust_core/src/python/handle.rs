//! `referee.Position`: the bindings of the native position handle for bots, search and learning
//! (`walker::Walker`, which keeps the checked position in Rust, so that a move costs what the engine
//! costs, not a state read and written through Python): Python values in, Python errors out.

use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyByteArray, PyBytes, PyList};
use serde_json::Value;
use std::sync::atomic::AtomicBool;

use super::{raise, whole_position_of, Engine};
use crate::decisions;
use crate::error::Error;
use crate::game::Rules;
use crate::search;
use crate::walker::Walker;
use crate::with_engine;

// A handle of any game: one variant a game of the list (`registry::games!`).
crate::games!(enum_of AnyWalker of Walker);

/// Runs `$body` with `$walker` bound to the `Walker` inside `$any` (an `AnyWalker`): the list's
/// dispatch (`registry::games!`), as `with_engine!` is the engines'.
macro_rules! with_walker {
    ($any:expr, $walker:ident => $body:expr) => {
        crate::games!(match_enum AnyWalker, $any, G, $walker => $body)
    };
}

/// A JSON text as Python objects (orjson, as every answer).
fn loads(py: Python<'_>, json: &[u8]) -> PyResult<Py<PyAny>> {
    static LOADS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let loads = LOADS.import(py, "orjson", "loads")?;
    Ok(loads.call1((PyBytes::new(py, json),))?.unbind())
}

fn value_to_py(py: Python<'_>, value: &Value) -> PyResult<Py<PyAny>> {
    loads(py, &serde_json::to_vec(value).expect("a value serializes"))
}

/// Python ints of the ids below this are made once and shared (Isaac's 44,401 and the default
/// Hypnosia board's 1,846 included): a list of hundreds of legal ids then costs a reference each,
/// not an allocation each.
const SHARED_IDS: usize = 50_000;

/// A list of ids as Python ints.
fn ids_list<'py>(py: Python<'py>, ids: &[usize]) -> PyResult<Bound<'py, PyList>> {
    static INTS: PyOnceLock<Vec<Py<PyAny>>> = PyOnceLock::new();
    let ints = INTS.get_or_try_init(py, || {
        (0..SHARED_IDS)
            .map(|id| Ok(id.into_pyobject(py)?.into_any().unbind()))
            .collect::<PyResult<Vec<_>>>()
    })?;
    let items: Vec<Bound<'py, PyAny>> = ids
        .iter()
        .map(|&id| match ints.get(id) {
            Some(int) => Ok(int.bind(py).clone()),
            None => Ok(id.into_pyobject(py)?.into_any()),
        })
        .collect::<PyResult<_>>()?;
    PyList::new(py, items)
}

/// numpy, when it is installed.
fn numpy(py: Python<'_>) -> Option<&Bound<'_, PyAny>> {
    static NUMPY: PyOnceLock<Option<Py<PyAny>>> = PyOnceLock::new();
    NUMPY
        .get_or_init(py, || {
            py.import("numpy")
                .ok()
                .map(|module| module.into_any().unbind())
        })
        .as_ref()
        .map(|module| module.bind(py))
}

/// A native position handle (`game.start()`, `game.load(state)`): see the README, "Bots and
/// learning". A move given as text is played as `game.play` plays it (a whole move); an action id is
/// one decision of the game's action space.
#[pyclass(module = "referee._core", name = "Position")]
pub struct PyPosition(AnyWalker);

impl PyPosition {
    fn raised<T>(&self, py: Python<'_>, result: Result<T, Error>) -> PyResult<T> {
        result.map_err(|error| raise(py, &error))
    }
}

#[pymethods]
impl PyPosition {
    /// The game's players, in player-number order (Hypnosia: the seated colours, by seat).
    #[getter]
    fn players(&self) -> Vec<&'static str> {
        with_walker!(&self.0, walker => walker.players())
    }

    /// The player to move (at a chance node, the player whose turn it is); None once over.
    #[getter]
    fn to_move(&self) -> Option<&'static str> {
        with_walker!(&self.0, walker => walker.to_move())
    }

    /// Decisions and moves pushed since the handle was made (or copied without its stack).
    #[getter]
    fn ply(&self) -> usize {
        with_walker!(&self.0, walker => walker.plies())
    }

    /// How many action ids this position's setup has.
    #[getter]
    fn num_actions(&self) -> usize {
        with_walker!(&self.0, walker => walker.num_actions())
    }

    /// The id of one decision written in notation; raises MalformedMove.
    fn action_of(&self, py: Python<'_>, r#move: &str) -> PyResult<usize> {
        self.raised(
            py,
            with_walker!(&self.0, walker => walker.action_of(r#move)),
        )
    }

    /// The notation of an action id; raises MalformedMove.
    fn move_of(&self, py: Python<'_>, action: usize) -> PyResult<String> {
        self.raised(py, with_walker!(&self.0, walker => walker.move_of(action)))
    }

    /// The legal moves in notation: `game.legal_moves`' list (inside a turn decided in part by
    /// action ids, the legal decisions' notation).
    fn legal_moves(&self) -> Vec<String> {
        with_walker!(&self.0, walker => walker.legal_moves())
    }

    /// The legal action ids, ascending (the chance outcomes at a chance node).
    fn legal_actions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        ids_list(py, &with_walker!(&self.0, walker => walker.legal_actions()))
    }

    /// One byte an action id, 1 where it is legal: a numpy int8 array when numpy is installed, else
    /// bytes.
    fn legal_action_mask(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let mut mask = vec![0u8; with_walker!(&self.0, walker => walker.num_actions())];
        for action in with_walker!(&self.0, walker => walker.legal_actions()) {
            mask[action] = 1;
        }
        match numpy(py) {
            Some(np) => {
                let buffer = PyByteArray::new(py, &mask);
                Ok(np.call_method1("frombuffer", (buffer, "int8"))?.unbind())
            }
            None => Ok(PyBytes::new(py, &mask).into_any().unbind()),
        }
    }

    /// Plays a move (notation, as `game.play` plays it) or takes a decision (an action id), in place;
    /// raises the move's error (IllegalMove, MalformedMove, GameOver) and leaves the position as it was.
    fn push(&mut self, py: Python<'_>, r#move: &Bound<'_, PyAny>) -> PyResult<()> {
        let result = match r#move.extract::<usize>() {
            Ok(action) => with_walker!(&mut self.0, walker => walker.push_action(action)),
            Err(_) => match r#move.extract::<&str>() {
                Ok(text) => with_walker!(&mut self.0, walker => walker.push_move(text)),
                Err(_) => Err(Error::malformed_move(
                    "a move is its notation (a str) or an action id (an int from 0)",
                )),
            },
        };
        self.raised(py, result)
    }

    /// Takes back the last push exactly; raises IndexError when there is none.
    fn pop(&mut self) -> PyResult<()> {
        if with_walker!(&mut self.0, walker => walker.pop()) {
            return Ok(());
        }
        Err(PyIndexError::new_err(
            "pop from a position with nothing pushed",
        ))
    }

    /// An independent copy; `stack=False` leaves the pushes behind (cheaper; `pop` then has nothing).
    #[pyo3(signature = (stack=true))]
    fn copy(&self, stack: bool) -> PyPosition {
        PyPosition(with_walker!(&self.0, walker => AnyWalker::from(walker.copy(stack))))
    }

    fn __copy__(&self) -> PyPosition {
        self.copy(true)
    }

    /// A copy, for `copy.deepcopy` (OpenSpiel clones a Python game's state that way).
    fn __deepcopy__(&self, memo: &Bound<'_, PyAny>) -> PyPosition {
        let _ = memo; // nothing in a position refers back to Python objects
        self.copy(true)
    }

    /// The moves completed since the handle was made, in notation (a record `referee validate` replays).
    fn history(&self) -> Vec<String> {
        with_walker!(&self.0, walker => walker.history())
    }

    /// No decision of a turn is pending (Caesar!: the turn's placement, choices and draws are all
    /// taken or none is); `state()` and `position()` show the position at the turn's start.
    fn at_turn_start(&self) -> bool {
        with_walker!(&self.0, walker => walker.at_turn_start())
    }

    fn is_over(&self) -> bool {
        with_walker!(&self.0, walker => walker.is_over())
    }

    /// Whether chance takes the next decision (Hypnosia's roll, Caesar!'s draws).
    fn is_chance(&self) -> bool {
        with_walker!(&self.0, walker => walker.is_chance())
    }

    /// At a chance node, `[(move, probability)]` (`ids=True`: action ids instead of moves), summing
    /// to 1; else empty.
    #[pyo3(signature = (ids=false))]
    fn chance_outcomes(&self, py: Python<'_>, ids: bool) -> PyResult<Py<PyAny>> {
        let outcomes = with_walker!(&self.0, walker => walker.chance_outcomes());
        if ids {
            return Ok(outcomes.into_pyobject(py)?.into_any().unbind());
        }
        let named: Result<Vec<(String, f64)>, Error> = outcomes
            .into_iter()
            .map(|(action, p)| {
                with_walker!(&self.0, walker => walker.move_of(action)).map(|text| (text, p))
            })
            .collect();
        Ok(self
            .raised(py, named)?
            .into_pyobject(py)?
            .into_any()
            .unbind())
    }

    /// At a chance node, the action id of an outcome chosen by its probabilities with one
    /// `rng.random()` (as `random.choices` would); else a `ValueError`.
    fn sample_chance(&self, rng: &Bound<'_, PyAny>) -> PyResult<usize> {
        let outcomes = with_walker!(&self.0, walker => walker.chance_outcomes());
        if outcomes.is_empty() {
            return Err(PyValueError::new_err("not a chance node"));
        }
        let point: f64 = rng.call_method0("random")?.extract()?;
        Ok(decisions::sample_at(&outcomes, point))
    }

    /// Status, player to move, scores, and the winner once over (as `game.outcome`).
    fn outcome(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        value_to_py(py, &with_walker!(&self.0, walker => walker.outcome()))
    }

    /// Per player (in `players` order): 0 while the game goes on; then +1 for the winner, −1 for the
    /// other (Hypnosia: by rank, +1 first to −1 last, ties sharing), summing to 0.
    fn returns(&self) -> Vec<f64> {
        with_walker!(&self.0, walker => walker.returns())
    }

    /// The JSON state, as the stateless API answers it (sealed, or opaque, as the game's keys say).
    fn state(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        loads(py, &with_walker!(&self.0, walker => walker.state()))
    }

    /// The position notation.
    fn position(&self) -> String {
        with_walker!(&self.0, walker => walker.position())
    }

    /// A 64-bit key, equal for equal positions (with equal pending decisions), the same in every process.
    fn hash(&self) -> u64 {
        with_walker!(&self.0, walker => walker.hash())
    }

    /// What `player` may see (as `game.view`).
    fn view(&self, py: Python<'_>, player: &str) -> PyResult<Py<PyAny>> {
        let view = self.raised(py, with_walker!(&self.0, walker => walker.view(player)))?;
        value_to_py(py, &view)
    }

    /// What the last push did (as `play`'s `effects`), computed now; None when it completed no move.
    fn effects(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        with_walker!(&self.0, walker => walker.effects())
            .map(|effects| value_to_py(py, &effects))
            .transpose()
    }

    /// The shape of `observation`'s tensor.
    #[getter]
    fn observation_shape(&self) -> Vec<usize> {
        with_walker!(&self.0, walker => walker.observation_shape())
    }

    /// What `player` sees as numbers: a float32 numpy array of `observation_shape` when numpy is
    /// installed, else a flat list.
    fn observation(&self, py: Python<'_>, player: &str) -> PyResult<Py<PyAny>> {
        let values = self.raised(
            py,
            with_walker!(&self.0, walker => walker.observation(player)),
        )?;
        let Some(np) = numpy(py) else {
            return Ok(values.into_pyobject(py)?.into_any().unbind());
        };
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let array = np.call_method1("frombuffer", (PyByteArray::new(py, &bytes), "<f4"))?;
        Ok(array
            .call_method1(
                "reshape",
                (with_walker!(&self.0, walker => walker.observation_shape()),),
            )?
            .unbind())
    }

    /// A key equal for two positions exactly when `player` cannot tell them apart.
    fn information_state(&self, py: Python<'_>, player: &str) -> PyResult<String> {
        self.raised(
            py,
            with_walker!(&self.0, walker => walker.information_state(player)),
        )
    }

    /// A full position consistent with what `player` sees of this one (Caesar!: the other hand dealt
    /// again, a new generator); `rng`: a `random.Random` (or anything with `getrandbits`) or an int seed.
    fn resample(
        &self,
        py: Python<'_>,
        player: &str,
        rng: &Bound<'_, PyAny>,
    ) -> PyResult<PyPosition> {
        let seed = seed_of(rng)?;
        Ok(PyPosition(self.raised(
            py,
            with_walker!(&self.0, walker => walker.resample(player, seed).map(AnyWalker::from)),
        )?))
    }

    /// The action id the engine's search suggests for the player to decide here (`level` or
    /// `simulations`, `think_ms`, `seed`; see `Engine.search`), the GIL released while it thinks.
    /// Raises ValueError at a chance node (chance decides: sample it) and once over.
    #[pyo3(signature = (*, level=None, simulations=None, think_ms=None, seed=None, memory=search::DEFAULT_MEMORY))]
    fn suggest(
        &self,
        py: Python<'_>,
        level: Option<u64>,
        simulations: Option<u64>,
        think_ms: Option<u64>,
        seed: Option<u64>,
        memory: usize,
    ) -> PyResult<usize> {
        let asked = search::Asked {
            level,
            simulations,
            think_ms,
            seed,
            memory,
            ..search::Asked::default()
        };
        let handle = &self.0;
        let found = py.detach(
            || with_walker!(handle, walker => walker.suggest(&asked, &AtomicBool::new(false))),
        );
        match self.raised(py, found)?.action {
            Some(action) => Ok(action),
            None => Err(PyValueError::new_err(
                "chance decides here: sample it (chance_outcomes)",
            )),
        }
    }

    /// Plays the position out at random in Rust (chance by its probabilities, players uniformly among
    /// their legal actions), `count` times from `rng` (as `resample`'s): the mean returns per player.
    #[pyo3(signature = (rng, count=1))]
    fn rollout(&self, py: Python<'_>, rng: &Bound<'_, PyAny>, count: usize) -> PyResult<Vec<f64>> {
        let seed = seed_of(rng)?;
        let handle = &self.0;
        Ok(py.detach(|| {
            let mut total = vec![0.0; with_walker!(handle, walker => walker.players()).len()];
            for k in 0..count.max(1) {
                let seed = seed.wrapping_add(k as u64);
                let (returns, _) = with_walker!(handle, walker => walker.rollout(seed));
                for (sum, value) in total.iter_mut().zip(returns) {
                    *sum += value;
                }
            }
            total.iter().map(|sum| sum / count.max(1) as f64).collect()
        }))
    }

    fn __repr__(&self) -> String {
        format!(
            "<referee.Position {:?}>",
            with_walker!(&self.0, walker => walker.position())
        )
    }
}

/// A 64-bit seed from an int or a `random.Random`.
fn seed_of(rng: &Bound<'_, PyAny>) -> PyResult<u64> {
    if let Ok(seed) = rng.extract::<u64>() {
        return Ok(seed);
    }
    rng.call_method1("getrandbits", (64,))?
        .extract::<u64>()
        .map_err(|_| PyValueError::new_err("rng is an int seed or has getrandbits (random.Random)"))
}

/// A new game's handle (the game `game.new(seed)` starts).
#[pyfunction]
#[pyo3(signature = (engine, seed=None))]
pub fn start(py: Python<'_>, engine: &Engine, seed: Option<u64>) -> PyResult<PyPosition> {
    with_engine!(&engine.0, G, game => {
        game.whole_games().map_err(|e| raise(py, &e))?;
        let (position, _) = game
            .start(None, seed, None)
            .map_err(|error| raise(py, &error))?;
        Ok(PyPosition(AnyWalker::from(Walker::<G>::new(position, game.shared_keys()))))
    })
}

/// A handle on a state (checked as every call checks one: seals, opaque states) or a position string.
#[pyfunction]
pub fn load(engine: &Engine, state: &Bound<'_, PyAny>) -> PyResult<PyPosition> {
    with_engine!(&engine.0, G, game => {
        let position = whole_position_of(game, state)?;
        Ok(PyPosition(AnyWalker::from(Walker::<G>::new(position, game.shared_keys()))))
    })
}

/// A handle on a start of the engine's setup, never shown: the action space of its setup.
#[pyfunction]
pub fn action_space(engine: &Engine) -> PyPosition {
    with_engine!(&engine.0, G, game => {
        let position = G::start(game.setup(), Some(0), None);
        PyPosition(AnyWalker::from(Walker::<G>::new(position, None)))
    })
}
