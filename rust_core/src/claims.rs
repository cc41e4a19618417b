//! What a game record claims about how its game ended (`result`, `termination`, `by`), judged
//! against what its moves show. Archives (`archive`, `referee validate`) and the replay route judge
//! claims here, and nowhere else.
//!
//! The rules, in the order they are checked (the first broken one is the verdict's reason):
//! 1. every player the claim names (`result.winner`, `by`, the keys of `result.scores`, the entries
//!    of `result.ranking`) is a player of the game (`claim-unknown-player`);
//! 2. the claim does not contradict itself (`claim-inconsistent`): a resignation or timeout names
//!    who (`by`), who does not win; no other end has a `by`; an abandoned game has no winner and no
//!    ranking; a ranking lists every player once, with the winner alone first (none: shared);
//! 3. a `normal` end (the default when a `result` is given) needs the game over after the moves
//!    (`claim-not-over`), every other end needs it not over (`claim-over`);
//! 4. every claimed field is what the moves show (`claim-mismatch`): scores are the scores as the
//!    moves leave them, whatever the end; after a normal end the winner and ranking are the
//!    engine's outcome; after a resignation or timeout the player who resigned (or ran out of time)
//!    ranks last, alone, and the others rank as the position stands (`Rules::standing`: with two
//!    players, the other one wins); an agreement's winner and ranking are the players' to agree.
//!
//! A record with an illegal ply makes no game for its claim to describe: its claim disagrees
//! (`claim-illegal-moves`).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::de::value::{MapAccessDeserializer, StrDeserializer};
use serde::de::{self, DeserializeOwned, IntoDeserializer, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{json, Map, Value};

use crate::error::codes;
use crate::game::{Outcome, Replay, Rules, Status};
use crate::nullable::Nullable;

/// A record's claim: its fields `result`, `termination` and `by` (all absent: no claim).
#[derive(Debug, Default, Deserialize)]
pub struct Claim {
    #[serde(default)]
    pub result: Option<ClaimedResult>,
    #[serde(default)]
    pub termination: Option<Termination>,
    #[serde(default)]
    pub by: Option<String>,
}

/// The result a record claims for its game.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct ClaimedResult {
    /// The winner: a player of the game, or null for none (Hypnosia's shared first rank; an
    /// agreement or an abandoned game without a winner). Required.
    #[serde(deserialize_with = "Option::deserialize")]
    #[schemars(with = "Nullable<String>")]
    pub winner: Option<String>,
    /// Every player's score as the moves leave the game, by player (the engine's `outcome.scores`).
    #[serde(default)]
    pub scores: Option<BTreeMap<String, Score>>,
    /// Hypnosia: the ranking, best first, tied players sharing an entry (in any order within it),
    /// as the engine's `outcome.ranking` reports it.
    #[serde(default)]
    pub ranking: Option<Vec<Vec<String>>>,
}

/// A result is read from a JSON object only (serde's derive would take one from an array of its
/// fields).
impl<'de> Deserialize<'de> for ClaimedResult {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ResultVisitor;
        impl<'de> Visitor<'de> for ResultVisitor {
            type Value = ClaimedResult;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a result: {\"winner\", \"scores\"?, \"ranking\"?}")
            }
            fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<ClaimedResult, M::Error> {
                ClaimedResult::deserialize(MapAccessDeserializer::new(map))
            }
        }
        deserializer.deserialize_map(ResultVisitor)
    }
}

/// A claimed score: a JSON integer as JSON Schema counts them (`3` and `3.0` alike), one a double
/// holds exactly (the engine's reader takes no other number).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Score(pub i64);

/// The largest magnitude of a claimed score: 2^53.
const SCORE_BOUND: i64 = 1 << 53;

impl JsonSchema for Score {
    fn schema_name() -> Cow<'static, str> {
        "Score".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "integer", "minimum": -SCORE_BOUND, "maximum": SCORE_BOUND})
    }
}

impl<'de> Deserialize<'de> for Score {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ScoreVisitor;
        impl Visitor<'_> for ScoreVisitor {
            type Value = Score;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "an integer score of -2^53 to 2^53")
            }
            fn visit_i64<E: de::Error>(self, value: i64) -> Result<Score, E> {
                match (-SCORE_BOUND..=SCORE_BOUND).contains(&value) {
                    true => Ok(Score(value)),
                    false => Err(E::invalid_value(de::Unexpected::Signed(value), &self)),
                }
            }
            fn visit_u64<E: de::Error>(self, value: u64) -> Result<Score, E> {
                match i64::try_from(value) {
                    Ok(value) => self.visit_i64(value),
                    Err(_) => Err(E::invalid_value(de::Unexpected::Unsigned(value), &self)),
                }
            }
            fn visit_f64<E: de::Error>(self, value: f64) -> Result<Score, E> {
                // Within the bound, a whole double converts exactly.
                match value.fract() == 0.0 && value.abs() <= SCORE_BOUND as f64 {
                    true => Ok(Score(value as i64)),
                    false => Err(E::invalid_value(de::Unexpected::Float(value), &self)),
                }
            }
        }
        deserializer.deserialize_any(ScoreVisitor)
    }
}

/// How a record says its game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(remote = "Self", rename_all = "lowercase")]
pub enum Termination {
    /// By the rules, with the last move: the game is over after the moves (the default when a
    /// `result` is given).
    Normal,
    /// The player `by` resigned: the game is not over after the moves.
    Resignation,
    /// The player `by` ran out of time: the game is not over after the moves.
    Timeout,
    /// The players agreed to end the game: it is not over after the moves.
    Agreement,
    /// The game was abandoned, without a result: it is not over after the moves.
    Abandoned,
}

/// A termination is read from a string only (serde would take a unit variant from `{"normal": null}`).
impl<'de> Deserialize<'de> for Termination {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NameVisitor;
        impl Visitor<'_> for NameVisitor {
            type Value = Termination;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a termination (a string)")
            }
            fn visit_str<E: de::Error>(self, name: &str) -> Result<Termination, E> {
                let name: StrDeserializer<E> = name.into_deserializer();
                Termination::deserialize(name)
            }
        }
        deserializer.deserialize_str(NameVisitor)
    }
}

/// The end with its article, for details: "a resignation", "an agreement".
impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            Termination::Normal => "a normal end",
            Termination::Resignation => "a resignation",
            Termination::Timeout => "a timeout",
            Termination::Agreement => "an agreement",
            Termination::Abandoned => "an abandoned game",
        })
    }
}

impl Termination {
    /// What the player `by` of a resignation or timeout did, for details.
    fn lost(self) -> &'static str {
        match self {
            Termination::Timeout => "ran out of time",
            _ => "resigned",
        }
    }
}

impl Claim {
    pub fn is_absent(&self) -> bool {
        self.result.is_none() && self.termination.is_none() && self.by.is_none()
    }

    /// The claim of a request's fields (`result`, `termination`, `by`; others are not the claim's),
    /// or the field at fault and why.
    pub fn from_fields(mut fields: Map<String, Value>) -> Result<Claim, (String, String)> {
        fn field<T: DeserializeOwned>(
            fields: &mut Map<String, Value>,
            name: &str,
        ) -> Result<Option<T>, (String, String)> {
            let value = fields.remove(name).unwrap_or(Value::Null);
            serde_json::from_value(value).map_err(|e| (name.to_owned(), e.to_string()))
        }
        Ok(Claim {
            result: field(&mut fields, "result")?,
            termination: field(&mut fields, "termination")?,
            by: field(&mut fields, "by")?,
        })
    }
}

/// The verdict on a claim: the result's `claim`, and its `claim_reason` when it disagrees.
#[derive(Debug, Clone, PartialEq)]
pub enum ClaimVerdict {
    Absent,
    Agrees,
    Disagrees(ClaimReason),
}

/// Why a claim disagrees with its moves: the rule it breaks (module documentation), in the order
/// the rules are checked. `referee.codes.CLAIM_CODES` (Python) words each code; a test holds
/// `ClaimCode::CODES` to that table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClaimCode {
    IllegalMoves,
    UnknownPlayer,
    Inconsistent,
    NotOver,
    Over,
    Mismatch,
}

codes! { ClaimCode {
    IllegalMoves => "claim-illegal-moves",
    UnknownPlayer => "claim-unknown-player",
    Inconsistent => "claim-inconsistent",
    NotOver => "claim-not-over",
    Over => "claim-over",
    Mismatch => "claim-mismatch",
} }

/// A claim's `claim_reason`: its code, typed for who counts them (`tally`), and the reason as it is
/// written (`code`, `detail` and the facts; made only for a claim that disagrees).
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimReason {
    pub code: ClaimCode,
    written: Value,
}

impl ClaimReason {
    /// A reason: its code, what is wrong, and the facts.
    pub(crate) fn new(code: ClaimCode, detail: String, facts: Value) -> ClaimReason {
        let mut written = json!({ "code": code.code(), "detail": detail });
        if let (Some(object), Value::Object(facts)) = (written.as_object_mut(), facts) {
            object.extend(facts);
        }
        ClaimReason { code, written }
    }

    /// The reason as it is written: `code`, `detail` and the facts.
    pub fn as_json(&self) -> &Value {
        &self.written
    }
}

impl Serialize for ClaimReason {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.written.serialize(serializer)
    }
}

impl ClaimVerdict {
    /// `agrees`, `disagrees` or `absent`, as results say it.
    pub fn name(&self) -> &'static str {
        match self {
            ClaimVerdict::Absent => "absent",
            ClaimVerdict::Agrees => "agrees",
            ClaimVerdict::Disagrees(_) => "disagrees",
        }
    }
}

/// Judges a record's claim against its replay.
pub fn judge<G: Rules>(claim: &Claim, replay: &Replay<G>) -> ClaimVerdict {
    if claim.is_absent() {
        return ClaimVerdict::Absent;
    }
    let judged = match &replay.failure {
        Some((ply, _)) => Err(ClaimReason::new(
            ClaimCode::IllegalMoves,
            format!("ply {ply} is illegal: the moves make no game for the claim to describe"),
            json!({ "ply": ply }),
        )),
        None => check::<G>(claim, &replay.position, &replay.outcome),
    };
    match judged {
        Ok(()) => ClaimVerdict::Agrees,
        Err(reason) => ClaimVerdict::Disagrees(reason),
    }
}

fn check<G: Rules>(
    claim: &Claim,
    position: &G::Position,
    outcome: &Outcome,
) -> Result<(), ClaimReason> {
    // Every player has a score, so the scores' keys are the players of this game.
    let players = &outcome.scores;
    let termination = claim.termination.unwrap_or(Termination::Normal);
    names_players(claim, players)?;
    consistent(claim, termination, players)?;
    let expected = expected::<G>(claim, termination, position, outcome)?;
    compare(claim, &expected, outcome)
}

fn inconsistent(field: &str, detail: String) -> ClaimReason {
    ClaimReason::new(ClaimCode::Inconsistent, detail, json!({ "field": field }))
}

/// The players of a game: its scores' keys.
type Players = BTreeMap<&'static str, i64>;

/// Rule 1: every name the claim gives is a player of the game.
fn names_players(claim: &Claim, players: &Players) -> Result<(), ClaimReason> {
    let unknown = |field: &'static str, name: &str| {
        let players: Vec<&str> = players.keys().copied().collect();
        ClaimReason::new(
            ClaimCode::UnknownPlayer,
            format!(
                "{field} names {name:?}, no player of this game ({})",
                players.join(", ")
            ),
            json!({ "field": field, "players": players }),
        )
    };
    let check = |field: &'static str, name: &str| match players.contains_key(name) {
        true => Ok(()),
        false => Err(unknown(field, name)),
    };
    if let Some(by) = &claim.by {
        check("by", by)?;
    }
    let Some(result) = &claim.result else {
        return Ok(());
    };
    if let Some(winner) = &result.winner {
        check("result.winner", winner)?;
    }
    for player in result.scores.iter().flat_map(BTreeMap::keys) {
        check("result.scores", player)?;
    }
    for player in result.ranking.iter().flatten().flatten() {
        check("result.ranking", player)?;
    }
    Ok(())
}

/// Rule 2: the claim does not contradict itself.
fn consistent(
    claim: &Claim,
    termination: Termination,
    players: &Players,
) -> Result<(), ClaimReason> {
    let winner = claim.result.as_ref().and_then(|r| r.winner.as_deref());
    match (termination, claim.by.as_deref()) {
        (Termination::Resignation | Termination::Timeout, None) => {
            return Err(inconsistent(
                "by",
                format!("{termination} names the player it ends for: `by` is missing"),
            ))
        }
        (Termination::Resignation | Termination::Timeout, Some(by)) if winner == Some(by) => {
            return Err(inconsistent(
                "result.winner",
                format!("{by} {} and cannot be the winner", termination.lost()),
            ))
        }
        (Termination::Resignation | Termination::Timeout, Some(_)) | (_, None) => {}
        (_, Some(_)) => {
            return Err(inconsistent(
                "by",
                format!("`by` names who resigned or ran out of time; {termination} has none"),
            ))
        }
    }
    let ranking = claim.result.as_ref().and_then(|r| r.ranking.as_ref());
    if termination == Termination::Abandoned {
        if winner.is_some() {
            return Err(inconsistent(
                "result.winner",
                "an abandoned game has no winner".into(),
            ));
        }
        if ranking.is_some() {
            return Err(inconsistent(
                "result.ranking",
                "an abandoned game has no ranking".into(),
            ));
        }
    }
    match ranking {
        Some(ranking) => ranking_is_whole(ranking, winner, players),
        None => Ok(()),
    }
}

/// A claimed ranking lists every player once, in ranks that are not empty, and puts the winner
/// first, alone (no winner: a shared first rank).
fn ranking_is_whole(
    ranking: &[Vec<String>],
    winner: Option<&str>,
    players: &Players,
) -> Result<(), ClaimReason> {
    let listed: Vec<&str> = ranking.iter().flatten().map(String::as_str).collect();
    let whole = listed.len() == players.len() && players.keys().all(|p| listed.contains(p));
    if !whole || ranking.iter().any(Vec::is_empty) {
        let players: Vec<&str> = players.keys().copied().collect();
        return Err(inconsistent(
            "result.ranking",
            format!(
                "a ranking lists every player once ({}), in ranks that are not empty",
                players.join(", ")
            ),
        ));
    }
    let first = match ranking[0].as_slice() {
        [alone] => Some(alone.as_str()),
        _ => None,
    };
    if first != winner {
        return Err(inconsistent(
            "result.winner",
            format!(
                "the claimed ranking puts {} first, so the winner is {}, not {}",
                ranking[0].join(" and "),
                first.unwrap_or("nobody"),
                winner.unwrap_or("nobody"),
            ),
        ));
    }
    Ok(())
}

/// What the moves say the claimed winner and ranking must be: `None` where the end leaves it to
/// the players (an agreement), else what it must equal (`Some(None)`: nothing may be claimed).
struct Expected {
    winner: Option<Option<&'static str>>,
    ranking: Option<Option<Vec<Vec<&'static str>>>>,
    /// Why, for the reason's detail.
    context: Context,
}

/// Why the claimed winner and ranking must be what they must, for a mismatch's detail (written only
/// then).
enum Context {
    /// The game's outcome, and what decided it.
    Outcome(Option<&'static str>),
    /// A player lost by resignation or timeout; `true`: the others rank as the position stands.
    Lost(&'static str, Termination, bool),
    /// A game that ranks no players.
    Unranked(&'static str),
    /// Nothing to compare.
    Free,
}

impl fmt::Display for Context {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Context::Outcome(decided_by) => write!(
                f,
                "the outcome after the moves, decided by {}",
                decided_by.unwrap_or("nothing")
            ),
            Context::Lost(by, termination, false) => write!(f, "{by} {}", termination.lost()),
            Context::Lost(by, termination, true) => write!(
                f,
                "{by} {} and ranks last; the others rank as the position stands",
                termination.lost()
            ),
            Context::Unranked(game) => write!(f, "{game} ranks no players"),
            Context::Free => Ok(()),
        }
    }
}

/// Rule 3 (the game over or not, as the end needs), and what rule 4 compares with.
fn expected<G: Rules>(
    claim: &Claim,
    termination: Termination,
    position: &G::Position,
    outcome: &Outcome,
) -> Result<Expected, ClaimReason> {
    let over = outcome.status == Status::Finished;
    match termination {
        Termination::Normal if !over => Err(ClaimReason::new(
            ClaimCode::NotOver,
            format!(
                "a normal end is claimed, but the game goes on after the moves: {} is to move",
                outcome.to_move.unwrap_or("nobody")
            ),
            json!({ "to_move": outcome.to_move }),
        )),
        Termination::Normal => Ok(Expected {
            winner: Some(outcome.winner),
            ranking: Some(outcome.ranking.clone()),
            context: Context::Outcome(outcome.decided_by),
        }),
        _ if over => Err(ClaimReason::new(
            ClaimCode::Over,
            format!(
                "{termination} is claimed, but the game was over after the moves: {} (decided by {})",
                outcome.winner.map_or("no winner".into(), |w| format!("{w} won")),
                outcome.decided_by.unwrap_or("nothing"),
            ),
            json!({ "winner": outcome.winner, "decided_by": outcome.decided_by }),
        )),
        Termination::Resignation | Termination::Timeout => {
            let by = claim.by.as_deref().expect("rule 2: a resignation names `by`");
            Ok(resigned::<G>(position, outcome, by, termination))
        }
        Termination::Agreement => Ok(Expected {
            winner: None,
            // An agreement settles who wins, never that a game without rankings has one.
            ranking: G::standing(position).is_none().then_some(None),
            context: Context::Unranked(G::NAME),
        }),
        Termination::Abandoned => Ok(Expected {
            winner: None,
            ranking: None,
            context: Context::Free,
        }),
    }
}

/// A game lost by `by` (resignation or timeout) where the moves stop: `by` ranks last, alone, the
/// others as the position stands; without standings (two players), the other player wins.
fn resigned<G: Rules>(
    position: &G::Position,
    outcome: &Outcome,
    by: &str,
    termination: Termination,
) -> Expected {
    let by: &'static str = outcome
        .scores
        .keys()
        .copied()
        .find(|&player| player == by)
        .expect("rule 1: `by` is a player");
    let Some(standing) = G::standing(position) else {
        let mut others = outcome.scores.keys().copied().filter(|&p| p != by);
        let winner = match (others.next(), others.next()) {
            (Some(other), None) => Some(other),
            _ => None,
        };
        return Expected {
            winner: Some(winner),
            ranking: Some(None),
            context: Context::Lost(by, termination, false),
        };
    };
    let mut ranking: Vec<Vec<&'static str>> = standing
        .into_iter()
        .map(|rank| rank.into_iter().filter(|&p| p != by).collect::<Vec<_>>())
        .filter(|rank| !rank.is_empty())
        .collect();
    let winner = match ranking.first().map(Vec::as_slice) {
        Some([alone]) => Some(*alone),
        _ => None,
    };
    ranking.push(vec![by]);
    Expected {
        winner: Some(winner),
        ranking: Some(Some(ranking)),
        context: Context::Lost(by, termination, true),
    }
}

/// Rule 4: every claimed field is what the moves show.
fn compare(claim: &Claim, expected: &Expected, outcome: &Outcome) -> Result<(), ClaimReason> {
    let Some(result) = &claim.result else {
        return Ok(());
    };
    let mismatch = |field: &str, claimed: Value, actual: Value, context: &dyn fmt::Display| {
        ClaimReason::new(
            ClaimCode::Mismatch,
            format!("{field}: the claim says {claimed}, the moves show {actual} ({context})"),
            json!({ "field": field, "claimed": claimed, "actual": actual }),
        )
    };
    if let Some(winner) = expected.winner {
        if result.winner.as_deref() != winner {
            return Err(mismatch(
                "result.winner",
                json!(result.winner),
                json!(winner),
                &expected.context,
            ));
        }
    }
    if let Some(scores) = &result.scores {
        let same = scores.len() == outcome.scores.len()
            && scores
                .iter()
                .all(|(player, score)| outcome.scores.get(player.as_str()) == Some(&score.0));
        if !same {
            return Err(mismatch(
                "result.scores",
                json!(scores),
                json!(outcome.scores),
                &"the scores as the moves leave them",
            ));
        }
    }
    if let (Some(claimed), Some(ranking)) = (&result.ranking, &expected.ranking) {
        if !same_ranking(claimed, ranking.as_deref()) {
            return Err(mismatch(
                "result.ranking",
                json!(claimed),
                json!(ranking),
                &expected.context,
            ));
        }
    }
    Ok(())
}

/// Rankings are equal when their ranks hold the same players, in any order within a rank.
fn same_ranking(claimed: &[Vec<String>], actual: Option<&[Vec<&str>]>) -> bool {
    let Some(actual) = actual else {
        return false;
    };
    claimed.len() == actual.len()
        && claimed.iter().zip(actual).all(|(claimed, actual)| {
            claimed.len() == actual.len() && claimed.iter().all(|p| actual.contains(&p.as_str()))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{default_setup, replay};
    use crate::hypnosia::Hypnosia;
    use crate::iago::Iago;

    /// The moves of a game that always plays the first legal move, to its end or `limit` plies.
    fn first_moves<G: Rules>(
        setup: &crate::game::CheckedSetup<G::Setup>,
        seed: u64,
        limit: usize,
    ) -> Vec<String> {
        let mut position = G::start(setup, Some(seed), None);
        let mut moves = Vec::new();
        while G::to_move(&position).is_some() && moves.len() < limit {
            let mv = G::legal_moves(&position).remove(0);
            moves.push(mv.to_string());
            position = G::play(&position, mv).expect("legal").0;
        }
        moves
    }

    fn claim(value: Value) -> Claim {
        serde_json::from_value(value).expect("a claim")
    }

    fn verdict<G: Rules>(moves: &[String], value: Value) -> ClaimVerdict {
        judge(
            &claim(value),
            &replay::<G, _>(&default_setup::<G>(), Some(1), None, moves),
        )
    }

    fn code(verdict: ClaimVerdict) -> String {
        match verdict {
            ClaimVerdict::Disagrees(reason) => reason.code.code().to_owned(),
            other => other.name().to_owned(),
        }
    }

    #[test]
    fn a_reason_is_written_with_its_code_once_a_code() {
        let codes: std::collections::BTreeSet<&str> = ClaimCode::CODES.iter().copied().collect();
        assert_eq!(codes.len(), ClaimCode::CODES.len());
        assert_eq!(ClaimCode::Mismatch.code(), "claim-mismatch");
        let reason = ClaimReason::new(ClaimCode::Over, "done".into(), json!({"winner": "black"}));
        let written = json!({"code": "claim-over", "detail": "done", "winner": "black"});
        assert_eq!(reason.as_json(), &written);
        assert_eq!(serde_json::to_value(&reason).unwrap(), written);
    }

    #[test]
    fn a_claim_is_read_from_its_own_shapes_only() {
        let refused = [
            (json!({"result": [null]}), "result"),
            (json!({"result": {}}), "result"),
            (
                json!({"result": {"winner": "black", "points": 3}}),
                "result",
            ),
            (
                json!({"result": {"winner": "black", "scores": {"black": 1.5}}}),
                "result",
            ),
            (json!({"termination": {"normal": null}}), "termination"),
            (json!({"termination": "resigned"}), "termination"),
            (json!({"by": 3}), "by"),
        ];
        for (fields, field) in refused {
            let fields = fields.as_object().unwrap().clone();
            assert_eq!(Claim::from_fields(fields).unwrap_err().0, field);
        }
        for (score, read) in [
            (json!(3.0), Some(3)),
            (json!(-7), Some(-7)),
            (json!(1u64 << 53), Some(1 << 53)),
            (json!(2.5), None),
            (json!(1u64 << 60), None),
            (json!(i64::MIN), None),
            (json!(1e300), None),
            (json!("3"), None),
        ] {
            let fields = json!({"result": {"winner": null, "scores": {"black": score}}});
            let claim = Claim::from_fields(fields.as_object().unwrap().clone());
            let scores = claim.ok().and_then(|c| c.result?.scores);
            assert_eq!(scores.map(|s| s["black"].0), read, "{score}");
        }
        let claim = json!({"result": {"winner": null}, "termination": "agreement", "other": 1});
        let claim = Claim::from_fields(claim.as_object().unwrap().clone()).unwrap();
        assert_eq!(claim.termination, Some(Termination::Agreement));
        assert!(claim.result.unwrap().winner.is_none() && claim.by.is_none());
    }

    #[test]
    fn a_normal_end_agrees_with_the_outcome_and_nothing_else() {
        let moves = first_moves::<Iago>(&default_setup::<Iago>(), 1, 100);
        let position = replay::<Iago, _>(&default_setup::<Iago>(), None, None, &moves).position;
        let outcome = Iago::outcome(&position);
        let winner = outcome.winner.unwrap();
        let loser = if winner == "black" { "white" } else { "black" };
        let right = json!({"result": {"winner": winner, "scores": outcome.scores}});
        assert_eq!(verdict::<Iago>(&moves, right), ClaimVerdict::Agrees);
        assert_eq!(verdict::<Iago>(&moves, json!({})), ClaimVerdict::Absent);
        let cases = [
            (json!({"result": {"winner": loser}}), "claim-mismatch"),
            (
                json!({"result": {"winner": winner, "scores": {"black": -1, "white": 0}}}),
                "claim-mismatch",
            ),
            (
                json!({"result": {"winner": winner, "ranking": [[winner], [loser]]}}),
                "claim-mismatch",
            ),
            (json!({"result": {"winner": "red"}}), "claim-unknown-player"),
            (
                json!({"termination": "resignation", "by": loser}),
                "claim-over",
            ),
            (
                json!({"termination": "normal", "by": loser}),
                "claim-inconsistent",
            ),
        ];
        for (value, expected) in cases {
            assert_eq!(
                code(verdict::<Iago>(&moves, value.clone())),
                expected,
                "{value}"
            );
        }
        let early = &moves[..moves.len() - 1];
        assert_eq!(
            code(verdict::<Iago>(
                early,
                json!({"result": {"winner": winner}})
            )),
            "claim-not-over"
        );
        let mut illegal = moves.clone();
        illegal.push("e5".into());
        assert_eq!(
            code(verdict::<Iago>(
                &illegal,
                json!({"termination": "agreement"})
            )),
            "claim-illegal-moves"
        );
    }

    #[test]
    fn a_resignation_gives_the_game_to_the_other_player() {
        let moves = first_moves::<Iago>(&default_setup::<Iago>(), 1, 100);
        let early = &moves[..10];
        let resigned = |winner: Value| json!({"result": {"winner": winner}, "termination": "resignation", "by": "black"});
        assert_eq!(
            verdict::<Iago>(early, resigned(json!("white"))),
            ClaimVerdict::Agrees
        );
        assert_eq!(
            code(verdict::<Iago>(early, resigned(json!("black")))),
            "claim-inconsistent"
        );
        assert_eq!(
            code(verdict::<Iago>(early, resigned(Value::Null))),
            "claim-mismatch"
        );
        assert_eq!(
            code(verdict::<Iago>(early, json!({"termination": "timeout"}))),
            "claim-inconsistent"
        );
        let abandoned = json!({"result": {"winner": "white"}, "termination": "abandoned"});
        assert_eq!(
            code(verdict::<Iago>(early, abandoned)),
            "claim-inconsistent"
        );
        let agreed = json!({"result": {"winner": "black"}, "termination": "agreement"});
        assert_eq!(verdict::<Iago>(early, agreed), ClaimVerdict::Agrees);
    }

    #[test]
    fn a_hypnosia_resignation_ranks_the_others_as_they_stand_and_the_resigner_last() {
        let setup: crate::game::CheckedSetup<_> = Hypnosia::check_setup(
            serde_json::from_value(json!({"options": {"players": 4}})).unwrap(),
        )
        .unwrap();
        let early = first_moves::<Hypnosia>(&setup, 3, 40);
        let replayed = replay::<Hypnosia, _>(&setup, Some(3), None, &early);
        let standing = Hypnosia::standing(&replayed.position).unwrap();
        let by = standing[0][0];
        let mut expected: Vec<Vec<&str>> = standing
            .iter()
            .map(|rank| {
                rank.iter()
                    .copied()
                    .filter(|&p| p != by)
                    .collect::<Vec<_>>()
            })
            .filter(|rank| !rank.is_empty())
            .collect();
        let winner = (expected[0].len() == 1).then(|| expected[0][0]);
        expected.push(vec![by]);
        let right = claim(
            json!({"result": {"winner": winner, "ranking": expected}, "termination": "resignation", "by": by}),
        );
        assert_eq!(judge(&right, &replayed), ClaimVerdict::Agrees);
        // The others in reverse order, the resigner still last: a ranking that is whole but wrong.
        let mut reversed: Vec<Vec<&str>> = expected[..expected.len() - 1].to_vec();
        reversed.reverse();
        assert_ne!(
            reversed,
            expected[..expected.len() - 1],
            "the others stand apart"
        );
        let first = (reversed[0].len() == 1).then(|| reversed[0][0]);
        reversed.push(vec![by]);
        let wrong = claim(
            json!({"result": {"winner": first, "ranking": reversed}, "termination": "timeout", "by": by}),
        );
        assert_eq!(code(judge(&wrong, &replayed)), "claim-mismatch");
    }
}
