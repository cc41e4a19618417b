//! Caesar!'s decisions: a turn is decomposed so that every id is one decision, then chance draws.
//! - `0..900`: the placement of token kind k (in the token table's order: L40 L31 L22 S60 .. N33) on
//!   border b (border order) with its larger number toward the border's first province (`S60@HC-GA`)
//!   or its second (`S60@GA-HC`): `2 (30 k + b)` and `2 (30 k + b) + 1` (a symmetric token has only
//!   the first);
//! - `900..951`: a closing bonus's choice: `900` decline (`-`), `901` Tactics (`T`), `902` Wealth
//!   (`W`), `903 + b` Might on border b's token (`M:HC-GA`), `933 + q` Might on province q's marker
//!   (`M:IT`);
//! - `951..966`: chance, drawing token kind k (`=D42`), with probability its share of the mover's bag.
//!
//! A placement that closes provinces with a Tactics, Wealth or Might bonus is followed by one choice
//! each; then the turn's draws are chance nodes, one a draw (none when the turn draws nothing), and
//! the last one completes the whole move, draws listed (`S60@HC-HU T =D42`): the move is played once,
//! when its choices are complete, its draws counted by the rules and left to chance
//! (`Draws::Deferred`). With keyed chance (seal keys), whose moves may not list draws, the generator
//! draws them when the choices are complete.

use super::board::{
    parse_border, parse_province, parse_token, token_code, token_total, BORDER_COUNT,
    PROVINCE_COUNT, TOKEN_KINDS,
};
use super::draws::Draws;
use super::notation::parse_move;
use super::{observation, BorderIndex, Caesar, Choice, Move, Position, ProvinceIndex, Target};
use crate::decisions::{self, Decisions, Node};
use crate::error::{Error, Result};
use std::fmt;
use std::hash::{Hash, Hasher};

const PLACEMENTS: usize = TOKEN_KINDS * BORDER_COUNT * 2;
const DECLINE: usize = PLACEMENTS;
const TACTICS: usize = PLACEMENTS + 1;
const WEALTH: usize = PLACEMENTS + 2;
const MIGHT_BORDER: usize = PLACEMENTS + 3;
const MIGHT_PROVINCE: usize = MIGHT_BORDER + BORDER_COUNT;
const DRAWS: usize = MIGHT_PROVINCE + PROVINCE_COUNT;
const ACTIONS: usize = DRAWS + TOKEN_KINDS;

/// The decisions of the turn under way: its placement (token kind, border, forward), the bonus
/// choices so far, and once they are complete, the draws it takes (`due`), those chance drew and
/// the move played with its draws still in the bag.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Pending {
    pub(super) placement: Option<(u8, u8, bool)>,
    pub(super) choices: Vec<Choice>,
    pub(super) due: u8,
    pub(super) draws: Vec<u8>,
    pub(super) played: DeferredPlay,
}

/// The turn's move played with its draws deferred (or why it cannot be), kept for its last draw.
/// It follows from the node's position and the decisions above, so it tells no two nodes apart:
/// equal, hashed and shown as nothing.
#[derive(Clone, Default)]
pub(super) struct DeferredPlay(pub(super) Option<Result<Box<Position>>>);

impl PartialEq for DeferredPlay {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for DeferredPlay {}

impl Hash for DeferredPlay {
    fn hash<H: Hasher>(&self, _: &mut H) {}
}

impl fmt::Debug for DeferredPlay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("..")
    }
}

/// What an id decides.
enum Decision {
    Place(usize, usize, bool),
    Choose(Choice),
    Draw(usize),
}

fn decision_of(action: usize) -> Option<Decision> {
    Some(match action {
        _ if action < PLACEMENTS => {
            let (slot, back) = (action / 2, action % 2 == 1);
            Decision::Place(slot / BORDER_COUNT, slot % BORDER_COUNT, !back)
        }
        DECLINE => Decision::Choose(Choice::Decline),
        TACTICS => Decision::Choose(Choice::Tactics),
        WEALTH => Decision::Choose(Choice::Wealth),
        _ if action < MIGHT_PROVINCE => Decision::Choose(Choice::Might(Target::Border(
            BorderIndex::new(action - MIGHT_BORDER)?,
        ))),
        _ if action < DRAWS => Decision::Choose(Choice::Might(Target::Province(
            ProvinceIndex::new(action - MIGHT_PROVINCE)?,
        ))),
        _ if action < ACTIONS => Decision::Draw(action - DRAWS),
        _ => return None,
    })
}

fn placement_id(kind: usize, border: usize, forward: bool) -> usize {
    2 * (BORDER_COUNT * kind + border) + usize::from(!forward)
}

fn choice_id(choice: Choice) -> usize {
    match choice {
        Choice::Decline => DECLINE,
        Choice::Tactics => TACTICS,
        Choice::Wealth => WEALTH,
        Choice::Might(Target::Border(border)) => MIGHT_BORDER + border.index(),
        Choice::Might(Target::Province(province)) => MIGHT_PROVINCE + province.index(),
    }
}

fn parse_choice(text: &str) -> Option<Choice> {
    Some(match text {
        "-" => Choice::Decline,
        "T" => Choice::Tactics,
        "W" => Choice::Wealth,
        _ => {
            let target = text.strip_prefix("M:")?;
            match parse_province(target).and_then(ProvinceIndex::new) {
                Some(province) => Choice::Might(Target::Province(province)),
                None => Choice::Might(Target::Border(BorderIndex::new(parse_border(target)?.0)?)),
            }
        }
    })
}

/// The move of a turn's decisions so far.
fn move_of_pending(pending: &Pending, draws: Vec<u8>) -> Option<Move> {
    let (kind, border, forward) = pending.placement?;
    Move::new(
        usize::from(kind),
        usize::from(border),
        forward,
        pending.choices.clone(),
        draws,
    )
}

fn wrong_decision(expected: &str, action: usize) -> Error {
    Error::illegal_move(
        "wrong-decision",
        format!("the turn under way expects {expected}; action {action} is not one"),
        serde_json::json!({ "expected": expected, "action": action }),
    )
}

impl Caesar {
    /// What the node's turn expects next, for refusals.
    fn expected(node: &Node<Self>) -> &'static str {
        match (&node.pending.placement, node.pending.due) {
            (None, _) => "a placement",
            (Some(_), 0) => "a bonus choice",
            _ => "a draw",
        }
    }

    /// Plays the turn's decisions so far: the move completed, or, when a choice is still missing,
    /// none; when the completed move draws (and chance is not keyed), the draws become chance nodes.
    fn advance(node: &mut Node<Self>) -> Result<Option<Move>> {
        let (kind, border, forward) = node.pending.placement.expect("a placement is pending");
        let taken = &node.pending.choices;
        let choices =
            node.position
                .placement_choices(usize::from(kind), usize::from(border), forward);
        if choices
            .iter()
            .any(|legal| legal.len() > taken.len() && legal.starts_with(taken))
        {
            return Ok(None); // a choice is still missing
        }
        let mv = move_of_pending(&node.pending, Vec::new()).expect("a placement is pending");
        if node.position.chance.keyed_by().is_some() {
            node.position = node.position.play(mv.clone())?.0;
            node.pending = Pending::default();
            return Ok(Some(mv));
        }
        let (next, due) = Self::play_deferred(&node.position, &mv)?;
        if due == 0 {
            node.position = next;
            node.pending = Pending::default();
            return Ok(Some(mv));
        }
        node.pending.due = due;
        node.pending.played = DeferredPlay(Some(Ok(Box::new(next))));
        Ok(None)
    }

    /// The move played with its draws deferred to chance, and how many it draws.
    fn play_deferred(position: &Position, mv: &Move) -> Result<(Position, u8)> {
        let mut draws = Draws::Deferred { due: 0 };
        let (next, _) = position.play_drawing(mv, &mut draws)?;
        let Draws::Deferred { due } = draws else {
            unreachable!("deferred draws stay deferred")
        };
        Ok((next, due))
    }

    /// The pending move played again from a resampled position (whose hidden hands it keeps).
    pub(super) fn replay_pending(node: &mut Node<Self>) {
        if node.pending.played.0.is_some() {
            let mv = move_of_pending(&node.pending, Vec::new()).expect("a placement is pending");
            let played = Self::play_deferred(&node.position, &mv).map(|(next, _)| Box::new(next));
            node.pending.played = DeferredPlay(Some(played));
        }
    }

    /// The last draw: the move played with its draws deferred, the drawn tokens now taken.
    fn complete(node: &mut Node<Self>) -> Result<Move> {
        let played = node
            .pending
            .played
            .0
            .take()
            .expect("a move with draws is pending");
        let mut next = match played {
            Ok(next) => next,
            Err(error) => {
                node.pending.played = DeferredPlay(Some(Err(error.clone())));
                return Err(error);
            }
        };
        let mover = node.position.to_move.expect("a move is under way");
        for &kind in &node.pending.draws {
            next.take_drawn(mover, usize::from(kind));
        }
        let mv = move_of_pending(&node.pending, node.pending.draws.clone())
            .expect("a placement is pending");
        node.position = *next;
        node.pending = Pending::default();
        Ok(mv)
    }

    /// The tokens still in the mover's bag for the pending draws, by kind.
    fn bag_left(node: &Node<Self>) -> [u8; TOKEN_KINDS] {
        let mover = node.position.to_move.map_or(0, |player| player as usize);
        let mut bag = node.position.bags[mover];
        for &kind in &node.pending.draws {
            bag[usize::from(kind)] = bag[usize::from(kind)].saturating_sub(1);
        }
        bag
    }
}

impl Decisions for Caesar {
    type Pending = Pending;
    /// 30 placements, each with its choices and draws.
    const MAX_DECISIONS: usize = 30 * 6;
    /// A draw, one id a kind of token (the last ids).
    const MAX_CHANCE_OUTCOMES: usize = ACTIONS - DRAWS;

    fn num_actions(_position: &Position) -> usize {
        ACTIONS
    }

    fn action_of(_position: &Position, text: &str) -> Result<usize> {
        if let Some(code) = text.strip_prefix('=') {
            return parse_token(code)
                .map(|kind| DRAWS + kind)
                .ok_or_else(|| Error::malformed_move(format!("{code:?} is not a token")));
        }
        if let Some(choice) = parse_choice(text) {
            return Ok(choice_id(choice));
        }
        let mv = parse_move(text)?;
        if !mv.choices().is_empty() || !mv.draws().is_empty() {
            return Err(decisions::not_a_decision(
                text,
                "a placement (S60@HC-GA), a bonus choice (T, W, M:<target>, -) or a draw (=D42)",
            ));
        }
        Ok(placement_id(mv.kind(), mv.border(), mv.forward()))
    }

    fn move_of(_position: &Position, action: usize) -> Result<String> {
        match decision_of(action) {
            Some(Decision::Place(kind, border, forward)) => {
                Ok(Move::new(kind, border, forward, Vec::new(), Vec::new())
                    .expect("an id's token and border exist")
                    .text())
            }
            Some(Decision::Choose(choice)) => Ok(choice.text()),
            Some(Decision::Draw(kind)) => Ok(format!("={}", token_code(kind))),
            None => Err(decisions::out_of_range(action, ACTIONS)),
        }
    }

    fn legal_actions(node: &Node<Self>) -> Vec<usize> {
        if Self::is_chance(node) {
            return Self::chance_outcomes(node)
                .into_iter()
                .map(|(id, _)| id)
                .collect();
        }
        let position = &node.position;
        let Some(player) = position.active() else {
            return Vec::new();
        };
        let Some((kind, border, forward)) = node.pending.placement else {
            let mut ids = Vec::new();
            (position.placements(player))
                .for_each(|kind, border, forward| ids.push(placement_id(kind, border, forward)));
            return ids;
        };
        // The choices that follow the ones taken, among the legal moves of this placement.
        let taken = &node.pending.choices;
        let mut ids: Vec<usize> = position
            .placement_choices(usize::from(kind), usize::from(border), forward)
            .iter()
            .filter(|choices| choices.len() > taken.len() && choices.starts_with(taken))
            .map(|choices| choice_id(choices[taken.len()]))
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// At a turn's start, the generator's placements (`Placements`: counted, and the k-th found,
    /// per token kind); the bonus choices as listed.
    fn take_nth(node: &mut Node<Self>, pick: impl FnOnce(usize) -> usize) -> bool {
        if node.pending.placement.is_some() || Self::is_chance(node) {
            return decisions::take_listed(node, pick);
        }
        let Some(player) = node.position.active() else {
            return false;
        };
        let placements = node.position.placements(player);
        let count = placements.count();
        if count == 0 {
            return false;
        }
        let (kind, border, forward) = placements.nth(pick(count));
        Self::apply(node, placement_id(kind, border, forward)).expect("a legal decision applies");
        true
    }

    fn is_chance(node: &Node<Self>) -> bool {
        node.pending.due > 0
    }

    fn chance_outcomes(node: &Node<Self>) -> Vec<(usize, f64)> {
        if !Self::is_chance(node) {
            return Vec::new();
        }
        let bag = Self::bag_left(node);
        let total = f64::from(token_total(&bag));
        (0..TOKEN_KINDS)
            .filter(|&kind| bag[kind] > 0)
            .map(|kind| (DRAWS + kind, f64::from(bag[kind]) / total))
            .collect()
    }

    fn apply(node: &mut Node<Self>, action: usize) -> Result<Option<Move>> {
        let decision =
            decision_of(action).ok_or_else(|| decisions::out_of_range(action, ACTIONS))?;
        node.position.active().ok_or(Error::GameOver)?;
        let expected = Self::expected(node);
        match decision {
            Decision::Place(kind, border, forward) if node.pending.placement.is_none() => {
                if !forward && super::board::is_symmetric(kind) {
                    return Err(wrong_decision(
                        "a placement (a symmetric token's is its forward id)",
                        action,
                    ));
                }
                node.pending.placement = Some((kind as u8, border as u8, forward));
                Self::advance(node).inspect_err(|_| node.pending = Pending::default())
            }
            Decision::Choose(choice)
                if node.pending.placement.is_some() && node.pending.due == 0 =>
            {
                node.pending.choices.push(choice);
                Self::advance(node).inspect_err(|_| {
                    node.pending.choices.pop();
                })
            }
            Decision::Draw(kind) if Self::is_chance(node) => {
                if Self::bag_left(node)[kind] == 0 {
                    return Err(Error::illegal_move(
                        "draw-not-in-bag",
                        format!("{} is not left in the mover's bag", token_code(kind)),
                        serde_json::json!({ "token": token_code(kind) }),
                    ));
                }
                node.pending.draws.push(kind as u8);
                if node.pending.draws.len() < usize::from(node.pending.due) {
                    return Ok(None);
                }
                Self::complete(node).map(Some).inspect_err(|_| {
                    node.pending.draws.pop();
                })
            }
            _ => Err(wrong_decision(expected, action)),
        }
    }

    fn observation_shape(_position: &Position) -> Vec<usize> {
        vec![observation::SIZE]
    }

    fn observation(node: &Node<Self>, player: usize) -> Vec<f32> {
        observation::features(node, player)
    }

    fn information_state(node: &Node<Self>, player: usize) -> String {
        observation::information_state(node, player)
    }

    fn resample(
        node: &Node<Self>,
        player: usize,
        chance: &mut crate::chance::Chance,
    ) -> Node<Self> {
        observation::resample(node, player, chance)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::decisions::{node_hash, Chance};
    use crate::game::Rules;

    /// Along seeded random games, at every player's node (placements and bonus choices): the
    /// generator's count is the listed decisions' and its k-th for k in 0..count are exactly them;
    /// at a turn's start the placements number the legal moves' distinct placements. Every random
    /// decision is a listed one.
    #[test]
    fn the_generator_counts_and_takes_every_legal_decision() {
        for seed in 0..4 {
            let start = Caesar::start(&crate::game::default_setup::<Caesar>(), Some(seed), None);
            let mut node = Node::<Caesar>::new(start);
            let mut chance = Chance::from_seed(seed, None);
            let (mut decisions, mut choices) = (0, 0);
            while node.position.active().is_some() {
                decisions += 1;
                if !Caesar::is_chance(&node) {
                    let count = decisions::check_take_nth(&node);
                    if node.at_turn_start() {
                        let placements: HashSet<String> = (node.position.legal_moves().iter())
                            .map(|mv| mv.text().split(' ').next().unwrap_or_default().to_owned())
                            .collect();
                        assert_eq!(count, placements.len());
                    } else {
                        choices += 1;
                    }
                }
                let legal: HashSet<u64> = Caesar::legal_actions(&node)
                    .into_iter()
                    .map(|action| {
                        let mut child = node.clone();
                        Caesar::apply(&mut child, action).unwrap();
                        node_hash(&child)
                    })
                    .collect();
                assert!(Caesar::random_decision(&mut node, &mut chance));
                assert!(legal.contains(&node_hash(&node)));
            }
            assert_eq!(decisions::check_take_nth(&node), 0);
            assert!(!Caesar::random_decision(&mut node, &mut chance));
            assert!(decisions > 20 && choices > 0, "{decisions} {choices}");
        }
    }

    /// Takes chance's draws until the turn completes: the position reached, and the move.
    fn draw_to_the_end(mut node: Node<Caesar>, chance: &mut Chance) -> (Position, Move) {
        loop {
            let outcome = decisions::sample(&Caesar::chance_outcomes(&node), chance);
            if let Some(mv) = Caesar::apply(&mut node, outcome).unwrap() {
                return (node.position, mv);
            }
        }
    }

    /// The turn's move is played once, its draws deferred: from any of its chance nodes (and from
    /// the node resampled for its mover, whose opponent's hand is dealt again), the draws complete
    /// the position that `Rules` plays from the move with those draws listed.
    #[test]
    fn the_last_draw_completes_the_move_as_rules_play_it() {
        let mut checked = 0;
        for seed in 0..4 {
            let start = Caesar::start(&crate::game::default_setup::<Caesar>(), Some(seed), None);
            let mut node = Node::<Caesar>::new(start);
            let mut chance = Chance::from_seed(seed, None);
            while node.position.active().is_some() {
                if Caesar::is_chance(&node) {
                    let mover = node.position.to_move.unwrap() as usize;
                    let resampled = Caesar::resample(&node, mover, &mut chance);
                    for from in [node.clone(), resampled] {
                        let before = from.position.clone();
                        let (after, mv) = draw_to_the_end(from, &mut chance);
                        assert_eq!(after, before.play(mv).unwrap().0);
                        checked += 1;
                    }
                }
                assert!(Caesar::random_decision(&mut node, &mut chance));
            }
        }
        assert!(checked > 50, "{checked}");
    }
}
