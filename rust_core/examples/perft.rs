//! `cargo run --release --example perft -- GAME [DEPTH] [POSITION]`: perft of any game, from the start
//! of its first table in `tests/rules/perft.json` (setup and seed) or from a position of that setup, with
//! the table's count where it has one.

use std::time::Instant;

#[path = "../tests/perft_table/mod.rs"]
mod perft_table;

fn main() {
    let mut args = std::env::args().skip(1);
    let game = args.next().unwrap_or_else(|| "iago".into());
    let depth: u32 = args.next().and_then(|d| d.parse().ok()).unwrap_or(3);
    let position = args.next();
    let table = perft_table::tables()
        .into_iter()
        .find(|table| table.game == game)
        .unwrap_or_else(|| panic!("no perft table of {game:?}"));
    println!("{game}: {} (agreed by {})", table.name, table.agreed_by);
    for d in 1..=depth {
        let started = Instant::now();
        let nodes = table.engine_count(position.as_deref(), d);
        let seconds = started.elapsed().as_secs_f64();
        let expected = match (position.as_ref(), table.counts.get(&d)) {
            (None, Some(&count)) if count == nodes => "  (the table's)".to_string(),
            (None, Some(&count)) => format!("  (the table says {count}!)"),
            _ => String::new(),
        };
        println!(
            "perft({d}) = {nodes}{expected}  [{seconds:.3} s, {:.1} Mnodes/s]",
            nodes as f64 / seconds / 1e6
        );
    }
}
