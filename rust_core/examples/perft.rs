//! `cargo run --release --example perft -- DEPTH [POSITION]`: Iago perft from the empty board or a position.

use std::time::Instant;

use referee_core::iago::{Iago, Setup};
use referee_core::Rules;

fn main() {
    let mut args = std::env::args().skip(1);
    let depth: u32 = args.next().and_then(|d| d.parse().ok()).unwrap_or(5);
    let setup = Setup::default();
    let position = match args.next() {
        Some(text) => Iago::parse_position(&text, &setup).unwrap_or_else(|e| panic!("{e}")),
        None => Iago::start(&setup, None),
    };
    for d in 1..=depth {
        let started = Instant::now();
        let nodes = Iago::perft(&position, d);
        let seconds = started.elapsed().as_secs_f64();
        println!(
            "perft({d}) = {nodes}  [{seconds:.3} s, {:.1} Mnodes/s]",
            nodes as f64 / seconds / 1e6
        );
    }
}
