//! What a report shows of an archive (`referee validate --report`), counted from the results as the
//! records are replayed, so that a report never keeps every result: its size is bounded whatever the
//! archive's length (histograms by value, and a few records of each list).

use std::borrow::Cow;
use std::cmp::Reverse;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::claims::ClaimVerdict;
use crate::error::Error;
use crate::game::Status;
use crate::registry::GameKind;
use crate::result::{RecordResult, Verdict};

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

/// What a list notes of every result: `record`, and `id` and `game` when it has them.
fn noted(result: &RecordResult) -> Map<String, Value> {
    let mut noted = Map::new();
    noted.insert("record".into(), result.record.into());
    if let Some(id) = &result.id {
        noted.insert("id".into(), id.clone());
    }
    if let Some(game) = &result.game {
        noted.insert("game".into(), game.as_str().into());
    }
    noted
}

fn record_number(noted: &Value) -> u64 {
    noted["record"].as_u64().unwrap_or(u64::MAX)
}

fn micros(noted: &Value) -> u64 {
    noted["micros"].as_u64().unwrap_or(0)
}

/// The refusal's code, or `code/rule` for an illegal move (which names its rule).
fn refusal_key(error: &Error) -> Cow<'static, str> {
    match error {
        Error::IllegalMove { rule, .. } => format!("{}/{rule}", error.code()).into(),
        _ => error.code().into(),
    }
}

impl Tally {
    /// Counts one result, judged in `micros`.
    pub fn add(&mut self, result: &RecordResult, micros: u64) {
        self.note_slow(result, micros);
        let game = (result.game.as_deref()).filter(|name| GameKind::named(name).is_some());
        let mut by_game = game.map(|name| game_tally(&mut self.games, name));
        if let Some(error) = &result.error {
            count(&mut self.errors, error.code(), 1);
            if let Some(tally) = by_game.as_mut() {
                tally.records += 1;
                tally.errors += 1;
            }
            let mut refused = noted(result);
            refused.insert("error".into(), error.reason());
            note_first(&mut self.refused, refused.into());
            return;
        }
        let tally = by_game.expect("a replayed record names its game");
        let verdict = result
            .verdict
            .as_ref()
            .expect("a replayed record has a verdict");
        tally.add(verdict, result.claim.as_ref());
        if let Some((ply, played, error)) = &verdict.failure {
            count(&mut self.refusals, &refusal_key(error), 1);
            let mut refused = noted(result);
            refused.insert("ply".into(), (*ply).into());
            refused.insert("move".into(), played.as_str().into());
            refused.insert("reason".into(), error.reason());
            note_first(&mut self.refused, refused.into());
        }
        if let Some(ClaimVerdict::Disagrees(reason)) = &result.claim {
            count(&mut self.claim_reasons, reason.code.code(), 1);
            let mut disputed = noted(result);
            disputed.insert("claim_reason".into(), reason.as_json().clone());
            note_first(&mut self.disputed, disputed.into());
        }
    }

    /// Notes a record among the slowest if it is one: put in its place (no sort a record).
    fn note_slow(&mut self, result: &RecordResult, micros: u64) {
        let record = result.record as u64;
        let at = self
            .slowest
            .partition_point(|noted| slowness(noted) <= (Reverse(micros), record));
        if at >= NOTED {
            return;
        }
        let mut slow = noted(result);
        if let Some(verdict) = &result.verdict {
            slow.insert("legal".into(), verdict.legal.into());
            slow.insert("plies".into(), verdict.plies.into());
        }
        if let Some(error) = &result.error {
            slow.insert("error".into(), error.reason());
        }
        slow.insert("micros".into(), micros.into());
        self.slowest.insert(at, slow.into());
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
    fn add(&mut self, verdict: &Verdict, claim: Option<&ClaimVerdict>) {
        self.records += 1;
        if let Some(claim) = claim {
            count(&mut self.claims, claim.name(), 1);
        }
        if !verdict.legal {
            self.illegal += 1;
            return;
        }
        self.legal += 1;
        *self.plies.entry(verdict.plies as u64).or_default() += 1;
        let outcome = &verdict.outcome;
        if outcome.status != Status::Finished {
            return;
        }
        self.finished += 1;
        count(&mut self.winners, outcome.winner.unwrap_or(NO_WINNER), 1);
        count(
            &mut self.decided_by,
            outcome.decided_by.unwrap_or(NO_WINNER),
            1,
        );
        for (&player, &score) in &outcome.scores {
            if !self.scores.contains_key(player) {
                self.scores.insert(player.to_owned(), BTreeMap::new());
            }
            let scores = self.scores.get_mut(player).expect("inserted");
            *scores.entry(score).or_default() += 1;
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
    use crate::claims::{ClaimCode, ClaimReason};
    use crate::game::Outcome;

    /// An Iago record's result: its verdict (`failure`: its first illegal ply) and claim.
    fn replayed(
        record: usize,
        plies: usize,
        winner: Option<&'static str>,
        failure: Option<(usize, String, Error)>,
        claim: ClaimVerdict,
    ) -> RecordResult {
        let outcome = Outcome {
            status: if winner.is_some() {
                Status::Finished
            } else {
                Status::Ongoing
            },
            to_move: None,
            scores: BTreeMap::from([("black", 10), ("white", 8)]),
            winner,
            decided_by: winner.map(|_| "score"),
            ranking: None,
        };
        let verdict = Verdict {
            legal: failure.is_none(),
            plies,
            outcome,
            position: String::new(),
            failure,
        };
        RecordResult {
            record,
            game: Some("iago".into()),
            verdict: Some(verdict),
            claim: Some(claim),
            ..RecordResult::default()
        }
    }

    fn finished(record: usize, winner: &'static str, plies: usize) -> RecordResult {
        replayed(record, plies, Some(winner), None, ClaimVerdict::Agrees)
    }

    #[test]
    fn a_tally_counts_by_game_and_merges_as_one() {
        let results = [
            finished(1, "black", 40),
            finished(2, "white", 40),
            replayed(
                3,
                2,
                None,
                Some((
                    2,
                    "e5".into(),
                    Error::illegal_move("centre", "x", Value::Null),
                )),
                ClaimVerdict::Absent,
            ),
            RecordResult {
                record: 4,
                error: Some(Error::malformed_record("y")),
                ..RecordResult::default()
            },
            replayed(
                5,
                9,
                None,
                None,
                ClaimVerdict::Disagrees(ClaimReason::new(
                    ClaimCode::NotOver,
                    "z".into(),
                    Value::Null,
                )),
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
            let reason = Error::malformed_move("x");
            let failed = replayed(
                record,
                0,
                None,
                Some((0, "x".into(), reason)),
                ClaimVerdict::Absent,
            );
            tally.add(&failed, record as u64);
        }
        assert_eq!(tally.refused.len(), NOTED);
        assert_eq!(tally.slowest.len(), NOTED);
        assert_eq!(micros(&tally.slowest[0]), 199);
        assert_eq!(tally.refusals["malformed-move"], 200);
    }
}
