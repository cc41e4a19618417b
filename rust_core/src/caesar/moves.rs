//! Moves: the turn (token, border, bonus choices, draws), its notation and effects, the legal moves,
//! playing one.

use std::fmt;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::json;

use super::board::{
    border_id, is_symmetric, parse_border, parse_province, parse_token, province_code,
    token_borders, token_code, token_icon_name, token_list, token_total, Bonus, Player, BORDERS,
    BORDER_COUNT, CONTROL_MARKERS, IT, PROVINCES, PROVINCE_COUNT, PROVINCE_MASK, TOKENS,
    TOKEN_KINDS,
};
use super::state::{CountSchema, FacesSchema, Ordered, PerPlayer, TokenSchema};
use super::{Placed, Position};
use crate::error::{Error, Result};
use crate::nullable::Nullable;

/// Indices of the map in a module of their own, so that nothing, this file included, builds one
/// but through `new`: a Might target always names a border or a province that exists.
mod indices {
    use super::{BORDER_COUNT, PROVINCE_COUNT};

    /// A border of the map: below `BORDER_COUNT`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct BorderIndex(u8);

    impl BorderIndex {
        pub fn new(border: usize) -> Option<BorderIndex> {
            (border < BORDER_COUNT).then_some(BorderIndex(border as u8))
        }

        pub fn index(self) -> usize {
            usize::from(self.0)
        }
    }

    /// A province of the map: below `PROVINCE_COUNT`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct ProvinceIndex(u8);

    impl ProvinceIndex {
        pub fn new(province: usize) -> Option<ProvinceIndex> {
            (province < PROVINCE_COUNT).then_some(ProvinceIndex(province as u8))
        }

        pub fn index(self) -> usize {
            usize::from(self.0)
        }
    }
}

pub use indices::{BorderIndex, ProvinceIndex};

/// Where a Might flip lands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    /// The opponent's face-up, uncovered influence token on a border.
    Border(BorderIndex),
    /// The opponent's face-up control marker on a province's space.
    Province(ProvinceIndex),
}

impl Target {
    /// Its notation: the border's id or the province's code.
    pub fn code(self) -> &'static str {
        match self {
            Target::Border(border) => border_id(border.index()),
            Target::Province(province) => province_code(province.index()),
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
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
        f.write_str(&self.text())
    }
}

impl Choice {
    /// Its notation: `-`, `T`, `W` or `M:<target>`.
    pub fn text(self) -> String {
        let mut text = String::new();
        push_choice(&mut text, self);
        text
    }

    pub(super) fn fits(self, bonus: Bonus) -> bool {
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
        f.write_str(&self.text())
    }
}

impl Move {
    /// The move's notation.
    pub fn text(&self) -> String {
        let mut text = String::with_capacity(LONGEST_GENERATED_TEXT);
        push_placement(&mut text, self.kind(), self.border(), self.forward());
        for &choice in self.choices() {
            text.push(' ');
            push_choice(&mut text, choice);
        }
        for &draw in self.draws() {
            text.push_str(" =");
            text.push_str(token_code(usize::from(draw)));
        }
        text
    }
}

/// The longest text of a generated move: a placement (9 bytes) and two choices (a border closes at
/// most two provinces) of at most 8 bytes each (` M:AB-CD`). Longer texts only cost a reallocation.
const LONGEST_GENERATED_TEXT: usize = 25;

/// Appends the notation of token `kind` on `border`, the larger number toward the first province
/// written (the canonical id's first when `forward`).
fn push_placement(text: &mut String, kind: usize, border: usize, forward: bool) {
    // Pushed piece by piece, without `fmt`: every legal move list writes each of its moves.
    let (a, b, _) = BORDERS[border];
    let (first, second) = if forward { (a, b) } else { (b, a) };
    text.push_str(token_code(kind));
    text.push('@');
    text.push_str(province_code(first));
    text.push('-');
    text.push_str(province_code(second));
}

/// Appends the notation of a choice: `-`, `T`, `W` or `M:<target>`.
fn push_choice(text: &mut String, choice: Choice) {
    match choice {
        Choice::Decline => text.push('-'),
        Choice::Tactics => text.push('T'),
        Choice::Wealth => text.push('W'),
        Choice::Might(target) => {
            text.push_str("M:");
            text.push_str(target.code());
        }
    }
}

/// The borders in the bit set `mask`, in border order.
fn borders_in(mask: u32) -> impl Iterator<Item = usize> {
    let mut rest = mask;
    std::iter::from_fn(move || {
        let border = rest.trailing_zeros() as usize;
        rest &= rest.wrapping_sub(1);
        (border < BORDER_COUNT).then_some(border)
    })
}

/// The provinces around `border` that the filled borders `filled` close, in table order (the order
/// their closures resolve in), and how many.
fn closed_around(filled: u32, border: usize) -> ([usize; 2], usize) {
    let (a, b, _) = BORDERS[border];
    let (mut closed, mut count) = ([0; 2], 0);
    for province in [a.min(b), a.max(b)] {
        if filled & PROVINCE_MASK[province] == PROVINCE_MASK[province] {
            closed[count] = province;
            count += 1;
        }
    }
    (closed, count)
}

/// A legal move as the generator lists and orders it: no draws, at most two choices (a border
/// closes at most its two provinces), nothing allocated.
#[derive(Debug, Clone, Copy)]
struct Generated {
    kind: u8,
    border: u8,
    forward: bool,
    choices: [Option<Choice>; 2],
}

impl Generated {
    /// Token `kind` on `border`, before any choice; `kind` and `border` exist and a symmetric
    /// token is `forward` (the generator enumerates only those).
    fn placement(kind: usize, border: usize, forward: bool) -> Generated {
        debug_assert!(kind < TOKEN_KINDS && border < BORDER_COUNT);
        debug_assert!(forward || !is_symmetric(kind));
        Generated {
            kind: kind as u8,
            border: border as u8,
            forward,
            choices: [None; 2],
        }
    }

    /// The move with `choice` after its choices so far.
    fn with_choice(mut self, choice: Choice) -> Generated {
        let free = self.choices.iter_mut().find(|slot| slot.is_none());
        debug_assert!(free.is_some(), "a placement closes at most two provinces");
        if let Some(slot) = free {
            *slot = Some(choice);
        }
        self
    }

    fn choices(&self) -> impl Iterator<Item = Choice> {
        self.choices.into_iter().flatten()
    }

    fn to_move(self) -> Move {
        let (kind, border) = (usize::from(self.kind), usize::from(self.border));
        Move::generated(kind, border, self.forward, self.choices().collect())
    }

    fn text(&self) -> String {
        let mut text = String::with_capacity(LONGEST_GENERATED_TEXT);
        let (kind, border) = (usize::from(self.kind), usize::from(self.border));
        push_placement(&mut text, kind, border, self.forward);
        for choice in self.choices() {
            text.push(' ');
            push_choice(&mut text, choice);
        }
        text
    }

    /// A key that orders moves as their texts order (byte by byte), so that they are sorted
    /// without being written: the placement's codes have fixed widths and compare as their
    /// alphabetical ranks; choices compare one by one, as the space before each sorts below every
    /// character of a choice, and a move without a further choice sorts first.
    fn order_key(&self) -> u32 {
        let (a, b, _) = BORDERS[usize::from(self.border)];
        let (first, second) = if self.forward { (a, b) } else { (b, a) };
        let [choice1, choice2] = self.choices.map(choice_rank);
        u32::from(TOKEN_RANK[usize::from(self.kind)]) << 28
            | u32::from(PROVINCE_RANK[first]) << 23
            | u32::from(PROVINCE_RANK[second]) << 18
            | choice1 << 9
            | choice2
    }
}

/// The legal placements of a player (token kind, border, orientation), the move generator's first
/// level: per kind in hand, in kind order, its open borders in border order, each in both
/// orientations (forward first) unless the token is symmetric. Counted, and the k-th found,
/// without listing them (a random decision); listed (`generate`, the decisions at a turn's start).
pub(super) struct Placements {
    /// Per kind, the open borders it may take; none for a kind not in hand.
    open: [u32; TOKEN_KINDS],
}

/// The orientations of token `kind`, forward first: one for a symmetric token.
fn orientations(kind: usize) -> &'static [bool] {
    if is_symmetric(kind) {
        &[true]
    } else {
        &[true, false]
    }
}

impl Placements {
    pub(super) fn count(&self) -> usize {
        (0..TOKEN_KINDS)
            .map(|kind| self.open[kind].count_ones() as usize * orientations(kind).len())
            .sum()
    }

    /// The k-th placement in order (k below `count`).
    pub(super) fn nth(&self, mut k: usize) -> (usize, usize, bool) {
        for (kind, &open) in self.open.iter().enumerate() {
            let sides = orientations(kind);
            let n = open.count_ones() as usize * sides.len();
            if k < n {
                let border = borders_in(open).nth(k / sides.len());
                return (
                    kind,
                    border.expect("k is below the count"),
                    sides[k % sides.len()],
                );
            }
            k -= n;
        }
        panic!("k is below the count of placements")
    }

    /// Calls `f` with each placement in order: plain loops, as `generate`'s hot path wants them
    /// (a flattened iterator cost Caesar! perft 60% in the extension's build).
    pub(super) fn for_each(&self, mut f: impl FnMut(usize, usize, bool)) {
        for (kind, &open) in self.open.iter().enumerate() {
            for border in borders_in(open) {
                for &forward in orientations(kind) {
                    f(kind, border, forward);
                }
            }
        }
    }
}

/// Whether byte string `a` sorts before `b` (a proper prefix first), at compile time.
const fn sorts_before(a: &[u8], b: &[u8]) -> bool {
    let mut i = 0;
    while i < a.len() && i < b.len() {
        if a[i] != b[i] {
            return a[i] < b[i];
        }
        i += 1;
    }
    a.len() < b.len()
}

/// Each province's rank among the province codes in alphabetical order.
const PROVINCE_RANK: [u8; PROVINCE_COUNT] = {
    let mut ranks = [0; PROVINCE_COUNT];
    let mut q = 0;
    while q < PROVINCE_COUNT {
        let mut other = 0;
        while other < PROVINCE_COUNT {
            if sorts_before(PROVINCES[other].0.as_bytes(), PROVINCES[q].0.as_bytes()) {
                ranks[q] += 1;
            }
            other += 1;
        }
        q += 1;
    }
    ranks
};

/// Each token kind's rank among the token codes in alphabetical order.
const TOKEN_RANK: [u8; TOKEN_KINDS] = {
    let mut ranks = [0; TOKEN_KINDS];
    let mut kind = 0;
    while kind < TOKEN_KINDS {
        let mut other = 0;
        while other < TOKEN_KINDS {
            if sorts_before(TOKENS[other].0.as_bytes(), TOKENS[kind].0.as_bytes()) {
                ranks[kind] += 1;
            }
            other += 1;
        }
        kind += 1;
    }
    ranks
};

/// How many ranks Might targets take: per first province, the province itself, then a border to
/// each second province.
const TARGET_RANKS: u32 = (PROVINCE_COUNT * (PROVINCE_COUNT + 1)) as u32;

/// A choice's rank in the order of its text, 0 for none (below 512): `-` sorts before `M:…`,
/// `M:…` before `T`, `T` before `W`. A Might target's text is a province code `AB` or a border id
/// `AB-CD`: by the first code, then `AB` before `AB-…`, then by the second code.
fn choice_rank(choice: Option<Choice>) -> u32 {
    let target_rank = |target: Target| {
        let (first, second) = match target {
            Target::Province(province) => (province.index(), None),
            Target::Border(border) => {
                let (a, b, _) = BORDERS[border.index()];
                (a, Some(b))
            }
        };
        let second = second.map_or(0, |b| 1 + u32::from(PROVINCE_RANK[b]));
        u32::from(PROVINCE_RANK[first]) * (PROVINCE_COUNT as u32 + 1) + second
    };
    match choice {
        None => 0,
        Some(Choice::Decline) => 1,
        Some(Choice::Might(target)) => 2 + target_rank(target),
        Some(Choice::Tactics) => 2 + TARGET_RANKS,
        Some(Choice::Wealth) => 3 + TARGET_RANKS,
    }
}

pub(super) fn parse_move(text: &str) -> Result<Move> {
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
                let province = parse_province(target).and_then(ProvinceIndex::new);
                let border = parse_border(target).and_then(|(border, _)| BorderIndex::new(border));
                let target = if let Some(province) = province {
                    Target::Province(province)
                } else if let Some(border) = border {
                    Target::Border(border)
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
    pub markers: Vec<&'static str>,
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
    pub border: &'static str,
    /// The number facing each of the border's two provinces.
    #[schemars(with = "FacesSchema")]
    pub faces: Ordered<u8>,
    pub closures: Vec<Closure>,
    /// The tokens the mover drew.
    #[schemars(with = "Vec<TokenSchema>")]
    pub drawn: Vec<&'static str>,
    /// Tactics was used: the mover plays again (unless the game is over).
    pub extra_turn: bool,
    /// The winner when the game is over after this move.
    #[schemars(with = "Nullable<Player>")]
    pub winner: Option<&'static str>,
}

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
    fn deferred(&self) -> u32 {
        match *self {
            Draws::Deferred { due } => u32::from(due),
            _ => 0,
        }
    }
}

/// The effects of placing `kind` on `border` (with the faces it shows), before any closure.
pub(super) fn placement_effects(
    player: Player,
    kind: usize,
    border: usize,
    forward: bool,
) -> Effects {
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
        border: border_id(border),
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
pub(super) fn missing_choice(province: usize, player: Player, bonus: Bonus) -> Error {
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
    pub(super) fn has_placement(&self, player: Player) -> bool {
        (0..TOKEN_KINDS).any(|kind| self.open_for(player, kind) != 0)
    }

    /// The legal placements of `player`, the move generator's first level.
    pub(super) fn placements(&self, player: Player) -> Placements {
        Placements {
            open: std::array::from_fn(|kind| self.open_for(player, kind)),
        }
    }

    /// The open borders that `player`'s token `kind` may take: none when it has none in hand.
    fn open_for(&self, player: Player, kind: usize) -> u32 {
        if self.hands[player as usize][kind] > 0 {
            token_borders(kind) & !self.filled
        } else {
            0
        }
    }

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

    /// Places one control marker; true when it is the player's 12th (they win at once).
    pub(super) fn place_marker(&mut self, player: Player) -> bool {
        let count = &mut self.markers[player as usize];
        *count = count.saturating_add(1);
        *count >= CONTROL_MARKERS
    }

    /// Closing steps 1–4: the closer takes the bonus (returned), the higher sum places a marker (Italia a
    /// second one), border markers toward adjacent provinces of the same controller. Returns the
    /// report and whether a 12th marker was placed.
    pub(super) fn close(
        &mut self,
        province: usize,
        closer: Player,
    ) -> (Closure, Option<Bonus>, bool) {
        // Step 1: the closer takes the bonus token; a Senate is theirs from now on, even if a 12th
        // marker ends the game before its step 5.
        let bonus = self.bonus[province].take();
        if bonus == Some(Bonus::Senate) {
            let held = &mut self.senate[closer as usize];
            *held = held.saturating_add(1);
        }
        let mut sums = [0u32; 2];
        for border in borders_in(PROVINCE_MASK[province]) {
            if let Some(placed) = self.borders[border].filter(|p| !p.flipped) {
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
    pub(super) fn place_control(
        &mut self,
        province: usize,
        player: Player,
        report: &mut Closure,
    ) -> bool {
        self.control[province] = Some(player);
        report.markers.push(province_code(province));
        if self.place_marker(player) {
            return true;
        }
        if province == IT {
            self.italia_dashed = Some(player);
            report.markers.push("IT*");
            if self.place_marker(player) {
                return true;
            }
        }
        for border in borders_in(PROVINCE_MASK[province]) {
            let (a, b, _) = BORDERS[border];
            let neighbour = if a == province { b } else { a };
            if self.control[neighbour] != Some(player) || self.is_flipped(neighbour) {
                continue;
            }
            if let Some(placed) = self.borders[border].as_mut() {
                placed.marker = Some(player);
                report.markers.push(border_id(border));
                if self.place_marker(player) {
                    return true;
                }
            }
        }
        false
    }

    /// Senate (step 5, automatic): the closer, having won the province, places as many markers under
    /// the token (taken at step 1) as Senate tokens they hold. True when a 12th marker is placed.
    pub(super) fn keep_senate(&mut self, closer: Player, report: &mut Closure) -> bool {
        let held = self.senate[closer as usize];
        if report.control != Some(closer.name()) {
            return false;
        }
        for _ in 0..held {
            report.markers.push("senate");
            if self.place_marker(closer) {
                return true;
            }
        }
        false
    }

    /// The Might targets of `closer`: the opponent's face-up uncovered tokens, then the opponent's
    /// face-up province markers.
    pub(super) fn might_targets(&self, closer: Player) -> Vec<Target> {
        let opponent = closer.other();
        let tokens = self
            .borders
            .iter()
            .enumerate()
            .filter_map(|(border, placed)| {
                placed
                    .filter(|p| p.owner == opponent && !p.flipped && p.marker.is_none())
                    .and_then(|_| BorderIndex::new(border).map(Target::Border))
            });
        let provinces = (0..PROVINCE_COUNT)
            .filter(|&q| self.control[q] == Some(opponent) && !self.is_flipped(q))
            .filter_map(|q| ProvinceIndex::new(q).map(Target::Province));
        tokens.chain(provinces).collect()
    }

    pub(super) fn flip(&mut self, target: Target) {
        match target {
            Target::Border(border) => {
                if let Some(placed) = self.borders[border.index()].as_mut() {
                    placed.flipped = true;
                }
            }
            Target::Province(province) => self.province_flipped |= 1 << province.index(),
        }
    }

    /// Puts a token from the mover's hand on a border, unchecked.
    pub(super) fn put(&mut self, player: Player, kind: usize, border: usize, forward: bool) {
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

    /// Adds to `out` every choice sequence of `mv`, whose placement is already put on this copy
    /// of the position and whose closures still to resolve are `closing`.
    fn push_choice_sequences(
        mut self,
        closing: &[usize],
        closer: Player,
        mv: Generated,
        out: &mut Vec<Generated>,
    ) {
        let Some((&province, rest)) = closing.split_first() else {
            out.push(mv);
            return;
        };
        let (mut report, bonus, won) = self.close(province, closer);
        let choices = match bonus {
            _ if won => return out.push(mv),
            None => return self.push_choice_sequences(rest, closer, mv, out),
            Some(Bonus::Senate) => {
                if self.keep_senate(closer, &mut report) {
                    return out.push(mv);
                }
                return self.push_choice_sequences(rest, closer, mv, out);
            }
            Some(Bonus::Tactics) => vec![Choice::Tactics, Choice::Decline],
            Some(Bonus::Wealth) => vec![Choice::Wealth, Choice::Decline],
            Some(Bonus::Might) => {
                let targets = self.might_targets(closer).into_iter().map(Choice::Might);
                targets.chain([Choice::Decline]).collect()
            }
        };
        for choice in choices {
            if rest.is_empty() {
                // Nothing closes after this choice: it cannot change what follows.
                out.push(mv.with_choice(choice));
                continue;
            }
            let mut after = self.clone();
            if let Choice::Might(target) = choice {
                after.flip(target);
            }
            after.push_choice_sequences(rest, closer, mv.with_choice(choice), out);
        }
    }

    /// The legal moves in generation order (token, border, orientation, choices), without draws.
    fn generate(&self) -> Vec<Generated> {
        let Some(player) = self.active() else {
            return Vec::new();
        };
        let mut moves = Vec::new();
        self.placements(player).for_each(|kind, border, forward| {
            self.push_moves_of(player, kind, border, forward, &mut moves);
        });
        moves
    }

    /// Adds to `out` the legal moves of `player`'s legal placement: the placement with each
    /// sequence of choices that the bonuses of the provinces it closes ask for.
    fn push_moves_of(
        &self,
        player: Player,
        kind: usize,
        border: usize,
        forward: bool,
        out: &mut Vec<Generated>,
    ) {
        let mv = Generated::placement(kind, border, forward);
        // Which provinces close depends only on the filled borders: a position is copied only to
        // resolve closures, whose bonuses may ask for choices.
        let (closing, count) = closed_around(self.filled | 1 << border, border);
        if count == 0 {
            out.push(mv);
            return;
        }
        let mut after = self.clone();
        after.put(player, kind, border, forward);
        after.push_choice_sequences(&closing[..count], player, mv, out);
    }

    /// The choices of the legal moves of one placement (none for an illegal one), each move's in
    /// order: what a turn decided one decision at a time may choose next (the generator's second
    /// level, `push_moves_of`).
    pub(super) fn placement_choices(
        &self,
        kind: usize,
        border: usize,
        forward: bool,
    ) -> Vec<Vec<Choice>> {
        let Some(player) = self.active() else {
            return Vec::new();
        };
        let legal = kind < TOKEN_KINDS
            && border < BORDER_COUNT
            && self.open_for(player, kind) >> border & 1 == 1
            && orientations(kind).contains(&forward);
        if !legal {
            return Vec::new();
        }
        let mut moves = Vec::new();
        self.push_moves_of(player, kind, border, forward, &mut moves);
        moves
            .iter()
            .map(|mv| mv.choices.iter().flatten().copied().collect())
            .collect()
    }

    /// Move paths counted in bulk: the last ply is the number of generated moves (unsorted and
    /// never turned into `Move`s: the order does not change the count).
    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = self.generate();
        if depth == 1 {
            return moves.len() as u64;
        }
        moves
            .into_iter()
            .filter_map(|mv| self.play(mv.to_move()).ok())
            .map(|(next, _)| next.perft(depth - 1))
            .sum()
    }

    /// The legal moves in the order of their notation.
    fn sorted(&self) -> Vec<Generated> {
        let moves = self.generate();
        // Keys with the index in their low half: sorting plain integers, every key distinct.
        let mut keys: Vec<u64> = (moves.iter().enumerate())
            .map(|(index, mv)| u64::from(mv.order_key()) << 32 | index as u64)
            .collect();
        keys.sort_unstable();
        keys.iter().map(|key| moves[*key as u32 as usize]).collect()
    }

    /// The legal moves, sorted by their notation.
    pub fn legal_moves(&self) -> Vec<Move> {
        self.sorted().into_iter().map(Generated::to_move).collect()
    }

    /// The notation of the legal moves, sorted.
    pub(super) fn legal_move_texts(&self) -> Vec<String> {
        self.sorted().iter().map(Generated::text).collect()
    }

    pub fn play(&self, mv: Move) -> Result<(Position, Effects)> {
        let mut draws = if mv.draws().is_empty() {
            Draws::Seeded
        } else {
            Draws::Given {
                tokens: mv.draws(),
                used: 0,
            }
        };
        self.play_drawing(&mv, &mut draws)
    }

    /// Plays `mv` with its draws from `draws` (the move's own, the state's random source, or
    /// deferred to chance).
    pub(super) fn play_drawing(&self, mv: &Move, draws: &mut Draws) -> Result<(Position, Effects)> {
        let player = self.active().ok_or(Error::GameOver)?;
        let (kind, border) = (mv.kind(), mv.border());
        self.check_placement(player, kind, border)?;
        let forward = mv.forward();
        let mut next = self.clone();
        next.put(player, kind, border, forward);
        let mut effects = placement_effects(player, kind, border, forward);
        if let (Draws::Given { tokens, .. }, Some(key_id)) = (&draws, self.chance.keyed_by()) {
            // With keyed chance (a service with seal keys) the draws come from the generator
            // alone: listing them would let the mover choose their own tokens.
            return Err(Error::illegal_move(
                "listed-draws",
                format!(
                    "the move lists {} draw(s), but this game's draws come from its keyed random source (key {key_id:?}): give the move without draws",
                    tokens.len()
                ),
                json!({ "listed": tokens.len() }),
            ));
        }
        let mut choices = mv.choices().iter().copied();
        let won = next.close_provinces(border, player, &mut choices, draws, &mut effects)?;
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
        next.end_turn(player, won, draws, &mut effects)?;
        check_draws_used(draws)?;
        effects.winner = next.result().map(|(winner, _)| winner.name());
        Ok((next, effects))
    }

    /// Steps 1–2: the token is in the mover's hand, the border is free and takes that token.
    pub(super) fn check_placement(&self, player: Player, kind: usize, border: usize) -> Result<()> {
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
    pub(super) fn close_provinces(
        &mut self,
        border: usize,
        player: Player,
        choices: &mut impl Iterator<Item = Choice>,
        draws: &mut Draws,
        effects: &mut Effects,
    ) -> Result<bool> {
        let (closing, count) = closed_around(self.filled, border);
        for &province in &closing[..count] {
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
                        report.choice = Some(choice.text());
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
    pub(super) fn end_turn(
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
        let held = token_total(&self.hands[p]) + draws.deferred();
        for _ in held..u32::from(self.hand_limits[p]) {
            self.draw(player, draws, &mut effects.drawn)?; // none once the bag is empty
        }
        self.to_move = Some(if effects.extra_turn {
            player
        } else {
            player.other()
        });
        Ok(())
    }

    /// Step 5 for Tactics, Wealth and Might: the closer's choice, checked.
    pub(super) fn use_bonus(
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn might_targets_name_only_borders_and_provinces_of_the_map() {
        assert_eq!(BorderIndex::new(BORDER_COUNT), None);
        assert_eq!(ProvinceIndex::new(PROVINCE_COUNT), None);
        let last = BorderIndex::new(BORDER_COUNT - 1).map(BorderIndex::index);
        assert_eq!(last, Some(BORDER_COUNT - 1));
        assert!(parse_move("S60@HC-HU M:ZZ").is_err());
    }

    /// Every choice and every placement the generator can make, with its text.
    fn every_choice() -> Vec<Choice> {
        let borders = (0..BORDER_COUNT)
            .filter_map(BorderIndex::new)
            .map(Target::Border);
        let provinces = (0..PROVINCE_COUNT)
            .filter_map(ProvinceIndex::new)
            .map(Target::Province);
        let mut choices = vec![Choice::Decline, Choice::Tactics, Choice::Wealth];
        choices.extend(borders.chain(provinces).map(Choice::Might));
        choices
    }

    #[test]
    fn the_order_key_orders_moves_as_their_texts() {
        let mut moves = Vec::new();
        for kind in 0..TOKEN_KINDS {
            for border in 0..BORDER_COUNT {
                for forward in [true, false]
                    .into_iter()
                    .filter(|&f| f || !is_symmetric(kind))
                {
                    moves.push(Generated::placement(kind, border, forward));
                }
            }
        }
        // Two placements with every pair of choices (a placement's text is fixed-width).
        let placements = [moves[0], moves[moves.len() - 1]];
        for placement in placements {
            for first in every_choice() {
                moves.push(placement.with_choice(first));
                for second in every_choice() {
                    moves.push(placement.with_choice(first).with_choice(second));
                }
            }
        }
        let mut by_key = moves.clone();
        by_key.sort_by_key(Generated::order_key);
        let mut by_text: Vec<String> = moves.iter().map(Generated::text).collect();
        by_text.sort();
        let keyed: Vec<String> = by_key.iter().map(Generated::text).collect();
        assert_eq!(keyed, by_text);
        assert!(by_key
            .windows(2)
            .all(|w| w[0].order_key() < w[1].order_key()));
    }

    #[test]
    fn generated_moves_read_back_as_the_same_move() {
        let placement = Generated::placement(3, 11, false);
        for choice in every_choice() {
            let mv = placement.with_choice(choice).with_choice(Choice::Decline);
            assert_eq!(parse_move(&mv.text()).ok(), Some(mv.to_move()));
            assert_eq!(mv.to_move().text(), mv.text());
        }
    }
}
