//! Caesar! throughput: perft from a fixed start (draws from the seed) and whole seeded random games.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use referee_core::caesar::Caesar;
use referee_core::{game, Rules};

fn start() -> <Caesar as Rules>::Position {
    Caesar::start(&game::default_setup::<Caesar>(), Some(7), None)
}

fn caesar_perft(c: &mut Criterion) {
    let start = start();
    let mut group = c.benchmark_group("caesar");
    for depth in [2u32, 3] {
        let nodes = Caesar::perft(&start, depth);
        group.throughput(Throughput::Elements(nodes));
        group.bench_function(format!("perft({depth})"), |b| {
            b.iter(|| Caesar::perft(&start, depth))
        });
    }
    group.finish();
}

/// A whole game of listed moves picked by a small LCG: legal-move generation, play and closures.
fn random_game(seed: u64) -> usize {
    let mut position = Caesar::start(&game::default_setup::<Caesar>(), Some(seed), None);
    let (mut rng, mut plies) = (seed, 0);
    loop {
        let moves = Caesar::legal_moves(&position);
        if moves.is_empty() {
            return plies;
        }
        rng = rng
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let mv = moves[(rng >> 33) as usize % moves.len()].clone();
        position = Caesar::play(&position, mv)
            .expect("a listed move is legal")
            .0;
        plies += 1;
    }
}

fn caesar_games(c: &mut Criterion) {
    let mut group = c.benchmark_group("caesar");
    group.throughput(Throughput::Elements(1));
    let mut seed = 0;
    group.bench_function("random game", |b| {
        b.iter(|| {
            seed += 1;
            random_game(seed)
        })
    });
    group.finish();
}

criterion_group!(benches, caesar_perft, caesar_games);
criterion_main!(benches);
