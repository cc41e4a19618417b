//! Hypnosia's legal turns: a die's legal die moves, the most dice a turn can use, every whole turn
//! of a rolled position (the position after it built only when asked for), the legal moves and
//! their notation in order, perft.

use super::board::{is_active, Bridge, SPACE_BASE};
use super::moves::Step;
use super::notation::{DieMove, HomeSquare, Move, Start, Turn};
use super::position::Position;

/// The position after a turn, not yet built: the position before its last step and that step,
/// or the position the turn ends in.
pub(super) enum After<'a> {
    Step(&'a Position, &'a Step),
    Here(&'a Position),
}

impl After<'_> {
    /// The position after the turn, the turn ended.
    pub(super) fn position(self) -> Position {
        let mut after = match self {
            After::Step(before, step) => before.apply_step(step),
            After::Here(position) => position.clone(),
        };
        after.end_turn();
        after
    }
}

impl Position {
    /// Every legal die move of the player to move with `die`.
    pub(super) fn steps(&self, die: u8) -> Vec<Step> {
        let mut steps = Vec::new();
        let seat = self.to_move;
        let pawns = self.pawns[usize::from(seat)];
        for (i, &loc) in pawns.iter().enumerate() {
            if i > 0 && pawns[i - 1] == loc || !is_active(loc) {
                continue;
            }
            let mut candidates = [None; 4];
            if loc < SPACE_BASE {
                let distance = loc as u8 + 1;
                if die >= distance {
                    candidates[0] = Some(DieMove::generated(
                        Start::Home(HomeSquare::generated(distance)),
                        false,
                        false,
                        die,
                    ));
                }
            } else {
                let space = loc - SPACE_BASE;
                let (circle, index) = self.board().coords(space);
                let from = Start::Space(u32::from(circle), u32::from(index));
                let double = self.count(seat, loc) == 2;
                let bridge = self.board().bridge(space);
                let crossable = match bridge {
                    Bridge::None => false,
                    Bridge::Space(_) => true,
                    Bridge::Centre => die == 1,
                };
                for (slot, (is_double, cross)) in
                    [(false, false), (true, false), (false, true), (true, true)]
                        .into_iter()
                        .enumerate()
                {
                    if (is_double && !double)
                        || (cross && !crossable)
                        || (is_double && cross && !self.game.doubles_cross)
                    {
                        continue;
                    }
                    candidates[slot] = Some(DieMove::generated(from, is_double, cross, die));
                }
            }
            steps.extend(
                candidates
                    .into_iter()
                    .flatten()
                    .filter_map(|mv| self.resolve(mv).ok()),
            );
        }
        steps
    }

    /// The distinct values among the unused dice.
    pub(super) fn distinct_dice(&self) -> ([u8; 2], usize) {
        let dice = self.dice();
        match dice {
            [a, b] if a != b => ([*a, *b], 2),
            [a, ..] => ([*a, 0], 1),
            [] => ([0, 0], 0),
        }
    }

    /// The most dice any sequence of die moves can use (a game-ending die move uses every die).
    pub fn usable_dice(&self) -> u8 {
        let (values, n) = self.distinct_dice();
        let mut any = false;
        for &die in &values[..n] {
            for step in self.steps(die) {
                if self.dice_len == 1 {
                    return 1;
                }
                any = true;
                let next = self.apply_step(&step);
                if next.is_over() || !next.steps(next.dice[0]).is_empty() {
                    return 2;
                }
            }
        }
        u8::from(any)
    }

    /// Every legal whole turn of a rolled position, with the position after it (turn ended), and
    /// the number of dice they use. `pass` is the only turn when no die can be used.
    pub(super) fn whole_turns(&self) -> (u8, Vec<(Turn, Position)>) {
        self.each_turn(|turn, after| (turn, after.position()))
    }

    /// The legal whole turns of a rolled position, each made into `T` by `make` (which builds the
    /// position after the turn only when it needs it), and the number of dice they use.
    pub(super) fn each_turn<T>(&self, mut make: impl FnMut(Turn, After<'_>) -> T) -> (u8, Vec<T>) {
        // Only turns using the most dice are legal: the others are never made.
        let used = self.usable_dice();
        if used == 0 {
            return (0, vec![make(Turn::Pass, After::Here(self))]);
        }
        let (values, n) = self.distinct_dice();
        let mut turns = Vec::new();
        for &die in &values[..n] {
            for step in self.steps(die) {
                let next = self.apply_step(&step);
                // One die's move: the whole turn when one die is the most, or when it ends the game.
                if used == 1 || next.is_over() {
                    turns.push(make(Turn::Moves(vec![step.mv]), After::Here(&next)));
                    continue;
                }
                for second in next.steps(next.dice[0]) {
                    let turn = Turn::Moves(vec![step.mv, second.mv]);
                    turns.push(make(turn, After::Step(&next, &second)));
                }
            }
        }
        (used, turns)
    }

    /// The number of legal whole turns, without building the positions after them.
    pub(super) fn count_turns(&self) -> u64 {
        let (values, n) = self.distinct_dice();
        let mut pairs = 0u64;
        let mut singles = 0u64;
        for &die in &values[..n] {
            for step in self.steps(die) {
                singles += 1;
                if self.dice_len == 2 {
                    let next = self.apply_step(&step);
                    if next.is_over() {
                        pairs += 1;
                    } else {
                        pairs += next.steps(next.dice[0]).len() as u64;
                    }
                }
            }
        }
        if pairs > 0 {
            pairs
        } else {
            singles.max(1)
        }
    }

    /// Perft over given chance outcomes: a ply is a whole turn; before the roll, the children are
    /// the legal turns of each of the 21 distinct rolls.
    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        if self.is_over() {
            return 0;
        }
        if self.dice_len > 0 {
            return self.perft_turns(depth);
        }
        let mut total = 0;
        for a in 1..=6u8 {
            for b in a..=6u8 {
                total += self.with_dice([a, b]).perft_turns(depth);
            }
        }
        total
    }

    pub(super) fn perft_turns(&self, depth: u32) -> u64 {
        if depth == 1 {
            return self.count_turns();
        }
        self.whole_turns()
            .1
            .iter()
            .map(|(_, next)| next.perft(depth - 1))
            .sum()
    }

    pub fn legal_moves(&self) -> Vec<Move> {
        if self.is_over() {
            return Vec::new();
        }
        if self.dice_len == 0 {
            return vec![Move::Roll];
        }
        self.sorted_turns()
            .into_iter()
            .map(|(_, turn)| Move::Turn(turn))
            .collect()
    }

    /// The legal moves in notation, in `legal_moves`' order (written once, to order them).
    pub fn legal_move_texts(&self) -> Vec<String> {
        if self.is_over() {
            return Vec::new();
        }
        if self.dice_len == 0 {
            return vec![Move::Roll.to_string()];
        }
        self.sorted_turns()
            .into_iter()
            .map(|(text, _)| text)
            .collect()
    }

    /// The whole turns after the roll with their notation, in the order of their notation, each
    /// once.
    pub(super) fn sorted_turns(&self) -> Vec<(String, Turn)> {
        // Only the notation is needed: the positions after the turns are never built.
        let (_, mut turns) = self.each_turn(|turn, _| {
            let mut text = String::with_capacity(16);
            turn.write_to(&mut text).expect("a String takes any text");
            (text, turn)
        });
        turns.sort_by(|a, b| a.0.cmp(&b.0));
        turns.dedup_by(|a, b| a.0 == b.0);
        turns
    }
}
