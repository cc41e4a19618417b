//! Every game's perft table (`tests/rules/perft.json`, counts that an independent implementation agreed on)
//! against the engine's bulk counts, for every game of the list (`games!`, a thread a game so that they run
//! side by side); a game without a table fails.

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

/// Every game of the list (`games!`), a thread a game so that they run side by side: a game added
/// without a perft table fails here by name.
#[test]
fn every_games_tables() {
    std::thread::scope(|scope| {
        for name in GameKind::names() {
            scope.spawn(move || check_tables_of(name));
        }
    });
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
}
