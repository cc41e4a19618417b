//! Hypnosia's observation, a vector seen by one player: the seated players in seat order starting at
//! that player, each a block of S + 6 numbers (S the board's spaces: its pawns on home squares h1..h4
//! (1 each), on each space (pawns / 2), in the centre (pawns / 4), captured (pawns / 4)); then
//! `(score + 10) / 20` of each, in the same order; then who is to move (one-hot, same order); then
//! the unused dice, two one-hot blocks of 7 (index 0: no die). Length n (S + 8) + 14 for n players.
//! No hidden information: every player sees the whole position.

use super::board::{on_space, CAPTURED, CENTRE, SPACE_BASE};
use super::Position;

pub fn size(position: &Position) -> usize {
    let players = position.game.seats.len();
    players * (position.board().space_count() + 8) + 14
}

pub fn features(position: &Position, player: usize) -> Vec<f32> {
    let seats = &position.game.seats;
    let n = seats.len();
    let block = position.board().space_count() + 6;
    let mut tensor = vec![0.0; size(position)];
    let order: Vec<u8> = (0..n).map(|k| seats[(player + k) % n]).collect();
    for (k, &seat) in order.iter().enumerate() {
        for &loc in &position.pawns[usize::from(seat)] {
            let index = location_index(position, loc);
            let weight = if index < 4 {
                1.0
            } else if index < block - 2 {
                0.5
            } else {
                0.25
            };
            tensor[k * block + index] += weight;
        }
        tensor[n * block + k] = (position.scores[usize::from(seat)] as f32 + 10.0) / 20.0;
        tensor[n * block + n + k] = f32::from(u8::from(position.to_move == seat));
    }
    let dice = n * block + 2 * n;
    for slot in 0..2 {
        let die = position.dice().get(slot).copied().unwrap_or(0);
        tensor[dice + 7 * slot + usize::from(die)] = 1.0;
    }
    tensor
}

/// A pawn's index in the observation's block of its player: home squares, spaces, centre, captured.
pub(super) fn location_index(position: &Position, loc: u16) -> usize {
    let spaces = position.board().space_count();
    match loc {
        CENTRE => 4 + spaces,
        CAPTURED => 5 + spaces,
        _ if loc < SPACE_BASE => usize::from(loc),
        _ => 4 + usize::from(loc - on_space(0)),
    }
}
