//! Every game's perft table (`tests/rules/perft.json`, counts that an independent implementation agreed on)
//! against the engine's bulk counts; one test a game, so that they run side by side.

mod perft_table;

use perft_table::tables;
use referee_core::registry::GameKind;

fn check_tables_of(game: &str) {
    let tables: Vec<_> = tables()
        .into_iter()
        .filter(|table| table.game == game)
        .collect();
    assert!(!tables.is_empty(), "{game} has no perft table");
    for table in tables {
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
fn iago_tables() {
    check_tables_of("iago");
}

#[test]
fn isaac_tables() {
    check_tables_of("isaac");
}

#[test]
fn hypnosia_tables() {
    check_tables_of("hypnosia");
}

#[test]
fn caesar_tables() {
    check_tables_of("caesar");
}

#[test]
fn every_table_is_of_a_game_of_this_build() {
    for table in tables() {
        assert!(
            GameKind::named(&table.game).is_some(),
            "{}: no such game",
            table.game
        );
    }
    // A game added to the registry needs its tables and its test above.
    assert_eq!(GameKind::names(), ["iago", "isaac", "hypnosia", "caesar"]);
}
