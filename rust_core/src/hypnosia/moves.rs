//! Playing a Hypnosia move on a position: a die move resolved (where it goes, what it captures, or
//! why it is refused) and applied, a turn played and ended, the roll, and what the move did
//! (`Effects`).

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::json;

use super::board::{
    home, on_space, Bridge, ColourSchema, DieSchema, Loc, LocationSchema, CAPTURED, CENTRE,
    CENTRE_SPACES, COLOURS,
};
use super::notation::{Die, DieMove, Move, Start, Turn};
use super::position::{Position, NOBODY};
use crate::error::{Error, Result};

/// Where a die move's unit ends: a space, or the centre.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Target {
    Space(u16),
    Centre,
}

/// A legal die move, resolved against the position: everything `apply_step` needs.
#[derive(Debug, Clone, Copy)]
pub(super) struct Step {
    pub(super) mv: DieMove,
    from: Loc,
    units: u8,
    target: Target,
    /// The enemy seat and number of pawns captured on the target.
    capture: Option<(u8, u8)>,
}

/// Why a die move is refused, with its facts; turned into an `Error` only when reported.
#[derive(Debug, Clone, Copy)]
pub(super) enum Refusal {
    DieNotRolled,
    NoSuchSpace,
    NoPawn,
    NoDouble { pawns: u8 },
    HomeNoBridge,
    NotABridge,
    DieTooSmall { distance: u8 },
    DoublesCannotCross,
    CentreNeedsOne,
    StackLimit { own: u8 },
    SingleOnEnemyDouble { seat: u8 },
}

/// What a die move did, as reported to clients.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[schemars(rename = "HypnosiaDieMove")]
pub struct DieMoveEffects {
    /// Where the unit started.
    #[schemars(with = "LocationSchema")]
    pub from: String,
    /// The unit: a single pawn or a double.
    #[schemars(range(min = 1, max = 2))]
    pub pawns: u8,
    #[schemars(with = "DieSchema")]
    pub die: u8,
    /// The unit first crossed the bridge it stood on.
    pub cross: bool,
    /// A space, or `centre`.
    #[schemars(with = "LocationSchema")]
    pub to: String,
    pub captured: Vec<Captured>,
    /// Points scored by entering the centre with this die move.
    pub centre_points: i64,
}

/// Enemy pawns captured by a die move.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[schemars(rename = "HypnosiaCaptured")]
pub struct Captured {
    #[schemars(with = "ColourSchema")]
    pub player: &'static str,
    #[schemars(range(min = 1, max = 2))]
    pub pawns: u8,
}

/// What a move did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[schemars(rename = "HypnosiaEffects")]
pub struct Effects {
    #[schemars(with = "ColourSchema")]
    pub player: &'static str,
    /// The two dice of this turn, when this move rolled them.
    #[schemars(with = "Option<Vec<DieSchema>>")]
    pub roll: Option<Vec<u8>>,
    /// The engine drew the roll from the seeded source.
    pub drawn: bool,
    pub moves: Vec<DieMoveEffects>,
    pub turn_over: bool,
    pub passed: bool,
}

impl Position {
    /// Resolves a die move of the player to move: where it goes and what it captures, or why not.
    pub(super) fn resolve(&self, mv: DieMove) -> std::result::Result<Step, Refusal> {
        if !self.dice().contains(&mv.die()) {
            return Err(Refusal::DieNotRolled);
        }
        let units = if mv.double() { 2 } else { 1 };
        let (from, target, origin) = match mv.from() {
            Start::Home(square) => {
                let distance = square.distance();
                (home(distance), self.leave_home(mv, distance)?, None)
            }
            Start::Space(circle, index) => {
                let (loc, target) = self.leave_space(mv, circle, index, units)?;
                (loc, target, Some(loc))
            }
        };
        let capture = match target {
            Target::Space(space) => self.land(on_space(space), origin, units)?,
            Target::Centre => None,
        };
        Ok(Step {
            mv,
            from,
            units,
            target,
            capture,
        })
    }

    /// Where a pawn leaving home `distance` squares from its entry goes: a single pawn, without a
    /// bridge, with a die that reaches the circle.
    pub(super) fn leave_home(
        &self,
        mv: DieMove,
        distance: u8,
    ) -> std::result::Result<Target, Refusal> {
        let seat = self.to_move;
        if self.count(seat, home(distance)) == 0 {
            return Err(Refusal::NoPawn);
        }
        if mv.double() {
            return Err(Refusal::NoDouble { pawns: 1 });
        }
        if mv.cross() {
            return Err(Refusal::HomeNoBridge);
        }
        if mv.die() < distance {
            return Err(Refusal::DieTooSmall { distance });
        }
        let exit = self.board().exit(usize::from(seat), distance, mv.die());
        Ok(Target::Space(exit))
    }

    /// Where a unit of `units` pawns leaving space `circle.index` goes, and that space's location:
    /// along its circle, or across its bridge first.
    pub(super) fn leave_space(
        &self,
        mv: DieMove,
        circle: u32,
        index: u32,
        units: u8,
    ) -> std::result::Result<(Loc, Target), Refusal> {
        let board = self.board();
        let space = board
            .space(circle as usize, index as usize)
            .ok_or(Refusal::NoSuchSpace)?;
        let loc = on_space(space);
        let own = self.count(self.to_move, loc);
        if own == 0 {
            return Err(Refusal::NoPawn);
        }
        if own < units {
            return Err(Refusal::NoDouble { pawns: own });
        }
        if !mv.cross() {
            return Ok((loc, Target::Space(board.step(space, mv.die()))));
        }
        Ok((loc, self.cross_bridge(mv, space)?))
    }

    /// Where a unit crossing the bridge of `space` first goes: the inner circle, or the centre on a 1.
    pub(super) fn cross_bridge(
        &self,
        mv: DieMove,
        space: u16,
    ) -> std::result::Result<Target, Refusal> {
        let board = self.board();
        let bridge = board.bridge(space);
        if bridge == Bridge::None {
            return Err(Refusal::NotABridge);
        }
        if mv.double() && !self.game.doubles_cross {
            return Err(Refusal::DoublesCannotCross);
        }
        match bridge {
            Bridge::Space(inner) => Ok(Target::Space(board.step(inner, mv.die() - 1))),
            _ if mv.die() != 1 => Err(Refusal::CentreNeedsOne),
            _ => Ok(Target::Centre),
        }
    }

    /// What a unit of `units` pawns landing on `loc` captures, or why it may not land there: a
    /// space holds one player's pawns, at most 2, and a single pawn never lands on an enemy double.
    pub(super) fn land(
        &self,
        loc: Loc,
        origin: Option<Loc>,
        units: u8,
    ) -> std::result::Result<Option<(u8, u8)>, Refusal> {
        let seat = self.to_move;
        // The unit leaves before it lands: a full lap ends where it started.
        let mut own = self.count(seat, loc);
        if origin == Some(loc) {
            own -= units;
        }
        if own > 0 && !(units == 1 && own == 1) {
            return Err(Refusal::StackLimit { own });
        }
        match self.enemy_at(seat, loc) {
            Some((enemy, 2)) if units == 1 => Err(Refusal::SingleOnEnemyDouble { seat: enemy }),
            capture => Ok(capture),
        }
    }

    pub(super) fn refusal_error(&self, mv: DieMove, refusal: Refusal) -> Error {
        let from = mv.from().to_string();
        let player = COLOURS[usize::from(self.to_move)];
        match refusal {
            Refusal::DieNotRolled => Error::illegal_move(
                "die-not-rolled",
                format!("{mv} uses a {}, but the dice left are {:?}", mv.die(), self.dice()),
                json!({ "die": mv.die(), "dice": self.dice() }),
            ),
            Refusal::NoSuchSpace => Error::illegal_move(
                "no-such-space",
                format!("the board has no space {from}"),
                json!({ "from": from }),
            ),
            Refusal::NoPawn => Error::illegal_move(
                "no-pawn",
                format!("{player} has no pawn on {from}"),
                json!({ "from": from }),
            ),
            Refusal::NoDouble { pawns } => Error::illegal_move(
                "no-double",
                format!("{mv} moves a double, but {player} has {pawns} pawn on {from}"),
                json!({ "from": from, "pawns": pawns }),
            ),
            Refusal::HomeNoBridge => Error::illegal_move(
                "not-a-bridge",
                format!("{from} is a home square, not a bridge: a pawn leaves home with +"),
                json!({ "from": from }),
            ),
            Refusal::NotABridge => Error::illegal_move(
                "not-a-bridge",
                format!("{from} is not a bridge: only a unit standing on a bridge may cross it"),
                json!({ "from": from }),
            ),
            Refusal::DieTooSmall { distance } => Error::illegal_move(
                "die-too-small",
                format!(
                    "a pawn at home distance {distance} leaves only with a die of {distance} or more, not {}",
                    mv.die()
                ),
                json!({ "from": from, "distance": distance, "die": mv.die() }),
            ),
            Refusal::DoublesCannotCross => Error::illegal_move(
                "doubles-cannot-cross",
                format!("with doubles_cross_bridges off a double cannot cross the bridge on {from}: split it first"),
                json!({ "from": from }),
            ),
            Refusal::CentreNeedsOne => Error::illegal_move(
                "centre-needs-one",
                format!(
                    "crossing into the centre from {from} needs a die of exactly 1, not {}",
                    mv.die()
                ),
                json!({ "from": from, "die": mv.die() }),
            ),
            Refusal::StackLimit { own } => {
                let to = self.landing_name(mv);
                let moving = if mv.double() { 2 } else { 1 };
                Error::illegal_move(
                    "stack-limit",
                    format!(
                        "{mv} would put {} of {player}'s pawns on {to}: at most 2 pawns per space",
                        own + moving
                    ),
                    json!({ "to": to, "pawns": own, "moving": moving }),
                )
            }
            Refusal::SingleOnEnemyDouble { seat } => {
                let to = self.landing_name(mv);
                let enemy = COLOURS[usize::from(seat)];
                Error::illegal_move(
                    "single-on-enemy-double",
                    format!("a single pawn may not end on {enemy}'s double on {to}"),
                    json!({ "to": to, "player": enemy }),
                )
            }
        }
    }

    /// The space a die move that passed its start checks lands on (for refusal details).
    pub(super) fn landing_name(&self, mv: DieMove) -> String {
        let board = self.board();
        let space = match mv.from() {
            Start::Home(square) => {
                Some(board.exit(usize::from(self.to_move), square.distance(), mv.die()))
            }
            Start::Space(circle, index) => {
                board.space(circle as usize, index as usize).map(|space| {
                    match (mv.cross(), board.bridge(space)) {
                        (true, Bridge::Space(inner)) => board.step(inner, mv.die() - 1),
                        _ => board.step(space, mv.die()),
                    }
                })
            }
        };
        space.map_or_else(String::new, |space| self.loc_name(on_space(space)))
    }

    /// The position after a resolved step (the turn is not ended here).
    pub(super) fn apply_step(&self, step: &Step) -> Position {
        let mut next = self.clone();
        let seat = usize::from(self.to_move);
        // Spend the die, keeping the other in place.
        if let Some(i) = next.dice().iter().position(|&d| d == step.mv.die()) {
            if i == 0 {
                next.dice[0] = next.dice[1];
            }
            next.dice_len -= 1;
        }
        let moving = match step.target {
            Target::Space(space) => {
                let loc = on_space(space);
                if let Some((enemy, n)) = step.capture {
                    for pawn in next.pawns[usize::from(enemy)].iter_mut() {
                        if *pawn == loc {
                            *pawn = CAPTURED;
                        }
                    }
                    next.pawns[usize::from(enemy)].sort_unstable();
                    next.captures[seat] += u32::from(n);
                    next.scores[seat] += i64::from(n);
                    next.scores[usize::from(enemy)] -= i64::from(n);
                }
                (step.units, loc)
            }
            Target::Centre => {
                let free = CENTRE_SPACES as u8 - self.centre_len;
                let entering = step.units.min(free);
                for _ in 0..entering {
                    let k = usize::from(next.centre_len);
                    next.scores[seat] += i64::from(self.board().centre_points[k]);
                    next.centre[k] = self.to_move;
                    next.centre_len += 1;
                }
                (entering, CENTRE)
            }
        };
        let (mut left, to) = moving;
        for pawn in next.pawns[seat].iter_mut() {
            if left > 0 && *pawn == step.from {
                *pawn = to;
                left -= 1;
            }
        }
        next.pawns[seat].sort_unstable();
        next
    }

    /// Ends the turn: clears the dice and passes to the next seated player (next lower seat,
    /// wrapping) who still has a pawn at home or on a circle.
    pub(super) fn end_turn(&mut self) {
        self.dice_len = 0;
        if self.is_over() {
            self.to_move = NOBODY;
            return;
        }
        let seats = &self.game.seats;
        let n = seats.len();
        let current = seats.iter().position(|&s| s == self.to_move).unwrap_or(0);
        self.to_move = (1..=n)
            .map(|k| seats[(current + n * 2 - k) % n])
            .find(|&seat| self.has_active(seat))
            .unwrap_or(NOBODY);
    }

    pub(super) fn with_dice(&self, dice: [u8; 2]) -> Position {
        let mut next = self.clone();
        next.dice = dice;
        next.dice_len = 2;
        next
    }

    pub(super) fn step_effects(&self, step: &Step, after: &Position) -> DieMoveEffects {
        let (to, points) = match step.target {
            Target::Space(space) => (self.loc_name(on_space(space)), 0),
            Target::Centre => (
                "centre".to_owned(),
                self.centre_points_between(after, self.to_move),
            ),
        };
        DieMoveEffects {
            from: self.loc_name(step.from),
            pawns: step.units,
            die: step.mv.die(),
            cross: step.mv.cross(),
            to,
            captured: step
                .capture
                .map(|(enemy, n)| Captured {
                    player: COLOURS[usize::from(enemy)],
                    pawns: n,
                })
                .into_iter()
                .collect(),
            centre_points: points,
        }
    }

    /// Points `seat` scored by centre entries made between `self` and `after`.
    pub(super) fn centre_points_between(&self, after: &Position, seat: u8) -> i64 {
        (usize::from(self.centre_len)..usize::from(after.centre_len))
            .filter(|&k| after.centre[k] == seat)
            .map(|k| i64::from(self.board().centre_points[k]))
            .sum()
    }

    /// Plays (the rest of) a turn on a rolled position. `whole`: the turn must be complete.
    pub(super) fn play_turn(
        &self,
        turn: &Turn,
        whole: bool,
    ) -> Result<(Position, Vec<DieMoveEffects>, bool)> {
        let moves = match turn {
            Turn::Pass => {
                let usable = self.usable_dice();
                if usable > 0 {
                    return Err(Error::illegal_move(
                        "must-use-dice",
                        format!(
                            "with the dice {:?} a die move is possible: {usable} dice can be used",
                            self.dice()
                        ),
                        json!({ "dice": self.dice(), "usable": usable }),
                    ));
                }
                let mut next = self.clone();
                next.end_turn();
                return Ok((next, Vec::new(), true));
            }
            Turn::Moves(moves) => moves,
        };
        let mut current = self.clone();
        let mut effects = Vec::with_capacity(moves.len());
        for &mv in moves {
            if current.is_over() {
                return Err(Error::illegal_move(
                    "game-ended",
                    format!("the game ended with the die move before {mv}"),
                    json!({}),
                ));
            }
            let step = current
                .resolve(mv)
                .map_err(|refusal| current.refusal_error(mv, refusal))?;
            let next = current.apply_step(&step);
            effects.push(current.step_effects(&step, &next));
            current = next;
        }
        let used = moves.len() as u8;
        // A turn that used every die it had uses the most dice: the search for the most is skipped.
        let usable = if current.is_over() || used >= self.dice_len {
            used
        } else {
            self.usable_dice()
        };
        if used < usable {
            let partial_ok =
                !whole && current.dice_len == 1 && !current.steps(current.dice[0]).is_empty();
            if !partial_ok {
                let detail = if whole {
                    format!(
                        "with the dice {:?} a turn can use {usable} dice, this one uses {used}",
                        self.dice()
                    )
                } else {
                    format!(
                        "with the dice {:?} {usable} dice can be used, but after {turn} the other die cannot be",
                        self.dice()
                    )
                };
                return Err(Error::illegal_move(
                    "must-use-most-dice",
                    detail,
                    json!({ "dice": self.dice(), "usable": usable, "used": used }),
                ));
            }
            return Ok((current, effects, false));
        }
        current.end_turn();
        Ok((current, effects, true))
    }

    pub fn play(&self, mv: Move) -> Result<(Position, Effects)> {
        if self.is_over() {
            return Err(Error::GameOver);
        }
        let player = COLOURS[usize::from(self.to_move)];
        let rolled = self.dice_len > 0;
        let already = || {
            Error::illegal_move(
                "already-rolled",
                format!(
                    "{player} has rolled already; the dice left are {:?}",
                    self.dice()
                ),
                json!({ "dice": self.dice() }),
            )
        };
        let mut effects = Effects {
            player,
            roll: None,
            drawn: false,
            moves: Vec::new(),
            turn_over: false,
            passed: false,
        };
        let next = match mv {
            Move::Roll => {
                if rolled {
                    return Err(already());
                }
                let mut chance = (*self.chance).clone();
                let dice = [chance.die(), chance.die()];
                let mut next = self.with_dice(dice);
                next.chance = Arc::new(chance);
                effects.roll = Some(dice.to_vec());
                effects.drawn = true;
                next
            }
            Move::Supplied { dice, turn } => {
                if rolled {
                    return Err(already());
                }
                let dice = dice.map(Die::value);
                effects.roll = Some(dice.to_vec());
                let next = self.with_dice(dice);
                match turn {
                    None => next,
                    Some(turn) => {
                        let (after, moves, over) = next.play_turn(&turn, true)?;
                        effects.moves = moves;
                        effects.turn_over = over;
                        effects.passed = turn == Turn::Pass;
                        after
                    }
                }
            }
            Move::Turn(turn) => {
                if !rolled {
                    return Err(Error::illegal_move(
                        "roll-first",
                        format!("{player} has not rolled yet: play `roll` or a roll such as `5-4`"),
                        json!({}),
                    ));
                }
                let (after, moves, over) = self.play_turn(&turn, false)?;
                effects.moves = moves;
                effects.turn_over = over;
                effects.passed = turn == Turn::Pass;
                after
            }
        };
        Ok((next, effects))
    }
}
