//! Iago's decisions: one id a cell, `0..61` in cell order (`a1 a2 .. a5 b1 .. i9`, rows a..i, each
//! by diagonal), the placement on that cell. Every decision is a move; there is no chance.

use super::board::{cell_name, cells_of, CELL_COUNT};
use super::{observation, Iago, Move, Position};
use crate::decisions::{self, Decisions, Node};
use crate::error::{Error, Result};
use crate::game::Rules;

impl Decisions for Iago {
    type Pending = ();
    /// Every placement of the board.
    const MAX_DECISIONS: usize = 61;

    fn num_actions(_position: &Position) -> usize {
        CELL_COUNT
    }

    fn action_of(_position: &Position, text: &str) -> Result<usize> {
        Iago::parse_move(text).map(Move::cell)
    }

    fn move_of(_position: &Position, action: usize) -> Result<String> {
        if action >= CELL_COUNT {
            return Err(decisions::out_of_range(action, CELL_COUNT));
        }
        Ok(cell_name(action))
    }

    fn legal_actions(node: &Node<Self>) -> Vec<usize> {
        if node.position.is_finished() {
            return Vec::new();
        }
        cells_of(node.position.turn().legal).collect()
    }

    fn is_chance(_node: &Node<Self>) -> bool {
        false
    }

    fn chance_outcomes(_node: &Node<Self>) -> Vec<(usize, f64)> {
        Vec::new()
    }

    /// `play` without its effects (the engine's own steps, as perft takes them); a refusal is `play`'s.
    fn apply(node: &mut Node<Self>, action: usize) -> Result<Option<Move>> {
        let mv = Move::new(action).ok_or_else(|| decisions::out_of_range(action, CELL_COUNT))?;
        let position = &node.position;
        let turn = position.turn();
        if position.is_finished() || turn.legal >> action & 1 == 0 {
            return Err(position.play(mv).err().unwrap_or(Error::GameOver));
        }
        node.position = position.apply(action, position.flips(action), &turn).0;
        Ok(Some(mv))
    }

    /// The turn's legal set (the generator's) taken once: its count and its k-th cell, played by
    /// perft's steps.
    fn take_nth(node: &mut Node<Self>, pick: impl FnOnce(usize) -> usize) -> bool {
        let position = &node.position;
        if position.is_finished() {
            return false;
        }
        let turn = position.turn();
        let legal = turn.legal;
        let Some(cell) = cells_of(legal).nth(pick(legal.count_ones() as usize)) else {
            return false;
        };
        node.position = position.apply(cell, position.flips(cell), &turn).0;
        true
    }

    fn observation_shape(_position: &Position) -> Vec<usize> {
        vec![observation::PLANES, CELL_COUNT]
    }

    fn observation(node: &Node<Self>, player: usize) -> Vec<f32> {
        observation::planes(&node.position, player)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chance::Chance;

    #[test]
    fn a_random_decision_is_one_of_the_legal_ones() {
        let start = Iago::start(&crate::game::default_setup::<Iago>(), None, None);
        let mut node = Node::<Iago>::new(start);
        let mut chance = Chance::from_seed(5, None);
        while !node.position.is_finished() {
            decisions::check_take_nth(&node);
            let next: Vec<Position> = Iago::legal_actions(&node)
                .into_iter()
                .map(|action| {
                    let mut child = node.clone();
                    Iago::apply(&mut child, action).unwrap();
                    child.position
                })
                .collect();
            assert!(Iago::random_decision(&mut node, &mut chance));
            assert!(next.contains(&node.position));
        }
        assert!(!Iago::random_decision(&mut node, &mut chance));
    }
}
