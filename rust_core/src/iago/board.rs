//! The 61-hex board: cell indices, names, rings and the precomputed rays, all built at compile time.
//!
//! Cells are numbered 0..61 in notation order: row `a`..`i`, and within a row by increasing diagonal
//! (a1..a5, b1..b6, ..., e1..e9, ..., i5..i9). A set of cells is a `u64` bitboard. Also here: the
//! players' supplies and their schema.

use schemars::JsonSchema;

pub const CELL_COUNT: usize = 61;
pub const ALL: u64 = (1u64 << CELL_COUNT) - 1;
/// Hexes in each row a..i.
pub const ROW_LENGTHS: [usize; 9] = [5, 6, 7, 8, 9, 8, 7, 6, 5];
/// The six directions in (row, diagonal) steps.
pub const DIRECTIONS: [(i8, i8); 6] = [(0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, -1)];

/// (row, diagonal) of each cell, rows and diagonals 0..9.
pub const COORDS: [(u8, u8); CELL_COUNT] = {
    let mut coords = [(0u8, 0u8); CELL_COUNT];
    let mut index = 0;
    let mut row: i32 = 0;
    while row < 9 {
        let mut diag: i32 = 0;
        while diag < 9 {
            if (row - diag).abs() <= 4 {
                coords[index] = (row as u8, diag as u8);
                index += 1;
            }
            diag += 1;
        }
        row += 1;
    }
    coords
};

/// Cell index at (row, diagonal), or `u8::MAX` where no hex exists.
const INDEX: [[u8; 9]; 9] = {
    let mut table = [[u8::MAX; 9]; 9];
    let mut index = 0;
    while index < CELL_COUNT {
        let (row, diag) = COORDS[index];
        table[row as usize][diag as usize] = index as u8;
        index += 1;
    }
    table
};

pub const fn cell_at(row: i32, diag: i32) -> Option<usize> {
    if row < 0 || row > 8 || diag < 0 || diag > 8 {
        return None;
    }
    let index = INDEX[row as usize][diag as usize];
    if index == u8::MAX {
        None
    } else {
        Some(index as usize)
    }
}

/// Distance from the centre in hex steps (cube coordinates: x = d − 4, z = 4 − r, y = −x − z).
pub const fn ring(cell: usize) -> u8 {
    let (row, diag) = COORDS[cell];
    let x = diag as i32 - 4;
    let z = 4 - row as i32;
    let y = -x - z;
    let mut max = x.abs();
    if y.abs() > max {
        max = y.abs();
    }
    if z.abs() > max {
        max = z.abs();
    }
    max as u8
}

const fn mask_of_rings(low: u8, high: u8) -> u64 {
    let mut mask = 0u64;
    let mut cell = 0;
    while cell < CELL_COUNT {
        let r = ring(cell);
        if r >= low && r <= high {
            mask |= 1 << cell;
        }
        cell += 1;
    }
    mask
}

/// The 24 hexes of the outermost ring.
pub const OUTER: u64 = mask_of_rings(4, 4);
/// The 37 hexes inside the outer ring, centre included.
pub const INNER: u64 = mask_of_rings(0, 3);
pub const CENTRE_CELL: usize = 30;
pub const CENTRE: u64 = 1 << CENTRE_CELL;
/// Where a disc must stand for a release to happen next to it: the outer ring or the centre.
pub const ANCHORS: u64 = OUTER | CENTRE;

/// `RAYS[cell][direction]`: the cells walked from `cell` outwards.
pub const RAYS: [[Ray; 6]; CELL_COUNT] = {
    let mut rays = [[Ray {
        mask: 0,
        ascending: true,
    }; 6]; CELL_COUNT];
    let mut cell = 0;
    while cell < CELL_COUNT {
        let mut dir = 0;
        while dir < 6 {
            let (dr, dd) = DIRECTIONS[dir];
            let (row, diag) = COORDS[cell];
            let (mut r, mut d) = (row as i32 + dr as i32, diag as i32 + dd as i32);
            let ray = &mut rays[cell][dir];
            // Cells are numbered row by row, by diagonal within a row: a step to a later row, or
            // along the row to a higher diagonal, always goes to a higher index.
            ray.ascending = dr > 0 || (dr == 0 && dd > 0);
            while let Some(next) = cell_at(r, d) {
                ray.mask |= 1 << next;
                r += dr as i32;
                d += dd as i32;
            }
            dir += 1;
        }
        cell += 1;
    }
    rays
};

/// The hexes adjacent to each cell.
pub const NEIGHBOURS: [u64; CELL_COUNT] = {
    let mut table = [0u64; CELL_COUNT];
    let mut cell = 0;
    while cell < CELL_COUNT {
        let mut dir = 0;
        while dir < 6 {
            if let Some(next) = RAYS[cell][dir].nearest(RAYS[cell][dir].mask) {
                table[cell] |= 1 << next;
            }
            dir += 1;
        }
        cell += 1;
    }
    table
};

/// The cells of a line from a cell (not included) to the board's edge, as a set: walking a ray is
/// taking its cells by index, upwards or downwards.
#[derive(Clone, Copy, Debug)]
pub struct Ray {
    pub mask: u64,
    /// The ray walks to higher cell indices.
    ascending: bool,
}

impl Ray {
    /// The cell of `cells` (cells of this ray) nearest to the ray's start.
    pub const fn nearest(&self, cells: u64) -> Option<usize> {
        if cells == 0 {
            None
        } else if self.ascending {
            Some(cells.trailing_zeros() as usize)
        } else {
            Some(63 - cells.leading_zeros() as usize)
        }
    }

    /// The cells of the ray from its start up to the first cell not in `run` (excluded): the run along
    /// the ray, and that cell as a set (empty at the board's edge). No branch on the cells but
    /// that edge on rays walking down: where runs end is not predictable.
    pub const fn run(&self, run: u64) -> (u64, u64) {
        let rest = self.mask & !run;
        let (end, nearer) = if self.ascending {
            let end = rest & rest.wrapping_neg();
            (end, end.wrapping_sub(1))
        } else if rest == 0 {
            (0, u64::MAX)
        } else {
            let end = 1u64 << (63 - rest.leading_zeros());
            (end, !((end << 1) - 1))
        };
        (self.mask & nearer, end)
    }
}

/// The cell's name in notation (`e5`).
pub fn cell_name(cell: usize) -> String {
    let (row, diag) = COORDS[cell];
    format!("{}{}", (b'a' + row) as char, diag + 1)
}

/// Parses a cell name; `None` for anything that is not one of the 61 hexes.
pub fn parse_cell(text: &str) -> Option<usize> {
    match text.as_bytes() {
        [row @ b'a'..=b'i', diag @ b'1'..=b'9'] => {
            cell_at(i32::from(row - b'a'), i32::from(diag - b'1'))
        }
        _ => None,
    }
}

/// Every cell when `keep`, else none: a set kept or dropped without a branch.
pub const fn all_if(keep: bool) -> u64 {
    0u64.wrapping_sub(keep as u64)
}

/// Iterates over the cells of a bitboard in index order.
pub fn cells_of(mut set: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if set == 0 {
            return None;
        }
        let cell = set.trailing_zeros() as usize;
        set &= set - 1;
        Some(cell)
    })
}

pub fn cell_names(set: u64) -> Vec<String> {
    cells_of(set).map(cell_name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry_matches_the_rules() {
        assert_eq!(OUTER.count_ones(), 24);
        assert_eq!(INNER.count_ones(), 37);
        assert_eq!(cell_name(CENTRE_CELL), "e5");
        assert_eq!(ring(CENTRE_CELL), 0);
        assert_eq!(parse_cell("a1"), Some(0));
        assert_eq!(parse_cell("i9"), Some(60));
        assert_eq!(parse_cell("a6"), None);
        assert_eq!(parse_cell("f1"), None);
        assert_eq!(parse_cell("e0"), None);
        for (cell, neighbours) in NEIGHBOURS.iter().enumerate() {
            assert_eq!(parse_cell(&cell_name(cell)), Some(cell));
            let expected = if ring(cell) == 4 { 3..=4 } else { 6..=6 };
            assert!(
                expected.contains(&neighbours.count_ones()),
                "{}",
                cell_name(cell)
            );
        }
        // Each ray's set, taken nearest first, is the walk from its cell one step at a time.
        for cell in 0..CELL_COUNT {
            for (ray, &(dr, dd)) in RAYS[cell].iter().zip(&DIRECTIONS) {
                let (row, diag) = COORDS[cell];
                let (mut r, mut d) = (
                    i32::from(row) + i32::from(dr),
                    i32::from(diag) + i32::from(dd),
                );
                let mut walked = 0u64;
                while let Some(next) = cell_at(r, d) {
                    assert_eq!(ray.nearest(ray.mask & !walked), Some(next));
                    assert_eq!(ray.run(walked), (walked, 1 << next));
                    walked |= 1 << next;
                    (r, d) = (r + i32::from(dr), d + i32::from(dd));
                }
                assert_eq!(ray.mask, walked);
                assert_eq!(ray.run(walked), (walked, 0));
            }
        }
        // From the centre every ray reaches the outer ring: 4 cells each way.
        for ray in &RAYS[CENTRE_CELL] {
            assert_eq!(ray.mask.count_ones(), 4);
        }
    }
}

/// Black places at most 31 discs, White at most 30.
pub(super) const SUPPLY: [u32; 2] = [31, 30];

// The contract's name for a colour of Iago (the type is the shared `Color`). No doc comment: it
// would become the schema's description.
#[derive(JsonSchema)]
#[schemars(rename = "IagoPlayer", rename_all = "lowercase")]
#[allow(dead_code)] // a schema only
pub(super) enum PlayerSchema {
    Black,
    White,
}
