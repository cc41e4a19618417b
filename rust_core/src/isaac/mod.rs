//! Isaac: two players place straight pieces (3 to 7 cells) on a 10 × 10 board until neither can, then
//! remove them one by one for points, advancing score markers that run over the same board.
//! Spec: `docs/rules/isaac.md` (its last section: notation, list orders, ties).

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

use crate::chance::ChanceKeys;
use crate::error::{Error, Result};
use crate::game::{CheckedSetup, Outcome, Rules};
use crate::info::{Described, GameOption, GameVariant, Info};
pub use board::{cell_name, parse_cell, Piece, CELL_COUNT, COLUMNS, MAX_SCORE, ROWS, TARGET};
use board::{LENGTHS, MIN_LENGTH, SUPPLY};
pub use moves::{Action, Effects};
pub use notation::Move;
pub use position::{DecidedBy, Phase, Position};
pub use setup::{Config, Options, ScoringStarts, Setup};
pub use state::{PerPlayer, State};

pub use crate::players::Color;

pub struct Isaac;

impl Rules for Isaac {
    const NAME: &'static str = "isaac";
    const RULES_VERSION: &'static str = "isaac@1";
    const PLAYERS: &'static [&'static str] = &<Color as crate::players::TwoPlayers>::NAMES;
    const DECIDED_BY: &'static [(&'static str, &'static str)] = DecidedBy::GLOSSARY;
    type Setup = Setup;
    type Position = Position;
    type Move = Move;
    type State = State;
    type Effects = Effects;

    fn validate_setup(setup: Setup) -> Result<Setup> {
        setup
            .config()
            .map(Config::setup)
            .map_err(|(field, detail)| Error::InvalidOptions { field, detail })
    }

    fn start(
        setup: &CheckedSetup<Setup>,
        _seed: Option<u64>,
        _keys: Option<&ChanceKeys>,
    ) -> Position {
        // Setups reach `start` checked by `check_setup`; an unchecked bad one plays the defaults.
        Position::start(setup.config().unwrap_or_default())
    }

    fn read_state<'de, D: Deserializer<'de>>(
        deserializer: D,
        _keys: Option<&ChanceKeys>,
    ) -> std::result::Result<Result<Position>, D::Error> {
        state::read(deserializer)
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
        _keys: Option<&ChanceKeys>,
    ) -> Result<Position> {
        position::parse_position(text, setup)
    }

    fn position_text(position: &Position) -> String {
        position::position_text(position)
    }

    fn to_move(position: &Position) -> Option<&'static str> {
        position.to_move.map(Color::name)
    }

    fn parse_move(text: &str) -> Result<Move> {
        text.parse()
    }

    fn legal_moves(position: &Position) -> Vec<Move> {
        position.legal_moves()
    }

    fn legal_move_texts(position: &Position) -> Vec<String> {
        position.legal_moves().iter().map(Move::text).collect()
    }

    fn compact_moves(position: &Position) -> Vec<String> {
        position.compact_moves()
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

/// What only the game's description tells; the rest is its constants'.
impl Described for Isaac {
    fn info() -> Info {
        let pieces: Vec<Value> = LENGTHS
            .iter()
            .map(|&length| {
                json!({
                    "length": length,
                    "count": SUPPLY[length - MIN_LENGTH],
                    "value": board::VALUE[length - MIN_LENGTH],
                })
            })
            .collect();
        let variants = vec![GameVariant::default(
            "standard",
            "place straight pieces until neither player can, then remove them for points on the board's score track",
        )];
        let options = vec![
            GameOption::new("first_player", "string", "black".into(), "who places first (and wins the last tie-break)")
                .one_of(&["black", "white"]),
            GameOption::new(
                "scoring_starts",
                "string",
                "first_to_pass".into(),
                "who opens the scoring phase: the player who passed first in the placement phase, or the first player",
            )
            .one_of(&["first_to_pass", "first_player"]),
        ];
        let board = json!({
            "shape": "square",
            "columns": ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"],
            "rows": 10,
            "pieces": pieces,
            "target": TARGET,
            "score_track": "black's score s is cell index s (a1 = 0, j10 = 99); white's score s is cell index 99 − s",
        });
        let notation = [
            ("move", "a placement by its end cells, lower-left first (c4-g4); a removal with its marker advance (xc4-g4+12); pass"),
            ("compact_moves", "one entry a removable piece: xc4-g4+0..18, or xc4-g4+0..18!7 when advance 7 would land on the other marker"),
            ("position", "pieces (Bc4-g4,Wd2-d8 by lower-left cell, or -), phase, to move (b, w or -), scores (black,white), first to pass (b, w or -), passed (-, b, w or bw), removed lengths (black/white, e.g. 345/-)"),
        ];
        Info::of::<Self>("Isaac", variants, options, board, &notation)
    }
}
