//! Isaac's legal moves, as the move generator finds them: the placement groups (a length's
//! anchors) and removal groups (a piece's advances), counted without listing them, the `Step`s
//! they hold and the `Moves` iterator, a step taken unchecked; the legal moves, their compact
//! form and count, perft.

use super::board::{fitting, pieces_at, Piece, ALL, LENGTHS, MIN_LENGTH, PIECES_PER_PLAYER};
use super::notation::Move;
use super::position::{Phase, Position};
use super::Color;

/// A group of legal moves that the generator counts without listing them: the placements of one
/// length (at their anchors, horizontal then vertical), or the removals of one piece (its advances).
#[derive(Debug, Clone, Copy)]
pub(super) enum Group {
    Place {
        length: usize,
        /// The anchors of the horizontal pieces, then of the vertical ones.
        anchors: [u128; 2],
    },
    /// The mover's piece `index`, with the advances 0..=points but the forbidden one.
    Remove {
        index: usize,
        piece: Piece,
        points: u64,
        forbidden: Option<u64>,
    },
}

impl Group {
    fn len(&self) -> u64 {
        match *self {
            Group::Place {
                anchors: [across, up],
                ..
            } => u64::from(across.count_ones() + up.count_ones()),
            Group::Remove {
                points, forbidden, ..
            } => points + 1 - u64::from(forbidden.is_some_and(|a| a <= points)),
        }
    }

    /// The group's k-th move (k below its `len`).
    fn nth(&self, k: u64) -> Step {
        match *self {
            Group::Place {
                length,
                anchors: [across, up],
            } => {
                let horizontal = u64::from(across.count_ones());
                let piece = if k < horizontal {
                    pieces_at(across, length, false).nth(k as usize)
                } else {
                    pieces_at(up, length, true).nth((k - horizontal) as usize)
                };
                Step::Place(piece.expect("k is below the group's count"))
            }
            Group::Remove {
                index,
                piece,
                forbidden,
                ..
            } => Step::Remove {
                index,
                piece,
                // The k-th of 0..=points, skipping the forbidden advance.
                advance: k + u64::from(forbidden.is_some_and(|a| a <= k)),
            },
        }
    }

    /// Calls `f` with the group's moves in order: a placement group walks its anchors, a removal
    /// its advances. (Plain loops: a chain of flattened iterators cost Isaac's `legal_actions`
    /// from Python 85% more.)
    fn for_each(&self, f: &mut impl FnMut(Step)) {
        match *self {
            Group::Place {
                length,
                anchors: [across, up],
            } => {
                for piece in pieces_at(across, length, false).chain(pieces_at(up, length, true)) {
                    f(Step::Place(piece));
                }
            }
            Group::Remove { .. } => {
                for k in 0..self.len() {
                    f(self.nth(k));
                }
            }
        }
    }
}

/// The groups of the placement phase or of the scoring phase, as one iterator.
enum PhaseGroups<P, R> {
    Placement(P),
    Scoring(R),
}

impl<P: Iterator<Item = Group>, R: Iterator<Item = Group>> Iterator for PhaseGroups<P, R> {
    type Item = Group;

    #[inline(always)] // perft's last ply sums the groups' counts: a call a group cost perft(3) 20%
    fn next(&mut self) -> Option<Group> {
        match self {
            PhaseGroups::Placement(groups) => groups.next(),
            PhaseGroups::Scoring(groups) => groups.next(),
        }
    }
}

/// A legal move as the generator makes it, with what taking it unchecked needs (the removed
/// piece's index in the mover's list).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Step {
    Place(Piece),
    Remove {
        index: usize,
        piece: Piece,
        advance: u64,
    },
    Pass,
}

impl Step {
    pub(super) fn to_move(self) -> Move {
        match self {
            Step::Place(piece) => Move::Place(piece),
            Step::Remove { piece, advance, .. } => Move::Remove { piece, advance },
            Step::Pass => Move::Pass,
        }
    }
}

/// The legal moves of the player to move, as the generator enumerates them: counted by groups and
/// the k-th found in its group, without listing them (perft's last ply, a random decision), or
/// listed (`legal_moves`, perft's other plies); the pass alone when no group has a move.
pub(super) struct Moves<'a> {
    position: &'a Position,
    mover: Color,
}

impl Moves<'_> {
    /// The groups of the phase in list order (computed as they are walked).
    fn groups(&self) -> impl Iterator<Item = Group> + '_ {
        match self.position.phase {
            Phase::Placement => PhaseGroups::Placement(self.position.placement_groups(self.mover)),
            Phase::Scoring => PhaseGroups::Scoring(self.position.removal_groups(self.mover)),
        }
    }

    /// How many placements or removals there are: 0 when the only move is the pass.
    pub(super) fn without_pass(&self) -> u64 {
        self.groups().map(|group| group.len()).sum()
    }

    /// How many legal moves there are, the pass included when it is the only one.
    pub(super) fn count(&self) -> u64 {
        self.without_pass().max(1)
    }

    /// The move `pick` chooses by its index in list order, given the count: one walk of the
    /// groups, which are kept to find the chosen one (a rollout's step).
    pub(super) fn pick(&self, pick: impl FnOnce(u64) -> u64) -> Step {
        let groups = self.kept();
        let total = groups.iter().flatten().map(Group::len).sum::<u64>();
        let mut k = pick(total.max(1));
        for group in groups.iter().flatten() {
            let n = group.len();
            if k < n {
                return group.nth(k);
            }
            k -= n;
        }
        debug_assert!(k == 0, "the pick is below the count");
        Step::Pass
    }

    /// The groups in list order, kept (a group a placement length (5) or a removable piece (a
    /// player has 15): at most 15).
    fn kept(&self) -> [Option<Group>; PIECES_PER_PLAYER] {
        let mut groups = [None; PIECES_PER_PLAYER];
        debug_assert!(self.groups().count() <= groups.len());
        for (slot, group) in groups.iter_mut().zip(self.groups()) {
            *slot = Some(group);
        }
        groups
    }

    /// In the scoring phase, a removable piece at random with its largest legal advance; None in the
    /// placement phase, or when there is nothing to remove (a pass).
    pub(super) fn greedy(&self, chance: &mut crate::chance::Chance) -> Option<Step> {
        if self.position.phase != Phase::Scoring {
            return None;
        }
        let groups = self.kept();
        let removable = || groups.iter().flatten().filter(|group| group.len() > 0);
        let count = removable().count() as u32;
        let group = removable().nth(chance.below(count.max(1)) as usize)?;
        Some(group.nth(group.len() - 1))
    }

    /// Calls `f` with the legal moves in list order.
    pub(super) fn for_each(&self, mut f: impl FnMut(Step)) {
        let mut any = false;
        for group in self.groups() {
            group.for_each(&mut |step| {
                any = true;
                f(step);
            });
        }
        if !any {
            f(Step::Pass);
        }
    }
}

impl Position {
    /// The legal moves of `mover`, who is to move.
    pub(super) fn moves(&self, mover: Color) -> Moves<'_> {
        Moves {
            position: self,
            mover,
        }
    }

    /// The placement groups of `color` in list order: length ascending (each group's pieces
    /// horizontal first, anchor ascending).
    fn placement_groups(&self, color: Color) -> impl Iterator<Item = Group> + '_ {
        let empty = ALL & !self.occupied;
        LENGTHS
            .iter()
            .filter(move |&&length| self.unplaced[color as usize][length - MIN_LENGTH] > 0)
            .map(move |&length| Group::Place {
                length,
                anchors: [false, true].map(|vertical| fitting(empty, length, vertical)),
            })
    }

    /// The removal groups of `color` in list order (the pieces' lower-left cells ascending).
    fn removal_groups(&self, color: Color) -> impl Iterator<Item = Group> + '_ {
        let forbidden = self.forbidden_advance(color);
        self.removals(color)
            .map(move |(index, piece)| Group::Remove {
                index,
                piece,
                points: u64::from(self.scoring(piece).points),
                forbidden,
            })
    }

    /// The first placement of `color` in list order, if it has one.
    pub(super) fn first_placement(&self, color: Color) -> Option<Piece> {
        let group = self.placement_groups(color).find(|group| group.len() > 0)?;
        match group.nth(0) {
            Step::Place(piece) => Some(piece),
            _ => None,
        }
    }

    /// `mover`'s legal move `step`, taken without checks (perft's and rollouts' step).
    pub(super) fn take(&self, mover: Color, step: Step) -> Position {
        match step {
            Step::Place(piece) => self.place(mover, piece),
            Step::Remove { index, advance, .. } => self.remove(mover, index, advance),
            Step::Pass => self.pass(mover).0,
        }
    }

    /// The removable pieces of `color` in list order (lower-left cell ascending), with their index.
    pub(super) fn removals(&self, color: Color) -> impl Iterator<Item = (usize, Piece)> + '_ {
        let markers = self.markers();
        let longest = self.longest_removed(color);
        self.pieces(color)
            .iter()
            .enumerate()
            .filter(move |(_, &mask)| mask & markers == 0)
            .filter_map(|(index, &mask)| Piece::from_mask(mask).map(|piece| (index, piece)))
            .filter(move |(_, piece)| piece.length() >= usize::from(longest))
    }

    pub fn legal_moves(&self) -> Vec<Move> {
        let Some(mover) = self.to_move else {
            return Vec::new();
        };
        let mut moves = Vec::new();
        self.moves(mover)
            .for_each(|step| moves.push(step.to_move()));
        moves
    }

    /// The legal moves with one entry a removable piece: `xc4-g4+0..18`, or `xc4-g4+0..18!7` when
    /// advance 7 would land on the other marker.
    pub fn compact_moves(&self) -> Vec<String> {
        let Some(mover) = self.to_move else {
            return Vec::new();
        };
        let moves = self.moves(mover);
        if self.phase == Phase::Placement {
            let mut texts = Vec::new();
            moves.for_each(|step| texts.push(step.to_move().text()));
            return texts;
        }
        let removal = |group: Group| match group {
            Group::Remove {
                piece,
                points,
                forbidden,
                ..
            } => Some(match forbidden.filter(|&a| a <= points) {
                Some(a) => format!("x{piece}+0..{points}!{a}"),
                None => format!("x{piece}+0..{points}"),
            }),
            Group::Place { .. } => None, // the scoring phase has removal groups only
        };
        let mut compact: Vec<String> = moves.groups().filter_map(removal).collect();
        if compact.is_empty() {
            compact.push(Move::Pass.text());
        }
        compact
    }

    /// The number of legal moves, without listing them.
    pub fn move_count(&self) -> u64 {
        self.to_move.map_or(0, |mover| self.moves(mover).count())
    }

    /// Move paths counted by bulk: the last ply is the number of legal moves.
    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let Some(mover) = self.to_move else {
            return 0;
        };
        let moves = self.moves(mover);
        if depth == 1 {
            return moves.count();
        }
        let mut nodes = 0;
        moves.for_each(|step| nodes += self.take(mover, step).perft(depth - 1));
        nodes
    }
}

#[cfg(test)]
mod tests {
    use super::super::Config;
    use super::*;

    #[test]
    fn the_empty_board_offers_600_placements() {
        let start = Position::start(Config::default());
        let moves = start.legal_moves();
        assert_eq!(moves.len(), 600);
        assert_eq!(start.move_count(), 600);
        assert_eq!(moves[0].to_string(), "a1-c1");
        assert_eq!(moves[1].to_string(), "b1-d1");
        assert_eq!(moves[599].to_string(), "j4-j10");
    }
}
