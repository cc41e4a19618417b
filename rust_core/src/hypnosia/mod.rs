//! Hypnosia: 2–6 players race 4 pawns each around concentric circles towards the centre, with two
//! dice, doubles, captures and bridges. Spec: `rules/hypnosia.md`; interface: `specs/hypnosia.md`.
//!
//! The board is data (`board.rs`): a setup carries its board description, checked and compiled once.
//! A pawn's location is a `u16` code whose numeric order is the order states list pawns in: home
//! squares by distance, spaces by (circle, index), the centre, then captured.

mod board;
mod invariants;
mod moves;
mod position;
mod setup;
mod state;

use serde_json::{json, Value};

use crate::chance::{self, Chance, SeedText};
use crate::error::{Error, Result};
use crate::game::{Outcome, Rules};
pub use board::COLOURS;
use board::{seat_of_letter, LETTERS};
pub use board::{Board, Bridge, CENTRE_SPACES, PAWNS, SEATS};
pub use moves::{Captured, DieMove, DieMoveEffects, Effects, Move, Start, Turn};
pub use position::Position;
use position::{push_number, NOBODY};
use setup::default_seats;
pub use setup::{CompiledSetup, Options, Setup, Variant};
use state::Parts;
pub use state::State;

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
