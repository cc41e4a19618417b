//! Necessary conditions of reachability that an untrusted board must meet: each is a fact every
//! placement leaves behind for good, since discs never move and never change owner (only their face).
//! They make a state consistent with some game, never proven reachable.

use super::board::{cell_name, cells_of, ANCHORS, CENTRE, COORDS, INNER, RAYS, SUPPLY};
use super::{Color, Position};
use crate::error::{Error, Result};
use crate::players::COLORS;

/// Opposite directions come in pairs in `RAYS` (see `board::DIRECTIONS`): the three lines through a cell.
const LINES: [(usize, usize); 3] = [(0, 1), (2, 3), (4, 5)];

/// The field of a refusal about `cell`: its row of the board.
fn field_of(cell: usize) -> String {
    format!("board[{}]", COORDS[cell].0)
}

/// A capture turns a run of the owner's discs that the capturer brackets with its own discs on one line.
/// Discs never move nor change owner, so a captive keeps, along some line, a run of its owner's discs
/// (itself included) with an opponent's disc at each end.
pub(super) fn captives_are_flanked(position: &Position) -> Result<()> {
    for cell in cells_of(position.captive) {
        let owner = position.owner_of(cell);
        let (own, theirs) = (
            position.owners[owner as usize],
            position.owners[owner.other() as usize],
        );
        let ends_theirs = |dir: usize| {
            let (_, end) = RAYS[cell][dir].run(own);
            end & theirs != 0
        };
        if !LINES.iter().any(|&(a, b)| ends_theirs(a) && ends_theirs(b)) {
            return Err(Error::invalid_state(
                field_of(cell),
                format!(
                    "{} is a {} captive, but no line through it has a {} disc at both ends of a run of \
                     {} discs, which is where a capture leaves its captives",
                    cell_name(cell),
                    owner.name(),
                    owner.other().name(),
                    owner.name()
                ),
            ));
        }
    }
    Ok(())
}

/// A flip leaves, along one line from the placed disc, a run of discs (the captured or released ones)
/// and then another disc of the placer (the far one that bracketed them): all still on the board.
fn shows_a_flip(position: &Position, cell: usize) -> bool {
    let occupied = position.occupied();
    let own = position.owners[position.owner_of(cell) as usize];
    RAYS[cell].iter().any(|ray| {
        let (discs, _) = ray.run(occupied);
        // Beyond the nearest disc of the run.
        let far = ray.nearest(discs).map_or(0, |near| discs & !(1u64 << near));
        far & own != 0
    })
}

/// The discs of `color` on the outer ring or the centre that show no flip. The centre is left out when
/// it may have been the game's last placement by the centre exception (rule 3): the game is over and
/// the centre holds the last mover's disc, face up.
fn unflipped_anchor_discs(position: &Position, color: Color) -> u64 {
    let mut discs = position.owners[color as usize] & ANCHORS;
    let last_mover = position.to_move.other();
    if position.is_finished() && color == last_mover && position.up(color) & CENTRE != 0 {
        discs &= !CENTRE;
    }
    cells_of(discs)
        .filter(|&cell| !shows_a_flip(position, cell))
        .fold(0, |set, cell| set | 1 << cell)
}

/// How many penalty claims each colour can have made with these disc counts: a skip needs a capture to
/// skip (an own and an opponent disc on the board), so the first claim is ply 4 at the earliest. No
/// bound on both together (claims are two plies apart in a game): a legal claim from an accepted state
/// could exceed it, and a state Referee answers must be one it accepts back. Each colour's bound holds
/// after any move: a claim adds a disc to its count and to its budget.
fn claim_budget(position: &Position, [black, white]: [u32; 2]) -> [u32; 2] {
    if !position.setup.options.penalty {
        return [0, 0];
    }
    // Black claims on plies 5, 7, ... (its 3rd disc on), White on plies 4, 6, ... (its 2nd disc on).
    [black.saturating_sub(2), white.saturating_sub(1)]
}

/// A placement on the outer ring or the centre must flip discs (rule 2), unless it is the centre
/// exception (rule 3) or uses a penalty claim, which may go anywhere.
pub(super) fn anchor_discs_show_a_flip(position: &Position) -> Result<()> {
    let counts = position.owners.map(u64::count_ones);
    let each = claim_budget(position, counts);
    let unflipped = COLORS.map(|color| unflipped_anchor_discs(position, color));
    let over = COLORS
        .into_iter()
        .find(|&color| unflipped[color as usize].count_ones() > each[color as usize]);
    let Some(color) = over else {
        return Ok(());
    };
    let (cells, budget, whose) = (
        unflipped[color as usize],
        each[color as usize],
        color.name(),
    );
    let first = cells.trailing_zeros() as usize;
    let claims = if position.setup.options.penalty {
        format!(
            "otherwise only a penalty claim places a disc without a flip, and {whose} can have made \
             at most {budget} with these disc counts"
        )
    } else {
        "otherwise only a penalty claim places a disc without a flip, and the penalty option is off"
            .to_owned()
    };
    Err(Error::invalid_state(
        field_of(first),
        format!(
            "{}, but no line from {} shows what a flip leaves (a run of discs, then another disc of the \
             same owner); {claims}",
            describe(position, cells),
            if cells.count_ones() == 1 { "it" } else { "them" },
        ),
    ))
}

/// Which discs, and why a placement there needs a flip: "a1 is a black disc on the outer ring, where
/// ...", "a1, e5 are discs on the outer ring or the centre, where ...".
fn describe(position: &Position, cells: u64) -> String {
    let names: Vec<String> = cells_of(cells).map(cell_name).collect();
    if let [name] = names.as_slice() {
        let cell = cells.trailing_zeros() as usize;
        let area = if cells & CENTRE != 0 {
            "centre, where a placement must flip discs or, by the centre exception, end the game"
        } else {
            "outer ring, where a placement must flip discs"
        };
        return format!(
            "{name} is a {} disc on the {area}",
            position.owner_of(cell).name()
        );
    }
    format!(
        "{} are discs on the outer ring or the centre, where a placement must flip discs",
        names.join(", ")
    )
}

impl Position {
    /// Neither colour has more discs on the board than in its supply.
    pub(super) fn check_supply(&self) -> Result<()> {
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
    pub(super) fn check_side_to_move(&self) -> Result<()> {
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
    pub(super) fn check_last_disc_face_up(&self) -> Result<()> {
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
    pub(super) fn check_penalty_claim(&self, penalty_claim: bool) -> Result<()> {
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

#[cfg(test)]
mod tests {
    use super::super::board::DIRECTIONS;
    use super::LINES;

    #[test]
    fn each_line_pairs_opposite_directions() {
        for (a, b) in LINES {
            let ((ra, da), (rb, db)) = (DIRECTIONS[a], DIRECTIONS[b]);
            assert_eq!((ra, da), (-rb, -db));
        }
    }
}
