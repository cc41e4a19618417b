//! The JSON form of a state and the checked building of a position from its parts.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::board::{cell_name, PlayerSchema, ROW_LENGTHS};
use super::{invariants, Color, Iago, Options, Position, Setup, Variant};
use crate::borrowed::Name;
use crate::error::{Error, Result};
use crate::game::Rules;

/// The JSON form of an Iago state, its strings of type `S`: `String` as written, borrowed from the
/// text read where they have no escape (`Name`), so that reading a state copies none of them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "IagoState", description = "The JSON form of an Iago state.")]
pub struct State<S = String> {
    #[schemars(extend("const" = Iago::RULES_VERSION))]
    pub rules: S,
    #[serde(default)]
    pub variant: Variant,
    #[serde(default, deserialize_with = "crate::strict::object")]
    pub options: Options,
    /// Rows a..i (5, 6, 7, 8, 9, 8, 7, 6, 5 hexes), one character a hex: `.` empty, `B`/`W` face
    /// up, `b`/`w` captive.
    #[schemars(length(equal = 9), inner(regex(pattern = r"^[.BWbw]{5,9}$")))]
    #[serde(deserialize_with = "rows")]
    pub board: Vec<S>,
    #[schemars(with = "PlayerSchema")]
    pub to_move: S,
    /// The side to move may claim a skipped forced capture (penalty option).
    #[serde(default)]
    pub penalty_claim: bool,
}

impl Position {
    /// Builds a position from untrusted parts, checking everything that can be checked.
    pub(super) fn from_parts<S: AsRef<str>>(
        rows: &[S],
        to_move: &str,
        penalty_claim: bool,
        setup: Setup,
    ) -> Result<Self> {
        let mut position = Position::empty(setup);
        position.read_rows(rows)?;
        position.checked(parse_side(to_move)?, penalty_claim)
    }

    /// This position's discs (read) with `to_move` and `penalty_claim`, once every check passes.
    pub(super) fn checked(mut self, to_move: Color, penalty_claim: bool) -> Result<Self> {
        self.to_move = to_move;
        self.check_supply()?;
        self.check_side_to_move()?;
        self.check_last_disc_face_up()?;
        self.check_penalty_claim(penalty_claim)?;
        self.penalty_claim = penalty_claim;
        invariants::captives_are_flanked(&self)?;
        invariants::anchor_discs_show_a_flip(&self)?;
        Ok(self)
    }

    /// Places the discs of the 9 rows a..i, refusing a wrong row count, row length or character.
    pub(super) fn read_rows<S: AsRef<str>>(&mut self, rows: &[S]) -> Result<()> {
        if rows.len() != ROW_LENGTHS.len() {
            return Err(Error::invalid_state(
                "board",
                format!("the board has 9 rows (a to i), not {}", rows.len()),
            ));
        }
        let mut cell = 0;
        for (index, (row, &len)) in rows.iter().zip(&ROW_LENGTHS).enumerate() {
            self.read_row(index, row.as_ref(), len, cell)?;
            cell += len;
        }
        Ok(())
    }

    /// Places the discs of row `index`, of `len` hexes, whose first hex is `first_cell`.
    pub(super) fn read_row(
        &mut self,
        index: usize,
        row: &str,
        len: usize,
        first_cell: usize,
    ) -> Result<()> {
        let name = (b'a' + index as u8) as char;
        let field = || format!("board[{index}]");
        // Every hex is one ASCII character: a row of other characters is refused below.
        let hexes = if row.is_ascii() {
            row.len()
        } else {
            row.chars().count()
        };
        if hexes != len {
            return Err(Error::invalid_state(
                field(),
                format!("row {name} has {len} hexes, not {hexes}"),
            ));
        }
        for (at, byte) in row.bytes().enumerate() {
            let cell = first_cell + at;
            // Looked up, not matched: a board's discs are not predictable, a branch on each is.
            let Some([black, white, captive]) = DISCS[usize::from(byte)] else {
                // The characters before are ASCII: the one at byte `at` is the `at`th.
                let ch = row[at..].chars().next().unwrap_or_default();
                return Err(Error::invalid_state(
                    field(),
                    format!(
                        "row {name}: {ch:?} at {} is not one of . B W b w",
                        cell_name(cell)
                    ),
                ));
            };
            self.owners[0] |= black << cell;
            self.owners[1] |= white << cell;
            self.captive |= captive << cell;
        }
        Ok(())
    }
}

/// What each byte of a row places: (black, white, captive) as 0 or 1, `None` for a byte that is
/// not one of `. B W b w`.
const DISCS: [Option<[u64; 3]>; 256] = {
    let mut table = [None; 256];
    table[b'.' as usize] = Some([0, 0, 0]);
    table[b'B' as usize] = Some([1, 0, 0]);
    table[b'W' as usize] = Some([0, 1, 0]);
    table[b'b' as usize] = Some([1, 0, 1]);
    table[b'w' as usize] = Some([0, 1, 1]);
    table
};

/// The side to move as the state (`black`, `white`) or the position text (`b`, `w`) spells it.
pub(super) fn parse_side(to_move: &str) -> Result<Color> {
    match to_move {
        "black" | "b" => Ok(Color::Black),
        "white" | "w" => Ok(Color::White),
        other => Err(Error::invalid_state(
            "to_move",
            format!("side to move is black or white, not {other:?}"),
        )),
    }
}

/// The position of a state, checked in this order: the rules version, the setup, the board, the
/// side to move, then all of them together (`Position::checked`).
pub(super) fn from_state<S: AsRef<str>>(state: State<S>) -> Result<Position> {
    crate::game::check_rules_version::<Iago>(state.rules.as_ref())?;
    let setup = Setup {
        variant: state.variant,
        options: state.options,
    }
    .check()
    .map_err(|(field, detail)| Error::InvalidState { field, detail })?;
    Position::from_parts(
        &state.board,
        state.to_move.as_ref(),
        state.penalty_claim,
        setup,
    )
}

/// The board's rows, read into room for 9 (serde's `Vec` grows from none).
fn rows<'de, D: serde::Deserializer<'de>, S: Deserialize<'de>>(
    deserializer: D,
) -> std::result::Result<Vec<S>, D::Error> {
    struct Rows<S>(std::marker::PhantomData<S>);
    impl<'de, S: Deserialize<'de>> serde::de::Visitor<'de> for Rows<S> {
        type Value = Vec<S>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a sequence")
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> std::result::Result<Vec<S>, A::Error> {
            let mut rows = Vec::with_capacity(ROW_LENGTHS.len());
            while let Some(row) = seq.next_element()? {
                rows.push(row);
            }
            Ok(rows)
        }
    }
    deserializer.deserialize_seq(Rows(std::marker::PhantomData))
}

/// A state object read in one pass, its strings borrowed from the text: the position, or the
/// refusal of its checks; `Err` when it is not a state's shape.
pub(super) fn read<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> std::result::Result<Result<Position>, D::Error> {
    let state: State<Name<'de>> = crate::strict::object(deserializer)?;
    Ok(from_state(state))
}

/// A position's state as `State` says, written (its rows borrowed from one text of its cells).
pub(super) fn write<S: serde::Serializer>(
    position: &Position,
    serializer: S,
) -> std::result::Result<S::Ok, S::Error> {
    let cells = position.cells();
    State {
        rules: Iago::RULES_VERSION,
        variant: position.setup.variant,
        options: position.setup.options,
        board: super::position::rows(&cells).to_vec(),
        to_move: position.to_move.name(),
        penalty_claim: position.penalty_claim,
    }
    .serialize(serializer)
}
