//! The legal moves of Caesar!, as the move generator finds them: the placements, then each
//! sequence of bonus choices their closures ask for, in a compact form (`Generated`) ordered as
//! their notation without writing it, and turned into `Move`s or texts only when asked; perft.

use super::board::{
    borders_in, closed_around, is_symmetric, token_borders, Bonus, Player, BORDERS, BORDER_COUNT,
    PROVINCES, PROVINCE_COUNT, TOKENS, TOKEN_KINDS,
};
use super::notation::{push_choice, push_placement, Choice, Move, Target, LONGEST_GENERATED_TEXT};
use super::Position;

/// A legal move as the generator lists and orders it: no draws, at most two choices (a border
/// closes at most its two provinces), nothing allocated.
#[derive(Debug, Clone, Copy)]
struct Generated {
    kind: u8,
    border: u8,
    forward: bool,
    choices: [Option<Choice>; 2],
}

impl Generated {
    /// Token `kind` on `border`, before any choice; `kind` and `border` exist and a symmetric
    /// token is `forward` (the generator enumerates only those).
    fn placement(kind: usize, border: usize, forward: bool) -> Generated {
        debug_assert!(kind < TOKEN_KINDS && border < BORDER_COUNT);
        debug_assert!(forward || !is_symmetric(kind));
        Generated {
            kind: kind as u8,
            border: border as u8,
            forward,
            choices: [None; 2],
        }
    }

    /// The move with `choice` after its choices so far.
    fn with_choice(mut self, choice: Choice) -> Generated {
        let free = self.choices.iter_mut().find(|slot| slot.is_none());
        debug_assert!(free.is_some(), "a placement closes at most two provinces");
        if let Some(slot) = free {
            *slot = Some(choice);
        }
        self
    }

    fn choices(&self) -> impl Iterator<Item = Choice> {
        self.choices.into_iter().flatten()
    }

    fn to_move(self) -> Move {
        let (kind, border) = (usize::from(self.kind), usize::from(self.border));
        Move::generated(kind, border, self.forward, self.choices().collect())
    }

    fn text(&self) -> String {
        let mut text = String::with_capacity(LONGEST_GENERATED_TEXT);
        let (kind, border) = (usize::from(self.kind), usize::from(self.border));
        push_placement(&mut text, kind, border, self.forward);
        for choice in self.choices() {
            text.push(' ');
            push_choice(&mut text, choice);
        }
        text
    }

    /// A key that orders moves as their texts order (byte by byte), so that they are sorted
    /// without being written: the placement's codes have fixed widths and compare as their
    /// alphabetical ranks; choices compare one by one, as the space before each sorts below every
    /// character of a choice, and a move without a further choice sorts first.
    fn order_key(&self) -> u32 {
        let (a, b, _) = BORDERS[usize::from(self.border)];
        let (first, second) = if self.forward { (a, b) } else { (b, a) };
        let [choice1, choice2] = self.choices.map(choice_rank);
        u32::from(TOKEN_RANK[usize::from(self.kind)]) << 28
            | u32::from(PROVINCE_RANK[first]) << 23
            | u32::from(PROVINCE_RANK[second]) << 18
            | choice1 << 9
            | choice2
    }
}

/// The legal placements of a player (token kind, border, orientation), the move generator's first
/// level: per kind in hand, in kind order, its open borders in border order, each in both
/// orientations (forward first) unless the token is symmetric. Counted, and the k-th found,
/// without listing them (a random decision); listed (`generate`, the decisions at a turn's start).
pub(super) struct Placements {
    /// Per kind, the open borders it may take; none for a kind not in hand.
    open: [u32; TOKEN_KINDS],
}

/// The orientations of token `kind`, forward first: one for a symmetric token.
fn orientations(kind: usize) -> &'static [bool] {
    if is_symmetric(kind) {
        &[true]
    } else {
        &[true, false]
    }
}

impl Placements {
    pub(super) fn count(&self) -> usize {
        (0..TOKEN_KINDS)
            .map(|kind| self.open[kind].count_ones() as usize * orientations(kind).len())
            .sum()
    }

    /// The k-th placement in order (k below `count`).
    pub(super) fn nth(&self, mut k: usize) -> (usize, usize, bool) {
        for (kind, &open) in self.open.iter().enumerate() {
            let sides = orientations(kind);
            let n = open.count_ones() as usize * sides.len();
            if k < n {
                let border = borders_in(open).nth(k / sides.len());
                return (
                    kind,
                    border.expect("k is below the count"),
                    sides[k % sides.len()],
                );
            }
            k -= n;
        }
        panic!("k is below the count of placements")
    }

    /// Calls `f` with each placement in order: plain loops, as `generate`'s hot path wants them
    /// (a flattened iterator cost Caesar! perft 60% in the extension's build).
    pub(super) fn for_each(&self, mut f: impl FnMut(usize, usize, bool)) {
        for (kind, &open) in self.open.iter().enumerate() {
            for border in borders_in(open) {
                for &forward in orientations(kind) {
                    f(kind, border, forward);
                }
            }
        }
    }
}

/// Whether byte string `a` sorts before `b` (a proper prefix first), at compile time.
const fn sorts_before(a: &[u8], b: &[u8]) -> bool {
    let mut i = 0;
    while i < a.len() && i < b.len() {
        if a[i] != b[i] {
            return a[i] < b[i];
        }
        i += 1;
    }
    a.len() < b.len()
}

/// Each province's rank among the province codes in alphabetical order.
const PROVINCE_RANK: [u8; PROVINCE_COUNT] = {
    let mut ranks = [0; PROVINCE_COUNT];
    let mut q = 0;
    while q < PROVINCE_COUNT {
        let mut other = 0;
        while other < PROVINCE_COUNT {
            if sorts_before(PROVINCES[other].0.as_bytes(), PROVINCES[q].0.as_bytes()) {
                ranks[q] += 1;
            }
            other += 1;
        }
        q += 1;
    }
    ranks
};

/// Each token kind's rank among the token codes in alphabetical order.
const TOKEN_RANK: [u8; TOKEN_KINDS] = {
    let mut ranks = [0; TOKEN_KINDS];
    let mut kind = 0;
    while kind < TOKEN_KINDS {
        let mut other = 0;
        while other < TOKEN_KINDS {
            if sorts_before(TOKENS[other].0.as_bytes(), TOKENS[kind].0.as_bytes()) {
                ranks[kind] += 1;
            }
            other += 1;
        }
        kind += 1;
    }
    ranks
};

/// How many ranks Might targets take: per first province, the province itself, then a border to
/// each second province.
const TARGET_RANKS: u32 = (PROVINCE_COUNT * (PROVINCE_COUNT + 1)) as u32;

/// A choice's rank in the order of its text, 0 for none (below 512): `-` sorts before `M:…`,
/// `M:…` before `T`, `T` before `W`. A Might target's text is a province code `AB` or a border id
/// `AB-CD`: by the first code, then `AB` before `AB-…`, then by the second code.
fn choice_rank(choice: Option<Choice>) -> u32 {
    let target_rank = |target: Target| {
        let (first, second) = match target {
            Target::Province(province) => (province.index(), None),
            Target::Border(border) => {
                let (a, b, _) = BORDERS[border.index()];
                (a, Some(b))
            }
        };
        let second = second.map_or(0, |b| 1 + u32::from(PROVINCE_RANK[b]));
        u32::from(PROVINCE_RANK[first]) * (PROVINCE_COUNT as u32 + 1) + second
    };
    match choice {
        None => 0,
        Some(Choice::Decline) => 1,
        Some(Choice::Might(target)) => 2 + target_rank(target),
        Some(Choice::Tactics) => 2 + TARGET_RANKS,
        Some(Choice::Wealth) => 3 + TARGET_RANKS,
    }
}

impl Position {
    pub(super) fn has_placement(&self, player: Player) -> bool {
        (0..TOKEN_KINDS).any(|kind| self.open_for(player, kind) != 0)
    }

    /// The legal placements of `player`, the move generator's first level.
    pub(super) fn placements(&self, player: Player) -> Placements {
        Placements {
            open: std::array::from_fn(|kind| self.open_for(player, kind)),
        }
    }

    /// The open borders that `player`'s token `kind` may take: none when it has none in hand.
    fn open_for(&self, player: Player, kind: usize) -> u32 {
        if self.hands[player as usize][kind] > 0 {
            token_borders(kind) & !self.filled
        } else {
            0
        }
    }

    /// Adds to `out` every choice sequence of `mv`, whose placement is already put on this copy
    /// of the position and whose closures still to resolve are `closing`.
    fn push_choice_sequences(
        mut self,
        closing: &[usize],
        closer: Player,
        mv: Generated,
        out: &mut Vec<Generated>,
    ) {
        let Some((&province, rest)) = closing.split_first() else {
            out.push(mv);
            return;
        };
        let (mut report, bonus, won) = self.close(province, closer);
        let choices = match bonus {
            _ if won => return out.push(mv),
            None => return self.push_choice_sequences(rest, closer, mv, out),
            Some(Bonus::Senate) => {
                if self.keep_senate(closer, &mut report) {
                    return out.push(mv);
                }
                return self.push_choice_sequences(rest, closer, mv, out);
            }
            Some(Bonus::Tactics) => vec![Choice::Tactics, Choice::Decline],
            Some(Bonus::Wealth) => vec![Choice::Wealth, Choice::Decline],
            Some(Bonus::Might) => {
                let targets = self.might_targets(closer).into_iter().map(Choice::Might);
                targets.chain([Choice::Decline]).collect()
            }
        };
        for choice in choices {
            if rest.is_empty() {
                // Nothing closes after this choice: it cannot change what follows.
                out.push(mv.with_choice(choice));
                continue;
            }
            let mut after = self.clone();
            if let Choice::Might(target) = choice {
                after.flip(target);
            }
            after.push_choice_sequences(rest, closer, mv.with_choice(choice), out);
        }
    }

    /// The legal moves in generation order (token, border, orientation, choices), without draws.
    fn generate(&self) -> Vec<Generated> {
        let Some(player) = self.active() else {
            return Vec::new();
        };
        let mut moves = Vec::new();
        self.placements(player).for_each(|kind, border, forward| {
            self.push_moves_of(player, kind, border, forward, &mut moves);
        });
        moves
    }

    /// Adds to `out` the legal moves of `player`'s legal placement: the placement with each
    /// sequence of choices that the bonuses of the provinces it closes ask for.
    fn push_moves_of(
        &self,
        player: Player,
        kind: usize,
        border: usize,
        forward: bool,
        out: &mut Vec<Generated>,
    ) {
        let mv = Generated::placement(kind, border, forward);
        // Which provinces close depends only on the filled borders: a position is copied only to
        // resolve closures, whose bonuses may ask for choices.
        let (closing, count) = closed_around(self.filled | 1 << border, border);
        if count == 0 {
            out.push(mv);
            return;
        }
        let mut after = self.clone();
        after.put(player, kind, border, forward);
        after.push_choice_sequences(&closing[..count], player, mv, out);
    }

    /// The choices of the legal moves of one placement (none for an illegal one), each move's in
    /// order: what a turn decided one decision at a time may choose next (the generator's second
    /// level, `push_moves_of`).
    pub(super) fn placement_choices(
        &self,
        kind: usize,
        border: usize,
        forward: bool,
    ) -> Vec<Vec<Choice>> {
        let Some(player) = self.active() else {
            return Vec::new();
        };
        let legal = kind < TOKEN_KINDS
            && border < BORDER_COUNT
            && self.open_for(player, kind) >> border & 1 == 1
            && orientations(kind).contains(&forward);
        if !legal {
            return Vec::new();
        }
        let mut moves = Vec::new();
        self.push_moves_of(player, kind, border, forward, &mut moves);
        moves
            .iter()
            .map(|mv| mv.choices.iter().flatten().copied().collect())
            .collect()
    }

    /// Move paths counted in bulk: the last ply is the number of generated moves (unsorted and
    /// never turned into `Move`s: the order does not change the count).
    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = self.generate();
        if depth == 1 {
            return moves.len() as u64;
        }
        moves
            .into_iter()
            .filter_map(|mv| self.play(mv.to_move()).ok())
            .map(|(next, _)| next.perft(depth - 1))
            .sum()
    }

    /// The legal moves in the order of their notation.
    fn sorted(&self) -> Vec<Generated> {
        let moves = self.generate();
        // Keys with the index in their low half: sorting plain integers, every key distinct.
        let mut keys: Vec<u64> = (moves.iter().enumerate())
            .map(|(index, mv)| u64::from(mv.order_key()) << 32 | index as u64)
            .collect();
        keys.sort_unstable();
        keys.iter().map(|key| moves[*key as u32 as usize]).collect()
    }

    /// The legal moves, sorted by their notation.
    pub fn legal_moves(&self) -> Vec<Move> {
        self.sorted().into_iter().map(Generated::to_move).collect()
    }

    /// The notation of the legal moves, sorted.
    pub(super) fn legal_move_texts(&self) -> Vec<String> {
        self.sorted().iter().map(Generated::text).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::caesar::notation::{parse_move, BorderIndex, ProvinceIndex};

    /// Every choice and every placement the generator can make, with its text.
    fn every_choice() -> Vec<Choice> {
        let borders = (0..BORDER_COUNT)
            .filter_map(BorderIndex::new)
            .map(Target::Border);
        let provinces = (0..PROVINCE_COUNT)
            .filter_map(ProvinceIndex::new)
            .map(Target::Province);
        let mut choices = vec![Choice::Decline, Choice::Tactics, Choice::Wealth];
        choices.extend(borders.chain(provinces).map(Choice::Might));
        choices
    }

    #[test]
    fn the_order_key_orders_moves_as_their_texts() {
        let mut moves = Vec::new();
        for kind in 0..TOKEN_KINDS {
            for border in 0..BORDER_COUNT {
                for forward in [true, false]
                    .into_iter()
                    .filter(|&f| f || !is_symmetric(kind))
                {
                    moves.push(Generated::placement(kind, border, forward));
                }
            }
        }
        // Two placements with every pair of choices (a placement's text is fixed-width).
        let placements = [moves[0], moves[moves.len() - 1]];
        for placement in placements {
            for first in every_choice() {
                moves.push(placement.with_choice(first));
                for second in every_choice() {
                    moves.push(placement.with_choice(first).with_choice(second));
                }
            }
        }
        let mut by_key = moves.clone();
        by_key.sort_by_key(Generated::order_key);
        let mut by_text: Vec<String> = moves.iter().map(Generated::text).collect();
        by_text.sort();
        let keyed: Vec<String> = by_key.iter().map(Generated::text).collect();
        assert_eq!(keyed, by_text);
        assert!(by_key
            .windows(2)
            .all(|w| w[0].order_key() < w[1].order_key()));
    }

    #[test]
    fn generated_moves_read_back_as_the_same_move() {
        let placement = Generated::placement(3, 11, false);
        for choice in every_choice() {
            let mv = placement.with_choice(choice).with_choice(Choice::Decline);
            assert_eq!(parse_move(&mv.text()).ok(), Some(mv.to_move()));
            assert_eq!(mv.to_move().text(), mv.text());
        }
    }
}
