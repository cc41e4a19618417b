//! The variant and options (`Setup`), and what they fix once checked and compiled (`CompiledSetup`).

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::board::{colour_seat, Board, BoardSchema, ColourSchema, Description, COLOURS, SEATS};
use crate::error::{Error, Result};
use crate::game::CheckedSetup;

/// Bytes of compiled games kept by default (`set_cache_bytes`): hundreds of the largest boards, and
/// a bound on what distinct boards sent by clients can hold.
pub const DEFAULT_CACHE_BYTES: usize = 64 << 20;
static CACHE_BYTES: AtomicUsize = AtomicUsize::new(DEFAULT_CACHE_BYTES);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(rename = "HypnosiaVariant")]
pub enum Variant {
    #[default]
    Standard,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "HypnosiaOptions")]
pub struct Options {
    /// 2..6; implied by `seats` when only they are given. Default seats by number of players —
    /// 2: 0,3; 3: 0,2,4; 4: 0,1,3,4; 5: 0..4; 6: all.
    #[serde(default)]
    #[schemars(range(min = 2, max = SEATS))]
    pub players: Option<u64>,
    /// Explicit distinct seat numbers 0..5 (as many as `players`), stored sorted.
    #[serde(default)]
    #[schemars(
        length(min = 2, max = SEATS),
        inner(range(max = SEATS - 1)),
        extend("uniqueItems" = true)
    )]
    pub seats: Option<Vec<u64>>,
    /// A seated colour; when null or absent the first player is drawn from the seeded source.
    #[serde(default)]
    #[schemars(with = "Option<ColourSchema>")]
    pub first_player: Option<String>,
    /// false: a double cannot cross any bridge (the centre included).
    #[serde(default = "yes")]
    pub doubles_cross_bridges: bool,
    /// A board description; null or absent means the default board (a documented reconstruction).
    /// States and checked setups carry null for the default board, however it was given.
    #[serde(default)]
    #[schemars(with = "Option<BoardSchema>")]
    pub board: Option<Description>,
}

pub(super) fn yes() -> bool {
    true
}

impl Default for Options {
    fn default() -> Self {
        Options {
            players: None,
            seats: None,
            first_player: None,
            doubles_cross_bridges: true,
            board: None,
        }
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "HypnosiaSetup")]
pub struct Setup {
    #[serde(default)]
    pub variant: Variant,
    #[serde(default)]
    pub options: Options,
    /// The compiled game, filled in by `check_setup`.
    #[serde(skip)]
    pub(super) compiled: Option<Arc<CompiledSetup>>,
}

/// Everything a setup fixes, compiled: seats, variant flag, the board tables.
#[derive(Debug, PartialEq)]
pub struct CompiledSetup {
    /// Seated seats, ascending.
    pub(super) seats: Vec<u8>,
    pub(super) first_player: Option<u8>,
    pub(super) doubles_cross: bool,
    pub(super) board: Board,
    /// The normalised options (every default filled in), as states carry them.
    pub(super) options: Options,
}

/// Default seats by number of players (rules doc, Setup).
pub(super) fn default_seats(players: usize) -> &'static [u8] {
    match players {
        2 => &[0, 3],
        3 => &[0, 2, 4],
        4 => &[0, 1, 3, 4],
        5 => &[0, 1, 2, 3, 4],
        _ => &[0, 1, 2, 3, 4, 5],
    }
}

/// Refuses a player count outside 2 to 6; none given stays none (the seats or the default decide).
pub(super) fn checked_players(players: Option<u64>) -> Result<Option<u64>> {
    match players {
        Some(n) if !(2..=6).contains(&n) => Err(Error::invalid_options(
            "options.players",
            format!("2 to 6 players, not {n}"),
        )),
        other => Ok(other),
    }
}

/// Explicit seats, sorted: each 0 to 5, none twice, as many as the players (2 to 6 when not given).
pub(super) fn checked_seats(seats: &[u64], players: Option<u64>) -> Result<Vec<u8>> {
    let mut sorted = Vec::with_capacity(seats.len());
    for (i, &seat) in seats.iter().enumerate() {
        if seat >= SEATS as u64 {
            return Err(Error::invalid_options(
                format!("options.seats[{i}]"),
                format!("seats are numbered 0 to 5, not {seat}"),
            ));
        }
        if sorted.contains(&(seat as u8)) {
            return Err(Error::invalid_options(
                format!("options.seats[{i}]"),
                format!("seat {seat} is listed twice"),
            ));
        }
        sorted.push(seat as u8);
    }
    sorted.sort_unstable();
    if let Some(n) = players {
        if n as usize != sorted.len() {
            return Err(Error::invalid_options(
                "options.seats",
                format!("{n} players need {n} seats, not {}", sorted.len()),
            ));
        }
    } else if !(2..=6).contains(&sorted.len()) {
        return Err(Error::invalid_options(
            "options.seats",
            format!("2 to 6 players, so 2 to 6 seats, not {}", sorted.len()),
        ));
    }
    Ok(sorted)
}

/// The first player's seat, when named: it must be a seated colour.
pub(super) fn checked_first_player(name: Option<&str>, seats: &[u8]) -> Result<Option<u8>> {
    let Some(name) = name else {
        return Ok(None);
    };
    match colour_seat(name) {
        Some(seat) if seats.contains(&(seat as u8)) => Ok(Some(seat as u8)),
        _ => {
            let seated: Vec<&str> = seats.iter().map(|&s| COLOURS[usize::from(s)]).collect();
            Err(Error::invalid_options(
                "options.first_player",
                format!(
                    "{name:?} is not a seated colour; seated: {}",
                    seated.join(", ")
                ),
            ))
        }
    }
}

impl Setup {
    /// An unchecked setup of the standard variant with these options (`check_setup` checks it).
    pub fn new(options: Options) -> Setup {
        Setup {
            variant: Variant::Standard,
            options,
            compiled: None,
        }
    }

    /// Checks the options and builds the game they describe: players, seats, first player, board.
    pub(super) fn compile(&self) -> Result<CompiledSetup> {
        let options = &self.options;
        let players = checked_players(options.players)?;
        let seats = match &options.seats {
            None => default_seats(players.unwrap_or(2) as usize).to_vec(),
            Some(seats) => checked_seats(seats, players)?,
        };
        let first_player = checked_first_player(options.first_player.as_deref(), &seats)?;
        let description = match &options.board {
            Some(description) => description.value()?,
            None => Board::default_description(),
        };
        let board = Board::from_description(&description)?;
        let normalised = Options {
            players: Some(seats.len() as u64),
            seats: Some(seats.iter().map(|&s| u64::from(s)).collect()),
            first_player: options.first_player.clone(),
            doubles_cross_bridges: options.doubles_cross_bridges,
            board: (!board.is_default()).then(|| board.description().clone()),
        };
        Ok(CompiledSetup {
            seats,
            first_player,
            doubles_cross: options.doubles_cross_bridges,
            board,
            options: normalised,
        })
    }

    /// The compiled game of these options, from the cache when it holds it: states name the same
    /// few setups again and again, and checking and compiling a board costs more than a move.
    pub(super) fn compiled(&self) -> Result<Arc<CompiledSetup>> {
        thread_local! {
            // The game this thread compiled or found last, by its options: a batch's items name
            // the same setup again and again, and each core then finds it without writing the
            // options' JSON or touching the shared lock (equal options write equal JSON).
            static LAST: RefCell<Option<(Options, Arc<CompiledSetup>)>> = const { RefCell::new(None) };
        }
        let last = LAST.with_borrow(|last| {
            last.as_ref()
                .filter(|(options, _)| *options == self.options)
                .map(|(_, game)| game.clone())
        });
        if let Some(game) = last {
            return Ok(game);
        }
        // The options' JSON determines the game (the variant has a single value). It holds a board
        // description's text as given: a text found here was checked when it was compiled
        // (`Description::value`), so the key must stay that text, not a form of it.
        let key: Arc<str> = serde_json::to_string(&self.options)
            .expect("options serialize")
            .into();
        let found = Cache::shared()
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key);
        let game = match found {
            Some(game) => game,
            None => {
                let game = Arc::new(self.compile()?);
                let mut cache = Cache::shared()
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner);
                cache.insert(key, game.clone(), CACHE_BYTES.load(Ordering::Relaxed));
                game
            }
        };
        LAST.set(Some((self.options.clone(), game.clone())));
        Ok(game)
    }

    pub(super) fn checked(self) -> Result<Setup> {
        let game = self.compiled()?;
        Ok(Setup {
            variant: self.variant,
            options: game.options.clone(),
            compiled: Some(game),
        })
    }
}

impl CompiledSetup {
    /// Bytes the compiled game holds (its board, and the options when they do not share its
    /// description).
    fn heap_bytes(&self) -> usize {
        std::mem::size_of::<Self>() + self.board.heap_bytes() + self.seats.capacity()
    }
}

/// The compiled games of a process, by their options' JSON, bounded in bytes (keys included): past
/// the bound the oldest go first, and a game larger than the whole bound is not kept.
#[derive(Default)]
struct Cache {
    games: HashMap<Arc<str>, Arc<CompiledSetup>>,
    order: VecDeque<Arc<str>>,
    bytes: usize,
}

impl Cache {
    fn shared() -> &'static Mutex<Cache> {
        static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
        CACHE.get_or_init(Default::default)
    }

    fn get(&self, key: &str) -> Option<Arc<CompiledSetup>> {
        self.games.get(key).cloned()
    }

    fn entry_bytes(key: &str, game: &CompiledSetup) -> usize {
        key.len() + game.heap_bytes()
    }

    /// Keeps a game, holding at most `limit` bytes.
    fn insert(&mut self, key: Arc<str>, game: Arc<CompiledSetup>, limit: usize) {
        let bytes = Self::entry_bytes(&key, &game);
        if bytes > limit || self.games.contains_key(&key) {
            return;
        }
        self.evict_to(limit - bytes);
        self.bytes += bytes;
        self.order.push_back(key.clone());
        self.games.insert(key, game);
    }

    /// Drops the oldest games until at most `bytes` are held.
    fn evict_to(&mut self, bytes: usize) {
        while self.bytes > bytes {
            let Some(key) = self.order.pop_front() else {
                break;
            };
            if let Some(game) = self.games.remove(&key) {
                self.bytes -= Self::entry_bytes(&key, &game);
            }
        }
    }
}

/// Sets the most bytes of compiled games a process keeps (`DEFAULT_CACHE_BYTES` until set), dropping
/// the oldest beyond it.
pub fn set_cache_bytes(bytes: usize) {
    CACHE_BYTES.store(bytes, Ordering::Relaxed);
    Cache::shared()
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .evict_to(bytes);
}

/// The bytes of compiled games the process keeps now, and its bound.
pub fn cache_bytes() -> (usize, usize) {
    let held = Cache::shared()
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .bytes;
    (held, CACHE_BYTES.load(Ordering::Relaxed))
}

/// The compiled game of a checked setup (`check_setup` compiled it).
pub(super) fn compiled_game(setup: &CheckedSetup<Setup>) -> Arc<CompiledSetup> {
    setup.compiled.clone().expect("a checked setup is compiled")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A legal board of 8 circles of 360 spaces with a bridge on every space (the largest a
    /// description may be), told apart by `k`.
    fn largest_board(k: u64) -> Options {
        let bridges: Vec<_> = (0..8)
            .flat_map(|c| (0..360).map(move |i| (c, i)))
            .map(|(c, i)| match c {
                7 => json!({"from": [c, i], "to": "centre"}),
                _ => json!({"from": [c, i], "to": [c + 1, i]}),
            })
            .collect();
        let description = json!({
            "circles": vec![360; 8], "entries": (0..6).map(|s| (k + 60 * s) % 360).collect::<Vec<_>>(),
            "bridges": bridges, "centre_points": [5, 4, 3, 2, 1], "home_length": 4,
        });
        let options = json!({ "board": description });
        serde_json::from_str(&options.to_string()).unwrap()
    }

    #[test]
    fn a_compiled_largest_board_is_small() {
        let game = Setup::new(largest_board(0)).compile().unwrap();
        let bytes = game.heap_bytes();
        assert!(bytes < 200_000, "{bytes}");
    }

    #[test]
    fn the_cache_holds_at_most_its_bytes_oldest_out_first() {
        let mut cache = Cache::default();
        let games: Vec<(Arc<str>, Arc<CompiledSetup>)> = (0..6)
            .map(|k| {
                let options = largest_board(k);
                let key = serde_json::to_string(&options).unwrap().into();
                (key, Arc::new(Setup::new(options).compile().unwrap()))
            })
            .collect();
        let one = Cache::entry_bytes(&games[0].0, &games[0].1);
        for (key, game) in &games {
            cache.insert(key.clone(), game.clone(), 3 * one + one / 2);
            assert!(cache.bytes <= 3 * one + one / 2);
        }
        assert_eq!(cache.games.len(), 3);
        assert!(cache.get(&games[5].0).is_some() && cache.get(&games[2].0).is_none());
        cache.insert("too big".into(), games[0].1.clone(), one / 2);
        assert!(cache.get("too big").is_none());
        cache.evict_to(0);
        assert_eq!(
            (cache.bytes, cache.games.len(), cache.order.len()),
            (0, 0, 0)
        );
    }
}
