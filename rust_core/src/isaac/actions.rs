//! Isaac's decisions, each a whole move. The 600 pieces a board can hold are numbered in the order
//! the legal placements are listed: length 3 to 7, horizontal before vertical, then by lower-left
//! cell (`a1-c1` is 0, `j4-j10` is 599). Ids: `0..600` place piece p; `600 + 73 p + a` removes piece
//! p with a marker advance of a (0 to 72, the most one removal scores); `44400` is `pass`. There is
//! no chance.

use std::sync::OnceLock;

use super::board::{fitting_pieces, ALL, LENGTHS};
use super::{Isaac, Move, Phase, Piece, Position, MAX_SCORE};
use crate::decisions::{self, Decisions, Node};
use crate::error::Result;
use crate::game::Rules;

/// Pieces on an empty board: 2 × 10 × (11 − L) for each length.
const PIECES: usize = 600;
/// The most a marker advances in one removal.
const MAX_ADVANCE: usize = MAX_SCORE as usize - 99;
const REMOVALS: usize = PIECES * (MAX_ADVANCE + 1);
const PASS: usize = PIECES + REMOVALS;
const ACTIONS: usize = PASS + 1;

/// The pieces in id order, and each piece's id by its (length, orientation, anchor) slot.
struct Table {
    pieces: Vec<Piece>,
    ids: Vec<u16>,
}

fn slot(piece: Piece) -> usize {
    ((piece.length() - LENGTHS[0]) * 2 + usize::from(piece.vertical())) * 100 + piece.anchor()
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let pieces: Vec<Piece> = LENGTHS
            .iter()
            .flat_map(|&length| {
                [false, true]
                    .into_iter()
                    .flat_map(move |vertical| fitting_pieces(ALL, length, vertical))
            })
            .collect();
        let mut ids = vec![u16::MAX; LENGTHS.len() * 2 * 100];
        for (id, &piece) in pieces.iter().enumerate() {
            ids[slot(piece)] = id as u16;
        }
        debug_assert_eq!(pieces.len(), PIECES);
        Table { pieces, ids }
    })
}

fn piece_id(piece: Piece) -> usize {
    usize::from(table().ids[slot(piece)])
}

fn id_of(mv: Move) -> usize {
    match mv {
        Move::Place(piece) => piece_id(piece),
        // A legal advance is at most MAX_ADVANCE; a larger one has no id (the caller checks).
        Move::Remove { piece, advance } => {
            PIECES + piece_id(piece) * (MAX_ADVANCE + 1) + advance as usize
        }
        Move::Pass => PASS,
    }
}

fn move_of_id(action: usize) -> Option<Move> {
    let pieces = &table().pieces;
    match action {
        _ if action < PIECES => Some(Move::Place(pieces[action])),
        _ if action < PASS => {
            let (piece, advance) = (
                (action - PIECES) / (MAX_ADVANCE + 1),
                (action - PIECES) % (MAX_ADVANCE + 1),
            );
            Some(Move::Remove {
                piece: pieces[piece],
                advance: advance as u64,
            })
        }
        PASS => Some(Move::Pass),
        _ => None,
    }
}

impl Decisions for Isaac {
    type Pending = ();
    /// Both phases.
    const MAX_DECISIONS: usize = 200;

    fn num_actions(_position: &Position) -> usize {
        ACTIONS
    }

    fn action_of(_position: &Position, text: &str) -> Result<usize> {
        let mv = Isaac::parse_move(text)?;
        if let Move::Remove { advance, .. } = mv {
            if advance as usize > MAX_ADVANCE {
                return Err(decisions::not_a_decision(
                    text,
                    "a placement, a removal advancing at most 72 (the most a removal scores) or pass",
                ));
            }
        }
        Ok(id_of(mv))
    }

    fn move_of(_position: &Position, action: usize) -> Result<String> {
        move_of_id(action)
            .map(|mv| mv.text())
            .ok_or_else(|| decisions::out_of_range(action, ACTIONS))
    }

    fn legal_actions(node: &Node<Self>) -> Vec<usize> {
        let position = &node.position;
        let Some(mover) = position.to_move else {
            return Vec::new();
        };
        let mut ids = Vec::new();
        (position.moves(mover)).for_each(|step| ids.push(id_of(step.to_move())));
        // Placements are listed in id order already; removals by piece on the board.
        ids.sort_unstable();
        ids
    }

    fn is_chance(_node: &Node<Self>) -> bool {
        false
    }

    fn chance_outcomes(_node: &Node<Self>) -> Vec<(usize, f64)> {
        Vec::new()
    }

    /// A placement takes the engine's own check and step without `play`'s effects (the most frequent
    /// move, and the cheapest); any other move, or a refused placement, is `play`'s.
    fn apply(node: &mut Node<Self>, action: usize) -> Result<Option<Move>> {
        let mv = move_of_id(action).ok_or_else(|| decisions::out_of_range(action, ACTIONS))?;
        let position = &node.position;
        if let (Move::Place(piece), Some(mover), Phase::Placement) =
            (mv, position.to_move, position.phase)
        {
            if position.check_placement(mover, piece).is_ok() {
                node.position = position.place(mover, piece);
                return Ok(Some(mv));
            }
        }
        node.position = position.play(mv)?.0;
        Ok(Some(mv))
    }

    /// The generator's count and k-th move (`Moves`, perft's), taken by the engine's own steps.
    fn take_nth(node: &mut Node<Self>, pick: impl FnOnce(usize) -> usize) -> bool {
        let position = &node.position;
        let Some(mover) = position.to_move else {
            return false;
        };
        let step = position
            .moves(mover)
            .pick(|count| pick(count as usize) as u64);
        node.position = position.take(mover, step);
        true
    }

    /// A removal at random with its largest advance: a player nearly always advances as far as it
    /// may, and playouts that advance at random tell positions apart poorly (against uniform
    /// playouts, 64% of 200 games at 400 simulations). Placements: uniformly.
    fn preferred(node: &Node<Self>, chance: &mut crate::chance::Chance) -> Option<usize> {
        let position = &node.position;
        let mover = position.to_move?;
        let step = position.moves(mover).greedy(chance)?;
        Some(id_of(step.to_move()))
    }

    fn observation_shape(_position: &Position) -> Vec<usize> {
        vec![super::observation::PLANES, 10, 10]
    }

    fn observation(node: &Node<Self>, player: usize) -> Vec<f32> {
        super::observation::planes(&node.position, player)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chance::Chance;

    /// Along seeded random games, at every node: the generator's count is the legal moves' and its
    /// k-th moves for k in 0..count are exactly the legal ones; the random decision is legal.
    #[test]
    fn the_generator_counts_and_takes_every_legal_move() {
        for seed in 0..4 {
            let start = Isaac::start(&crate::game::default_setup::<Isaac>(), None, None);
            let mut node = Node::<Isaac>::new(start);
            let mut chance = Chance::from_seed(seed, None);
            let mut decisions = 0;
            while node.position.to_move.is_some() {
                decisions += 1;
                let count = decisions::check_take_nth(&node);
                assert_eq!(count, node.position.legal_moves().len());
                assert_eq!(count as u64, node.position.move_count());
                let legal: Vec<Position> = Isaac::legal_actions(&node)
                    .into_iter()
                    .map(|action| {
                        let mut child = node.clone();
                        Isaac::apply(&mut child, action).unwrap();
                        child.position
                    })
                    .collect();
                assert!(Isaac::random_decision(&mut node, &mut chance));
                assert!(legal.contains(&node.position));
            }
            assert_eq!(decisions::check_take_nth(&node), 0);
            assert!(!Isaac::random_decision(&mut node, &mut chance));
            assert!(decisions > 20, "{decisions}");
        }
    }

    /// Along seeded random games: no preference while placing; in the scoring phase, a legal removal
    /// with the largest legal advance of its piece, and every removable piece in turn (drawn at
    /// random); none at a pass.
    #[test]
    fn the_preferred_removal_is_a_piece_s_largest_advance() {
        let (mut removals, mut pieces_drawn) = (0, 0);
        for seed in 0..4 {
            let start = Isaac::start(&crate::game::default_setup::<Isaac>(), None, None);
            let mut node = Node::<Isaac>::new(start);
            let mut chance = Chance::from_seed(seed, None);
            while node.position.to_move.is_some() {
                let legal = Isaac::legal_actions(&node);
                let drawn: Vec<Option<usize>> = (0..32)
                    .map(|_| Isaac::preferred(&node, &mut chance))
                    .collect();
                let removing = node.position.phase == Phase::Scoring && legal != [PASS];
                assert!(drawn.iter().all(|d| d.is_some() == removing), "{drawn:?}");
                if removing {
                    let piece = |action: usize| match move_of_id(action) {
                        Some(Move::Remove { piece, .. }) => piece,
                        other => panic!("{other:?} is no removal"),
                    };
                    let seen: std::collections::HashSet<Piece> =
                        drawn.iter().flatten().map(|&a| piece(a)).collect();
                    for action in drawn.into_iter().flatten() {
                        assert!(legal.contains(&action), "{action}");
                        let of_piece = legal.iter().filter(|&&a| piece(a) == piece(action));
                        assert_eq!(of_piece.max(), Some(&action));
                        removals += 1;
                    }
                    let all: std::collections::HashSet<Piece> = legal.iter().map(|&a| piece(a)).collect();
                    assert!(seen.len() == all.len() || all.len() > 8, "{seen:?} {all:?}");
                    pieces_drawn += seen.len();
                }
                assert!(Isaac::random_decision(&mut node, &mut chance));
            }
        }
        assert!(removals > 100 && pieces_drawn > 20, "{removals} {pieces_drawn}");
    }

    #[test]
    fn every_id_names_its_move_and_back() {
        let position = Isaac::start(&crate::game::default_setup::<Isaac>(), None, None);
        assert_eq!(table().pieces.len(), PIECES);
        for action in (0..ACTIONS).step_by(7).chain([PASS]) {
            let text = Isaac::move_of(&position, action).unwrap();
            assert_eq!(
                Isaac::action_of(&position, &text).unwrap(),
                action,
                "{text}"
            );
        }
        assert!(Isaac::move_of(&position, ACTIONS).is_err());
        assert!(Isaac::action_of(&position, "xa1-c1+73").is_err());
    }
}
