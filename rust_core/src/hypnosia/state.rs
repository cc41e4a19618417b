//! The JSON form of a state and the checked building of a position from its parts.

use std::collections::BTreeMap;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::board::{
    colour_seat, home, on_space, Board, ColourSchema, DieSchema, Loc, PawnsSchema, CAPTURED,
    CENTRE, CENTRE_SPACES, COLOURS, SEATS,
};
use super::moves::Start;
use super::position::{Position, NOBODY};
use super::setup::{CompiledSetup, Options, Setup, Variant};
use super::{moves, Hypnosia};
use crate::chance::{Chance, ChanceState};
use crate::error::{Error, Result};
use crate::game::Rules;

/// The JSON form of a Hypnosia state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    rename = "HypnosiaState",
    description = "A Hypnosia state, self-contained: the options (with the board, null for the default one) and the seeded random source travel with it. Scores are checked against the centre entries, captures and lost pawns."
)]
pub struct State {
    #[schemars(extend("const" = Hypnosia::RULES_VERSION))]
    pub rules: String,
    #[serde(default)]
    pub variant: Variant,
    #[serde(default, deserialize_with = "crate::strict::object")]
    pub options: Options,
    /// The seeded random source the dice are drawn from.
    #[serde(deserialize_with = "crate::strict::object")]
    pub rng: ChanceState,
    /// The colour to move; null once the game is over.
    #[schemars(with = "Option<ColourSchema>")]
    pub to_move: Option<String>,
    /// Null before the roll, else the unused dice in the order they remain.
    #[schemars(with = "Option<Vec<DieSchema>>")]
    pub dice: Option<Vec<i64>>,
    /// Each seated colour's 4 pawns: home by distance, then spaces by (circle, index), then
    /// centre, then captured.
    #[schemars(
        with = "BTreeMap<String, PawnsSchema>",
        extend("propertyNames" = {"enum": COLOURS})
    )]
    pub pawns: BTreeMap<String, Vec<String>>,
    /// Each seated colour's score.
    #[schemars(extend("propertyNames" = {"enum": COLOURS}))]
    pub scores: BTreeMap<String, i64>,
    /// The colours of the pawns in the centre, in order of entry.
    #[schemars(with = "Vec<ColourSchema>", length(max = CENTRE_SPACES))]
    pub centre: Vec<String>,
    /// Enemy pawns each seated colour has captured.
    #[schemars(extend("propertyNames" = {"enum": COLOURS}))]
    pub captures: BTreeMap<String, i64>,
}

/// The untrusted content of a state, from JSON or from the position notation; its names are any
/// strings (`String`, or borrowed from the text they were read from).
pub(super) struct Parts<S> {
    pub(super) pawns: Vec<(S, Vec<S>)>,
    pub(super) to_move: Option<S>,
    pub(super) dice: Option<Vec<i64>>,
    pub(super) centre: Vec<S>,
    pub(super) captures: Vec<(S, i64)>,
    pub(super) scores: Option<Vec<(S, i64)>>,
}

pub(super) fn parse_loc(text: &str, board: &Board) -> std::result::Result<Loc, String> {
    match text {
        "centre" => return Ok(CENTRE),
        "captured" => return Ok(CAPTURED),
        _ => {}
    }
    match moves::parse_start(text) {
        Some(Start::Home(square)) => Ok(home(square.distance())),
        Some(Start::Space(circle, index)) => board
            .space(circle as usize, index as usize)
            .map(on_space)
            .ok_or_else(|| format!("the board has no space {text}")),
        None => Err(format!(
            "{text:?} is not a location: h1..h4, circle.index, centre or captured"
        )),
    }
}

/// Checks the seated colours of a `{colour: value}` map: known, seated, each present once.
pub(super) fn seat_keys<'a, S: AsRef<str>, T>(
    entries: &'a [(S, T)],
    game: &CompiledSetup,
    field: &str,
) -> Result<[Option<&'a T>; SEATS]> {
    let mut by_seat: [Option<&T>; SEATS] = [None; SEATS];
    for (name, value) in entries {
        let name = name.as_ref();
        let seat = colour_seat(name)
            .ok_or_else(|| Error::invalid_state(field, format!("{name:?} is not a colour")))?;
        if !game.seats.contains(&(seat as u8)) {
            return Err(Error::invalid_state(
                format!("{field}.{name}"),
                format!("{name} is not seated in this game"),
            ));
        }
        if by_seat[seat].is_some() {
            return Err(Error::invalid_state(
                format!("{field}.{name}"),
                format!("{name} appears twice"),
            ));
        }
        by_seat[seat] = Some(value);
    }
    if let Some(&missing) = game
        .seats
        .iter()
        .find(|&&s| by_seat[usize::from(s)].is_none())
    {
        let name = COLOURS[usize::from(missing)];
        return Err(Error::invalid_state(
            format!("{field}.{name}"),
            format!("{name} is seated but missing"),
        ));
    }
    Ok(by_seat)
}

impl Position {
    /// Builds a position from untrusted parts, checking everything that can be checked, in this
    /// order (the first refusal a state meets is part of the contract).
    pub(super) fn from_parts<S: AsRef<str>>(
        game: Arc<CompiledSetup>,
        chance: Chance,
        parts: Parts<S>,
    ) -> Result<Position> {
        let mut position = Position::initial(game.clone(), chance, NOBODY);
        position.place_pawns(&parts.pawns, &game)?;
        position.check_space_occupancy(&game)?;
        position.place_centre(&parts.centre, &game)?;
        position.check_centre_entries_match_pawns(&game)?;
        position.place_captures(&parts.captures, &game)?;
        position.compute_scores(&game);
        position.check_scores(parts.scores.as_deref(), &game)?;
        let over = position.is_over();
        position.place_to_move(parts.to_move.as_ref().map(AsRef::as_ref), over, &game)?;
        position.place_dice(parts.dice.as_deref(), over)?;
        Ok(position)
    }
}

pub(super) fn from_state(state: State) -> Result<Position> {
    let parts = Parts {
        pawns: state.pawns.into_iter().collect(),
        to_move: state.to_move,
        dice: state.dice,
        centre: state.centre,
        captures: state.captures.into_iter().collect(),
        scores: Some(state.scores.into_iter().collect()),
    };
    from_fields(
        &state.rules,
        state.variant,
        state.options,
        &state.rng,
        parts,
    )
}

/// The position of a state's fields (`from_state`'s, or the quick reader's borrowed ones).
pub(super) fn from_fields<S: AsRef<str>>(
    rules: &str,
    variant: Variant,
    options: Options,
    rng: &ChanceState,
    parts: Parts<S>,
) -> Result<Position> {
    crate::game::check_rules_version::<Hypnosia>(rules)?;
    let setup = Setup {
        variant,
        options,
        compiled: None,
    };
    let game = setup.compiled().map_err(|error| match error {
        Error::InvalidOptions { field, detail } => Error::InvalidState { field, detail },
        other => other,
    })?;
    let chance = Chance::from_state(rng, "rng")?;
    Position::from_parts(game, chance, parts)
}

pub(super) fn to_state(position: &Position) -> State {
    let game = &position.game;
    let seated = || {
        game.seats
            .iter()
            .map(|&s| (COLOURS[usize::from(s)].to_owned(), usize::from(s)))
    };
    State {
        rules: Hypnosia::RULES_VERSION.to_owned(),
        variant: Variant::Standard,
        options: game.options.clone(),
        rng: position.chance.to_state(),
        to_move: (position.to_move != NOBODY)
            .then(|| COLOURS[usize::from(position.to_move)].to_owned()),
        dice: (position.dice_len > 0)
            .then(|| position.dice().iter().map(|&d| i64::from(d)).collect()),
        pawns: seated()
            .map(|(name, s)| {
                (
                    name,
                    position.pawns[s]
                        .iter()
                        .map(|&l| position.loc_name(l))
                        .collect(),
                )
            })
            .collect(),
        scores: seated()
            .map(|(name, s)| (name, position.scores[s]))
            .collect(),
        centre: position
            .centre()
            .iter()
            .map(|&s| COLOURS[usize::from(s)].to_owned())
            .collect(),
        captures: seated()
            .map(|(name, s)| (name, i64::from(position.captures[s])))
            .collect(),
    }
}
