//! Isaac through the `Rules` contract: perft, notation and state round-trips, every check of an
//! untrusted state, the worked shapes of the rules, move refusals, and seeded random playouts.

use referee_core::chance::Chance;
use referee_core::game::{self, CheckedSetup, Rules, Status, Verdict};
use referee_core::isaac::{Color, Isaac, Position, ScoringStarts, Setup};
use referee_core::Error;
use serde_json::{json, Value};

mod common;
common::game_helpers!(Isaac);

fn checked(setup: Setup) -> CheckedSetup<Setup> {
    Isaac::check_setup(setup).unwrap_or_else(|e| panic!("{e}"))
}

fn standard() -> CheckedSetup<Setup> {
    checked(Setup::default())
}

fn position(text: &str, setup: &CheckedSetup<Setup>) -> Position {
    Isaac::parse_position(text, setup, None).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn play(pos: &Position, mv: &str) -> (Position, Value) {
    let (next, effects) =
        game::play_text::<Isaac>(pos, mv, None).unwrap_or_else(|e| panic!("{mv}: {e}"));
    (next, serde_json::to_value(effects).unwrap())
}

fn round_trips(pos: &Position, setup: &CheckedSetup<Setup>) {
    let text = Isaac::position_text(pos);
    assert_eq!(&position(&text, setup), pos, "{text}");
    let state = state_of(pos);
    assert_eq!(&read(&state).unwrap(), pos, "{state}");
}

// ------------------------------------------------------------------ shapes used below

/// Every row filled but one cell, the gaps never adjacent: nobody can place. Ten pieces each.
const FULL: &str =
    "Ba1-c1,We1-j1,Ba2-d2,Wf2-j2,Ba3-c3,We3-j3,Ba4-d4,Wf4-j4,Wa5-c5,Be5-j5,Ba6-d6,Wf6-j6,\
Wa7-c7,Be7-j7,Wa8-d8,Bf8-j8,Ba9-e9,Wg9-j9,Wa10-d10,Bf10-j10";
/// The same with row 1 as three 3s: Black has eleven pieces, White ten.
const FULL2: &str =
    "Ba1-c1,Bd1-f1,Wh1-j1,Ba2-d2,Wf2-j2,Ba3-c3,We3-j3,Ba4-d4,Wf4-j4,Wa5-c5,Be5-j5,Ba6-d6,\
Wf6-j6,Wa7-c7,Be7-j7,Wa8-d8,Bf8-j8,Ba9-e9,Wg9-j9,Wa10-d10,Bf10-j10";
/// The rules' worked example: Black's horizontal 5 on row 5 (c5-g5), one piece lying in the row
/// (h5-j5) and two crossing it (a3-a7, b4-b6); White's marker (score 59) on a5.
const ROW5: &str = "Bd1-f1,Wa3-a7,Wb4-b6,Bc5-g5,Bh5-j5,Bd9-f9";

fn full(tail: &str) -> String {
    format!("{FULL} {tail}")
}

// ------------------------------------------------------------------ perft

#[test]
fn the_first_turn_has_600_placements_in_list_order() {
    let start = Isaac::start(&standard(), None, None);
    let list = moves(&start);
    assert_eq!(list.len(), 600);
    assert_eq!(&list[..3], ["a1-c1", "b1-d1", "c1-e1"]);
    // Length 3 horizontal (80), then length 3 vertical starting at a1.
    assert_eq!(list[80], "a1-a3");
    assert_eq!(list.last().unwrap(), "j4-j10");
    assert_eq!(Isaac::compact_moves(&start), list);
}

/// Every placement on an empty board as a set of cells, by brute force over (row, column).
fn naive_placements() -> Vec<(usize, Vec<usize>)> {
    let mut all = Vec::new();
    for length in 3..=7 {
        for vertical in [false, true] {
            for row in 0..10 {
                for column in 0..10 {
                    let cells: Vec<(usize, usize)> = (0..length)
                        .map(|k| {
                            if vertical {
                                (row + k, column)
                            } else {
                                (row, column + k)
                            }
                        })
                        .collect();
                    if cells.iter().all(|&(r, c)| r < 10 && c < 10) {
                        all.push((length, cells.iter().map(|&(r, c)| r * 10 + c).collect()));
                    }
                }
            }
        }
    }
    all
}

#[test]
fn perft_2_matches_a_brute_force_count() {
    let all = naive_placements();
    assert_eq!(all.len(), 600);
    let overlap = |a: &[usize], b: &[usize]| a.iter().any(|cell| b.contains(cell));
    let depth2: u64 = all
        .iter()
        .map(|(_, first)| {
            all.iter()
                .filter(|(_, second)| !overlap(first, second))
                .count() as u64
        })
        .sum();
    let start = Isaac::start(&standard(), None, None);
    assert_eq!(Isaac::perft(&start, 2), depth2);
}

#[test]
fn perft_3_matches_a_brute_force_count() {
    // Black, White, Black from the empty board: the third placement avoids the first two and
    // cannot be Black's second 7 (Black owns one).
    let all: Vec<(usize, u128)> = naive_placements()
        .into_iter()
        .map(|(length, cells)| (length, cells.iter().fold(0u128, |m, &c| m | 1u128 << c)))
        .collect();
    let mut depth3 = 0u64;
    for &(first_length, first) in &all {
        for &(_, second) in &all {
            if first & second != 0 {
                continue;
            }
            let taken = first | second;
            depth3 += all
                .iter()
                .filter(|&&(length, third)| {
                    third & taken == 0 && !(length == 7 && first_length == 7)
                })
                .count() as u64;
        }
    }
    let start = Isaac::start(&standard(), None, None);
    assert_eq!(Isaac::perft(&start, 3), depth3);
}

/// The contract's default perft: play every listed move through `play`.
fn played_perft(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    Isaac::legal_moves(pos)
        .into_iter()
        .map(|mv| played_perft(&Isaac::play(pos, mv).unwrap().0, depth - 1))
        .sum()
}

#[test]
fn bulk_perft_agrees_with_playing_every_move() {
    let setup = standard();
    for text in [
        &full("placement w 0,0 b b -/-"),
        &format!("{FULL2} placement b 0,0 w w -/-"),
        &full("scoring b 0,0 b - -/-"),
        &format!("{ROW5} scoring b 30,59 w - 3/33"),
        &format!("{ROW5} scoring b 0,59 w - -/3"),
    ] {
        let pos = position(text, &setup);
        for depth in 1..=3 {
            assert_eq!(
                Isaac::perft(&pos, depth),
                played_perft(&pos, depth),
                "{text} perft({depth})"
            );
        }
    }
    let start = Isaac::start(&setup, None, None);
    let (after, _) = play(&start, "c4-g4");
    assert_eq!(Isaac::perft(&after, 2), played_perft(&after, 2));
}

// ------------------------------------------------------------------ notation

#[test]
fn positions_and_states_round_trip() {
    let setup = standard();
    let texts = [
        "- placement b 0,0 - - -/-".to_owned(),
        "Bc4-g4,Wd5-d7 placement b 0,0 - - -/-".to_owned(),
        full("placement w 0,0 b b -/-"),
        full("scoring b 0,0 b - -/-"),
        format!("{ROW5} scoring b 30,59 w - 3/33"),
        format!("{ROW5} scoring b 90,59 w - 3/33"),
        "Bd1-f1,Wa3-a7,Wb4-b6,Bh5-j5,Bd9-f9 scoring - 100,59 w - 35/33".to_owned(),
        "Ba1-c1,Wh10-j10 scoring - 0,0 b bw 3/3".to_owned(),
        "Ba1-c1,Wh10-j10 scoring w 0,0 b b 3/3".to_owned(),
    ];
    for text in &texts {
        let pos = position(text, &setup);
        assert_eq!(&Isaac::position_text(&pos), text);
        round_trips(&pos, &setup);
    }
    let state = state_of(&position(&texts[4], &setup));
    assert_eq!(
        state,
        json!({
            "rules": "isaac@1",
            "variant": "standard",
            "options": { "first_player": "black", "scoring_starts": "first_to_pass" },
            "pieces": { "black": ["d1-f1", "c5-g5", "h5-j5", "d9-f9"], "white": ["a3-a7", "b4-b6"] },
            "phase": "scoring",
            "to_move": "black",
            "scores": { "black": 30, "white": 59 },
            "first_to_pass": "white",
            "passed": [],
            "removed": { "black": [3], "white": [3, 3] },
        })
    );
    let white_first = checked(Setup::new(Color::White, ScoringStarts::FirstPlayer));
    let start = Isaac::start(&white_first, None, None);
    assert_eq!(Isaac::position_text(&start), "- placement w 0,0 - - -/-");
    round_trips(&start, &white_first);
}

#[test]
fn moves_parse_to_their_own_text_and_bad_ones_are_malformed() {
    for text in ["c4-g4", "d2-d8", "a10-c10", "xc4-g4+12", "xa1-a3+0", "pass"] {
        assert_eq!(Isaac::parse_move(text).unwrap().to_string(), text);
    }
    for text in [
        "",
        "g4-c4",
        "c4-d4",
        "c4-c4",
        "c4-d5",
        "a1-h1",
        "k1-k3",
        "a0-a2",
        "a01-a3",
        "C4-G4",
        "c4-g4 ",
        "xc4-g4",
        "xc4-g4+",
        "xc4-g4+012",
        "xc4-g4+-1",
        "xc4-g4+1.5",
        "xc4-g4+99999999999999999999999",
        "x+3",
        "Pass",
        "pass ",
        "c4-g4+2",
    ] {
        assert!(
            matches!(Isaac::parse_move(text), Err(Error::MalformedMove { .. })),
            "{text:?}"
        );
    }
}

// ------------------------------------------------------------------ untrusted states

#[test]
fn untrusted_position_strings_are_checked() {
    let cases: Vec<(String, &str, &str)> = vec![
        ("x".into(), "position", "7 fields"),
        (
            "- placement b 0,0 - - -".into(),
            "position",
            "separated by /",
        ),
        ("-  placement b 0,0 - - -/-".into(), "position", "7 fields"),
        (
            "- setup b 0,0 - - -/-".into(),
            "position",
            "placement or scoring",
        ),
        (
            "- placement q 0,0 - - -/-".into(),
            "position",
            "player to move",
        ),
        ("- placement b 0;0 - - -/-".into(), "position", "comma"),
        (
            "- placement b 00,0 - - -/-".into(),
            "position",
            "not a score",
        ),
        (
            "- placement b -1,0 - - -/-".into(),
            "position",
            "not a score",
        ),
        (
            "- placement b 0,0 x - -/-".into(),
            "position",
            "first to pass",
        ),
        ("- placement b 0,0 - wb -/-".into(), "position", "passed is"),
        (
            "- placement b 0,0 - - 2/-".into(),
            "position",
            "removed lengths",
        ),
        ("- placement b 0,0 - -".into(), "position", "7 fields"),
        (
            "- placement b 0,0 - - 3-".into(),
            "position",
            "separated by /",
        ),
        (
            "Xc4-g4 placement b 0,0 - - -/-".into(),
            "position",
            "B or W",
        ),
        (
            "Bg4-c4 placement w 0,0 - - -/-".into(),
            "position",
            "lower-left end comes first",
        ),
        (
            "Bc4-d4 placement w 0,0 - - -/-".into(),
            "position",
            "3 to 7 cells long",
        ),
        (
            "Bc4-g4,Wa1-c1 placement b 0,0 - - -/-".into(),
            "position",
            "out of order",
        ),
        (
            "Bc4-g4,Bc4-g4 placement b 0,0 - - -/-".into(),
            "position",
            "out of order",
        ),
        (
            "We2-e6,Bc4-g4 placement b 0,0 - - -/-".into(),
            "pieces",
            "overlaps another piece on e4",
        ),
        (
            // Sixteen 3s fit the board without overlapping: refused before they are stored.
            format!(
                "{} placement b 0,0 - - -/-",
                (0..16)
                    .map(|k| format!(
                        "B{}{}-{}{}",
                        ['a', 'd'][k % 2],
                        k / 2 + 1,
                        ['c', 'f'][k % 2],
                        k / 2 + 1
                    ))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            "pieces.black",
            "16 pieces on the board, but owns only 15",
        ),
        (
            "Ba1-g1,Ba2-g2,Wa3-c3,Wa4-c4 placement b 0,0 - - -/-".into(),
            "pieces.black",
            "owns only 1",
        ),
        (
            "Ba1-c1 placement b 0,0 - - -/-".into(),
            "to_move",
            "white is to move here, not black",
        ),
        (
            "Ba1-c1 placement - 0,0 - - -/-".into(),
            "to_move",
            "white is to move here, not nobody",
        ),
        (
            "Ba1-c1,Ba2-c2 placement w 0,0 - - -/-".into(),
            "pieces",
            "as many moves as white or one more",
        ),
        (
            "- placement b 0,5 - - -/-".into(),
            "scores.white",
            "before the scoring phase",
        ),
        (
            "- placement b 0,0 - - 3/-".into(),
            "removed.black",
            "before the scoring phase",
        ),
        (
            "- placement b 0,0 b - -/-".into(),
            "first_to_pass",
            "nobody has passed",
        ),
        (
            "- placement b 0,0 w b -/-".into(),
            "first_to_pass",
            "only black has passed",
        ),
        (
            "Ba1-c1 placement w 0,0 b b -/-".into(),
            "passed",
            "black passed, so it cannot place",
        ),
        (
            "- placement - 0,0 b bw -/-".into(),
            "passed",
            "placement phase is over",
        ),
        (
            full("placement b 0,0 w w -/-"),
            "pieces",
            "black has made more moves, not 10 against 10",
        ),
        (
            full("scoring b 0,0 - - -/-"),
            "first_to_pass",
            "someone passed first",
        ),
        (
            full("scoring w 0,0 w - -/-"),
            "first_to_pass",
            "white passed first",
        ),
        (
            "Ba1-c1,Wa2-c2 scoring b 0,0 b - -/-".into(),
            "pieces",
            "black can still place",
        ),
        (
            full("scoring b 5,0 b - -/-"),
            "scores.black",
            "removed no piece",
        ),
        (
            full("scoring b 0,0 b - 43/-"),
            "removed.black",
            "never get shorter",
        ),
        (
            full("scoring b 0,0 b - 6/-"),
            "removed.black",
            "owns only 2",
        ),
        (full("scoring b 172,0 b - 3/-"), "scores.black", "0 to 171"),
        (full("scoring - 100,120 b - 3/3"), "scores", "both cannot"),
        (full("scoring w 50,49 b - 3/3"), "scores", "share a6"),
        (
            full("scoring - 0,100 b w 3/3"),
            "passed",
            "white reached 100 with the last move, so it had not passed",
        ),
        (
            full("scoring w 0,100 b - 3/3"),
            "to_move",
            "nobody (the game is over) is to move here, not white",
        ),
        (
            full("scoring - 0,100 b - -/3"),
            "removed",
            "not white's turn",
        ),
        (
            full("scoring - 0,100 b - -/33"),
            "removed",
            "not 0 against 1",
        ),
        (full("scoring w 0,0 w - 33/-"), "removed", "not 0 against 2"),
        (full("scoring - 0,0 b bw 3/3"), "passed", "both have one"),
        (
            full("scoring w 0,0 b - 3/3"),
            "to_move",
            "black is to move here, not white",
        ),
    ];
    for (text, field, needle) in &cases {
        match Isaac::parse_position(text, &standard(), None) {
            Err(Error::InvalidState { field: got, detail }) => {
                assert_eq!(&got, field, "{text}: {detail}");
                assert!(
                    detail.contains(needle),
                    "{text}: {detail:?} lacks {needle:?}"
                );
            }
            other => panic!("{text}: expected invalid-state, got {other:?}"),
        }
    }
}

#[test]
fn untrusted_json_states_are_checked() {
    let base = state_of(&position(
        &format!("{ROW5} scoring b 30,59 w - 3/33"),
        &standard(),
    ));
    let cases: Vec<(Value, &str, &str)> = vec![
        (
            json!({ "rules": "isaac@2" }),
            "rules",
            "unknown rules version",
        ),
        (
            json!({ "variant": "foundations" }),
            "variant",
            "only \"standard\"",
        ),
        (
            json!({ "options": { "first_player": "red" } }),
            "options.first_player",
            "not \"red\"",
        ),
        (
            json!({ "options": { "scoring_starts": "never" } }),
            "options.scoring_starts",
            "not \"never\"",
        ),
        (
            json!({ "pieces": { "black": ["d1-f1", "c5-g5", "d9-f9", "h5-j5"], "white": ["a3-a7", "b4-b6"] } }),
            "pieces.black[3]",
            "listed by lower-left cell",
        ),
        (
            json!({ "pieces": { "black": ["d1-f1", "c5-g5", "h5-j5", "d9-d9"], "white": ["a3-a7", "b4-b6"] } }),
            "pieces.black[3]",
            "one row or one column",
        ),
        (
            json!({ "pieces": { "black": ["d1-f1", "c5-g5", "h5-j5", "d9-f9"], "white": ["a3-a7", "a4-c4"] } }),
            "pieces.white[1]",
            "overlaps another piece on a4",
        ),
        (json!({ "phase": "over" }), "phase", "placement or scoring"),
        (json!({ "to_move": "red" }), "to_move", "black or white"),
        (
            json!({ "to_move": null }),
            "to_move",
            "black is to move here, not nobody",
        ),
        (
            json!({ "first_to_pass": "nobody" }),
            "first_to_pass",
            "black or white",
        ),
        (
            json!({ "scores": { "black": -1, "white": 59 } }),
            "scores.black",
            "not -1",
        ),
        (
            json!({ "passed": ["white", "black"] }),
            "passed",
            "passed is",
        ),
        (
            json!({ "passed": ["black", "black"] }),
            "passed",
            "passed is",
        ),
        (
            json!({ "removed": { "black": [8], "white": [3, 3] } }),
            "removed.black",
            "3 to 7, not 8",
        ),
        (
            json!({ "removed": { "black": [3, 3, 3, 3, 3], "white": [3, 3] } }),
            "removed.black",
            "owns only 5",
        ),
    ];
    for (change, field, needle) in &cases {
        let mut state = base.clone();
        for (key, value) in change.as_object().unwrap() {
            state[key] = value.clone();
        }
        match read(&state) {
            Err(Error::InvalidState { field: got, detail }) => {
                assert_eq!(&got, field, "{change}: {detail}");
                assert!(
                    detail.contains(needle),
                    "{change}: {detail:?} lacks {needle:?}"
                );
            }
            other => panic!("{change}: expected invalid-state, got {other:?}"),
        }
    }
    // Faults of the state's form are told as such: unknown fields, a missing to_move, wrong types.
    let form_fault = |state: &Value| match read(state) {
        Err(Error::InvalidState { field, detail }) if field == "state" => detail,
        other => panic!("{state}: expected a fault of the form, got {other:?}"),
    };
    for (key, value, says) in [
        ("turn", json!(3), "unknown field `turn`"),
        (
            "scores",
            json!({ "black": 1.5, "white": 0 }),
            "invalid type: floating point `1.5`",
        ),
    ] {
        let mut state = base.clone();
        state[key] = value;
        assert!(form_fault(&state).starts_with(says), "{key}");
    }
    for key in ["to_move", "first_to_pass", "pieces", "passed"] {
        let mut state = base.clone();
        state.as_object_mut().unwrap().remove(key);
        assert!(
            form_fault(&state).starts_with(&format!("missing field `{key}`")),
            "{key}"
        );
    }
    let mut defaults = base.clone();
    defaults.as_object_mut().unwrap().remove("variant");
    defaults.as_object_mut().unwrap().remove("options");
    assert!(read(&defaults).is_ok());
}

#[test]
fn setups_are_checked_field_by_field() {
    let setup = |value: Value| serde_json::from_value::<Setup>(value).unwrap();
    assert_eq!(Isaac::check_setup(setup(json!({}))).unwrap(), standard());
    assert_eq!(
        Isaac::check_setup(setup(json!({ "options": { "first_player": "white" } }))).unwrap(),
        checked(Setup::new(Color::White, ScoringStarts::FirstToPass))
    );
    for (value, field) in [
        (json!({ "variant": "hari" }), "variant"),
        (
            json!({ "options": { "first_player": "Black" } }),
            "options.first_player",
        ),
        (
            json!({ "options": { "scoring_starts": "first" } }),
            "options.scoring_starts",
        ),
    ] {
        match Isaac::check_setup(setup(value.clone())) {
            Err(Error::InvalidOptions { field: got, .. }) => assert_eq!(got, field, "{value}"),
            other => panic!("{value}: {other:?}"),
        }
    }
    assert!(serde_json::from_value::<Setup>(json!({ "options": { "handicap": 1 } })).is_err());
}

// ------------------------------------------------------------------ placement phase

#[test]
fn placement_refusals_name_the_rule_and_its_facts() {
    let start = Isaac::start(&standard(), None, None);
    assert_eq!(
        refusal(&start, "pass"),
        ("must-place", json!({ "moves": 600 }))
    );
    assert_eq!(
        refusal(&start, "xc4-g4+0"),
        ("wrong-phase", json!({ "phase": "placement" }))
    );
    let (pos, effects) = play(&start, "c4-i4");
    assert_eq!(
        effects,
        json!({ "player": "black", "kind": "place", "piece": "c4-i4" })
    );
    assert_eq!(
        refusal(&pos, "e2-e6"),
        ("occupied", json!({ "cells": ["e4"] }))
    );
    let (pos, _) = play(&pos, "a1-a3");
    assert_eq!(
        refusal(&pos, "a10-g10"),
        ("no-piece-left", json!({ "length": 7 }))
    );
    assert!(matches!(
        game::validate::<Isaac>(&pos, "a10-f10", Some("white")),
        Ok(Verdict::Illegal(Error::NotYourTurn { .. }))
    ));
    assert_eq!(
        Isaac::position_text(&pos),
        "Wa1-a3,Bc4-i4 placement b 0,0 - - -/-"
    );
}

#[test]
fn passes_end_the_placement_phase_and_the_first_to_pass_opens_scoring() {
    // FULL: nobody can place; Black passed first, White's only move is pass.
    let pos = position(&full("placement w 0,0 b b -/-"), &standard());
    assert_eq!(moves(&pos), ["pass"]);
    let (next, effects) = play(&pos, "pass");
    assert_eq!(
        effects,
        json!({ "player": "white", "kind": "pass", "phase_ended": true })
    );
    assert_eq!(Isaac::position_text(&next), full("scoring b 0,0 b - -/-"));
    // FULL2: White (second) passed first with one piece fewer; Black placed alone, now passes.
    let text = format!("{FULL2} placement b 0,0 w w -/-");
    for (setup, starter) in [
        (
            checked(Setup::new(Color::Black, ScoringStarts::FirstToPass)),
            "w",
        ),
        (
            checked(Setup::new(Color::Black, ScoringStarts::FirstPlayer)),
            "b",
        ),
    ] {
        let (next, effects) = play(&position(&text, &setup), "pass");
        assert_eq!(effects["phase_ended"], json!(true));
        assert_eq!(
            Isaac::position_text(&next),
            format!("{FULL2} scoring {starter} 0,0 w - -/-")
        );
    }
}

// ------------------------------------------------------------------ scoring phase

#[test]
fn the_worked_example_scores_18() {
    // N = 3 (h5-j5 lying in row 5, a3-a7 and b4-b6 crossing it), value 3, White's marker on a5: ×2.
    let pos = position(&format!("{ROW5} scoring b 0,59 w - -/3"), &standard());
    let (next, effects) = play(&pos, "xc5-g5+18");
    assert_eq!(
        effects,
        json!({
            "player": "black", "kind": "remove", "piece": "c5-g5", "line": "row 5",
            "pieces_on_line": 3, "value": 3, "markers_on_line": 1, "points": 18,
            "advance": 18, "score": 18,
        })
    );
    assert_eq!(
        Isaac::position_text(&next),
        "Bd1-f1,Wa3-a7,Wb4-b6,Bh5-j5,Bd9-f9 scoring w 18,59 w - 5/3"
    );
    assert_eq!(
        refusal(&pos, "xc5-g5+19"),
        ("advance-too-far", json!({ "advance": 19, "points": 18 }))
    );
    // A vertical piece scores on its column; a3-a7 carries White's marker (a5) and stays.
    assert_eq!(refusal(&next, "xa3-a7+0").0, "marker-on-piece");
    let (_, effects) = play(&next, "xb4-b6+0");
    assert_eq!(effects["line"], json!("column b"));
    assert_eq!(effects["pieces_on_line"], json!(0));
}

#[test]
fn both_markers_on_the_line_multiply_by_4() {
    // Black's marker on b5 (41), White's on a5: c5-g5 scores 3 × 3 × 4.
    let pos = position(&format!("{ROW5} scoring b 41,59 w - 3/33"), &standard());
    let (_, effects) = play(&pos, "xc5-g5+36");
    assert_eq!(effects["markers_on_line"], json!(2));
    assert_eq!(effects["points"], json!(36));
    assert_eq!(effects["score"], json!(77));
}

#[test]
fn scoring_refusals_name_the_rule_and_its_facts() {
    let setup = standard();
    let pos = position(&format!("{ROW5} scoring b 30,59 w - 3/33"), &setup);
    assert_eq!(
        refusal(&pos, "xc5-g5+10"),
        ("lands-on-marker", json!({ "advance": 10, "cell": "a5" }))
    );
    assert_eq!(
        refusal(&pos, "xa3-a7+0"),
        ("not-your-piece", json!({ "piece": "a3-a7" }))
    );
    assert_eq!(
        refusal(&pos, "xa1-c1+0"),
        ("no-such-piece", json!({ "piece": "a1-c1" }))
    );
    assert_eq!(
        refusal(&pos, "a1-c1"),
        ("wrong-phase", json!({ "phase": "scoring" }))
    );
    assert_eq!(
        refusal(&pos, "pass"),
        ("must-remove", json!({ "moves": 27 }))
    );
    // Black's marker on e5 stands on c5-g5.
    let covered = position(&format!("{ROW5} scoring b 44,59 w - 3/33"), &setup);
    assert_eq!(
        refusal(&covered, "xc5-g5+0"),
        (
            "marker-on-piece",
            json!({ "piece": "c5-g5", "cells": ["e5"], "markers": ["black"] })
        )
    );
    // Black removed a 5 already: its 3s stay.
    let longer = position(&format!("{ROW5} scoring b 30,59 w - 5/33"), &setup);
    assert_eq!(
        refusal(&longer, "xh5-j5+0"),
        (
            "shorter-than-removed",
            json!({ "piece": "h5-j5", "length": 3, "longest_removed": 5 })
        )
    );
    assert_eq!(moves(&longer).len(), 18);
}

#[test]
fn removals_are_listed_by_piece_then_advance_and_compactly_by_piece() {
    let pos = position(&format!("{ROW5} scoring b 30,59 w - 3/33"), &standard());
    let list = moves(&pos);
    let mut expected = vec!["xd1-f1+0".to_owned()];
    expected.extend((0..=18).filter(|&a| a != 10).map(|a| format!("xc5-g5+{a}")));
    expected.extend((0..=6).map(|a| format!("xh5-j5+{a}")));
    expected.push("xd9-f9+0".to_owned());
    assert_eq!(list, expected);
    assert_eq!(Isaac::perft(&pos, 1), 27);
    assert_eq!(
        Isaac::compact_moves(&pos),
        [
            "xd1-f1+0..0",
            "xc5-g5+0..18!10",
            "xh5-j5+0..6",
            "xd9-f9+0..0"
        ]
    );
}

#[test]
fn reaching_100_wins_at_once() {
    let pos = position(&format!("{ROW5} scoring b 90,59 w - 3/33"), &standard());
    let (next, effects) = play(&pos, "xc5-g5+15");
    assert_eq!(effects["score"], json!(105));
    assert_eq!(
        Isaac::position_text(&next),
        "Bd1-f1,Wa3-a7,Wb4-b6,Bh5-j5,Bd9-f9 scoring - 105,59 w - 35/33"
    );
    let outcome = Isaac::outcome(&next);
    assert_eq!(outcome.status, Status::Finished);
    assert_eq!(
        (outcome.winner, outcome.decided_by),
        (Some("black"), Some("target"))
    );
    assert_eq!(outcome.scores["black"], 105);
    assert!(Isaac::legal_moves(&next).is_empty() && Isaac::compact_moves(&next).is_empty());
    assert_eq!(
        game::play_text::<Isaac>(&next, "xh5-j5+0", None).unwrap_err(),
        Error::GameOver
    );
    round_trips(&next, &standard());
}

#[test]
fn a_player_without_a_removal_passes_and_is_out() {
    // Black's a1-c1 carries Black's marker, White's h10-j10 White's: neither can remove.
    let pos = position("Ba1-c1,Wh10-j10 scoring w 0,0 b b 3/3", &standard());
    assert_eq!(moves(&pos), ["pass"]);
    assert_eq!(Isaac::compact_moves(&pos), ["pass"]);
    let (next, effects) = play(&pos, "pass");
    assert_eq!(
        effects,
        json!({ "player": "white", "kind": "pass", "phase_ended": false })
    );
    assert_eq!(
        Isaac::position_text(&next),
        "Ba1-c1,Wh10-j10 scoring - 0,0 b bw 3/3"
    );
    // A scoring pass while the other is still in: the other goes on alone. White's 3s are shorter
    // than the 4 it removed, or carry its marker.
    let pos = position(
        "Ba1-c1,Bd5-f5,Wa10-c10,Wh10-j10 scoring b 0,0 b - 3/4",
        &standard(),
    );
    let (next, _) = play(&pos, "xd5-f5+0");
    assert_eq!(Isaac::to_move(&next), Some("white"));
    let (next, _) = play(&next, "pass");
    assert_eq!(
        Isaac::position_text(&next),
        "Ba1-c1,Wa10-c10,Wh10-j10 scoring b 0,0 b w 33/4"
    );
    assert_eq!(moves(&next), ["pass"]);
    let (end, _) = play(&next, "pass");
    assert_eq!(Isaac::outcome(&end).status, Status::Finished);
}

#[test]
fn ties_are_broken_by_unplaced_cells_then_count_then_first_player() {
    let cases = [
        (
            "Ba1-c1,Wh10-j10 scoring - 5,0 b bw 3/3",
            standard(),
            "black",
            "score",
        ),
        (
            "Ba1-c1,Wh10-j10 scoring - 0,0 b bw 3/4",
            standard(),
            "black",
            "unplaced_cells",
        ),
        (
            "Ba1-c1,Wd10-j10 scoring - 0,0 w bw 4/-",
            standard(),
            "black",
            "unplaced_count",
        ),
        (
            "Ba1-c1,Wh10-j10 scoring - 0,0 b bw 3/3",
            standard(),
            "black",
            "first_player",
        ),
        (
            "Ba1-c1,Wh10-j10 scoring - 0,0 w bw 3/3",
            checked(Setup::new(Color::White, ScoringStarts::FirstToPass)),
            "white",
            "first_player",
        ),
    ];
    for (text, setup, winner, decided_by) in cases {
        let outcome = Isaac::outcome(&position(text, &setup));
        assert_eq!(outcome.status, Status::Finished, "{text}");
        assert_eq!(
            (outcome.winner, outcome.decided_by),
            (Some(winner), Some(decided_by)),
            "{text}"
        );
    }
}

// ------------------------------------------------------------------ random playouts

/// Expands a compact entry (`xc4-g4+0..18!7`) back into the moves it stands for.
fn expand(entry: &str) -> Vec<String> {
    let Some((head, range)) = entry.split_once("+0..") else {
        return vec![entry.to_owned()];
    };
    let (top, forbidden) = match range.split_once('!') {
        Some((top, f)) => (top, Some(f.parse::<u64>().unwrap())),
        None => (range, None),
    };
    (0..=top.parse::<u64>().unwrap())
        .filter(|&a| Some(a) != forbidden)
        .map(|a| format!("{head}+{a}"))
        .collect()
}

#[test]
fn seeded_random_games_never_panic_and_keep_round_tripping() {
    let setups = [
        checked(Setup::new(Color::Black, ScoringStarts::FirstToPass)),
        checked(Setup::new(Color::White, ScoringStarts::FirstToPass)),
        checked(Setup::new(Color::Black, ScoringStarts::FirstPlayer)),
        checked(Setup::new(Color::White, ScoringStarts::FirstPlayer)),
    ];
    let mut finished_by = std::collections::BTreeMap::new();
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..60u64 {
        let setup = &setups[seed as usize % setups.len()];
        let mut rng = Chance::from_seed(seed, None);
        let mut pos = Isaac::start(setup, None, None);
        let mut plies = 0;
        while Isaac::to_move(&pos).is_some() {
            let list = Isaac::legal_moves(&pos);
            assert!(!list.is_empty());
            assert_eq!(Isaac::perft(&pos, 1), list.len() as u64);
            let texts: Vec<String> = list.iter().map(ToString::to_string).collect();
            let expanded: Vec<String> = Isaac::compact_moves(&pos)
                .iter()
                .flat_map(|e| expand(e))
                .collect();
            assert_eq!(expanded, texts);

            // Odd seeds advance as far as they may (a random piece, its largest advance); even seeds
            // pick any legal move.
            let compact = Isaac::compact_moves(&pos);
            let mv = if seed % 2 == 1 {
                let entry = &compact[rng.below(compact.len() as u32) as usize];
                expand(entry).pop().unwrap()
            } else {
                texts[rng.below(list.len() as u32) as usize].clone()
            };
            let (next, effects) = game::play_text::<Isaac>(&pos, &mv, None)
                .unwrap_or_else(|e| panic!("seed {seed}: {mv} refused: {e}"));
            let effects = serde_json::to_value(effects).unwrap();
            if effects["phase_ended"] == json!(true) {
                seen.insert("phase ended");
            }
            if Isaac::to_move(&next) == Isaac::to_move(&pos) && effects["kind"] != json!("pass") {
                seen.insert(if effects["kind"] == json!("place") {
                    "placed alone"
                } else {
                    "removed alone"
                });
            }
            pos = next;
            round_trips(&pos, setup);
            plies += 1;
            assert!(plies < 400, "seed {seed}: the game does not end");
        }
        let outcome = Isaac::outcome(&pos);
        assert!(outcome.winner.is_some());
        *finished_by.entry(outcome.decided_by.unwrap()).or_insert(0) += 1;
    }
    // Random play rarely scores 100 (the target is checked on a built shape above).
    for how in ["score", "unplaced_cells"] {
        assert!(finished_by.contains_key(how), "{finished_by:?}");
    }
    for what in ["phase ended", "placed alone", "removed alone"] {
        assert!(seen.contains(what), "{seen:?}");
    }
}

#[test]
fn replay_reports_the_first_illegal_ply() {
    let replay = game::replay::<Isaac, _>(&standard(), None, None, &["c4-g4", "e2-e6", "a1-c1"]);
    let (ply, error) = replay.failure.expect("e2-e6 crosses c4-g4");
    assert_eq!((ply, replay.plies), (1, 1));
    assert!(matches!(
        error,
        Error::IllegalMove {
            rule: "occupied",
            ..
        }
    ));
}
