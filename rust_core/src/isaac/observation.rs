//! Isaac's observation: 22 planes of the 10 × 10 board (row 1 first, column a first, as Black sees
//! it), seen by one player ("own" is that player's colour): 0 own pieces' cells, 1 the opponent's,
//! 2 own pieces' two end cells, 3 the opponent's, 4 own score marker, 5 the opponent's; constant
//! planes: 6 the scoring phase, 7 the player is to move, 8-12 own unplaced pieces of length 3..7
//! (each count over the supply), 13-17 the opponent's, 18 own longest removed length / 7, 19 the
//! opponent's, 20 own pass in this phase, 21 the opponent's. No hidden information.

use super::board::{cells_of, Piece, SUPPLY};
use super::{Color, Phase, Position};

pub const PLANES: usize = 22;
const CELLS: usize = 100;

pub fn planes(position: &Position, player: usize) -> Vec<f32> {
    let own = if player == 0 {
        Color::Black
    } else {
        Color::White
    };
    let sides = [own, own.other()];
    let mut tensor = vec![0.0; PLANES * CELLS];
    let mut set = |plane: usize, cell: usize| tensor[plane * CELLS + cell] = 1.0;
    for (k, &color) in sides.iter().enumerate() {
        for &mask in position.pieces(color) {
            for cell in cells_of(mask) {
                set(k, cell);
            }
            if let Some(piece) = Piece::from_mask(mask) {
                set(2 + k, piece.anchor());
                set(2 + k, piece.end());
            }
        }
        if let Some(cell) = position.marker(color) {
            set(4 + k, cell);
        }
    }
    let mut constants = vec![
        f32::from(u8::from(position.phase == Phase::Scoring)),
        f32::from(u8::from(position.to_move == Some(own))),
    ];
    for &color in &sides {
        for (length, &supply) in SUPPLY.iter().enumerate() {
            constants
                .push(f32::from(position.unplaced[color as usize][length]) / f32::from(supply));
        }
    }
    for &color in &sides {
        constants.push(f32::from(position.longest_removed(color)) / 7.0);
    }
    for &color in &sides {
        constants.push(f32::from(u8::from(position.passed[color as usize])));
    }
    for (k, value) in constants.into_iter().enumerate() {
        tensor[(6 + k) * CELLS..(7 + k) * CELLS].fill(value);
    }
    tensor
}
