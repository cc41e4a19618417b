//! The perft tables of every game, `tests/rules/perft.json` (the Python tests read the same file), and how
//! the engine counts one: shared by the perft test and the perft example.

use std::collections::BTreeMap;

use referee_core::registry::GameKind;
use referee_core::{with_game, Rules};
use serde::Deserialize;
use serde_json::Value;

const PERFT_JSON: &str = include_str!("../../../tests/rules/perft.json");

#[derive(Deserialize)]
struct PerftFile {
    tables: Vec<PerftTable>,
}

/// Counts from the start of one setup: depth → number of move sequences.
#[derive(Deserialize)]
pub struct PerftTable {
    pub game: String,
    pub name: String,
    /// A request's `{"variant"?, "options"?}`.
    pub setup: Value,
    /// What the start draws from, in games with chance.
    pub seed: Option<u64>,
    pub counts: BTreeMap<u32, u64>,
    pub agreed_by: String,
}

pub fn tables() -> Vec<PerftTable> {
    let file: PerftFile =
        serde_json::from_str(PERFT_JSON).expect("tests/rules/perft.json is a perft file");
    file.tables
}

impl PerftTable {
    /// The engine's count at `depth` from this table's start, or from `position` (notation) read
    /// with this table's setup.
    pub fn engine_count(&self, position: Option<&str>, depth: u32) -> u64 {
        let kind =
            GameKind::named(&self.game).unwrap_or_else(|| panic!("{}: no such game", self.game));
        with_game!(kind, G => G::perft(&self.start::<G>(position), depth))
    }

    fn start<G: Rules>(&self, position: Option<&str>) -> G::Position {
        let setup: G::Setup = serde_json::from_value(self.setup.clone())
            .unwrap_or_else(|e| panic!("{}: {e}", self.name));
        let setup = G::check_setup(setup).unwrap_or_else(|e| panic!("{}: {e}", self.name));
        match position {
            Some(text) => {
                G::parse_position(text, &setup, None).unwrap_or_else(|e| panic!("{text}: {e}"))
            }
            None => G::start(&setup, self.seed, None),
        }
    }
}
