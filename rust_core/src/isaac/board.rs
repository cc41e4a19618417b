//! The 10 × 10 board: cell indices and names, row and column line masks, piece masks and the
//! shift-and-mask search for every place a piece fits, all as `u128` bitboards.
//!
//! Cell index = (row − 1) × 10 + column (a = 0), so `a1` is 0, `j1` is 9, `a2` is 10 and `j10` is 99.
//! A set of cells is a `u128` whose bit `i` is cell `i`. Also here: the score track's target and
//! bound, and the players' schema.

use schemars::JsonSchema;

use crate::digits::push_number;

pub const SIDE: usize = 10;
pub const CELL_COUNT: usize = SIDE * SIDE;
pub const ALL: u128 = (1u128 << CELL_COUNT) - 1;
pub const MIN_LENGTH: usize = 3;
pub const MAX_LENGTH: usize = 7;
/// The lengths of the pieces, shortest first (the order of the legal-move list).
pub const LENGTHS: [usize; 5] = [3, 4, 5, 6, 7];
/// Pieces of each length (index = length − 3) that every player owns.
pub const SUPPLY: [u8; 5] = [5, 4, 3, 2, 1];
/// Value in dots of a piece of each length (index = length − 3).
pub const VALUE: [u32; 5] = [1, 2, 3, 4, 6];
/// Pieces a player owns in all.
pub const PIECES_PER_PLAYER: usize = 15;

/// Row `r` (0-based) of the board.
pub const ROWS: [u128; SIDE] = {
    let mut rows = [0u128; SIDE];
    let mut row = 0;
    while row < SIDE {
        rows[row] = ((1u128 << SIDE) - 1) << (row * SIDE);
        row += 1;
    }
    rows
};

/// Column `c` (0 = `a`) of the board.
pub const COLUMNS: [u128; SIDE] = {
    let mut columns = [0u128; SIDE];
    let mut column = 0;
    while column < SIDE {
        let mut row = 0;
        while row < SIDE {
            columns[column] |= 1u128 << (row * SIDE + column);
            row += 1;
        }
        column += 1;
    }
    columns
};

/// For each length (index = length − 3) and orientation (0 horizontal, 1 vertical): the cells where a
/// piece's lower-left end may stand so that the piece lies wholly on the board.
const ANCHORS: [[u128; 2]; 5] = {
    let mut anchors = [[0u128; 2]; 5];
    let mut index = 0;
    while index < 5 {
        let length = index + MIN_LENGTH;
        let mut row = 0;
        while row < SIDE {
            anchors[index][0] |= ((1u128 << (SIDE + 1 - length)) - 1) << (row * SIDE);
            row += 1;
        }
        let mut row = 0;
        while row + length <= SIDE {
            anchors[index][1] |= ROWS[row];
            row += 1;
        }
        index += 1;
    }
    anchors
};

/// For each length (index = length − 3) and orientation (0 horizontal, 1 vertical): the cells of a
/// piece whose lower-left end is cell 0. A piece's cells are its shape shifted to its anchor.
const SHAPES: [[u128; 2]; 5] = {
    let mut shapes = [[0u128; 2]; 5];
    let mut index = 0;
    while index < 5 {
        let mut k = 0;
        while k < index + MIN_LENGTH {
            shapes[index][0] |= 1u128 << k;
            shapes[index][1] |= 1u128 << (k * SIDE);
            k += 1;
        }
        index += 1;
    }
    shapes
};

pub fn cell_name(cell: usize) -> String {
    let mut name = String::with_capacity(3);
    push_cell_name(&mut name, cell);
    name
}

/// Appends a cell's name: its column `a`..`j`, then its row `1`..`10`.
fn push_cell_name(out: &mut String, cell: usize) {
    out.push(char::from(b'a' + (cell % SIDE) as u8));
    push_number(out, (cell / SIDE + 1) as u64);
}

/// A cell name: a column `a`..`j` and a row `1`..`10` in decimal without leading zeros.
pub fn parse_cell(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let (&column, row) = bytes.split_first()?;
    if !(b'a'..=b'j').contains(&column) {
        return None;
    }
    let row: usize = match row {
        [digit @ b'1'..=b'9'] => usize::from(digit - b'0'),
        b"10" => 10,
        _ => return None,
    };
    Some((row - 1) * SIDE + usize::from(column - b'a'))
}

/// The cells of a set, in ascending index order.
pub fn cells_of(mut set: u128) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if set == 0 {
            return None;
        }
        let cell = set.trailing_zeros() as usize;
        set &= set - 1;
        Some(cell)
    })
}

pub fn cell_names(set: u128) -> Vec<String> {
    cells_of(set).map(cell_name).collect()
}

/// A straight piece on the board: its lower-left end, its length and its orientation. Every `Piece`
/// lies wholly on the board (the constructors check it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Piece {
    anchor: u8,
    length: u8,
    vertical: bool,
}

impl Piece {
    pub fn new(anchor: usize, length: usize, vertical: bool) -> Option<Piece> {
        if !(MIN_LENGTH..=MAX_LENGTH).contains(&length) || anchor >= CELL_COUNT {
            return None;
        }
        (ANCHORS[length - MIN_LENGTH][usize::from(vertical)] >> anchor & 1 == 1).then_some(Piece {
            anchor: anchor as u8,
            length: length as u8,
            vertical,
        })
    }

    /// The lower-left end.
    pub fn anchor(self) -> usize {
        usize::from(self.anchor)
    }

    /// The number of cells, 3 to 7.
    pub fn length(self) -> usize {
        usize::from(self.length)
    }

    pub fn vertical(self) -> bool {
        self.vertical
    }

    /// The piece whose cells are exactly `mask`, if `mask` is one.
    pub fn from_mask(mask: u128) -> Option<Piece> {
        if mask == 0 || mask & !ALL != 0 {
            return None;
        }
        let anchor = mask.trailing_zeros() as usize;
        let length = mask.count_ones() as usize;
        let vertical = mask >> anchor & 0b10 == 0;
        Piece::new(anchor, length, vertical).filter(|piece| piece.mask() == mask)
    }

    pub fn mask(self) -> u128 {
        SHAPES[self.length() - MIN_LENGTH][usize::from(self.vertical)] << self.anchor
    }

    fn step(self) -> usize {
        if self.vertical {
            SIDE
        } else {
            1
        }
    }

    /// The upper-right end.
    pub fn end(self) -> usize {
        usize::from(self.anchor) + (usize::from(self.length) - 1) * self.step()
    }

    /// The full row (horizontal piece) or column (vertical piece) the piece lies in.
    pub fn line(self) -> u128 {
        let anchor = usize::from(self.anchor);
        if self.vertical {
            COLUMNS[anchor % SIDE]
        } else {
            ROWS[anchor / SIDE]
        }
    }

    /// The line as words: `row 5` or `column d`.
    pub fn line_name(self) -> String {
        let anchor = usize::from(self.anchor);
        if self.vertical {
            format!("column {}", (b'a' + (anchor % SIDE) as u8) as char)
        } else {
            format!("row {}", anchor / SIDE + 1)
        }
    }

    pub fn value(self) -> u32 {
        VALUE[usize::from(self.length) - MIN_LENGTH]
    }

    /// Parses `c4-g4`: two cells in one row or column, lower-left end first, 3 to 7 cells apart.
    pub fn parse(text: &str) -> Result<Piece, String> {
        let Some((first, last)) = text.split_once('-') else {
            return Err(format!(
                "{text:?} is not a piece: a piece is its two end cells, lower-left first (e.g. c4-g4)"
            ));
        };
        let cell = |name: &str| {
            parse_cell(name)
                .ok_or_else(|| format!("{name:?} is not a cell: a column a..j and a row 1..10"))
        };
        let (first, last) = (cell(first)?, cell(last)?);
        let (vertical, span) = if first / SIDE == last / SIDE && last > first {
            (false, last - first)
        } else if first % SIDE == last % SIDE && last > first {
            (true, (last - first) / SIDE)
        } else if first == last || (first / SIDE != last / SIDE && first % SIDE != last % SIDE) {
            return Err(format!(
                "{text:?} is not a piece: its ends must be two cells of one row or one column"
            ));
        } else {
            return Err(format!(
                "{text:?} is not a piece: the lower-left end comes first ({}-{})",
                cell_name(last),
                cell_name(first)
            ));
        };
        Piece::new(first, span + 1, vertical).ok_or_else(|| {
            format!(
                "{text:?} is not a piece: a piece is 3 to 7 cells long, not {}",
                span + 1
            )
        })
    }
}

impl Piece {
    /// Appends the piece's name to `out`: its two end cells, lower-left first (a state and a list
    /// of legal moves write many pieces, and `write!` costs several times more).
    pub fn push_name(&self, out: &mut String) {
        push_cell_name(out, self.anchor());
        out.push('-');
        push_cell_name(out, self.end());
    }
}

impl std::fmt::Display for Piece {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut name = String::with_capacity(7); // `a10-j10` at most
        self.push_name(&mut name);
        f.write_str(&name)
    }
}

/// The pieces of `length` lying on `empty` cells only, by anchor: the anchors `fitting` finds put
/// every piece wholly on the board, so none is checked again.
pub fn fitting_pieces(empty: u128, length: usize, vertical: bool) -> impl Iterator<Item = Piece> {
    pieces_at(fitting(empty, length, vertical), length, vertical)
}

/// The pieces of `length` at `anchors` (cells where such a piece fits), by anchor.
pub fn pieces_at(anchors: u128, length: usize, vertical: bool) -> impl Iterator<Item = Piece> {
    cells_of(anchors).map(move |anchor| Piece {
        anchor: anchor as u8,
        length: length as u8,
        vertical,
    })
}

/// The cells where the lower-left end of a piece of `length` may stand so that the piece lies on
/// `empty` cells only: the empty anchors, shifted-and-masked once per further cell.
pub fn fitting(empty: u128, length: usize, vertical: bool) -> u128 {
    let step = if vertical { SIDE } else { 1 };
    let mut anchors = empty & ANCHORS[length - MIN_LENGTH][usize::from(vertical)];
    for k in 1..length {
        anchors &= empty >> (k * step);
    }
    anchors
}

/// A score at or above this wins at once.
pub const TARGET: u16 = 100;

/// The highest score a game can reach: 99 plus the most points one removal can give. After removing
/// a piece of length L from its line, at most 10 − L other pieces touch the line, so the most is
/// (10 − L) × value × 4, largest for the 7 (3 × 6 × 4 = 72).
pub const MAX_SCORE: u16 = 99 + 72;

// The contract's name for a colour of Isaac (the type is the shared `Color`). No doc comment: it
// would become the schema's description.
#[derive(JsonSchema)]
#[schemars(rename = "IsaacPlayer", rename_all = "lowercase")]
#[allow(dead_code)] // a schema only
pub(super) enum PlayerSchema {
    Black,
    White,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_piece_covers_its_cells_from_end_to_end() {
        let mut pieces = 0;
        for anchor in 0..CELL_COUNT {
            for length in MIN_LENGTH..=MAX_LENGTH {
                for vertical in [false, true] {
                    let Some(piece) = Piece::new(anchor, length, vertical) else {
                        continue;
                    };
                    let step = if vertical { SIDE } else { 1 };
                    let cells = (0..length).map(|k| 1u128 << (anchor + k * step));
                    assert_eq!(piece.mask(), cells.fold(0, |mask, cell| mask | cell));
                    assert_eq!(Piece::from_mask(piece.mask()), Some(piece));
                    pieces += 1;
                }
            }
        }
        // Each length fits SIDE + 1 − length places a row (or column), in SIDE rows, both ways.
        assert_eq!(
            pieces,
            (MIN_LENGTH..=MAX_LENGTH)
                .map(|l| 2 * SIDE * (SIDE + 1 - l))
                .sum::<usize>()
        );
    }

    #[test]
    fn cells_and_pieces_round_trip() {
        for cell in 0..CELL_COUNT {
            assert_eq!(parse_cell(&cell_name(cell)), Some(cell));
        }
        for bad in ["", "a", "k1", "a0", "a11", "a01", "A1", "a1 "] {
            assert_eq!(parse_cell(bad), None, "{bad}");
        }
        let piece = Piece::parse("c4-g4").unwrap();
        assert_eq!(
            (piece.anchor(), piece.length(), piece.vertical()),
            (32, 5, false)
        );
        assert_eq!(piece.to_string(), "c4-g4");
        assert_eq!(Piece::from_mask(piece.mask()), Some(piece));
        assert_eq!(Piece::parse("d2-d8").unwrap().line_name(), "column d");
        for bad in [
            "g4-c4", "c4-d4", "c4-c4", "c4-d5", "a1-h1", "c4", "c4-g4-h4",
        ] {
            assert!(Piece::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn every_length_fits_the_empty_board_in_2_x_10_x_11_minus_l_ways() {
        for length in LENGTHS {
            for vertical in [false, true] {
                let count = fitting(ALL, length, vertical).count_ones() as usize;
                assert_eq!(count, 10 * (11 - length));
            }
        }
    }
}
