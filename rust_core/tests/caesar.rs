//! Caesar! through the `Rules` contract: notation and state round-trips, untrusted-state checks,
//! the worked shapes of the rules' test notes as hand-built positions, perft, seeded playouts.

use referee_core::caesar::board::TOKENS;
use referee_core::caesar::{Caesar, Options, Ordered, PerPlayer, Player, Setup};
use referee_core::game::{self, CheckedSetup, Rules, Status};
use referee_core::Error;
use serde_json::{json, Value};

type Position = <Caesar as Rules>::Position;

mod common;
common::game_helpers!(Caesar);

/// Bonuses with known places: senate HU HC SD SY GA; tactics NU AC CR MT; wealth GC DM AS AF;
/// might SC MD AG CY.
fn layout() -> Ordered<String> {
    let pairs = [
        ("HU", "senate"),
        ("HC", "senate"),
        ("MT", "tactics"),
        ("SD", "senate"),
        ("GA", "senate"),
        ("NU", "tactics"),
        ("SC", "might"),
        ("GC", "wealth"),
        ("AF", "wealth"),
        ("AC", "tactics"),
        ("MD", "might"),
        ("DM", "wealth"),
        ("CY", "might"),
        ("CR", "tactics"),
        ("AG", "might"),
        ("AS", "wealth"),
        ("SY", "senate"),
    ];
    Ordered(
        pairs
            .iter()
            .map(|(p, b)| ((*p).into(), b.to_string()))
            .collect(),
    )
}

fn setup(caesar: [&str; 2], pompey: [&str; 2]) -> CheckedSetup<Setup> {
    let hand = |h: [&str; 2]| h.iter().map(|t| t.to_string()).collect();
    Caesar::check_setup(Setup {
        options: Options {
            bonuses: Some(layout()),
            hands: Some(PerPlayer::of([hand(caesar), hand(pompey)])),
        },
        ..Setup::default()
    })
    .unwrap()
}

fn token_order(code: &str) -> usize {
    TOKENS.iter().position(|t| t.0 == code).unwrap()
}

/// A JSON state under construction: tokens move from bags to the board and to hands.
struct Builder {
    state: Value,
}

impl Builder {
    fn new() -> Self {
        let start = Caesar::start(&setup(["L40", "L31"], ["L40", "L31"]), Some(1), None);
        let mut state = state_of(&start);
        for player in ["caesar", "pompey"] {
            state["bags"][player] = json!(TOKENS
                .iter()
                .flat_map(|t| std::iter::repeat_n(t.0, t.4 as usize))
                .collect::<Vec<_>>());
            state["hands"][player] = json!([]);
        }
        Builder { state }
    }

    fn take(&mut self, player: &str, token: &str) {
        let bag = self.state["bags"][player].as_array_mut().unwrap();
        let index = bag
            .iter()
            .position(|t| t == token)
            .unwrap_or_else(|| panic!("{player} has no {token} left"));
        bag.remove(index);
    }

    /// `first` is the number facing the border's first province (as the id names it).
    fn token(mut self, border: &str, player: &str, token: &str, first: u32) -> Self {
        self.take(player, token);
        let (a, b) = border.split_once('-').unwrap();
        let t = &TOKENS[token_order(token)];
        let (hi, lo) = (u32::from(t.2), u32::from(t.3));
        let second = if first == hi { lo } else { hi };
        self.state["borders"][border] = json!({ "player": player, "token": token, "faces": { a: first, b: second }, "flipped": false, "marker": null });
        self
    }

    fn border(mut self, border: &str, key: &str, value: Value) -> Self {
        self.state["borders"][border][key] = value;
        self
    }

    fn province(
        mut self,
        code: &str,
        bonus: Option<&str>,
        control: Option<&str>,
        flipped: bool,
    ) -> Self {
        self.state["provinces"][code] =
            json!({ "bonus": bonus, "control": control, "flipped": flipped });
        self
    }

    /// The player's hand; the previous one goes back to the bag.
    fn hand(mut self, player: &str, tokens: &[&str]) -> Self {
        let previous = self.state["hands"][player].as_array().unwrap().clone();
        let bag = self.state["bags"][player].as_array_mut().unwrap();
        bag.extend(previous);
        bag.sort_by_key(|t| token_order(t.as_str().unwrap()));
        for token in tokens {
            self.take(player, token);
        }
        let mut hand: Vec<&str> = tokens.to_vec();
        hand.sort_by_key(|t| token_order(t));
        self.state["hands"][player] = json!(hand);
        self
    }

    fn set(mut self, key: &str, value: Value) -> Self {
        self.state[key] = value;
        self
    }

    fn read(&self) -> Result<Position, Error> {
        read(&self.state)
    }

    fn build(&self) -> Position {
        self.read().unwrap_or_else(|e| panic!("{e:?}"))
    }
}

fn play(position: &Position, mv: &str) -> (Position, referee_core::caesar::Effects) {
    game::play_text::<Caesar>(position, mv, None).unwrap_or_else(|e| panic!("{mv}: {e:?}"))
}

fn json_of<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap()
}

// ------------------------------------------------------------------ placement

#[test]
fn icons_must_match_and_the_laurel_goes_anywhere() {
    let start = Caesar::start(&setup(["S60", "L40"], ["D51", "N42"]), Some(3), None);
    let listed = moves(&start);
    // L40: 30 borders x 2 orientations; S60: the 10 sword borders x 2.
    assert_eq!(listed.len(), 80);
    assert!(listed.contains(&"L40@HU-HC".to_owned()) && listed.contains(&"L40@HC-HU".to_owned()));
    assert!(listed.iter().filter(|m| m.starts_with("S60")).all(|m| {
        let border = &m[4..];
        [
            "HC-GA", "MT-NU", "GA-GC", "NU-AF", "SC-IT", "IT-GC", "AC-MD", "MD-DM", "CY-AG",
            "AG-SY",
        ]
        .iter()
        .any(|s| *s == border || s.split('-').rev().collect::<Vec<_>>().join("-") == border)
    }));
    let mut sorted = listed.clone();
    sorted.sort();
    assert_eq!(listed, sorted);
    let (rule, data) = refusal(&start, "S60@HU-HC");
    assert_eq!(rule, "icon-mismatch");
    assert_eq!(
        data,
        json!({ "token": "S60", "icon": "sword", "border": "HU-HC", "border_icon": "shield" })
    );
    assert_eq!(refusal(&start, "D51@HU-HC").0, "token-not-in-hand");
    let (after, _) = play(&start, "L40@HU-HC");
    assert_eq!(refusal(&after, "N42@HC-HU").0, "border-occupied");
}

#[test]
fn orientation_puts_the_larger_number_toward_the_first_province() {
    let start = Caesar::start(&setup(["S60", "S33"], ["D51", "N42"]), Some(3), None);
    let (next, effects) = play(&start, "S60@GA-HC");
    assert_eq!(effects.border, "HC-GA");
    assert_eq!(json_of(&effects.faces), json!({ "HC": 0, "GA": 6 }));
    let state = state_of(&next);
    assert_eq!(
        state["borders"]["HC-GA"]["faces"],
        json!({ "HC": 0, "GA": 6 })
    );
    // A symmetric token has one placement per border, written canonically; the other order is the same move.
    let listed = moves(&start);
    assert!(listed.contains(&"S33@HC-GA".to_owned()) && !listed.contains(&"S33@GA-HC".to_owned()));
    let a = play(&start, "S33@GA-HC =L40").0;
    let b = play(&start, "S33@HC-GA =L40").0;
    assert_eq!(a, b);
    assert_eq!(
        Caesar::parse_move("S33@GA-HC").unwrap(),
        Caesar::parse_move("S33@HC-GA").unwrap()
    );
}

#[test]
fn malformed_moves_are_refused() {
    for text in [
        "",
        "S60",
        "S61@HC-GA",
        "S60@HC",
        "S60@HU-IT",
        "S60@HC-GA X",
        "S60@HC-GA =S51 T",
        "S60@HC-GA M:XX",
        "S60@HC-GA =Q11",
        "S60@HC-GA  T",
        "s60@hc-ga",
    ] {
        assert!(
            matches!(Caesar::parse_move(text), Err(Error::MalformedMove { .. })),
            "{text:?}"
        );
    }
    let mv = Caesar::parse_move("S60@GA-HC M:HC-HU - =S51").unwrap();
    assert_eq!(mv.to_string(), "S60@GA-HC M:HU-HC - =S51");
}

// ------------------------------------------------------------------ closures

/// Caesar's D51 on HU-HC faces HU with 5; Pompey to move with N51.
fn tie_position() -> Position {
    Builder::new()
        .token("HU-HC", "caesar", "D51", 5)
        .hand("caesar", &["L40", "L31"])
        .hand("pompey", &["N51", "L22"])
        .set("to_move", json!("pompey"))
        .province("HU", Some("tactics"), None, false)
        .province("HC", Some("senate"), None, false)
        .province("MT", Some("senate"), None, false)
        .build()
}

#[test]
fn a_tie_leaves_no_marker_and_a_bonus_needs_its_choice() {
    let pos = tie_position();
    let listed = moves(&pos);
    assert!(
        listed.contains(&"N51@HU-MT T".to_owned()) && listed.contains(&"N51@HU-MT -".to_owned())
    );
    assert!(!listed.contains(&"N51@HU-MT".to_owned()));
    assert_eq!(refusal(&pos, "N51@HU-MT").0, "missing-choice");
    assert_eq!(refusal(&pos, "N51@HU-MT W").0, "choice-mismatch");
    assert_eq!(refusal(&pos, "N51@HU-MT T -").0, "too-many-choices");
    let (next, effects) = play(&pos, "N51@HU-MT - =S60");
    assert_eq!(
        json_of(&effects.closures),
        json!([{ "province": "HU", "bonus": "tactics", "sums": { "caesar": 5, "pompey": 5 }, "control": null, "markers": [], "choice": "-" }])
    );
    assert_eq!(effects.drawn, vec!["S60"]);
    let state = state_of(&next);
    assert_eq!(
        state["provinces"]["HU"],
        json!({ "bonus": null, "control": null, "flipped": false })
    );
    assert_eq!(state["markers"], json!({ "caesar": 0, "pompey": 0 }));
    assert_eq!(state["to_move"], "caesar");
    // Tactics used: Pompey again.
    let (next, effects) = play(&pos, "N51@HU-MT T =S60");
    assert!(effects.extra_turn);
    assert_eq!(Caesar::to_move(&next), Some("pompey"));
}

/// Caesar holds SD (and SC, whose marker Might flipped); Italia misses only IT-DM. Caesar to move
/// with N42, holding one Senate token (its marker under it).
fn italia_position() -> Builder {
    Builder::new()
        .token("MT-SD", "caesar", "N60", 0)
        .token("SD-GA", "pompey", "D33", 3)
        .token("SD-SC", "caesar", "N51", 5)
        .token("SD-IT", "pompey", "D42", 2)
        .token("NU-SC", "pompey", "N33", 3)
        .token("SC-IT", "caesar", "S60", 6)
        .token("SC-AF", "pompey", "N42", 2)
        .token("IT-GC", "caesar", "S51", 5)
        .token("IT-AC", "pompey", "N51", 5)
        .token("IT-MD", "caesar", "D60", 6)
        .hand("caesar", &["L22", "N42"])
        .hand("pompey", &["L40", "L31"])
        .set("to_move", json!("caesar"))
        .province("SD", None, Some("caesar"), false)
        .province("SC", None, Some("caesar"), true)
        // 16 bonuses left: senate 5 (IT's included), tactics 4, wealth 4, might 3.
        .province("MT", Some("tactics"), None, false)
        .province("GA", Some("senate"), None, false)
        .province("HU", Some("senate"), None, false)
        .province("HC", Some("senate"), None, false)
        .province("SY", Some("senate"), None, false)
        .province("NU", Some("tactics"), None, false)
        .province("AC", Some("tactics"), None, false)
        .province("CR", Some("tactics"), None, false)
        .province("GC", Some("wealth"), None, false)
        .province("AF", Some("wealth"), None, false)
        .province("DM", Some("wealth"), None, false)
        .province("AS", Some("wealth"), None, false)
        .province("MD", Some("might"), None, false)
        .province("AG", Some("might"), None, false)
        .province("CY", Some("might"), None, false)
        .set("senate", json!({ "caesar": 1, "pompey": 0 }))
        .set("markers", json!({ "caesar": 3, "pompey": 0 }))
}

#[test]
fn italia_takes_two_markers_border_markers_skip_a_flipped_neighbour_and_senate_counts_two() {
    let pos = italia_position().build();
    let (next, effects) = play(&pos, "N42@IT-DM =S33");
    assert_eq!(
        json_of(&effects.closures),
        json!([{
            "province": "IT", "bonus": "senate", "sums": { "caesar": 15, "pompey": 9 }, "control": "caesar",
            "markers": ["IT", "IT*", "SD-IT", "senate", "senate"], "choice": null
        }])
    );
    let state = state_of(&next);
    assert_eq!(state["italia_dashed"], "caesar");
    assert_eq!(
        (&state["markers"]["caesar"], &state["senate"]["caesar"]),
        (&json!(8), &json!(2))
    );
    assert_eq!(state["borders"]["SD-IT"]["marker"], "caesar");
    assert_eq!(state["borders"]["SC-IT"]["marker"], Value::Null);
    assert_eq!(Caesar::outcome(&next).scores["caesar"], 8);
}

/// As `italia_position`, with SC not flipped, HU and HC won as well, four Senate tokens held and
/// `markers` placed: closing Italia then reaches the 12th marker somewhere in its resolution.
fn italia_race(markers: u32) -> Position {
    let mut builder = italia_position()
        .token("HU-HC", "caesar", "D51", 5)
        .token("HU-MT", "pompey", "N60", 0)
        .token("HC-GA", "caesar", "S42", 4)
        .token("AG-SY", "pompey", "S33", 3)
        .border("SD-SC", "marker", json!("caesar"))
        .border("HU-HC", "marker", json!("caesar"))
        .province("SC", None, Some("caesar"), false)
        .province("HU", None, Some("caesar"), false)
        .province("HC", None, Some("caesar"), false)
        // 14 bonuses left: senate 2, tactics 4, wealth 4, might 4.
        .province("SY", Some("wealth"), None, false)
        .province("CY", Some("might"), None, false)
        .province("AF", Some("might"), None, false)
        .set("senate", json!({ "caesar": 4, "pompey": 0 }))
        .set("markers", json!({ "caesar": markers, "pompey": 0 }));
    builder = builder.province("GA", Some("senate"), None, false);
    builder.build()
}

#[test]
fn the_twelfth_marker_wins_at_once_in_the_middle_of_a_resolution() {
    // 10 placed: IT is the 11th, the dashed space the 12th; nothing else happens.
    let (next, effects) = play(&italia_race(10), "N42@IT-DM");
    assert_eq!(effects.closures.len(), 1);
    assert_eq!(effects.closures[0].markers, vec!["IT", "IT*"]);
    assert_eq!((effects.winner, effects.drawn.len()), (Some("caesar"), 0));
    let state = state_of(&next);
    assert_eq!(
        (
            &state["to_move"],
            &state["markers"]["caesar"],
            &state["senate"]["caesar"]
        ),
        (&Value::Null, &json!(12), &json!(5)) // IT's Senate was taken at step 1, before the winning markers
    );
    assert_eq!(state["borders"]["SD-IT"]["marker"], Value::Null);
    assert_eq!(state["hands"]["caesar"], json!(["L22"]));
    let outcome = Caesar::outcome(&next);
    assert_eq!(
        (outcome.status, outcome.winner, outcome.decided_by),
        (Status::Finished, Some("caesar"), Some("twelfth_marker"))
    );
    assert!(Caesar::legal_moves(&next).is_empty());
    assert_eq!(
        game::play_text::<Caesar>(&next, "L22@HU-HC", None).unwrap_err(),
        Error::GameOver
    );
    // The finished state round-trips: a won game may leave the winner's hand short.
    assert_eq!(read(&state).unwrap(), next);
    // 6 placed: both border markers, then the fifth Senate token's second marker is the 12th.
    let (next, effects) = play(&italia_race(6), "N42@IT-DM");
    assert_eq!(
        effects.closures[0].markers,
        vec!["IT", "IT*", "SD-IT", "SC-IT", "senate", "senate"]
    );
    assert_eq!(state_of(&next)["senate"]["caesar"], 5);
    // Draws listed for a turn that ends before its draws are too many.
    assert_eq!(
        refusal(&italia_race(10), "N42@IT-DM =S33").0,
        "too-many-draws"
    );
}

#[test]
fn senate_counts_one_two_three() {
    // Pompey's zeros face HU and SY; Caesar's S42 faces HC with 4.
    let pos = Builder::new()
        .token("HU-MT", "pompey", "N60", 0)
        .token("AG-SY", "pompey", "S60", 6)
        .token("HC-GA", "caesar", "S42", 4)
        .hand("caesar", &["D42", "D51"])
        .hand("pompey", &["S51", "L31"])
        .set("to_move", json!("caesar"))
        .build();
    // One placement closes HU then HC (table order): Senate 1, then Senate 2 with a border marker.
    let (pos, effects) = play(&pos, "D51@HU-HC =L40");
    assert_eq!(
        json_of(&effects.closures),
        json!([
            { "province": "HU", "bonus": "senate", "sums": { "caesar": 5, "pompey": 0 }, "control": "caesar", "markers": ["HU", "senate"], "choice": null },
            { "province": "HC", "bonus": "senate", "sums": { "caesar": 5, "pompey": 0 }, "control": "caesar", "markers": ["HC", "HU-HC", "senate", "senate"], "choice": null }
        ])
    );
    let (pos, _) = play(&pos, "S51@MT-NU =N42");
    let (pos, effects) = play(&pos, "D42@SY-AS =S33");
    assert_eq!(
        effects.closures[0].markers,
        vec!["SY", "senate", "senate", "senate"]
    );
    let state = state_of(&pos);
    assert_eq!(
        (&state["senate"]["caesar"], &state["markers"]["caesar"]),
        (&json!(3), &json!(10))
    );
}

#[test]
fn a_senate_token_taken_while_losing_places_nothing() {
    let pos = Builder::new()
        .token("HU-MT", "pompey", "N60", 0)
        .token("HC-GA", "pompey", "S60", 6)
        .token("AC-CR", "caesar", "D60", 6)
        .hand("caesar", &["D33", "L40"])
        .hand("pompey", &["S51", "L31"])
        .set("to_move", json!("caesar"))
        .build();
    // Caesar closes HU (3 to 0, wins) and HC (3 to 6, loses): two Senate tokens, one marker.
    let (next, effects) = play(&pos, "D33@HU-HC =L22");
    assert_eq!(effects.closures[0].markers, vec!["HU", "senate"]);
    assert_eq!(effects.closures[1].markers, vec!["HC"]);
    assert_eq!(effects.closures[1].control, Some("pompey"));
    let state = state_of(&next);
    assert_eq!(state["senate"]["caesar"], 2);
    assert_eq!(state["markers"], json!({ "caesar": 2, "pompey": 1 }));
}

/// Caesar closes HU (tactics) and HC (wealth) at once with D51 on HU-HC.
fn double_closure() -> Position {
    Builder::new()
        .token("HU-MT", "pompey", "N60", 0)
        .token("HC-GA", "pompey", "S60", 0)
        .token("AC-CR", "caesar", "D42", 4)
        .hand("caesar", &["D51", "L40"])
        .hand("pompey", &["S51", "L31"])
        .set("to_move", json!("caesar"))
        .province("HU", Some("tactics"), None, false)
        .province("HC", Some("wealth"), None, false)
        .province("MT", Some("senate"), None, false)
        .province("NU", Some("senate"), None, false)
        .province("GC", Some("tactics"), None, false)
        .build()
}

#[test]
fn a_double_closure_resolves_both_bonuses_and_wealth_grows_the_hand() {
    let pos = double_closure();
    let listed: Vec<String> = moves(&pos)
        .into_iter()
        .filter(|m| m.starts_with("D51@HU-HC"))
        .collect();
    assert_eq!(
        listed,
        vec![
            "D51@HU-HC - -",
            "D51@HU-HC - W",
            "D51@HU-HC T -",
            "D51@HU-HC T W"
        ]
    );
    let (next, effects) = play(&pos, "D51@HU-HC T W =S42 =D60");
    assert_eq!(
        json_of(&effects),
        json!({
            "player": "caesar", "token": "D51", "border": "HU-HC", "faces": { "HU": 5, "HC": 1 },
            "closures": [
                { "province": "HU", "bonus": "tactics", "sums": { "caesar": 5, "pompey": 0 }, "control": "caesar", "markers": ["HU"], "choice": "T" },
                { "province": "HC", "bonus": "wealth", "sums": { "caesar": 1, "pompey": 0 }, "control": "caesar", "markers": ["HC", "HU-HC"], "choice": "W" }
            ],
            "drawn": ["S42", "D60"], "extra_turn": true, "winner": null
        })
    );
    let state = state_of(&next);
    assert_eq!(state["hand_limits"]["caesar"], 3);
    assert_eq!(state["hands"]["caesar"], json!(["L40", "S42", "D60"]));
    assert_eq!(state["to_move"], "caesar");
    // Draws must be every draw of the turn, each in the bag.
    assert_eq!(refusal(&pos, "D51@HU-HC T W =S42").0, "missing-draw");
    assert_eq!(
        refusal(&pos, "D51@HU-HC T W =S42 =D60 =N60").0,
        "too-many-draws"
    );
    assert_eq!(
        refusal(&pos, "D51@HU-HC T W =D51 =D60").0,
        "draw-not-in-bag"
    );
    // Seeded draws: two tokens, and the generator moved on.
    let (seeded, effects) = play(&pos, "D51@HU-HC T W");
    assert_eq!(effects.drawn.len(), 2);
    assert_ne!(state_of(&seeded)["rng"], state_of(&pos)["rng"]);
}

#[test]
fn tactics_is_granted_once_per_placement() {
    // AC and CR (both tactics) close together when Caesar fills AC-CR.
    let pos = Builder::new()
        .token("IT-AC", "caesar", "N60", 0)
        .token("AF-AC", "pompey", "N60", 6)
        .token("AC-MD", "caesar", "S60", 6)
        .token("CY-CR", "pompey", "D60", 0)
        .token("CR-AG", "caesar", "N51", 5)
        .token("CR-AS", "pompey", "D51", 1)
        .hand("caesar", &["D33", "L40"])
        .hand("pompey", &["S51", "L31"])
        .set("to_move", json!("caesar"))
        .build();
    let (next, effects) = play(&pos, "D33@AC-CR T T =L22");
    assert!(effects.extra_turn);
    assert_eq!(
        effects
            .closures
            .iter()
            .map(|c| c.choice.as_deref())
            .collect::<Vec<_>>(),
        vec![Some("T"), Some("T")]
    );
    assert_eq!(Caesar::to_move(&next), Some("caesar"));
    let (after, effects) = play(&next, "L40@HU-HC =L31");
    assert!(!effects.extra_turn);
    assert_eq!(Caesar::to_move(&after), Some("pompey"));
}

/// The first legal move that closes no province.
fn quiet_move(position: &Position) -> String {
    Caesar::legal_moves(position)
        .into_iter()
        .find(|mv| {
            Caesar::play(position, mv.clone())
                .unwrap()
                .1
                .closures
                .is_empty()
        })
        .expect("a move that closes nothing")
        .to_string()
}

/// `position` with `player` to move instead, read back as a state.
fn with_to_move(position: &Position, player: &str) -> Result<Position, Error> {
    let mut state = state_of(position);
    state["to_move"] = json!(player);
    read(&state)
}

#[test]
fn extra_turns_are_bounded_by_the_tactics_tokens_taken() {
    // Each player in turn closes HU (tactics) and takes its extra turn: one Tactics taken, one extra
    // turn. After the extra turn the state is good; with the player who had it to move once more,
    // it would need two extra turns, which one Tactics token cannot give.
    let pompeys = play(&tie_position(), "N51@HU-MT T").0;
    let before_caesars = play(&tie_position(), &quiet_move(&tie_position())).0;
    let caesars = play(&before_caesars, "L40@HU-MT T").0;
    for (player, extra) in [("pompey", pompeys), ("caesar", caesars)] {
        assert_eq!(Caesar::to_move(&extra), Some(player), "the extra turn");
        assert_eq!(with_to_move(&extra, player), Ok(extra.clone()));
        let after = play(&extra, &quiet_move(&extra)).0;
        assert_ne!(Caesar::to_move(&after), Some(player));
        assert!(with_to_move(&after, Caesar::to_move(&after).unwrap()).is_ok());
        match with_to_move(&after, player) {
            Err(Error::InvalidState { field, detail }) => {
                assert_eq!(field, "to_move");
                assert!(
                    detail.contains("1 Tactics taken")
                        && detail.ends_with(&format!("{player} cannot be to move")),
                    "{detail}"
                );
            }
            other => panic!("{player} to move after their extra turn: {other:?}"),
        }
    }
}

#[test]
fn might_flips_a_target_and_changes_a_later_closure() {
    // HU (might) then HC (wealth): flipping Pompey's S60 on HC-GA turns HC from Pompey to Caesar.
    let pos = Builder::new()
        .token("HU-MT", "pompey", "N60", 0)
        .token("HC-GA", "pompey", "S60", 6)
        .token("SD-GA", "caesar", "D60", 6)
        .token("AG-SY", "pompey", "S51", 5)
        .token("NU-SC", "caesar", "N33", 3)
        .hand("caesar", &["D51", "L40"])
        .hand("pompey", &["S42", "L31"])
        .set("to_move", json!("caesar"))
        .province("HU", Some("might"), None, false)
        .province("HC", Some("wealth"), None, false)
        .province("SC", Some("senate"), None, false)
        .province("AG", Some("senate"), None, false)
        .province("GC", Some("might"), None, false)
        .build();
    let listed: Vec<String> = moves(&pos)
        .into_iter()
        .filter(|m| m.starts_with("D51@HU-HC"))
        .collect();
    assert_eq!(
        listed,
        vec![
            "D51@HU-HC - -",
            "D51@HU-HC - W",
            "D51@HU-HC M:AG-SY -",
            "D51@HU-HC M:AG-SY W",
            "D51@HU-HC M:HC-GA -",
            "D51@HU-HC M:HC-GA W",
            "D51@HU-HC M:HU-MT -",
            "D51@HU-HC M:HU-MT W"
        ]
    );
    let (_, declined) = play(&pos, "D51@HU-HC - - =L22");
    assert_eq!(declined.closures[1].control, Some("pompey"));
    let (next, effects) = play(&pos, "D51@HU-HC M:HC-GA - =L22");
    assert_eq!(effects.closures[1].sums, PerPlayer::of([1, 0]));
    assert_eq!(effects.closures[1].control, Some("caesar"));
    assert_eq!(state_of(&next)["borders"]["HC-GA"]["flipped"], true);
    let (rule, data) = refusal(&pos, "D51@HU-HC M:SD-GA -");
    assert_eq!(rule, "might-target");
    assert_eq!(data["targets"], json!(["HU-MT", "HC-GA", "AG-SY"]));
    assert_eq!(refusal(&pos, "D51@HU-HC M:SC -").0, "might-target");
}

// ------------------------------------------------------------------ the end

fn playout(seed: u64) -> (Vec<String>, Position) {
    let mut pos = Caesar::start(&game::default_setup::<Caesar>(), Some(seed), None);
    let (mut rng, mut record) = (seed, Vec::new());
    loop {
        let listed = Caesar::legal_moves(&pos);
        let texts: Vec<String> = listed.iter().map(ToString::to_string).collect();
        assert_eq!(Caesar::legal_move_texts(&pos), texts);
        // Ordered by a key rather than by their texts, the moves are still in the texts' order.
        assert!(texts.windows(2).all(|pair| pair[0] < pair[1]), "{texts:?}");
        if listed.is_empty() {
            return (record, pos);
        }
        rng = rng
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let mv = listed[(rng >> 33) as usize % listed.len()].clone();
        record.push(mv.to_string());
        let (next, effects) = Caesar::play(&pos, mv).unwrap();
        assert_eq!(effects.winner, Caesar::outcome(&next).winner);
        // Every state reached round-trips through JSON and through the position notation.
        assert_eq!(read(&state_of(&next)).unwrap(), next);
        let text = Caesar::position_text(&next);
        let back = Caesar::parse_position(&text, &game::default_setup::<Caesar>(), None)
            .unwrap_or_else(|e| panic!("{text}: {e:?}"));
        assert_eq!(Caesar::position_text(&back), text);
        assert_eq!(back, next);
        pos = next;
    }
}

#[test]
fn seeded_playouts_never_panic_and_keep_states_round_tripping() {
    let mut ends = std::collections::BTreeSet::new();
    for seed in 0..60 {
        let (record, end) = playout(seed);
        let outcome = Caesar::outcome(&end);
        assert_eq!(outcome.status, Status::Finished);
        ends.insert(outcome.decided_by.unwrap());
        // The same seed replays the same game.
        let replay =
            game::replay::<Caesar, _>(&game::default_setup::<Caesar>(), Some(seed), None, &record);
        assert!(replay.failure.is_none());
        assert_eq!(replay.position, end);
    }
    assert!(
        ends.contains("twelfth_marker") && ends.contains("no_space") && ends.contains("no_token"),
        "{ends:?}"
    );
}

#[test]
fn a_player_without_a_token_or_a_space_loses_at_once() {
    for seed in 0..60 {
        let (_, end) = playout(seed);
        let outcome = Caesar::outcome(&end);
        let state = state_of(&end);
        match outcome.decided_by {
            Some("no_token") => {
                let loser = state["to_move"].as_str().unwrap();
                assert_eq!(state["hands"][loser], json!([]));
                assert_ne!(outcome.winner, Some(loser));
            }
            Some("no_space") => assert!(Caesar::legal_moves(&end).is_empty()),
            _ => continue,
        }
        assert_eq!(
            game::play_text::<Caesar>(&end, "L40@HU-HC", None).unwrap_err(),
            Error::GameOver
        );
    }
    // Hand-built: every sword border is full and Caesar holds only swords.
    let mut builder = Builder::new();
    let swords = [
        ("HC-GA", "caesar", "S60"),
        ("MT-NU", "pompey", "S60"),
        ("GA-GC", "caesar", "S51"),
        ("NU-AF", "pompey", "S51"),
        ("SC-IT", "caesar", "L40"),
        ("IT-GC", "pompey", "S42"),
        ("AC-MD", "caesar", "L31"),
        ("MD-DM", "pompey", "S33"),
        ("CY-AG", "caesar", "L22"),
        ("AG-SY", "pompey", "L22"),
    ];
    for (border, player, token) in swords {
        let first = u32::from(TOKENS[token_order(token)].2);
        builder = builder.token(border, player, token, first);
    }
    let pos = builder
        .hand("caesar", &["S42", "S33"])
        .hand("pompey", &["D60", "N60"])
        .set("to_move", json!("caesar"))
        .build();
    let outcome = Caesar::outcome(&pos);
    assert_eq!(
        (outcome.winner, outcome.decided_by, outcome.to_move),
        (Some("pompey"), Some("no_space"), None)
    );
    assert!(Caesar::legal_moves(&pos).is_empty());
}

// ------------------------------------------------------------------ setup, perft, notation

#[test]
fn setups_are_checked_and_drawn_from_the_seed() {
    let bad = |options: Value| match serde_json::from_value::<Setup>(json!({ "options": options }))
    {
        Ok(setup) => match Caesar::check_setup(setup) {
            Err(Error::InvalidOptions { field, .. }) => field,
            other => panic!("{options}: {other:?}"),
        },
        Err(error) => panic!("{options}: {error}"),
    };
    let mut bonuses = json_of(&layout());
    bonuses["IT"] = json!("senate");
    assert_eq!(bad(json!({ "bonuses": bonuses })), "options.bonuses.IT");
    let mut bonuses = json_of(&layout());
    bonuses["HU"] = json!("might");
    assert_eq!(bad(json!({ "bonuses": bonuses })), "options.bonuses");
    let mut bonuses = json_of(&layout());
    bonuses["HU"] = json!("gold");
    assert_eq!(bad(json!({ "bonuses": bonuses })), "options.bonuses.HU");
    bonuses.as_object_mut().unwrap().remove("HU");
    assert_eq!(bad(json!({ "bonuses": bonuses })), "options.bonuses");
    assert_eq!(
        bad(json!({ "hands": { "caesar": ["S60"], "pompey": ["S60", "S51"] } })),
        "options.hands.caesar"
    );
    assert_eq!(
        bad(json!({ "hands": { "caesar": ["S60", "S51"], "pompey": ["S60", "S60"] } })),
        "options.hands.pompey"
    );
    assert_eq!(
        bad(json!({ "hands": { "caesar": ["S60", "X"], "pompey": ["S60", "S51"] } })),
        "options.hands.caesar"
    );
    assert!(serde_json::from_value::<Setup>(json!({ "variant": "solo" })).is_err());
    assert!(serde_json::from_value::<Setup>(json!({ "options": { "tiles": 1 } })).is_err());
    // Normalised: bonuses in table order, hands in token order.
    let normal = Caesar::check_setup(serde_json::from_value(json!({ "options": { "hands": { "caesar": ["N33", "L22"], "pompey": ["L22", "L22"] } } })).unwrap()).unwrap();
    assert_eq!(
        normal.options.hands.as_ref().unwrap()[Player::Caesar],
        vec!["L22", "N33"]
    );
    // Drawn: the seed decides, the same seed the same start; IT always holds a Senate token.
    let a = Caesar::start(&game::default_setup::<Caesar>(), Some(42), None);
    assert_eq!(
        a,
        Caesar::start(&game::default_setup::<Caesar>(), Some(42), None)
    );
    assert_ne!(
        a,
        Caesar::start(&game::default_setup::<Caesar>(), Some(43), None)
    );
    let state = state_of(&a);
    assert_eq!(state["provinces"]["IT"]["bonus"], "senate");
    let count = |list: &Value| list.as_array().unwrap().len();
    assert_eq!(
        (
            count(&state["hands"]["caesar"]),
            count(&state["bags"]["caesar"])
        ),
        (2, 14)
    );
    // Given options are used as given.
    let given = state_of(&Caesar::start(
        &setup(["L22", "L22"], ["N33", "S60"]),
        Some(5),
        None,
    ));
    assert_eq!(given["hands"]["caesar"], json!(["L22", "L22"]));
    assert_eq!(given["provinces"]["HU"]["bonus"], "senate");
}

#[test]
fn the_generic_perft_agrees_with_the_bulk_count() {
    // Fixed bonuses and hands; draws from the seed. The counts are in tests/rules/perft.json.
    let start = Caesar::start(&setup(["S60", "L40"], ["D51", "N42"]), Some(7), None);
    fn generic(position: &Position, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        Caesar::legal_moves(position)
            .into_iter()
            .map(|mv| generic(&Caesar::play(position, mv).unwrap().0, depth - 1))
            .sum()
    }
    assert_eq!(generic(&start, 3), Caesar::perft(&start, 3));
}

#[test]
fn notation_round_trips() {
    let pos = italia_position().build();
    let text = Caesar::position_text(&pos);
    assert!(
        text.starts_with(".,.,.,cN60<,.,pD33>,cN51>,pD42<,"),
        "{text}"
    );
    let back = Caesar::parse_position(&text, &game::default_setup::<Caesar>(), None).unwrap();
    assert_eq!(back, pos);
    assert_eq!(Caesar::position_text(&back), text);
    assert_eq!(read(&state_of(&pos)).unwrap(), pos);
    for mv in Caesar::legal_moves(&pos) {
        assert_eq!(Caesar::parse_move(&mv.to_string()).unwrap(), mv);
    }
    for broken in [
        "",
        "x",
        &text.replacen(' ', "  ", 1),
        &text.replacen("cN60<", "cN60?", 1),
        &text.replacen("cN60<", "cN33<", 1),
        &text.replace(" c L22N42", " x L22N42"),
        &text.replacen(" 2/2 ", " 02/2 ", 1),
    ] {
        assert!(
            matches!(
                Caesar::parse_position(broken, &game::default_setup::<Caesar>(), None),
                Err(Error::InvalidState { .. })
            ),
            "{broken}"
        );
    }
}

#[test]
fn untrusted_states_are_checked() {
    let good = italia_position();
    let cases: Vec<(Builder, &str, &str)> = vec![
        (
            italia_position().set("rules", json!("caesar@0")),
            "rules",
            "unknown rules version",
        ),
        (
            italia_position().set("to_move", json!("crassus")),
            "to_move",
            "not a player",
        ),
        (
            italia_position().set("to_move", json!(null)),
            "to_move",
            "nobody is to move",
        ),
        (
            italia_position().set("to_move", json!("pompey")),
            "to_move",
            "cannot be to move",
        ),
        (
            italia_position().set("italia_dashed", json!("caesar")),
            "italia_dashed",
            "so caesar controls IT",
        ),
        (
            italia_position().set("markers", json!({ "caesar": 5, "pompey": 0 })),
            "markers.caesar",
            "not 5 placed",
        ),
        (
            italia_position().set("markers", json!({ "caesar": 13, "pompey": 0 })),
            "markers.caesar",
            "at most 12",
        ),
        (
            italia_position().set("senate", json!({ "caesar": 2, "pompey": 0 })),
            "senate",
            "1 Senate tokens have left",
        ),
        (
            italia_position().set("hand_limits", json!({ "caesar": 3, "pompey": 2 })),
            "hands.caesar",
            "below the limit 3",
        ),
        (
            italia_position()
                .set("hand_limits", json!({ "caesar": 3, "pompey": 2 }))
                .hand("caesar", &["L22", "N42", "L40"]),
            "hand_limits",
            "Wealth",
        ),
        (
            italia_position().hand("caesar", &["L22", "N42", "L40"]),
            "hands.caesar",
            "above the hand limit",
        ),
        (
            italia_position().set("hand_limits", json!({ "caesar": 1, "pompey": 2 })),
            "hand_limits.caesar",
            "at least 2",
        ),
        (
            italia_position().set(
                "rng",
                json!({ "algorithm": "pcg", "seed": "00", "word_pos": 0 }),
            ),
            "rng",
            "unknown generator",
        ),
        (
            italia_position().border("MT-SD", "token", json!("D60")),
            "borders.MT-SD.token",
            "ship border",
        ),
        (
            italia_position().border("MT-SD", "faces", json!({ "MT": 6, "SD": 6 })),
            "borders.MT-SD.faces",
            "shows 6 and 0",
        ),
        (
            italia_position().border("MT-SD", "faces", json!({ "MT": 0 })),
            "borders.MT-SD.faces",
            "toward MT and toward SD",
        ),
        (
            italia_position().border("MT-SD", "player", json!("red")),
            "borders.MT-SD.player",
            "not a player",
        ),
        (
            italia_position().border("MT-SD", "marker", json!("caesar")),
            "borders.MT-SD.marker",
            "needs both provinces",
        ),
        (
            italia_position().province("SC", None, None, true),
            "provinces.SC.flipped",
            "no control marker",
        ),
        (
            italia_position().province("SD", None, Some("pompey"), false),
            "provinces.SD.control",
            "pompey cannot have won it",
        ),
        (
            italia_position().province("SD", Some("senate"), Some("caesar"), false),
            "provinces.SD.bonus",
            "is closed",
        ),
        (
            italia_position().province("MT", None, None, false),
            "provinces.MT.bonus",
            "not closed",
        ),
        (
            italia_position().province("MT", Some("tactics"), Some("caesar"), false),
            "provinces.MT.control",
            "not closed",
        ),
        (
            italia_position().province("IT", Some("might"), None, false),
            "provinces.IT.bonus",
            "Senate",
        ),
        (
            italia_position().province("GA", Some("tactics"), None, false),
            "provinces",
            "5 tactics tokens",
        ),
        (
            italia_position().province("SC", None, Some("caesar"), false),
            "borders.SD-SC.marker",
            "controls both sides",
        ),
        (
            italia_position().set(
                "hands",
                json!({ "caesar": ["L22", "N42"], "pompey": ["L40", "L31", "S60"] }),
            ),
            "bags.pompey",
            "1 S60 in all, not 2",
        ),
        (
            italia_position().set(
                "hands",
                json!({ "caesar": ["L22"], "pompey": ["L40", "L31"] }),
            ),
            "bags.caesar",
            "1 N42 in all",
        ),
        (
            italia_position().set(
                "hands",
                json!({ "caesar": ["N42", "L22"], "pompey": ["L40", "L31"] }),
            ),
            "hands.caesar",
            "token order",
        ),
        (
            italia_position().set(
                "hands",
                json!({ "caesar": ["L22", "X"], "pompey": ["L40", "L31"] }),
            ),
            "hands.caesar",
            "not a token",
        ),
    ];
    assert!(good.read().is_ok());
    for (builder, field, needle) in cases {
        match builder.read() {
            Err(Error::InvalidState { field: got, detail }) => {
                assert_eq!(got, field, "{detail}");
                assert!(
                    detail.contains(needle),
                    "{field}: {detail:?} lacks {needle:?}"
                );
            }
            other => panic!("{field}: expected invalid-state, got {other:?}"),
        }
    }
    // Missing, renamed or non-canonical keys.
    let mut state = good.state.clone();
    state["borders"].as_object_mut().unwrap().remove("HU-HC");
    let check = |state: &Value| match read(state) {
        Err(Error::InvalidState { field, .. }) => field,
        other => panic!("{other:?}"),
    };
    assert_eq!(check(&state), "borders");
    state["borders"]["HC-HU"] = Value::Null;
    assert_eq!(check(&state), "borders.HC-HU");
    let mut state = good.state.clone();
    state["provinces"].as_object_mut().unwrap().remove("SY");
    assert_eq!(check(&state), "provinces");
    let mut state = good.state.clone();
    state["extra"] = json!(1);
    assert_eq!(check(&state), "state");
}

#[test]
fn the_view_hides_the_opponents_hand_the_bags_and_the_generator() {
    let pos = italia_position().build();
    let view = Caesar::view(&pos, "pompey").unwrap();
    assert_eq!(view["hands"], json!({ "pompey": ["L40", "L31"] }));
    assert_eq!(view["hand_sizes"], json!({ "caesar": 2, "pompey": 2 }));
    assert_eq!(view["bag_sizes"], json!({ "caesar": 9, "pompey": 9 }));
    assert!(view.get("rng").is_none() && view.get("bags").is_none());
    assert!(!view.to_string().contains("N42\"]"));
    assert!(matches!(
        Caesar::view(&pos, "crassus"),
        Err(Error::UnknownPlayer { .. })
    ));
}
