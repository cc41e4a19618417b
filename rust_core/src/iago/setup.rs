//! The variant and options of a game.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(rename = "IagoVariant")]
pub enum Variant {
    #[default]
    Standard,
    /// No forced capture.
    Loose,
    /// No releases; every face-up disc scores 1.
    Simple,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "IagoOptions")]
pub struct Options {
    /// A player may skip a forced capture; the opponent may then claim a free placement.
    /// Standard variant only.
    #[serde(default)]
    pub penalty: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "IagoSetup")]
pub struct Setup {
    #[serde(default)]
    pub variant: Variant,
    #[serde(default)]
    pub options: Options,
}

impl Setup {
    pub(super) fn check(self) -> std::result::Result<Self, (String, String)> {
        if self.options.penalty && self.variant != Variant::Standard {
            return Err((
                "options.penalty".into(),
                "the penalty option combines with the standard rules only".into(),
            ));
        }
        Ok(self)
    }
}
