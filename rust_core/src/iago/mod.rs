//! Iago: placement on a 61-hex board with captures (discs turn red) and releases (red discs turn
//! back), forced maximal capture, and the outer-area/centre restrictions. Spec: `rules/iago.md`.

mod geometry;
mod invariants;

use std::collections::BTreeMap;
use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::error::{Error, Result};
use crate::game::{Outcome, Rules, Status};
pub use geometry::{cell_name, parse_cell, CELL_COUNT};
use geometry::{
    cell_names, cells_of, ALL, ANCHORS, CENTRE, CENTRE_CELL, INNER, NEIGHBOURS, OUTER, RAYS,
    ROW_LENGTHS,
};

/// Black places at most 31 discs, White at most 30.
const SUPPLY: [u32; 2] = [31, 30];

pub use crate::players::Color;

// The contract's name for a colour of Iago (the type is the shared `Color`). No doc comment: it
// would become the schema's description.
#[derive(JsonSchema)]
#[schemars(rename = "IagoPlayer", rename_all = "lowercase")]
#[allow(dead_code)] // a schema only
enum PlayerSchema {
    Black,
    White,
}

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
    fn check(self) -> std::result::Result<Self, (String, String)> {
        if self.options.penalty && self.variant != Variant::Standard {
            return Err((
                "options.penalty".into(),
                "the penalty option combines with the standard rules only".into(),
            ));
        }
        Ok(self)
    }
}

/// A valid Iago position. Discs are split by owner (`black`, `white`); `captive` marks the discs that
/// show their red side. A disc is "up" when it shows its owner's colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    owners: [u64; 2],
    captive: u64,
    to_move: Color,
    /// The side to move may claim a skipped forced capture: one free placement.
    penalty_claim: bool,
    setup: Setup,
}

/// Moves in a module of their own, so that nothing, this file included, builds one but through
/// `Move::new`: a move always names a cell of the board, and `1u64 << cell` cannot overflow.
mod placement {
    use super::geometry::CELL_COUNT;

    /// A placement: the cell a disc is put on, always one of the board's 61.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct Move(u8);

    impl Move {
        /// The placement on `cell`, if the board has that cell.
        pub fn new(cell: usize) -> Option<Move> {
            (cell < CELL_COUNT).then_some(Move(cell as u8))
        }

        /// The cell placed on, below `CELL_COUNT`.
        pub fn cell(self) -> usize {
            usize::from(self.0)
        }
    }
}

pub use placement::Move;

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&cell_name(self.cell()))
    }
}

/// The flips a placement causes, computed on the board before it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Flips {
    captured: u64,
    released: u64,
}

impl Flips {
    fn any(self) -> bool {
        self.captured | self.released != 0
    }
}

/// The legal placements of a turn, and the facts that explain why others are not.
struct Turn {
    legal: u64,
    /// The legal placements if no penalty claim were pending.
    normal: u64,
    /// Hexes with the largest capture count, when forced capture applies.
    forced: u64,
    max_capture: u32,
    /// Placements allowed by rules 2 and 3 (the only ones without forced capture).
    free: u64,
}

/// What a move did, as reported to clients.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[schemars(rename = "IagoEffects")]
pub struct Effects {
    #[schemars(with = "PlayerSchema")]
    pub player: &'static str,
    /// The cell the disc was placed on.
    pub cell: String,
    /// Discs turned captive.
    pub captured: Vec<String>,
    /// Captives turned face up.
    pub released: Vec<String>,
    /// The move skipped a forced capture (penalty option): the opponent may claim a free placement.
    pub penalty_skip: bool,
    /// The move used a pending penalty claim: rules 1–3 did not restrict it.
    pub penalty_claimed: bool,
}

impl Position {
    pub fn empty(setup: Setup) -> Self {
        Position {
            owners: [0, 0],
            captive: 0,
            to_move: Color::Black,
            penalty_claim: false,
            setup,
        }
    }

    pub fn setup(&self) -> Setup {
        self.setup
    }

    fn occupied(&self) -> u64 {
        self.owners[0] | self.owners[1]
    }

    fn up(&self, color: Color) -> u64 {
        self.owners[color as usize] & !self.captive
    }

    /// The owner of the disc on an occupied `cell`.
    fn owner_of(&self, cell: usize) -> Color {
        if self.owners[0] >> cell & 1 == 1 {
            Color::Black
        } else {
            Color::White
        }
    }

    pub fn is_finished(&self) -> bool {
        INNER & !self.occupied() == 0
    }

    /// Captures and releases of a placement at `cell` by the side to move, in all six directions.
    fn flips(&self, cell: usize) -> Flips {
        let own_up = self.up(self.to_move);
        let opponent_up = self.up(self.to_move.other());
        let releases = self.setup.variant != Variant::Simple;
        let mut flips = Flips::default();
        for ray in &RAYS[cell] {
            let cells = ray.cells();
            let Some(&first) = cells.first() else {
                continue;
            };
            // The first hex decides which flip a run can be: opponent up → capture, captive → release.
            let run_of = if opponent_up >> first & 1 == 1 {
                opponent_up
            } else if releases && self.captive >> first & 1 == 1 {
                self.captive
            } else {
                continue;
            };
            let mut run = 0u64;
            for &next in cells {
                let bit = 1u64 << next;
                if run_of & bit != 0 {
                    run |= bit;
                    continue;
                }
                if own_up & bit != 0 {
                    if run_of == opponent_up {
                        flips.captured |= run;
                    } else if (1u64 << cell | bit) & ANCHORS != 0 {
                        flips.released |= run;
                    }
                }
                break;
            }
        }
        flips
    }

    fn turn(&self) -> Turn {
        let empty = ALL & !self.occupied();
        // Only a hex next to an opponent's face-up disc or a captive can flip anything.
        let near = self.up(self.to_move.other()) | self.captive;
        let mut flipping = 0u64;
        let mut forced = 0u64;
        let mut max_capture = 0u32;
        for cell in cells_of(empty) {
            if NEIGHBOURS[cell] & near == 0 {
                continue;
            }
            let flips = self.flips(cell);
            if flips.any() {
                flipping |= 1 << cell;
            }
            let count = flips.captured.count_ones();
            if count > max_capture {
                max_capture = count;
                forced = 0;
            }
            if count == max_capture && count > 0 {
                forced |= 1 << cell;
            }
        }
        // Rule 2: inner hexes but the centre; outer hexes and the centre only with a flip action.
        let mut free = empty & INNER & !CENTRE | empty & ANCHORS & flipping;
        // Rule 3: the centre, last inner hole, when no outer hex is playable.
        if empty & INNER == CENTRE && free & OUTER == 0 {
            free |= CENTRE;
        }
        let forced_capture = self.setup.variant != Variant::Loose && max_capture > 0;
        let normal = if !forced_capture {
            free
        } else if self.setup.options.penalty {
            forced | free
        } else {
            forced
        };
        let legal = if self.penalty_claim { empty } else { normal };
        Turn {
            legal,
            normal,
            forced: if forced_capture { forced } else { 0 },
            max_capture,
            free,
        }
    }

    /// Why a placement on an empty `cell` is not legal.
    fn refusal(&self, cell: usize, turn: &Turn) -> Error {
        let bit = 1u64 << cell;
        let name = cell_name(cell);
        if turn.forced != 0 && turn.free & bit != 0 {
            let cells = cell_names(turn.forced);
            return Error::illegal_move(
                "forced-capture",
                format!(
                    "a capture of {} is available at {}: {name} captures fewer",
                    turn.max_capture,
                    cells.join(", ")
                ),
                json!({ "capture": turn.max_capture, "cells": cells }),
            );
        }
        let (rule, detail) = if bit & CENTRE != 0 {
            (
                "centre-needs-flip",
                format!(
                    "{name} is the centre: it may be taken only by a placement that flips discs, or as \
                     the last empty inner hex when no outer hex can be taken"
                ),
            )
        } else {
            (
                "outer-needs-flip",
                format!("{name} is in the outer area: a placement there must flip discs"),
            )
        };
        let mut data = json!({});
        let mut detail = detail;
        if turn.forced != 0 {
            let cells = cell_names(turn.forced);
            detail = format!(
                "{detail}; a capture of {} is available at {}",
                turn.max_capture,
                cells.join(", ")
            );
            data = json!({ "capture": turn.max_capture, "cells": cells });
        }
        Error::illegal_move(rule, detail, data)
    }

    pub fn legal_moves(&self) -> Vec<Move> {
        if self.is_finished() {
            return Vec::new();
        }
        cells_of(self.turn().legal).filter_map(Move::new).collect()
    }

    pub fn play(&self, mv: Move) -> Result<(Position, Effects)> {
        if self.is_finished() {
            return Err(Error::GameOver);
        }
        let cell = mv.cell();
        let bit = 1u64 << cell;
        if self.occupied() & bit != 0 {
            return Err(Error::illegal_move(
                "occupied",
                format!("{} already holds a disc", cell_name(cell)),
                json!({}),
            ));
        }
        let turn = self.turn();
        if turn.legal & bit == 0 {
            return Err(self.refusal(cell, &turn));
        }
        let flips = self.flips(cell);
        let (next, penalty_skip) = self.apply(cell, flips, &turn);
        let effects = Effects {
            player: self.to_move.name(),
            cell: cell_name(cell),
            captured: cell_names(flips.captured),
            released: cell_names(flips.released),
            penalty_skip,
            penalty_claimed: self.penalty_claim && turn.normal & bit == 0,
        };
        Ok((next, effects))
    }

    /// The position after a legal placement on `cell` with its `flips`; also whether it skipped a
    /// forced capture.
    fn apply(&self, cell: usize, flips: Flips, turn: &Turn) -> (Position, bool) {
        let bit = 1u64 << cell;
        let penalty_skip = !self.penalty_claim && turn.forced != 0 && turn.forced & bit == 0;
        let mut next = *self;
        next.owners[self.to_move as usize] |= bit;
        next.captive = (self.captive | flips.captured) & !flips.released;
        next.to_move = self.to_move.other();
        // A skip that ends the game leaves nothing to claim.
        next.penalty_claim = penalty_skip && !next.is_finished();
        (next, penalty_skip)
    }

    /// Placements counted by bulk: the last ply is the size of the legal set.
    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        if self.is_finished() {
            return 0;
        }
        let turn = self.turn();
        if depth == 1 {
            return u64::from(turn.legal.count_ones());
        }
        cells_of(turn.legal)
            .map(|cell| self.apply(cell, self.flips(cell), &turn).0.perft(depth - 1))
            .sum()
    }

    pub fn score(&self, color: Color) -> i64 {
        let up = self.up(color);
        if self.setup.variant == Variant::Simple {
            return i64::from(up.count_ones());
        }
        let factor = |area: u64| i64::from((up & area).count_ones().max(1));
        factor(INNER) * factor(OUTER)
    }

    pub fn outcome(&self) -> Outcome {
        let (black, white) = (self.score(Color::Black), self.score(Color::White));
        let scores = BTreeMap::from([("black", black), ("white", white)]);
        if !self.is_finished() {
            return Outcome {
                status: Status::Ongoing,
                to_move: Some(self.to_move.name()),
                scores,
                winner: None,
                decided_by: None,
                ranking: None,
            };
        }
        let (winner, decided_by) = if black != white {
            (
                if black > white {
                    Color::Black
                } else {
                    Color::White
                },
                "score",
            )
        } else {
            // Tie: the centre disc's owner wins if it is face up, loses if it is captive.
            let owner = if self.owners[0] & CENTRE != 0 {
                Color::Black
            } else {
                Color::White
            };
            if self.captive & CENTRE == 0 {
                (owner, "centre-face-up")
            } else {
                (owner.other(), "centre-captive")
            }
        };
        Outcome {
            status: Status::Finished,
            to_move: None,
            scores,
            winner: Some(winner.name()),
            decided_by: Some(decided_by),
            ranking: None,
        }
    }

    /// The hexes as notation characters, in cell order.
    fn cell_chars(&self) -> impl Iterator<Item = char> + '_ {
        (0..CELL_COUNT).map(move |cell| {
            let bit = 1u64 << cell;
            let captive = self.captive & bit != 0;
            match (
                self.owners[0] & bit != 0,
                self.owners[1] & bit != 0,
                captive,
            ) {
                (true, _, false) => 'B',
                (true, _, true) => 'b',
                (_, true, false) => 'W',
                (_, true, true) => 'w',
                _ => '.',
            }
        })
    }

    /// The board as its 9 rows, a..i.
    pub fn rows(&self) -> Vec<String> {
        let chars: Vec<char> = self.cell_chars().collect();
        let mut start = 0;
        ROW_LENGTHS
            .iter()
            .map(|&len| {
                let row = chars[start..start + len].iter().collect();
                start += len;
                row
            })
            .collect()
    }

    /// Builds a position from untrusted parts, checking everything that can be checked.
    fn from_parts(rows: &[&str], to_move: &str, penalty_claim: bool, setup: Setup) -> Result<Self> {
        let mut position = Position::empty(setup);
        position.read_rows(rows)?;
        position.to_move = parse_side(to_move)?;
        position.check_supply()?;
        position.check_side_to_move()?;
        position.check_last_disc_face_up()?;
        position.check_penalty_claim(penalty_claim)?;
        position.penalty_claim = penalty_claim;
        invariants::captives_are_flanked(&position)?;
        invariants::anchor_discs_show_a_flip(&position)?;
        Ok(position)
    }

    /// Places the discs of the 9 rows a..i, refusing a wrong row count, row length or character.
    fn read_rows(&mut self, rows: &[&str]) -> Result<()> {
        if rows.len() != ROW_LENGTHS.len() {
            return Err(Error::invalid_state(
                "board",
                format!("the board has 9 rows (a to i), not {}", rows.len()),
            ));
        }
        let mut cell = 0;
        for (index, (row, &len)) in rows.iter().zip(&ROW_LENGTHS).enumerate() {
            self.read_row(index, row, len, cell)?;
            cell += len;
        }
        Ok(())
    }

    /// Places the discs of row `index`, of `len` hexes, whose first hex is `first_cell`.
    fn read_row(&mut self, index: usize, row: &str, len: usize, first_cell: usize) -> Result<()> {
        let name = (b'a' + index as u8) as char;
        let field = || format!("board[{index}]");
        if row.chars().count() != len {
            return Err(Error::invalid_state(
                field(),
                format!("row {name} has {len} hexes, not {}", row.chars().count()),
            ));
        }
        for (cell, ch) in (first_cell..).zip(row.chars()) {
            let bit = 1u64 << cell;
            match ch {
                '.' => {}
                'B' | 'b' => self.owners[0] |= bit,
                'W' | 'w' => self.owners[1] |= bit,
                _ => {
                    return Err(Error::invalid_state(
                        field(),
                        format!(
                            "row {name}: {:?} at {} is not one of . B W b w",
                            ch,
                            cell_name(cell)
                        ),
                    ))
                }
            }
            if ch == 'b' || ch == 'w' {
                self.captive |= bit;
            }
        }
        Ok(())
    }

    /// Neither colour has more discs on the board than in its supply.
    fn check_supply(&self) -> Result<()> {
        for color in [Color::Black, Color::White] {
            let placed = self.owners[color as usize].count_ones();
            if placed > SUPPLY[color as usize] {
                return Err(Error::invalid_state(
                    "board",
                    format!(
                        "{} has {placed} discs on the board but only {} in supply",
                        color.name(),
                        SUPPLY[color as usize]
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Black moves first and every placement adds one disc of the mover: counts fix the side to move.
    fn check_side_to_move(&self) -> Result<()> {
        let [black, white] = self.owners.map(u64::count_ones);
        let expected = match black.checked_sub(white) {
            Some(0) => Color::Black,
            Some(1) => Color::White,
            _ => {
                return Err(Error::invalid_state(
                    "board",
                    format!(
                        "black has {black} discs and white {white}: black must have as many as white or one more"
                    ),
                ))
            }
        };
        if self.to_move != expected {
            return Err(Error::invalid_state(
                "to_move",
                format!(
                    "with {black} black and {white} white discs {} is to move, not {}",
                    expected.name(),
                    self.to_move.name()
                ),
            ));
        }
        Ok(())
    }

    /// A placed disc never flips on its own turn, so the last mover's last disc is face up; and a
    /// finished game ended with that disc on the last empty inner hex. Needs the side to move checked.
    fn check_last_disc_face_up(&self) -> Result<()> {
        let last = self.to_move.other();
        if self.occupied() != 0 && self.up(last) == 0 {
            return Err(Error::invalid_state(
                "board",
                format!(
                    "{} moved last, so its last disc is face up, but all its discs are captive",
                    last.name()
                ),
            ));
        }
        if self.is_finished() && self.up(last) & INNER == 0 {
            return Err(Error::invalid_state(
                "board",
                format!(
                    "the game is over, so {} filled the last empty inner hex and has a face-up disc there",
                    last.name()
                ),
            ));
        }
        Ok(())
    }

    /// A pending penalty claim needs the option, a skippable capture before it, and a game going on.
    fn check_penalty_claim(&self, penalty_claim: bool) -> Result<()> {
        if !penalty_claim {
            return Ok(());
        }
        let why = if !self.setup.options.penalty {
            "the penalty option is off"
        } else if self.occupied().count_ones() < 3 {
            // A skip needs a capture to skip: an own and an opponent disc before it.
            "no forced capture can have been skipped with fewer than 3 discs on the board"
        } else if self.is_finished() {
            "the game is over"
        } else {
            return Ok(());
        };
        Err(Error::invalid_state(
            "penalty_claim",
            format!("a penalty claim cannot be pending: {why}"),
        ))
    }
}

/// The side to move as the state (`black`, `white`) or the position text (`b`, `w`) spells it.
fn parse_side(to_move: &str) -> Result<Color> {
    match to_move {
        "black" | "b" => Ok(Color::Black),
        "white" | "w" => Ok(Color::White),
        other => Err(Error::invalid_state(
            "to_move",
            format!("side to move is black or white, not {other:?}"),
        )),
    }
}

/// The JSON form of an Iago state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "IagoState")]
pub struct State {
    #[schemars(extend("const" = Iago::RULES_VERSION))]
    pub rules: String,
    #[serde(default)]
    pub variant: Variant,
    #[serde(default, deserialize_with = "crate::strict::object")]
    pub options: Options,
    /// Rows a..i (5, 6, 7, 8, 9, 8, 7, 6, 5 hexes), one character a hex: `.` empty, `B`/`W` face
    /// up, `b`/`w` captive.
    #[schemars(length(equal = 9), inner(regex(pattern = r"^[.BWbw]{5,9}$")))]
    pub board: Vec<String>,
    #[schemars(with = "PlayerSchema")]
    pub to_move: String,
    /// The side to move may claim a skipped forced capture (penalty option).
    #[serde(default)]
    pub penalty_claim: bool,
}

pub struct Iago;

impl Rules for Iago {
    const NAME: &'static str = "iago";
    const RULES_VERSION: &'static str = "iago@1";
    const PLAYERS: &'static [&'static str] = &<Color as crate::players::TwoPlayers>::NAMES;
    type Setup = Setup;
    type Position = Position;
    type Move = Move;
    type State = State;
    type Effects = Effects;

    fn info() -> Value {
        let cells: Vec<Value> = (0..CELL_COUNT)
            .map(|cell| {
                let area = if cell == CENTRE_CELL {
                    "centre"
                } else if OUTER >> cell & 1 == 1 {
                    "outer"
                } else {
                    "inner"
                };
                json!({ "cell": cell_name(cell), "area": area })
            })
            .collect();
        json!({
            "name": "iago",
            "title": "Iago",
            "rules": Self::RULES_VERSION,
            "players": Self::PLAYERS,
            "chance": false,
            "hidden_information": false,
            "variants": [
                { "name": "standard", "default": true, "description": "forced maximal capture, releases anchored on the outer area or the centre" },
                { "name": "loose", "description": "no forced capture" },
                { "name": "simple", "description": "no releases; every face-up disc scores 1" }
            ],
            "options": [
                { "name": "penalty", "type": "boolean", "default": false, "variants": ["standard"],
                  "description": "a forced capture may be skipped; the opponent may then claim one free placement" }
            ],
            "board": {
                "shape": "hexhex",
                "side": 5,
                "rows": ["a", "b", "c", "d", "e", "f", "g", "h", "i"],
                "row_lengths": ROW_LENGTHS,
                "centre": cell_name(CENTRE_CELL),
                "cells": cells,
            },
            "notation": {
                "move": "the cell placed on, e.g. e4",
                "position": "rows a..i joined by '/', one character a hex (. B W b w), then the side to move (b or w), then 'p' when a penalty claim is pending",
            },
        })
    }

    fn check_setup(setup: Setup) -> Result<Setup> {
        setup
            .check()
            .map_err(|(field, detail)| Error::InvalidOptions { field, detail })
    }

    fn start(setup: &Setup, _seed: Option<u64>) -> Position {
        Position::empty(*setup)
    }

    fn from_state(state: State) -> Result<Position> {
        crate::game::check_rules_version::<Self>(&state.rules)?;
        let setup = Setup {
            variant: state.variant,
            options: state.options,
        }
        .check()
        .map_err(|(field, detail)| Error::InvalidState { field, detail })?;
        let rows: Vec<&str> = state.board.iter().map(String::as_str).collect();
        Position::from_parts(&rows, &state.to_move, state.penalty_claim, setup)
    }

    fn to_state(position: &Position) -> State {
        State {
            rules: Self::RULES_VERSION.to_owned(),
            variant: position.setup.variant,
            options: position.setup.options,
            board: position.rows(),
            to_move: position.to_move.name().to_owned(),
            penalty_claim: position.penalty_claim,
        }
    }

    fn parse_position(text: &str, setup: &Setup) -> Result<Position> {
        let fields: Vec<&str> = text.split(' ').collect();
        let (board, to_move, claim) = match fields.as_slice() {
            [board, side] => (board, side, false),
            [board, side, "p"] => (board, side, true),
            _ => {
                return Err(Error::invalid_state(
                    "position",
                    "a position is the board, a space and the side to move (b or w), then ' p' if a penalty claim is pending",
                ))
            }
        };
        if !matches!(*to_move, "b" | "w") {
            return Err(Error::invalid_state(
                "position",
                format!("side to move is b or w, not {to_move:?}"),
            ));
        }
        let rows: Vec<&str> = board.split('/').collect();
        Position::from_parts(&rows, to_move, claim, *setup)
    }

    fn position_text(position: &Position) -> String {
        let side = if position.to_move == Color::Black {
            "b"
        } else {
            "w"
        };
        let claim = if position.penalty_claim { " p" } else { "" };
        format!("{} {side}{claim}", position.rows().join("/"))
    }

    fn to_move(position: &Position) -> Option<&'static str> {
        (!position.is_finished()).then(|| position.to_move.name())
    }

    fn parse_move(text: &str) -> Result<Move> {
        parse_cell(text).and_then(Move::new).ok_or_else(|| {
            Error::malformed_move(format!(
                "{text:?} is not a cell: a move is a cell name, a row a..i and a diagonal 1..9 (e.g. e4)"
            ))
        })
    }

    fn legal_moves(position: &Position) -> Vec<Move> {
        position.legal_moves()
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_board_offers_the_inner_hexes_but_the_centre() {
        let start = Position::empty(Setup::default());
        assert_eq!(start.legal_moves().len(), 36);
        assert_eq!(start.perft(2), 1260);
    }

    #[test]
    fn a_move_names_a_cell_of_the_board() {
        assert_eq!(Move::new(CELL_COUNT), None);
        assert_eq!(Move::new(u8::MAX.into()), None);
        for cell in 0..CELL_COUNT {
            let mv = Move::new(cell).unwrap();
            assert_eq!(Iago::parse_move(&mv.to_string()), Ok(mv));
        }
    }
}
