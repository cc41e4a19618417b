//! The HTTP hot path of every game without Python: a `play` and a `validate` request body answered from
//! JSON bytes (`request::answer_request`, what `Engine.play_json`/`validate_json` call), and the same
//! validate items as a JSON array (`batch::validate_array`, what `validate_batch_json` calls) and as
//! NDJSON lines (`batch::validate_lines`, what `validate_lines` calls), on every core.
//! The states come from the middle of a seeded random game, as in `bench/run.py`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use referee_core::caesar::Caesar;
use referee_core::chance::Chance;
use referee_core::engine::Engine;
use referee_core::game::{self, StateOf, Verdict};
use referee_core::hypnosia::Hypnosia;
use referee_core::iago::Iago;
use referee_core::isaac::Isaac;
use referee_core::Rules;
use referee_core::{batch, request};

/// No game lasts this many plies; a longer playout is a bug.
const MAX_PLIES: usize = 2000;
/// Items in the JSON array batch.
const ARRAY_ITEMS: usize = 1000;

/// Every position of a seeded uniform random game, from the default setup to the end.
fn random_game<G: Rules>(seed: u64) -> Vec<G::Position> {
    let setup = game::default_setup::<G>();
    let mut rng = Chance::from_seed(seed, None);
    let mut positions = vec![G::start(&setup, Some(seed), None)];
    for _ in 0..MAX_PLIES {
        let position = positions.last().expect("at least the start");
        let moves = G::legal_moves(position);
        if moves.is_empty() {
            return positions;
        }
        let mv = moves[rng.below(moves.len() as u32) as usize].clone();
        positions.push(G::play(position, mv).expect("a listed move is legal").0);
    }
    panic!("a {} game did not end within {MAX_PLIES} plies", G::NAME);
}

/// A request body `{"state", "move"}`.
fn body<G: Rules>(position: &G::Position, mv: &str) -> String {
    let state = serde_json::to_string(&StateOf::<G>(position)).expect("a state serializes");
    format!(
        "{{\"state\":{state},\"move\":{}}}",
        serde_json::Value::from(mv)
    )
}

/// The play and validate bodies of the position nearest the middle of a seeded game that has at least
/// two legal moves: a legal move, and a legal move of another position of the game that the rules refuse
/// here.
fn bodies<G: Rules>(seed: u64) -> (String, String) {
    let positions = random_game::<G>(seed);
    let middle = positions.len() / 2;
    let mut order: Vec<usize> = (0..positions.len()).collect();
    order.sort_by_key(|&index| index.abs_diff(middle));
    let index = order
        .into_iter()
        .find(|&index| G::legal_moves(&positions[index]).len() >= 2)
        .expect("a position with two legal moves");
    let position = &positions[index];
    let legal = G::legal_moves(position)[0].to_string();
    let refused = positions
        .iter()
        .flat_map(|other| G::legal_moves(other))
        .map(|mv| mv.to_string())
        .find(|mv| {
            matches!(
                game::validate::<G>(position, mv, None),
                Ok(Verdict::Illegal(_))
            )
        })
        .expect("a move of another position that is refused here");
    (body::<G>(position, &legal), body::<G>(position, &refused))
}

/// The same body with its state in the compact form, the position string.
fn with_position<G: Rules>(body: &str) -> String {
    let mut body: serde_json::Value = serde_json::from_str(body).expect("a body is JSON");
    let position = game::read_json::<G>(&body["state"].to_string(), None).expect("a valid state");
    body["state"] = G::position_text(&position).into();
    body.to_string()
}

fn requests<G: Rules>(c: &mut Criterion) {
    let engine = &Engine::<G>::new(game::default_setup::<G>(), None);
    let (play, refused) = bodies::<G>(1);
    let play_position = with_position::<G>(&play);
    assert!(request::answer_request::<G>(play.as_bytes(), engine, true).is_ok());
    assert!(request::answer_request::<G>(refused.as_bytes(), engine, false).is_ok());
    let items: Vec<&str> = (0..ARRAY_ITEMS)
        .map(|index| {
            if index % 2 == 0 {
                play.as_str()
            } else {
                refused.as_str()
            }
        })
        .collect();
    let array = format!("[{}]", items.join(","));
    let lines = items.join("\n");
    let judged =
        batch::validate_lines::<G>(lines.as_bytes(), engine, batch::LinesAnswer::default());
    assert_eq!((judged.items, judged.malformed), (ARRAY_ITEMS, None));
    let mut group = c.benchmark_group(G::NAME);
    group.throughput(Throughput::Elements(1));
    group.bench_function("play_json", |b| {
        b.iter(|| request::answer_request::<G>(play.as_bytes(), engine, true))
    });
    group.bench_function("play_json (state as its position)", |b| {
        b.iter(|| request::answer_request::<G>(play_position.as_bytes(), engine, true))
    });
    group.bench_function("validate_json (refused move)", |b| {
        b.iter(|| request::answer_request::<G>(refused.as_bytes(), engine, false))
    });
    group.throughput(Throughput::Elements(ARRAY_ITEMS as u64));
    group.bench_function(format!("validate_array({ARRAY_ITEMS})"), |b| {
        b.iter(|| batch::validate_array::<G>(array.as_bytes(), engine, false, ARRAY_ITEMS))
    });
    group.bench_function(format!("validate_lines({ARRAY_ITEMS})"), |b| {
        let answer = batch::LinesAnswer::default();
        b.iter(|| batch::validate_lines::<G>(lines.as_bytes(), engine, answer))
    });
    group.finish();
}

criterion_group!(
    benches,
    requests::<Iago>,
    requests::<Isaac>,
    requests::<Hypnosia>,
    requests::<Caesar>
);
criterion_main!(benches);
