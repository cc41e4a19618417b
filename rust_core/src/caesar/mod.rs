//! Caesar!: two players place influence tokens on the borders of 18 provinces; a province whose
//! borders are all filled closes and goes to the higher sum; the first to place 12 control markers
//! wins. Spec: `docs/rules/caesar.md` (names, notation and list orders: its last section).

mod actions;
pub mod board;
mod draws;
mod generate;
mod invariants;
mod moves;
mod notation;
mod observation;
mod position;
mod reader;
mod setup;
mod state;

use std::collections::BTreeMap;

use serde::{Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::{json, Value};

use crate::chance::ChanceKeys;
use crate::error::{Error, Result};
use crate::game::{CheckedSetup, Outcome, Rules};
use crate::info::{Described, GameOption, GameVariant, Info};
use board::{
    border_id, parse_token, province_code, token_icon_name, Bonus, BAG_SIZE, BORDERS, BORDER_COUNT,
    CONTROL_MARKERS, IT, PROVINCES, PROVINCE_MASK, START_HAND_LIMIT, TOKENS,
};
pub use board::{Player, Tokens};
pub use moves::{Closure, Effects};
use notation::parse_move;
pub use notation::{BorderIndex, Choice, Move, ProvinceIndex, Target};
pub use position::{DecidedBy, Placed, Position, View};
use setup::{check_setup, start};
pub use setup::{Options, Setup, Variant};
pub use state::{BorderState, Ordered, PerPlayer, ProvinceState, State};

pub struct Caesar;

impl Rules for Caesar {
    const NAME: &'static str = "caesar";
    const RULES_VERSION: &'static str = "caesar@1";
    const HIDDEN_INFORMATION: bool = true;
    const PLAYERS: &'static [&'static str] = &["caesar", "pompey"];
    const DECIDED_BY: &'static [(&'static str, &'static str)] = DecidedBy::GLOSSARY;
    type Setup = Setup;
    type Position = Position;
    type Move = Move;
    type State = State;
    type Effects = Effects;

    fn validate_setup(setup: Setup) -> Result<Setup> {
        check_setup(setup)
    }

    fn fixes_hidden_start(setup: &Setup) -> bool {
        setup.options.hands.is_some()
    }

    fn start(
        setup: &CheckedSetup<Setup>,
        seed: Option<u64>,
        keys: Option<&ChanceKeys>,
    ) -> Position {
        start(setup, seed, keys)
    }

    fn read_state<'de, D: Deserializer<'de>>(
        deserializer: D,
        keys: Option<&ChanceKeys>,
    ) -> std::result::Result<Result<Position>, D::Error> {
        reader::read(deserializer, keys)
    }

    fn write_state<S: Serializer>(
        position: &Position,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        state::Written(position).serialize(serializer)
    }

    fn parse_position(
        text: &str,
        _setup: &CheckedSetup<Setup>,
        keys: Option<&ChanceKeys>,
    ) -> Result<Position> {
        position::read_text(text, keys)
    }

    fn position_text(position: &Position) -> String {
        position::text(position)
    }

    fn to_move(position: &Position) -> Option<&'static str> {
        position.active().map(Player::name)
    }

    fn parse_move(text: &str) -> Result<Move> {
        parse_move(text)
    }

    fn legal_moves(position: &Position) -> Vec<Move> {
        position.legal_moves()
    }

    fn legal_move_texts(position: &Position) -> Vec<String> {
        position.legal_move_texts()
    }

    fn play(position: &Position, mv: Move) -> Result<(Position, Effects)> {
        position.play(mv)
    }

    fn outcome(position: &Position) -> Outcome {
        position.outcome()
    }

    fn perft(position: &Position, depth: u32) -> u64 {
        position.perft(depth)
    }

    fn view(position: &Position, player: &str) -> Result<Value> {
        let viewer =
            Player::parse(player).ok_or_else(|| Error::unknown_player(player, Self::PLAYERS))?;
        Ok(position.view(viewer))
    }

    fn view_json(position: &Position, player: &str) -> Result<Box<RawValue>> {
        let viewer =
            Player::parse(player).ok_or_else(|| Error::unknown_player(player, Self::PLAYERS))?;
        Ok(serde_json::value::to_raw_value(&position.view_of(viewer)).expect("a view serializes"))
    }
}

/// What only the game's description tells; the rest is its constants'.
impl Described for Caesar {
    fn info() -> Info {
        let provinces: Vec<Value> = PROVINCES
            .iter()
            .enumerate()
            .map(|(q, (code, name, _))| {
                let borders: Vec<&str> = (0..BORDER_COUNT)
                    .filter(|b| PROVINCE_MASK[q] >> b & 1 == 1)
                    .map(border_id)
                    .collect();
                let spaces: Vec<&str> = if q == IT {
                    vec!["IT", "IT*"]
                } else {
                    vec![code]
                };
                json!({ "code": code, "name": name, "borders": borders, "spaces": spaces })
            })
            .collect();
        let borders: Vec<Value> = BORDERS
            .iter()
            .enumerate()
            .map(|(b, &(a, c, icon))| {
                json!({ "id": border_id(b), "provinces": [province_code(a), province_code(c)], "icon": icon.name() })
            })
            .collect();
        let tokens: Vec<Value> = TOKENS
            .iter()
            .map(|&(code, _, hi, lo, count)| {
                json!({ "code": code, "icon": token_icon_name(parse_token(code).unwrap_or(0)), "numbers": [hi, lo], "count": count })
            })
            .collect();
        let bonuses: Vec<Value> = Bonus::ALL
            .iter()
            .map(|b| {
                let effect = match b {
                    Bonus::Senate => "kept; on winning the province, place as many markers under it as Senate tokens held",
                    Bonus::Tactics => "T: take another turn after this one (once per placement)",
                    Bonus::Wealth => "W: hand limit +1 and draw one token at once",
                    Bonus::Might => "M:<target>: flip one of the opponent's face-up uncovered tokens or province markers",
                };
                json!({ "name": b.name(), "count": b.count(), "effect": effect })
            })
            .collect();
        let variants = vec![GameVariant::default("standard", "the base game for two players")];
        let options = vec![
            GameOption::new("bonuses", "object", Value::Null,
                "each province but IT to its bonus (5 senate, 4 tactics, 4 wealth, 4 might); drawn when absent"),
            GameOption::new("hands", "object", Value::Null,
                "{\"caesar\": [t, t], \"pompey\": [t, t]}: the starting hands; drawn when absent"),
        ];
        let board = json!({
            "provinces": provinces,
            "borders": borders,
            "italia_spaces": ["IT", "IT*"],
            "icons": ["sword", "shield", "ship"],
        });
        let notation = [
            ("move", "<token>@<A>-<B>, larger number toward A; then one choice per Tactics/Wealth/Might closure (T, W, M:<border or province>, -); then =<token> per draw, all or none (e.g. S60@HC-HU T =D42)"),
            ("position", position::POSITION_NOTATION),
        ];
        let mut info = Info::of::<Self>("Caesar!", variants, options, board, &notation);
        info.more = BTreeMap::from([
            ("tokens", json!(tokens)),
            ("bag_size", json!(BAG_SIZE)),
            ("bonus_tokens", json!(bonuses)),
            ("italia_bonus", json!("senate")),
            ("control_markers", json!(CONTROL_MARKERS)),
            ("hand_limit", json!(START_HAND_LIMIT)),
        ]);
        info
    }
}
