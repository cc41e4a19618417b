//! Hypnosia through the `Rules` contract: perft, notation and state round-trips, every untrusted-state
//! and board check, the worked shapes of the rules doc's test notes, and seeded random playouts.

use referee_core::chance::Chance;
use referee_core::game::{self, CheckedSetup, Rules, Status, Verdict};
use referee_core::hypnosia::{Board, Effects, Hypnosia, Position, Setup};
use referee_core::Error;
use serde_json::{json, Value};

mod common;
common::game_helpers!(Hypnosia);

fn setup_of(options: Value) -> CheckedSetup<Setup> {
    let setup: Setup = serde_json::from_value(json!({ "options": options })).unwrap();
    Hypnosia::check_setup(setup).unwrap_or_else(|e| panic!("{e}"))
}

fn two() -> CheckedSetup<Setup> {
    setup_of(json!({ "first_player": "red" }))
}

fn pos(text: &str, setup: &CheckedSetup<Setup>) -> Position {
    Hypnosia::parse_position(text, setup, None).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn play(position: &Position, mv: &str) -> (Position, Effects) {
    game::play_text::<Hypnosia>(position, mv, None).unwrap_or_else(|e| panic!("{mv}: {e}"))
}

fn text(position: &Position) -> String {
    Hypnosia::position_text(position)
}

// ------------------------------------------------------------------ perft

#[test]
fn perft_from_the_start() {
    // The counts from the start are in tests/rules/perft.json.
    let start = Hypnosia::start(&two(), Some(0), None);
    assert_eq!(Hypnosia::perft(&start, 0), 1);
    // A rolled position counts the turns of its dice only. 6-6 from home: h1 lands on the bridge
    // 0.5 and has 5 follow-ups (3 home pawns, along, across); h2, h3, h4 have 4 each.
    let rolled = play(&start, "6-6").0;
    assert_eq!(Hypnosia::perft(&rolled, 1), 5 + 4 + 4 + 4);
    assert_eq!(moves(&rolled).len(), 17);
    // 1-1: only h1 can leave, then it steps on.
    assert_eq!(moves(&play(&start, "1-1").0), ["h1+1 0.0+1"]);
}

#[test]
fn perft_counts_the_legal_move_lists() {
    // Depth 1 before the roll = the sum over the 21 rolls of the legal-turn counts.
    let setup = two();
    let position = pos("r:h3,0.2,0.5,1.3/b:h1,h2,0.7,0.7 r - - 0/0 5:0", &setup);
    let mut sum = 0;
    for a in 1..=6 {
        for b in a..=6 {
            sum += moves(&play(&position, &format!("{a}-{b}")).0).len() as u64;
        }
    }
    assert_eq!(Hypnosia::perft(&position, 1), sum);
    // And depth 2 through the generic definition (play every listed turn).
    let mut depth2 = 0;
    for a in 1..=6 {
        for b in a..=6 {
            let rolled = play(&position, &format!("{a}-{b}")).0;
            for mv in moves(&rolled) {
                depth2 += Hypnosia::perft(&play(&rolled, &mv).0, 1);
            }
        }
    }
    assert_eq!(Hypnosia::perft(&position, 2), depth2);
}

// ------------------------------------------------------------------ notation and states

#[test]
fn positions_and_states_round_trip() {
    let setup = setup_of(json!({ "players": 3, "first_player": "green" }));
    let texts = [
        "r:h1,h2,h3,h4/g:h1,h2,h3,h4/p:h1,h2,h3,h4 g - - 0/0/0 7:0",
        "r:h2,0.5,0.5,centre/g:1.3,2.1,captured,captured/p:h4,0.30,centre,captured r 6 rp 2/0/1 123:40",
        "r:centre,centre,centre,captured/g:2.1,centre,centre,captured/p:captured,captured,captured,captured - - rgrgr 4/2/0 0:8",
    ];
    for text_ in texts {
        let position = pos(text_, &setup);
        assert_eq!(text(&position), text_);
        let back = read(&state_of(&position)).unwrap();
        assert_eq!(back, position);
        assert_eq!(text(&back), text_);
    }
    // A full key (not from a u64 seed) is written in hex.
    let state = state_of(&Hypnosia::start(&two(), Some(1), None));
    let mut hex = state.clone();
    hex["rng"]["seed"] = json!("ab".repeat(32));
    let position = read(&hex).unwrap();
    let written = text(&position);
    assert!(
        written.ends_with(&format!(" {}:0", "ab".repeat(32))),
        "{written}"
    );
    assert_eq!(text(&pos(&written, &two())), written);
}

#[test]
fn the_state_lists_pawns_in_the_documented_order() {
    let position = pos("r:h2,0.5,1.3,centre/b:h1,h4,0.3,0.3 b 41 r 0/0 1:2", &two());
    let state = state_of(&position);
    assert_eq!(state["rules"], "hypnosia@1");
    assert_eq!(state["pawns"]["red"], json!(["h2", "0.5", "1.3", "centre"]));
    assert_eq!(state["to_move"], "blue");
    assert_eq!(state["dice"], json!([4, 1]));
    assert_eq!(state["centre"], json!(["red"]));
    assert_eq!(state["scores"], json!({ "red": 5, "blue": 0 }));
    assert_eq!(state["captures"], json!({ "red": 0, "blue": 0 }));
    assert_eq!(state["options"]["seats"], json!([0, 3]));
    // The default board is written as null, not spelt out.
    assert_eq!(state["options"]["board"], Value::Null);
    // An unsorted pawn list in JSON is accepted and answered sorted.
    let mut shuffled = state.clone();
    shuffled["pawns"]["red"] = json!(["centre", "1.3", "h2", "0.5"]);
    assert_eq!(state_of(&read(&shuffled).unwrap()), state);
}

#[test]
fn untrusted_states_are_checked() {
    let start = state_of(&pos(
        "r:h1,h2,0.5,centre/b:h1,h2,h3,1.3 r - r 0/0 3:0",
        &two(),
    ));
    let cases: Vec<(Value, &str, &str)> = vec![
        (
            json!({ "rules": "hypnosia@2" }),
            "rules",
            "unknown rules version",
        ),
        (
            json!({ "options": { "players": 7 } }),
            "options.players",
            "2 to 6 players",
        ),
        (
            json!({ "options": { "seats": [0, 0] } }),
            "options.seats[1]",
            "listed twice",
        ),
        (
            json!({ "options": { "seats": [0, 3], "first_player": "green" } }),
            "options.first_player",
            "not a seated colour",
        ),
        (
            json!({ "rng": { "algorithm": "pcg", "seed": "00", "word_pos": 0 } }),
            "rng",
            "unknown generator",
        ),
        (
            json!({ "pawns": { "red": ["h1", "h2", "0.5", "centre"] } }),
            "pawns.blue",
            "missing",
        ),
        (
            json!({ "pawns": { "red": ["h1", "h2", "0.5", "centre"], "blue": ["h1", "h2", "h3", "1.3"], "green": [] } }),
            "pawns.green",
            "not seated",
        ),
        (
            json!({ "pawns": { "red": ["h1", "h2", "0.5", "centre"], "blue": ["h1", "h2", "h3", "1.3"], "pink": [] } }),
            "pawns",
            "not a colour",
        ),
        (
            json!({ "pawns": { "red": ["h1", "h2", "0.5"], "blue": ["h1", "h2", "h3", "1.3"] } }),
            "pawns.red",
            "4 pawns, not 3",
        ),
        (
            json!({ "pawns": { "red": ["h1", "h2", "0.36", "centre"], "blue": ["h1", "h2", "h3", "1.3"] } }),
            "pawns.red[2]",
            "no space 0.36",
        ),
        (
            json!({ "pawns": { "red": ["h1", "h5", "0.5", "centre"], "blue": ["h1", "h2", "h3", "1.3"] } }),
            "pawns.red[1]",
            "not a location",
        ),
        (
            json!({ "pawns": { "red": ["h1", "h1", "0.5", "centre"], "blue": ["h1", "h2", "h3", "1.3"] } }),
            "pawns.red[1]",
            "never stack",
        ),
        (
            json!({ "pawns": { "red": ["0.5", "0.5", "0.5", "centre"], "blue": ["h1", "h2", "h3", "1.3"] } }),
            "pawns.red",
            "at most 2 pawns",
        ),
        (
            json!({ "pawns": { "red": ["h1", "h2", "1.3", "centre"], "blue": ["h1", "h2", "h3", "1.3"] } }),
            "pawns.red",
            "never share a space",
        ),
        (
            json!({ "centre": [] }),
            "centre",
            "1 pawns in the centre but 0 centre entries",
        ),
        (
            json!({ "centre": ["red", "red", "red", "red", "red", "red"] }),
            "centre",
            "5 spaces",
        ),
        (
            json!({ "centre": ["green"] }),
            "centre[0]",
            "not a seated colour",
        ),
        (
            json!({ "captures": { "red": 1, "blue": 0 } }),
            "captures.red",
            "the other players lost 0",
        ),
        (
            json!({ "captures": { "red": 0 } }),
            "captures.blue",
            "missing",
        ),
        (
            json!({ "scores": { "red": 4, "blue": 0 } }),
            "scores.red",
            "make 5 points, not 4",
        ),
        (json!({ "to_move": null }), "to_move", "not over"),
        (
            json!({ "to_move": "green" }),
            "to_move",
            "not a seated colour",
        ),
        (json!({ "dice": [] }), "dice", "1 or 2 dice"),
        (json!({ "dice": [3, 7] }), "dice[1]", "1 to 6, not 7"),
        (json!({ "dice": [1, 2, 3] }), "dice", "not 3"),
    ];
    for (change, field, needle) in cases {
        let mut state = start.clone();
        for (key, value) in change.as_object().unwrap() {
            state[key] = value.clone();
        }
        match read(&state) {
            Err(Error::InvalidState { field: got, detail }) => {
                assert_eq!(got, field, "{change}: {detail}");
                assert!(
                    detail.contains(needle),
                    "{change}: {detail:?} lacks {needle:?}"
                );
            }
            other => panic!("{change}: expected invalid-state, got {other:?}"),
        }
    }
}

#[test]
fn impossible_turn_states_are_refused() {
    let setup = two();
    let cases = [
        // A finished game (centre full) has nobody to move and no dice.
        (
            "r:centre,centre,centre,h4/b:centre,centre,h1,h2 r - rrrbb 0/0 0:0",
            "to_move",
            "game is over",
        ),
        // A player with no pawn at home or on a circle takes no turns.
        (
            "r:centre,captured,captured,captured/b:h1,h2,h3,h4 r - r 0/3 0:0",
            "to_move",
            "takes no turns",
        ),
        // One die left that no die move can use: the turn would have ended.
        (
            "r:h4,centre,centre,centre/b:h1,h2,h3,h4 r 2 rrr 0/0 0:0",
            "dice",
            "turn would have ended",
        ),
        (
            "r:h1,h2,h3,h4/b:h1,h2,h3,h4 r 60 - 0/0 0:0",
            "dice[1]",
            "1 to 6, not 0",
        ),
        (
            "r:h1,h2,h3,h4/b:h1,h2,h3,h4 x - - 0/0 0:0",
            "position",
            "colour letter",
        ),
        (
            "r:h1,h2,h3,h4/b:h1,h2,h3,h4 r - - 0/0",
            "position",
            "six fields",
        ),
        (
            "r:h1,h2,h3,h4/b:h1,h2,h3,h4 r - - 0 0:0",
            "position",
            "one count per seated player",
        ),
        (
            "r:h1,h2,h3,h4/b:h1,h2,h3,h4 r - - 0/0 0:x",
            "position",
            "random source",
        ),
        (
            "r:h2,h1,h3,h4/b:h1,h2,h3,h4 r - - 0/0 0:0",
            "position",
            "not written canonically",
        ),
        (
            "b:h1,h2,h3,h4/r:h1,h2,h3,h4 r - - 0/0 0:0",
            "position",
            "not written canonically",
        ),
        (
            "r:h1,h2,h3,h4/b:h1,h2,h3,h4 r - - 0/0 00:0",
            "position",
            "not written canonically",
        ),
        ("r:h1,h2,h3,h4 r - - 0/0 0:0", "pawns.blue", "missing"),
    ];
    for (text_, field, needle) in cases {
        match Hypnosia::parse_position(text_, &setup, None) {
            Err(Error::InvalidState { field: got, detail }) => {
                assert_eq!(got, field, "{text_}: {detail}");
                assert!(
                    detail.contains(needle),
                    "{text_}: {detail:?} lacks {needle:?}"
                );
            }
            other => panic!("{text_}: expected invalid-state, got {other:?}"),
        }
    }
}

// ------------------------------------------------------------------ setups and boards

#[test]
fn setups_are_checked_and_normalised() {
    let three = setup_of(json!({ "players": 3 }));
    assert_eq!(three.options.seats, Some(vec![0, 2, 4]));
    assert_eq!(
        setup_of(json!({ "seats": [5, 1] })).options.seats,
        Some(vec![1, 5])
    );
    assert_eq!(
        setup_of(json!({ "seats": [5, 1] })).options.players,
        Some(2)
    );
    for (n, seats) in [
        (2, vec![0, 3]),
        (4, vec![0, 1, 3, 4]),
        (5, vec![0, 1, 2, 3, 4]),
        (6, vec![0, 1, 2, 3, 4, 5]),
    ] {
        assert_eq!(setup_of(json!({ "players": n })).options.seats, Some(seats));
    }
    let refuse = |options: Value| -> String {
        let setup: Setup = serde_json::from_value(json!({ "options": options })).unwrap();
        match Hypnosia::check_setup(setup) {
            Err(Error::InvalidOptions { field, .. }) => field,
            other => panic!("expected invalid-options, got {other:?}"),
        }
    };
    assert_eq!(refuse(json!({ "players": 1 })), "options.players");
    assert_eq!(
        refuse(json!({ "players": 3, "seats": [0, 1] })),
        "options.seats"
    );
    assert_eq!(refuse(json!({ "seats": [0] })), "options.seats");
    assert_eq!(refuse(json!({ "seats": [0, 6] })), "options.seats[1]");
    assert_eq!(
        refuse(json!({ "first_player": "blue", "players": 3 })),
        "options.first_player"
    );
    assert!(serde_json::from_value::<Setup>(json!({ "options": { "colour": 1 } })).is_err());
    assert!(serde_json::from_value::<Setup>(json!({ "variant": "fast" })).is_err());
}

#[test]
fn every_board_fault_is_named() {
    let base = referee_core::hypnosia::Board::default_description();
    let with = |key: &str, value: Value| {
        let mut board = base.clone();
        board[key] = value;
        board
    };
    let mut missing = base.clone();
    missing.as_object_mut().unwrap().remove("entries");
    let mut no_inner_bridge = base.clone();
    no_inner_bridge["bridges"]
        .as_array_mut()
        .unwrap()
        .truncate(12);
    let mut no_middle_bridge = base.clone();
    no_middle_bridge["bridges"]
        .as_array_mut()
        .unwrap()
        .drain(6..12);
    let cases: Vec<(Value, &str, &str)> = vec![
        (json!([1, 2]), "board", "JSON object"),
        (with("shape", json!(1)), "board.shape", "unknown field"),
        (missing, "board.entries", "missing"),
        (
            with("circles", json!([])),
            "board.circles",
            "1 to 8 circles",
        ),
        (
            with("circles", json!([1, 1, 1, 1, 1, 1, 1, 1, 1])),
            "board.circles",
            "1 to 8 circles",
        ),
        (with("circles", json!("36")), "board.circles", "not a list"),
        (
            with("circles", json!([36, 0, 12])),
            "board.circles[1]",
            "out of range",
        ),
        (
            with("circles", json!([361, 24, 12])),
            "board.circles[0]",
            "out of range",
        ),
        (
            with("circles", json!([36, 2.5, 12])),
            "board.circles[1]",
            "not an integer",
        ),
        (
            with("entries", json!([0, 6, 12])),
            "board.entries",
            "6 entries",
        ),
        (
            with("entries", json!([0, 6, 12, 18, 24, 36])),
            "board.entries[5]",
            "out of range",
        ),
        (
            with("centre_points", json!([5, 4, 3, 2])),
            "board.centre_points",
            "not 4",
        ),
        (
            with("centre_points", json!([5, 4, "3", 2, 1])),
            "board.centre_points[2]",
            "not an integer",
        ),
        (
            with("home_length", json!(5)),
            "board.home_length",
            "4 squares",
        ),
        (with("bridges", json!({})), "board.bridges", "not a list"),
        (
            with("bridges", json!([7])),
            "board.bridges[0]",
            "a bridge is an object",
        ),
        (
            with("bridges", json!([{ "from": [0, 5] }])),
            "board.bridges[0].to",
            "missing",
        ),
        (
            with(
                "bridges",
                json!([{ "from": [0, 5], "to": [1, 0], "via": 1 }]),
            ),
            "board.bridges[0].via",
            "unknown field",
        ),
        (
            with("bridges", json!([{ "from": [3, 0], "to": "centre" }])),
            "board.bridges[0].from",
            "out of range",
        ),
        (
            with("bridges", json!([{ "from": [0, 36], "to": [1, 0] }])),
            "board.bridges[0].from",
            "out of range",
        ),
        (
            with("bridges", json!([{ "from": [0], "to": [1, 0] }])),
            "board.bridges[0].from",
            "[circle, index]",
        ),
        (
            with("bridges", json!([{ "from": [0, 5], "to": [2, 0] }])),
            "board.bridges[0].to",
            "exactly one circle inward",
        ),
        (
            with("bridges", json!([{ "from": [0, 5], "to": [1, 24] }])),
            "board.bridges[0].to",
            "out of range",
        ),
        (
            with("bridges", json!([{ "from": [0, 5], "to": "centre" }])),
            "board.bridges[0].to",
            "only the innermost circle",
        ),
        (
            with("bridges", json!([{ "from": [2, 1], "to": [2, 2] }])),
            "board.bridges[0].to",
            "leads to \"centre\"",
        ),
        (
            with(
                "bridges",
                json!([{ "from": [0, 5], "to": [1, 0] }, { "from": [0, 5], "to": [1, 1] }]),
            ),
            "board.bridges[1].from",
            "at most one bridge per space",
        ),
        (no_inner_bridge, "board.bridges", "no bridge to the centre"),
        (no_middle_bridge, "board.bridges", "circle 1 has no bridge"),
    ];
    for (board, field, needle) in cases {
        let setup: Setup =
            serde_json::from_value(json!({ "options": { "board": board } })).unwrap();
        match Hypnosia::check_setup(setup) {
            Err(Error::InvalidBoard { field: got, detail }) => {
                assert_eq!(got, field, "{board}: {detail}");
                assert!(
                    detail.contains(needle),
                    "{board}: {detail:?} lacks {needle:?}"
                );
            }
            other => panic!("{board}: expected invalid-board, got {other:?}"),
        }
    }
    // A board error inside a state is still invalid-board.
    let mut state = state_of(&Hypnosia::start(&two(), Some(1), None));
    state["options"]["board"] = Board::default_description();
    state["options"]["board"]["circles"] = json!([36, 24]);
    assert!(
        matches!(read(&state), Err(Error::InvalidBoard { field, .. }) if field == "board.bridges[6].to")
    );
}

/// One circle of 8 spaces, every seat entering at 0, a bridge to the centre on space 3.
fn single_circle_board() -> Value {
    json!({
        "circles": [8], "entries": [0, 0, 0, 0, 0, 0],
        "bridges": [{ "from": [0, 3], "to": "centre" }],
        "centre_points": [10, 8, 6, 4, 2], "home_length": 4,
    })
}

#[test]
fn a_custom_board_with_a_single_circle_plays() {
    let setup = setup_of(json!({ "board": single_circle_board(), "first_player": "red" }));
    let start = Hypnosia::start(&setup, Some(3), None);
    let (after, _) = play(&start, "4-1: h1+4 0.3^1");
    let state = state_of(&after);
    assert_eq!(state["pawns"]["red"], json!(["h2", "h3", "h4", "centre"]));
    assert_eq!(state["scores"]["red"], 10);
    // Blue enters on the same space 0; red's pawns then capture both of blue's singles.
    let (after, _) = play(&after, "1-3: h1+1 h2+3");
    assert_eq!(
        state_of(&after)["pawns"]["blue"],
        json!(["h3", "h4", "0.0", "0.1"])
    );
    let (after, effects) = play(&after, "3-1: h3+3 0.0+1");
    assert_eq!(effects.moves[0].captured[0].player, "blue");
    assert_eq!(effects.moves[1].captured[0].player, "blue");
    assert_eq!(state_of(&after)["scores"], json!({ "red": 12, "blue": -2 }));
}

/// A board description is kept as the text given, so its reader checks it as every reader of a
/// request does (`request::take_item` then names the fault): JSON in full, no key given twice (even
/// with the same value). A request whose board is not is refused as JSON, where the fault is.
#[test]
fn a_board_not_json_or_with_a_key_given_twice_is_refused_as_json() {
    let setup = setup_of(json!({ "board": single_circle_board() }));
    let engine = referee_core::engine::Engine::<Hypnosia>::new(setup.clone(), None);
    let state = state_of(&Hypnosia::start(&setup, Some(3), None)).to_string();
    let answer = |state: &str| {
        let body = format!(r#"{{"state":{state},"move":"roll"}}"#);
        referee_core::request::answer_request::<Hypnosia>(body.as_bytes(), &engine, false)
    };
    assert!(answer(&state).is_ok(), "{state}");
    let twice = |member: &str| format!("{member},{member}");
    for (member, changed, says) in [
        (
            r#""circles":[8]"#,
            twice(r#""circles":[8]"#),
            "duplicate key at state.options.board.circles",
        ),
        (
            r#""from":[0,3]"#,
            twice(r#""from":[0,3]"#),
            "duplicate key at state.options.board.bridges[0].from",
        ),
        (
            r#""home_length":4"#,
            r#""home_length":1e400"#.into(),
            "number out of range",
        ),
        (
            r#""to":"centre""#,
            r#""to":"\udc00""#.into(),
            "lone leading surrogate",
        ),
    ] {
        let body = state.replacen(member, &changed, 1);
        assert_ne!(body, state, "{member} is in {state}");
        let reason = answer(&body).unwrap_err().reason();
        assert_eq!(reason["code"], "malformed-json", "{reason}");
        let detail = reason["detail"].as_str().unwrap();
        assert!(detail.contains(says), "{detail}");
    }
}

// ------------------------------------------------------------------ the rules doc's test notes

#[test]
fn home_exit_distances() {
    let setup = two();
    let rolled = pos("r:h1,h2,h3,h4/b:h1,h2,h3,h4 r 52 - 0/0 0:0", &setup);
    let (rule, data) = refusal(&rolled, "h3+2");
    assert_eq!(
        (rule, data["distance"].clone(), data["die"].clone()),
        ("die-too-small", json!(3), json!(2))
    );
    // Distance k with die n lands on outer space entry + n − k.
    let (after, effects) = play(&rolled, "h3+5");
    assert_eq!(effects.moves[0].to, "0.2");
    assert_eq!(Hypnosia::to_move(&after), Some("red"));
    assert_eq!(state_of(&after)["dice"], json!([2]));
    let (after, effects) = play(&after, "h2+2");
    assert_eq!(effects.moves[0].to, "0.0");
    assert!(effects.turn_over);
    assert_eq!(
        state_of(&after)["pawns"]["red"],
        json!(["h1", "h4", "0.0", "0.2"])
    );
    // Blue's entry is 18; h4 with a 6 lands on 0.20.
    let (_, effects) = play(&after, "6-1: h4+6 h1+1");
    assert_eq!(
        (effects.moves[0].to.as_str(), effects.moves[1].to.as_str()),
        ("0.20", "0.18")
    );
    // Home pawns are neither doubles nor on a bridge.
    assert_eq!(refusal(&rolled, "Dh1+5").0, "no-double");
    assert_eq!(refusal(&rolled, "h1^5").0, "not-a-bridge");
}

#[test]
fn land_on_a_bridge_with_the_first_die_then_cross_with_the_second() {
    let setup = two();
    let rolled = pos("r:h2,h3,h4,0.2/b:h1,h2,h3,h4 r 32 - 0/0 0:0", &setup);
    assert!(moves(&rolled).contains(&"0.2+3 0.5^2".to_owned()));
    let (after, effects) = play(&rolled, "0.2+3 0.5^2");
    assert_eq!(effects.moves[1].to, "1.1");
    assert!(effects.moves[1].cross);
    assert_eq!(
        state_of(&after)["pawns"]["red"],
        json!(["h2", "h3", "h4", "1.1"])
    );
    // The same two die moves one at a time.
    let (half, _) = play(&rolled, "0.2+3");
    assert_eq!(state_of(&half)["dice"], json!([2]));
    assert!(moves(&half).contains(&"0.5^2".to_owned()));
    assert_eq!(play(&half, "0.5^2").0, after);
    // A crossing is optional: the unit may go on along its circle.
    assert_eq!(play(&half, "0.5+2").1.moves[0].to, "0.7");
    // Landing on a bridge with the last die: crossing waits for a later turn.
    let (later, _) = play(&rolled, "h2+2 0.2+3");
    let back = play(&play(&later, "1-1: h1+1 0.18+1").0, "2-1").0;
    assert!(moves(&back).contains(&"0.5^2 1.1+1".to_owned()));
}

#[test]
fn passing_over_a_bridge_does_not_cross_it() {
    let rolled = pos("r:h2,h3,h4,0.3/b:h1,h2,h3,h4 r 46 - 0/0 0:0", &two());
    let (_, effects) = play(&rolled, "0.3+4 0.7+6");
    assert_eq!(
        (effects.moves[0].to.as_str(), effects.moves[1].to.as_str()),
        ("0.7", "0.13")
    );
    let (rule, data) = refusal(&rolled, "0.3^4");
    assert_eq!((rule, data["from"].clone()), ("not-a-bridge", json!("0.3")));
    assert!(moves(&rolled)
        .iter()
        .all(|mv| !mv.contains('^') || mv.contains("0.5^") || mv.contains("0.11^")));
}

#[test]
fn the_capture_table() {
    let setup = two();
    // Single on an enemy single: captures it.
    let position = pos("r:h2,h3,h4,0.2/b:h1,h2,h3,0.5 r 3 - 0/0 0:0", &setup);
    let (after, effects) = play(&position, "0.2+3");
    assert_eq!(
        serde_json::to_value(&effects.moves[0].captured).unwrap(),
        json!([{ "player": "blue", "pawns": 1 }])
    );
    let state = state_of(&after);
    assert_eq!(
        state["pawns"]["blue"],
        json!(["h1", "h2", "h3", "captured"])
    );
    assert_eq!(state["captures"], json!({ "red": 1, "blue": 0 }));
    // Negative scores: the owner loses a point per captured pawn.
    assert_eq!(state["scores"], json!({ "red": 1, "blue": -1 }));
    // Single on an enemy double: illegal.
    let position = pos("r:h2,h3,h4,0.2/b:h1,h2,0.5,0.5 r 3 - 0/0 0:0", &setup);
    let (rule, data) = refusal(&position, "0.2+3");
    assert_eq!(rule, "single-on-enemy-double");
    assert_eq!(data, json!({ "to": "0.5", "player": "blue" }));
    // Double on an enemy double: captures both; double on an enemy single: captures it.
    let position = pos("r:h3,h4,0.2,0.2/b:h1,h2,0.5,0.5 r 3 - 0/0 0:0", &setup);
    let (after, effects) = play(&position, "D0.2+3");
    assert_eq!(effects.moves[0].captured[0].pawns, 2);
    assert_eq!(state_of(&after)["scores"], json!({ "red": 2, "blue": -2 }));
    let position = pos("r:h3,h4,0.2,0.2/b:h1,h2,h3,0.5 r 3 - 0/0 0:0", &setup);
    assert_eq!(play(&position, "D0.2+3").1.moves[0].captured[0].pawns, 1);
    // Pawns at home cannot be captured (they are not on the circle).
    let position = pos("r:h2,h3,h4,0.16/b:h2,h3,h4,0.19 r 2 - 0/0 0:0", &setup);
    assert!(play(&position, "0.16+2").1.moves[0].captured.is_empty());
}

#[test]
fn the_stacking_limit() {
    let setup = two();
    let position = pos("r:h3,h4,0.2,0.5/b:h1,h2,h3,h4 r 3 - 0/0 0:0", &setup);
    let (after, _) = play(&position, "0.2+3");
    assert_eq!(
        state_of(&after)["pawns"]["red"],
        json!(["h3", "h4", "0.5", "0.5"])
    );
    let position = pos("r:h4,0.2,0.5,0.5/b:h1,h2,h3,h4 r 31 - 0/0 0:0", &setup);
    let (rule, data) = refusal(&position, "0.2+3");
    assert_eq!((rule, data["pawns"].clone()), ("stack-limit", json!(2)));
    let position = pos("r:h4,0.2,0.2,0.5/b:h1,h2,h3,h4 r 31 - 0/0 0:0", &setup);
    assert_eq!(refusal(&position, "D0.2+3").0, "stack-limit");
    // A double may split: one pawn moves, the other stays.
    let (after, _) = play(&position, "0.2+1 0.3+3");
    assert_eq!(
        state_of(&after)["pawns"]["red"],
        json!(["h4", "0.2", "0.5", "0.6"])
    );
    assert_eq!(refusal(&position, "D0.5+3").0, "no-double");
}

#[test]
fn a_double_entering_the_centre_with_one_space_left() {
    let setup = two();
    let position = pos(
        "r:2.1,2.1,centre,centre/b:h1,h2,centre,centre r 13 rrbb 0/0 0:0",
        &setup,
    );
    assert!(moves(&position).contains(&"D2.1^1".to_owned()));
    let (after, effects) = play(&position, "D2.1^1");
    let entered = &effects.moves[0];
    assert_eq!(
        (entered.to.as_str(), entered.pawns, entered.centre_points),
        ("centre", 2, 1)
    );
    assert!(effects.turn_over);
    let state = state_of(&after);
    assert_eq!(
        state["pawns"]["red"],
        json!(["2.1", "centre", "centre", "centre"])
    );
    assert_eq!(
        state["centre"],
        json!(["red", "red", "blue", "blue", "red"])
    );
    assert_eq!(
        (state["to_move"].clone(), state["dice"].clone()),
        (Value::Null, Value::Null)
    );
    let outcome = Hypnosia::outcome(&after);
    assert_eq!(outcome.status, Status::Finished);
    assert_eq!(outcome.scores["red"], 5 + 4 + 1);
    assert_eq!(
        (outcome.winner, outcome.decided_by),
        (Some("red"), Some("score"))
    );
    assert_eq!(
        game::play_text::<Hypnosia>(&after, "roll", None).unwrap_err(),
        Error::GameOver
    );
    assert!(Hypnosia::legal_moves(&after).is_empty());
    // With two spaces free, both pawns enter and score.
    let position = pos(
        "r:h1,2.1,2.1,centre/b:h1,h2,h3,centre r 16 rb 0/0 0:0",
        &setup,
    );
    let (after, effects) = play(&position, "D2.1^1 h1+6");
    assert_eq!(effects.moves[0].centre_points, 3 + 2);
    assert_eq!(
        state_of(&after)["centre"],
        json!(["red", "blue", "red", "red"])
    );
    assert_eq!(Hypnosia::outcome(&after).status, Status::Ongoing);
    // The centre needs a die of exactly 1.
    assert_eq!(refusal(&position, "D2.1^6").0, "centre-needs-one");
}

#[test]
fn the_most_dice_must_be_used() {
    let setup = two();
    // Red's one pawn on a circle is on 0.2; blue's double on 0.7 blocks 0.2+2 then +3.
    let position = pos(
        "r:0.2,centre,centre,centre/b:h1,h2,0.7,0.7 r 32 rrr 0/0 0:0",
        &setup,
    );
    assert_eq!(moves(&position), ["0.2+3 0.5^2"]);
    let (rule, data) = refusal(&position, "0.2+2");
    assert_eq!(
        (rule, data["usable"].clone(), data["used"].clone()),
        ("must-use-most-dice", json!(2), json!(1))
    );
    assert_eq!(refusal(&position, "pass").0, "must-use-dice");
    assert_eq!(
        refusal(&position, "0.2+3 0.5+2").0,
        "single-on-enemy-double"
    );
    // When no order uses both dice, one die is a whole turn (no rule favours the higher die).
    let position = pos(
        "r:0.0,centre,centre,centre/b:h1,h2,0.4,0.4 r 31 rrr 0/0 0:0",
        &setup,
    );
    assert_eq!(moves(&position), ["0.0+1", "0.0+3"]);
    let (after, effects) = play(&position, "0.0+1");
    assert!(effects.turn_over && !effects.passed);
    assert_eq!(Hypnosia::to_move(&after), Some("blue"));
    // No die usable: the turn is `pass`.
    let position = pos(
        "r:h4,centre,centre,centre/b:h1,h2,h3,h4 r 12 rrr 0/0 0:0",
        &setup,
    );
    assert_eq!(moves(&position), ["pass"]);
    let (after, effects) = play(&position, "pass");
    assert!(effects.passed && effects.turn_over);
    assert_eq!(Hypnosia::to_move(&after), Some("blue"));
    let unrolled = pos(
        "r:h4,centre,centre,centre/b:h1,h2,h3,h4 r - rrr 0/0 0:0",
        &setup,
    );
    assert_eq!(play(&unrolled, "1-2: pass").0, after);
    // A roll-prefixed turn is a whole turn.
    let start = Hypnosia::start(&setup, Some(0), None);
    assert_eq!(refusal(&start, "5-4: h1+5").0, "must-use-most-dice");
    // Equal dice: both orders of two different die moves are listed, identical strings once.
    let rolled = play(&start, "2-2").0;
    let listed = moves(&rolled);
    assert!(listed.contains(&"h1+2 h2+2".to_owned()) && listed.contains(&"h2+2 h1+2".to_owned()));
    let mut sorted = listed.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted, listed);
}

#[test]
fn doubles_may_not_cross_in_the_variant() {
    let hard = setup_of(json!({ "doubles_cross_bridges": false }));
    let position = pos("r:h3,h4,0.5,0.5/b:h1,h2,h3,h4 r 22 - 0/0 0:0", &hard);
    assert_eq!(refusal(&position, "D0.5^2").0, "doubles-cannot-cross");
    assert!(moves(&position).iter().all(|mv| !mv.contains("D0.5^")));
    let position = pos("r:h3,h4,0.5,0.5/b:h1,h2,h3,h4 r 22 - 0/0 0:0", &two());
    assert_eq!(play(&position, "D0.5^2 D1.1+2").1.moves[1].to, "1.3");
}

#[test]
fn turn_structure_errors() {
    let start = Hypnosia::start(&two(), Some(0), None);
    assert_eq!(moves(&start), ["roll"]);
    assert_eq!(refusal(&start, "h1+1").0, "roll-first");
    assert_eq!(refusal(&start, "pass").0, "roll-first");
    let rolled = play(&start, "5-4").0;
    assert_eq!(refusal(&rolled, "roll").0, "already-rolled");
    assert_eq!(refusal(&rolled, "6-6").0, "already-rolled");
    let (rule, data) = refusal(&rolled, "h1+6");
    assert_eq!(
        (rule, data["dice"].clone()),
        ("die-not-rolled", json!([5, 4]))
    );
    assert_eq!(refusal(&rolled, "0.3+5").0, "no-pawn");
    assert_eq!(refusal(&rolled, "7.3+5").0, "no-such-space");
    assert!(matches!(
        game::validate::<Hypnosia>(&rolled, "h1+5", Some("blue")),
        Ok(Verdict::Illegal(Error::NotYourTurn { .. }))
    ));
    assert!(matches!(
        game::validate::<Hypnosia>(&rolled, "h1 +5", None),
        Ok(Verdict::Illegal(Error::MalformedMove { .. }))
    ));
    // Two die moves with one die left: the second has no die.
    let half = play(&rolled, "h1+5").0;
    assert_eq!(refusal(&half, "h2+4 0.4+4").0, "die-not-rolled");
}

#[test]
fn rolls_are_drawn_from_the_seeded_source() {
    let setup = setup_of(json!({}));
    let start = Hypnosia::start(&setup, Some(42), None);
    let mut reference = Chance::from_seed(42, None);
    let first = ["red", "blue"][reference.below(2) as usize];
    assert_eq!(Hypnosia::to_move(&start), Some(first));
    let (after, effects) = play(&start, "roll");
    let dice = [reference.die(), reference.die()];
    assert_eq!((effects.roll, effects.drawn), (Some(dice.to_vec()), true));
    assert_eq!(state_of(&after)["dice"], json!(dice));
    assert_eq!(after.dice(), dice);
    // Same seed, same game.
    assert_eq!(
        play(&Hypnosia::start(&setup, Some(42), None), "roll").0,
        after
    );
    // A supplied roll does not draw.
    let (supplied, effects) = play(&start, "6-1");
    assert!(!effects.drawn);
    assert_eq!(state_of(&supplied)["rng"], state_of(&start)["rng"]);
}

#[test]
fn turn_order_goes_to_the_next_lower_seat_and_skips_players_out_of_play() {
    let setup = setup_of(json!({ "players": 3, "first_player": "red" }));
    let start = Hypnosia::start(&setup, Some(0), None);
    let after_red = play(&start, "1-1: h1+1 0.0+1").0;
    assert_eq!(Hypnosia::to_move(&after_red), Some("purple"));
    let after_purple = play(&after_red, "1-1: h1+1 0.24+1").0;
    assert_eq!(Hypnosia::to_move(&after_purple), Some("green"));
    // Purple has every pawn captured: red's turn passes to green.
    let position = pos(
        "r:h1,h2,h3,h4/g:h1,h2,h3,h4/p:captured,captured,captured,captured r - - 4/0/0 0:0",
        &setup,
    );
    assert_eq!(
        Hypnosia::to_move(&play(&position, "1-1: h1+1 0.0+1").0),
        Some("green")
    );
}

#[test]
fn ranking_and_tie_breaks() {
    let setup = setup_of(json!({ "players": 3 }));
    // Centre full: red 5+3, green 4+2+1 +1 capture = 8; purple lost a pawn.
    let tied = pos(
        "r:h4,0.3,centre,centre/g:h1,centre,centre,centre/p:h1,h2,h3,captured - - rgrgg 0/1/0 0:9",
        &setup,
    );
    let outcome = Hypnosia::outcome(&tied);
    assert_eq!(outcome.scores["red"], 8);
    assert_eq!(outcome.scores["green"], 8);
    assert_eq!(
        (outcome.winner, outcome.decided_by),
        (Some("red"), Some("first_to_centre"))
    );
    assert_eq!(
        outcome.ranking,
        Some(vec![vec!["red"], vec!["green"], vec!["purple"]])
    );
    // Everyone captured or in the centre; nobody in the centre and level on points: shared.
    let two = two();
    let shared = pos(
        "r:captured,captured,captured,captured/b:captured,captured,captured,captured - - - 4/4 0:9",
        &two,
    );
    let outcome = Hypnosia::outcome(&shared);
    assert_eq!((outcome.winner, outcome.decided_by), (None, Some("shared")));
    assert_eq!(outcome.ranking, Some(vec![vec!["red", "blue"]]));
    let ongoing = Hypnosia::outcome(&Hypnosia::start(&two, Some(0), None));
    assert_eq!(
        (ongoing.status, ongoing.to_move, ongoing.ranking),
        (Status::Ongoing, Some("red"), None)
    );
}

// ------------------------------------------------------------------ random playouts

/// A small deterministic generator for choosing moves (the game's own source draws the dice).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

#[test]
fn random_playouts_never_panic_and_keep_states_round_tripping() {
    let setups = [
        json!({}),
        json!({ "players": 3 }),
        json!({ "players": 4, "doubles_cross_bridges": false }),
        json!({ "players": 6 }),
        json!({ "seats": [1, 2], "board": { "circles": [5, 3], "entries": [0, 1, 2, 3, 4, 0],
            "bridges": [{ "from": [0, 4], "to": [1, 0] }, { "from": [1, 2], "to": "centre" }],
            "centre_points": [3, 2, 1, 0, -1], "home_length": 4 } }),
    ];
    let mut finished = 0;
    let mut rng = Lcg(7);
    for (index, options) in setups.iter().enumerate() {
        let setup = setup_of(options.clone());
        for seed in 0..8u64 {
            let mut position = Hypnosia::start(&setup, Some(seed * 31 + index as u64), None);
            for _ in 0..3000 {
                let legal = Hypnosia::legal_moves(&position);
                let texts: Vec<String> = legal.iter().map(ToString::to_string).collect();
                assert_eq!(Hypnosia::legal_move_texts(&position), texts);
                if legal.is_empty() {
                    break;
                }
                let mv = legal[rng.below(legal.len())].to_string();
                let (next, effects) = play(&position, &mv);
                assert_eq!(effects.player, Hypnosia::to_move(&position).unwrap());
                // Partial play agrees with the whole turn.
                if let Some((first, _)) = mv.split_once(' ') {
                    if position.dice().len() == 2 {
                        let (half, half_effects) = play(&position, first);
                        assert!(
                            !half_effects.turn_over
                                || Hypnosia::outcome(&half).status == Status::Finished,
                            "{mv}"
                        );
                    }
                }
                position = next;
                let state = state_of(&position);
                let back = read(&state).unwrap_or_else(|e| panic!("{state}: {e}"));
                assert_eq!(back, position);
                let written = text(&position);
                assert_eq!(text(&pos(&written, &setup)), written);
                let outcome = Hypnosia::outcome(&position);
                let total: i64 = outcome.scores.values().sum();
                let centre = state["centre"].as_array().unwrap().len() as i64;
                assert!(centre <= 5 && total >= -24, "{written}");
            }
            if Hypnosia::outcome(&position).status == Status::Finished {
                finished += 1;
            }
        }
    }
    assert!(finished >= 30, "only {finished} of 40 playouts finished");
}
