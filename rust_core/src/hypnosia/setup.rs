//! The variant and options (`Setup`), and what they fix once checked and compiled (`CompiledSetup`).

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock, PoisonError, RwLock};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::board::{colour_seat, Board, BoardSchema, ColourSchema, COLOURS, SEATS};
use crate::error::{Error, Result};
use crate::game::Checked;

/// Compiled games kept at most (the cache is emptied when full): far more setups than a server
/// sees at once, and a bound on what distinct boards sent by clients can hold.
pub(super) const MAX_COMPILED_GAMES: usize = 256;

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
    pub board: Option<Value>,
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
        let description = options
            .board
            .clone()
            .unwrap_or_else(Board::default_description);
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
        static CACHE: OnceLock<RwLock<HashMap<String, Arc<CompiledSetup>>>> = OnceLock::new();
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
        // The options' JSON determines the game (the variant has a single value).
        let key = serde_json::to_string(&self.options).expect("options serialize");
        let cache = CACHE.get_or_init(Default::default);
        let found = cache
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
            .cloned();
        let game = match found {
            Some(game) => game,
            None => {
                let game = Arc::new(self.compile()?);
                let mut cache = cache.write().unwrap_or_else(PoisonError::into_inner);
                if cache.len() >= MAX_COMPILED_GAMES {
                    cache.clear();
                }
                cache.insert(key.clone(), game.clone());
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

/// The compiled game of a checked setup (`check_setup` compiled it).
pub(super) fn compiled_game(setup: &Checked<Setup>) -> Arc<CompiledSetup> {
    setup.compiled.clone().expect("a checked setup is compiled")
}
