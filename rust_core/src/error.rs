//! Typed errors of the rules core. Each kind has a stable machine code that the Python layer and the
//! HTTP service expose unchanged (`invalid-state`, `illegal-move`, ...).

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

/// Why a request about a game cannot be answered with a next state: every refusal the core makes,
/// each worded here once. `referee.codes` (Python) gives each code its status and title; a test holds
/// `Error::CODES` to that table.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// The body (or an NDJSON line) is not JSON that the engine's reader takes.
    #[error("malformed JSON: {detail}")]
    MalformedJson { detail: String },
    /// A request's envelope does not have the expected shape: `errors` lists each field at fault
    /// with the schemas' message (`SchemaMessage`).
    #[error("malformed request: {detail}")]
    MalformedRequest {
        errors: Vec<(String, String)>,
        detail: String,
    },
    /// A JSON body that would become more than `limit` bytes of Python objects.
    #[error("payload too large: {detail}")]
    PayloadTooLarge { detail: String, limit: usize },
    /// No game of that name: `game` the name asked, `known` the games there are.
    #[error("unknown game: {detail}")]
    UnknownGame {
        game: String,
        known: Vec<String>,
        detail: String,
    },
    /// A line of an archive that is no record (not JSON, or a field of the wrong shape).
    #[error("malformed record: {detail}")]
    MalformedRecord { detail: String },
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
    /// A search asked for more than the service allows, or for nothing: `field` names the bound
    /// (`level`, `simulations`, `think_ms`), `limit` its largest value.
    #[error("over budget: {detail}")]
    OverBudget {
        field: &'static str,
        limit: u64,
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

/// Each variant's stable machine code, written once: `code` and `CODES` both come from it, and the
/// match stops compiling when a variant is added without its code. The table of `Error`'s kinds, of
/// why a claim disagrees (`claims::ClaimCode`) and of what decides each game (its `DecidedBy`).
/// A table of unit variants, each with its documentation, also declares its enum, and its
/// documentation is what the contract says of each code (`GLOSSARY`).
macro_rules! codes {
    ($(#[$meta:meta])* $vis:vis enum $Type:ident { $($(#[doc = $doc:literal])+ $Kind:ident => $code:literal,)* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        $vis enum $Type {
            $($(#[doc = $doc])+ $Kind,)*
        }

        $crate::error::codes! { $Type { $($Kind => $code,)* } }

        impl $Type {
            /// Each code with what it means (its variant's documentation), in the order of `CODES`.
            pub const GLOSSARY: &'static [(&'static str, &'static str)] =
                &[$(($code, concat!($($doc),+))),*];
        }
    };
    ($Type:ident { $($Kind:ident => $code:literal,)* }) => {
        impl $Type {
            /// Every code `code` gives, in the order of the variants.
            pub const CODES: &'static [&'static str] = &[$($code),*];

            /// The stable machine code of this value.
            pub const fn code(&self) -> &'static str {
                match self {
                    $($Type::$Kind { .. } => $code,)*
                }
            }
        }
    };
}
pub(crate) use codes;

codes! { Error {
    MalformedJson => "malformed-json",
    MalformedRequest => "malformed-request",
    PayloadTooLarge => "payload-too-large",
    UnknownGame => "unknown-game",
    MalformedRecord => "malformed-record",
    InvalidOptions => "invalid-options",
    InvalidState => "invalid-state",
    InvalidSeal => "invalid-seal",
    InvalidBoard => "invalid-board",
    MalformedMove => "malformed-move",
    IllegalMove => "illegal-move",
    GameOver => "game-over",
    NotYourTurn => "not-your-turn",
    NotThisPlayer => "not-this-player",
    UnknownPlayer => "unknown-player",
    OverBudget => "over-budget",
} }

impl Error {
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

    /// JSON text the engine does not read, as a request's body.
    pub fn not_json(detail: impl std::fmt::Display) -> Self {
        Error::malformed_json(format!("the body is not valid JSON: {detail}"))
    }

    pub fn malformed_json(detail: impl Into<String>) -> Self {
        Error::MalformedJson {
            detail: detail.into(),
        }
    }

    /// A request's envelope at fault, field by field (`field: message; ...` its detail).
    pub fn malformed_request(errors: Vec<(String, String)>) -> Self {
        let told: Vec<String> = errors
            .iter()
            .map(|(field, message)| format!("{field}: {message}"))
            .collect();
        Error::malformed_request_detail(errors, told.join("; "))
    }

    /// A request's envelope at fault, with a detail of its own.
    pub fn malformed_request_detail(errors: Vec<(String, String)>, detail: String) -> Self {
        Error::MalformedRequest { errors, detail }
    }

    /// One field of a request at fault.
    pub fn malformed_field(field: impl Into<String>, message: impl Into<String>) -> Self {
        Error::malformed_request(vec![(field.into(), message.into())])
    }

    pub fn payload_too_large(detail: impl Into<String>, limit: usize) -> Self {
        Error::PayloadTooLarge {
            detail: detail.into(),
            limit,
        }
    }

    /// No game named `game`: every entry point (a route, a binding, an archive's record) says so in
    /// these words, with these facts.
    pub fn unknown_game<S: AsRef<str>>(game: &str, known: &[S]) -> Self {
        let known: Vec<String> = known.iter().map(|name| name.as_ref().to_owned()).collect();
        Error::UnknownGame {
            game: game.to_owned(),
            detail: format!("unknown game {game:?}; known games: {}", known.join(", ")),
            known,
        }
    }

    pub fn malformed_record(detail: impl Into<String>) -> Self {
        Error::MalformedRecord {
            detail: detail.into(),
        }
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
            Error::MalformedJson { detail }
            | Error::MalformedRequest { detail, .. }
            | Error::PayloadTooLarge { detail, .. }
            | Error::UnknownGame { detail, .. }
            | Error::MalformedRecord { detail }
            | Error::InvalidOptions { detail, .. }
            | Error::InvalidState { detail, .. }
            | Error::InvalidSeal { detail }
            | Error::InvalidBoard { detail, .. }
            | Error::MalformedMove { detail }
            | Error::IllegalMove { detail, .. }
            | Error::NotYourTurn { detail }
            | Error::UnknownPlayer { detail, .. }
            | Error::OverBudget { detail, .. }
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
            Error::MalformedRequest { errors, .. } => {
                let errors: Vec<Value> = errors
                    .iter()
                    .map(|(field, message)| serde_json::json!({ "field": field, "message": message }))
                    .collect();
                serde_json::json!({ "errors": errors })
            }
            Error::PayloadTooLarge { limit, .. } => serde_json::json!({ "limit": limit }),
            Error::OverBudget { field, limit, .. } => {
                serde_json::json!({ "field": field, "limit": limit })
            }
            Error::UnknownGame { game, known, .. } => {
                serde_json::json!({ "game": game, "known": known })
            }
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
            Error::MalformedJson { .. }
            | Error::MalformedRecord { .. }
            | Error::MalformedMove { .. }
            | Error::GameOver
            | Error::NotYourTurn { .. } => {
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

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The messages of a `malformed-request`'s fields, worded once: the native checks of envelopes
/// (`request`, `record`) give them, and the service's marshmallow schemas take them from here
/// (`referee._core.SCHEMA_MESSAGES`, by marshmallow's names for them), so that both say the same.
pub mod message {
    pub const MISSING: &str = "Missing data for required field.";
    pub const NOT_NULL: &str = "Field may not be null.";
    pub const NOT_A_STRING: &str = "Not a valid string.";
    pub const NOT_AN_INTEGER: &str = "Not a valid integer.";
    pub const NOT_A_LIST: &str = "Not a valid list.";
    pub const NOT_A_MAPPING: &str = "Not a valid mapping type.";
    pub const UNKNOWN_FIELD: &str = "Unknown field.";
    /// A string's length out of bounds: marshmallow's `Length` fills `{min}` and `{max}` in.
    pub const LENGTH: &str = "Length must be between {min} and {max}.";
    /// A state that is neither an object nor a string.
    pub const STATE_TYPE: &str = "Not a valid state: a JSON object or a position string.";
    pub const NOT_A_COMMITMENT: &str = "Not 64 lowercase hex digits (the SHA-256 of a secret).";
    // The bounds the two messages below name, written once as literals (`concat!` takes no constant).
    macro_rules! max_seed {
        () => {
            9007199254740991 // 2^53 - 1: a JavaScript number holds it exactly
        };
    }
    macro_rules! max_commitments {
        () => {
            16 // more than the players of any game (six), few enough that checking each costs nothing
        };
    }
    /// The largest seed a request gives as a number.
    pub const MAX_SEED: u64 = max_seed!();
    /// The most entries of a request's `commitments` (the service's schemas take it from here).
    pub const MAX_COMMITMENTS: usize = max_commitments!();
    /// A seed out of bounds.
    pub const NOT_A_SEED: &str = concat!(
        "Not a seed: a whole number 0..",
        max_seed!(),
        ", or the 64 hexadecimal digits of a state's `rng.seed` (16 digits, then 48 zeros)."
    );
    /// More commitments than `MAX_COMMITMENTS`.
    pub const TOO_MANY_PLAYERS: &str = concat!("More than ", max_commitments!(), " players.");

    /// Every message by its name in the schemas (marshmallow's error keys where it has one).
    pub const ALL: [(&str, &str); 12] = [
        ("required", MISSING),
        ("null", NOT_NULL),
        ("string", NOT_A_STRING),
        ("integer", NOT_AN_INTEGER),
        ("list", NOT_A_LIST),
        ("mapping", NOT_A_MAPPING),
        ("unknown", UNKNOWN_FIELD),
        ("length", LENGTH),
        ("state", STATE_TYPE),
        ("commitment", NOT_A_COMMITMENT),
        ("seed", NOT_A_SEED),
        ("too_many", TOO_MANY_PLAYERS),
    ];

    /// `LENGTH` filled in.
    pub fn length(min: usize, max: usize) -> String {
        LENGTH
            .replace("{min}", &min.to_string())
            .replace("{max}", &max.to_string())
    }
}

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

    fn one_of_each() -> Vec<Error> {
        vec![
            Error::not_json("EOF"),
            Error::malformed_field("move", message::MISSING),
            Error::payload_too_large("too many objects", 4),
            Error::unknown_game("chess", &["iago", "isaac"]),
            Error::malformed_record("not a record"),
            Error::invalid_options("variant", "no such"),
            Error::invalid_state("board", "row a"),
            Error::InvalidSeal {
                detail: "missing".into(),
            },
            Error::InvalidBoard {
                field: "board".into(),
                detail: "no cells".into(),
            },
            Error::malformed_move("zz"),
            Error::illegal_move("occupied", "e4 is taken", Value::Null),
            Error::GameOver,
            Error::NotYourTurn {
                detail: "white".into(),
            },
            Error::NotThisPlayer {
                player: None,
                detail: "missing".into(),
            },
            Error::unknown_player("x", &["black", "white"]),
            Error::OverBudget {
                field: "level",
                limit: 8,
                detail: "level: levels are 1 to 8, not 9".into(),
            },
        ]
    }

    #[test]
    fn codes_are_every_kind_s_code_once() {
        let codes: Vec<&str> = one_of_each().iter().map(Error::code).collect();
        assert_eq!(codes, Error::CODES);
        let distinct: std::collections::BTreeSet<&str> = codes.iter().copied().collect();
        assert_eq!(distinct.len(), codes.len());
    }

    #[test]
    fn the_facts_of_the_request_s_refusals() {
        let unknown = Error::unknown_game("chess", &["iago", "isaac"]).reason();
        let expected = serde_json::json!({
            "code": "unknown-game",
            "detail": "unknown game \"chess\"; known games: iago, isaac",
            "game": "chess",
            "known": ["iago", "isaac"],
        });
        assert_eq!(unknown, expected);
        let errors = vec![("state".into(), "x".into()), ("move".into(), "y".into())];
        let malformed = Error::malformed_request(errors).reason();
        assert_eq!(malformed["detail"], "state: x; move: y");
        assert_eq!(
            malformed["errors"][1],
            serde_json::json!({"field": "move", "message": "y"})
        );
        let large = Error::payload_too_large("big", 4).reason();
        assert_eq!(
            large,
            serde_json::json!({"code": "payload-too-large", "detail": "big", "limit": 4})
        );
    }

    #[test]
    fn a_length_message_is_filled_in() {
        assert_eq!(message::length(1, 64), "Length must be between 1 and 64.");
    }

    #[test]
    fn a_written_reason_is_the_built_one_byte_for_byte() {
        let mut errors = one_of_each();
        errors.extend([
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
        ]);
        for error in &errors {
            let written = serde_json::to_string(&error.reason_out()).unwrap();
            assert_eq!(written, serde_json::to_string(&built(error)).unwrap());
            assert_eq!(error.reason(), built(error));
        }
    }
}
