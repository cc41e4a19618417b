//! Hypnosia: 2–6 players race 4 pawns each around concentric circles towards the centre, with two
//! dice, doubles, captures and bridges. Spec: `docs/rules/hypnosia.md` (notation: its last section).
//!
//! The board is data (`board.rs`): a setup carries its board description, checked and compiled once.
//! A pawn's location is a `u16` code whose numeric order is the order states list pawns in: home
//! squares by distance, spaces by (circle, index), the centre, then captured.

mod actions;
mod board;
mod generate;
mod invariants;
mod moves;
mod notation;
mod observation;
mod position;
mod setup;
mod state;

use serde::{Deserializer, Serialize, Serializer};
use serde_json::{json, Value};

use crate::chance::{self, Chance, ChanceKeys};
use crate::error::Result;
use crate::game::{CheckedSetup, Outcome, Rules};
use crate::info::{Described, GameOption, GameVariant, Info};
pub use board::COLOURS;
use board::LETTERS;
pub use board::{Board, Bridge, CENTRE_SPACES, PAWNS, SEATS};
pub use moves::{Captured, DieMoveEffects, Effects};
pub use notation::{Die, DieMove, HomeSquare, Move, Start, Turn};
pub use position::{DecidedBy, Position};
use position::NOBODY;
use setup::default_seats;
pub use setup::{
    cache_bytes, set_cache_bytes, CompiledSetup, Options, Setup, Variant, DEFAULT_CACHE_BYTES,
};
pub use state::State;

pub struct Hypnosia;

impl Rules for Hypnosia {
    const NAME: &'static str = "hypnosia";
    const RULES_VERSION: &'static str = "hypnosia@1";
    const PLAYERS: &'static [&'static str] = &COLOURS;
    const DECIDED_BY: &'static [(&'static str, &'static str)] = DecidedBy::GLOSSARY;
    type Setup = Setup;
    type Position = Position;
    type Move = Move;
    type State = State;
    type Effects = Effects;

    fn validate_setup(setup: Setup) -> Result<Setup> {
        setup.checked()
    }

    fn start(
        setup: &CheckedSetup<Setup>,
        seed: Option<u64>,
        keys: Option<&ChanceKeys>,
    ) -> Position {
        let game = setup::compiled_game(setup);
        let mut chance = Chance::from_seed(seed.unwrap_or_else(chance::fresh_seed), keys);
        let first = match game.first_player {
            Some(seat) => seat,
            None => game.seats[chance.below(game.seats.len() as u32) as usize],
        };
        Position::initial(game, chance, first)
    }

    fn read_state<'de, D: Deserializer<'de>>(
        deserializer: D,
        keys: Option<&ChanceKeys>,
    ) -> std::result::Result<Result<Position>, D::Error> {
        state::read(deserializer, keys)
    }

    fn write_state<S: Serializer>(
        position: &Position,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        state::to_state(position).serialize(serializer)
    }

    fn parse_position(
        text: &str,
        setup: &CheckedSetup<Setup>,
        keys: Option<&ChanceKeys>,
    ) -> Result<Position> {
        position::parse_position(text, setup, keys)
    }

    fn position_text(position: &Position) -> String {
        position::position_text(position)
    }

    fn to_move(position: &Position) -> Option<&'static str> {
        (position.to_move != NOBODY).then(|| COLOURS[usize::from(position.to_move)])
    }

    fn parse_move(text: &str) -> Result<Move> {
        notation::parse_move(text)
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

    fn standing(position: &Position) -> Option<Vec<Vec<&'static str>>> {
        Some(position.ranking())
    }

    fn perft(position: &Position, depth: u32) -> u64 {
        position.perft(depth)
    }
}

/// What only the game's description tells; the rest is its constants'.
impl Described for Hypnosia {
    fn info() -> Info {
        let default = Board::default_description();
        let seats: Vec<Value> = (0..SEATS)
            .map(|s| json!({ "seat": s, "colour": COLOURS[s], "letter": (LETTERS[s] as char).to_string(), "entry": default["entries"][s] }))
            .collect();
        let default_seats: serde_json::Map<String, Value> = (2..=6)
            .map(|n| (n.to_string(), json!(default_seats(n))))
            .collect();
        let variants = vec![GameVariant::default(
            "standard",
            "2 to 6 players, 4 pawns each, two dice; the board is data (a default reconstruction, or the client's own)",
        )];
        let options = vec![
            GameOption::new("players", "integer", 2.into(),
                "2 to 6 players; default seats 2: 0,3; 3: 0,2,4; 4: 0,1,3,4; 5: 0..4; 6: all"),
            GameOption::new("seats", "array", Value::Null,
                "explicit distinct seat numbers 0..5 (length = players); stored sorted"),
            GameOption::new("first_player", "string", Value::Null,
                "a seated colour; when absent, drawn from the seeded source (seated colours in seat order, index below(players))"),
            GameOption::new("doubles_cross_bridges", "boolean", true.into(),
                "false: the harder variant, a double cannot cross any bridge (the centre included) and must split first"),
            GameOption::new("board", "object", default.clone(),
                "a board description: circles (outermost first), entries (6), bridges, centre_points (5), home_length (4)"),
        ];
        let board = json!({
            "default": default,
            "reconstruction": "the physical board's drawing is not public: the default is a symmetric reconstruction; pass the real board's description to play on it",
            "seats": seats,
            "default_seats": default_seats,
            "pawns_per_player": PAWNS,
            "centre_spaces": CENTRE_SPACES,
            "turn_order": "next lower seat number among the seated players, wrapping; players with no pawn at home or on a circle are skipped",
        });
        let notation = [
            ("move", "`roll`; a roll `5-4`; die moves `[D]<from>(+|^)<die>` (from h1..h4 or circle.index; D moves the double, ^ crosses the bridge first), one or two separated by a space, or `pass`; a roll and its whole turn `5-4: h2+5 0.3+4`"),
            ("location", "h1..h4 (home distance), circle.index, centre, captured"),
            ("position", "six fields separated by spaces: the pawns of each seated player in seat order (`r:h1,h2,0.5,captured/b:...`, colour letters r y g b p o), the player to move (letter, or - when over), the unused dice (`54`, `4`, or - before the roll), the centre entries in order (letters, or -), each seated player's captures in seat order (`0/1`), the random source `<seed>:<words used>` (then `@<key id>` when chance is keyed)"),
        ];
        Info::of::<Self>("Hypnosia", variants, options, board, &notation)
    }
}
