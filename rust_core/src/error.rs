//! Typed errors of the rules core. Each kind has a stable machine code that the Python layer and the
//! HTTP service expose unchanged (`invalid-state`, `illegal-move`, ...).

use serde_json::Value;

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
        match self {
            Error::InvalidOptions { detail, .. }
            | Error::InvalidState { detail, .. }
            | Error::InvalidSeal { detail }
            | Error::InvalidBoard { detail, .. }
            | Error::MalformedMove { detail }
            | Error::IllegalMove { detail, .. }
            | Error::NotYourTurn { detail }
            | Error::UnknownPlayer { detail, .. }
            | Error::NotThisPlayer { detail, .. } => detail.clone(),
            Error::GameOver => "the game is over: no move can be played".to_owned(),
        }
    }

    /// The error as a plain object for a result: `code`, `detail` and the facts.
    pub fn reason(&self) -> Value {
        let mut reason = serde_json::json!({ "code": self.code(), "detail": self.detail() });
        if let (Some(target), Value::Object(data)) = (reason.as_object_mut(), self.data()) {
            target.extend(data);
        }
        reason
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

pub type Result<T, E = Error> = std::result::Result<T, E>;
