//! `cargo run --release --example perft_isaac -- DEPTH [POSITION]`: Isaac perft from the empty board
//! or a position string (default setup).

use std::time::Instant;

use referee_core::isaac::{Isaac, Setup};
use referee_core::Rules;

fn main() {
    let mut args = std::env::args().skip(1);
    let depth: u32 = args.next().and_then(|d| d.parse().ok()).unwrap_or(3);
    let setup = Setup::default();
    let position = match args.next() {
        Some(text) => Isaac::parse_position(&text, &setup).unwrap_or_else(|e| panic!("{e}")),
        None => Isaac::start(&setup, None),
    };
    for d in 1..=depth {
        let started = Instant::now();
        let nodes = Isaac::perft(&position, d);
        let seconds = started.elapsed().as_secs_f64();
        println!(
            "perft({d}) = {nodes}  [{seconds:.3} s, {:.1} Mnodes/s]",
            nodes as f64 / seconds / 1e6
        );
    }
}
