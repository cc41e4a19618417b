//! Iago's observation: 7 planes of the 61 cells (cell order, as the action ids), seen by one player
//! ("own" is that player's colour): 0 own discs face up, 1 own captives, 2 the opponent's discs face
//! up, 3 the opponent's captives, 4 empty cells; 5 all ones when the player is to move; 6 all ones
//! when the side to move may claim a skipped forced capture (penalty option). Iago has no hidden
//! information: both players see everything.

use super::board::CELL_COUNT;
use super::{Color, Position};

pub const PLANES: usize = 7;

pub fn planes(position: &Position, player: usize) -> Vec<f32> {
    let own = if player == 0 {
        Color::Black
    } else {
        Color::White
    };
    let other = own.other();
    let empty = super::board::ALL & !position.occupied();
    let masks = [
        position.up(own),
        position.owners[own as usize] & position.captive,
        position.up(other),
        position.owners[other as usize] & position.captive,
        empty,
    ];
    let mut tensor = vec![0.0; PLANES * CELL_COUNT];
    for (plane, mask) in masks.iter().enumerate() {
        for cell in 0..CELL_COUNT {
            tensor[plane * CELL_COUNT + cell] = (mask >> cell & 1) as f32;
        }
    }
    let flags = [
        position.to_move == own && !position.is_finished(),
        position.penalty_claim,
    ];
    for (offset, flag) in flags.iter().enumerate() {
        let plane = &mut tensor[(5 + offset) * CELL_COUNT..(6 + offset) * CELL_COUNT];
        plane.fill(f32::from(u8::from(*flag)));
    }
    tensor
}
