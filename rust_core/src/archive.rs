//! Archives: game records (NDJSON, one record a line) replayed in parallel, one result a record.
//!
//! A record is `{"game", "variant"?, "options"?, "seed"?, "moves", "id"?}` with, optionally, what it
//! claims about how its game ended (`result`, `termination`, `by`: see `claims`); any other field is
//! the archive's own (who played, when, where) and passes unread, unless `keep` names it.

use std::borrow::Cow;
use std::time::Instant;

use rayon::prelude::*;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

use crate::batch::lines;
use crate::claims::{self, Claim, ClaimVerdict};
use crate::decisions::{self, Decisions, Node};
use crate::error::Error;
use crate::game::{self, Rules};
use crate::json::{once, CheckedAny};
use crate::registry::GameKind;
use crate::result::{RecordResult, Verdict};
use crate::rows::{Plies, Rows};
use crate::tally::Tally;

/// A record's fields as its text gives them, read in one pass (`RecordSeed`): the fields a replay
/// reads kept as their text (typed by the reader that uses them: `Record::typed` for archives, the
/// service's `replay` with its envelope's wording), the fields `keep` names as values, every other
/// field read through (its JSON checked) and dropped. The HTTP route and `referee validate` read
/// records with this one reader, after the one rule on keys given twice (`json::fault`).
#[derive(Default)]
pub(crate) struct RawRecord<'a> {
    pub game: Option<&'a RawValue>,
    pub variant: Option<&'a RawValue>,
    pub options: Option<&'a RawValue>,
    pub seed: Option<&'a RawValue>,
    pub moves: Option<&'a RawValue>,
    pub id: Option<&'a RawValue>,
    pub result: Option<&'a RawValue>,
    pub termination: Option<&'a RawValue>,
    pub by: Option<&'a RawValue>,
    /// The record's commitments, read when asked for (the service's `replay` checks their shape;
    /// in an archive they are a field of its own).
    pub commitments: Option<&'a RawValue>,
    pub kept: Vec<(String, Value)>,
}

impl<'a> RawRecord<'a> {
    /// The record of a JSON text, with its `commitments` when asked for: `Err` when it is not JSON (or
    /// has a key twice: `json::fault`), or not an object.
    pub(crate) fn read(
        text: &'a [u8],
        keep: &[String],
        commitments: bool,
    ) -> Result<RawRecord<'a>, String> {
        let text = std::str::from_utf8(text).map_err(|e| e.to_string())?;
        if let Some(fault) = crate::json::fault(text) {
            return Err(fault);
        }
        let mut deserializer = serde_json::Deserializer::from_str(text);
        RecordSeed { keep, commitments }
            .deserialize(&mut deserializer)
            .and_then(|record| deserializer.end().map(|()| record))
            .map_err(|error| error.to_string())
    }
}

/// A field of a record as its type, `None` when absent or null.
/// `Err` names the field and says what is wrong with it.
fn typed<'a, T: Deserialize<'a>>(
    raw: Option<&'a RawValue>,
    name: &str,
) -> Result<Option<T>, String> {
    match raw {
        None => Ok(None),
        Some(raw) => serde_json::from_str::<Option<T>>(raw.get())
            .map_err(|error| format!("{name}: {}", field_error(error))),
    }
}

/// A field kept as its text for another reader, `None` when absent or null; `Err` when it is not
/// JSON in full (a raw value is skipped over, its numbers and escapes unread).
fn as_text<'a>(raw: Option<&'a RawValue>, name: &str) -> Result<Option<&'a RawValue>, String> {
    match raw.filter(|raw| raw.get() != "null") {
        Some(raw) => serde_json::from_str::<CheckedAny>(raw.get())
            .map(|_| Some(raw))
            .map_err(|error| format!("{name}: {}", field_error(error))),
        None => Ok(None),
    }
}

/// serde's words about a field's value, without their place in its text (which is not the record's).
pub(crate) fn field_error(error: serde_json::Error) -> String {
    let place = format!(" at line {} column {}", error.line(), error.column());
    let message = error.to_string();
    message.strip_suffix(&place).unwrap_or(&message).to_owned()
}

/// One game record of an archive: which game, its setup, the moves played, its claim, and the
/// fields to keep.
struct Record<'a> {
    game: String,
    variant: Option<&'a RawValue>,
    options: Option<&'a RawValue>,
    seed: Option<u64>,
    moves: Vec<String>,
    id: Option<Value>,
    claim: Claim,
    kept: Vec<(String, Value)>,
}

impl<'a> Record<'a> {
    /// The record of an archive's line, its fields typed (`Err`: why it is no record).
    fn typed(raw: RawRecord<'a>) -> Result<Record<'a>, String> {
        Ok(Record {
            game: typed(raw.game, "game")?.ok_or("missing field `game`")?,
            variant: as_text(raw.variant, "variant")?,
            options: as_text(raw.options, "options")?,
            seed: typed(raw.seed, "seed")?,
            moves: typed(raw.moves, "moves")?.ok_or("missing field `moves`")?,
            id: typed(raw.id, "id")?,
            claim: Claim {
                result: typed(raw.result, "result")?,
                termination: typed(raw.termination, "termination")?,
                by: typed(raw.by, "by")?,
            },
            kept: raw.kept,
        })
    }
}

/// Reads a `RawRecord`, keeping the fields `keep` names, and `commitments` when asked for.
struct RecordSeed<'k> {
    keep: &'k [String],
    commitments: bool,
}

impl<'de> DeserializeSeed<'de> for RecordSeed<'_> {
    type Value = RawRecord<'de>;

    fn deserialize<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<RawRecord<'de>, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for RecordSeed<'_> {
    type Value = RawRecord<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a record: {\"game\", \"moves\", ...}")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<RawRecord<'de>, M::Error> {
        let mut record = RawRecord::default();
        while let Some(Key(key)) = map.next_key()? {
            let slot = match key.as_ref() {
                b"game" => Some((&mut record.game, "game")),
                b"variant" => Some((&mut record.variant, "variant")),
                b"options" => Some((&mut record.options, "options")),
                b"seed" => Some((&mut record.seed, "seed")),
                b"moves" => Some((&mut record.moves, "moves")),
                b"id" => Some((&mut record.id, "id")),
                b"result" => Some((&mut record.result, "result")),
                b"termination" => Some((&mut record.termination, "termination")),
                b"by" => Some((&mut record.by, "by")),
                b"commitments" if self.commitments => {
                    Some((&mut record.commitments, "commitments"))
                }
                _ => None,
            };
            if let Some((slot, name)) = slot {
                once(slot, name, &mut map)?;
                continue;
            }
            match self
                .keep
                .iter()
                .find(|keep| keep.as_bytes() == key.as_ref())
            {
                Some(keep) if record.kept.iter().any(|(field, _)| field == keep) => {
                    return Err(de::Error::custom(format!("duplicate field `{keep}`")));
                }
                Some(keep) => record.kept.push((keep.clone(), map.next_value()?)),
                None => {
                    map.next_value::<CheckedAny>()?;
                }
            }
        }
        Ok(record)
    }
}

/// A field's name as its bytes, borrowed from the line unless it has escapes: matched against the
/// names read without checking it as UTF-8 first (a record's many other fields are skipped, their
/// names as their values; a kept name is checked when it is kept).
struct Key<'de>(Cow<'de, [u8]>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a field name")
            }
            fn visit_borrowed_bytes<E: de::Error>(self, name: &'de [u8]) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(name)))
            }
            fn visit_bytes<E: de::Error>(self, name: &[u8]) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(name.to_owned())))
            }
        }
        deserializer.deserialize_bytes(KeyVisitor)
    }
}

/// The fields of every result; `keep` may not name one.
pub const RESULT_FIELDS: [&str; 14] = [
    "record",
    "id",
    "game",
    "legal",
    "plies",
    "position",
    "outcome",
    "ply",
    "move",
    "reason",
    "error",
    "claim",
    "claim_reason",
    "positions",
];

/// What a replay of records adds to each result beyond its verdict, and whether it tallies them.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Fields of each record copied into its result, unchanged (`--keep`).
    keep: Vec<String>,
    /// Every position of a legal record, from the start (`--positions`).
    positions: bool,
    /// Counts what a report shows (`--report`).
    tally: bool,
    /// A data set's rows instead of results (`--dataset`).
    dataset: bool,
    /// A record longer than this (bytes, its line end aside) is its own `malformed-record`, never
    /// parsed (`--max-record-bytes`); None: any length (the service bounds its bodies itself).
    max_record_bytes: Option<usize>,
}

impl Options {
    /// Refuses a field to keep that results already have (it would be overwritten, or overwrite).
    pub fn new(keep: Vec<String>, positions: bool, tally: bool) -> Result<Options, String> {
        if let Some(field) = keep.iter().find(|f| RESULT_FIELDS.contains(&f.as_str())) {
            return Err(format!(
                "{field:?} is a field of every result and cannot be kept (results have {})",
                RESULT_FIELDS.join(", ")
            ));
        }
        Ok(Options {
            keep,
            positions,
            tally,
            dataset: false,
            max_record_bytes: None,
        })
    }

    /// The same options, refusing unread a record longer than `max_record_bytes` (None: any length).
    pub fn bounded(self, max_record_bytes: Option<usize>) -> Options {
        Options {
            max_record_bytes,
            ..self
        }
    }

    /// A data set's rows (`Rows`) instead of results, and their tally when asked for.
    pub fn dataset(tally: bool) -> Options {
        Options {
            tally,
            dataset: true,
            ..Options::default()
        }
    }
}

/// How many records were legal, illegal or no record, and how their claims were judged.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub records: usize,
    pub legal: usize,
    pub illegal: usize,
    /// Lines that are not records a game can replay (not JSON, unknown game, bad options, ...).
    pub errors: usize,
    pub agrees: usize,
    pub disagrees: usize,
    /// Records that claim nothing.
    pub absent: usize,
}

impl Counts {
    fn add(&mut self, result: &RecordResult) {
        self.records += 1;
        match result.verdict.as_ref().map(|verdict| verdict.legal) {
            Some(true) => self.legal += 1,
            Some(false) => self.illegal += 1,
            None => self.errors += 1,
        }
        match result.claim {
            Some(ClaimVerdict::Agrees) => self.agrees += 1,
            Some(ClaimVerdict::Disagrees(_)) => self.disagrees += 1,
            Some(ClaimVerdict::Absent) => self.absent += 1,
            None => {}
        }
    }

    fn merge(&mut self, other: &Counts) {
        self.records += other.records;
        self.legal += other.legal;
        self.illegal += other.illegal;
        self.errors += other.errors;
        self.agrees += other.agrees;
        self.disagrees += other.disagrees;
        self.absent += other.absent;
    }
}

/// The results of an archive's records, as NDJSON (or a data set's rows instead), their counts, and
/// their tally when asked for.
#[derive(Debug, Default)]
pub struct RecordsOutput {
    pub ndjson: Vec<u8>,
    pub rows: Option<Rows>,
    pub counts: Counts,
    pub tally: Option<Tally>,
}

impl RecordsOutput {
    fn new(options: &Options) -> Self {
        RecordsOutput {
            tally: options.tally.then(Tally::default),
            rows: options.dataset.then(Rows::new),
            ..RecordsOutput::default()
        }
    }

    /// Replays one record and writes its result.
    fn add(&mut self, text: &[u8], number: usize, options: &Options) {
        let started = self.tally.is_some().then(Instant::now);
        let result = record_result(text, number, options);
        self.counts.add(&result);
        if let (Some(tally), Some(started)) = (&mut self.tally, started) {
            tally.add(&result, started.elapsed().as_micros() as u64);
        }
        match (&mut self.rows, &result.plies) {
            (Some(rows), Some(plies)) => {
                let game = result.game.as_deref().expect("a replayed record's game");
                rows.add(number, result.id.as_ref(), game, plies);
            }
            (Some(_), None) => {} // no row: an illegal record, a line no record
            (None, _) => {
                serde_json::to_writer(&mut self.ndjson, &result).expect("a JSON value serializes");
                self.ndjson.push(b'\n');
            }
        }
    }

    /// Appends the results of the records that follow.
    fn append(&mut self, next: RecordsOutput) {
        self.ndjson.extend_from_slice(&next.ndjson);
        if let (Some(rows), Some(more)) = (&mut self.rows, next.rows) {
            rows.append(more);
        }
        self.counts.merge(&next.counts);
        if let (Some(tally), Some(more)) = (&mut self.tally, next.tally) {
            tally.merge(more);
        }
    }
}

/// Records replayed by one parallel task (results written into one buffer, one tally).
const RECORDS_PER_TASK: usize = 64;

/// Replays game records (NDJSON, one record a line), in parallel; one result a line in input order,
/// numbered `record` from `first_record`. Every line gets a result: a line that is not a record
/// gets an error and the archive goes on.
pub fn replay_records(data: &[u8], first_record: usize, options: &Options) -> RecordsOutput {
    let lines = lines(data);
    let parts: Vec<RecordsOutput> = lines
        .par_chunks(RECORDS_PER_TASK)
        .enumerate()
        .map(|(task, chunk)| {
            let mut part = RecordsOutput::new(options);
            for (offset, &(_, text)) in chunk.iter().enumerate() {
                part.add(
                    text,
                    first_record + task * RECORDS_PER_TASK + offset,
                    options,
                );
            }
            part
        })
        .collect();
    let mut output = RecordsOutput::new(options);
    for part in parts {
        output.append(part);
    }
    output
}

/// One record's result: `record`, `id`, `game`, the kept fields, and the verdict (or `error`).
fn record_result(text: &[u8], number: usize, options: &Options) -> RecordResult {
    let mut result = RecordResult {
        record: number,
        ..RecordResult::default()
    };
    if let Some(max) = options.max_record_bytes.filter(|&max| text.len() > max) {
        // Checked before any parse: its text may be only the head of a longer line (`referee validate`
        // passes on at most the bound and two bytes of a line).
        let detail =
            format!("the record is longer than {max} bytes, the bound (--max-record-bytes)");
        result.error = Some(Error::malformed_record(detail));
        return result;
    }
    let read = RawRecord::read(text, &options.keep, false).and_then(Record::typed);
    let mut record = match read {
        Ok(record) => record,
        Err(detail) => return malformed(result, text, &options.keep, detail),
    };
    result.id = record.id.take();
    result.kept = std::mem::take(&mut record.kept).into_iter().collect();
    result.game = Some(record.game.clone());
    match GameKind::named(&record.game) {
        None => {
            result.error = Some(Error::unknown_game(&record.game, &GameKind::names()));
        }
        Some(kind) => {
            crate::with_game!(kind, G => replay_record::<G>(record, options, &mut result))
        }
    }
    result
}

/// The result of a line that is no record: its error, and, to help find it, the `id` and the fields
/// to keep of a JSON object (read again, everything else skipped).
fn malformed(
    mut result: RecordResult,
    text: &[u8],
    keep: &[String],
    detail: String,
) -> RecordResult {
    let mut deserializer = serde_json::Deserializer::from_slice(text);
    if let Ok((id, kept)) = Echo(keep).deserialize(&mut deserializer) {
        result.id = id;
        result.kept = kept.into_iter().collect();
    }
    result.error = Some(Error::malformed_record(detail));
    result
}

/// Reads the `id` and the fields named in its list from a JSON object, skipping the others.
struct Echo<'k>(&'k [String]);

impl<'de> DeserializeSeed<'de> for Echo<'_> {
    type Value = (Option<Value>, Vec<(String, Value)>);

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Echo<'_> {
    type Value = (Option<Value>, Vec<(String, Value)>);

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
        let (mut id, mut kept) = (None, Vec::new());
        while let Some(Key(key)) = map.next_key()? {
            if *key == *b"id" {
                id = Some(map.next_value()?);
            } else if let Some(name) = self.0.iter().find(|keep| keep.as_bytes() == &*key) {
                kept.push((name.clone(), map.next_value()?));
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok((id, kept))
    }
}

fn replay_record<G: Decisions>(record: Record, options: &Options, result: &mut RecordResult) {
    let setup = match checked_setup::<G>(record.variant, record.options) {
        Ok(setup) => setup,
        Err(error) => {
            result.error = Some(error);
            return;
        }
    };
    let mut plies = Plies::default();
    let replay = if options.positions || options.dataset {
        let watch = |position: &G::Position, reached: Option<(&G::Position, &str)>| {
            watch_ply::<G>(&mut plies, options.dataset, position, reached);
        };
        game::replay_watched::<G, _>(&setup, record.seed, None, &record.moves, watch)
    } else {
        game::replay::<G, _>(&setup, record.seed, None, &record.moves)
    };
    result.claim = Some(claims::judge(&record.claim, &replay));
    let returns = options
        .dataset
        .then(|| decisions::returns::<G>(&replay.position));
    let verdict = Verdict::of(replay, &record.moves);
    match returns {
        Some(returns) if verdict.legal => {
            plies.moves = record.moves;
            plies.returns = returns;
            result.plies = Some(plies);
        }
        None if verdict.legal && options.positions => result.positions = Some(plies.positions),
        _ => {} // an illegal record: no positions, no rows
    }
    result.verdict = Some(verdict);
}

/// Keeps a ply's position (`--positions`), and with a data set the player to move there and the action
/// id of the move that led there.
fn watch_ply<G: Decisions>(
    plies: &mut Plies,
    dataset: bool,
    position: &G::Position,
    reached: Option<(&G::Position, &str)>,
) {
    plies.positions.push(G::position_text(position));
    if dataset {
        plies.to_move.push(G::to_move(position));
        if let Some((before, mv)) = reached {
            plies.actions.push(one_decision::<G>(before, mv));
        }
    }
}

/// The action id of a move that is one decision of the game's action space (`decisions`): the id its
/// notation names, which, taken alone at the position before, completes that very move (the position
/// after is the replay's: a decision plays its move as `Rules` does). None when the move is several
/// decisions (or names none).
fn one_decision<G: Decisions>(before: &G::Position, mv: &str) -> Option<usize> {
    let action = G::action_of(before, mv).ok()?;
    let mut node = Node::new(before.clone());
    let completed = G::apply(&mut node, action).ok()?;
    let played = G::parse_move(mv).ok()?;
    (node.at_turn_start() && completed == Some(played)).then_some(action)
}

/// A record's setup, `{"variant"?, "options"?}` of its fields, read and checked as the game's: the one
/// reader of a record's setup (archives here, single records in `record`).
pub(crate) fn checked_setup<G: Rules>(
    variant: Option<&RawValue>,
    options: Option<&RawValue>,
) -> Result<game::CheckedSetup<G::Setup>, Error> {
    game::read_setup::<G>(&setup_text(variant, options))
}

/// A setup's JSON text, `{"variant"?, "options"?}`, of a record's fields.
fn setup_text(variant: Option<&RawValue>, options: Option<&RawValue>) -> String {
    let mut setup = String::from("{");
    for (name, value) in [("variant", variant), ("options", options)] {
        if let Some(value) = value {
            if setup.len() > 1 {
                setup.push(',');
            }
            setup.push_str(&format!("{name:?}:{}", value.get()));
        }
    }
    setup.push('}');
    setup
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::lines as lines_of;
    use crate::batch::tests::ndjson_values;

    fn plain() -> Options {
        Options::default()
    }

    #[test]
    fn records_replay_and_report_the_first_illegal_ply() {
        let input = b"{\"game\":\"iago\",\"moves\":[\"e4\"],\"id\":\"g1\"}\n\
            {\"game\":\"iago\",\"moves\":[\"e4\",\"e5\"]}\n\
            {\"game\":\"chess\",\"moves\":[]}\n\
            {\"game\":\"iago\",\"variant\":\"nope\",\"moves\":[]}\n\
            broken\n";
        let output = replay_records(input, 1, &plain());
        let counts = output.counts;
        assert_eq!((counts.legal, counts.illegal, counts.errors), (1, 1, 3));
        assert_eq!((counts.records, counts.absent), (5, 2));
        let results = ndjson_values(&output.ndjson);
        assert_eq!(results.len(), 5);
        assert_eq!(results[0]["record"], 1);
        assert_eq!(results[0]["id"], "g1");
        assert_eq!(results[0]["legal"], true);
        assert_eq!(results[0]["plies"], 1);
        assert_eq!(results[0]["claim"], "absent");
        assert_eq!(results[1]["legal"], false);
        assert_eq!(results[1]["ply"], 1);
        assert_eq!(results[1]["reason"]["code"], "illegal-move");
        assert_eq!(results[2]["error"]["code"], "unknown-game");
        assert_eq!(results[3]["error"]["code"], "invalid-options");
        assert_eq!(results[4]["error"]["code"], "malformed-record");
        assert!(output.tally.is_none());
    }

    #[test]
    fn metadata_passes_kept_fields_are_copied_and_a_malformed_claim_is_no_record() {
        let input = b"{\"game\":\"iago\",\"moves\":[\"e4\"],\"players\":[\"Ann\",\"Bob\"],\"date\":\"2026-11-01\"}\n\
            {\"game\":\"iago\",\"moves\":[\"e4\"],\"date\":1,\"date\":2}\n\
            {\"game\":\"iago\",\"moves\":[\"e4\"],\"termination\":\"resigned\",\"date\":\"x\"}\n\
            {\"game\":\"iago\",\"moves\":[\"e4\"],\"result\":\"1-0\"}\n";
        let keep = vec!["date".to_owned(), "round".to_owned()];
        let output = replay_records(input, 1, &Options::new(keep, false, false).unwrap());
        let results = ndjson_values(&output.ndjson);
        assert_eq!(results[0]["legal"], true);
        assert_eq!(results[0]["date"], "2026-11-01");
        assert!(results[0].get("players").is_none() && results[0].get("round").is_none());
        assert_eq!(results[1]["error"]["code"], "malformed-record");
        assert!(results[1]["error"]["detail"]
            .as_str()
            .unwrap()
            .contains("duplicate key at date"));
        let detail = results[2]["error"]["detail"].as_str().unwrap();
        assert!(detail.contains("unknown variant `resigned`"), "{detail}");
        assert_eq!(results[2]["date"], "x");
        assert_eq!(results[3]["error"]["code"], "malformed-record");
        let detail = results[3]["error"]["detail"].as_str().unwrap();
        assert!(
            detail.starts_with("result: invalid type: string \"1-0\""),
            "{detail}"
        );
        assert!(!detail.contains(" at line "), "{detail}");
        assert!(Options::new(vec!["outcome".into()], false, false).is_err());
    }

    #[test]
    fn a_key_twice_anywhere_in_a_record_makes_it_no_record() {
        // The one rule of every reader (`json::fault`), metadata included: as the service's replay.
        let input =
            b"{\"game\":\"iago\",\"moves\":[\"e4\"],\"meta\":{\"a\":[{\"b\":1,\"b\":2}]}}\n\
            {\"game\":\"iago\",\"moves\":[\"e4\"],\"meta\":\"\\ud800\"}\n\
            {\"game\":\"iago\",\"moves\":[\"e4\"],\"meta\":{\"a\":[{\"b\":1},{\"b\":2}]}}\n\
            {\"game\":\"iago\",\"moves\":[\"e4\"],\"id\":1e400}\n\
            {\"game\":\"iago\",\"moves\":[\"e4\"],\"options\":{\"penalty\":\"\\udc00\"}}\n";
        let results = ndjson_values(&replay_records(input, 1, &plain()).ndjson);
        assert_eq!(results[0]["error"]["code"], "malformed-record");
        assert_eq!(
            results[0]["error"]["detail"],
            "duplicate key at meta.a[0].b"
        );
        assert_eq!(results[1]["error"]["code"], "malformed-record");
        assert_eq!(results[2]["legal"], true);
        // Fields kept as text for later (the id, the setup) are JSON in full too, or no record.
        for (result, says) in [
            (&results[3], "id: number out of range"),
            (&results[4], "options: lone leading surrogate"),
        ] {
            assert_eq!(result["error"]["code"], "malformed-record", "{result}");
            assert!(
                result["error"]["detail"]
                    .as_str()
                    .unwrap()
                    .starts_with(says),
                "{result}"
            );
        }
    }

    #[test]
    fn a_record_longer_than_the_bound_is_its_own_error_unread() {
        // Not JSON past the bound (the head of a longer line): refused for its length, not parsed.
        let long = format!(
            "{{\"game\":\"iago\",\"moves\":[\"e4\"],\"id\":\"{}",
            "x".repeat(40)
        );
        let input = format!("{{\"game\":\"iago\",\"moves\":[\"e4\"]}}\n{long}\n{{\"game\":\"iago\",\"moves\":[\"e4\"]}}\r\n");
        let options = plain().bounded(Some(32));
        let output = replay_records(input.as_bytes(), 7, &options);
        let results = ndjson_values(&output.ndjson);
        assert_eq!(
            (results[0]["legal"].clone(), results[2]["legal"].clone()),
            (true.into(), true.into())
        );
        assert_eq!(results[1]["record"], 8);
        assert_eq!(results[1]["error"]["code"], "malformed-record");
        assert_eq!(
            results[1]["error"]["detail"],
            "the record is longer than 32 bytes, the bound (--max-record-bytes)"
        );
        assert!(results[1].get("id").is_none());
        assert_eq!((output.counts.records, output.counts.errors), (3, 1));
        let unbounded = ndjson_values(&replay_records(input.as_bytes(), 7, &plain()).ndjson);
        assert!(unbounded[1]["error"]["detail"]
            .as_str()
            .unwrap()
            .contains("EOF"));
    }

    #[test]
    fn positions_are_the_start_and_every_ply() {
        let input = b"{\"game\":\"iago\",\"moves\":[\"e4\",\"e6\"]}\n{\"game\":\"iago\",\"moves\":[\"e4\",\"e5\"]}\n";
        let output = replay_records(input, 1, &Options::new(Vec::new(), true, false).unwrap());
        let results = ndjson_values(&output.ndjson);
        let positions = results[0]["positions"].as_array().unwrap();
        assert_eq!(positions.len(), 3);
        assert_eq!(positions[2], results[0]["position"]);
        assert!(
            results[1].get("positions").is_none(),
            "an illegal record has none"
        );
    }

    #[test]
    fn a_data_set_s_rows_are_the_legal_records_plies_the_same_however_tasks_cut_them() {
        // More records than a task replays (`RECORDS_PER_TASK`): the tasks' rows are appended, their
        // offsets and validity bits moved along, as one task would have written them.
        let lines = [
            "{\"game\":\"iago\",\"moves\":[\"e4\",\"e6\"],\"id\":\"a\"}",
            "{\"game\":\"iago\",\"moves\":[\"e4\",\"e5\"]}",
            "{\"game\":\"hypnosia\",\"seed\":3,\"moves\":[\"roll\"],\"id\":7}",
            "broken",
        ];
        let input: String = (0..70).map(|i| format!("{}\n", lines[i % 4])).collect();
        let options = Options::dataset(false);
        let output = replay_records(input.as_bytes(), 1, &options);
        let mut one_task = RecordsOutput::new(&options);
        for (number, &(_, text)) in lines_of(input.as_bytes()).iter().enumerate() {
            one_task.add(text, number + 1, &options);
        }
        let rows = output.rows.expect("rows");
        assert_eq!(Some(&rows), one_task.rows.as_ref());
        assert!(output.ndjson.is_empty());
        assert_eq!((output.counts.legal, output.counts.records), (18 + 17, 70));
        assert_eq!(rows.rows, 18 * 3 + 17 * 2); // a legal record of n moves: n + 1 rows
        assert_eq!(rows.id.validity.nulls, 0);
        assert_eq!(rows.moves.validity.nulls, 18 + 17); // the starts
        assert_eq!(rows.returns_offsets.len(), 4 * (rows.rows + 1));
    }
}
