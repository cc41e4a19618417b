//! The variant and options: as clients write them (`Setup`) and as the engine plays by them
//! (`Config`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::board::PlayerSchema;
use super::Color;

/// Who opens the scoring phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, JsonSchema)]
#[schemars(rename = "IsaacScoringStarts", rename_all = "snake_case")]
pub enum ScoringStarts {
    /// The player who passed first in the placement phase.
    #[default]
    FirstToPass,
    /// The player who placed first.
    FirstPlayer,
}

impl ScoringStarts {
    pub fn name(self) -> &'static str {
        match self {
            ScoringStarts::FirstToPass => "first_to_pass",
            ScoringStarts::FirstPlayer => "first_player",
        }
    }
}

/// The checked options: what the engine plays by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Config {
    pub first_player: Color,
    pub scoring_starts: ScoringStarts,
}

impl Config {
    pub fn setup(self) -> Setup {
        Setup {
            variant: STANDARD.to_owned(),
            options: Options {
                first_player: self.first_player.name().to_owned(),
                scoring_starts: self.scoring_starts.name().to_owned(),
            },
        }
    }
}

pub(super) const STANDARD: &str = "standard";

pub(super) fn standard() -> String {
    STANDARD.to_owned()
}

pub(super) fn black() -> String {
    Color::Black.name().to_owned()
}

pub(super) fn first_to_pass() -> String {
    ScoringStarts::FirstToPass.name().to_owned()
}

/// The options as clients write them. Values stay text until `check_setup` (or `from_state`) reads
/// them, so that a bad value is refused with the field that holds it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "IsaacOptions", description = "")]
pub struct Options {
    /// Who places first (and wins the last tie-break).
    #[serde(default = "black")]
    #[schemars(with = "PlayerSchema")]
    pub(super) first_player: String,
    /// Who opens the scoring phase: the player who passed first in the placement phase, or the
    /// first player.
    #[serde(default = "first_to_pass")]
    #[schemars(with = "ScoringStarts")]
    pub(super) scoring_starts: String,
}

/// Isaac's variants (one).
#[derive(JsonSchema)]
#[schemars(rename = "IsaacVariant", rename_all = "lowercase")]
#[allow(dead_code)] // a schema only: the engine reads the variant as text (see `Setup::config`)
pub(super) enum VariantName {
    Standard,
}

impl Default for Options {
    fn default() -> Self {
        Config::default().setup().options
    }
}

/// Variant and options: `{"variant": "standard", "options": {"first_player", "scoring_starts"}}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "IsaacSetup", description = "")]
pub struct Setup {
    #[serde(default = "standard")]
    #[schemars(with = "VariantName")]
    pub(super) variant: String,
    #[serde(default)]
    pub(super) options: Options,
}

impl Default for Setup {
    fn default() -> Self {
        Config::default().setup()
    }
}

impl Setup {
    pub fn new(first_player: Color, scoring_starts: ScoringStarts) -> Setup {
        Config {
            first_player,
            scoring_starts,
        }
        .setup()
    }

    /// The typed options, or the field that is wrong and why.
    pub fn config(&self) -> std::result::Result<Config, (String, String)> {
        if self.variant != STANDARD {
            return Err((
                "variant".into(),
                format!(
                    "unknown variant {:?}: Isaac has only \"standard\"",
                    self.variant
                ),
            ));
        }
        let first_player = Color::from_name(&self.options.first_player).ok_or_else(|| {
            (
                "options.first_player".to_owned(),
                format!(
                    "first_player is \"black\" or \"white\", not {:?}",
                    self.options.first_player
                ),
            )
        })?;
        let scoring_starts = match self.options.scoring_starts.as_str() {
            "first_to_pass" => ScoringStarts::FirstToPass,
            "first_player" => ScoringStarts::FirstPlayer,
            other => {
                return Err((
                    "options.scoring_starts".into(),
                    format!(
                        "scoring_starts is \"first_to_pass\" or \"first_player\", not {other:?}"
                    ),
                ))
            }
        };
        Ok(Config {
            first_player,
            scoring_starts,
        })
    }
}
