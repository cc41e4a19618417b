//! Iago's move notation: a placement is the cell it puts a disc on (`e4`, a row a..i and a
//! diagonal 1..9); the `Move`, always a cell of the board, and its text. Reading one is
//! `parse_cell`, by `Iago::parse_move`; whether the cell is empty and may be taken is a legality
//! question, answered by `play`.

use std::fmt;

use super::board::cell_name;

/// Moves in a module of their own, so that nothing, this file included, builds one but through
/// `Move::new`: a move always names a cell of the board, and `1u64 << cell` cannot overflow.
mod placement {
    use super::super::board::CELL_COUNT;

    /// A placement: the cell a disc is put on, always one of the board's 61.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct Move(u8);

    impl Move {
        /// The placement on `cell`, if the board has that cell.
        pub fn new(cell: usize) -> Option<Move> {
            (cell < CELL_COUNT).then_some(Move(cell as u8))
        }

        /// The cell placed on, below `CELL_COUNT`.
        pub fn cell(self) -> usize {
            usize::from(self.0)
        }
    }
}

pub use placement::Move;

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&cell_name(self.cell()))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Iago, CELL_COUNT};
    use super::*;
    use crate::game::Rules;

    #[test]
    fn a_move_names_a_cell_of_the_board() {
        assert_eq!(Move::new(CELL_COUNT), None);
        assert_eq!(Move::new(u8::MAX.into()), None);
        for cell in 0..CELL_COUNT {
            let mv = Move::new(cell).unwrap();
            assert_eq!(Iago::parse_move(&mv.to_string()), Ok(mv));
        }
    }
}
