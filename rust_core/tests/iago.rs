//! Iago through the `Rules` contract: perft (its counts are in tests/rules/perft.json), untrusted-state checks, notation, move errors.

use referee_core::game::{self, CheckedSetup, Rules, Status, Verdict};
use referee_core::iago::{Iago, Options, Setup, Variant};
use referee_core::Error;
use serde_json::json;

type Position = <Iago as Rules>::Position;

mod common;
common::game_helpers!(Iago);

const EMPTY: &str = "...../....../......./......../........./......../......./....../.....";

fn standard() -> Setup {
    Setup::default()
}

fn checked(setup: Setup) -> CheckedSetup<Setup> {
    Iago::check_setup(setup).unwrap_or_else(|e| panic!("{e}"))
}

fn penalty() -> Setup {
    Setup {
        variant: Variant::Standard,
        options: Options { penalty: true },
    }
}

fn position(text: &str, setup: Setup) -> Position {
    Iago::parse_position(text, &checked(setup), None).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn state_error(text: &str, setup: Setup) -> (String, String) {
    match Iago::parse_position(text, &checked(setup), None) {
        Err(Error::InvalidState { field, detail }) => (field, detail),
        other => panic!("{text}: expected invalid-state, got {other:?}"),
    }
}

/// Each position is refused in `field` with a detail containing the needle.
fn assert_refused(cases: &[(&str, Setup, &str, &str)]) {
    for (text, setup, field, needle) in cases {
        let (got_field, detail) = state_error(text, *setup);
        assert_eq!(&got_field, field, "{text}: {detail}");
        assert!(
            detail.contains(needle),
            "{text}: {detail:?} lacks {needle:?}"
        );
    }
}

#[test]
fn the_generic_perft_agrees_with_the_bulk_count() {
    // The trait's default perft (play every move) must match the game's bulk-counting override.
    fn default_perft(position: &<Iago as Rules>::Position, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        Iago::legal_moves(position)
            .into_iter()
            .map(|mv| default_perft(&Iago::play(position, mv).unwrap().0, depth - 1))
            .sum()
    }
    let start = Iago::start(&checked(standard()), None, None);
    assert_eq!(default_perft(&start, 3), Iago::perft(&start, 3));
}

#[test]
fn notation_round_trips() {
    let text = "...../....B./..WB.../......../.WWB...../....B.../.WWB.../....B./..... w p";
    let pos = position(text, penalty());
    assert_eq!(Iago::position_text(&pos), text);
    assert_eq!(read(&state_of(&pos)).unwrap(), pos);
}

#[test]
fn untrusted_states_are_checked() {
    let cases: &[(&str, Setup, &str, &str)] = &[
        (
            "...../....../......./......../......... b",
            standard(),
            "board",
            "9 rows",
        ),
        (
            "...../....../......./......../........../......../......./....../..... b",
            standard(),
            "board[4]",
            "row e has 9 hexes, not 10",
        ),
        (
            "...../....../......./......../....X..../......../......./....../..... b",
            standard(),
            "board[4]",
            "'X' at e5",
        ),
        (
            &format!("{EMPTY} x"),
            standard(),
            "position",
            "side to move",
        ),
        (
            &format!("{EMPTY} w"),
            standard(),
            "to_move",
            "black is to move",
        ),
        (
            "BBBBB/BBBBBB/BBBBBBB/BBBBBBBB/BBBBBB..W/......../......./....../..... w",
            standard(),
            "board",
            "black has 32 discs on the board but only 31 in supply",
        ),
        (
            "WW.../....../......./......../........./......../......./....../..... b",
            standard(),
            "board",
            "as many as white or one more",
        ),
        (
            "B..../....../......./......../........./......../......./....../....W b p",
            standard(),
            "penalty_claim",
            "option is off",
        ),
        // White moved last but shows no face-up disc.
        (
            "B..../....../......./......../........./......../......./....../....w b",
            standard(),
            "board",
            "white moved last, so its last disc is face up",
        ),
        // Finished, White moved last, White's only face-up disc is in the outer area (e9).
        (
            "BWBWB/BwBwBw/wBwBwBw/BwBwBwBw/wBwBwBwBW/.wBwBwB./.BwBwB./.wBwB./..... b",
            standard(),
            "board",
            "the game is over, so white filled the last empty inner hex",
        ),
        (
            "B..../....../......./......../........./......../......./....../....W b p",
            penalty(),
            "penalty_claim",
            "fewer than 3 discs",
        ),
    ];
    assert_refused(cases);
    let mut unknown_rules = state_of(&Iago::start(&checked(standard()), None, None));
    unknown_rules["rules"] = json!("iago@0");
    assert!(
        matches!(read(&unknown_rules), Err(Error::InvalidState { field, .. }) if field == "rules")
    );
    let mut bad_combo = state_of(&Iago::start(&checked(standard()), None, None));
    bad_combo["options"] = json!({ "penalty": true });
    bad_combo["variant"] = json!("loose");
    assert!(
        matches!(read(&bad_combo), Err(Error::InvalidState { field, .. }) if field == "options.penalty")
    );
}

#[test]
fn a_finished_game_accepts_no_move_and_cannot_hold_a_claim() {
    // Every inner hex holds a disc (25 of each colour, Black to move); outer hexes are left empty.
    let pos = position(
        "BWBWB/BWBWBW/WBWBWBW/BWBWBWBW/WBWBWBWBW/.WBWBWB./.BWBWB./.WBWB./..... b",
        standard(),
    );
    assert_eq!(Iago::outcome(&pos).status, Status::Finished);
    assert!(Iago::legal_moves(&pos).is_empty());
    assert_eq!(
        game::play_text::<Iago>(&pos, "f2", None).unwrap_err(),
        Error::GameOver
    );
    let claim = format!("{} p", Iago::position_text(&pos));
    let (field, detail) = state_error(&claim, penalty());
    assert_eq!(field, "penalty_claim");
    assert!(detail.contains("game is over"));
}

#[test]
fn moves_are_refused_with_the_rule_that_forbids_them() {
    let start = Iago::start(&checked(standard()), None, None);
    let refuse =
        |pos, mv: &str| match game::validate::<Iago>(pos, mv, None).expect("no request fault") {
            Verdict::Illegal(error) => error,
            Verdict::Legal { .. } => panic!("{mv} should be illegal"),
        };
    assert!(matches!(
        refuse(&start, "e5"),
        Error::IllegalMove {
            rule: "centre-needs-flip",
            ..
        }
    ));
    assert!(matches!(
        refuse(&start, "a1"),
        Error::IllegalMove {
            rule: "outer-needs-flip",
            ..
        }
    ));
    assert!(matches!(refuse(&start, "j1"), Error::MalformedMove { .. }));
    assert!(matches!(refuse(&start, "e10"), Error::MalformedMove { .. }));
    assert!(matches!(
        game::validate::<Iago>(&start, "e4", Some("white")),
        Ok(Verdict::Illegal(Error::NotYourTurn { .. }))
    ));
    // A name that is no player of the game is the request's fault, not the move's.
    assert!(matches!(
        game::validate::<Iago>(&start, "e4", Some("purple")),
        Err(Error::UnknownPlayer { .. })
    ));
    // White e7, Black e8, Black to move: e6 captures e7, and nothing else captures.
    let pos = position(
        "...../....../......./......../......WB./......../......./....../..... b",
        standard(),
    );
    match refuse(&pos, "d4") {
        Error::IllegalMove {
            rule: "forced-capture",
            detail,
            data,
        } => {
            assert_eq!(
                detail,
                "a capture of 1 is available at e6: d4 captures fewer"
            );
            assert_eq!(data, serde_json::json!({ "capture": 1, "cells": ["e6"] }));
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        refuse(&pos, "e8"),
        Error::IllegalMove {
            rule: "occupied",
            ..
        }
    ));
    let (next, effects) = game::play_text::<Iago>(&pos, "e6", Some("black")).unwrap();
    assert_eq!(effects.captured, vec!["e7"]);
    assert_eq!(
        Iago::position_text(&next),
        "...../....../......./......../.....BwB./......../......./....../..... w"
    );
}

#[test]
fn setups_are_checked() {
    assert!(Iago::check_setup(penalty()).is_ok());
    let simple_penalty = Setup {
        variant: Variant::Simple,
        options: Options { penalty: true },
    };
    assert!(
        matches!(Iago::check_setup(simple_penalty), Err(Error::InvalidOptions { field, .. }) if field == "options.penalty")
    );
}

#[test]
fn replay_reports_the_first_illegal_ply() {
    let replay = game::replay::<Iago, _>(&checked(standard()), None, None, &["e4", "e5", "d4"]);
    let (ply, error) = replay.failure.expect("e5 flips nothing on the centre");
    assert_eq!((ply, replay.plies), (1, 1));
    assert!(matches!(
        error,
        Error::IllegalMove {
            rule: "centre-needs-flip",
            ..
        }
    ));
}

#[test]
fn boards_no_game_reaches_are_refused_with_the_cell_and_the_reason() {
    // The forgeries of issue 14, and a budget of penalty claims exceeded.
    let cases: &[(&str, Setup, &str, &str)] = &[
        (
            "B..../....../......./......../........./......../......./....../..... w",
            standard(),
            "board[0]",
            "a1 is a black disc on the outer ring, where a placement must flip discs, but no line from it shows what a flip leaves",
        ),
        (
            "...../....../......./......../....B..../......../......./....../..... w",
            standard(),
            "board[4]",
            "e5 is a black disc on the centre",
        ),
        // B c3, B g5, W d4, and a captive w on b5 that no black disc flanks.
        (
            "...../....w./..B..../...W..../........./......../..B..../....../..... b",
            standard(),
            "board[1]",
            "b5 is a white captive, but no line through it has a black disc at both ends of a run of white discs",
        ),
        (
            "B..../....../......./......../........./......../......./....../..... w",
            penalty(),
            "board[0]",
            "black can have made at most 0",
        ),
    ];
    assert_refused(cases);
}

#[test]
fn a_placement_without_a_flip_is_allowed_where_the_rules_allow_one() {
    // Black d4, White d5, Black skips the capture at d6 for f6, White claims a1 (no flip): a claim
    // places anywhere, so the penalty option accepts the board and the standard rules do not.
    let claimed = "W..../....../......./...BW.../........./....B.../......./....../..... b";
    position(claimed, penalty());
    assert_eq!(state_error(claimed, standard()).0, "board[0]");
    // The centre exception: the centre, the last empty inner hole, may be taken without a flip, and
    // that ends the game. Here no line from the black centre shows a flip (ring 1 black captives, then
    // white discs on every line from it), so only the exception can have placed it: accepted while it
    // can be the last placement (game over, Black moved last, face up), refused as a captive.
    let last = "...../.WBBW./.BWWWB./.BWbbWB./.WWbBbWW./.BWbbWB./.BWWWB./.WBBW./..... w";
    assert_eq!(
        Iago::outcome(&position(last, standard())).status,
        Status::Finished
    );
    let captive_centre = last.replace("WWbBbWW", "WWbbbWW");
    let (field, detail) = state_error(&captive_centre, standard());
    assert_eq!(field, "board[4]");
    assert!(
        detail.starts_with("e5 is a black disc on the centre"),
        "{detail}"
    );
}
