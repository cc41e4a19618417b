//! Isaac's decisions, each a whole move. The 600 pieces a board can hold are numbered in the order
//! the legal placements are listed: length 3 to 7, horizontal before vertical, then by lower-left
//! cell (`a1-c1` is 0, `j4-j10` is 599). Ids: `0..600` place piece p; `600 + 73 p + a` removes piece
//! p with a marker advance of a (0 to 72, the most one removal scores); `44400` is `pass`. There is
//! no chance.

use std::sync::OnceLock;

use super::board::{fitting, fitting_pieces, ALL, LENGTHS, PIECES_PER_PLAYER};
use super::{Color, Isaac, Move, Phase, Piece, Position, MAX_SCORE};
use crate::chance::Chance;
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
        if let (Some(mover), Phase::Placement) = (position.to_move, position.phase) {
            // The placements' list order is their ids' order.
            let ids: Vec<usize> = position.placements(mover).map(piece_id).collect();
            if !ids.is_empty() {
                return ids;
            }
        }
        let mut ids: Vec<usize> = position.legal_moves().into_iter().map(id_of).collect();
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

    /// One move counted and chosen without listing the moves, and played by the engine's own steps
    /// (perft's: `place`, `remove`, `pass`). The moves are counted once, by groups (a length and
    /// orientation; a piece and its advances), and the chosen one found in its group.
    fn random_decision(node: &mut Node<Self>, chance: &mut Chance) -> bool {
        let position = &node.position;
        let Some(mover) = position.to_move else {
            return false;
        };
        let next = match position.phase {
            Phase::Placement => random_placement(position, mover, chance),
            Phase::Scoring => random_removal(position, mover, chance),
        };
        node.position = next.unwrap_or_else(|| position.pass(mover).0);
        true
    }

    fn observation_shape(_position: &Position) -> Vec<usize> {
        vec![super::observation::PLANES, 10, 10]
    }

    fn observation(node: &Node<Self>, player: usize) -> Vec<f32> {
        super::observation::planes(&node.position, player)
    }
}

/// A placement of `mover` chosen uniformly and played; None when it has none.
fn random_placement(position: &Position, mover: Color, chance: &mut Chance) -> Option<Position> {
    let empty = ALL & !position.occupied;
    let mut groups = [(0u128, 0usize, false); 2 * LENGTHS.len()];
    let mut total = 0;
    for (slot, &length) in LENGTHS.iter().enumerate() {
        if position.unplaced[mover as usize][length - LENGTHS[0]] > 0 {
            for vertical in [false, true] {
                let anchors = fitting(empty, length, vertical);
                groups[2 * slot + usize::from(vertical)] = (anchors, length, vertical);
                total += anchors.count_ones();
            }
        }
    }
    if total == 0 {
        return None;
    }
    let mut k = chance.below(total);
    for (anchors, length, vertical) in groups {
        let n = anchors.count_ones();
        if k < n {
            let piece = fitting_pieces(empty, length, vertical).nth(k as usize)?;
            return Some(position.place(mover, piece));
        }
        k -= n;
    }
    None
}

/// A removal of `mover` (a piece and an advance, never the forbidden one) chosen uniformly and played;
/// None when it has none.
fn random_removal(position: &Position, mover: Color, chance: &mut Chance) -> Option<Position> {
    let forbidden = position.forbidden_advance(mover);
    let mut groups = [(0usize, 0u64); PIECES_PER_PLAYER];
    let (mut count, mut total) = (0, 0);
    for (index, piece) in position.removals(mover) {
        let points = u64::from(position.scoring(piece).points());
        let n = points + 1 - u64::from(forbidden.is_some_and(|a| a <= points));
        groups[count] = (index, n);
        count += 1;
        total += n;
    }
    if total == 0 {
        return None;
    }
    let mut k = u64::from(chance.below(u32::try_from(total).ok()?));
    for &(index, n) in &groups[..count] {
        if k < n {
            // The k-th advance of 0..=points, skipping the forbidden one.
            let advance = if forbidden.is_some_and(|a| a <= k) {
                k + 1
            } else {
                k
            };
            return Some(position.remove(mover, index, advance));
        }
        k -= n;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_random_decision_is_one_of_the_legal_ones() {
        for seed in 0..3 {
            let start = Isaac::start(&crate::game::default_setup::<Isaac>(), None, None);
            let mut node = Node::<Isaac>::new(start);
            let mut chance = Chance::from_seed(seed, None);
            let mut decisions = 0;
            while node.position.to_move.is_some() {
                decisions += 1;
                let next: Vec<Position> = Isaac::legal_actions(&node)
                    .into_iter()
                    .map(|action| {
                        let mut child = node.clone();
                        Isaac::apply(&mut child, action).unwrap();
                        child.position
                    })
                    .collect();
                assert!(Isaac::random_decision(&mut node, &mut chance));
                assert!(next.contains(&node.position));
            }
            assert!(!Isaac::random_decision(&mut node, &mut chance));
            assert!(decisions > 20, "{decisions}");
        }
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
