//! Where a Caesar! turn's draws come from (the state's random source, the tokens the move lists, or
//! chance, a draw at a time) and drawing them from a bag into a hand.

use serde_json::json;

use super::board::{token_code, token_list, token_total, Player};
use super::Position;
use crate::error::{Error, Result};

/// Where a turn's draws come from.
pub(super) enum Draws<'a> {
    /// The state's random source.
    Seeded,
    /// The tokens the move lists, in order.
    Given { tokens: &'a [u8], used: usize },
    /// None yet: the draws are counted (`due`) and left in the bag for chance to take one at a
    /// time (a turn decided one decision at a time); the bag and the hand count them as drawn.
    Deferred { due: u8 },
}

impl Draws<'_> {
    /// The draws counted but not taken from the bag.
    pub(super) fn deferred(&self) -> u32 {
        match *self {
            Draws::Deferred { due } => u32::from(due),
            _ => 0,
        }
    }
}

/// A move that lists its draws lists exactly the turn's.
pub(super) fn check_draws_used(draws: &Draws) -> Result<()> {
    if let Draws::Given { tokens, used } = *draws {
        if used < tokens.len() {
            return Err(Error::illegal_move(
                "too-many-draws",
                format!(
                    "the move lists {} draws but the turn draws {used}",
                    tokens.len()
                ),
                json!({ "listed": tokens.len(), "drawn": used }),
            ));
        }
    }
    Ok(())
}

impl Position {
    /// Draws one token of `player` from the seeded source (nothing from an empty bag).
    pub(super) fn draw_seeded(&mut self, player: Player) -> Option<usize> {
        let bag = &self.bags[player as usize];
        let total = token_total(bag);
        if total == 0 {
            return None;
        }
        let mut index = self.chance.below(total);
        for (kind, &count) in bag.iter().enumerate() {
            if index < u32::from(count) {
                self.take_drawn(player, kind);
                return Some(kind);
            }
            index -= u32::from(count);
        }
        None
    }

    /// A token of `kind` drawn: from `player`'s bag into their hand (the bag holds one).
    pub(super) fn take_drawn(&mut self, player: Player, kind: usize) {
        self.bags[player as usize][kind] -= 1;
        self.hands[player as usize][kind] += 1;
    }

    /// One draw of the turn from its source; `drawn` records it.
    pub(super) fn draw(
        &mut self,
        player: Player,
        draws: &mut Draws,
        drawn: &mut Vec<&'static str>,
    ) -> Result<()> {
        let p = player as usize;
        if token_total(&self.bags[p]) <= draws.deferred() {
            return Ok(());
        }
        let kind = match draws {
            Draws::Deferred { due } => {
                *due += 1;
                return Ok(());
            }
            Draws::Seeded => match self.draw_seeded(player) {
                Some(kind) => kind,
                None => return Ok(()),
            },
            Draws::Given { tokens, used } => {
                let Some(&kind) = tokens.get(*used) else {
                    return Err(Error::illegal_move(
                        "missing-draw",
                        format!(
                            "the move lists {} draws, but the turn draws more: list every draw or none",
                            tokens.len()
                        ),
                        json!({ "listed": tokens.len() }),
                    ));
                };
                let kind = kind as usize;
                if self.bags[p][kind] == 0 {
                    return Err(Error::illegal_move(
                        "draw-not-in-bag",
                        format!(
                            "draw {} is {}, which is not in {}'s bag",
                            *used + 1,
                            token_code(kind),
                            player.name()
                        ),
                        json!({ "token": token_code(kind), "bag": token_list::<&str>(&self.bags[p]) }),
                    ));
                }
                *used += 1;
                self.take_drawn(player, kind);
                kind
            }
        };
        drawn.push(token_code(kind));
        Ok(())
    }
}
