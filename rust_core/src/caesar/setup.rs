//! The variant and options (bonuses and hands given instead of drawn), their check, and the start
//! they give.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::board::{
    parse_province, parse_token, province_code, token_list, Bonus, Player, Tokens, IT,
    PROVINCE_COUNT, START_HAND_LIMIT, TOKENS, TOKEN_KINDS,
};
use super::state::{Ordered, PerPlayer, StartingHandSchema};
use super::Position;
use crate::chance::{self, Chance, ChanceKeys};
use crate::error::{Error, Result};
use crate::game::CheckedSetup;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(rename = "CaesarVariant")]
pub enum Variant {
    #[default]
    Standard,
}

/// The chance events of setup, given instead of drawn (to set up a real game).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "CaesarOptions")]
pub struct Options {
    /// Each province but IT to its bonus (5 senate, 4 tactics, 4 wealth, 4 might); drawn from the
    /// seed when null.
    #[serde(default)]
    #[schemars(with = "Option<BonusesSchema>")]
    pub bonuses: Option<Ordered<String>>,
    /// The two starting tokens of each player; drawn from the seed when null.
    #[serde(default)]
    #[schemars(with = "Option<PerPlayer<StartingHandSchema>>")]
    pub hands: Option<PerPlayer<Vec<String>>>,
}

/// Each province but IT to its bonus token, by province code.
#[derive(JsonSchema)]
#[schemars(rename = "CaesarBonuses")]
#[allow(dead_code)] // a schema only
pub(super) struct BonusesSchema(
    #[schemars(extend("propertyNames" = {"pattern": "^[A-Z]{2}$"}))] BTreeMap<String, Bonus>,
);

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "CaesarSetup")]
pub struct Setup {
    #[serde(default)]
    pub variant: Variant,
    #[serde(default)]
    pub options: Options,
}

/// The bonuses of a checked setup, province by province (Italia's is always Senate).
pub(super) fn setup_bonuses(bonuses: &Ordered<String>) -> Result<[Bonus; PROVINCE_COUNT]> {
    let field = "options.bonuses";
    let mut layout: [Option<Bonus>; PROVINCE_COUNT] = [None; PROVINCE_COUNT];
    layout[IT] = Some(Bonus::Senate);
    for (code, name) in &bonuses.0 {
        let province = parse_province(code).filter(|&q| q != IT).ok_or_else(|| {
            Error::invalid_options(
                format!("{field}.{code}"),
                format!("{code:?} is not a province that takes a shuffled bonus (all but IT)"),
            )
        })?;
        let bonus = Bonus::parse(name).ok_or_else(|| {
            Error::invalid_options(
                format!("{field}.{code}"),
                format!("{name:?} is not a bonus (senate, tactics, wealth, might)"),
            )
        })?;
        if layout[province].is_some() {
            return Err(Error::invalid_options(
                format!("{field}.{code}"),
                format!("{code} is listed twice"),
            ));
        }
        layout[province] = Some(bonus);
    }
    let missing: Vec<&str> = (0..PROVINCE_COUNT)
        .filter(|&q| layout[q].is_none())
        .map(province_code)
        .collect();
    if !missing.is_empty() {
        return Err(Error::invalid_options(
            field,
            format!(
                "every province but IT gets a bonus; missing: {}",
                missing.join(", ")
            ),
        ));
    }
    let layout = layout.map(|bonus| bonus.unwrap_or(Bonus::Senate));
    for bonus in Bonus::ALL {
        let count = layout.iter().filter(|&&b| b == bonus).count();
        if count != bonus.count() as usize {
            return Err(Error::invalid_options(
                field,
                format!(
                    "the 17 shuffled bonuses are 5 senate, 4 tactics, 4 wealth and 4 might; {count} {} given{}",
                    bonus.name(),
                    if bonus == Bonus::Senate { " (with IT's)" } else { "" }
                ),
            ));
        }
    }
    Ok(layout)
}

/// The starting hands of a checked setup, as token counts.
pub(super) fn setup_hands(hands: &PerPlayer<Vec<String>>) -> Result<[Tokens; 2]> {
    let mut counts = [[0u8; TOKEN_KINDS]; 2];
    for player in Player::BOTH {
        let field = format!("options.hands.{}", player.name());
        let hand = hands.get(player);
        if hand.len() != START_HAND_LIMIT as usize {
            return Err(Error::invalid_options(
                field,
                format!("a starting hand is 2 tokens, not {}", hand.len()),
            ));
        }
        for code in hand {
            let kind = parse_token(code).ok_or_else(|| {
                Error::invalid_options(field.clone(), format!("{code:?} is not a token"))
            })?;
            counts[player as usize][kind] += 1;
            if counts[player as usize][kind] > TOKENS[kind].4 {
                return Err(Error::invalid_options(
                    field.clone(),
                    format!("a bag holds only {} {code}", TOKENS[kind].4),
                ));
            }
        }
    }
    Ok(counts)
}

pub(super) fn check_setup(setup: Setup) -> Result<Setup> {
    let mut setup = setup;
    if let Some(bonuses) = &setup.options.bonuses {
        let layout = setup_bonuses(bonuses)?;
        // Normalised: table order.
        setup.options.bonuses = Some(Ordered(
            (0..PROVINCE_COUNT)
                .filter(|&q| q != IT)
                .map(|q| (province_code(q).into(), layout[q].name().to_owned()))
                .collect(),
        ));
    }
    if let Some(hands) = &setup.options.hands {
        let counts = setup_hands(hands)?;
        setup.options.hands = Some(PerPlayer::of(counts.each_ref().map(token_list)));
    }
    Ok(setup)
}

pub(super) fn start(
    setup: &CheckedSetup<Setup>,
    seed: Option<u64>,
    keys: Option<&ChanceKeys>,
) -> Position {
    let seed = seed.unwrap_or_else(chance::fresh_seed);
    let mut position = Position::empty(Chance::from_seed(seed, keys));
    // Checked: bonuses and hands, when given, are valid; what is not given is drawn.
    let layout = setup
        .options
        .bonuses
        .as_ref()
        .map(|b| setup_bonuses(b).expect("a checked setup's bonuses are valid"));
    match layout {
        Some(layout) => position.bonus = layout.map(Some),
        None => {
            let mut shuffled: Vec<Bonus> = Bonus::ALL
                .iter()
                .flat_map(|&b| {
                    std::iter::repeat_n(b, b.count() as usize - usize::from(b == Bonus::Senate))
                })
                .collect();
            for i in (1..shuffled.len()).rev() {
                let j = position.chance.below(i as u32 + 1) as usize;
                shuffled.swap(i, j);
            }
            let mut others = shuffled.into_iter();
            for province in 0..PROVINCE_COUNT {
                position.bonus[province] = if province == IT {
                    Some(Bonus::Senate)
                } else {
                    others.next()
                };
            }
        }
    }
    match setup
        .options
        .hands
        .as_ref()
        .map(|h| setup_hands(h).expect("a checked setup's hands are valid"))
    {
        Some(hands) => {
            for player in Player::BOTH {
                let p = player as usize;
                for (bag, hand) in position.bags[p].iter_mut().zip(hands[p]) {
                    *bag -= hand;
                }
                position.hands[p] = hands[p];
            }
        }
        None => {
            for player in Player::BOTH {
                for _ in 0..START_HAND_LIMIT {
                    position.draw_seeded(player);
                }
            }
        }
    }
    position
}
