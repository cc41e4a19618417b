//! Perft throughput of each game's move generator. `bench/run.py` compares it with the Python
//! reference model in the same run; this is the criterion view of the same numbers.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use referee_core::chance::Chance;
use referee_core::game;
use referee_core::hypnosia::{self, Hypnosia};
use referee_core::iago::Iago;
use referee_core::isaac::Isaac;
use referee_core::Rules;

fn iago_perft(c: &mut Criterion) {
    let start = Iago::start(&game::default_setup::<Iago>(), None, None);
    let mut group = c.benchmark_group("iago");
    for depth in [3u32, 4] {
        let nodes = Iago::perft(&start, depth);
        group.throughput(Throughput::Elements(nodes));
        group.bench_function(format!("perft({depth})"), |b| {
            b.iter(|| Iago::perft(&start, depth))
        });
    }
    group.finish();
}

fn isaac_perft(c: &mut Criterion) {
    let start = Isaac::start(&game::default_setup::<Isaac>(), None, None);
    let mut group = c.benchmark_group("isaac");
    for depth in [2u32, 3] {
        let nodes = Isaac::perft(&start, depth);
        group.throughput(Throughput::Elements(nodes));
        group.bench_function(format!("perft({depth})"), |b| {
            b.iter(|| Isaac::perft(&start, depth))
        });
    }
    group.finish();
}

/// Whole seeded random games through the public contract: move lists, parsing, play, outcome.
fn isaac_games(c: &mut Criterion) {
    let setup = game::default_setup::<Isaac>();
    let mut group = c.benchmark_group("isaac");
    group.throughput(Throughput::Elements(10));
    group.bench_function("10 random games", |b| {
        b.iter(|| {
            let mut plies = 0u64;
            for seed in 0..10 {
                let mut rng = Chance::from_seed(seed, None);
                let mut position = Isaac::start(&setup, None, None);
                while Isaac::to_move(&position).is_some() {
                    let moves = Isaac::legal_moves(&position);
                    let mv = moves[rng.below(moves.len() as u32) as usize];
                    position = Isaac::play(&position, mv)
                        .expect("a listed move is legal")
                        .0;
                    plies += 1;
                }
            }
            plies
        })
    });
    group.finish();
}

/// Hypnosia: perft over the 21 rolls from the two-player start, and whole seeded games played by
/// always taking the first legal move (rolls drawn from the state's source).
fn hypnosia_perft(c: &mut Criterion) {
    let options = hypnosia::Options {
        first_player: Some("red".into()),
        ..hypnosia::Options::default()
    };
    let setup = Hypnosia::check_setup(hypnosia::Setup::new(options)).expect("a valid setup");
    let start = Hypnosia::start(&setup, Some(1), None);
    let mut group = c.benchmark_group("hypnosia");
    for depth in [1u32, 2] {
        let nodes = Hypnosia::perft(&start, depth);
        group.throughput(Throughput::Elements(nodes));
        group.bench_function(format!("perft({depth})"), |b| {
            b.iter(|| Hypnosia::perft(&start, depth))
        });
    }
    let four = Hypnosia::check_setup(hypnosia::Setup::new(hypnosia::Options {
        players: Some(4),
        ..hypnosia::Options::default()
    }))
    .expect("a valid setup");
    group.bench_function("first-move game, 4 players", |b| {
        b.iter(|| {
            let mut position = Hypnosia::start(&four, Some(9), None);
            for _ in 0..2000 {
                let Some(mv) = Hypnosia::legal_moves(&position).into_iter().next() else {
                    break;
                };
                position = game::play_text::<Hypnosia>(&position, &mv.to_string(), None)
                    .expect("a listed move is legal")
                    .0;
            }
            position
        })
    });
    group.finish();
}

criterion_group!(
    benches,
    iago_perft,
    isaac_perft,
    isaac_games,
    hypnosia_perft
);
criterion_main!(benches);
