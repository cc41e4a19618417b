//! The named consistency checks of a position built from untrusted parts: facts every reachable
//! position shows.

use super::board::{cell_name, TARGET};
use super::position::Position;
use super::Color;
use crate::error::{Error, Result};
use crate::players::COLORS;

impl Position {
    /// The checks of a placement-phase position; answers who is to move.
    pub(super) fn check_placement_phase(&self) -> Result<Option<Color>> {
        for color in COLORS {
            let name = color.name();
            if self.scores[color as usize] != 0 {
                return Err(Error::invalid_state(
                    format!("scores.{name}"),
                    "nobody scores before the scoring phase",
                ));
            }
            if self.removed_count[color as usize] != 0 {
                return Err(Error::invalid_state(
                    format!("removed.{name}"),
                    "nothing is removed before the scoring phase",
                ));
            }
        }
        let passers: Vec<Color> = COLORS
            .into_iter()
            .filter(|&c| self.passed[c as usize])
            .collect();
        match passers.as_slice() {
            [] if self.first_to_pass.is_some() => {
                return Err(Error::invalid_state(
                    "first_to_pass",
                    "nobody has passed in the placement phase",
                ))
            }
            [passer] if self.first_to_pass != Some(*passer) => {
                return Err(Error::invalid_state(
                    "first_to_pass",
                    format!("only {} has passed, so {0} passed first", passer.name()),
                ))
            }
            [_, _] => {
                return Err(Error::invalid_state(
                    "passed",
                    "both players have passed, so the placement phase is over",
                ))
            }
            _ => {}
        }
        for &passer in &passers {
            if let Some(piece) = self.first_placement(passer) {
                return Err(Error::invalid_state(
                    "passed",
                    format!(
                        "{} passed, so it cannot place any more (the board only fills up), but {piece} fits",
                        passer.name()
                    ),
                ));
            }
        }
        let placed = COLORS.map(|c| self.placed(c));
        turn_after(self.config.first_player, placed, self.passed)
            .map_err(|detail| Error::invalid_state("pieces", detail))
    }

    /// The checks of a scoring-phase position; answers who is to move (`None` when it is over).
    pub(super) fn check_scoring_phase(&self) -> Result<Option<Color>> {
        let Some(first) = self.first_to_pass else {
            return Err(Error::invalid_state(
                "first_to_pass",
                "the scoring phase follows the placement phase, which ended when both passed: someone passed first",
            ));
        };
        self.check_placement_left_by(first)?;
        self.check_placement_ended()?;
        self.check_scores_need_removals()?;
        let starter = self.scoring_starter();
        let removals = COLORS.map(|c| u32::from(self.removed_count[c as usize]));
        let winners: Vec<Color> = COLORS
            .into_iter()
            .filter(|&c| self.score(c) >= TARGET)
            .collect();
        match winners.as_slice() {
            [] => {}
            [winner] => return self.check_winning_removal(*winner, starter, removals),
            _ => {
                return Err(Error::invalid_state(
                    "scores",
                    format!("the game ends as soon as one score reaches {TARGET}: both cannot"),
                ))
            }
        }
        self.check_markers_apart()?;
        let mover = turn_after(starter, removals, self.passed)
            .map_err(|detail| Error::invalid_state("removed", detail))?;
        if mover.is_none() {
            self.check_last_passer_had_no_removal()?;
        }
        Ok(mover)
    }

    /// Pieces placed (on the board or removed) fit the placement phase that `first` left first.
    pub(super) fn check_placement_left_by(&self, first: Color) -> Result<()> {
        let placed = COLORS.map(|c| self.placed(c));
        let mut first_only = [false; 2];
        first_only[first as usize] = true;
        turn_after(self.config.first_player, placed, first_only).map_err(|detail| {
            Error::invalid_state(
                "first_to_pass",
                format!(
                    "{} passed first in the placement phase: {detail}",
                    first.name()
                ),
            )
        })?;
        Ok(())
    }

    /// Before any removal the board is still as the placement phase left it: full for both players.
    pub(super) fn check_placement_ended(&self) -> Result<()> {
        if self.removed_count != [0, 0] {
            return Ok(());
        }
        for color in COLORS {
            if let Some(piece) = self.first_placement(color) {
                return Err(Error::invalid_state(
                    "pieces",
                    format!(
                        "the placement phase ended when neither player could place, but {} can still place {piece}",
                        color.name()
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Only removals score.
    pub(super) fn check_scores_need_removals(&self) -> Result<()> {
        for color in COLORS {
            if self.scores[color as usize] > 0 && self.removed_count[color as usize] == 0 {
                return Err(Error::invalid_state(
                    format!("scores.{}", color.name()),
                    format!("{} has removed no piece, so its score is 0", color.name()),
                ));
            }
        }
        Ok(())
    }

    /// A winner reached the target with the last move, a removal made in its turn: the game is over.
    pub(super) fn check_winning_removal(
        &self,
        winner: Color,
        starter: Color,
        removals: [u32; 2],
    ) -> Result<Option<Color>> {
        let w = winner as usize;
        if self.passed[w] {
            return Err(Error::invalid_state(
                "passed",
                format!(
                    "{} reached {TARGET} with the last move, so it had not passed",
                    winner.name()
                ),
            ));
        }
        let mut before = removals;
        before[w] -= 1; // at least one removal: its score is above 0
        let mover = turn_after(starter, before, self.passed)
            .map_err(|detail| Error::invalid_state("removed", detail))?;
        if mover != Some(winner) {
            return Err(Error::invalid_state(
                "removed",
                format!(
                    "{} reached {TARGET} with the last removal, but with these removal counts it was not {0}'s turn",
                    winner.name()
                ),
            ));
        }
        Ok(None)
    }

    /// The two score markers never share a cell.
    pub(super) fn check_markers_apart(&self) -> Result<()> {
        if self.scores[0] + self.scores[1] == 99 {
            return Err(Error::invalid_state(
                "scores",
                format!(
                    "the two markers would share {}: no marker may end on the other",
                    cell_name(usize::from(self.scores[0]))
                ),
            ));
        }
        Ok(())
    }

    /// Both passed: the last to pass had no removal then, and a pass changes nothing.
    pub(super) fn check_last_passer_had_no_removal(&self) -> Result<()> {
        if COLORS.iter().all(|&c| self.removals(c).next().is_some()) {
            return Err(Error::invalid_state(
                "passed",
                "both players passed, so the last to pass has no removal, but both have one",
            ));
        }
        Ok(())
    }
}

/// Refuses removed lengths outside 3 to 7 or getting shorter: each removal is at least as long as
/// the one before.
pub(super) fn check_removal_order(color: Color, removed: &[i64]) -> Result<()> {
    let name = color.name();
    for (index, &length) in removed.iter().enumerate() {
        if !(3..=7).contains(&length) {
            return Err(Error::invalid_state(
                format!("removed.{name}"),
                format!("removed lengths are 3 to 7, not {length}"),
            ));
        }
        if index > 0 && length < removed[index - 1] {
            return Err(Error::invalid_state(
                format!("removed.{name}"),
                format!(
                    "{name} removed a {length} after a {}: removals never get shorter",
                    removed[index - 1]
                ),
            ));
        }
    }
    Ok(())
}

/// Refuses a player to move other than the one the position's phase and counts name.
pub(super) fn check_to_move(to_move: Option<Color>, expected: Option<Color>) -> Result<()> {
    if to_move == expected {
        return Ok(());
    }
    let name = |c: Option<Color>| c.map_or("nobody (the game is over)", Color::name);
    Err(Error::invalid_state(
        "to_move",
        format!("{} is to move here, not {}", name(expected), name(to_move)),
    ))
}

/// Who moves next in a phase opened by `start`, after `moves` non-pass moves of each player and the
/// passes in `passed`: players alternate until one passes, then the other moves alone. `None` when
/// both passed; an error when the counts cannot arise.
pub(super) fn turn_after(
    start: Color,
    moves: [u32; 2],
    passed: [bool; 2],
) -> std::result::Result<Option<Color>, String> {
    let other = start.other();
    let (s, o) = (moves[start as usize], moves[other as usize]);
    let (sn, on) = (start.name(), other.name());
    match (passed[start as usize], passed[other as usize]) {
        (false, false) if s == o => Ok(Some(start)),
        (false, false) if s == o + 1 => Ok(Some(other)),
        (false, false) => Err(format!(
            "{sn} moved first and turns alternate until someone passes, so {sn} has made as many moves as {on} or one more, not {s} against {o}"
        )),
        // `start` passed on its turn (with as many moves as `other`); `other` went on alone.
        (true, false) if o >= s => Ok(Some(other)),
        (true, false) => Err(format!(
            "{sn} passed on its own turn, when it had made as many moves as {on}, who then went on alone: {on} has made at least as many, not {o} against {s}"
        )),
        // `other` passed on its turn (one move behind `start`); `start` went on alone.
        (false, true) if s > o => Ok(Some(start)),
        (false, true) => Err(format!(
            "{on} passed on its own turn, when {sn} had made one move more, and {sn} went on alone: {sn} has made more moves, not {s} against {o}"
        )),
        (true, true) => Ok(None),
    }
}
