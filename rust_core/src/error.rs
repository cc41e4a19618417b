//! Typed errors of the rules core. Each kind has a stable machine code that the Python layer and the
//! HTTP service expose unchanged (`invalid-state`, `illegal-move`, ...).

use std::fmt::Write as _;

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{json, Value};

/// Why a request about a game cannot be answered with a next state.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// The game options (variant, option flags) are unknown or do not combine.
    #[error("invalid options: {detail}")]
    InvalidOptions { field: String, detail: String },
    /// A state that cannot occur in this game (bad shape, impossible counts, unknown rules version).
    #[error("invalid state: {detail}")]
    InvalidState { field: String, detail: String },
    /// With seal keys: a state whose `seal` is missing, malformed, names an unknown key id, or does
    /// not match the state (see `seal`). Its field is always `state.seal`.
    #[error("invalid seal: {detail}")]
    InvalidSeal { detail: String },
    /// A board description (Hypnosia's `board` option) that is not a playable board.
    #[error("invalid board: {detail}")]
    InvalidBoard { field: String, detail: String },
    /// A move that does not parse in the game's notation.
    #[error("malformed move: {detail}")]
    MalformedMove { detail: String },
    /// A well-formed move that the rules forbid here; `rule` names the rule, `data` gives its facts.
    #[error("illegal move: {detail}")]
    IllegalMove {
        rule: &'static str,
        detail: String,
        data: Value,
    },
    /// The game has ended: no move can be played.
    #[error("the game is over")]
    GameOver,
    /// The move was announced for a player who is not to move.
    #[error("not your turn: {detail}")]
    NotYourTurn { detail: String },
    /// With an opaque state of a game with hidden information (see `opaque`), a request that acts as a
    /// player (moves, lists the mover's moves, views a hand) without that player's `secret`: missing,
    /// wrong, or another player's. `player`: the player it acts as (none: the whole state).
    #[error("not this player: {detail}")]
    NotThisPlayer {
        player: Option<String>,
        detail: String,
    },
    /// A request named a player the game does not have (e.g. the viewer of a player view).
    #[error("unknown player: {detail}")]
    UnknownPlayer {
        player: String,
        players: Vec<String>,
        detail: String,
    },
}

impl Error {
    /// The stable machine code of this error.
    pub fn code(&self) -> &'static str {
        match self {
            Error::InvalidOptions { .. } => "invalid-options",
            Error::InvalidState { .. } => "invalid-state",
            Error::InvalidSeal { .. } => "invalid-seal",
            Error::InvalidBoard { .. } => "invalid-board",
            Error::MalformedMove { .. } => "malformed-move",
            Error::IllegalMove { .. } => "illegal-move",
            Error::GameOver => "game-over",
            Error::NotYourTurn { .. } => "not-your-turn",
            Error::UnknownPlayer { .. } => "unknown-player",
            Error::NotThisPlayer { .. } => "not-this-player",
        }
    }

    /// True when the error is about the move rather than the state or options: such an error is an
    /// answer of `validate` (legal = false), not a failure of the request.
    pub fn is_about_move(&self) -> bool {
        matches!(
            self,
            Error::MalformedMove { .. }
                | Error::IllegalMove { .. }
                | Error::GameOver
                | Error::NotYourTurn { .. }
        )
    }

    pub fn invalid_state(field: impl Into<String>, detail: impl Into<String>) -> Self {
        Error::InvalidState {
            field: field.into(),
            detail: detail.into(),
        }
    }

    pub fn invalid_options(field: impl Into<String>, detail: impl Into<String>) -> Self {
        Error::InvalidOptions {
            field: field.into(),
            detail: detail.into(),
        }
    }

    pub fn unknown_player<S: AsRef<str>>(player: &str, players: &[S]) -> Self {
        let players: Vec<String> = players.iter().map(|p| p.as_ref().to_owned()).collect();
        Error::UnknownPlayer {
            player: player.to_owned(),
            detail: format!(
                "{player:?} is not a player of this game ({})",
                players.join(", ")
            ),
            players,
        }
    }

    /// A move the rules forbid: every game builds its refusals here. `rule` names the rule (the
    /// `reason`'s `rule`), `data` is an object of its facts, merged into the `reason`.
    pub fn illegal_move(rule: &'static str, detail: impl Into<String>, data: Value) -> Self {
        Error::IllegalMove {
            rule,
            detail: detail.into(),
            data,
        }
    }

    pub fn malformed_move(detail: impl Into<String>) -> Self {
        Error::MalformedMove {
            detail: detail.into(),
        }
    }

    /// The human-readable detail, without the kind prefix.
    pub fn detail(&self) -> String {
        self.detail_text().to_owned()
    }

    fn detail_text(&self) -> &str {
        match self {
            Error::InvalidOptions { detail, .. }
            | Error::InvalidState { detail, .. }
            | Error::InvalidSeal { detail }
            | Error::InvalidBoard { detail, .. }
            | Error::MalformedMove { detail }
            | Error::IllegalMove { detail, .. }
            | Error::NotYourTurn { detail }
            | Error::UnknownPlayer { detail, .. }
            | Error::NotThisPlayer { detail, .. } => detail,
            Error::GameOver => "the game is over: no move can be played",
        }
    }

    /// The error as a plain object for a result: `code`, `detail` and the facts.
    pub fn reason(&self) -> Value {
        serde_json::to_value(self.reason_out()).expect("a reason serializes")
    }

    /// `reason`, to be written without building it as a JSON value (a batch writes one a refusal).
    pub fn reason_out(&self) -> ReasonOut<'_> {
        ReasonOut(self)
    }

    /// The structured facts of the error as a JSON object (`field`, `rule`, rule data).
    pub fn data(&self) -> Value {
        match self {
            Error::InvalidOptions { field, .. }
            | Error::InvalidState { field, .. }
            | Error::InvalidBoard { field, .. } => {
                serde_json::json!({ "field": field })
            }
            Error::InvalidSeal { .. } => serde_json::json!({ "field": "state.seal" }),
            Error::IllegalMove { rule, data, .. } => {
                let mut object = serde_json::json!({ "rule": rule });
                if let (Some(target), Value::Object(extra)) = (object.as_object_mut(), data) {
                    target.extend(extra.clone());
                }
                object
            }
            Error::UnknownPlayer {
                player, players, ..
            } => serde_json::json!({ "player": player, "players": players }),
            Error::NotThisPlayer { player, .. } => {
                serde_json::json!({ "field": "secret", "player": player })
            }
            Error::MalformedMove { .. } | Error::GameOver | Error::NotYourTurn { .. } => {
                serde_json::json!({})
            }
        }
    }
}

/// An error's reason object (see `Error::reason`) as it is written: `code`, `detail` and the facts
/// (`data`), in key order as a JSON value's object writes its keys, a fact overriding a field of the
/// same name.
pub struct ReasonOut<'a>(&'a Error);

impl Serialize for ReasonOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let error = self.0;
        let mut entries: Vec<(&str, Entry)> = vec![
            ("code", Entry::Text(error.code())),
            ("detail", Entry::Text(error.detail_text())),
        ];
        // A refusal's facts are borrowed: the other kinds' are built (they are rare in batches).
        let built;
        let facts = match error {
            Error::IllegalMove { rule, data, .. } => {
                entries.push(("rule", Entry::Text(rule)));
                data
            }
            _ => {
                built = error.data();
                &built
            }
        };
        if let Value::Object(facts) = facts {
            entries.extend(
                facts
                    .iter()
                    .map(|(key, value)| (key.as_str(), Entry::Json(value))),
            );
        }
        // Stable: of the entries with one key, the last (the fact) is the one kept.
        entries.sort_by(|a, b| a.0.cmp(b.0));
        let kept = (0..entries.len()).filter(|&at| {
            entries
                .get(at + 1)
                .is_none_or(|next| next.0 != entries[at].0)
        });
        let mut map = serializer.serialize_map(None)?;
        for at in kept {
            map.serialize_entry(entries[at].0, &entries[at].1)?;
        }
        map.end()
    }
}

/// A value of a written reason.
enum Entry<'a> {
    Text(&'a str),
    Json(&'a Value),
}

impl Serialize for Entry<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            Entry::Text(text) => serializer.serialize_str(text),
            Entry::Json(value) => value.serialize(serializer),
        }
    }
}

/// The refusals of a request's own faults (its JSON, its fields), which no game makes: `malformed-json`,
/// and `malformed-request` with each field at fault.
pub(crate) fn malformed_json(detail: String) -> Value {
    json!({ "code": "malformed-json", "detail": detail })
}

pub(crate) fn malformed_request(errors: &[(String, String)]) -> Value {
    let mut detail = String::new();
    for (index, (field, message)) in errors.iter().enumerate() {
        let separator = if index == 0 { "" } else { "; " };
        let _ = write!(detail, "{separator}{field}: {message}");
    }
    malformed_request_detail(errors, detail)
}

pub(crate) fn malformed_request_detail(errors: &[(String, String)], detail: String) -> Value {
    let errors: Vec<Value> = errors
        .iter()
        .map(|(field, message)| json!({ "field": field, "message": message }))
        .collect();
    json!({ "code": "malformed-request", "detail": detail, "errors": errors })
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    /// The reason as it was built before it was written straight: a JSON value, facts merged last.
    fn built(error: &Error) -> Value {
        let mut reason = serde_json::json!({ "code": error.code(), "detail": error.detail() });
        if let (Some(target), Value::Object(data)) = (reason.as_object_mut(), error.data()) {
            target.extend(data);
        }
        reason
    }

    #[test]
    fn a_written_reason_is_the_built_one_byte_for_byte() {
        let errors = [
            Error::illegal_move(
                "occupied",
                "e4 is taken",
                serde_json::json!({"cell": "e4", "a": [1, {"z": null, "b": "é\"\n"}], "rule": "x"}),
            ),
            Error::illegal_move("no-facts", "none", Value::Null),
            Error::illegal_move(
                "detail",
                "d",
                serde_json::json!({"detail": "over", "zz": 1}),
            ),
            Error::GameOver,
            Error::malformed_move("bad"),
            Error::invalid_state("board[2]", "row c"),
            Error::unknown_player("x", &["black", "white"]),
            Error::NotThisPlayer {
                player: None,
                detail: "who".into(),
            },
            Error::InvalidSeal {
                detail: "no seal".into(),
            },
        ];
        for error in &errors {
            let written = serde_json::to_string(&error.reason_out()).unwrap();
            assert_eq!(written, serde_json::to_string(&built(error)).unwrap());
            assert_eq!(error.reason(), built(error));
        }
    }
}
