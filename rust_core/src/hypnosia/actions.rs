//! Hypnosia's decisions, as OpenSpiel models Backgammon: chance rolls the dice, then the player
//! moves one die at a time. With S the board's spaces (numbered circle by circle, outermost first,
//! each from index 0) and f a die move's start (0..4 the home squares h1..h4, 4 + s the space s):
//! - `24 f + 12 d + 6 c + (die − 1)` is the die move from f of a double (d = 1) or a single pawn
//!   (d = 0), crossing the bridge first (c = 1) or not, with that die (`D0.17+4`, `h2+5`, `2.1^1`);
//! - `24 (4 + S)` is `pass` (no die can be used);
//! - the next 21 ids are the chance outcomes, the rolls `1-1`, `2-1`, `2-2`, `3-1`, .. `6-6` (the
//!   larger die first), each `1/36` for a double and `2/36` otherwise.
//!
//! Every decision is a move the engine plays: a roll supplied, one die move of a turn, or `pass`.

use super::board::{COLOURS, SEATS};
use super::notation::{parse_move, Die, DieMove, HomeSquare, Start, Turn};
use super::{observation, Hypnosia, Move, Position};
use crate::decisions::{self, Decisions, Node};
use crate::error::Result;

/// Die moves an index of start: double or not, crossing or not, the six dice.
const PER_START: usize = 24;
const ROLLS: usize = 21;

fn die_moves(position: &Position) -> usize {
    (4 + position.board().space_count()) * PER_START
}

/// The roll of outcome `r`, the larger die first: 1-1, 2-1, 2-2, 3-1, ...
fn roll_of(r: usize) -> [u8; 2] {
    let mut r = r;
    let mut high = 1;
    while r >= high {
        r -= high;
        high += 1;
    }
    [high as u8, r as u8 + 1]
}

fn roll_index(dice: [u8; 2]) -> usize {
    let (high, low) = (
        usize::from(dice[0].max(dice[1])),
        usize::from(dice[0].min(dice[1])),
    );
    high * (high - 1) / 2 + low - 1
}

fn die_move_id(position: &Position, mv: DieMove) -> Option<usize> {
    let start = match mv.from() {
        Start::Home(square) => usize::from(square.distance()) - 1,
        Start::Space(circle, index) => {
            4 + usize::from(position.board().space(circle as usize, index as usize)?)
        }
    };
    Some(
        start * PER_START
            + 12 * usize::from(mv.double())
            + 6 * usize::from(mv.cross())
            + usize::from(mv.die())
            - 1,
    )
}

fn die_move_of(position: &Position, action: usize) -> Option<DieMove> {
    let (start, rest) = (action / PER_START, action % PER_START);
    let from = if start < 4 {
        Start::Home(HomeSquare::new(start as u8 + 1)?)
    } else {
        let (circle, index) = position.board().coords((start - 4) as u16);
        Start::Space(u32::from(circle), u32::from(index))
    };
    DieMove::new(from, rest >= 12, rest % 12 >= 6, (rest % 6) as u8 + 1)
}

/// The engine's move of an id.
fn move_of_id(position: &Position, action: usize) -> Option<Move> {
    let pass = die_moves(position);
    match action {
        _ if action < pass => {
            die_move_of(position, action).map(|mv| Move::Turn(Turn::Moves(vec![mv])))
        }
        _ if action == pass => Some(Move::Turn(Turn::Pass)),
        _ if action < pass + 1 + ROLLS => {
            let [high, low] = roll_of(action - pass - 1);
            Some(Move::Supplied {
                dice: [Die::new(high)?, Die::new(low)?],
                turn: None,
            })
        }
        _ => None,
    }
}

fn id_of(position: &Position, mv: &Move) -> Option<usize> {
    let pass = die_moves(position);
    match mv {
        Move::Turn(Turn::Moves(moves)) if moves.len() == 1 => die_move_id(position, moves[0]),
        Move::Turn(Turn::Pass) => Some(pass),
        Move::Supplied { dice, turn: None } => {
            Some(pass + 1 + roll_index(dice.map(|die| die.value())))
        }
        _ => None,
    }
}

impl Decisions for Hypnosia {
    type Pending = ();
    /// Captures send pawns home without end: a generous bound.
    const MAX_DECISIONS: usize = 100_000;
    const MAX_CHANCE_OUTCOMES: usize = ROLLS;
    const PLAYER_COUNTS: (usize, usize) = (2, SEATS);

    fn num_actions(position: &Position) -> usize {
        die_moves(position) + 1 + ROLLS
    }

    fn action_of(position: &Position, text: &str) -> Result<usize> {
        let mv = parse_move(text)?;
        id_of(position, &mv).ok_or_else(|| {
            decisions::not_a_decision(
                text,
                "a roll (5-4), one die move from a space of the board (h2+5, D0.17+4, 2.1^1) or pass",
            )
        })
    }

    fn move_of(position: &Position, action: usize) -> Result<String> {
        move_of_id(position, action)
            .map(|mv| mv.to_string())
            .ok_or_else(|| decisions::out_of_range(action, Self::num_actions(position)))
    }

    fn legal_actions(node: &Node<Self>) -> Vec<usize> {
        let position = &node.position;
        if position.is_over() {
            return Vec::new();
        }
        if position.dice_len == 0 {
            let first = die_moves(position) + 1;
            return (first..first + ROLLS).collect();
        }
        let pass = die_moves(position);
        let (_, mut ids) = position.each_turn(|turn, _| match turn {
            Turn::Moves(moves) => die_move_id(position, moves[0]).unwrap_or(pass),
            Turn::Pass => pass,
        });
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    fn is_chance(node: &Node<Self>) -> bool {
        node.position.dice_len == 0 && !node.position.is_over()
    }

    fn chance_outcomes(node: &Node<Self>) -> Vec<(usize, f64)> {
        if !Self::is_chance(node) {
            return Vec::new();
        }
        let first = die_moves(&node.position) + 1;
        (0..ROLLS)
            .map(|r| {
                let [high, low] = roll_of(r);
                let ways = if high == low { 1.0 } else { 2.0 };
                (first + r, ways / 36.0)
            })
            .collect()
    }

    fn apply(node: &mut Node<Self>, action: usize) -> Result<Option<Move>> {
        let mv = move_of_id(&node.position, action)
            .ok_or_else(|| decisions::out_of_range(action, Self::num_actions(&node.position)))?;
        node.position = node.position.play(mv.clone())?.0;
        Ok(Some(mv))
    }

    fn observation_shape(position: &Position) -> Vec<usize> {
        vec![observation::size(position)]
    }

    fn observation(node: &Node<Self>, player: usize) -> Vec<f32> {
        observation::features(&node.position, player)
    }

    fn players(position: &Position) -> Vec<&'static str> {
        position
            .game
            .seats
            .iter()
            .map(|&seat| COLOURS[usize::from(seat)])
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rolls_are_numbered_larger_die_first() {
        for r in 0..ROLLS {
            assert_eq!(roll_index(roll_of(r)), r);
        }
        assert_eq!(roll_of(0), [1, 1]);
        assert_eq!(roll_of(ROLLS - 1), [6, 6]);
    }
}
