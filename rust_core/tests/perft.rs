//! Every game's perft table (`tests/perft.json`, counts that an independent implementation agreed on)
//! against the engine's bulk counts.

mod perft_table;

use perft_table::tables;
use referee_core::registry::GameKind;

#[test]
fn every_table_matches_the_engine() {
    for table in tables() {
        for (&depth, &count) in &table.counts {
            assert_eq!(
                table.engine_count(None, depth),
                count,
                "{} {} perft({depth}), agreed by {}",
                table.game,
                table.name,
                table.agreed_by
            );
        }
    }
}

#[test]
fn every_game_has_a_table() {
    let tables = tables();
    for game in GameKind::names() {
        assert!(tables.iter().any(|table| table.game == game), "{game} has no perft table");
    }
}
