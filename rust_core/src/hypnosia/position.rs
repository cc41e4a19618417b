//! The position: pawns, player to move, dice, centre, captures, scores; its outcome, and its text
//! (written and read).

use std::collections::BTreeMap;
use std::sync::Arc;

use super::board::{
    colour_seat, is_active, seat_of_letter, Board, Loc, CAPTURED, CENTRE, CENTRE_SPACES, COLOURS,
    LETTERS, PAWNS, SEATS, SPACE_BASE,
};
use super::setup::{compiled_game, CompiledSetup, Setup};
use super::Hypnosia;
use crate::chance::{self, Chance, ChanceKeys, SeedText};
use crate::digits::{decimal, push_number};
use crate::error::{codes, Error, Result};
use crate::game::{CheckedSetup, Outcome, Rules};

/// `to_move` once the game is over.
pub(super) const NOBODY: u8 = u8::MAX;

codes! {
    /// What decided a finished game of Hypnosia (its outcome's `decided_by`).
    pub enum DecidedBy {
        /// The most points, alone.
        Score => "score",
        /// Tied on points: the first to enter the centre ranks first.
        FirstToCentre => "first_to_centre",
        /// The top rank is shared: `winner` is null.
        Shared => "shared",
    }
}

/// A valid Hypnosia position.
#[derive(Debug, Clone)]
pub struct Position {
    pub(super) game: Arc<CompiledSetup>,
    /// Per seat, its 4 pawns' locations, sorted; unseated seats hold captured placeholders.
    pub(super) pawns: [[Loc; PAWNS]; SEATS],
    pub(super) to_move: u8,
    /// The unused dice of the turn, in the order they remain; `dice_len == 0` before the roll.
    pub(super) dice: [u8; 2],
    pub(super) dice_len: u8,
    /// Seats in order of entry, one per pawn.
    pub(super) centre: [u8; CENTRE_SPACES],
    pub(super) centre_len: u8,
    /// Enemy pawns each seat has captured.
    pub(super) captures: [u32; SEATS],
    pub(super) scores: [i64; SEATS],
    pub(super) chance: Arc<Chance>,
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

impl Position {
    pub(super) fn initial(game: Arc<CompiledSetup>, chance: Chance, to_move: u8) -> Position {
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

    pub(super) fn board(&self) -> &Board {
        &self.game.board
    }

    pub fn dice(&self) -> &[u8] {
        &self.dice[..usize::from(self.dice_len)]
    }

    pub(super) fn centre(&self) -> &[u8] {
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

    pub(super) fn has_active(&self, seat: u8) -> bool {
        self.pawns[usize::from(seat)].iter().any(|&l| is_active(l))
    }

    /// The name of a location, as states and effects write it.
    pub(super) fn loc_name(&self, loc: Loc) -> String {
        let mut name = String::with_capacity(8);
        self.push_loc_name(loc, &mut name);
        name
    }

    /// `loc_name` at the end of `text`, without a string of its own (positions write many).
    pub(super) fn push_loc_name(&self, loc: Loc, text: &mut String) {
        match loc {
            CENTRE => text.push_str("centre"),
            CAPTURED => text.push_str("captured"),
            _ if loc < SPACE_BASE => {
                text.push('h');
                push_number(text, u64::from(loc) + 1);
            }
            _ => {
                let (circle, index) = self.board().coords(loc - SPACE_BASE);
                push_number(text, u64::from(circle));
                text.push('.');
                push_number(text, u64::from(index));
            }
        }
    }

    pub(super) fn count(&self, seat: u8, loc: Loc) -> u8 {
        self.pawns[usize::from(seat)]
            .iter()
            .filter(|&&l| l == loc)
            .count() as u8
    }

    /// The enemy unit on `loc`, if any: its seat and size.
    pub(super) fn enemy_at(&self, seat: u8, loc: Loc) -> Option<(u8, u8)> {
        self.game
            .seats
            .iter()
            .filter(|&&other| other != seat)
            .find_map(|&other| {
                let n = self.count(other, loc);
                (n > 0).then_some((other, n))
            })
    }

    pub fn outcome(&self) -> Outcome {
        let seats = &self.game.seats;
        let scores: BTreeMap<&'static str, i64> = seats
            .iter()
            .map(|&s| (COLOURS[usize::from(s)], self.scores[usize::from(s)]))
            .collect();
        if !self.is_over() {
            return Outcome::ongoing(COLOURS[usize::from(self.to_move)], scores);
        }
        let ranking = self.ranking();
        let top = ranking[0][0];
        let top_points = self.scores[colour_seat(top).expect("a ranked colour is a seat's")];
        let tied_on_points = seats
            .iter()
            .filter(|&&s| self.scores[usize::from(s)] == top_points)
            .count();
        let decided_by = if ranking[0].len() > 1 {
            DecidedBy::Shared
        } else if tied_on_points > 1 {
            DecidedBy::FirstToCentre
        } else {
            DecidedBy::Score
        };
        Outcome::ranked(scores, ranking, decided_by.code())
    }

    /// The players ranked as the position stands, best first, tied players sharing an entry: by
    /// points (more is better), then the first centre entry (earlier is better; none last). Once
    /// the game is over, its final ranking.
    pub fn ranking(&self) -> Vec<Vec<&'static str>> {
        let key = |seat: u8| {
            let first = self
                .centre()
                .iter()
                .position(|&s| s == seat)
                .unwrap_or(usize::MAX);
            (-self.scores[usize::from(seat)], first)
        };
        let mut order: Vec<u8> = self.game.seats.clone();
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
        ranking
    }
}

/// The untrusted content of a state, from JSON or from the position notation; its names are any
/// strings (`String`, or borrowed from the text they were read from).
pub(super) struct Parts<S> {
    pub(super) pawns: Vec<(S, Vec<S>)>,
    pub(super) to_move: Option<S>,
    pub(super) dice: Option<Vec<i64>>,
    pub(super) centre: Vec<S>,
    pub(super) captures: Vec<(S, i64)>,
    pub(super) scores: Option<Vec<(S, i64)>>,
}

pub(super) fn parse_position(
    text: &str,
    setup: &CheckedSetup<Setup>,
    keys: Option<&ChanceKeys>,
) -> Result<Position> {
    let game = compiled_game(setup);
    let fields: Vec<&str> = text.split(' ').collect();
    let [pawns, to_move, dice, centre, captures, rng] = fields.as_slice() else {
        return Err(bad("a position is six fields separated by single spaces: pawns, player to move, dice, centre, captures, random source"));
    };
    let pawns = parse_pawns(pawns)?;
    let to_move = match to_move.as_bytes() {
        [b'-'] => None,
        [l] => Some(
            letter_colour(*l).ok_or_else(|| bad("the player to move is a colour letter or -"))?,
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
                letter_colour(l)
                    .ok_or_else(|| bad("the centre is colour letters in order of entry, or -"))
            })
            .collect::<Result<_>>()?,
    };
    let captures = parse_captures(captures, &game.seats)?;
    let rng = chance::parse_notation(rng, SeedText::Short)?;
    let chance = Chance::from_state(&rng, "position", keys)?;
    let parts = Parts {
        pawns,
        to_move,
        dice,
        centre,
        captures,
        scores: None,
    };
    let position = Position::from_parts(game, chance, parts)?;
    let canonical = Hypnosia::position_text(&position);
    if canonical != text {
        return Err(Error::invalid_state(
            "position",
            format!("the position is not written canonically (seat order, sorted locations); it reads as {canonical:?}"),
        ));
    }
    Ok(position)
}

/// A refusal of the position text, saying why.
fn bad(why: &str) -> Error {
    Error::invalid_state("position", why.to_owned())
}

/// The colour a letter names, if it names one.
fn letter_colour(letter: u8) -> Option<&'static str> {
    seat_of_letter(letter).map(|s| COLOURS[s])
}

/// The pawns field: `<letter>:<locations>` per player, separated by `/`.
fn parse_pawns(field: &str) -> Result<Vec<(&'static str, Vec<&str>)>> {
    let mut pawns = Vec::new();
    for player in field.split('/') {
        let (letter, locs) = player
            .split_once(':')
            .ok_or_else(|| bad("each player's pawns are written <letter>:<locations>"))?;
        let name = match letter.as_bytes() {
            [l] => letter_colour(*l),
            _ => None,
        }
        .ok_or_else(|| bad("colour letters are r y g b p o"))?;
        pawns.push((name, locs.split(',').collect()));
    }
    Ok(pawns)
}

/// The captures field: one decimal count per seated player, in seat order, separated by `/`.
fn parse_captures(field: &str, seats: &[u8]) -> Result<Vec<(&'static str, i64)>> {
    let counts: Vec<&str> = field.split('/').collect();
    if counts.len() != seats.len() {
        return Err(bad(
            "captures are one count per seated player, in seat order, separated by /",
        ));
    }
    seats
        .iter()
        .zip(counts)
        .map(|(&seat, count)| {
            let n = decimal(count).ok_or_else(|| bad("a capture count is a decimal number"))?;
            Ok((COLOURS[usize::from(seat)], i64::from(n)))
        })
        .collect()
}

pub(super) fn position_text(position: &Position) -> String {
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
        push_number(&mut text, u64::from(die));
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
        push_number(&mut text, u64::from(position.captures[usize::from(seat)]));
    }
    text.push(' ');
    text.push_str(&position.chance.notation(SeedText::Short));
    text
}
