//! The engine's opponent: Monte Carlo tree search over a game's decisions (`Decisions`), the same
//! for every game and player count.
//!
//! Single-observer information-set MCTS (Cowling, Powley and Whitehouse, 2012): every simulation
//! starts from a fresh determinization of the root drawn from the mover's view (`resample`), so the
//! search sees exactly what its player sees; it descends one tree of decisions by UCB1, counting for
//! each child the simulations in which it was available (a decision legal in one determinization
//! may not be in another), and widening progressively: a node tries a new decision only while it
//! has tried fewer than √visits (Coulom, 2007), the game's preferred one first (`preferred`), so a
//! node of hundreds of decisions (Isaac's placements and removals) is searched deep, not only
//! wide; chance nodes take their outcomes by their probabilities; a leaf is played out in Rust,
//! each decision the game's preferred one or else uniformly at random, and its returns
//! (`decisions::returns`, each player's in [−1, 1], discounted by 0.999 a decision from the root:
//! a sooner win is worth more) are added along the path, each node keeping its chooser's.
//!
//! It stops at a number of simulations, a deadline or a stop flag, whichever comes first; the tree
//! grows by at most one node a simulation and never beyond a byte budget (then the simulations go on
//! from the leaves it has). Given a seed and no deadline reached, it is deterministic.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::chance::Chance;
use crate::decisions::{player_number, returns, sample, Decisions, Node};
use crate::error::message::MAX_SEED;
use crate::error::{Error, Result};

/// UCB1's exploration constant, for returns in [−1, 1].
const EXPLORATION: f64 = 1.4;
/// What a return loses a decision before it: a win sooner is worth more, a loss later costs less.
/// Without it a player ahead where nothing forces the end (Hypnosia's optional crossings) sees no
/// reason to end the game, and circles.
const DISCOUNT: f64 = 0.999;
/// A node tries a new decision while it has tried fewer than this times the square root of its
/// visits. Against trying every decision once first, at 400 simulations a search over 200 games:
/// Isaac 86% (with its preferred removals; 57% without them), Iago 50%, Caesar! 52%; a factor of 2
/// gave Isaac 72%, 0.5 gave 78%.
const WIDENING: f64 = 1.0;
/// Simulations between two looks at the clock and the stop flag.
const CHECK_EVERY: u32 = 16;
/// The candidates an answer lists at most, the most visited first.
pub const CANDIDATES: usize = 8;

/// When a search stops, and what it may hold.
#[derive(Debug, Clone)]
pub struct Limits {
    /// The simulations to run.
    pub simulations: u32,
    /// How long it may think, if bounded by time as well.
    pub think: Option<Duration>,
    /// The bytes its tree may hold.
    pub memory: usize,
}

/// The simulations of each level, 1 to 8 (docs/bots.md: their strength, measured).
pub const LEVELS: [u32; 8] = [25, 50, 100, 200, 400, 800, 1600, 3200];
/// The level of a request that names neither a level nor simulations.
pub const DEFAULT_LEVEL: u8 = 4;
/// A search's tree by default: 64 MiB.
pub const DEFAULT_MEMORY: usize = 64 << 20;

/// The most bytes a simulation adds to a search's tree: one node, and its place in its parent's list
/// of children (grown by doubling from 4 slots, so at most 4 slots a child). A tree of n simulations
/// holds at most n + 1 times this (the service counts it in a worker's memory before a search).
pub const TREE_BYTES_PER_SIMULATION: usize =
    std::mem::size_of::<TreeNode>() + 4 * std::mem::size_of::<u32>();

/// What a request asks of a search (`level` or `simulations`, `think_ms`, `seed`), and the bounds
/// of whoever serves it (`max_simulations`, `max_think_ms`, `memory`).
#[derive(Debug, Clone)]
pub struct Asked {
    // Wide enough for any number a request or a caller gives: one past the bound is refused by
    // name (`OverBudget`), not by its type.
    pub level: Option<u64>,
    pub simulations: Option<u64>,
    pub think_ms: Option<u64>,
    pub seed: Option<u64>,
    pub max_simulations: u32,
    pub max_think_ms: u32,
    pub memory: usize,
}

impl Default for Asked {
    /// Nothing asked; the bounds of a library call: a level's simulations, any time, 64 MiB.
    fn default() -> Self {
        Asked {
            level: None,
            simulations: None,
            think_ms: None,
            seed: None,
            max_simulations: u32::MAX,
            max_think_ms: u32::MAX,
            memory: DEFAULT_MEMORY,
        }
    }
}

impl Asked {
    /// The limits asked, each within its bound (`OverBudget` naming the first that is not): a
    /// level's simulations, or the simulations given (not both), at least one; a think time of at
    /// least 1 ms; a seed up to `MAX_SEED`.
    pub fn limits(&self) -> Result<Limits> {
        let over = |field: &'static str, limit: u64, what: String| Error::OverBudget {
            field,
            limit,
            detail: format!("{field}: {what}"),
        };
        let simulations =
            match (self.level, self.simulations) {
                (Some(_), Some(_)) => {
                    return Err(Error::malformed_field(
                        "simulations",
                        "give a level or a number of simulations, not both",
                    ))
                }
                (Some(level), None) => {
                    let of_level =
                        (level.checked_sub(1)).and_then(|l| LEVELS.get(usize::try_from(l).ok()?));
                    u64::from(*of_level.ok_or_else(|| {
                        over("level", 8, format!("levels are 1 to 8, not {level}"))
                    })?)
                }
                (None, Some(simulations)) => simulations,
                (None, None) => u64::from(LEVELS[usize::from(DEFAULT_LEVEL) - 1]),
            };
        let limit = u64::from(self.max_simulations);
        if simulations == 0 || simulations > limit {
            let what = format!("{simulations} asked; this service runs 1 to {limit}");
            return Err(over("simulations", limit, what));
        }
        let simulations = simulations as u32; // within max_simulations, a u32
        let limit = u64::from(self.max_think_ms);
        if let Some(think) = self.think_ms.filter(|&t| t == 0 || t > limit) {
            let what = format!("{think} ms asked; this service thinks 1 to {limit} ms");
            return Err(over("think_ms", limit, what));
        }
        if let Some(seed) = self.seed.filter(|&seed| seed > MAX_SEED) {
            return Err(Error::malformed_field(
                "seed",
                format!("{seed} is over 2^53 - 1, the largest seed"),
            ));
        }
        Ok(Limits {
            simulations,
            think: self.think_ms.map(Duration::from_millis),
            memory: self.memory,
        })
    }
}

/// What a search suggests for the player to decide at its root, as an answer shows it
/// (`POST /v1/games/{game}/suggest`, `game.suggest`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, schemars::JsonSchema)]
pub struct Suggestion {
    /// The move, in the notation `play` takes: for the player to move, by what it sees.
    #[serde(rename = "move")]
    pub mv: String,
    /// Its first decision's action id (`Position.legal_actions`); null where chance decides (a
    /// roll to ask for).
    pub action: Option<usize>,
    /// The mover's expected return after the move, by the search (its candidate's value; at a
    /// chance node, the mean of its simulations), from −1 (a sure loss) to 1 (a sure win), each
    /// game's end discounted by 0.999 a decision from here (a sooner win is worth more).
    pub value: f64,
    /// The simulations run: as asked, or fewer if the think time ran out first.
    pub simulations: u32,
    /// The time the search took, in milliseconds.
    pub spent_ms: f64,
    /// The seed of the search: the same seed and simulations suggest the same again.
    pub seed: u64,
    /// The first decisions most visited, best first, each with the whole move it begins.
    pub candidates: Vec<Candidate>,
    /// The nodes its tree held (not shown).
    #[serde(skip)]
    pub nodes: usize,
}

/// A decision at the root, as the search judged it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, schemars::JsonSchema)]
#[schemars(rename = "SuggestionCandidate")]
pub struct Candidate {
    /// The whole move it begins, in the notation `play` takes: it and the mover's most visited
    /// decisions after it, up to the end of the mover's turn.
    #[serde(rename = "move")]
    pub mv: String,
    pub action: usize,
    pub visits: u32,
    /// The mover's mean return through it, from −1 to 1.
    pub value: f64,
}

/// A search of a root, checked and ready to run: its limits as asked and its seed (a fresh one when
/// none is asked). The service checks a request this way before it waits for a thread to think.
#[derive(Clone)]
pub struct Search<G: Decisions> {
    root: Node<G>,
    pub limits: Limits,
    pub seed: u64,
}

impl<G: Decisions> Search<G> {
    /// A search of `root` as `asked`, or the refusal of what it asks (`Asked::limits`).
    pub fn new(root: Node<G>, asked: &Asked) -> Result<Self> {
        let limits = asked.limits()?;
        let seed = (asked.seed).unwrap_or_else(|| crate::chance::fresh_seed() & MAX_SEED);
        Ok(Search { root, limits, seed })
    }

    /// Thinks within the limits, its tree within `memory` bytes when given, until `stop` is raised.
    pub fn run(&self, memory: Option<usize>, stop: &AtomicBool) -> Result<Suggestion> {
        let limits = Limits {
            memory: memory.unwrap_or(self.limits.memory),
            ..self.limits.clone()
        };
        suggest(&self.root, &limits, self.seed, stop)
    }
}

/// Who decides a tree node's incoming edge: a player by number, or chance.
const CHANCE: u8 = u8::MAX;

struct TreeNode {
    /// The decision that leads here from its parent.
    action: u32,
    /// Who took it (`CHANCE` for chance; at the root, the mover, whose returns are its value).
    chooser: u8,
    visits: u32,
    /// The simulations in which the decision was legal (UCB1's parent count for it).
    available: u32,
    /// The sum of the chooser's returns over the simulations through here.
    total: f64,
    children: Vec<u32>,
}

impl TreeNode {
    fn new(action: usize, chooser: u8) -> Self {
        TreeNode {
            action: action as u32,
            chooser,
            visits: 0,
            available: 0,
            total: 0.0,
            children: Vec::new(),
        }
    }

    fn mean(&self) -> f64 {
        if self.visits == 0 {
            0.0
        } else {
            self.total / f64::from(self.visits)
        }
    }

    fn ucb(&self) -> f64 {
        self.mean()
            + EXPLORATION * (f64::from(self.available.max(1)).ln() / f64::from(self.visits)).sqrt()
    }
}

/// A search tree within its byte budget: the nodes, and the bytes they and their child lists hold.
struct Tree {
    nodes: Vec<TreeNode>,
    bytes: usize,
    memory: usize,
}

impl Tree {
    /// A tree whose root keeps the mover's returns (its value).
    fn new(limits: &Limits, mover: usize) -> Self {
        let node = std::mem::size_of::<TreeNode>();
        // At most one node a simulation, reserved once, never reallocated: as many as the budget
        // holds with their places in their parents' lists (else the nodes would take it all and
        // leave no room to link them).
        let capacity = (limits.simulations as usize + 1)
            .min(limits.memory / TREE_BYTES_PER_SIMULATION)
            .max(1);
        let mut nodes = Vec::with_capacity(capacity);
        nodes.push(TreeNode::new(0, mover as u8));
        Tree {
            bytes: capacity * node,
            nodes,
            memory: limits.memory,
        }
    }

    fn child(&self, parent: usize, action: usize) -> Option<usize> {
        let children = &self.nodes[parent].children;
        children
            .iter()
            .map(|&c| c as usize)
            .find(|&c| self.nodes[c].action as usize == action)
    }

    /// A new child of `parent`, if the budget holds it.
    fn add(&mut self, parent: usize, action: usize, chooser: u8) -> Option<usize> {
        const SLOT: usize = std::mem::size_of::<u32>();
        let index = self.nodes.len();
        if index == self.nodes.capacity() {
            return None;
        }
        let children = &mut self.nodes[parent].children;
        if children.len() == children.capacity() {
            // Grown by hand, so that its bytes are counted as they are: doubled, 4 slots at least.
            let more = children.capacity().max(4);
            if self.bytes + more * SLOT > self.memory {
                return None;
            }
            let before = children.capacity();
            children.reserve_exact(more);
            self.bytes += (children.capacity() - before) * SLOT;
        }
        children.push(index as u32);
        self.nodes.push(TreeNode::new(action, chooser));
        Some(index)
    }
}

/// Searches from `root` for the player who decides there (or, at a chance node, who moves next).
pub fn suggest<G: Decisions>(
    root: &Node<G>,
    limits: &Limits,
    seed: u64,
    stop: &AtomicBool,
) -> Result<Suggestion> {
    let started = Instant::now();
    let deadline = limits.think.map(|think| started + think);
    let to_move = G::to_move(&root.position).ok_or(Error::GameOver)?;
    let mover = player_number::<G>(&root.position, to_move)?;
    let mut chance = Chance::from_seed(seed, None);
    let mut tree = Tree::new(limits, mover);
    let mut simulations = 0;
    while simulations < limits.simulations {
        if simulations % CHECK_EVERY == 0
            && simulations > 0
            && (stop.load(Ordering::Relaxed) || deadline.is_some_and(|d| Instant::now() >= d))
        {
            break;
        }
        let node = G::resample(root, mover, &mut chance);
        simulate(&mut tree, node, &mut chance);
        simulations += 1;
    }
    let (mv, action, value, candidates) = if G::is_chance(root) {
        let moves = G::legal_move_texts(&root.position);
        let roll = moves.into_iter().next().unwrap_or_default();
        (roll, None, tree.nodes[0].mean(), vec![])
    } else {
        // The value of the move suggested, not the mean of every simulation (which counts the
        // exploration of worse moves).
        let candidates = candidates(&tree, root, mover, &mut chance)?;
        let best = candidates.first().ok_or(Error::GameOver)?;
        (best.mv.clone(), Some(best.action), best.value, candidates)
    };
    Ok(Suggestion {
        mv,
        action,
        value,
        simulations,
        spent_ms: started.elapsed().as_secs_f64() * 1000.0,
        seed,
        candidates,
        nodes: tree.nodes.len(),
    })
}

/// One simulation from a determinization: select and expand down the tree, play out (the game's
/// preferred decisions, else at random), and add the returns along the path.
fn simulate<G: Decisions>(tree: &mut Tree, mut node: Node<G>, chance: &mut Chance) {
    let mut path = vec![0usize];
    let mut at = 0;
    let mut decisions = 0;
    loop {
        let (action, chooser) = if G::is_chance(&node) {
            (sample(&G::chance_outcomes(&node), chance), CHANCE)
        } else {
            let legal = G::legal_actions(&node);
            match decider::<G>(&node) {
                Some(chooser) if !legal.is_empty() => {
                    (select(tree, at, &node, &legal, chance), chooser)
                }
                _ => break, // over
            }
        };
        G::apply(&mut node, action).expect("a legal decision applies");
        decisions += 1;
        match tree.child(at, action) {
            Some(child) => at = child,
            None => {
                // Expansion: the new leaf (if the budget holds it) is where the playout starts.
                if let Some(child) = tree.add(at, action, chooser) {
                    tree.nodes[child].available = 1;
                    path.push(child);
                }
                break;
            }
        }
        path.push(at);
    }
    let (returns, played) = playout(node, chance);
    let discount = DISCOUNT.powi(decisions + played);
    for &index in &path {
        let visited = &mut tree.nodes[index];
        visited.visits += 1;
        if visited.chooser != CHANCE {
            visited.total += discount * returns[usize::from(visited.chooser)];
        }
    }
}

/// The player who decides at a node that is not a chance node, by number; None once over.
fn decider<G: Decisions>(node: &Node<G>) -> Option<u8> {
    let name = G::to_move(&node.position)?;
    let number = player_number::<G>(&node.position, name).ok()?;
    u8::try_from(number).ok()
}

/// The decision to take at tree node `at` (whose node is `node`) among `legal` (ascending): while
/// it has tried fewer than `WIDENING` √visits of them, one not tried yet (the game's preferred one
/// if that is untried, else one at random); else the best by UCB1 among the tried ones (each
/// counted available).
fn select<G: Decisions>(
    tree: &mut Tree,
    at: usize,
    node: &Node<G>,
    legal: &[usize],
    chance: &mut Chance,
) -> usize {
    let mut tried: Vec<usize> = Vec::with_capacity(tree.nodes[at].children.len());
    let mut best: Option<(f64, usize)> = None;
    for index in 0..tree.nodes[at].children.len() {
        let child = tree.nodes[at].children[index] as usize;
        let child = &mut tree.nodes[child];
        let action = child.action as usize;
        if legal.binary_search(&action).is_err() {
            continue; // not legal in this determinization
        }
        child.available += 1;
        tried.push(action);
        let score = child.ucb();
        if best.is_none_or(|(b, _)| score > b) {
            best = Some((score, action));
        }
    }
    let widened = WIDENING * f64::from(tree.nodes[at].visits.max(1)).sqrt();
    match best {
        Some((_, action)) if tried.len() == legal.len() || tried.len() as f64 >= widened => action,
        _ => {
            tried.sort_unstable();
            let untried = |action: &usize| tried.binary_search(action).is_err();
            let playable = |action: &usize| legal.binary_search(action).is_ok() && untried(action);
            if let Some(action) = G::preferred(node, chance).filter(playable) {
                return action;
            }
            let untried: Vec<usize> = legal.iter().copied().filter(untried).collect();
            untried[chance.below(untried.len() as u32) as usize]
        }
    }
}

/// Plays a node out, each decision the game's preferred one or else at random, at most the game's
/// longest length in decisions (an unfinished playout returns 0 for everyone): the returns, and
/// the decisions taken.
fn playout<G: Decisions>(mut node: Node<G>, chance: &mut Chance) -> (Vec<f64>, i32) {
    let mut played = 0;
    while played < G::MAX_DECISIONS as i32 {
        let decided = match G::preferred(&node, chance) {
            Some(action) if G::apply(&mut node, action).is_ok() => true,
            _ => G::random_decision(&mut node, chance),
        };
        if !decided {
            break;
        }
        played += 1;
    }
    (returns::<G>(&node.position), played)
}

/// The root's decisions, the most visited first (ties: the better value, then the lower id), each
/// with the move it begins on the real root.
fn candidates<G: Decisions>(
    tree: &Tree,
    root: &Node<G>,
    mover: usize,
    chance: &mut Chance,
) -> Result<Vec<Candidate>> {
    let mut children: Vec<usize> = tree.nodes[0].children.iter().map(|&c| c as usize).collect();
    let legal = G::legal_actions(root);
    children.retain(|&c| legal.contains(&(tree.nodes[c].action as usize)));
    children.sort_by(|&a, &b| best_first(&tree.nodes[a], &tree.nodes[b]));
    if children.is_empty() {
        // No simulation ran: the first legal decision, unjudged.
        let action = *legal.first().ok_or(Error::GameOver)?;
        let text = whole_move(tree, None, root, action, mover, chance)?;
        return Ok(vec![Candidate {
            action,
            mv: text,
            visits: 0,
            value: 0.0,
        }]);
    }
    children
        .into_iter()
        .take(CANDIDATES)
        .map(|c| {
            let node = &tree.nodes[c];
            let action = node.action as usize;
            Ok(Candidate {
                action,
                mv: whole_move(tree, Some(c), root, action, mover, chance)?,
                visits: node.visits,
                value: node.mean(),
            })
        })
        .collect()
}

/// The order of decisions a search judged, best first: the most visited, then the better value,
/// then the lower id.
fn best_first(a: &TreeNode, b: &TreeNode) -> std::cmp::Ordering {
    (b.visits.cmp(&a.visits))
        .then(b.mean().total_cmp(&a.mean()))
        .then(a.action.cmp(&b.action))
}

/// The move that root decision `action` begins, in `play`'s notation: that decision and the mover's
/// next ones on the real root (the most visited in the tree; where the tree has none, one at
/// random), until the move is one the position lists whole.
fn whole_move<G: Decisions>(
    tree: &Tree,
    mut at: Option<usize>,
    root: &Node<G>,
    action: usize,
    mover: usize,
    chance: &mut Chance,
) -> Result<String> {
    let moves = G::legal_move_texts(&root.position);
    let mut node = root.clone();
    let mut texts = vec![G::move_of(&root.position, action)?];
    G::apply(&mut node, action)?;
    loop {
        let text = texts.join(" ");
        let same_mover = decider::<G>(&node).map(usize::from) == Some(mover);
        if moves.contains(&text) || G::is_chance(&node) || !same_mover {
            return Ok(text);
        }
        let legal = G::legal_actions(&node);
        if legal.is_empty() {
            return Ok(text);
        }
        let next = at
            .and_then(|a| {
                tree.nodes[a]
                    .children
                    .iter()
                    .map(|&c| &tree.nodes[c as usize])
                    .filter(|c| legal.contains(&(c.action as usize)))
                    .min_by(|a, b| best_first(a, b))
                    .map(|c| c.action as usize)
            })
            .unwrap_or_else(|| legal[chance.below(legal.len() as u32) as usize]);
        at = at.and_then(|a| tree.child(a, next));
        texts.push(G::move_of(&node.position, next)?);
        G::apply(&mut node, next)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::default_setup;
    use crate::registry::GAMES;

    fn limits(simulations: u32) -> Limits {
        Limits {
            simulations,
            think: None,
            memory: 64 << 20,
        }
    }

    /// The nodes of a seeded random game at a turn's start, going on (the last before the end last).
    fn turn_starts<G: Decisions>(seed: u64) -> Vec<Node<G>> {
        let start = G::start(&default_setup::<G>(), Some(seed), None);
        let mut node = Node::<G>::new(start);
        let mut chance = Chance::from_seed(seed, None);
        let mut nodes = vec![];
        loop {
            if node.at_turn_start() && G::to_move(&node.position).is_some() {
                nodes.push(node.clone());
            }
            if !G::random_decision(&mut node, &mut chance) {
                break;
            }
        }
        nodes
    }

    /// `count` of `items` spread evenly, the first and the last among them.
    fn spread<T>(mut items: Vec<T>, count: usize) -> Vec<T> {
        let step = items.len().div_ceil(count).max(1);
        let last = items.pop();
        let mut spread: Vec<T> = items.into_iter().step_by(step).collect();
        spread.truncate(count - 1);
        spread.extend(last);
        spread
    }

    /// `count` nodes spread along a seeded random game (see `turn_starts`).
    fn along_a_game<G: Decisions>(seed: u64, count: usize) -> Vec<Node<G>> {
        spread(turn_starts::<G>(seed), count)
    }

    /// Along random games of every game: the move suggested is one `play` takes there, as is every
    /// candidate's, the best candidate is the move, the tree holds one node a simulation at most,
    /// and the same seed suggests the same again.
    #[test]
    fn every_game_s_suggestion_is_a_legal_move_and_repeats_by_seed() {
        fn check<G: Decisions>() {
            let never = AtomicBool::new(false);
            for (k, node) in along_a_game::<G>(3, 8).into_iter().enumerate() {
                let legal = G::legal_move_texts(&node.position);
                let suggestion = suggest(&node, &limits(60), 11, &never).expect("ongoing");
                assert!(
                    legal.contains(&suggestion.mv),
                    "{} {}",
                    G::NAME,
                    suggestion.mv
                );
                assert_eq!(suggestion.simulations, 60);
                assert!(suggestion.nodes <= 61);
                assert!((-1.0..=1.0).contains(&suggestion.value));
                for candidate in &suggestion.candidates {
                    assert!(legal.contains(&candidate.mv), "{}", candidate.mv);
                }
                if let Some(best) = suggestion.candidates.first() {
                    assert_eq!(
                        (Some(best.action), &best.mv, best.value),
                        (suggestion.action, &suggestion.mv, suggestion.value)
                    );
                } else {
                    assert!(G::is_chance(&node) && suggestion.action.is_none());
                }
                if k < 2 {
                    let again = suggest(&node, &limits(60), 11, &never).expect("ongoing");
                    let repeated = (again.mv, again.candidates, again.value);
                    let first = (suggestion.mv, suggestion.candidates, suggestion.value);
                    assert_eq!(repeated, first);
                }
            }
        }
        for (_, kind) in GAMES {
            crate::with_game!(kind, G => check::<G>());
        }
    }

    /// A finished game has nothing to suggest.
    #[test]
    fn a_finished_game_is_refused() {
        fn check<G: Decisions>() {
            let mut node = along_a_game::<G>(5, 2).pop().expect("a game");
            let mut chance = Chance::from_seed(1, None);
            while G::random_decision(&mut node, &mut chance) {}
            let never = AtomicBool::new(false);
            let refused = suggest(&node, &limits(10), 1, &never);
            assert!(matches!(refused, Err(Error::GameOver)), "{}", G::NAME);
        }
        for (_, kind) in GAMES {
            crate::with_game!(kind, G => check::<G>());
        }
    }

    /// A tree whose budget holds few nodes stays within it, and its simulations still run to the
    /// count, from the leaves it has.
    #[test]
    fn the_tree_stays_within_its_bytes() {
        fn check<G: Decisions>() {
            let node = along_a_game::<G>(2, 4).swap_remove(0); // the start: a tree larger than the budget
            let memory = 300 * TREE_BYTES_PER_SIMULATION;
            let small = Limits {
                simulations: 600,
                think: None,
                memory,
            };
            let never = AtomicBool::new(false);
            let suggestion = suggest(&node, &small, 4, &never).expect("ongoing");
            assert_eq!(suggestion.simulations, 600);
            assert!(suggestion.nodes <= 300, "{} {}", G::NAME, suggestion.nodes);
            // It grows to its budget, and simulations go on from its leaves.
            assert!(suggestion.nodes >= 200, "{} {}", G::NAME, suggestion.nodes);
            let legal = G::legal_move_texts(&node.position);
            assert!(legal.contains(&suggestion.mv));
        }
        for (_, kind) in GAMES {
            crate::with_game!(kind, G => check::<G>());
        }
    }

    /// A tree of n simulations holds at most n + 1 times `TREE_BYTES_PER_SIMULATION`, counted as it
    /// grows, in its worst shapes (a chain: a child each; a fan: every node the root's) and a random one.
    #[test]
    fn a_tree_s_bytes_are_counted_within_its_bound_a_simulation() {
        let simulations = 1000;
        let limits = limits(simulations);
        let bound = (simulations as usize + 1) * TREE_BYTES_PER_SIMULATION;
        let mut chance = Chance::from_seed(3, None);
        for shape in ["chain", "fan", "random"] {
            let mut tree = Tree::new(&limits, 0);
            for n in 1..=simulations as usize {
                let parent = match shape {
                    "chain" => n - 1,
                    "fan" => 0,
                    _ => chance.below(n as u32) as usize,
                };
                assert_eq!(tree.add(parent, n, 0), Some(n));
            }
            let slots: usize = tree.nodes.iter().map(|node| node.children.capacity()).sum();
            let held = tree.nodes.capacity() * std::mem::size_of::<TreeNode>() + slots * 4;
            assert_eq!(tree.bytes, held, "{shape}: counted as held");
            assert!(tree.bytes <= bound, "{shape}: {} > {bound}", tree.bytes);
        }
    }

    /// The state's own chance (Hypnosia's generator of the next rolls, secret in a sealed state) is
    /// never read: two states that differ only in it get the same suggestion for a seed.
    #[test]
    fn the_state_s_own_chance_does_not_change_the_suggestion() {
        use crate::game::{read_json, Rules, StateOf};
        use crate::hypnosia::Hypnosia;
        let never = AtomicBool::new(false);
        for node in along_a_game::<Hypnosia>(4, 6) {
            let mut state = serde_json::to_value(StateOf::<Hypnosia>(&node.position)).unwrap();
            state["rng"]["seed"] = "ff".repeat(32).into();
            let twin = read_json::<Hypnosia>(&state.to_string(), None).expect("a state");
            assert_ne!(
                Hypnosia::position_text(&twin),
                Hypnosia::position_text(&node.position)
            );
            let ours = suggest(&node, &limits(40), 5, &never).expect("ongoing");
            let theirs =
                suggest(&Node::<Hypnosia>::new(twin), &limits(40), 5, &never).expect("ongoing");
            assert_eq!(
                ours,
                Suggestion {
                    spent_ms: ours.spent_ms,
                    ..theirs
                }
            );
        }
    }

    /// A node tries a new decision only while it has tried fewer than √visits (its visits before
    /// the simulation, at least 1): Isaac's first turn (600 placements) is searched on 2 of them
    /// after 5 simulations (the 1st, 3rd: 1 < √2; not the 5th: 2 = √4) and 20 after 400, not on
    /// one simulation each.
    #[test]
    fn a_node_widens_with_its_visits() {
        use crate::isaac::Isaac;
        let node = along_a_game::<Isaac>(1, 4).swap_remove(0);
        assert_eq!(Isaac::legal_actions(&node).len(), 600);
        let mut tree = Tree::new(&limits(400), 0);
        let mut chance = Chance::from_seed(2, None);
        for simulations in 1..=400 {
            simulate(&mut tree, node.clone(), &mut chance);
            let tried = tree.nodes[0].children.len();
            match simulations {
                5 => assert_eq!(tried, 2),
                400 => assert_eq!(tried, 20),
                _ => {}
            }
        }
    }

    /// The tree tries a game's preferred decision first: at Isaac's removals, the first decision a
    /// node tries is a piece's largest advance (of 1 + points each), at every scoring turn of 4 games.
    #[test]
    fn the_tree_tries_the_preferred_decision_first() {
        use crate::isaac::Isaac;
        let mut scoring = 0;
        for node in (6..10).flat_map(turn_starts::<Isaac>) {
            let legal = Isaac::legal_actions(&node);
            let text = |action| Isaac::move_of(&node.position, action).unwrap();
            if legal.len() < 2 || !text(legal[0]).starts_with('x') {
                continue; // a placement, or a pass
            }
            let mut tree = Tree::new(&limits(1), 0);
            simulate(
                &mut tree,
                node.clone(),
                &mut Chance::from_seed(scoring, None),
            );
            let first = tree.nodes[tree.nodes[0].children[0] as usize].action as usize;
            let piece = |action| text(action).split('+').next().unwrap().to_string();
            let largest = legal.iter().filter(|&&a| piece(a) == piece(first)).max();
            assert_eq!(largest, Some(&first), "{}", text(first));
            scoring += 1;
        }
        assert!(scoring > 5, "{scoring}");
    }

    /// A search's tree keeps within the memory its run is given, whatever was asked before.
    #[test]
    fn a_run_s_memory_bounds_its_tree() {
        let node = along_a_game::<crate::iago::Iago>(2, 4).swap_remove(1);
        let asked = Asked {
            simulations: Some(2000),
            seed: Some(1),
            ..Asked::default()
        };
        let search = Search::new(node, &asked).expect("asked within bounds");
        let never = AtomicBool::new(false);
        let whole = search.run(None, &never).expect("ongoing");
        let small = search
            .run(Some(300 * TREE_BYTES_PER_SIMULATION), &never)
            .expect("ongoing");
        assert!(whole.nodes > 1000, "{}", whole.nodes);
        assert!(small.nodes <= 300, "{}", small.nodes);
        assert_eq!((small.simulations, small.seed), (2000, 1));
    }

    /// A raised stop flag or a deadline ends the search at its next look (every 16 simulations).
    #[test]
    fn a_stop_or_a_deadline_ends_the_search() {
        let node = along_a_game::<crate::iago::Iago>(1, 4).swap_remove(1);
        let stopped = AtomicBool::new(true);
        let suggestion = suggest(&node, &limits(100_000), 1, &stopped).expect("ongoing");
        assert_eq!(suggestion.simulations, CHECK_EVERY);
        let timed = Limits {
            think: Some(Duration::ZERO),
            ..limits(100_000)
        };
        let never = AtomicBool::new(false);
        let suggestion = suggest(&node, &timed, 1, &never).expect("ongoing");
        assert_eq!(suggestion.simulations, CHECK_EVERY);
    }

    /// What the mover cannot see does not change the suggestion: nodes the mover cannot tell apart
    /// (other draws of what it does not see) get the same suggestion for a seed.
    #[test]
    fn hidden_information_does_not_change_the_suggestion() {
        fn check<G: Decisions>() {
            if !G::HIDDEN_INFORMATION {
                return; // every node is its own only determinization
            }
            let never = AtomicBool::new(false);
            let mut pairs = 0;
            let players_nodes = turn_starts::<G>(8).into_iter().filter(|n| !G::is_chance(n));
            for node in spread(players_nodes.collect(), 8) {
                let mover = decider::<G>(&node).map(usize::from).expect("ongoing");
                let twin = G::resample(&node, mover, &mut Chance::from_seed(pairs, None));
                assert_eq!(
                    G::information_state(&twin, mover),
                    G::information_state(&node, mover)
                );
                pairs += 1;
                let ours = suggest(&node, &limits(40), 9, &never).expect("ongoing");
                let theirs = suggest(&twin, &limits(40), 9, &never).expect("ongoing");
                assert_eq!(ours.candidates, theirs.candidates, "{}", G::NAME);
                assert_eq!(ours.value, theirs.value);
            }
            assert!(pairs > 3, "{} {pairs}", G::NAME);
        }
        for (_, kind) in GAMES {
            crate::with_game!(kind, G => check::<G>());
        }
    }
}
