//! A game's static description (`Described::info`, `GET /v1/games/{game}`): what the game's constants say
//! of it (name, rules version, players, chance, hidden information), and what only its description
//! tells (title, variants, options, board, notation). The contract's `GameInfo` is this type's schema.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::decisions::{self, Decisions};

/// A game's static description (`GET /v1/games/{game}`), apart from `Rules` so that it can be made
/// from the game's `Decisions` too (`Info::of`).
pub trait Described: Decisions {
    /// Variants, options, board geometry and notation.
    fn info() -> Info;
}

/// A game's static description: its variants, options, board geometry and notation.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(rename = "GameInfo")]
pub struct Info {
    /// The game's name in URLs (`iago`).
    pub name: &'static str,
    /// The game's name as it is written (`Caesar!`).
    pub title: &'static str,
    /// Rules version, `game@N`.
    pub rules: &'static str,
    /// Every player the game may seat, in seat order.
    pub players: &'static [&'static str],
    /// Chance takes part (dice, drawn tokens): states carry a random generator.
    pub chance: bool,
    /// Players may not see the whole state (Caesar!'s hands): see `view`.
    pub hidden_information: bool,
    /// The variants of its rules, the default one among them.
    pub variants: Vec<GameVariant>,
    /// The options of its setups.
    pub options: Vec<GameOption>,
    /// The board's geometry; for Iago the 61 cells with their area (outer, inner, centre); for Isaac the
    /// 10 × 10 board, the pieces (length, count, value) and the score track.
    #[schemars(with = "Map<String, Value>")]
    pub board: Value,
    /// What the notation of moves and positions is, by what it writes (`move`, `position`, ...).
    pub notation: BTreeMap<&'static str, &'static str>,
    /// A game's facts beyond these, by name (Caesar!'s `tokens`, `bag_size`, `hand_limit`, ...).
    #[serde(flatten)]
    pub more: BTreeMap<&'static str, Value>,
}

/// A variant of the rules, chosen by a setup's `variant`.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct GameVariant {
    pub name: &'static str,
    /// The variant a setup without `variant` plays (written only when true).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub default: bool,
    pub description: &'static str,
}

/// An option of a setup (`options.<name>`).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct GameOption {
    pub name: &'static str,
    /// The JSON type of its value (`boolean`, `string`, `integer`, `array`, `object`).
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Its value when a setup leaves it out (null: drawn, or made from the other options).
    pub default: Value,
    /// The variants it applies to (left out: every variant).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<String>")]
    pub variants: Option<&'static [&'static str]>,
    /// The values it takes, when they are names.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<String>")]
    pub values: Option<&'static [&'static str]>,
    pub description: &'static str,
}

impl Info {
    /// `G`'s description: its name, rules version, players, chance and hidden information from its
    /// constants (the same that `decisions::facts` gives adapters), the rest as given.
    pub fn of<G: Decisions>(
        title: &'static str,
        variants: Vec<GameVariant>,
        options: Vec<GameOption>,
        board: Value,
        notation: &[(&'static str, &'static str)],
    ) -> Info {
        let facts = decisions::facts::<G>();
        Info {
            name: G::NAME,
            title,
            rules: G::RULES_VERSION,
            players: G::PLAYERS,
            chance: facts.chance,
            hidden_information: facts.hidden_information,
            variants,
            options,
            board,
            notation: notation.iter().copied().collect(),
            more: BTreeMap::new(),
        }
    }

    /// The description as answers write it: a JSON object, its keys sorted at every level (as the
    /// answer has always been written).
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).expect("an info serializes")
    }
}

impl GameVariant {
    /// The variant a setup without `variant` plays.
    pub fn default(name: &'static str, description: &'static str) -> GameVariant {
        GameVariant {
            name,
            default: true,
            description,
        }
    }

    pub fn other(name: &'static str, description: &'static str) -> GameVariant {
        GameVariant {
            name,
            default: false,
            description,
        }
    }
}

impl GameOption {
    /// An option of every variant, whose values are not a list of names.
    pub fn new(
        name: &'static str,
        kind: &'static str,
        default: Value,
        description: &'static str,
    ) -> GameOption {
        GameOption {
            name,
            kind,
            default,
            variants: None,
            values: None,
            description,
        }
    }

    /// The option of `variants` only.
    pub fn of_variants(self, variants: &'static [&'static str]) -> GameOption {
        GameOption {
            variants: Some(variants),
            ..self
        }
    }

    /// The option taking one of `values`.
    pub fn one_of(self, values: &'static [&'static str]) -> GameOption {
        GameOption {
            values: Some(values),
            ..self
        }
    }
}
