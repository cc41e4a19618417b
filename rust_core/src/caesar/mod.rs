//! Caesar!: two players place influence tokens on the borders of 18 provinces; a province whose
//! borders are all filled closes and goes to the higher sum; the first to place 12 control markers
//! wins. Spec: `rules/caesar.md`; names, notation and list orders: `specs/caesar.md`.

pub mod map;
mod state;

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{json, Value};

use crate::chance::{self, Chance};
use crate::error::{Error, Result};
use crate::game::{Outcome, Rules, Status};
use crate::players::TwoPlayers;
use crate::schemas::Nullable;
use map::{
    border_id, is_symmetric, parse_border, parse_province, parse_token, province_code,
    token_borders, token_code, token_icon_name, Bonus, BAG_SIZE, BORDERS, BORDER_COUNT,
    CONTROL_MARKERS, IT, PROVINCES, PROVINCE_COUNT, PROVINCE_MASK, START_HAND_LIMIT, TOKENS,
    TOKEN_KINDS,
};
pub use state::{BorderState, Ordered, PerPlayer, ProvinceState, State};
use state::{CountSchema, FacesSchema, TokenSchema, TokensSchema};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, JsonSchema)]
#[schemars(rename = "CaesarPlayer", rename_all = "lowercase")]
pub enum Player {
    Caesar = 0,
    Pompey = 1,
}

impl TwoPlayers for Player {
    const NAMES: [&'static str; 2] = [Player::Caesar.name(), Player::Pompey.name()];
    fn index(self) -> usize {
        self as usize
    }
}

impl Player {
    pub const BOTH: [Player; 2] = [Player::Caesar, Player::Pompey];

    pub fn other(self) -> Player {
        match self {
            Player::Caesar => Player::Pompey,
            Player::Pompey => Player::Caesar,
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            Player::Caesar => "caesar",
            Player::Pompey => "pompey",
        }
    }

    pub fn parse(name: &str) -> Option<Player> {
        Player::BOTH.into_iter().find(|p| p.name() == name)
    }

    fn letter(self) -> char {
        match self {
            Player::Caesar => 'c',
            Player::Pompey => 'p',
        }
    }
}

/// Token counts per kind, in token order (a bag or a hand).
pub type Tokens = [u8; TOKEN_KINDS];

/// The tokens of a hand or a bag, in token order.
fn token_list<T: From<&'static str>>(tokens: &Tokens) -> Vec<T> {
    tokens
        .iter()
        .enumerate()
        .flat_map(|(kind, &n)| std::iter::repeat_n(token_code(kind), n as usize))
        .map(T::from)
        .collect()
}

fn token_total(tokens: &Tokens) -> u32 {
    tokens.iter().map(|&n| u32::from(n)).sum()
}

/// An influence token on a border space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Placed {
    pub kind: u8,
    pub owner: Player,
    /// The larger number faces the first province of the border's canonical id.
    pub forward: bool,
    /// Flipped by Might: counts 0 for every province that closes later.
    pub flipped: bool,
    /// A control marker placed on top of the token (two adjacent provinces of one controller).
    pub marker: Option<Player>,
}

impl Placed {
    /// The number this token shows toward `province` (one of its border's two).
    fn facing(self, border: usize, province: usize) -> u32 {
        let (_, _, hi, lo, _) = TOKENS[self.kind as usize];
        let toward_first = BORDERS[border].0 == province;
        u32::from(if toward_first == self.forward { hi } else { lo })
    }

    /// The numbers facing the border's two provinces, in canonical order.
    fn faces(self) -> (u8, u8) {
        let (_, _, hi, lo, _) = TOKENS[self.kind as usize];
        if self.forward {
            (hi, lo)
        } else {
            (lo, hi)
        }
    }
}

/// A valid Caesar! position, with both hands, both bags and the random source: the full state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Position {
    borders: [Option<Placed>; BORDER_COUNT],
    /// Bit set of the borders holding a token.
    filled: u32,
    control: [Option<Player>; PROVINCE_COUNT],
    /// Bit set of provinces whose control marker Might flipped.
    province_flipped: u32,
    /// The bonus token still on each province's space.
    bonus: [Option<Bonus>; PROVINCE_COUNT],
    italia_dashed: Option<Player>,
    hands: [Tokens; 2],
    bags: [Tokens; 2],
    hand_limits: [u8; 2],
    senate: [u8; 2],
    markers: [u8; 2],
    /// `None` once a player has placed their 12th marker.
    to_move: Option<Player>,
    chance: Chance,
}

/// Where a Might flip lands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    /// The opponent's face-up, uncovered influence token on a border.
    Border(u8),
    /// The opponent's face-up control marker on a province's space.
    Province(u8),
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Target::Border(border) => f.write_str(border_id(border as usize)),
            Target::Province(province) => f.write_str(province_code(province as usize)),
        }
    }
}

/// What the closer does with a Tactics, Wealth or Might bonus.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Choice {
    Decline,
    Tactics,
    Wealth,
    Might(Target),
}

impl fmt::Display for Choice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Choice::Decline => f.write_str("-"),
            Choice::Tactics => f.write_str("T"),
            Choice::Wealth => f.write_str("W"),
            Choice::Might(target) => write!(f, "M:{target}"),
        }
    }
}

impl Choice {
    fn fits(self, bonus: Bonus) -> bool {
        matches!(
            (self, bonus),
            (Choice::Decline, _)
                | (Choice::Tactics, Bonus::Tactics)
                | (Choice::Wealth, Bonus::Wealth)
                | (Choice::Might(_), Bonus::Might)
        )
    }
}

/// Moves in a module of their own, so that nothing, this file included, builds one but through
/// `Move::new`: a move always names a token kind and a border that exist, and draws tokens that exist.
mod turn {
    use super::{is_symmetric, Choice, BORDER_COUNT, TOKEN_KINDS};

    /// A turn: a token from hand on a border with an orientation, the bonus choices, and optionally
    /// the tokens drawn (otherwise the state's random source draws them).
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    pub struct Move {
        kind: u8,
        border: u8,
        forward: bool,
        choices: Vec<Choice>,
        draws: Vec<u8>,
    }

    impl Move {
        /// Token `kind` on `border` with the bonus choices and the tokens drawn, if the kinds and
        /// the border exist. A symmetric token is always `forward` (its two orientations are one).
        pub fn new(
            kind: usize,
            border: usize,
            forward: bool,
            choices: Vec<Choice>,
            draws: Vec<u8>,
        ) -> Option<Move> {
            let exists = kind < TOKEN_KINDS
                && border < BORDER_COUNT
                && draws.iter().all(|&draw| usize::from(draw) < TOKEN_KINDS);
            exists.then(|| Move {
                kind: kind as u8,
                border: border as u8,
                forward: forward || is_symmetric(kind),
                choices,
                draws,
            })
        }

        /// A move of the move generator, which enumerates the kinds, borders and orientations
        /// that exist and draws nothing: on its hot path only debug builds check them again.
        pub(super) fn generated(
            kind: usize,
            border: usize,
            forward: bool,
            choices: Vec<Choice>,
        ) -> Move {
            debug_assert!(kind < TOKEN_KINDS && border < BORDER_COUNT);
            debug_assert!(forward || !is_symmetric(kind));
            Move {
                kind: kind as u8,
                border: border as u8,
                forward,
                choices,
                draws: Vec::new(),
            }
        }

        /// The token placed, below `TOKEN_KINDS`.
        pub fn kind(&self) -> usize {
            usize::from(self.kind)
        }

        /// The border placed on, below `BORDER_COUNT`.
        pub fn border(&self) -> usize {
            usize::from(self.border)
        }

        /// The larger number faces the first province of the canonical id (always true for a
        /// symmetric token, whose two orientations are one placement).
        pub fn forward(&self) -> bool {
            self.forward
        }

        pub fn choices(&self) -> &[Choice] {
            &self.choices
        }

        /// The tokens drawn, each below `TOKEN_KINDS`; none when the random source draws them.
        pub fn draws(&self) -> &[u8] {
            &self.draws
        }
    }
}

pub use turn::Move;

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Piece by piece rather than with `write!`: every legal move list writes each of its moves.
        let (a, b, _) = BORDERS[self.border()];
        let (first, second) = if self.forward() { (a, b) } else { (b, a) };
        f.write_str(token_code(self.kind()))?;
        f.write_str("@")?;
        f.write_str(province_code(first))?;
        f.write_str("-")?;
        f.write_str(province_code(second))?;
        for choice in self.choices() {
            f.write_str(" ")?;
            fmt::Display::fmt(choice, f)?;
        }
        for &draw in self.draws() {
            f.write_str(" =")?;
            f.write_str(token_code(draw as usize))?;
        }
        Ok(())
    }
}

fn parse_move(text: &str) -> Result<Move> {
    let malformed = |why: String| {
        Error::malformed_move(format!(
            "{text:?}: {why}; a move is <token>@<A>-<B>, then a choice per closing bonus (T, W, M:<target> or -), then =<token> per draw (e.g. S60@HC-HU T =D42)"
        ))
    };
    let mut words = text.split(' ');
    let placement = words.next().unwrap_or_default();
    let (token, border) = placement
        .split_once('@')
        .ok_or_else(|| malformed("the placement has no @".into()))?;
    let kind = parse_token(token)
        .ok_or_else(|| malformed(format!("{token:?} is not a token (L40 L31 L22 S60 .. N33)")))?;
    let (border, canonical) = parse_border(border)
        .ok_or_else(|| malformed(format!("{border:?} is not a border between two provinces")))?;
    let (mut choices, mut draws) = (Vec::new(), Vec::new());
    for word in words {
        if let Some(draw) = word.strip_prefix('=') {
            let kind =
                parse_token(draw).ok_or_else(|| malformed(format!("{draw:?} is not a token")))?;
            draws.push(kind as u8);
            continue;
        }
        if !draws.is_empty() {
            return Err(malformed(format!("choice {word:?} after a draw")));
        }
        let choice = match word {
            "T" => Choice::Tactics,
            "W" => Choice::Wealth,
            "-" => Choice::Decline,
            _ => {
                let target = word.strip_prefix("M:").ok_or_else(|| {
                    malformed(format!("{word:?} is not a choice (T, W, M:<target>, -)"))
                })?;
                let target = if let Some(province) = parse_province(target) {
                    Target::Province(province as u8)
                } else if let Some((border, _)) = parse_border(target) {
                    Target::Border(border as u8)
                } else {
                    return Err(malformed(format!(
                        "{target:?} is neither a province nor a border"
                    )));
                };
                Choice::Might(target)
            }
        };
        choices.push(choice);
    }
    Ok(
        Move::new(kind, border, canonical, choices, draws)
            .expect("parsed tokens and borders exist"),
    )
}

/// One province's closure, as reported to clients.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[schemars(rename = "CaesarClosure")]
pub struct Closure {
    /// The province's code.
    pub province: &'static str,
    /// The bonus token taken with the province; null when none was left on it.
    #[schemars(with = "Nullable<Bonus>")]
    pub bonus: Option<&'static str>,
    /// Each player's influence on the province.
    #[schemars(with = "PerPlayer<CountSchema>")]
    pub sums: PerPlayer<u32>,
    /// Who took control; null on a tie.
    #[schemars(with = "Nullable<Player>")]
    pub control: Option<&'static str>,
    /// Where markers went, in order: the province, `IT*` (Italia's dashed space), border ids,
    /// `senate` per Senate marker.
    pub markers: Vec<String>,
    /// `T`, `W`, `M:<target>` or `-`; null for Senate or when the game ended first.
    pub choice: Option<String>,
}

/// What a move did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[schemars(rename = "CaesarEffects")]
pub struct Effects {
    #[schemars(with = "Player")]
    pub player: &'static str,
    #[schemars(with = "TokenSchema")]
    pub token: &'static str,
    /// The border the token was placed on.
    pub border: String,
    /// The number facing each of the border's two provinces.
    #[schemars(with = "FacesSchema")]
    pub faces: Ordered<u8>,
    pub closures: Vec<Closure>,
    /// The tokens the mover drew.
    #[schemars(with = "Vec<TokenSchema>")]
    pub drawn: Vec<String>,
    /// Tactics was used: the mover plays again (unless the game is over).
    pub extra_turn: bool,
    /// The winner when the game is over after this move.
    #[schemars(with = "Nullable<Player>")]
    pub winner: Option<&'static str>,
}

/// Where a turn's draws come from.
enum Draws<'a> {
    /// The state's random source.
    Seeded,
    /// The tokens the move lists, in order.
    Given { tokens: &'a [u8], used: usize },
}

/// The effects of placing `kind` on `border` (with the faces it shows), before any closure.
fn placement_effects(player: Player, kind: usize, border: usize, forward: bool) -> Effects {
    let placed = Placed {
        kind: kind as u8,
        owner: player,
        forward,
        flipped: false,
        marker: None,
    };
    let (first, second) = placed.faces();
    let (a, b, _) = BORDERS[border];
    Effects {
        player: player.name(),
        token: token_code(kind),
        border: border_id(border).to_owned(),
        faces: Ordered(vec![
            (province_code(a).into(), first),
            (province_code(b).into(), second),
        ]),
        closures: Vec::new(),
        drawn: Vec::new(),
        extra_turn: false,
        winner: None,
    }
}

/// A closure gives a bonus that needs a choice, and the move has none left.
fn missing_choice(province: usize, player: Player, bonus: Bonus) -> Error {
    Error::illegal_move(
        "missing-choice",
        format!(
            "closing {} gives {} the {} bonus: say T/W/M:<target> to use it or - to decline",
            province_code(province),
            player.name(),
            bonus.name()
        ),
        json!({ "province": province_code(province), "bonus": bonus.name() }),
    )
}

/// A move that lists its draws lists exactly the turn's.
fn check_draws_used(draws: &Draws) -> Result<()> {
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
    /// Full bags, empty hands, no bonus tokens: the board before setup.
    fn empty(chance: Chance) -> Self {
        let mut bag = [0u8; TOKEN_KINDS];
        for (count, token) in bag.iter_mut().zip(TOKENS.iter()) {
            *count = token.4;
        }
        Position {
            borders: [None; BORDER_COUNT],
            filled: 0,
            control: [None; PROVINCE_COUNT],
            province_flipped: 0,
            bonus: [None; PROVINCE_COUNT],
            italia_dashed: None,
            hands: [[0; TOKEN_KINDS]; 2],
            bags: [bag; 2],
            hand_limits: [START_HAND_LIMIT; 2],
            senate: [0; 2],
            markers: [0; 2],
            to_move: Some(Player::Caesar),
            chance,
        }
    }

    fn is_closed(&self, province: usize) -> bool {
        self.filled & PROVINCE_MASK[province] == PROVINCE_MASK[province]
    }

    fn is_flipped(&self, province: usize) -> bool {
        self.province_flipped >> province & 1 == 1
    }

    /// The winner and how, once the game is over.
    pub fn result(&self) -> Option<(Player, &'static str)> {
        if let Some(&winner) = Player::BOTH
            .iter()
            .find(|p| self.markers[**p as usize] >= CONTROL_MARKERS)
        {
            return Some((winner, "twelfth_marker"));
        }
        let player = self.to_move?;
        if token_total(&self.hands[player as usize]) == 0 {
            return Some((player.other(), "no_token"));
        }
        if !self.has_placement(player) {
            return Some((player.other(), "no_space"));
        }
        None
    }

    fn has_placement(&self, player: Player) -> bool {
        self.hands[player as usize]
            .iter()
            .enumerate()
            .any(|(kind, &n)| n > 0 && token_borders(kind) & !self.filled != 0)
    }

    /// The player to move while the game goes on.
    fn active(&self) -> Option<Player> {
        self.result().is_none().then_some(self.to_move).flatten()
    }

    /// Draws one token of `player` from the seeded source (nothing from an empty bag).
    fn draw_seeded(&mut self, player: Player) -> Option<usize> {
        let bag = &mut self.bags[player as usize];
        let total = token_total(bag);
        if total == 0 {
            return None;
        }
        let mut index = self.chance.below(total);
        for (kind, count) in bag.iter_mut().enumerate() {
            if index < u32::from(*count) {
                *count -= 1;
                self.hands[player as usize][kind] += 1;
                return Some(kind);
            }
            index -= u32::from(*count);
        }
        None
    }

    /// One draw of the turn from its source; `drawn` records it.
    fn draw(&mut self, player: Player, draws: &mut Draws, drawn: &mut Vec<String>) -> Result<()> {
        let p = player as usize;
        if token_total(&self.bags[p]) == 0 {
            return Ok(());
        }
        let kind = match draws {
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
                self.bags[p][kind] -= 1;
                self.hands[p][kind] += 1;
                kind
            }
        };
        drawn.push(token_code(kind).to_owned());
        Ok(())
    }

    /// Places one control marker; true when it is the player's 12th (they win at once).
    fn place_marker(&mut self, player: Player) -> bool {
        let count = &mut self.markers[player as usize];
        *count = count.saturating_add(1);
        *count >= CONTROL_MARKERS
    }

    /// Closing steps 1–4: the closer takes the bonus (returned), the higher sum places a marker (Italia a
    /// second one), border markers toward adjacent provinces of the same controller. Returns the
    /// report and whether a 12th marker was placed.
    fn close(&mut self, province: usize, closer: Player) -> (Closure, Option<Bonus>, bool) {
        // Step 1: the closer takes the bonus token; a Senate is theirs from now on, even if a 12th
        // marker ends the game before its step 5.
        let bonus = self.bonus[province].take();
        if bonus == Some(Bonus::Senate) {
            let held = &mut self.senate[closer as usize];
            *held = held.saturating_add(1);
        }
        let mut sums = [0u32; 2];
        let mask = PROVINCE_MASK[province];
        for (border, placed) in self.borders.iter().enumerate() {
            if let Some(placed) = placed.filter(|p| mask >> border & 1 == 1 && !p.flipped) {
                sums[placed.owner as usize] += placed.facing(border, province);
            }
        }
        let control = match sums[0].cmp(&sums[1]) {
            std::cmp::Ordering::Greater => Some(Player::Caesar),
            std::cmp::Ordering::Less => Some(Player::Pompey),
            std::cmp::Ordering::Equal => None,
        };
        let mut report = Closure {
            province: province_code(province),
            bonus: bonus.map(Bonus::name),
            sums: PerPlayer::of(sums),
            control: control.map(Player::name),
            markers: Vec::new(),
            choice: None,
        };
        let won = control.is_some_and(|player| self.place_control(province, player, &mut report));
        (report, bonus, won)
    }

    /// Steps 2–4 for the province's controller; true when a 12th marker is placed.
    fn place_control(&mut self, province: usize, player: Player, report: &mut Closure) -> bool {
        self.control[province] = Some(player);
        report.markers.push(province_code(province).to_owned());
        if self.place_marker(player) {
            return true;
        }
        if province == IT {
            self.italia_dashed = Some(player);
            report.markers.push("IT*".to_owned());
            if self.place_marker(player) {
                return true;
            }
        }
        for (border, &(a, b, _)) in BORDERS.iter().enumerate() {
            if PROVINCE_MASK[province] >> border & 1 == 0 {
                continue;
            }
            let neighbour = if a == province { b } else { a };
            if self.control[neighbour] != Some(player) || self.is_flipped(neighbour) {
                continue;
            }
            if let Some(placed) = self.borders[border].as_mut() {
                placed.marker = Some(player);
                report.markers.push(border_id(border).to_owned());
                if self.place_marker(player) {
                    return true;
                }
            }
        }
        false
    }

    /// Senate (step 5, automatic): the closer, having won the province, places as many markers under
    /// the token (taken at step 1) as Senate tokens they hold. True when a 12th marker is placed.
    fn keep_senate(&mut self, closer: Player, report: &mut Closure) -> bool {
        let held = self.senate[closer as usize];
        if report.control != Some(closer.name()) {
            return false;
        }
        for _ in 0..held {
            report.markers.push("senate".to_owned());
            if self.place_marker(closer) {
                return true;
            }
        }
        false
    }

    /// The Might targets of `closer`: the opponent's face-up uncovered tokens, then the opponent's
    /// face-up province markers.
    fn might_targets(&self, closer: Player) -> Vec<Target> {
        let opponent = closer.other();
        let tokens = self
            .borders
            .iter()
            .enumerate()
            .filter_map(|(border, placed)| {
                placed
                    .filter(|p| p.owner == opponent && !p.flipped && p.marker.is_none())
                    .map(|_| Target::Border(border as u8))
            });
        let provinces = (0..PROVINCE_COUNT)
            .filter(|&q| self.control[q] == Some(opponent) && !self.is_flipped(q))
            .map(|q| Target::Province(q as u8));
        tokens.chain(provinces).collect()
    }

    fn flip(&mut self, target: Target) {
        match target {
            Target::Border(border) => {
                if let Some(placed) = self.borders[border as usize].as_mut() {
                    placed.flipped = true;
                }
            }
            Target::Province(province) => self.province_flipped |= 1 << province,
        }
    }

    /// The provinces a placement on `border` closes, in table order (resolution order).
    fn closing(&self, border: usize) -> impl Iterator<Item = usize> + '_ {
        let (a, b, _) = BORDERS[border];
        let (first, second) = (a.min(b), a.max(b));
        [first, second]
            .into_iter()
            .filter(move |&q| self.is_closed(q))
    }

    /// Puts a token from the mover's hand on a border, unchecked.
    fn put(&mut self, player: Player, kind: usize, border: usize, forward: bool) {
        self.hands[player as usize][kind] -= 1;
        self.borders[border] = Some(Placed {
            kind: kind as u8,
            owner: player,
            forward,
            flipped: false,
            marker: None,
        });
        self.filled |= 1 << border;
    }

    /// Every choice sequence of a placement (already put) whose closures are `closing`.
    fn choice_sequences(
        &self,
        closing: &[usize],
        closer: Player,
        prefix: &mut Vec<Choice>,
        out: &mut Vec<Vec<Choice>>,
    ) {
        let Some((&province, rest)) = closing.split_first() else {
            out.push(prefix.clone());
            return;
        };
        let mut next = self.clone();
        let (mut report, bonus, won) = next.close(province, closer);
        if won {
            out.push(prefix.clone());
            return;
        }
        let options = match bonus {
            None => vec![None],
            Some(Bonus::Senate) => {
                if next.keep_senate(closer, &mut report) {
                    out.push(prefix.clone());
                    return;
                }
                vec![None]
            }
            Some(Bonus::Tactics) => vec![Some(Choice::Tactics), Some(Choice::Decline)],
            Some(Bonus::Wealth) => vec![Some(Choice::Wealth), Some(Choice::Decline)],
            Some(Bonus::Might) => next
                .might_targets(closer)
                .into_iter()
                .map(|t| Some(Choice::Might(t)))
                .chain([Some(Choice::Decline)])
                .collect(),
        };
        for option in options {
            match option {
                Some(choice) => {
                    let mut after = next.clone();
                    if let Choice::Might(target) = choice {
                        after.flip(target);
                    }
                    prefix.push(choice);
                    after.choice_sequences(rest, closer, prefix, out);
                    prefix.pop();
                }
                None => next.choice_sequences(rest, closer, prefix, out),
            }
        }
    }

    /// The legal moves in generation order (token, border, orientation, choices), without draws.
    fn moves_unsorted(&self) -> Vec<Move> {
        let Some(player) = self.active() else {
            return Vec::new();
        };
        let mut moves = Vec::new();
        let mut sequences = Vec::new();
        for (kind, &count) in self.hands[player as usize].iter().enumerate() {
            if count == 0 {
                continue;
            }
            let open = token_borders(kind) & !self.filled;
            for border in (0..BORDER_COUNT).filter(|b| open >> b & 1 == 1) {
                let orientations: &[bool] = if is_symmetric(kind) {
                    &[true]
                } else {
                    &[true, false]
                };
                for &forward in orientations {
                    let mut after = self.clone();
                    after.put(player, kind, border, forward);
                    let closing: Vec<usize> = after.closing(border).collect();
                    sequences.clear();
                    if closing.is_empty() {
                        sequences.push(Vec::new());
                    } else {
                        after.choice_sequences(&closing, player, &mut Vec::new(), &mut sequences);
                    }
                    for choices in sequences.drain(..) {
                        moves.push(Move::generated(kind, border, forward, choices));
                    }
                }
            }
        }
        moves
    }

    /// The legal moves, sorted by their notation.
    pub fn legal_moves(&self) -> Vec<Move> {
        self.sorted_moves().into_iter().map(|(_, mv)| mv).collect()
    }

    /// The legal moves with their notation, in the order of their notation.
    fn sorted_moves(&self) -> Vec<(String, Move)> {
        let mut moves: Vec<(String, Move)> = self
            .moves_unsorted()
            .into_iter()
            .map(|mv| {
                // Room for most moves at once: `to_string` grew each text two or three times.
                let mut text = String::with_capacity(24);
                write!(text, "{mv}").expect("a String takes any text");
                (text, mv)
            })
            .collect();
        moves.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        moves
    }

    pub fn play(&self, mv: Move) -> Result<(Position, Effects)> {
        let player = self.active().ok_or(Error::GameOver)?;
        let (kind, border) = (mv.kind(), mv.border());
        self.check_placement(player, kind, border)?;
        let forward = mv.forward();
        let mut next = self.clone();
        next.put(player, kind, border, forward);
        let mut effects = placement_effects(player, kind, border, forward);
        if !mv.draws().is_empty() {
            if let Some(key_id) = self.chance.keyed_by() {
                // With keyed chance (a service with seal keys) the draws come from the generator
                // alone: listing them would let the mover choose their own tokens.
                return Err(Error::illegal_move(
                    "listed-draws",
                    format!(
                        "the move lists {} draw(s), but this game's draws come from its keyed random source (key {key_id:?}): give the move without draws",
                        mv.draws().len()
                    ),
                    json!({ "listed": mv.draws().len() }),
                ));
            }
        }
        let mut draws = if mv.draws().is_empty() {
            Draws::Seeded
        } else {
            Draws::Given {
                tokens: mv.draws(),
                used: 0,
            }
        };
        let mut choices = mv.choices().iter().copied();
        let won = next.close_provinces(border, player, &mut choices, &mut draws, &mut effects)?;
        if let Some(extra) = choices.next() {
            let expected = mv.choices().len() - 1 - choices.count();
            return Err(Error::illegal_move(
                "too-many-choices",
                format!(
                    "choice {extra} has no bonus to apply to: this placement gives {expected} Tactics, Wealth or Might choice(s)"
                ),
                json!({ "choice": extra.to_string(), "expected": expected }),
            ));
        }
        next.end_turn(player, won, &mut draws, &mut effects)?;
        check_draws_used(&draws)?;
        effects.winner = next.result().map(|(winner, _)| winner.name());
        Ok((next, effects))
    }

    /// Steps 1–2: the token is in the mover's hand, the border is free and takes that token.
    fn check_placement(&self, player: Player, kind: usize, border: usize) -> Result<()> {
        let id = border_id(border);
        if self.hands[player as usize][kind] == 0 {
            return Err(Error::illegal_move(
                "token-not-in-hand",
                format!("{} has no {} in hand", player.name(), token_code(kind)),
                json!({ "token": token_code(kind), "hand": token_list::<&str>(&self.hands[player as usize]) }),
            ));
        }
        if self.filled >> border & 1 == 1 {
            return Err(Error::illegal_move(
                "border-occupied",
                format!("the border {id} already holds a token"),
                json!({ "border": id }),
            ));
        }
        if token_borders(kind) >> border & 1 == 0 {
            let icon = BORDERS[border].2.name();
            return Err(Error::illegal_move(
                "icon-mismatch",
                format!(
                    "{} is a {} token: it goes on a {} border or is a laurel, and {id} is a {icon} border",
                    token_code(kind),
                    token_icon_name(kind),
                    token_icon_name(kind)
                ),
                json!({ "token": token_code(kind), "icon": token_icon_name(kind), "border": id, "border_icon": icon }),
            ));
        }
        Ok(())
    }

    /// Steps 3–5 on the position after the placement on `border`: closes each province it closes,
    /// giving its bonus (with the move's next choice where the bonus needs one). Whether a 12th
    /// marker won the game.
    fn close_provinces(
        &mut self,
        border: usize,
        player: Player,
        choices: &mut impl Iterator<Item = Choice>,
        draws: &mut Draws,
        effects: &mut Effects,
    ) -> Result<bool> {
        let closing: Vec<usize> = self.closing(border).collect();
        for province in closing {
            let (mut report, bonus, mut won) = self.close(province, player);
            if !won {
                won = match bonus {
                    None => false,
                    Some(Bonus::Senate) => self.keep_senate(player, &mut report),
                    Some(bonus) => {
                        let choice = choices
                            .next()
                            .ok_or_else(|| missing_choice(province, player, bonus))?;
                        self.use_bonus(province, bonus, player, choice, draws, effects)?;
                        report.choice = Some(choice.to_string());
                        false
                    }
                };
            }
            effects.closures.push(report);
            if won {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Step 6: a win ends the game; otherwise the mover draws up to the hand limit and the turn
    /// passes (or stays, after Tactics).
    fn end_turn(
        &mut self,
        player: Player,
        won: bool,
        draws: &mut Draws,
        effects: &mut Effects,
    ) -> Result<()> {
        if won {
            // A 12th marker ends the game: no turn follows, Tactics or not.
            self.to_move = None;
            effects.extra_turn = false;
            return Ok(());
        }
        let p = player as usize;
        while token_total(&self.hands[p]) < u32::from(self.hand_limits[p])
            && token_total(&self.bags[p]) > 0
        {
            self.draw(player, draws, &mut effects.drawn)?;
        }
        self.to_move = Some(if effects.extra_turn {
            player
        } else {
            player.other()
        });
        Ok(())
    }

    /// Step 5 for Tactics, Wealth and Might: the closer's choice, checked.
    fn use_bonus(
        &mut self,
        province: usize,
        bonus: Bonus,
        closer: Player,
        choice: Choice,
        draws: &mut Draws,
        effects: &mut Effects,
    ) -> Result<()> {
        let code = province_code(province);
        if !choice.fits(bonus) {
            return Err(Error::illegal_move(
                "choice-mismatch",
                format!(
                    "closing {code} gives the {} bonus: choice {choice} does not apply to it ({} or -)",
                    bonus.name(),
                    match bonus {
                        Bonus::Tactics => "T",
                        Bonus::Wealth => "W",
                        _ => "M:<target>",
                    }
                ),
                json!({ "province": code, "bonus": bonus.name(), "choice": choice.to_string() }),
            ));
        }
        match choice {
            Choice::Decline => {}
            Choice::Tactics => effects.extra_turn = true,
            Choice::Wealth => {
                let limit = &mut self.hand_limits[closer as usize];
                *limit = limit.saturating_add(1);
                self.draw(closer, draws, &mut effects.drawn)?;
            }
            Choice::Might(target) => {
                let targets = self.might_targets(closer);
                if !targets.contains(&target) {
                    let names: Vec<String> = targets.iter().map(ToString::to_string).collect();
                    return Err(Error::illegal_move(
                        "might-target",
                        format!(
                            "{target} is not a Might target: the targets are {}'s face-up uncovered tokens and face-up province markers ({})",
                            closer.other().name(),
                            if names.is_empty() { "none: decline with -".to_owned() } else { names.join(", ") }
                        ),
                        json!({ "province": code, "target": target.to_string(), "targets": names }),
                    ));
                }
                self.flip(target);
            }
        }
        Ok(())
    }

    pub fn outcome(&self) -> Outcome {
        let scores = BTreeMap::from([
            ("caesar", i64::from(self.markers[0])),
            ("pompey", i64::from(self.markers[1])),
        ]);
        match self.result() {
            None => Outcome {
                status: Status::Ongoing,
                to_move: self.to_move.map(Player::name),
                scores,
                winner: None,
                decided_by: None,
                ranking: None,
            },
            Some((winner, decided_by)) => Outcome {
                status: Status::Finished,
                to_move: None,
                scores,
                winner: Some(winner.name()),
                decided_by: Some(decided_by),
                ranking: None,
            },
        }
    }

    /// What `player` may see: the state without the generator, the bags and the opponent's hand;
    /// hand and bag sizes of both players instead.
    pub fn view(&self, player: Player) -> Value {
        serde_json::to_value(self.view_of(player)).unwrap_or_default()
    }

    /// `view` in its typed form, written straight to JSON (no tree of values on the play path).
    pub fn view_of(&self, player: Player) -> View {
        let state = state::to_state(self);
        let sizes = |tokens: &[Tokens; 2]| state::PerPlayer::of(tokens.each_ref().map(token_total));
        View {
            rules: state.rules,
            to_move: state.to_move,
            borders: state.borders,
            provinces: state.provinces,
            italia_dashed: state.italia_dashed,
            hands: BTreeMap::from([(
                player.name(),
                token_list::<&str>(&self.hands[player as usize]),
            )]),
            hand_limits: state.hand_limits,
            senate: state.senate,
            markers: state.markers,
            hand_sizes: sizes(&self.hands),
            bag_sizes: sizes(&self.bags),
        }
    }
}

/// What one player sees of a state (see `Position::view`): the contract's `CaesarView`.
#[derive(Serialize)]
pub struct View {
    rules: String,
    to_move: Option<state::Name>,
    borders: state::Ordered<Option<state::BorderState>>,
    provinces: state::Ordered<state::ProvinceState>,
    italia_dashed: Option<state::Name>,
    hands: BTreeMap<&'static str, Vec<&'static str>>,
    hand_limits: state::PerPlayer<u32>,
    senate: state::PerPlayer<u32>,
    markers: state::PerPlayer<u32>,
    hand_sizes: state::PerPlayer<u32>,
    bag_sizes: state::PerPlayer<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(rename = "CaesarVariant")]
pub enum Variant {
    #[default]
    Standard,
}

/// The chance events of setup, given instead of drawn (to set up a real game).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "CaesarOptions")]
pub struct Options {
    /// Each province but IT to its bonus (5 senate, 4 tactics, 4 wealth, 4 might); drawn from the
    /// seed when null.
    #[serde(default)]
    #[schemars(with = "Option<BonusesSchema>")]
    pub bonuses: Option<Ordered<String>>,
    /// The two starting tokens of each player; drawn from the seed when null.
    #[serde(default)]
    #[schemars(with = "Option<PerPlayer<TokensSchema>>")]
    pub hands: Option<PerPlayer<Vec<String>>>,
}

/// Each province but IT to its bonus token, by province code.
#[derive(JsonSchema)]
#[schemars(rename = "CaesarBonuses")]
#[allow(dead_code)] // a schema only
struct BonusesSchema(
    #[schemars(extend("propertyNames" = {"pattern": "^[A-Z]{2}$"}))] BTreeMap<String, Bonus>,
);

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "CaesarSetup")]
pub struct Setup {
    #[serde(default)]
    pub variant: Variant,
    #[serde(default)]
    pub options: Options,
}

/// The bonuses of a checked setup, province by province (Italia's is always Senate).
fn setup_bonuses(bonuses: &Ordered<String>) -> Result<[Bonus; PROVINCE_COUNT]> {
    let field = "options.bonuses";
    let mut layout: [Option<Bonus>; PROVINCE_COUNT] = [None; PROVINCE_COUNT];
    layout[IT] = Some(Bonus::Senate);
    for (code, name) in &bonuses.0 {
        let province = parse_province(code).filter(|&q| q != IT).ok_or_else(|| {
            Error::invalid_options(
                format!("{field}.{code}"),
                format!("{code:?} is not a province that takes a shuffled bonus (all but IT)"),
            )
        })?;
        let bonus = Bonus::parse(name).ok_or_else(|| {
            Error::invalid_options(
                format!("{field}.{code}"),
                format!("{name:?} is not a bonus (senate, tactics, wealth, might)"),
            )
        })?;
        if layout[province].is_some() {
            return Err(Error::invalid_options(
                format!("{field}.{code}"),
                format!("{code} is listed twice"),
            ));
        }
        layout[province] = Some(bonus);
    }
    let missing: Vec<&str> = (0..PROVINCE_COUNT)
        .filter(|&q| layout[q].is_none())
        .map(province_code)
        .collect();
    if !missing.is_empty() {
        return Err(Error::invalid_options(
            field,
            format!(
                "every province but IT gets a bonus; missing: {}",
                missing.join(", ")
            ),
        ));
    }
    let layout = layout.map(|bonus| bonus.unwrap_or(Bonus::Senate));
    for bonus in Bonus::ALL {
        let count = layout.iter().filter(|&&b| b == bonus).count();
        if count != bonus.count() as usize {
            return Err(Error::invalid_options(
                field,
                format!(
                    "the 17 shuffled bonuses are 5 senate, 4 tactics, 4 wealth and 4 might; {count} {} given{}",
                    bonus.name(),
                    if bonus == Bonus::Senate { " (with IT's)" } else { "" }
                ),
            ));
        }
    }
    Ok(layout)
}

/// The starting hands of a checked setup, as token counts.
fn setup_hands(hands: &PerPlayer<Vec<String>>) -> Result<[Tokens; 2]> {
    let mut counts = [[0u8; TOKEN_KINDS]; 2];
    for player in Player::BOTH {
        let field = format!("options.hands.{}", player.name());
        let hand = hands.get(player);
        if hand.len() != START_HAND_LIMIT as usize {
            return Err(Error::invalid_options(
                field,
                format!("a starting hand is 2 tokens, not {}", hand.len()),
            ));
        }
        for code in hand {
            let kind = parse_token(code).ok_or_else(|| {
                Error::invalid_options(field.clone(), format!("{code:?} is not a token"))
            })?;
            counts[player as usize][kind] += 1;
            if counts[player as usize][kind] > TOKENS[kind].4 {
                return Err(Error::invalid_options(
                    field.clone(),
                    format!("a bag holds only {} {code}", TOKENS[kind].4),
                ));
            }
        }
    }
    Ok(counts)
}

fn check_setup(setup: Setup) -> Result<Setup> {
    let mut setup = setup;
    if let Some(bonuses) = &setup.options.bonuses {
        let layout = setup_bonuses(bonuses)?;
        // Normalised: table order.
        setup.options.bonuses = Some(Ordered(
            (0..PROVINCE_COUNT)
                .filter(|&q| q != IT)
                .map(|q| (province_code(q).into(), layout[q].name().to_owned()))
                .collect(),
        ));
    }
    if let Some(hands) = &setup.options.hands {
        let counts = setup_hands(hands)?;
        setup.options.hands = Some(PerPlayer::of(counts.each_ref().map(token_list)));
    }
    Ok(setup)
}

fn start(setup: &Setup, seed: Option<u64>) -> Position {
    let mut position = Position::empty(Chance::from_seed(seed.unwrap_or_else(chance::fresh_seed)));
    // A setup that did not pass `check_setup` falls back to drawing what it gets wrong.
    let layout = setup
        .options
        .bonuses
        .as_ref()
        .and_then(|b| setup_bonuses(b).ok());
    match layout {
        Some(layout) => position.bonus = layout.map(Some),
        None => {
            let mut shuffled: Vec<Bonus> = Bonus::ALL
                .iter()
                .flat_map(|&b| {
                    std::iter::repeat_n(b, b.count() as usize - usize::from(b == Bonus::Senate))
                })
                .collect();
            for i in (1..shuffled.len()).rev() {
                let j = position.chance.below(i as u32 + 1) as usize;
                shuffled.swap(i, j);
            }
            let mut others = shuffled.into_iter();
            for province in 0..PROVINCE_COUNT {
                position.bonus[province] = if province == IT {
                    Some(Bonus::Senate)
                } else {
                    others.next()
                };
            }
        }
    }
    match setup
        .options
        .hands
        .as_ref()
        .and_then(|h| setup_hands(h).ok())
    {
        Some(hands) => {
            for player in Player::BOTH {
                let p = player as usize;
                for (bag, hand) in position.bags[p].iter_mut().zip(hands[p]) {
                    *bag -= hand;
                }
                position.hands[p] = hands[p];
            }
        }
        None => {
            for player in Player::BOTH {
                for _ in 0..START_HAND_LIMIT {
                    position.draw_seeded(player);
                }
            }
        }
    }
    position
}

pub struct Caesar;

impl Rules for Caesar {
    const NAME: &'static str = "caesar";
    const RULES_VERSION: &'static str = "caesar@1";
    const HIDDEN_INFORMATION: bool = true;
    const PLAYERS: &'static [&'static str] = &["caesar", "pompey"];
    type Setup = Setup;
    type Position = Position;
    type Move = Move;
    type State = State;
    type Effects = Effects;

    fn info() -> Value {
        let provinces: Vec<Value> = PROVINCES
            .iter()
            .enumerate()
            .map(|(q, (code, name, _))| {
                let borders: Vec<&str> = (0..BORDER_COUNT)
                    .filter(|b| PROVINCE_MASK[q] >> b & 1 == 1)
                    .map(border_id)
                    .collect();
                let spaces: Vec<&str> = if q == IT {
                    vec!["IT", "IT*"]
                } else {
                    vec![code]
                };
                json!({ "code": code, "name": name, "borders": borders, "spaces": spaces })
            })
            .collect();
        let borders: Vec<Value> = BORDERS
            .iter()
            .enumerate()
            .map(|(b, &(a, c, icon))| {
                json!({ "id": border_id(b), "provinces": [province_code(a), province_code(c)], "icon": icon.name() })
            })
            .collect();
        let tokens: Vec<Value> = TOKENS
            .iter()
            .map(|&(code, _, hi, lo, count)| {
                json!({ "code": code, "icon": token_icon_name(parse_token(code).unwrap_or(0)), "numbers": [hi, lo], "count": count })
            })
            .collect();
        let bonuses: Vec<Value> = Bonus::ALL
            .iter()
            .map(|b| {
                let effect = match b {
                    Bonus::Senate => "kept; on winning the province, place as many markers under it as Senate tokens held",
                    Bonus::Tactics => "T: take another turn after this one (once per placement)",
                    Bonus::Wealth => "W: hand limit +1 and draw one token at once",
                    Bonus::Might => "M:<target>: flip one of the opponent's face-up uncovered tokens or province markers",
                };
                json!({ "name": b.name(), "count": b.count(), "effect": effect })
            })
            .collect();
        json!({
            "name": "caesar",
            "title": "Caesar!",
            "rules": Self::RULES_VERSION,
            "players": Self::PLAYERS,
            "chance": true,
            "hidden_information": Self::HIDDEN_INFORMATION,
            "variants": [
                { "name": "standard", "default": true, "description": "the base game for two players" }
            ],
            "options": [
                { "name": "bonuses", "type": "object", "default": null,
                  "description": "each province but IT to its bonus (5 senate, 4 tactics, 4 wealth, 4 might); drawn when absent" },
                { "name": "hands", "type": "object", "default": null,
                  "description": "{\"caesar\": [t, t], \"pompey\": [t, t]}: the starting hands; drawn when absent" }
            ],
            "board": {
                "provinces": provinces,
                "borders": borders,
                "italia_spaces": ["IT", "IT*"],
                "icons": ["sword", "shield", "ship"],
            },
            "tokens": tokens,
            "bag_size": BAG_SIZE,
            "bonus_tokens": bonuses,
            "italia_bonus": "senate",
            "control_markers": CONTROL_MARKERS,
            "hand_limit": START_HAND_LIMIT,
            "notation": {
                "move": "<token>@<A>-<B>, larger number toward A; then one choice per Tactics/Wealth/Might closure (T, W, M:<border or province>, -); then =<token> per draw, all or none (e.g. S60@HC-HU T =D42)",
                "position": state::POSITION_NOTATION,
            },
        })
    }

    fn check_setup(setup: Setup) -> Result<Setup> {
        check_setup(setup)
    }

    fn start(setup: &Setup, seed: Option<u64>) -> Position {
        start(setup, seed)
    }

    fn from_state(state: State) -> Result<Position> {
        state::from_state(state)
    }

    fn to_state(position: &Position) -> State {
        state::to_state(position)
    }

    fn parse_position(text: &str, _setup: &Setup) -> Result<Position> {
        state::from_state(state::parse_text(text)?)
    }

    fn position_text(position: &Position) -> String {
        state::text(position)
    }

    fn to_move(position: &Position) -> Option<&'static str> {
        position.active().map(Player::name)
    }

    fn parse_move(text: &str) -> Result<Move> {
        parse_move(text)
    }

    fn legal_moves(position: &Position) -> Vec<Move> {
        position.legal_moves()
    }

    fn legal_move_texts(position: &Position) -> Vec<String> {
        let moves = position.sorted_moves();
        moves.into_iter().map(|(text, _)| text).collect()
    }

    fn play(position: &Position, mv: Move) -> Result<(Position, Effects)> {
        position.play(mv)
    }

    fn outcome(position: &Position) -> Outcome {
        position.outcome()
    }

    /// Counts without sorting the move lists (the order does not change the count).
    fn perft(position: &Position, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = position.moves_unsorted();
        if depth == 1 {
            return moves.len() as u64;
        }
        moves
            .into_iter()
            .filter_map(|mv| position.play(mv).ok())
            .map(|(next, _)| Self::perft(&next, depth - 1))
            .sum()
    }

    fn view(position: &Position, player: &str) -> Result<Value> {
        let viewer =
            Player::parse(player).ok_or_else(|| Error::unknown_player(player, Self::PLAYERS))?;
        Ok(position.view(viewer))
    }

    fn view_json(position: &Position, player: &str) -> Result<Box<RawValue>> {
        let viewer =
            Player::parse(player).ok_or_else(|| Error::unknown_player(player, Self::PLAYERS))?;
        Ok(serde_json::value::to_raw_value(&position.view_of(viewer)).expect("a view serializes"))
    }
}
