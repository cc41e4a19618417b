//! Hypnosia: 2–6 players race 4 pawns each around concentric circles towards the centre, with two
//! dice, doubles, captures and bridges. Spec: `rules/hypnosia.md`; interface: `specs/hypnosia.md`.
//!
//! The board is data (`board.rs`): a setup carries its board description, checked and compiled once.
//! A pawn's location is a `u16` code whose numeric order is the order states list pawns in: home
//! squares by distance, spaces by (circle, index), the centre, then captured.

mod board;
mod invariants;
mod moves;

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, OnceLock, PoisonError, RwLock};

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::chance::{self, Chance, ChanceState, SeedText};
use crate::error::{Error, Result};
use crate::game::{Outcome, Rules, Status};
use board::BoardSchema;
pub use board::{Board, Bridge, CENTRE_SPACES, PAWNS, SEATS};
pub use moves::{DieMove, Move, Start, Turn};

pub const COLOURS: [&str; SEATS] = ["red", "yellow", "green", "blue", "purple", "orange"];
/// One letter per colour, for the position notation.
const LETTERS: [u8; SEATS] = *b"rygbpo";

/// Location codes: home distance k is `k - 1`, space s is `SPACE_BASE + s`.
type Loc = u16;
const SPACE_BASE: Loc = PAWNS as Loc;
const CENTRE: Loc = 0xFFFE;
const CAPTURED: Loc = 0xFFFF;
/// `to_move` once the game is over.
const NOBODY: u8 = u8::MAX;
/// Compiled games kept at most (the cache is emptied when full): far more setups than a server
/// sees at once, and a bound on what distinct boards sent by clients can hold.
const MAX_COMPILED_GAMES: usize = 256;

fn home(distance: u8) -> Loc {
    Loc::from(distance - 1)
}

fn on_space(space: u16) -> Loc {
    SPACE_BASE + space
}

/// Still in play: at home or on a circle.
fn is_active(loc: Loc) -> bool {
    loc < CENTRE
}

fn colour_seat(name: &str) -> Option<usize> {
    COLOURS.iter().position(|&colour| colour == name)
}

// ------------------------------------------------------------------ setup

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

/// In a schema: a player's colour (seat 0..5 is red, yellow, green, blue, purple, orange).
struct ColourSchema;

impl JsonSchema for ColourSchema {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "HypnosiaColour".into()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        "referee_core::hypnosia::Colour".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "description": "Seat 0..5 has the colour red, yellow, green, blue, purple, orange.",
            "enum": COLOURS,
        })
    }
}

/// A pawn's location: `h1`..`h4` (home, by distance), `<circle>.<index>`, `centre` or `captured`.
#[derive(JsonSchema)]
#[schemars(rename = "HypnosiaLocation")]
#[allow(dead_code)] // a schema only
struct LocationSchema(
    #[schemars(regex(pattern = r"^(h[1-4]|(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)|centre|captured)$"))]
    String,
);

/// A seated colour's 4 pawns: home by distance, then spaces by (circle, index), then centre, then
/// captured.
#[derive(JsonSchema)]
#[schemars(rename = "HypnosiaPawns")]
#[allow(dead_code)] // a schema only
struct PawnsSchema(#[schemars(length(equal = PAWNS))] Vec<LocationSchema>);

/// One die.
#[derive(JsonSchema)]
#[schemars(rename = "HypnosiaDie")]
#[allow(dead_code)] // a schema only
struct DieSchema(#[schemars(range(min = 1, max = 6))] u8);

fn yes() -> bool {
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
    compiled: Option<Arc<CompiledSetup>>,
}

/// Everything a setup fixes, compiled: seats, variant flag, the board tables.
#[derive(Debug, PartialEq)]
pub struct CompiledSetup {
    /// Seated seats, ascending.
    seats: Vec<u8>,
    first_player: Option<u8>,
    doubles_cross: bool,
    board: Board,
    /// The normalised options (every default filled in), as states carry them.
    options: Options,
}

/// Default seats by number of players (rules doc, Setup).
fn default_seats(players: usize) -> &'static [u8] {
    match players {
        2 => &[0, 3],
        3 => &[0, 2, 4],
        4 => &[0, 1, 3, 4],
        5 => &[0, 1, 2, 3, 4],
        _ => &[0, 1, 2, 3, 4, 5],
    }
}

/// Refuses a player count outside 2 to 6; none given stays none (the seats or the default decide).
fn checked_players(players: Option<u64>) -> Result<Option<u64>> {
    match players {
        Some(n) if !(2..=6).contains(&n) => Err(Error::invalid_options(
            "options.players",
            format!("2 to 6 players, not {n}"),
        )),
        other => Ok(other),
    }
}

/// Explicit seats, sorted: each 0 to 5, none twice, as many as the players (2 to 6 when not given).
fn checked_seats(seats: &[u64], players: Option<u64>) -> Result<Vec<u8>> {
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
fn checked_first_player(name: Option<&str>, seats: &[u8]) -> Result<Option<u8>> {
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
    fn compile(&self) -> Result<CompiledSetup> {
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
    fn compiled(&self) -> Result<Arc<CompiledSetup>> {
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

    fn checked(self) -> Result<Setup> {
        let game = self.compiled()?;
        Ok(Setup {
            variant: self.variant,
            options: game.options.clone(),
            compiled: Some(game),
        })
    }

    /// The compiled game. `start` expects a checked setup; an unchecked one is compiled here, and
    /// one that does not compile falls back to the default setup (the bindings always check first).
    fn game(&self) -> Arc<CompiledSetup> {
        if let Some(game) = &self.compiled {
            return game.clone();
        }
        self.compiled()
            .or_else(|_| Setup::default().compiled())
            .expect("the default setup compiles")
    }
}

// ------------------------------------------------------------------ position

/// A valid Hypnosia position.
#[derive(Debug, Clone)]
pub struct Position {
    game: Arc<CompiledSetup>,
    /// Per seat, its 4 pawns' locations, sorted; unseated seats hold captured placeholders.
    pawns: [[Loc; PAWNS]; SEATS],
    to_move: u8,
    /// The unused dice of the turn, in the order they remain; `dice_len == 0` before the roll.
    dice: [u8; 2],
    dice_len: u8,
    /// Seats in order of entry, one per pawn.
    centre: [u8; CENTRE_SPACES],
    centre_len: u8,
    /// Enemy pawns each seat has captured.
    captures: [u32; SEATS],
    scores: [i64; SEATS],
    chance: Arc<Chance>,
}

impl PartialEq for Position {
    fn eq(&self, other: &Self) -> bool {
        self.game.options == other.game.options
            && self.pawns == other.pawns
            && self.to_move == other.to_move
            && self.dice() == other.dice()
            && self.centre() == other.centre()
            && self.captures == other.captures
            && self.scores == other.scores
            && self.chance == other.chance
    }
}

/// Where a die move's unit ends: a space, or the centre.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    Space(u16),
    Centre,
}

/// A legal die move, resolved against the position: everything `apply_step` needs.
#[derive(Debug, Clone, Copy)]
struct Step {
    mv: DieMove,
    from: Loc,
    units: u8,
    target: Target,
    /// The enemy seat and number of pawns captured on the target.
    capture: Option<(u8, u8)>,
}

/// Why a die move is refused, with its facts; turned into an `Error` only when reported.
#[derive(Debug, Clone, Copy)]
enum Refusal {
    DieNotRolled,
    NoSuchSpace,
    NoPawn,
    NoDouble { pawns: u8 },
    HomeNoBridge,
    NotABridge,
    DieTooSmall { distance: u8 },
    DoublesCannotCross,
    CentreNeedsOne,
    StackLimit { own: u8 },
    SingleOnEnemyDouble { seat: u8 },
}

/// What a die move did, as reported to clients.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[schemars(rename = "HypnosiaDieMove")]
pub struct DieMoveEffects {
    /// Where the unit started.
    #[schemars(with = "LocationSchema")]
    pub from: String,
    /// The unit: a single pawn or a double.
    #[schemars(range(min = 1, max = 2))]
    pub pawns: u8,
    #[schemars(with = "DieSchema")]
    pub die: u8,
    /// The unit first crossed the bridge it stood on.
    pub cross: bool,
    /// A space, or `centre`.
    #[schemars(with = "LocationSchema")]
    pub to: String,
    pub captured: Vec<Captured>,
    /// Points scored by entering the centre with this die move.
    pub centre_points: i64,
}

/// Enemy pawns captured by a die move.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[schemars(rename = "HypnosiaCaptured")]
pub struct Captured {
    #[schemars(with = "ColourSchema")]
    pub player: &'static str,
    #[schemars(range(min = 1, max = 2))]
    pub pawns: u8,
}

/// What a move did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[schemars(rename = "HypnosiaEffects")]
pub struct Effects {
    #[schemars(with = "ColourSchema")]
    pub player: &'static str,
    /// The two dice of this turn, when this move rolled them.
    #[schemars(with = "Option<Vec<DieSchema>>")]
    pub roll: Option<Vec<u8>>,
    /// The engine drew the roll from the seeded source.
    pub drawn: bool,
    pub moves: Vec<DieMoveEffects>,
    pub turn_over: bool,
    pub passed: bool,
}

impl Position {
    fn initial(game: Arc<CompiledSetup>, chance: Chance, to_move: u8) -> Position {
        let mut pawns = [[CAPTURED; PAWNS]; SEATS];
        for &seat in &game.seats {
            pawns[usize::from(seat)] = [0, 1, 2, 3];
        }
        Position {
            game,
            pawns,
            to_move,
            dice: [0; 2],
            dice_len: 0,
            centre: [0; CENTRE_SPACES],
            centre_len: 0,
            captures: [0; SEATS],
            scores: [0; SEATS],
            chance: Arc::new(chance),
        }
    }

    fn board(&self) -> &Board {
        &self.game.board
    }

    pub fn dice(&self) -> &[u8] {
        &self.dice[..usize::from(self.dice_len)]
    }

    fn centre(&self) -> &[u8] {
        &self.centre[..usize::from(self.centre_len)]
    }

    pub fn is_over(&self) -> bool {
        usize::from(self.centre_len) == CENTRE_SPACES
            || !self
                .game
                .seats
                .iter()
                .any(|&seat| self.pawns[usize::from(seat)].iter().any(|&l| is_active(l)))
    }

    fn has_active(&self, seat: u8) -> bool {
        self.pawns[usize::from(seat)].iter().any(|&l| is_active(l))
    }

    /// The name of a location, as states and effects write it.
    fn loc_name(&self, loc: Loc) -> String {
        let mut name = String::with_capacity(8);
        self.push_loc_name(loc, &mut name);
        name
    }

    /// `loc_name` at the end of `text`, without a string of its own (positions write many).
    fn push_loc_name(&self, loc: Loc, text: &mut String) {
        match loc {
            CENTRE => text.push_str("centre"),
            CAPTURED => text.push_str("captured"),
            _ if loc < SPACE_BASE => {
                text.push('h');
                push_number(text, u32::from(loc) + 1);
            }
            _ => {
                let (circle, index) = self.board().coords(loc - SPACE_BASE);
                push_number(text, u32::from(circle));
                text.push('.');
                push_number(text, u32::from(index));
            }
        }
    }

    fn count(&self, seat: u8, loc: Loc) -> u8 {
        self.pawns[usize::from(seat)]
            .iter()
            .filter(|&&l| l == loc)
            .count() as u8
    }

    /// The enemy unit on `loc`, if any: its seat and size.
    fn enemy_at(&self, seat: u8, loc: Loc) -> Option<(u8, u8)> {
        self.game
            .seats
            .iter()
            .filter(|&&other| other != seat)
            .find_map(|&other| {
                let n = self.count(other, loc);
                (n > 0).then_some((other, n))
            })
    }

    /// Resolves a die move of the player to move: where it goes and what it captures, or why not.
    fn resolve(&self, mv: DieMove) -> std::result::Result<Step, Refusal> {
        if !self.dice().contains(&mv.die()) {
            return Err(Refusal::DieNotRolled);
        }
        let units = if mv.double() { 2 } else { 1 };
        let (from, target, origin) = match mv.from() {
            Start::Home(distance) => (home(distance), self.leave_home(mv, distance)?, None),
            Start::Space(circle, index) => {
                let (loc, target) = self.leave_space(mv, circle, index, units)?;
                (loc, target, Some(loc))
            }
        };
        let capture = match target {
            Target::Space(space) => self.land(on_space(space), origin, units)?,
            Target::Centre => None,
        };
        Ok(Step {
            mv,
            from,
            units,
            target,
            capture,
        })
    }

    /// Where a pawn leaving home `distance` squares from its entry goes: a single pawn, without a
    /// bridge, with a die that reaches the circle.
    fn leave_home(&self, mv: DieMove, distance: u8) -> std::result::Result<Target, Refusal> {
        let seat = self.to_move;
        if self.count(seat, home(distance)) == 0 {
            return Err(Refusal::NoPawn);
        }
        if mv.double() {
            return Err(Refusal::NoDouble { pawns: 1 });
        }
        if mv.cross() {
            return Err(Refusal::HomeNoBridge);
        }
        if mv.die() < distance {
            return Err(Refusal::DieTooSmall { distance });
        }
        let exit = self.board().exit(usize::from(seat), distance, mv.die());
        Ok(Target::Space(exit))
    }

    /// Where a unit of `units` pawns leaving space `circle.index` goes, and that space's location:
    /// along its circle, or across its bridge first.
    fn leave_space(
        &self,
        mv: DieMove,
        circle: u32,
        index: u32,
        units: u8,
    ) -> std::result::Result<(Loc, Target), Refusal> {
        let board = self.board();
        let space = board
            .space(circle as usize, index as usize)
            .ok_or(Refusal::NoSuchSpace)?;
        let loc = on_space(space);
        let own = self.count(self.to_move, loc);
        if own == 0 {
            return Err(Refusal::NoPawn);
        }
        if own < units {
            return Err(Refusal::NoDouble { pawns: own });
        }
        if !mv.cross() {
            return Ok((loc, Target::Space(board.step(space, mv.die()))));
        }
        Ok((loc, self.cross_bridge(mv, space)?))
    }

    /// Where a unit crossing the bridge of `space` first goes: the inner circle, or the centre on a 1.
    fn cross_bridge(&self, mv: DieMove, space: u16) -> std::result::Result<Target, Refusal> {
        let board = self.board();
        let bridge = board.bridge(space);
        if bridge == Bridge::None {
            return Err(Refusal::NotABridge);
        }
        if mv.double() && !self.game.doubles_cross {
            return Err(Refusal::DoublesCannotCross);
        }
        match bridge {
            Bridge::Space(inner) => Ok(Target::Space(board.step(inner, mv.die() - 1))),
            _ if mv.die() != 1 => Err(Refusal::CentreNeedsOne),
            _ => Ok(Target::Centre),
        }
    }

    /// What a unit of `units` pawns landing on `loc` captures, or why it may not land there: a
    /// space holds one player's pawns, at most 2, and a single pawn never lands on an enemy double.
    fn land(
        &self,
        loc: Loc,
        origin: Option<Loc>,
        units: u8,
    ) -> std::result::Result<Option<(u8, u8)>, Refusal> {
        let seat = self.to_move;
        // The unit leaves before it lands: a full lap ends where it started.
        let mut own = self.count(seat, loc);
        if origin == Some(loc) {
            own -= units;
        }
        if own > 0 && !(units == 1 && own == 1) {
            return Err(Refusal::StackLimit { own });
        }
        match self.enemy_at(seat, loc) {
            Some((enemy, 2)) if units == 1 => Err(Refusal::SingleOnEnemyDouble { seat: enemy }),
            capture => Ok(capture),
        }
    }

    fn refusal_error(&self, mv: DieMove, refusal: Refusal) -> Error {
        let from = mv.from().to_string();
        let player = COLOURS[usize::from(self.to_move)];
        match refusal {
            Refusal::DieNotRolled => Error::illegal_move(
                "die-not-rolled",
                format!("{mv} uses a {}, but the dice left are {:?}", mv.die(), self.dice()),
                json!({ "die": mv.die(), "dice": self.dice() }),
            ),
            Refusal::NoSuchSpace => Error::illegal_move(
                "no-such-space",
                format!("the board has no space {from}"),
                json!({ "from": from }),
            ),
            Refusal::NoPawn => Error::illegal_move(
                "no-pawn",
                format!("{player} has no pawn on {from}"),
                json!({ "from": from }),
            ),
            Refusal::NoDouble { pawns } => Error::illegal_move(
                "no-double",
                format!("{mv} moves a double, but {player} has {pawns} pawn on {from}"),
                json!({ "from": from, "pawns": pawns }),
            ),
            Refusal::HomeNoBridge => Error::illegal_move(
                "not-a-bridge",
                format!("{from} is a home square, not a bridge: a pawn leaves home with +"),
                json!({ "from": from }),
            ),
            Refusal::NotABridge => Error::illegal_move(
                "not-a-bridge",
                format!("{from} is not a bridge: only a unit standing on a bridge may cross it"),
                json!({ "from": from }),
            ),
            Refusal::DieTooSmall { distance } => Error::illegal_move(
                "die-too-small",
                format!(
                    "a pawn at home distance {distance} leaves only with a die of {distance} or more, not {}",
                    mv.die()
                ),
                json!({ "from": from, "distance": distance, "die": mv.die() }),
            ),
            Refusal::DoublesCannotCross => Error::illegal_move(
                "doubles-cannot-cross",
                format!("with doubles_cross_bridges off a double cannot cross the bridge on {from}: split it first"),
                json!({ "from": from }),
            ),
            Refusal::CentreNeedsOne => Error::illegal_move(
                "centre-needs-one",
                format!(
                    "crossing into the centre from {from} needs a die of exactly 1, not {}",
                    mv.die()
                ),
                json!({ "from": from, "die": mv.die() }),
            ),
            Refusal::StackLimit { own } => {
                let to = self.landing_name(mv);
                let moving = if mv.double() { 2 } else { 1 };
                Error::illegal_move(
                    "stack-limit",
                    format!(
                        "{mv} would put {} of {player}'s pawns on {to}: at most 2 pawns per space",
                        own + moving
                    ),
                    json!({ "to": to, "pawns": own, "moving": moving }),
                )
            }
            Refusal::SingleOnEnemyDouble { seat } => {
                let to = self.landing_name(mv);
                let enemy = COLOURS[usize::from(seat)];
                Error::illegal_move(
                    "single-on-enemy-double",
                    format!("a single pawn may not end on {enemy}'s double on {to}"),
                    json!({ "to": to, "player": enemy }),
                )
            }
        }
    }

    /// The space a die move that passed its start checks lands on (for refusal details).
    fn landing_name(&self, mv: DieMove) -> String {
        let board = self.board();
        let space = match mv.from() {
            Start::Home(distance) => {
                Some(board.exit(usize::from(self.to_move), distance, mv.die()))
            }
            Start::Space(circle, index) => {
                board.space(circle as usize, index as usize).map(|space| {
                    match (mv.cross(), board.bridge(space)) {
                        (true, Bridge::Space(inner)) => board.step(inner, mv.die() - 1),
                        _ => board.step(space, mv.die()),
                    }
                })
            }
        };
        space.map_or_else(String::new, |space| self.loc_name(on_space(space)))
    }

    /// The position after a resolved step (the turn is not ended here).
    fn apply_step(&self, step: &Step) -> Position {
        let mut next = self.clone();
        let seat = usize::from(self.to_move);
        // Spend the die, keeping the other in place.
        if let Some(i) = next.dice().iter().position(|&d| d == step.mv.die()) {
            if i == 0 {
                next.dice[0] = next.dice[1];
            }
            next.dice_len -= 1;
        }
        let moving = match step.target {
            Target::Space(space) => {
                let loc = on_space(space);
                if let Some((enemy, n)) = step.capture {
                    for pawn in next.pawns[usize::from(enemy)].iter_mut() {
                        if *pawn == loc {
                            *pawn = CAPTURED;
                        }
                    }
                    next.pawns[usize::from(enemy)].sort_unstable();
                    next.captures[seat] += u32::from(n);
                    next.scores[seat] += i64::from(n);
                    next.scores[usize::from(enemy)] -= i64::from(n);
                }
                (step.units, loc)
            }
            Target::Centre => {
                let free = CENTRE_SPACES as u8 - self.centre_len;
                let entering = step.units.min(free);
                for _ in 0..entering {
                    let k = usize::from(next.centre_len);
                    next.scores[seat] += i64::from(self.board().centre_points[k]);
                    next.centre[k] = self.to_move;
                    next.centre_len += 1;
                }
                (entering, CENTRE)
            }
        };
        let (mut left, to) = moving;
        for pawn in next.pawns[seat].iter_mut() {
            if left > 0 && *pawn == step.from {
                *pawn = to;
                left -= 1;
            }
        }
        next.pawns[seat].sort_unstable();
        next
    }

    /// Ends the turn: clears the dice and passes to the next seated player (next lower seat,
    /// wrapping) who still has a pawn at home or on a circle.
    fn end_turn(&mut self) {
        self.dice_len = 0;
        if self.is_over() {
            self.to_move = NOBODY;
            return;
        }
        let seats = &self.game.seats;
        let n = seats.len();
        let current = seats.iter().position(|&s| s == self.to_move).unwrap_or(0);
        self.to_move = (1..=n)
            .map(|k| seats[(current + n * 2 - k) % n])
            .find(|&seat| self.has_active(seat))
            .unwrap_or(NOBODY);
    }

    /// Every legal die move of the player to move with `die`.
    fn steps(&self, die: u8) -> Vec<Step> {
        let mut steps = Vec::new();
        let seat = self.to_move;
        let pawns = self.pawns[usize::from(seat)];
        for (i, &loc) in pawns.iter().enumerate() {
            if i > 0 && pawns[i - 1] == loc || !is_active(loc) {
                continue;
            }
            let mut candidates = [None; 4];
            if loc < SPACE_BASE {
                let distance = loc as u8 + 1;
                if die >= distance {
                    candidates[0] =
                        Some(DieMove::generated(Start::Home(distance), false, false, die));
                }
            } else {
                let space = loc - SPACE_BASE;
                let (circle, index) = self.board().coords(space);
                let from = Start::Space(u32::from(circle), u32::from(index));
                let double = self.count(seat, loc) == 2;
                let bridge = self.board().bridge(space);
                let crossable = match bridge {
                    Bridge::None => false,
                    Bridge::Space(_) => true,
                    Bridge::Centre => die == 1,
                };
                for (slot, (is_double, cross)) in
                    [(false, false), (true, false), (false, true), (true, true)]
                        .into_iter()
                        .enumerate()
                {
                    if (is_double && !double)
                        || (cross && !crossable)
                        || (is_double && cross && !self.game.doubles_cross)
                    {
                        continue;
                    }
                    candidates[slot] = Some(DieMove::generated(from, is_double, cross, die));
                }
            }
            steps.extend(
                candidates
                    .into_iter()
                    .flatten()
                    .filter_map(|mv| self.resolve(mv).ok()),
            );
        }
        steps
    }

    /// The distinct values among the unused dice.
    fn distinct_dice(&self) -> ([u8; 2], usize) {
        let dice = self.dice();
        match dice {
            [a, b] if a != b => ([*a, *b], 2),
            [a, ..] => ([*a, 0], 1),
            [] => ([0, 0], 0),
        }
    }

    /// The most dice any sequence of die moves can use (a game-ending die move uses every die).
    pub fn usable_dice(&self) -> u8 {
        let (values, n) = self.distinct_dice();
        let mut any = false;
        for &die in &values[..n] {
            for step in self.steps(die) {
                if self.dice_len == 1 {
                    return 1;
                }
                any = true;
                let next = self.apply_step(&step);
                if next.is_over() || !next.steps(next.dice[0]).is_empty() {
                    return 2;
                }
            }
        }
        u8::from(any)
    }

    /// Every legal whole turn of a rolled position, with the position after it (turn ended), and
    /// the number of dice they use. `pass` is the only turn when no die can be used.
    fn whole_turns(&self) -> (u8, Vec<(Turn, Position)>) {
        let (values, n) = self.distinct_dice();
        let mut pairs = Vec::new();
        let mut singles = Vec::new();
        for &die in &values[..n] {
            for step in self.steps(die) {
                let mut next = self.apply_step(&step);
                if next.dice_len == 1 && !next.is_over() {
                    for second in next.steps(next.dice[0]) {
                        let mut last = next.apply_step(&second);
                        last.end_turn();
                        pairs.push((Turn::Moves(vec![step.mv, second.mv]), last));
                    }
                    next.end_turn();
                    singles.push((Turn::Moves(vec![step.mv]), next));
                } else {
                    let over = next.is_over();
                    next.end_turn();
                    let turn = (Turn::Moves(vec![step.mv]), next);
                    if over && self.dice_len == 2 {
                        pairs.push(turn);
                    } else {
                        singles.push(turn);
                    }
                }
            }
        }
        if !pairs.is_empty() {
            (2, pairs)
        } else if !singles.is_empty() {
            (1, singles)
        } else {
            let mut next = self.clone();
            next.end_turn();
            (0, vec![(Turn::Pass, next)])
        }
    }

    /// The number of legal whole turns, without building the positions after them.
    fn count_turns(&self) -> u64 {
        let (values, n) = self.distinct_dice();
        let mut pairs = 0u64;
        let mut singles = 0u64;
        for &die in &values[..n] {
            for step in self.steps(die) {
                singles += 1;
                if self.dice_len == 2 {
                    let next = self.apply_step(&step);
                    if next.is_over() {
                        pairs += 1;
                    } else {
                        pairs += next.steps(next.dice[0]).len() as u64;
                    }
                }
            }
        }
        if pairs > 0 {
            pairs
        } else {
            singles.max(1)
        }
    }

    fn with_dice(&self, dice: [u8; 2]) -> Position {
        let mut next = self.clone();
        next.dice = dice;
        next.dice_len = 2;
        next
    }

    /// Perft over given chance outcomes: a ply is a whole turn; before the roll, the children are
    /// the legal turns of each of the 21 distinct rolls.
    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        if self.is_over() {
            return 0;
        }
        if self.dice_len > 0 {
            return self.perft_turns(depth);
        }
        let mut total = 0;
        for a in 1..=6u8 {
            for b in a..=6u8 {
                total += self.with_dice([a, b]).perft_turns(depth);
            }
        }
        total
    }

    fn perft_turns(&self, depth: u32) -> u64 {
        if depth == 1 {
            return self.count_turns();
        }
        self.whole_turns()
            .1
            .iter()
            .map(|(_, next)| next.perft(depth - 1))
            .sum()
    }

    pub fn legal_moves(&self) -> Vec<Move> {
        if self.is_over() {
            return Vec::new();
        }
        if self.dice_len == 0 {
            return vec![Move::Roll];
        }
        self.sorted_turns()
            .into_iter()
            .map(|(_, turn)| Move::Turn(turn))
            .collect()
    }

    /// The legal moves in notation, in `legal_moves`' order (written once, to order them).
    pub fn legal_move_texts(&self) -> Vec<String> {
        if self.is_over() {
            return Vec::new();
        }
        if self.dice_len == 0 {
            return vec![Move::Roll.to_string()];
        }
        self.sorted_turns()
            .into_iter()
            .map(|(text, _)| text)
            .collect()
    }

    /// The whole turns after the roll with their notation, in the order of their notation, each
    /// once.
    fn sorted_turns(&self) -> Vec<(String, Turn)> {
        let mut turns: Vec<(String, Turn)> = self
            .whole_turns()
            .1
            .into_iter()
            .map(|(turn, _)| (turn.to_string(), turn))
            .collect();
        turns.sort_by(|a, b| a.0.cmp(&b.0));
        turns.dedup_by(|a, b| a.0 == b.0);
        turns
    }

    fn step_effects(&self, step: &Step, after: &Position) -> DieMoveEffects {
        let (to, points) = match step.target {
            Target::Space(space) => (self.loc_name(on_space(space)), 0),
            Target::Centre => (
                "centre".to_owned(),
                self.centre_points_between(after, self.to_move),
            ),
        };
        DieMoveEffects {
            from: self.loc_name(step.from),
            pawns: step.units,
            die: step.mv.die(),
            cross: step.mv.cross(),
            to,
            captured: step
                .capture
                .map(|(enemy, n)| Captured {
                    player: COLOURS[usize::from(enemy)],
                    pawns: n,
                })
                .into_iter()
                .collect(),
            centre_points: points,
        }
    }

    /// Points `seat` scored by centre entries made between `self` and `after`.
    fn centre_points_between(&self, after: &Position, seat: u8) -> i64 {
        (usize::from(self.centre_len)..usize::from(after.centre_len))
            .filter(|&k| after.centre[k] == seat)
            .map(|k| i64::from(self.board().centre_points[k]))
            .sum()
    }

    /// Plays (the rest of) a turn on a rolled position. `whole`: the turn must be complete.
    fn play_turn(&self, turn: &Turn, whole: bool) -> Result<(Position, Vec<DieMoveEffects>, bool)> {
        let usable = self.usable_dice();
        let moves = match turn {
            Turn::Pass => {
                if usable > 0 {
                    return Err(Error::illegal_move(
                        "must-use-dice",
                        format!(
                            "with the dice {:?} a die move is possible: {usable} dice can be used",
                            self.dice()
                        ),
                        json!({ "dice": self.dice(), "usable": usable }),
                    ));
                }
                let mut next = self.clone();
                next.end_turn();
                return Ok((next, Vec::new(), true));
            }
            Turn::Moves(moves) => moves,
        };
        let mut current = self.clone();
        let mut effects = Vec::with_capacity(moves.len());
        for &mv in moves {
            if current.is_over() {
                return Err(Error::illegal_move(
                    "game-ended",
                    format!("the game ended with the die move before {mv}"),
                    json!({}),
                ));
            }
            let step = current
                .resolve(mv)
                .map_err(|refusal| current.refusal_error(mv, refusal))?;
            let next = current.apply_step(&step);
            effects.push(current.step_effects(&step, &next));
            current = next;
        }
        let used = moves.len() as u8;
        if !current.is_over() && used < usable {
            let partial_ok =
                !whole && current.dice_len == 1 && !current.steps(current.dice[0]).is_empty();
            if !partial_ok {
                let detail = if whole {
                    format!(
                        "with the dice {:?} a turn can use {usable} dice, this one uses {used}",
                        self.dice()
                    )
                } else {
                    format!(
                        "with the dice {:?} {usable} dice can be used, but after {turn} the other die cannot be",
                        self.dice()
                    )
                };
                return Err(Error::illegal_move(
                    "must-use-most-dice",
                    detail,
                    json!({ "dice": self.dice(), "usable": usable, "used": used }),
                ));
            }
            return Ok((current, effects, false));
        }
        current.end_turn();
        Ok((current, effects, true))
    }

    pub fn play(&self, mv: Move) -> Result<(Position, Effects)> {
        if self.is_over() {
            return Err(Error::GameOver);
        }
        let player = COLOURS[usize::from(self.to_move)];
        let rolled = self.dice_len > 0;
        let already = || {
            Error::illegal_move(
                "already-rolled",
                format!(
                    "{player} has rolled already; the dice left are {:?}",
                    self.dice()
                ),
                json!({ "dice": self.dice() }),
            )
        };
        let mut effects = Effects {
            player,
            roll: None,
            drawn: false,
            moves: Vec::new(),
            turn_over: false,
            passed: false,
        };
        let next = match mv {
            Move::Roll => {
                if rolled {
                    return Err(already());
                }
                let mut chance = (*self.chance).clone();
                let dice = [chance.die(), chance.die()];
                let mut next = self.with_dice(dice);
                next.chance = Arc::new(chance);
                effects.roll = Some(dice.to_vec());
                effects.drawn = true;
                next
            }
            Move::Supplied { dice, turn } => {
                if rolled {
                    return Err(already());
                }
                effects.roll = Some(dice.to_vec());
                let next = self.with_dice(dice);
                match turn {
                    None => next,
                    Some(turn) => {
                        let (after, moves, over) = next.play_turn(&turn, true)?;
                        effects.moves = moves;
                        effects.turn_over = over;
                        effects.passed = turn == Turn::Pass;
                        after
                    }
                }
            }
            Move::Turn(turn) => {
                if !rolled {
                    return Err(Error::illegal_move(
                        "roll-first",
                        format!("{player} has not rolled yet: play `roll` or a roll such as `5-4`"),
                        json!({}),
                    ));
                }
                let (after, moves, over) = self.play_turn(&turn, false)?;
                effects.moves = moves;
                effects.turn_over = over;
                effects.passed = turn == Turn::Pass;
                after
            }
        };
        Ok((next, effects))
    }

    pub fn outcome(&self) -> Outcome {
        let seats = &self.game.seats;
        let scores: BTreeMap<&'static str, i64> = seats
            .iter()
            .map(|&s| (COLOURS[usize::from(s)], self.scores[usize::from(s)]))
            .collect();
        if !self.is_over() {
            return Outcome {
                status: Status::Ongoing,
                to_move: Some(COLOURS[usize::from(self.to_move)]),
                scores,
                winner: None,
                decided_by: None,
                ranking: None,
            };
        }
        // Rank key: points (more is better), then the first centre entry (earlier is better; none last).
        let key = |seat: u8| {
            let first = self
                .centre()
                .iter()
                .position(|&s| s == seat)
                .unwrap_or(usize::MAX);
            (-self.scores[usize::from(seat)], first)
        };
        let mut order: Vec<u8> = seats.clone();
        order.sort_by_key(|&s| (key(s), s));
        let mut ranking: Vec<Vec<&'static str>> = Vec::new();
        let mut previous = None;
        for &seat in &order {
            if previous == Some(key(seat)) {
                if let Some(rank) = ranking.last_mut() {
                    rank.push(COLOURS[usize::from(seat)]);
                }
            } else {
                ranking.push(vec![COLOURS[usize::from(seat)]]);
            }
            previous = Some(key(seat));
        }
        let top = order[0];
        let tied_on_points = order
            .iter()
            .filter(|&&s| self.scores[usize::from(s)] == self.scores[usize::from(top)])
            .count();
        let (winner, decided_by) = if ranking[0].len() > 1 {
            (None, "shared")
        } else if tied_on_points > 1 {
            (Some(COLOURS[usize::from(top)]), "first_to_centre")
        } else {
            (Some(COLOURS[usize::from(top)]), "score")
        };
        Outcome {
            status: Status::Finished,
            to_move: None,
            scores,
            winner,
            decided_by: Some(decided_by),
            ranking: Some(ranking),
        }
    }
}

// ------------------------------------------------------------------ states and notation

/// The untrusted content of a state, from JSON or from the position notation.
struct Parts {
    pawns: Vec<(String, Vec<String>)>,
    to_move: Option<String>,
    dice: Option<Vec<i64>>,
    centre: Vec<String>,
    captures: Vec<(String, i64)>,
    scores: Option<Vec<(String, i64)>>,
}

fn parse_loc(text: &str, board: &Board) -> std::result::Result<Loc, String> {
    match text {
        "centre" => return Ok(CENTRE),
        "captured" => return Ok(CAPTURED),
        _ => {}
    }
    match moves::parse_start(text) {
        Some(Start::Home(distance)) => Ok(home(distance)),
        Some(Start::Space(circle, index)) => board
            .space(circle as usize, index as usize)
            .map(on_space)
            .ok_or_else(|| format!("the board has no space {text}")),
        None => Err(format!(
            "{text:?} is not a location: h1..h4, circle.index, centre or captured"
        )),
    }
}

/// Checks the seated colours of a `{colour: value}` map: known, seated, each present once.
fn seat_keys<T: Clone>(
    entries: &[(String, T)],
    game: &CompiledSetup,
    field: &str,
) -> Result<[Option<T>; SEATS]> {
    let mut by_seat: [Option<T>; SEATS] = Default::default();
    for (name, value) in entries {
        let seat = colour_seat(name)
            .ok_or_else(|| Error::invalid_state(field, format!("{name:?} is not a colour")))?;
        if !game.seats.contains(&(seat as u8)) {
            return Err(Error::invalid_state(
                format!("{field}.{name}"),
                format!("{name} is not seated in this game"),
            ));
        }
        if by_seat[seat].is_some() {
            return Err(Error::invalid_state(
                format!("{field}.{name}"),
                format!("{name} appears twice"),
            ));
        }
        by_seat[seat] = Some(value.clone());
    }
    if let Some(&missing) = game
        .seats
        .iter()
        .find(|&&s| by_seat[usize::from(s)].is_none())
    {
        let name = COLOURS[usize::from(missing)];
        return Err(Error::invalid_state(
            format!("{field}.{name}"),
            format!("{name} is seated but missing"),
        ));
    }
    Ok(by_seat)
}

impl Position {
    /// Builds a position from untrusted parts, checking everything that can be checked, in this
    /// order (the first refusal a state meets is part of the contract).
    fn from_parts(game: Arc<CompiledSetup>, chance: Chance, parts: Parts) -> Result<Position> {
        let mut position = Position::initial(game.clone(), chance, NOBODY);
        position.place_pawns(&parts.pawns, &game)?;
        position.check_space_occupancy(&game)?;
        position.place_centre(&parts.centre, &game)?;
        position.check_centre_entries_match_pawns(&game)?;
        position.place_captures(&parts.captures, &game)?;
        position.compute_scores(&game);
        position.check_scores(parts.scores.as_deref(), &game)?;
        let over = position.is_over();
        position.place_to_move(parts.to_move.as_deref(), over, &game)?;
        position.place_dice(parts.dice.as_deref(), over)?;
        Ok(position)
    }
}

/// The JSON form of a Hypnosia state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    rename = "HypnosiaState",
    description = "A Hypnosia state, self-contained: the options (with the board, null for the default one) and the seeded random source travel with it. Scores are checked against the centre entries, captures and lost pawns."
)]
pub struct State {
    #[schemars(extend("const" = Hypnosia::RULES_VERSION))]
    pub rules: String,
    #[serde(default)]
    pub variant: Variant,
    #[serde(default, deserialize_with = "crate::strict::object")]
    pub options: Options,
    /// The seeded random source the dice are drawn from.
    #[serde(deserialize_with = "crate::strict::object")]
    pub rng: ChanceState,
    /// The colour to move; null once the game is over.
    #[schemars(with = "Option<ColourSchema>")]
    pub to_move: Option<String>,
    /// Null before the roll, else the unused dice in the order they remain.
    #[schemars(with = "Option<Vec<DieSchema>>")]
    pub dice: Option<Vec<i64>>,
    /// Each seated colour's 4 pawns: home by distance, then spaces by (circle, index), then
    /// centre, then captured.
    #[schemars(
        with = "BTreeMap<String, PawnsSchema>",
        extend("propertyNames" = {"enum": COLOURS})
    )]
    pub pawns: BTreeMap<String, Vec<String>>,
    /// Each seated colour's score.
    #[schemars(extend("propertyNames" = {"enum": COLOURS}))]
    pub scores: BTreeMap<String, i64>,
    /// The colours of the pawns in the centre, in order of entry.
    #[schemars(with = "Vec<ColourSchema>", length(max = CENTRE_SPACES))]
    pub centre: Vec<String>,
    /// Enemy pawns each seated colour has captured.
    #[schemars(extend("propertyNames" = {"enum": COLOURS}))]
    pub captures: BTreeMap<String, i64>,
}

/// A number's decimal digits at the end of `text`, without `format!`.
fn push_number(text: &mut String, n: u32) {
    if n >= 10 {
        push_number(text, n / 10);
    }
    text.push(char::from(b'0' + (n % 10) as u8));
}

fn seat_of_letter(letter: u8) -> Option<usize> {
    LETTERS.iter().position(|&l| l == letter)
}

pub struct Hypnosia;

impl Rules for Hypnosia {
    const NAME: &'static str = "hypnosia";
    const RULES_VERSION: &'static str = "hypnosia@1";
    const PLAYERS: &'static [&'static str] = &COLOURS;
    type Setup = Setup;
    type Position = Position;
    type Move = Move;
    type State = State;
    type Effects = Effects;

    fn info() -> Value {
        let default = Board::default_description();
        let seats: Vec<Value> = (0..SEATS)
            .map(|s| json!({ "seat": s, "colour": COLOURS[s], "letter": (LETTERS[s] as char).to_string(), "entry": default["entries"][s] }))
            .collect();
        let default_seats: serde_json::Map<String, Value> = (2..=6)
            .map(|n| (n.to_string(), json!(default_seats(n))))
            .collect();
        json!({
            "name": Self::NAME,
            "title": "Hypnosia",
            "rules": Self::RULES_VERSION,
            "players": Self::PLAYERS,
            "chance": true,
            "hidden_information": false,
            "variants": [
                { "name": "standard", "default": true, "description": "2 to 6 players, 4 pawns each, two dice; the board is data (a default reconstruction, or the client's own)" }
            ],
            "options": [
                { "name": "players", "type": "integer", "default": 2,
                  "description": "2 to 6 players; default seats 2: 0,3; 3: 0,2,4; 4: 0,1,3,4; 5: 0..4; 6: all" },
                { "name": "seats", "type": "array", "default": null,
                  "description": "explicit distinct seat numbers 0..5 (length = players); stored sorted" },
                { "name": "first_player", "type": "string", "default": null,
                  "description": "a seated colour; when absent, drawn from the seeded source (seated colours in seat order, index below(players))" },
                { "name": "doubles_cross_bridges", "type": "boolean", "default": true,
                  "description": "false: the harder variant, a double cannot cross any bridge (the centre included) and must split first" },
                { "name": "board", "type": "object", "default": default,
                  "description": "a board description: circles (outermost first), entries (6), bridges, centre_points (5), home_length (4)" }
            ],
            "board": {
                "default": default,
                "reconstruction": "the physical board's drawing is not public: the default is a symmetric reconstruction; pass the real board's description to play on it",
                "seats": seats,
                "default_seats": default_seats,
                "pawns_per_player": PAWNS,
                "centre_spaces": CENTRE_SPACES,
                "turn_order": "next lower seat number among the seated players, wrapping; players with no pawn at home or on a circle are skipped",
            },
            "notation": {
                "move": "`roll`; a roll `5-4`; die moves `[D]<from>(+|^)<die>` (from h1..h4 or circle.index; D moves the double, ^ crosses the bridge first), one or two separated by a space, or `pass`; a roll and its whole turn `5-4: h2+5 0.3+4`",
                "location": "h1..h4 (home distance), circle.index, centre, captured",
                "position": "six fields separated by spaces: the pawns of each seated player in seat order (`r:h1,h2,0.5,captured/b:...`, colour letters r y g b p o), the player to move (letter, or - when over), the unused dice (`54`, `4`, or - before the roll), the centre entries in order (letters, or -), each seated player's captures in seat order (`0/1`), the random source `<seed>:<words used>` (then `@<key id>` when chance is keyed)",
            },
        })
    }

    fn check_setup(setup: Setup) -> Result<Setup> {
        setup.checked()
    }

    fn start(setup: &Setup, seed: Option<u64>) -> Position {
        let game = setup.game();
        let mut chance = Chance::from_seed(seed.unwrap_or_else(chance::fresh_seed));
        let first = match game.first_player {
            Some(seat) => seat,
            None => game.seats[chance.below(game.seats.len() as u32) as usize],
        };
        Position::initial(game, chance, first)
    }

    fn from_state(state: State) -> Result<Position> {
        crate::game::check_rules_version::<Self>(&state.rules)?;
        let setup = Setup {
            variant: state.variant,
            options: state.options,
            compiled: None,
        };
        let game = setup.compiled().map_err(|error| match error {
            Error::InvalidOptions { field, detail } => Error::InvalidState { field, detail },
            other => other,
        })?;
        let chance = Chance::from_state(&state.rng, "rng")?;
        let parts = Parts {
            pawns: state.pawns.into_iter().collect(),
            to_move: state.to_move,
            dice: state.dice,
            centre: state.centre,
            captures: state.captures.into_iter().collect(),
            scores: Some(state.scores.into_iter().collect()),
        };
        Position::from_parts(game, chance, parts)
    }

    fn to_state(position: &Position) -> State {
        let game = &position.game;
        let seated = || {
            game.seats
                .iter()
                .map(|&s| (COLOURS[usize::from(s)].to_owned(), usize::from(s)))
        };
        State {
            rules: Self::RULES_VERSION.to_owned(),
            variant: Variant::Standard,
            options: game.options.clone(),
            rng: position.chance.to_state(),
            to_move: (position.to_move != NOBODY)
                .then(|| COLOURS[usize::from(position.to_move)].to_owned()),
            dice: (position.dice_len > 0)
                .then(|| position.dice().iter().map(|&d| i64::from(d)).collect()),
            pawns: seated()
                .map(|(name, s)| {
                    (
                        name,
                        position.pawns[s]
                            .iter()
                            .map(|&l| position.loc_name(l))
                            .collect(),
                    )
                })
                .collect(),
            scores: seated()
                .map(|(name, s)| (name, position.scores[s]))
                .collect(),
            centre: position
                .centre()
                .iter()
                .map(|&s| COLOURS[usize::from(s)].to_owned())
                .collect(),
            captures: seated()
                .map(|(name, s)| (name, i64::from(position.captures[s])))
                .collect(),
        }
    }

    fn parse_position(text: &str, setup: &Setup) -> Result<Position> {
        let game = setup.game();
        let bad = |why: &str| Error::invalid_state("position", why.to_owned());
        let fields: Vec<&str> = text.split(' ').collect();
        let [pawns, to_move, dice, centre, captures, rng] = fields.as_slice() else {
            return Err(bad("a position is six fields separated by single spaces: pawns, player to move, dice, centre, captures, random source"));
        };
        let letter_seat = |letter: u8| seat_of_letter(letter).map(|s| COLOURS[s].to_owned());
        let mut pawn_parts = Vec::new();
        for player in pawns.split('/') {
            let (letter, locs) = player
                .split_once(':')
                .ok_or_else(|| bad("each player's pawns are written <letter>:<locations>"))?;
            let name = match letter.as_bytes() {
                [l] => letter_seat(*l),
                _ => None,
            }
            .ok_or_else(|| bad("colour letters are r y g b p o"))?;
            pawn_parts.push((name, locs.split(',').map(str::to_owned).collect()));
        }
        let to_move = match to_move.as_bytes() {
            [b'-'] => None,
            [l] => Some(
                letter_seat(*l).ok_or_else(|| bad("the player to move is a colour letter or -"))?,
            ),
            _ => return Err(bad("the player to move is a colour letter or -")),
        };
        let dice = match *dice {
            "-" => None,
            digits => Some(
                digits
                    .bytes()
                    .map(|b| i64::from(b) - i64::from(b'0'))
                    .collect(),
            ),
        };
        let centre = match *centre {
            "-" => Vec::new(),
            letters => letters
                .bytes()
                .map(|l| {
                    letter_seat(l)
                        .ok_or_else(|| bad("the centre is colour letters in order of entry, or -"))
                })
                .collect::<Result<_>>()?,
        };
        let counts: Vec<&str> = captures.split('/').collect();
        if counts.len() != game.seats.len() {
            return Err(bad(
                "captures are one count per seated player, in seat order, separated by /",
            ));
        }
        let mut capture_parts = Vec::new();
        for (&seat, count) in game.seats.iter().zip(counts) {
            let n =
                moves::decimal(count).ok_or_else(|| bad("a capture count is a decimal number"))?;
            capture_parts.push((COLOURS[usize::from(seat)].to_owned(), i64::from(n)));
        }
        let chance =
            Chance::from_state(&chance::parse_notation(rng, SeedText::Short)?, "position")?;
        let parts = Parts {
            pawns: pawn_parts,
            to_move,
            dice,
            centre,
            captures: capture_parts,
            scores: None,
        };
        let position = Position::from_parts(game, chance, parts)?;
        let canonical = Self::position_text(&position);
        if canonical != text {
            return Err(Error::invalid_state(
                "position",
                format!("the position is not written canonically (seat order, sorted locations); it reads as {canonical:?}"),
            ));
        }
        Ok(position)
    }

    fn position_text(position: &Position) -> String {
        let letter = |seat: u8| LETTERS[usize::from(seat)] as char;
        let mut text = String::with_capacity(96);
        for (n, &seat) in position.game.seats.iter().enumerate() {
            if n > 0 {
                text.push('/');
            }
            text.push(letter(seat));
            text.push(':');
            for (i, &loc) in position.pawns[usize::from(seat)].iter().enumerate() {
                if i > 0 {
                    text.push(',');
                }
                position.push_loc_name(loc, &mut text);
            }
        }
        text.push(' ');
        match position.to_move {
            NOBODY => text.push('-'),
            seat => text.push(letter(seat)),
        }
        text.push(' ');
        if position.dice_len == 0 {
            text.push('-');
        }
        for &die in position.dice() {
            push_number(&mut text, u32::from(die));
        }
        text.push(' ');
        if position.centre_len == 0 {
            text.push('-');
        }
        text.extend(position.centre().iter().map(|&s| letter(s)));
        text.push(' ');
        for (n, &seat) in position.game.seats.iter().enumerate() {
            if n > 0 {
                text.push('/');
            }
            push_number(&mut text, position.captures[usize::from(seat)]);
        }
        text.push(' ');
        text.push_str(&position.chance.notation(SeedText::Short));
        text
    }

    fn to_move(position: &Position) -> Option<&'static str> {
        (position.to_move != NOBODY).then(|| COLOURS[usize::from(position.to_move)])
    }

    fn parse_move(text: &str) -> Result<Move> {
        moves::parse_move(text)
    }

    fn legal_moves(position: &Position) -> Vec<Move> {
        position.legal_moves()
    }

    fn legal_move_texts(position: &Position) -> Vec<String> {
        position.legal_move_texts()
    }

    fn play(position: &Position, mv: Move) -> Result<(Position, Effects)> {
        position.play(mv)
    }

    fn outcome(position: &Position) -> Outcome {
        position.outcome()
    }

    fn perft(position: &Position, depth: u32) -> u64 {
        position.perft(depth)
    }
}
