//! `cargo run --release --example hypnosia_perft -- DEPTH [POSITION]`: Hypnosia perft (chance as the
//! 21 distinct rolls) from the default two-player start (red first) or a position of that setup.

use std::time::Instant;

use referee_core::hypnosia::{Hypnosia, Options, Setup};
use referee_core::Rules;

fn main() {
    let mut args = std::env::args().skip(1);
    let depth: u32 = args.next().and_then(|d| d.parse().ok()).unwrap_or(3);
    let setup = Hypnosia::check_setup(Setup::new(Options {
        first_player: Some("red".into()),
        ..Options::default()
    }))
    .unwrap_or_else(|e| panic!("{e}"));
    let position = match args.next() {
        Some(text) => Hypnosia::parse_position(&text, &setup).unwrap_or_else(|e| panic!("{e}")),
        None => Hypnosia::start(&setup, Some(0)),
    };
    for d in 1..=depth {
        let started = Instant::now();
        let nodes = Hypnosia::perft(&position, d);
        let seconds = started.elapsed().as_secs_f64();
        println!(
            "perft({d}) = {nodes}  [{seconds:.3} s, {:.1} Mnodes/s]",
            nodes as f64 / seconds / 1e6
        );
    }
}
