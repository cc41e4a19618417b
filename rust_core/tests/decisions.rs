//! Every game's decisions (`decisions::Decisions`: what position handles, the OpenSpiel and
//! PettingZoo adapters and the bots stand on), held beside the code: every action id names the
//! decision its game's `actions.rs` documents and reads back as that id; seeded random games reach
//! every kind of id, and a turn's decisions make the move they complete; chance outcomes are a
//! distribution; Caesar!'s observation and information state hide the opponent's hand, and
//! `resample` deals a position its player cannot tell from the one it was given.

use std::collections::BTreeSet;

use referee_core::caesar::board::{border_id, province_code, token_code, BORDERS, PROVINCES};
use referee_core::caesar::Caesar;
use referee_core::decisions::{self, Chance, Decisions, Node};
use referee_core::game::{self, Rules, StateOf};
use referee_core::hypnosia::Hypnosia;
use referee_core::iago::{cell_name, Iago};
use referee_core::isaac::Isaac;
use referee_core::registry::GAMES;
use referee_core::with_game;
use serde_json::Value;

/// A game's id layout, as its `actions.rs` documents it: the kind of an id, and its notation; and the
/// facts the tests below read of the game. Every game of the list (`games!`) has one: the tests loop over
/// the list, so a game added without its layout does not compile.
trait Layout: Decisions {
    /// Every kind of id the layout has.
    const KINDS: &'static [&'static str];
    /// The size of the action space at the start of the default setup (seed 0).
    const START_ACTIONS: usize;
    /// Seeded random games enough to play every kind of id (with `rare_nodes`).
    const KIND_GAMES: u64;
    /// Seeded random games walked for their chance nodes (more than 20 of them where the game draws).
    const CHANCE_GAMES: u64;
    fn kind(position: &Self::Position, action: usize) -> &'static str;
    /// The notation the documented layout gives the id.
    fn expected_text(position: &Self::Position, action: usize) -> String;
    /// Nodes where random games seldom go, whose legal ids are played too.
    fn rare_nodes() -> Vec<Node<Self>> {
        Vec::new()
    }
}

impl Layout for Iago {
    const KINDS: &'static [&'static str] = &["cell"];
    const START_ACTIONS: usize = 61;
    const KIND_GAMES: u64 = 1;
    const CHANCE_GAMES: u64 = 1;
    fn kind(_: &Self::Position, _: usize) -> &'static str {
        "cell"
    }
    fn expected_text(_: &Self::Position, action: usize) -> String {
        cell_name(action)
    }
}

const ISAAC_PIECES: usize = 600;
const ISAAC_PASS: usize = 44_400;

impl Layout for Isaac {
    const KINDS: &'static [&'static str] = &["place", "remove", "pass"];
    const START_ACTIONS: usize = 44_401;
    const KIND_GAMES: u64 = 2;
    const CHANCE_GAMES: u64 = 1;
    fn kind(_: &Self::Position, action: usize) -> &'static str {
        match action {
            _ if action < ISAAC_PIECES => "place",
            ISAAC_PASS => "pass",
            _ => "remove",
        }
    }
    /// `p` places piece p, `600 + 73 p + a` removes it advancing a, `44400` passes.
    fn expected_text(position: &Self::Position, action: usize) -> String {
        match Self::kind(position, action) {
            "place" => Self::move_of(position, action).unwrap(),
            "pass" => "pass".into(),
            _ => {
                let (piece, advance) = ((action - ISAAC_PIECES) / 73, (action - ISAAC_PIECES) % 73);
                format!("x{}+{advance}", Self::move_of(position, piece).unwrap())
            }
        }
    }
}

/// Hypnosia's die moves: `24 f + 12 double + 6 cross + die − 1` for 4 home squares and S spaces.
fn hypnosia_die_moves(position: &<Hypnosia as Rules>::Position) -> usize {
    Hypnosia::num_actions(position) - 22
}

impl Layout for Hypnosia {
    const KINDS: &'static [&'static str] = &[
        "from home",
        "from a space",
        "double",
        "crossing",
        "pass",
        "roll",
    ];
    const START_ACTIONS: usize = 1_846;
    const KIND_GAMES: u64 = 200;
    const CHANCE_GAMES: u64 = 2;
    fn kind(position: &Self::Position, action: usize) -> &'static str {
        let die_moves = hypnosia_die_moves(position);
        match action {
            _ if action == die_moves => "pass",
            _ if action > die_moves => "roll",
            _ if action % 24 >= 12 => "double",
            _ if action % 12 >= 6 => "crossing",
            _ if action < 4 * 24 => "from home",
            _ => "from a space",
        }
    }
    fn expected_text(position: &Self::Position, action: usize) -> String {
        let die_moves = hypnosia_die_moves(position);
        if action == die_moves {
            return "pass".into();
        }
        if action > die_moves {
            let rolls: Vec<String> = (1..=6)
                .flat_map(|high| (1..=high).map(move |low| format!("{high}-{low}")))
                .collect();
            return rolls[action - die_moves - 1].clone();
        }
        let (start, rest) = (action / 24, action % 24);
        let (double, cross, die) = (rest >= 12, rest % 12 >= 6, rest % 6 + 1);
        // A space's name is the game's (circle.index); the layout fixes the rest of the text.
        let from = if start < 4 {
            format!("h{}", start + 1)
        } else {
            let text = Self::move_of(position, action).unwrap();
            let body = text.trim_start_matches('D');
            body[..body.find(['+', '^']).unwrap()].to_owned()
        };
        let double = if double { "D" } else { "" };
        let cross = if cross { "^" } else { "+" };
        format!("{double}{from}{cross}{die}")
    }
    /// No die usable (random games on the default board hardly ever meet one): the turn is `pass`.
    fn rare_nodes() -> Vec<Node<Self>> {
        let setup = serde_json::from_value(serde_json::json!({"options": {"first_player": "red"}}))
            .unwrap();
        let setup = Hypnosia::check_setup(setup).unwrap();
        let text = "r:h4,centre,centre,centre/b:h1,h2,h3,h4 r 12 rrr 0/0 0:0";
        vec![Node::new(
            Hypnosia::parse_position(text, &setup, None).unwrap(),
        )]
    }
}

const CAESAR_PLACEMENTS: usize = 900;
const CAESAR_MIGHT_BORDER: usize = 903;
const CAESAR_MIGHT_PROVINCE: usize = 933;
const CAESAR_DRAWS: usize = 951;

impl Layout for Caesar {
    const KINDS: &'static [&'static str] = &[
        "placement",
        "decline",
        "tactics",
        "wealth",
        "might on a border",
        "might on a province",
        "draw",
    ];
    const START_ACTIONS: usize = 966;
    const KIND_GAMES: u64 = 200;
    const CHANCE_GAMES: u64 = 3;
    fn kind(_: &Self::Position, action: usize) -> &'static str {
        match action {
            _ if action < CAESAR_PLACEMENTS => "placement",
            900 => "decline",
            901 => "tactics",
            902 => "wealth",
            _ if action < CAESAR_MIGHT_PROVINCE => "might on a border",
            _ if action < CAESAR_DRAWS => "might on a province",
            _ => "draw",
        }
    }
    /// `2 (30 k + b)` places token k on border b larger number toward its first province, `+ 1`
    /// toward its second; `900` `-`, `901` `T`, `902` `W`, `903 + b` `M:<border>`, `933 + q`
    /// `M:<province>`, `951 + k` `=<token>`.
    fn expected_text(position: &Self::Position, action: usize) -> String {
        match Self::kind(position, action) {
            "placement" => {
                let (kind, border, back) = (action / 60, (action / 2) % 30, action % 2 == 1);
                let code = token_code(kind);
                let (first, second) = (BORDERS[border].0, BORDERS[border].1);
                let symmetric = code.as_bytes()[1] == code.as_bytes()[2];
                let (first, second) = if back && !symmetric {
                    (second, first)
                } else {
                    (first, second)
                };
                format!("{code}@{}-{}", PROVINCES[first].0, PROVINCES[second].0)
            }
            "decline" => "-".into(),
            "tactics" => "T".into(),
            "wealth" => "W".into(),
            "might on a border" => format!("M:{}", border_id(action - CAESAR_MIGHT_BORDER)),
            "might on a province" => {
                format!("M:{}", province_code(action - CAESAR_MIGHT_PROVINCE))
            }
            _ => format!("={}", token_code(action - CAESAR_DRAWS)),
        }
    }
}

fn start<G: Decisions>(seed: u64) -> Node<G> {
    Node::new(G::start(&game::default_setup::<G>(), Some(seed), None))
}

/// Every id of the game's action space has the documented notation and reads back as itself (a
/// symmetric Caesar! token's two orientations are one placement, the first id); none past the end.
fn check_every_id<G: Layout>() {
    let position = start::<G>(1).position;
    let count = G::num_actions(&position);
    let mut kinds = BTreeSet::new();
    for action in 0..count {
        let text = G::move_of(&position, action).unwrap();
        assert_eq!(text, G::expected_text(&position, action), "id {action}");
        let back = G::action_of(&position, &text).unwrap();
        let same_placement = back + 1 == action && G::move_of(&position, back).unwrap() == text;
        assert!(
            back == action || same_placement,
            "{text}: id {action} reads back as {back}"
        );
        kinds.insert(G::kind(&position, action));
    }
    assert!(G::move_of(&position, count).is_err());
    assert_eq!(kinds, G::KINDS.iter().copied().collect());
}

#[test]
fn every_action_id_names_its_decision_and_reads_back() {
    for (name, kind) in GAMES {
        with_game!(kind, G => {
            check_every_id::<G>();
            assert_eq!(G::num_actions(&start::<G>(0).position), G::START_ACTIONS, "{name}");
        });
    }
}

/// A seeded random game: `visit` sees every node before its decision (chance by its probabilities,
/// a player uniformly among its legal decisions) and the decision taken.
fn walk<G: Decisions>(seed: u64, mut visit: impl FnMut(&Node<G>, usize)) -> Node<G> {
    let mut node = start::<G>(seed);
    let mut chance = Chance::from_seed(seed ^ 0x5eed, None);
    loop {
        let action = if G::is_chance(&node) {
            decisions::sample(&G::chance_outcomes(&node), &mut chance)
        } else {
            let legal = G::legal_actions(&node);
            if legal.is_empty() {
                return node;
            }
            legal[chance.below(legal.len() as u32) as usize]
        };
        visit(&node, action);
        G::apply(&mut node, action).unwrap();
    }
}

/// Along seeded random games: every kind of id is taken, and the move a turn's decisions complete is
/// their notation joined (Caesar!'s `S60@HC-HU T =D42`; a whole move each in the other games).
fn check_every_kind_is_played<G: Layout>(games: u64) {
    let mut kinds = BTreeSet::new();
    for seed in 0..games {
        let mut turn: Vec<String> = Vec::new();
        walk::<G>(seed, |node, action| {
            kinds.insert(G::kind(&node.position, action));
            turn.push(G::move_of(&node.position, action).unwrap());
            let completed = G::apply(&mut node.clone(), action).unwrap();
            if let Some(mv) = completed {
                assert_eq!(mv.to_string(), turn.join(" "));
                turn.clear();
            }
        });
        if kinds.len() == G::KINDS.len() {
            return;
        }
    }
    for node in G::rare_nodes() {
        for action in G::legal_actions(&node) {
            kinds.insert(G::kind(&node.position, action));
            let mv = G::apply(&mut node.clone(), action)
                .unwrap()
                .expect("a whole move");
            assert_eq!(mv.to_string(), G::move_of(&node.position, action).unwrap());
        }
    }
    assert_eq!(
        kinds,
        G::KINDS.iter().copied().collect(),
        "in {games} games"
    );
}

#[test]
fn every_kind_of_id_is_played_and_makes_its_move() {
    for (_, kind) in GAMES {
        with_game!(kind, G => check_every_kind_is_played::<G>(G::KIND_GAMES));
    }
}

/// At a chance node the outcomes are the legal ids, each once with a positive probability, summing
/// to 1; elsewhere there are none. Hypnosia's rolls are 1/36 a double, 2/36 otherwise.
fn check_chance<G: Decisions>(games: u64) -> usize {
    let mut chance_nodes = 0;
    for seed in 0..games {
        walk::<G>(seed, |node, _| {
            let outcomes = G::chance_outcomes(node);
            if !G::is_chance(node) {
                assert!(outcomes.is_empty());
                return;
            }
            chance_nodes += 1;
            let ids: Vec<usize> = outcomes.iter().map(|&(id, _)| id).collect();
            assert_eq!(ids, G::legal_actions(node));
            assert!(outcomes.iter().all(|&(_, p)| p > 0.0), "{outcomes:?}");
            let total: f64 = outcomes.iter().map(|&(_, p)| p).sum();
            assert!((total - 1.0).abs() < 1e-9, "{total}: {outcomes:?}");
        });
    }
    chance_nodes
}

#[test]
fn chance_outcomes_sum_to_one_in_every_game_with_chance() {
    for (name, kind) in GAMES {
        with_game!(kind, G => {
            let chance_nodes = check_chance::<G>(G::CHANCE_GAMES);
            if decisions::facts::<G>().chance {
                assert!(chance_nodes > 20, "{name}: {chance_nodes}");
            } else {
                assert_eq!(chance_nodes, 0, "{name}");
            }
        });
    }
    let node = start::<Hypnosia>(3);
    assert!(Hypnosia::is_chance(&node));
    for (id, p) in Hypnosia::chance_outcomes(&node) {
        let roll = Hypnosia::move_of(&node.position, id).unwrap();
        let double = roll.as_bytes()[0] == roll.as_bytes()[2];
        assert_eq!(p, if double { 1.0 / 36.0 } else { 2.0 / 36.0 }, "{roll}");
    }
}

// ------------------------------------------------------------------ Caesar!'s hidden hands

fn state_of(position: &<Caesar as Rules>::Position) -> Value {
    serde_json::to_value(StateOf::<Caesar>(position)).unwrap()
}

const CAESAR_PLAYERS: [&str; 2] = ["caesar", "pompey"];

/// The tokens of `player`'s `what` (`hands` or `bags`), sorted.
fn tokens(state: &Value, what: &str, player: usize) -> Vec<String> {
    let mut tokens: Vec<String> =
        serde_json::from_value(state[what][CAESAR_PLAYERS[player]].clone()).unwrap();
    tokens.sort();
    tokens
}

/// The node with one of `player`'s hand tokens swapped for another kind from their bag, read back
/// as a state (None when the bag has no other kind).
fn swap_in_hand(node: &Node<Caesar>, player: usize) -> Option<Node<Caesar>> {
    let mut state = state_of(&node.position);
    let name = CAESAR_PLAYERS[player];
    let held = state["hands"][name][0].as_str()?.to_owned();
    let bag = state["bags"][name].as_array()?.clone();
    let other = bag.iter().position(|token| token.as_str() != Some(&held))?;
    state["hands"][name][0] = bag[other].clone();
    state["bags"][name][other] = Value::from(held);
    // A state lists tokens in token order.
    let order = |token: &Value| (0..15).position(|kind| Some(token_code(kind)) == token.as_str());
    for what in ["hands", "bags"] {
        state[what][name].as_array_mut()?.sort_by_key(order);
    }
    let position = game::read_json::<Caesar>(&state.to_string(), None).unwrap();
    Some(Node::new(position))
}

/// Turn starts along a seeded Caesar! game.
fn caesar_turn_starts(seed: u64) -> Vec<Node<Caesar>> {
    let mut nodes = Vec::new();
    walk::<Caesar>(seed, |node, _| {
        if node.at_turn_start() {
            nodes.push(node.clone());
        }
    });
    nodes
}

#[test]
fn caesars_observation_hides_the_other_hand_and_shows_its_own() {
    let mut swaps = 0;
    for node in caesar_turn_starts(5).iter().step_by(3) {
        for player in 0..2 {
            let other = 1 - player;
            let Some(swapped) = swap_in_hand(node, other) else {
                continue;
            };
            swaps += 1;
            let observation = Caesar::observation(node, player);
            assert_eq!(observation.len(), 448);
            assert_eq!(Caesar::observation(&swapped, player), observation);
            assert_eq!(
                Caesar::information_state(&swapped, player),
                Caesar::information_state(node, player)
            );
            assert_ne!(
                Caesar::observation(&swapped, other),
                Caesar::observation(node, other)
            );
            assert_ne!(
                Caesar::information_state(&swapped, other),
                Caesar::information_state(node, other)
            );
        }
    }
    assert!(swaps > 10, "{swaps}");
}

/// What `player` knows of a node, which `resample` keeps: the observation, the information state,
/// their own hand and bag; and what it only deals again: the opponent's tokens, hand size kept.
fn check_resample(node: &Node<Caesar>, player: usize, chance: &mut Chance) -> bool {
    let resampled = Caesar::resample(node, player, chance);
    let other = 1 - player;
    assert_eq!(
        Caesar::observation(&resampled, player),
        Caesar::observation(node, player)
    );
    assert_eq!(
        Caesar::information_state(&resampled, player),
        Caesar::information_state(node, player)
    );
    let (was, now) = (state_of(&node.position), state_of(&resampled.position));
    for what in ["hands", "bags"] {
        assert_eq!(tokens(&now, what, player), tokens(&was, what, player));
    }
    let pool = |state: &Value| {
        let mut all = [tokens(state, "hands", other), tokens(state, "bags", other)].concat();
        all.sort();
        all
    };
    assert_eq!(pool(&now), pool(&was));
    assert_eq!(
        tokens(&now, "hands", other).len(),
        tokens(&was, "hands", other).len()
    );
    game::read_json::<Caesar>(&now.to_string(), None).expect("a resampled position is a state");
    if Caesar::to_move(&node.position) == Some(CAESAR_PLAYERS[player]) && !Caesar::is_chance(node) {
        assert_eq!(
            Caesar::legal_actions(&resampled),
            Caesar::legal_actions(node)
        );
    }
    assert_ne!(now["rng"], was["rng"], "a new generator");
    tokens(&now, "hands", other) != tokens(&was, "hands", other)
}

#[test]
fn resample_keeps_what_its_player_knows_and_deals_the_rest_again() {
    let mut chance = Chance::from_seed(11, None);
    let (mut checked, mut dealt_again) = (0, 0);
    for seed in 0..2 {
        walk::<Caesar>(seed, |node, _| {
            for player in 0..2 {
                checked += 1;
                dealt_again += usize::from(check_resample(node, player, &mut chance));
            }
        });
    }
    assert!(
        checked > 100 && dealt_again > checked / 4,
        "{dealt_again} of {checked}"
    );
    // Games without hidden information answer the node itself.
    for (name, kind) in GAMES {
        with_game!(kind, G => {
            if !decisions::facts::<G>().hidden_information {
                let mut chance = Chance::from_seed(1, None);
                walk::<G>(1, |node, _| {
                    let resampled = G::resample(node, 0, &mut chance);
                    assert_eq!(decisions::node_hash(&resampled), decisions::node_hash(node), "{name}");
                });
            }
        });
    }
}
