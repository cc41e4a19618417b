//! Perft throughput of each game's move generator. `bench/run.py` compares it with the Python
//! reference model in the same run; this is the criterion view of the same numbers.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use referee_core::iago::{Iago, Setup};
use referee_core::Rules;

fn iago_perft(c: &mut Criterion) {
    let start = Iago::start(&Setup::default(), None);
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

criterion_group!(benches, iago_perft);
criterion_main!(benches);
