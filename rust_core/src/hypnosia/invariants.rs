//! The steps of `Position::from_parts`: each reads one field of an untrusted state into the position
//! or checks one invariant between fields. They run in `from_parts`'s order, so the first refusal a
//! state meets stays the same.

use super::board::{colour_seat, Loc, CAPTURED, CENTRE, CENTRE_SPACES, COLOURS, PAWNS, SPACE_BASE};
use super::state::{parse_loc, seat_keys};
use super::{CompiledSetup, Position};
use crate::error::{Error, Result};

/// Refuses anything but a seated colour's name, as `field`.
fn seated_colour(name: &str, game: &CompiledSetup, field: impl FnOnce() -> String) -> Result<u8> {
    colour_seat(name)
        .filter(|&s| game.seats.contains(&(s as u8)))
        .map(|s| s as u8)
        .ok_or_else(|| Error::invalid_state(field(), format!("{name:?} is not a seated colour")))
}

impl Position {
    /// Places every seated player's 4 pawns, refusing a wrong count, an unknown location or two
    /// pawns at one home square.
    pub(super) fn place_pawns<S: AsRef<str>>(
        &mut self,
        entries: &[(S, Vec<S>)],
        game: &CompiledSetup,
    ) -> Result<()> {
        let pawns = seat_keys(entries, game, "pawns")?;
        for &seat in &game.seats {
            let locs = pawns[usize::from(seat)].map_or(&[][..], Vec::as_slice);
            self.pawns[usize::from(seat)] = read_pawns(seat, locs, game)?;
        }
        Ok(())
    }

    /// A space holds at most 2 pawns, of one player.
    pub(super) fn check_space_occupancy(&self, game: &CompiledSetup) -> Result<()> {
        for &seat in &game.seats {
            let name = COLOURS[usize::from(seat)];
            for &loc in &self.pawns[usize::from(seat)] {
                if !(SPACE_BASE..CENTRE).contains(&loc) {
                    continue;
                }
                if self.count(seat, loc) > 2 {
                    let at = self.loc_name(loc);
                    return Err(Error::invalid_state(
                        format!("pawns.{name}"),
                        format!(
                            "{name} has {} pawns on {at}: at most 2 pawns per space",
                            self.count(seat, loc)
                        ),
                    ));
                }
                if let Some((other, _)) = self.enemy_at(seat, loc) {
                    let at = self.loc_name(loc);
                    return Err(Error::invalid_state(
                        format!("pawns.{name}"),
                        format!(
                            "{at} holds pawns of {name} and {}: pawns of two players never share a space",
                            COLOURS[usize::from(other)]
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Reads the centre entries in order: at most 5, each a seated colour.
    pub(super) fn place_centre<S: AsRef<str>>(
        &mut self,
        centre: &[S],
        game: &CompiledSetup,
    ) -> Result<()> {
        if centre.len() > CENTRE_SPACES {
            return Err(Error::invalid_state(
                "centre",
                format!("the centre has 5 spaces, not {}", centre.len()),
            ));
        }
        for (k, name) in centre.iter().enumerate() {
            self.centre[k] = seated_colour(name.as_ref(), game, || format!("centre[{k}]"))?;
        }
        self.centre_len = centre.len() as u8;
        Ok(())
    }

    /// Every pawn in the centre has its centre entry, and every entry its pawn.
    pub(super) fn check_centre_entries_match_pawns(&self, game: &CompiledSetup) -> Result<()> {
        for &seat in &game.seats {
            let entries = self.centre().iter().filter(|&&s| s == seat).count();
            let inside = usize::from(self.count(seat, CENTRE));
            if entries != inside {
                let name = COLOURS[usize::from(seat)];
                return Err(Error::invalid_state(
                    "centre",
                    format!("{name} has {inside} pawns in the centre but {entries} centre entries"),
                ));
            }
        }
        Ok(())
    }

    /// Reads each seated player's captures: no more than the other players lost, and all of them
    /// together exactly the pawns captured.
    pub(super) fn place_captures<S: AsRef<str>>(
        &mut self,
        entries: &[(S, i64)],
        game: &CompiledSetup,
    ) -> Result<()> {
        let captures = seat_keys(entries, game, "captures")?;
        let total_lost: u32 = game.seats.iter().map(|&s| self.lost(s)).sum();
        let mut total_captures = 0u64;
        for &seat in &game.seats {
            let name = COLOURS[usize::from(seat)];
            let n = captures[usize::from(seat)].copied().unwrap_or(0);
            let enemies_lost = total_lost - self.lost(seat);
            if n < 0 || n > i64::from(enemies_lost) {
                return Err(Error::invalid_state(
                    format!("captures.{name}"),
                    format!("{name} captured {n} pawns, but the other players lost {enemies_lost}"),
                ));
            }
            self.captures[usize::from(seat)] = n as u32;
            total_captures += n as u64;
        }
        if total_captures != u64::from(total_lost) {
            return Err(Error::invalid_state(
                "captures",
                format!("the players captured {total_captures} pawns in all, but {total_lost} pawns are captured"),
            ));
        }
        Ok(())
    }

    /// The pawns `seat` has lost: its captured ones.
    fn lost(&self, seat: u8) -> u32 {
        u32::from(self.count(seat, CAPTURED))
    }

    /// Scores every seated player: centre entries' points, plus captures, minus lost pawns.
    pub(super) fn compute_scores(&mut self, game: &CompiledSetup) {
        for &seat in &game.seats {
            let s = usize::from(seat);
            let centre_points: i64 = self
                .centre()
                .iter()
                .enumerate()
                .filter(|&(_, &who)| who == seat)
                .map(|(k, _)| i64::from(game.board.centre_points[k]))
                .sum();
            self.scores[s] =
                centre_points + i64::from(self.captures[s]) - i64::from(self.lost(seat));
        }
    }

    /// Refuses scores, when given, other than the computed ones.
    pub(super) fn check_scores<S: AsRef<str>>(
        &self,
        entries: Option<&[(S, i64)]>,
        game: &CompiledSetup,
    ) -> Result<()> {
        let Some(entries) = entries else {
            return Ok(());
        };
        let scores = seat_keys(entries, game, "scores")?;
        for &seat in &game.seats {
            let s = usize::from(seat);
            if scores[s] != Some(&self.scores[s]) {
                let name = COLOURS[s];
                return Err(Error::invalid_state(
                    format!("scores.{name}"),
                    format!(
                        "{name}'s centre entries, captures and lost pawns make {} points, not {}",
                        self.scores[s],
                        scores[s].copied().unwrap_or(0)
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Nobody is to move once the game is over; before, a seated player who still takes turns is.
    pub(super) fn place_to_move(
        &mut self,
        to_move: Option<&str>,
        over: bool,
        game: &CompiledSetup,
    ) -> Result<()> {
        match (to_move, over) {
            (None, true) => Ok(()),
            (Some(name), true) => Err(Error::invalid_state(
                "to_move",
                format!("the game is over, so nobody is to move, not {name}"),
            )),
            (None, false) => Err(Error::invalid_state(
                "to_move",
                "the game is not over, so a player is to move",
            )),
            (Some(name), false) => {
                let seat = seated_colour(name, game, || "to_move".to_owned())?;
                if !self.has_active(seat) {
                    return Err(Error::invalid_state(
                        "to_move",
                        format!(
                            "{name} has no pawn at home or on a circle, so {name} takes no turns"
                        ),
                    ));
                }
                self.to_move = seat;
                Ok(())
            }
        }
    }

    /// Reads the unused dice, when rolled: not once the game is over, 1 or 2 dice of 1 to 6, and a
    /// lone remaining die that some die move can use (else the turn would have ended).
    pub(super) fn place_dice(&mut self, dice: Option<&[i64]>, over: bool) -> Result<()> {
        let Some(dice) = dice else {
            return Ok(());
        };
        if over {
            return Err(Error::invalid_state(
                "dice",
                "the game is over: no dice are rolled",
            ));
        }
        if dice.is_empty() || dice.len() > 2 {
            return Err(Error::invalid_state(
                "dice",
                format!(
                    "the unused dice are 1 or 2 dice (null before the roll), not {}",
                    dice.len()
                ),
            ));
        }
        for (i, &die) in dice.iter().enumerate() {
            if !(1..=6).contains(&die) {
                return Err(Error::invalid_state(
                    format!("dice[{i}]"),
                    format!("a die shows 1 to 6, not {die}"),
                ));
            }
            self.dice[i] = die as u8;
        }
        self.dice_len = dice.len() as u8;
        if self.dice_len == 1 && self.steps(self.dice[0]).is_empty() {
            return Err(Error::invalid_state(
                "dice",
                format!(
                    "no die move can use the remaining {}: the turn would have ended",
                    self.dice[0]
                ),
            ));
        }
        Ok(())
    }
}

/// Reads one seated player's pawn locations, sorted: exactly 4, each a location of the board, no
/// two at one home square.
fn read_pawns<S: AsRef<str>>(seat: u8, locs: &[S], game: &CompiledSetup) -> Result<[Loc; PAWNS]> {
    let name = COLOURS[usize::from(seat)];
    if locs.len() != PAWNS {
        return Err(Error::invalid_state(
            format!("pawns.{name}"),
            format!("{name} has 4 pawns, not {}", locs.len()),
        ));
    }
    let mut codes = [CAPTURED; PAWNS];
    for (i, text) in locs.iter().enumerate() {
        let text = text.as_ref();
        let field = || format!("pawns.{name}[{i}]");
        let loc = parse_loc(text, &game.board).map_err(|why| Error::invalid_state(field(), why))?;
        if loc < SPACE_BASE && codes[..i].contains(&loc) {
            return Err(Error::invalid_state(
                field(),
                format!("two pawns on home square {text}: pawns at home never stack"),
            ));
        }
        codes[i] = loc;
    }
    codes.sort_unstable();
    Ok(codes)
}
