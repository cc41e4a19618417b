//! What a report shows of an archive (`referee validate --report`), counted from the results as the
//! records are replayed, so that a report never keeps every result: its size is bounded whatever the
//! archive's length (histograms by value, and a few records of each list).

use std::cmp::Reverse;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::registry::GameKind;

/// Records kept in each list of a tally.
pub const NOTED: usize = 20;

/// An archive's results, counted.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tally {
    /// Illegal records by the reason of their first illegal ply: its code, and the rule of an
    /// illegal move (`illegal-move/forced-capture`).
    pub refusals: BTreeMap<String, u64>,
    /// Lines that are no record, by their error's code.
    pub errors: BTreeMap<String, u64>,
    /// Claims that disagree, by their reason's code.
    pub claim_reasons: BTreeMap<String, u64>,
    /// What each game's records came to, by game.
    pub games: BTreeMap<String, GameTally>,
    /// The slowest records to judge, slowest first: `{record, id?, game?, micros, ...}`.
    pub slowest: Vec<Value>,
    /// The first illegal records and lines that are no record, in record order:
    /// `{record, id?, game, ply, move, reason}` or `{record, id?, game?, error}`.
    pub refused: Vec<Value>,
    /// The first records whose claim disagrees, in record order: `{record, id?, game, claim_reason}`.
    pub disputed: Vec<Value>,
}

/// What one game's records came to.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameTally {
    pub records: u64,
    pub legal: u64,
    pub illegal: u64,
    /// Records of the game that are no record it can replay (bad options).
    pub errors: u64,
    /// Legal records by their number of plies.
    pub plies: BTreeMap<u64, u64>,
    /// Legal records whose game is over.
    pub finished: u64,
    /// Finished games by winner (`none`: no winner, a shared first rank).
    pub winners: BTreeMap<String, u64>,
    /// Finished games by what decided them (`outcome.decided_by`).
    pub decided_by: BTreeMap<String, u64>,
    /// Finished games' final scores, by player, then by score.
    pub scores: BTreeMap<String, BTreeMap<i64, u64>>,
    /// Records by their claim's verdict.
    pub claims: BTreeMap<String, u64>,
}

/// A game's tally, made the first time (no name copied for the others).
fn game_tally<'t>(games: &'t mut BTreeMap<String, GameTally>, name: &str) -> &'t mut GameTally {
    if !games.contains_key(name) {
        games.insert(name.to_owned(), GameTally::default());
    }
    games.get_mut(name).expect("inserted")
}

/// What a finished game without a winner counts as among the winners.
pub const NO_WINNER: &str = "none";

fn count(map: &mut BTreeMap<String, u64>, key: &str, by: u64) {
    if let Some(value) = map.get_mut(key) {
        *value += by;
    } else {
        map.insert(key.to_owned(), by);
    }
}

fn add_counts<K: Ord>(into: &mut BTreeMap<K, u64>, from: BTreeMap<K, u64>) {
    for (key, by) in from {
        *into.entry(key).or_default() += by;
    }
}

/// The fields of `result` named, as an object.
fn excerpt(result: &Map<String, Value>, fields: &[&str]) -> Value {
    let picked = fields
        .iter()
        .filter_map(|&field| Some((field.to_owned(), result.get(field)?.clone())));
    Value::Object(picked.collect())
}

fn record_number(noted: &Value) -> u64 {
    noted["record"].as_u64().unwrap_or(u64::MAX)
}

fn micros(noted: &Value) -> u64 {
    noted["micros"].as_u64().unwrap_or(0)
}

/// `code`, or `code/rule` for a reason that names its rule.
fn refusal_key(reason: &Value) -> String {
    let code = reason["code"].as_str().unwrap_or("unknown");
    match reason["rule"].as_str() {
        Some(rule) => format!("{code}/{rule}"),
        None => code.to_owned(),
    }
}

impl Tally {
    /// Counts one result, judged in `micros`.
    pub fn add(&mut self, result: &Map<String, Value>, micros: u64) {
        self.note_slow(result, micros);
        let game = result
            .get("game")
            .and_then(Value::as_str)
            .filter(|name| GameKind::named(name).is_some());
        let mut by_game = game.map(|name| game_tally(&mut self.games, name));
        if let Some(error) = result.get("error") {
            count(
                &mut self.errors,
                error["code"].as_str().unwrap_or("unknown"),
                1,
            );
            if let Some(tally) = by_game.as_mut() {
                tally.records += 1;
                tally.errors += 1;
            }
            note_first(
                &mut self.refused,
                excerpt(result, &["record", "id", "game", "error"]),
            );
            return;
        }
        let tally = by_game.expect("a replayed record names its game");
        tally.add(result);
        if let Some(reason) = result.get("reason") {
            count(&mut self.refusals, &refusal_key(reason), 1);
            let noted = excerpt(result, &["record", "id", "game", "ply", "move", "reason"]);
            note_first(&mut self.refused, noted);
        }
        if let Some(reason) = result.get("claim_reason") {
            count(
                &mut self.claim_reasons,
                reason["code"].as_str().unwrap_or("unknown"),
                1,
            );
            note_first(
                &mut self.disputed,
                excerpt(result, &["record", "id", "game", "claim_reason"]),
            );
        }
    }

    /// Notes a record among the slowest if it is one: put in its place (no sort a record).
    fn note_slow(&mut self, result: &Map<String, Value>, micros: u64) {
        let record = result
            .get("record")
            .and_then(Value::as_u64)
            .unwrap_or(u64::MAX);
        let at = self
            .slowest
            .partition_point(|noted| slowness(noted) <= (Reverse(micros), record));
        if at >= NOTED {
            return;
        }
        let mut noted = excerpt(result, &["record", "id", "game", "legal", "plies", "error"]);
        noted["micros"] = micros.into();
        self.slowest.insert(at, noted);
        self.slowest.truncate(NOTED);
    }

    /// Adds another tally's counts (of other records).
    pub fn merge(&mut self, other: Tally) {
        add_counts(&mut self.refusals, other.refusals);
        add_counts(&mut self.errors, other.errors);
        add_counts(&mut self.claim_reasons, other.claim_reasons);
        for (name, tally) in other.games {
            self.games.entry(name).or_default().merge(tally);
        }
        self.slowest.extend(other.slowest);
        keep_slowest(&mut self.slowest);
        for (mine, theirs) in [
            (&mut self.refused, other.refused),
            (&mut self.disputed, other.disputed),
        ] {
            mine.extend(theirs);
            mine.sort_by_key(record_number);
            mine.truncate(NOTED);
        }
    }
}

/// The order of the slowest: slowest first, the earlier record first among equals.
fn slowness(noted: &Value) -> (Reverse<u64>, u64) {
    (Reverse(micros(noted)), record_number(noted))
}

/// Keeps the `NOTED` slowest, in their order.
fn keep_slowest(slowest: &mut Vec<Value>) {
    slowest.sort_by_key(slowness);
    slowest.truncate(NOTED);
}

/// Notes a record in a list of the first ones (records are added in order within a tally).
fn note_first(list: &mut Vec<Value>, noted: Value) {
    if list.len() < NOTED {
        list.push(noted);
    }
}

impl GameTally {
    fn add(&mut self, result: &Map<String, Value>) {
        self.records += 1;
        if let Some(claim) = result.get("claim").and_then(Value::as_str) {
            count(&mut self.claims, claim, 1);
        }
        if result.get("legal") != Some(&Value::Bool(true)) {
            self.illegal += 1;
            return;
        }
        self.legal += 1;
        let plies = result.get("plies").and_then(Value::as_u64).unwrap_or(0);
        *self.plies.entry(plies).or_default() += 1;
        let outcome = &result["outcome"];
        if outcome["status"] != "finished" {
            return;
        }
        self.finished += 1;
        count(
            &mut self.winners,
            outcome["winner"].as_str().unwrap_or(NO_WINNER),
            1,
        );
        count(
            &mut self.decided_by,
            outcome["decided_by"].as_str().unwrap_or(NO_WINNER),
            1,
        );
        for (player, score) in outcome["scores"].as_object().into_iter().flatten() {
            if !self.scores.contains_key(player) {
                self.scores.insert(player.clone(), BTreeMap::new());
            }
            let scores = self.scores.get_mut(player).expect("inserted");
            *scores.entry(score.as_i64().unwrap_or(0)).or_default() += 1;
        }
    }

    fn merge(&mut self, other: GameTally) {
        self.records += other.records;
        self.legal += other.legal;
        self.illegal += other.illegal;
        self.errors += other.errors;
        add_counts(&mut self.plies, other.plies);
        self.finished += other.finished;
        add_counts(&mut self.winners, other.winners);
        add_counts(&mut self.decided_by, other.decided_by);
        for (player, scores) in other.scores {
            add_counts(self.scores.entry(player).or_default(), scores);
        }
        add_counts(&mut self.claims, other.claims);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn result(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    fn finished(record: u64, winner: &str, plies: u64) -> Map<String, Value> {
        result(
            json!({"record": record, "game": "iago", "legal": true, "plies": plies, "claim": "agrees",
            "outcome": {"status": "finished", "winner": winner, "decided_by": "score",
                        "scores": {"black": 10, "white": 8}}}),
        )
    }

    #[test]
    fn a_tally_counts_by_game_and_merges_as_one() {
        let results = [
            finished(1, "black", 40),
            finished(2, "white", 40),
            result(
                json!({"record": 3, "game": "iago", "legal": false, "plies": 2, "ply": 2, "move": "e5",
                "reason": {"code": "illegal-move", "rule": "centre", "detail": "x"}, "claim": "absent",
                "outcome": {"status": "ongoing"}}),
            ),
            result(json!({"record": 4, "error": {"code": "malformed-record", "detail": "y"}})),
            result(
                json!({"record": 5, "game": "iago", "legal": true, "plies": 9, "claim": "disagrees",
                "claim_reason": {"code": "claim-not-over", "detail": "z"}, "outcome": {"status": "ongoing"}}),
            ),
        ];
        let mut whole = Tally::default();
        let (mut first, mut second) = (Tally::default(), Tally::default());
        for (index, result) in results.iter().enumerate() {
            whole.add(result, index as u64 * 10);
            if index < 2 {
                first.add(result, index as u64 * 10)
            } else {
                second.add(result, index as u64 * 10)
            }
        }
        first.merge(second);
        assert_eq!(first, whole);
        let iago = &whole.games["iago"];
        assert_eq!(
            (iago.records, iago.legal, iago.illegal, iago.finished),
            (4, 3, 1, 2)
        );
        assert_eq!(iago.plies, BTreeMap::from([(9, 1), (40, 2)]));
        assert_eq!(iago.winners["black"], 1);
        assert_eq!(iago.scores["black"][&10], 2);
        assert_eq!(whole.refusals["illegal-move/centre"], 1);
        assert_eq!(whole.errors["malformed-record"], 1);
        assert_eq!(whole.claim_reasons["claim-not-over"], 1);
        assert_eq!(
            whole.refused.iter().map(record_number).collect::<Vec<_>>(),
            [3, 4]
        );
        assert_eq!(whole.slowest[0]["record"], 5);
        let text = serde_json::to_string(&whole).unwrap();
        assert_eq!(serde_json::from_str::<Tally>(&text).unwrap(), whole);
    }

    #[test]
    fn a_tally_keeps_a_bounded_number_of_records() {
        let mut tally = Tally::default();
        for record in 0..200 {
            let failed = result(
                json!({"record": record, "game": "iago", "legal": false, "plies": 0,
                "reason": {"code": "malformed-move", "detail": "x"}, "claim": "absent"}),
            );
            tally.add(&failed, record);
        }
        assert_eq!(tally.refused.len(), NOTED);
        assert_eq!(tally.slowest.len(), NOTED);
        assert_eq!(micros(&tally.slowest[0]), 199);
        assert_eq!(tally.refusals["malformed-move"], 200);
    }
}
