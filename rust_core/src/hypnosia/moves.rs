//! Hypnosia's move notation: die moves (`D0.17+4`, `h2+5`, `2.1^1`), rolls (`roll`, `5-4`), whole
//! turns (`h2+5 0.3+4`, `pass`) and roll-prefixed turns (`5-4: h2+5 0.3+4`). Parsing needs no board:
//! a space that the board lacks is a legality question, answered by `play`.
//!
//! Then the moves on a position: resolving a die move, the legal turns, playing a move, perft.

use std::fmt;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::json;

use super::board::{
    home, is_active, on_space, Bridge, ColourSchema, DieSchema, Loc, LocationSchema, CAPTURED,
    CENTRE, CENTRE_SPACES, COLOURS, SPACE_BASE,
};
use super::position::{Position, NOBODY};
use crate::digits::{decimal, write_number};
use crate::error::{Error, Result};

/// Dice and home squares in a module of their own, so that nothing, this file included, builds one
/// but through `new` (or the generator's `generated`): a die is 1 to 6, a home square 1 to 4.
mod values {
    /// One die of a roll, 1 to 6.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct Die(u8);

    impl Die {
        pub fn new(value: u8) -> Option<Die> {
            (1..=6).contains(&value).then_some(Die(value))
        }

        pub fn value(self) -> u8 {
            self.0
        }
    }

    /// A home square, by its distance from the seat's entry: 1 to 4.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct HomeSquare(u8);

    impl HomeSquare {
        pub fn new(distance: u8) -> Option<HomeSquare> {
            (1..=4).contains(&distance).then_some(HomeSquare(distance))
        }

        /// A home square of the move generator, which builds them from pawn locations (1 to 4):
        /// on its hot path only debug builds check them again.
        pub(in crate::hypnosia) fn generated(distance: u8) -> HomeSquare {
            debug_assert!(HomeSquare::new(distance).is_some());
            HomeSquare(distance)
        }

        pub fn distance(self) -> u8 {
            self.0
        }
    }
}

pub use values::{Die, HomeSquare};

/// Where a die move starts: a home square or a space `circle.index`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Start {
    Home(HomeSquare),
    Space(u32, u32),
}

/// One die move: the unit on `from` (a double when `double`) moves `die` spaces, first crossing the
/// bridge it stands on when `cross`. Built only by `DieMove::new`: the die is 1 to 6.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DieMove {
    from: Start,
    double: bool,
    cross: bool,
    die: u8,
}

impl DieMove {
    pub fn new(from: Start, double: bool, cross: bool, die: u8) -> Option<DieMove> {
        Die::new(die).map(|_| DieMove {
            from,
            double,
            cross,
            die,
        })
    }

    /// A die move of the move generator, which builds them from the dice rolled (1 to 6) and the
    /// four home squares: on its hot path only debug builds check them again.
    pub(super) fn generated(from: Start, double: bool, cross: bool, die: u8) -> DieMove {
        debug_assert!(DieMove::new(from, double, cross, die).is_some());
        DieMove {
            from,
            double,
            cross,
            die,
        }
    }

    pub fn from(self) -> Start {
        self.from
    }

    /// A double (two pawns of one colour on one space) moves.
    pub fn double(self) -> bool {
        self.double
    }

    /// The unit first crosses the bridge it stands on.
    pub fn cross(self) -> bool {
        self.cross
    }

    /// The die used, 1 to 6.
    pub fn die(self) -> u8 {
        self.die
    }
}

/// The die moves of (the rest of) a turn, or `pass` when no die can be used.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Turn {
    Pass,
    /// One or two die moves, in the order played.
    Moves(Vec<DieMove>),
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Move {
    /// The engine draws both dice from the state's seeded source.
    Roll,
    /// The client supplies the roll, optionally with that whole turn.
    Supplied { dice: [Die; 2], turn: Option<Turn> },
    /// After the roll: the whole remaining turn, or the first of its two die moves.
    Turn(Turn),
}

// The notation is written by `write_to`, generic over the writer, so that a `String` (the legal
// turns' texts) is written without the formatter's indirect calls; `Display` uses the same code.

impl Start {
    fn write_to(&self, out: &mut impl fmt::Write) -> fmt::Result {
        match *self {
            Start::Home(square) => {
                out.write_str("h")?;
                write_number(out, u64::from(square.distance()))
            }
            Start::Space(circle, index) => {
                write_number(out, u64::from(circle))?;
                out.write_str(".")?;
                write_number(out, u64::from(index))
            }
        }
    }
}

impl fmt::Display for Start {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_to(f)
    }
}

impl DieMove {
    fn write_to(&self, out: &mut impl fmt::Write) -> fmt::Result {
        if self.double {
            out.write_str("D")?;
        }
        self.from.write_to(out)?;
        out.write_str(if self.cross { "^" } else { "+" })?;
        write_number(out, u64::from(self.die))
    }
}

impl fmt::Display for DieMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_to(f)
    }
}

impl Turn {
    pub(super) fn write_to(&self, out: &mut impl fmt::Write) -> fmt::Result {
        match self {
            Turn::Pass => out.write_str("pass"),
            Turn::Moves(moves) => {
                for (i, mv) in moves.iter().enumerate() {
                    if i > 0 {
                        out.write_str(" ")?;
                    }
                    mv.write_to(out)?;
                }
                Ok(())
            }
        }
    }
}

impl fmt::Display for Turn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_to(f)
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Move::Roll => f.write_str("roll"),
            Move::Supplied { dice, turn: None } => {
                write!(f, "{}-{}", dice[0].value(), dice[1].value())
            }
            Move::Supplied {
                dice,
                turn: Some(turn),
            } => write!(f, "{}-{}: {turn}", dice[0].value(), dice[1].value()),
            Move::Turn(turn) => write!(f, "{turn}"),
        }
    }
}

fn die(text: &str) -> Option<u8> {
    match text.as_bytes() {
        [d @ b'1'..=b'6'] => Some(d - b'0'),
        _ => None,
    }
}

/// `h1`..`h4` or `<circle>.<index>`.
pub fn parse_start(text: &str) -> Option<Start> {
    if let Some(distance) = text.strip_prefix('h') {
        return match distance.as_bytes() {
            [d @ b'1'..=b'4'] => HomeSquare::new(d - b'0').map(Start::Home),
            _ => None,
        };
    }
    // The dot found byte by byte: `split_once` costs more than these short texts (every pawn of
    // a state and every die move is one).
    let dot = text.bytes().position(|b| b == b'.')?;
    Some(Start::Space(
        decimal(&text[..dot])?,
        decimal(&text[dot + 1..])?,
    ))
}

fn parse_die_move(text: &str) -> Option<DieMove> {
    let (double, rest) = match text.strip_prefix('D') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let at = rest.find(['+', '^'])?;
    let cross = rest.as_bytes()[at] == b'^';
    DieMove::new(
        parse_start(&rest[..at])?,
        double,
        cross,
        die(&rest[at + 1..])?,
    )
}

fn parse_turn(text: &str) -> Option<Turn> {
    if text == "pass" {
        return Some(Turn::Pass);
    }
    let parts: Vec<&str> = text.split(' ').collect();
    if parts.len() > 2 {
        return None;
    }
    parts
        .into_iter()
        .map(parse_die_move)
        .collect::<Option<Vec<_>>>()
        .map(Turn::Moves)
}

fn parse_roll(text: &str) -> Option<[Die; 2]> {
    let (a, b) = text.split_once('-')?;
    Some([Die::new(die(a)?)?, Die::new(die(b)?)?])
}

pub fn parse_move(text: &str) -> Result<Move> {
    let parsed = if text == "roll" {
        Some(Move::Roll)
    } else if let Some((roll, turn)) = text.split_once(": ") {
        parse_roll(roll).and_then(|dice| {
            Some(Move::Supplied {
                dice,
                turn: Some(parse_turn(turn)?),
            })
        })
    } else if let Some(dice) = parse_roll(text) {
        Some(Move::Supplied { dice, turn: None })
    } else {
        parse_turn(text).map(Move::Turn)
    };
    parsed.ok_or_else(|| {
        Error::malformed_move(format!(
            "{text:?} is not a Hypnosia move: `roll`, a roll `5-4`, one or two die moves such as \
             `h2+5 0.3+4` (`[D]<from>(+|^)<die>`, from h1..h4 or circle.index, die 1..6), `pass`, \
             or a roll and its turn `5-4: h2+5 0.3+4`"
        ))
    })
}

/// Where a die move's unit ends: a space, or the centre.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Target {
    Space(u16),
    Centre,
}

/// A legal die move, resolved against the position: everything `apply_step` needs.
#[derive(Debug, Clone, Copy)]
pub(super) struct Step {
    mv: DieMove,
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

/// The position after a turn, not yet built: the position before its last step and that step,
/// or the position the turn ends in.
pub(super) enum After<'a> {
    Step(&'a Position, &'a Step),
    Here(&'a Position),
}

impl After<'_> {
    /// The position after the turn, the turn ended.
    pub(super) fn position(self) -> Position {
        let mut after = match self {
            After::Step(before, step) => before.apply_step(step),
            After::Here(position) => position.clone(),
        };
        after.end_turn();
        after
    }
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

    /// Every legal die move of the player to move with `die`.
    pub(super) fn steps(&self, die: u8) -> Vec<Step> {
        let mut steps = Vec::new();
        let seat = self.to_move;
        let pawns = self.pawns[usize::from(seat)];
        for (i, &loc) in pawns.iter().enumerate() {
            if i > 0 && pawns[i - 1] == loc || !is_active(loc) {
                continue;
            }
            let mut candidates = [None; 4];
            if loc < SPACE_BASE {
                let distance = loc as u8 + 1;
                if die >= distance {
                    candidates[0] = Some(DieMove::generated(
                        Start::Home(HomeSquare::generated(distance)),
                        false,
                        false,
                        die,
                    ));
                }
            } else {
                let space = loc - SPACE_BASE;
                let (circle, index) = self.board().coords(space);
                let from = Start::Space(u32::from(circle), u32::from(index));
                let double = self.count(seat, loc) == 2;
                let bridge = self.board().bridge(space);
                let crossable = match bridge {
                    Bridge::None => false,
                    Bridge::Space(_) => true,
                    Bridge::Centre => die == 1,
                };
                for (slot, (is_double, cross)) in
                    [(false, false), (true, false), (false, true), (true, true)]
                        .into_iter()
                        .enumerate()
                {
                    if (is_double && !double)
                        || (cross && !crossable)
                        || (is_double && cross && !self.game.doubles_cross)
                    {
                        continue;
                    }
                    candidates[slot] = Some(DieMove::generated(from, is_double, cross, die));
                }
            }
            steps.extend(
                candidates
                    .into_iter()
                    .flatten()
                    .filter_map(|mv| self.resolve(mv).ok()),
            );
        }
        steps
    }

    /// The distinct values among the unused dice.
    pub(super) fn distinct_dice(&self) -> ([u8; 2], usize) {
        let dice = self.dice();
        match dice {
            [a, b] if a != b => ([*a, *b], 2),
            [a, ..] => ([*a, 0], 1),
            [] => ([0, 0], 0),
        }
    }

    /// The most dice any sequence of die moves can use (a game-ending die move uses every die).
    pub fn usable_dice(&self) -> u8 {
        let (values, n) = self.distinct_dice();
        let mut any = false;
        for &die in &values[..n] {
            for step in self.steps(die) {
                if self.dice_len == 1 {
                    return 1;
                }
                any = true;
                let next = self.apply_step(&step);
                if next.is_over() || !next.steps(next.dice[0]).is_empty() {
                    return 2;
                }
            }
        }
        u8::from(any)
    }

    /// Every legal whole turn of a rolled position, with the position after it (turn ended), and
    /// the number of dice they use. `pass` is the only turn when no die can be used.
    pub(super) fn whole_turns(&self) -> (u8, Vec<(Turn, Position)>) {
        self.each_turn(|turn, after| (turn, after.position()))
    }

    /// The legal whole turns of a rolled position, each made into `T` by `make` (which builds the
    /// position after the turn only when it needs it), and the number of dice they use.
    pub(super) fn each_turn<T>(&self, mut make: impl FnMut(Turn, After<'_>) -> T) -> (u8, Vec<T>) {
        // Only turns using the most dice are legal: the others are never made.
        let used = self.usable_dice();
        if used == 0 {
            return (0, vec![make(Turn::Pass, After::Here(self))]);
        }
        let (values, n) = self.distinct_dice();
        let mut turns = Vec::new();
        for &die in &values[..n] {
            for step in self.steps(die) {
                let next = self.apply_step(&step);
                // One die's move: the whole turn when one die is the most, or when it ends the game.
                if used == 1 || next.is_over() {
                    turns.push(make(Turn::Moves(vec![step.mv]), After::Here(&next)));
                    continue;
                }
                for second in next.steps(next.dice[0]) {
                    let turn = Turn::Moves(vec![step.mv, second.mv]);
                    turns.push(make(turn, After::Step(&next, &second)));
                }
            }
        }
        (used, turns)
    }

    /// The number of legal whole turns, without building the positions after them.
    pub(super) fn count_turns(&self) -> u64 {
        let (values, n) = self.distinct_dice();
        let mut pairs = 0u64;
        let mut singles = 0u64;
        for &die in &values[..n] {
            for step in self.steps(die) {
                singles += 1;
                if self.dice_len == 2 {
                    let next = self.apply_step(&step);
                    if next.is_over() {
                        pairs += 1;
                    } else {
                        pairs += next.steps(next.dice[0]).len() as u64;
                    }
                }
            }
        }
        if pairs > 0 {
            pairs
        } else {
            singles.max(1)
        }
    }

    pub(super) fn with_dice(&self, dice: [u8; 2]) -> Position {
        let mut next = self.clone();
        next.dice = dice;
        next.dice_len = 2;
        next
    }

    /// Perft over given chance outcomes: a ply is a whole turn; before the roll, the children are
    /// the legal turns of each of the 21 distinct rolls.
    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        if self.is_over() {
            return 0;
        }
        if self.dice_len > 0 {
            return self.perft_turns(depth);
        }
        let mut total = 0;
        for a in 1..=6u8 {
            for b in a..=6u8 {
                total += self.with_dice([a, b]).perft_turns(depth);
            }
        }
        total
    }

    pub(super) fn perft_turns(&self, depth: u32) -> u64 {
        if depth == 1 {
            return self.count_turns();
        }
        self.whole_turns()
            .1
            .iter()
            .map(|(_, next)| next.perft(depth - 1))
            .sum()
    }

    pub fn legal_moves(&self) -> Vec<Move> {
        if self.is_over() {
            return Vec::new();
        }
        if self.dice_len == 0 {
            return vec![Move::Roll];
        }
        self.sorted_turns()
            .into_iter()
            .map(|(_, turn)| Move::Turn(turn))
            .collect()
    }

    /// The legal moves in notation, in `legal_moves`' order (written once, to order them).
    pub fn legal_move_texts(&self) -> Vec<String> {
        if self.is_over() {
            return Vec::new();
        }
        if self.dice_len == 0 {
            return vec![Move::Roll.to_string()];
        }
        self.sorted_turns()
            .into_iter()
            .map(|(text, _)| text)
            .collect()
    }

    /// The whole turns after the roll with their notation, in the order of their notation, each
    /// once.
    pub(super) fn sorted_turns(&self) -> Vec<(String, Turn)> {
        // Only the notation is needed: the positions after the turns are never built.
        let (_, mut turns) = self.each_turn(|turn, _| {
            let mut text = String::with_capacity(16);
            turn.write_to(&mut text).expect("a String takes any text");
            (text, turn)
        });
        turns.sort_by(|a, b| a.0.cmp(&b.0));
        turns.dedup_by(|a, b| a.0 == b.0);
        turns
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dice_and_home_squares_hold_only_their_values() {
        assert_eq!(Die::new(0), None);
        assert_eq!(Die::new(7), None);
        assert_eq!(Die::new(6).map(Die::value), Some(6));
        assert_eq!(HomeSquare::new(0), None);
        assert_eq!(HomeSquare::new(5), None);
        assert_eq!(HomeSquare::new(4).map(HomeSquare::distance), Some(4));
        assert_eq!(parse_start("h5"), None);
    }

    #[test]
    fn moves_round_trip_and_junk_is_malformed() {
        for text in [
            "roll",
            "5-4",
            "6-6: pass",
            "5-4: h2+5 0.3+4",
            "h2+5",
            "0.17+4",
            "D0.17+4",
            "0.5^3",
            "2.1^1",
            "D2.1^1",
            "pass",
            "Dh1+3",
        ] {
            assert_eq!(parse_move(text).unwrap().to_string(), text);
        }
        for text in [
            "",
            " roll",
            "7-1",
            "5-4:",
            "5-4 h2+5",
            "h5+1",
            "h0+1",
            "0.05+1",
            "00.5+1",
            "0.5+0",
            "0.5+7",
            "0.5",
            "h2+5  0.3+4",
            "a b c",
            "0.1+1 0.1+1 0.1+1",
            "d0.1+1",
            "0.1-1",
            "1234567890.1+1",
            "0.1+12",
        ] {
            assert!(parse_move(text).is_err(), "{text:?}");
        }
    }
}
