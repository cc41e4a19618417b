//! `cargo run --release --example profile_calls [GAME|all] [ITERS] [LABEL PREFIX]`: where one call's
//! time goes, per game, on the state nearest the middle of a seeded random game (as
//! `benches/requests.rs`): parsing a state, checking it, writing it, the moves, a request, a batch.
//! Wall time of one thread, system allocator: run it under `perf record` to see the parts, and
//! compare builds in turns (the machine is shared).

use std::hint::black_box;
use std::time::Instant;

use referee_core::batch;
use referee_core::caesar::Caesar;
use referee_core::chance::Chance;
use referee_core::engine::Engine;
use referee_core::game::{self, StateOf, Verdict};
use referee_core::hypnosia::Hypnosia;
use referee_core::iago::Iago;
use referee_core::incoming;
use referee_core::isaac::Isaac;
use referee_core::request;
use referee_core::Rules;

fn middle<G: Rules>(seed: u64) -> (G::Position, String, String) {
    let setup = game::default_setup::<G>();
    let mut rng = Chance::from_seed(seed, None);
    let mut positions = vec![G::start(&setup, Some(seed), None)];
    loop {
        let position = positions.last().unwrap();
        let moves = G::legal_moves(position);
        if moves.is_empty() {
            break;
        }
        let mv = moves[rng.below(moves.len() as u32) as usize].clone();
        positions.push(G::play(position, mv).unwrap().0);
    }
    let mid = positions.len() / 2;
    let mut order: Vec<usize> = (0..positions.len()).collect();
    order.sort_by_key(|&i| i.abs_diff(mid));
    let index = order
        .into_iter()
        .find(|&i| G::legal_moves(&positions[i]).len() >= 2)
        .unwrap();
    let position = positions[index].clone();
    let legal = G::legal_moves(&position)[0].to_string();
    let refused = positions
        .iter()
        .flat_map(|o| G::legal_moves(o))
        .map(|m| m.to_string())
        .find(|m| {
            matches!(
                game::validate::<G>(&position, m, None),
                Ok(Verdict::Illegal(_))
            )
        })
        .unwrap();
    (position, legal, refused)
}

fn time(label: &str, iters: u32, mut f: impl FnMut()) {
    if let Some(only) = std::env::args().nth(3) {
        if !label.starts_with(&only) {
            return;
        }
    }
    for _ in 0..iters / 10 {
        f();
    }
    let started = Instant::now();
    for _ in 0..iters {
        f();
    }
    let ns = started.elapsed().as_nanos() as f64 / f64::from(iters);
    println!("  {label:<28} {ns:>9.0} ns");
}

fn profile<G: Rules>(iters: u32) {
    let engine = &Engine::<G>::new(game::default_setup::<G>(), None);
    let (position, legal, refused) = middle::<G>(1);
    let state = serde_json::to_string(&StateOf::<G>(&position)).unwrap();
    let text = G::position_text(&position);
    let body = format!("{{\"state\":{state},\"move\":{:?}}}", legal);
    let refused_body = format!("{{\"state\":{state},\"move\":{:?}}}", refused);
    let items: Vec<&str> = (0..1000)
        .map(|i| {
            if i % 2 == 0 {
                body.as_str()
            } else {
                refused_body.as_str()
            }
        })
        .collect();
    let array = format!("[{}]", items.join(","));
    println!(
        "{} ({} bytes state, position {} bytes)",
        G::NAME,
        state.len(),
        text.len()
    );
    time("json::fault of a play body", iters, || {
        black_box(referee_core::json::fault(black_box(&body)));
    });
    time("read_object", iters, || {
        black_box(incoming::read_object::<G>(black_box(&state), None).unwrap());
    });
    time("parse_position", iters, || {
        black_box(G::parse_position(black_box(&text), engine.setup(), None).unwrap());
    });
    time("position_text", iters, || {
        black_box(G::position_text(black_box(&position)));
    });
    time("outcome", iters, || {
        black_box(G::outcome(black_box(&position)));
    });
    time("outcome to json", iters, || {
        black_box(serde_json::to_vec(&G::outcome(black_box(&position))).unwrap());
    });
    time("legal_moves strings", iters, || {
        let moves: Vec<String> = G::legal_moves(black_box(&position))
            .iter()
            .map(ToString::to_string)
            .collect();
        black_box(moves);
    });
    time("write_state to_vec", iters, || {
        black_box(serde_json::to_vec(&StateOf::<G>(black_box(&position))).unwrap());
    });
    time("play_text", iters, || {
        black_box(game::play_text::<G>(black_box(&position), &legal, None).unwrap());
    });
    time("answer_request play", iters, || {
        black_box(request::answer_request::<G>(body.as_bytes(), engine, true).unwrap());
    });
    time("answer_request validate(ref)", iters, || {
        black_box(request::answer_request::<G>(refused_body.as_bytes(), engine, false).unwrap());
    });
    if std::env::args()
        .nth(3)
        .is_some_and(|only| !"validate_array".starts_with(&only))
    {
        return;
    }
    let started = Instant::now();
    let rounds = (iters / 1000).max(3);
    for _ in 0..rounds {
        black_box(batch::validate_array::<G>(array.as_bytes(), engine, false, 1000).unwrap());
    }
    let per = started.elapsed().as_nanos() as f64 / f64::from(rounds) / 1000.0;
    println!(
        "  {:<28} {per:>9.0} ns/item ({:.0} items/s)",
        "validate_array(1000)",
        1e9 / per
    );
}

fn main() {
    let mut args = std::env::args().skip(1);
    let game = args.next().unwrap_or_else(|| "all".into());
    let iters: u32 = args.next().and_then(|n| n.parse().ok()).unwrap_or(20000);
    if game == "all" || game == "iago" {
        profile::<Iago>(iters);
    }
    if game == "all" || game == "isaac" {
        profile::<Isaac>(iters);
    }
    if game == "all" || game == "hypnosia" {
        profile::<Hypnosia>(iters);
    }
    if game == "all" || game == "caesar" {
        profile::<Caesar>(iters);
    }
}
