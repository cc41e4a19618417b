//! Reading an untrusted state, from its JSON object (`reader::read`) or its position string
//! (`position::read_text`): each reader fills the same `Parts`, each part checked alone as it is
//! read (as shakmaty reads a FEN into a `Setup`); `Parts::position` reports the first fault in the
//! order of the state's fields, whatever order the text gives them in, then runs the named
//! consistency checks below, each tying some of the parts together.

use super::board::{
    border_id, province_code, token_code, token_total, Bonus, Player, BORDERS, BORDER_COUNT,
    CONTROL_MARKERS, IT, PROVINCE_COUNT, PROVINCE_MASK, START_HAND_LIMIT, TOKENS, TOKEN_KINDS,
};
use super::board::{parse_border, token_of_code, Tokens};
use super::{Placed, Position};
use crate::chance::{Chance, ChanceKeys, ChanceState};
use crate::error::{Error, Result};

/// What a state gives, each part read and checked alone: its value, or its first fault.
pub(super) struct Parts {
    pub(super) rules: Result<()>,
    pub(super) rng: ChanceState,
    pub(super) to_move: Result<Option<Player>>,
    pub(super) borders: Result<Borders>,
    pub(super) provinces: Result<Provinces>,
    pub(super) italia_dashed: Result<Option<Player>>,
    /// Each player's hand and bag, or what is wrong with the list.
    pub(super) hands: [TokenList; 2],
    pub(super) bags: [TokenList; 2],
    pub(super) hand_limits: [u32; 2],
    pub(super) senate: [u32; 2],
    pub(super) markers: [u32; 2],
}

impl Parts {
    /// The position, or the first fault of its parts in the order of the state's fields (each
    /// player's after the board's), then of the parts together. A keyed random source needs its
    /// key among `keys`.
    pub(super) fn position(self, keys: Option<&ChanceKeys>) -> Result<Position> {
        self.rules?;
        let mut position = Position::empty(Chance::from_state(&self.rng, "rng", keys)?);
        position.to_move = self.to_move?;
        let borders = self.borders?;
        (position.borders, position.filled) = (borders.placed, borders.filled);
        let provinces = self.provinces?;
        position.bonus = provinces.bonus;
        position.control = provinces.control;
        position.province_flipped = provinces.flipped;
        position.italia_dashed = self.italia_dashed?;
        let [hands, bags] = [self.hands, self.bags];
        for ((player, hand), bag) in Player::BOTH.into_iter().zip(hands).zip(bags) {
            let p = player as usize;
            let name = player.name();
            // Field names are written only for a fault: most states have none.
            let field = |part: &'static str| move || format!("{part}.{name}");
            position.hands[p] = hand.counts(field("hands"))?;
            position.bags[p] = bag.counts(field("bags"))?;
            position.hand_limits[p] = hand_limit(self.hand_limits[p], field("hand_limits"))?;
            let senate = Bonus::Senate.count();
            position.senate[p] = small(
                self.senate[p],
                senate,
                field("senate"),
                "Senate tokens held",
            )?;
            position.markers[p] = small(
                self.markers[p],
                CONTROL_MARKERS,
                field("markers"),
                "control markers placed",
            )?;
        }
        check_consistency(&position)?;
        Ok(position)
    }
}

/// A hand limit: 2, and one more for each Wealth token taken (four at most).
fn hand_limit(value: u32, field: impl Fn() -> String) -> Result<u8> {
    let limit = small(value, START_HAND_LIMIT + 4, &field, "a hand limit")?;
    if limit < START_HAND_LIMIT {
        return Err(Error::invalid_state(field(), "a hand limit is at least 2"));
    }
    Ok(limit)
}

fn small(value: u32, max: u8, field: impl Fn() -> String, what: &str) -> Result<u8> {
    u8::try_from(value)
        .ok()
        .filter(|&v| v <= max)
        .ok_or_else(|| {
            Error::invalid_state(field(), format!("{what} is at most {max}, not {value}"))
        })
}

/// A player named in a state (`None`: null), or the refusal of a name that is no player.
pub(super) fn player_named(
    name: std::result::Result<Option<Player>, String>,
    field: impl Fn() -> String,
) -> Result<Option<Player>> {
    name.map_err(|name| {
        Error::invalid_state(
            field(),
            format!("{name:?} is not a player (caesar, pompey)"),
        )
    })
}

/// A list of tokens as read: in token order, each kind at most as many times as a bag holds it,
/// else the first fault found.
#[derive(Default)]
pub(super) struct TokenList {
    counts: Tokens,
    /// The kind listed last.
    last: usize,
    fault: Option<String>,
}

impl TokenList {
    /// Adds the token a list names next (nothing once a fault is found).
    #[inline]
    pub(super) fn add(&mut self, code: &[u8]) {
        if self.fault.is_some() {
            return;
        }
        let Some(kind) = token_of_code(code) else {
            let code = String::from_utf8_lossy(code);
            self.fault = Some(format!("{code:?} is not a token"));
            return;
        };
        if kind < self.last {
            self.fault = Some(
                "tokens are listed in token order (L40 L31 L22 S60 S51 S42 S33 D60 .. N33)".into(),
            );
            return;
        }
        self.last = kind;
        self.counts[kind] = self.counts[kind].saturating_add(1);
        if self.counts[kind] > TOKENS[kind].4 {
            let code = token_code(kind);
            self.fault = Some(format!("a player has only {} {code}", TOKENS[kind].4));
        }
    }

    /// The token counts, or the list's fault (`field` names the list).
    fn counts(self, field: impl Fn() -> String) -> Result<Tokens> {
        match self.fault {
            None => Ok(self.counts),
            Some(detail) => Err(Error::invalid_state(field(), detail)),
        }
    }
}

/// The tokens on the borders, each border listed once by its id as the rules write it.
pub(super) struct Borders {
    placed: [Option<Placed>; BORDER_COUNT],
    /// Bit set of the borders holding a token.
    filled: u32,
}

/// `Borders` as they are read, one border after another: the first fault stops the checks.
#[derive(Default)]
pub(super) struct BordersRead {
    placed: [Option<Placed>; BORDER_COUNT],
    filled: u32,
    /// Bit set of the borders listed.
    seen: u32,
    fault: Option<Error>,
}

/// A border's key as given: a border by its id as the rules write it, or any other text.
pub(super) enum BorderKey {
    Border(usize),
    Other(String),
}

impl BorderKey {
    pub(super) fn of(text: &str) -> BorderKey {
        match parse_border(text) {
            Some((border, true)) => BorderKey::Border(border),
            _ => BorderKey::Other(text.to_owned()),
        }
    }
}

impl BordersRead {
    /// Borders given by their place in border order (the notation's), each listed once.
    pub(super) fn in_order() -> BordersRead {
        BordersRead {
            seen: (1 << BORDER_COUNT) - 1,
            ..BordersRead::default()
        }
    }

    /// The border a key names, when no fault was found before and it is listed once, by its id.
    #[inline]
    pub(super) fn listed(&mut self, key: BorderKey) -> Option<usize> {
        if self.fault.is_some() {
            return None;
        }
        let border = match key {
            BorderKey::Border(border) => border,
            BorderKey::Other(given) => {
                let fault = match parse_border(&given) {
                    Some((border, _)) => format!(
                        "borders are named as the rules list them: {}",
                        border_id(border)
                    ),
                    None => format!("{given:?} is not a border"),
                };
                self.fault = Some(Error::invalid_state(format!("borders.{given}"), fault));
                return None;
            }
        };
        if self.seen >> border & 1 == 1 {
            let id = border_id(border);
            let fault =
                Error::invalid_state(format!("borders.{id}"), format!("{id} is listed twice"));
            self.fault = Some(fault);
            return None;
        }
        self.seen |= 1 << border;
        Some(border)
    }

    /// The token on `border` (listed), checked (nothing once a fault is found).
    #[inline]
    pub(super) fn place(&mut self, border: usize, placed: Result<Placed>) {
        if self.fault.is_some() {
            return;
        }
        match placed {
            Ok(placed) => {
                self.placed[border] = Some(placed);
                self.filled |= 1 << border;
            }
            Err(fault) => self.fault = Some(fault),
        }
    }

    /// The borders, or the first fault: of a border, or a border missing.
    pub(super) fn finish(self) -> Result<Borders> {
        if let Some(fault) = self.fault {
            return Err(fault);
        }
        if let Some(missing) = (0..BORDER_COUNT).find(|b| self.seen >> b & 1 == 0) {
            return Err(Error::invalid_state(
                "borders",
                format!(
                    "every border is listed (null when empty); {} is missing",
                    border_id(missing)
                ),
            ));
        }
        Ok(Borders {
            placed: self.placed,
            filled: self.filled,
        })
    }
}

/// A token on `border` of `kind`, refused when the border's icon does not take it (`token` names
/// the token as given).
#[inline(always)]
pub(super) fn check_icon(border: usize, kind: usize) -> Result<()> {
    let (_, _, icon) = BORDERS[border];
    if TOKENS[kind].1.is_some_and(|t| t != icon) {
        let id = border_id(border);
        return Err(Error::invalid_state(
            format!("borders.{id}.token"),
            format!(
                "{} cannot lie on {id}, a {} border",
                token_code(kind),
                icon.name()
            ),
        ));
    }
    Ok(())
}

/// The bonus tokens, control markers and flips of the provinces, each listed once by its code.
pub(super) struct Provinces {
    bonus: [Option<Bonus>; PROVINCE_COUNT],
    control: [Option<Player>; PROVINCE_COUNT],
    /// Bit set of the provinces whose marker Might flipped.
    flipped: u32,
}

/// A province as a state gives it: its bonus, its controller (each, or the text that names
/// none), and whether its marker is flipped.
pub(super) struct ProvinceRead {
    pub(super) bonus: std::result::Result<Option<Bonus>, String>,
    pub(super) control: std::result::Result<Option<Player>, String>,
    pub(super) flipped: bool,
}

/// `Provinces` as they are read, one after another: the first fault stops the checks.
#[derive(Default)]
pub(super) struct ProvincesRead {
    bonus: [Option<Bonus>; PROVINCE_COUNT],
    control: [Option<Player>; PROVINCE_COUNT],
    flipped: u32,
    seen: u32,
    fault: Option<Error>,
}

impl ProvincesRead {
    /// Provinces given by their place in table order (the notation's), each listed once.
    pub(super) fn in_order() -> ProvincesRead {
        ProvincesRead {
            seen: (1 << PROVINCE_COUNT) - 1,
            ..ProvincesRead::default()
        }
    }

    /// The province a key names (`Err`: the key as given), when no fault was found before and it
    /// is listed once.
    #[inline]
    pub(super) fn listed(&mut self, key: std::result::Result<usize, String>) -> Option<usize> {
        if self.fault.is_some() {
            return None;
        }
        match key {
            Err(code) => {
                let fault = format!("{code:?} is not a province");
                self.fault = Some(Error::invalid_state(format!("provinces.{code}"), fault));
                None
            }
            Ok(province) if self.seen >> province & 1 == 1 => {
                let code = province_code(province);
                let fault = format!("{code} is listed twice");
                self.fault = Some(Error::invalid_state(format!("provinces.{code}"), fault));
                None
            }
            Ok(province) => {
                self.seen |= 1 << province;
                Some(province)
            }
        }
    }

    /// `province` (listed) as read, checked: its bonus, Italia's a Senate token, its controller, a
    /// flip only of a marker.
    #[inline]
    pub(super) fn place(&mut self, province: usize, read: ProvinceRead) {
        if self.fault.is_some() {
            return;
        }
        if let Err(fault) = self.checked(province, read) {
            self.fault = Some(fault);
        }
    }

    #[inline]
    fn checked(&mut self, province: usize, read: ProvinceRead) -> Result<()> {
        let field = |part: &str| format!("provinces.{}.{part}", province_code(province));
        let bonus = read.bonus.map_err(|name| {
            Error::invalid_state(
                field("bonus"),
                format!("{name:?} is not a bonus (senate, tactics, wealth, might)"),
            )
        })?;
        if province == IT && bonus.is_some_and(|b| b != Bonus::Senate) {
            return Err(Error::invalid_state(
                field("bonus"),
                "Italia's bonus is a Senate token",
            ));
        }
        let control = player_named(read.control, || field("control"))?;
        if read.flipped && control.is_none() {
            return Err(Error::invalid_state(
                field("flipped"),
                format!(
                    "{} has no control marker to be flipped",
                    province_code(province)
                ),
            ));
        }
        self.bonus[province] = bonus;
        self.control[province] = control;
        self.flipped |= u32::from(read.flipped) << province;
        Ok(())
    }

    /// The provinces, or the first fault: of a province, or a province missing.
    pub(super) fn finish(self) -> Result<Provinces> {
        if let Some(fault) = self.fault {
            return Err(fault);
        }
        if let Some(missing) = (0..PROVINCE_COUNT).find(|q| self.seen >> q & 1 == 0) {
            return Err(Error::invalid_state(
                "provinces",
                format!(
                    "every province is listed; {} is missing",
                    province_code(missing)
                ),
            ));
        }
        Ok(Provinces {
            bonus: self.bonus,
            control: self.control,
            flipped: self.flipped,
        })
    }
}

/// Everything that ties the parts of a state together: each named check below, in this order (the
/// first refusal found is the one reported).
pub(super) fn check_consistency(position: &Position) -> Result<()> {
    let winner = winner_fits_turn(position)?;
    let mut short_hand_seen = false;
    for player in Player::BOTH {
        tokens_add_up(position, player)?;
        // Only the turn that gave someone the 12th marker skips the draw: one hand at most.
        let may_be_short = winner.is_some() && !short_hand_seen;
        short_hand_seen |= hand_fits_limit(position, player, may_be_short)?;
    }
    let on_board = bonuses_fit_closures(position, winner)?;
    bonus_counts_fit(&on_board)?;
    taken_bonuses_cover_their_use(position, &on_board)?;
    italia_dashed_fits_control(position, winner)?;
    border_markers_fit_control(position, winner)?;
    for player in Player::BOTH {
        markers_placed_fit_board(position, player)?;
    }
    turns_fit_tactics(position, &on_board)
}

/// The game is won exactly when a player has placed 12 markers, and then nobody is to move: the
/// winner, if any.
fn winner_fits_turn(position: &Position) -> Result<Option<Player>> {
    let winners: Vec<Player> = Player::BOTH
        .into_iter()
        .filter(|p| position.markers[*p as usize] >= CONTROL_MARKERS)
        .collect();
    match (winners.as_slice(), position.to_move) {
        ([], Some(_)) => Ok(None),
        ([winner], None) => Ok(Some(*winner)),
        ([], None) => Err(Error::invalid_state(
            "to_move",
            "nobody is to move only once a player has placed 12 control markers",
        )),
        ([winner], Some(_)) => Err(Error::invalid_state(
            "to_move",
            format!(
                "{} has placed 12 control markers: the game is over and nobody is to move",
                winner.name()
            ),
        )),
        _ => Err(Error::invalid_state(
            "markers",
            "the game ends at the first 12th marker: both players cannot have 12",
        )),
    }
}

/// Each of `player`'s 16 tokens is in the bag, in hand or on the board.
fn tokens_add_up(position: &Position, player: Player) -> Result<()> {
    let p = player as usize;
    let mut on_board = [0u8; TOKEN_KINDS];
    for placed in position
        .borders
        .iter()
        .flatten()
        .filter(|t| t.owner == player)
    {
        on_board[placed.kind as usize] += 1;
    }
    for kind in 0..TOKEN_KINDS {
        let (bag, hand, board) = (
            position.bags[p][kind],
            position.hands[p][kind],
            on_board[kind],
        );
        if u32::from(bag) + u32::from(hand) + u32::from(board) != u32::from(TOKENS[kind].4) {
            return Err(Error::invalid_state(
                format!("bags.{}", player.name()),
                format!(
                    "{} has {} {} in all, not {}: {bag} in the bag, {hand} in hand, {board} on the board",
                    player.name(),
                    TOKENS[kind].4,
                    token_code(kind),
                    u32::from(bag) + u32::from(hand) + u32::from(board)
                ),
            ));
        }
    }
    Ok(())
}

/// `player`'s hand is not above its limit, and every turn ends with a draw up to the limit, so it is
/// below only when `may_be_short` or the bag is empty. Whether it is short of a refill.
fn hand_fits_limit(position: &Position, player: Player, may_be_short: bool) -> Result<bool> {
    let p = player as usize;
    let (hand, limit) = (
        token_total(&position.hands[p]),
        u32::from(position.hand_limits[p]),
    );
    let field = || format!("hands.{}", player.name());
    if hand > limit {
        return Err(Error::invalid_state(
            field(),
            format!("{hand} tokens in hand, above the hand limit {limit}"),
        ));
    }
    let short = hand < limit && token_total(&position.bags[p]) > 0;
    if short && !may_be_short {
        return Err(Error::invalid_state(
            field(),
            format!("{hand} tokens in hand below the limit {limit} while the bag has tokens: the hand is refilled at the end of each turn"),
        ));
    }
    Ok(short)
}

/// Bonus tokens: taken exactly when the province closed (a winning placement may leave its second
/// closure unresolved); and control only of a closed province, fitting its sums. The bonus tokens
/// still on the board, by kind.
fn bonuses_fit_closures(position: &Position, winner: Option<Player>) -> Result<[u8; 4]> {
    let mut unresolved = 0;
    let mut on_board = [0u8; 4];
    for q in 0..PROVINCE_COUNT {
        let code = province_code(q);
        let closed = position.is_closed(q);
        if let Some(bonus) = position.bonus[q] {
            on_board[bonus as usize] += 1;
            if closed {
                unresolved += 1;
                if winner.is_none() || unresolved > 1 || position.control[q].is_some() {
                    return Err(Error::invalid_state(
                        format!("provinces.{code}.bonus"),
                        format!("{code} is closed, so its closer took its bonus token"),
                    ));
                }
            }
        } else if !closed {
            return Err(Error::invalid_state(
                format!("provinces.{code}.bonus"),
                format!("{code} is not closed, so its bonus token is still on it"),
            ));
        }
        control_fits_closure(position, q)?;
    }
    Ok(on_board)
}

/// Nobody controls a province before it closes; a resolved one's control fits its sums.
fn control_fits_closure(position: &Position, q: usize) -> Result<()> {
    let closed = position.is_closed(q);
    if let Some(controller) = position.control[q] {
        if !closed {
            let code = province_code(q);
            return Err(Error::invalid_state(
                format!("provinces.{code}.control"),
                format!("{code} is not closed: nobody controls it yet"),
            ));
        }
        check_sums(position, q, Some(controller))?;
    } else if closed && position.bonus[q].is_none() {
        check_sums(position, q, None)?;
    }
    Ok(())
}

/// The bonus tokens of a kind that have left the board, given those still on it.
fn taken(on_board: &[u8; 4], bonus: Bonus) -> u32 {
    u32::from(bonus.count()) - u32::from(on_board[bonus as usize]).min(u32::from(bonus.count()))
}

/// No more bonus tokens of a kind on the board than the game has.
fn bonus_counts_fit(on_board: &[u8; 4]) -> Result<()> {
    for bonus in Bonus::ALL {
        if on_board[bonus as usize] > bonus.count() {
            return Err(Error::invalid_state(
                "provinces",
                format!(
                    "{} {} tokens on the board, but the game has {}",
                    on_board[bonus as usize],
                    bonus.name(),
                    bonus.count()
                ),
            ));
        }
    }
    Ok(())
}

/// Senate tokens held, hand limits grown (Wealth) and flips (Might) come from tokens taken.
fn taken_bonuses_cover_their_use(position: &Position, on_board: &[u8; 4]) -> Result<()> {
    let senate_held = u32::from(position.senate[0]) + u32::from(position.senate[1]);
    let senate_taken = taken(on_board, Bonus::Senate);
    // A winning closure may take a Senate token and end before keeping it.
    if senate_held != senate_taken {
        return Err(Error::invalid_state(
            "senate",
            format!("{senate_taken} Senate tokens have left the board, but the players hold {senate_held}"),
        ));
    }
    let wealth_used: u32 = position
        .hand_limits
        .iter()
        .map(|&l| u32::from(l - START_HAND_LIMIT))
        .sum();
    if wealth_used > taken(on_board, Bonus::Wealth) {
        return Err(Error::invalid_state(
            "hand_limits",
            format!("the hand limits grew by {wealth_used} in all, but only {} Wealth tokens have left the board", taken(on_board, Bonus::Wealth)),
        ));
    }
    let flips = position
        .borders
        .iter()
        .flatten()
        .filter(|t| t.flipped)
        .count() as u32
        + position.province_flipped.count_ones();
    if flips > taken(on_board, Bonus::Might) {
        return Err(Error::invalid_state(
            "borders",
            format!("{flips} tokens and markers are flipped, but only {} Might tokens have left the board", taken(on_board, Bonus::Might)),
        ));
    }
    Ok(())
}

/// Italia's dashed space goes with its solid one.
fn italia_dashed_fits_control(position: &Position, winner: Option<Player>) -> Result<()> {
    match (position.italia_dashed, position.control[IT]) {
        (Some(dashed), control) if control != Some(dashed) => Err(Error::invalid_state(
            "italia_dashed",
            format!(
                "the dashed space holds {}'s marker, so {} controls IT",
                dashed.name(),
                dashed.name()
            ),
        )),
        (None, Some(controller)) if winner != Some(controller) => Err(Error::invalid_state(
            "italia_dashed",
            format!(
                "{} controls IT, so its dashed space holds their second marker",
                controller.name()
            ),
        )),
        _ => Ok(()),
    }
}

/// Border markers: between two provinces of one controller, and there whenever both sides are
/// held unflipped before the game ends.
fn border_markers_fit_control(position: &Position, winner: Option<Player>) -> Result<()> {
    for (border, &(a, b, _)) in BORDERS.iter().enumerate() {
        let Some(placed) = position.borders[border] else {
            continue;
        };
        let id = border_id(border);
        match placed.marker {
            Some(owner) => {
                if position.control[a] != Some(owner) || position.control[b] != Some(owner) {
                    return Err(Error::invalid_state(
                        format!("borders.{id}.marker"),
                        format!(
                            "a marker of {} on {id} needs both provinces controlled by {}",
                            owner.name(),
                            owner.name()
                        ),
                    ));
                }
            }
            None => {
                let both = position.control[a].filter(|c| position.control[b] == Some(*c));
                if let Some(owner) = both {
                    if !position.is_flipped(a) && !position.is_flipped(b) && winner.is_none() {
                        return Err(Error::invalid_state(
                            format!("borders.{id}.marker"),
                            format!("{} controls both sides of {id}, neither marker flipped: the border holds their marker", owner.name()),
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

/// Markers placed: those on the board plus those under Senate tokens.
fn markers_placed_fit_board(position: &Position, player: Player) -> Result<()> {
    let p = player as usize;
    let visible = position
        .control
        .iter()
        .filter(|c| **c == Some(player))
        .count() as u32
        + u32::from(position.italia_dashed == Some(player))
        + position
            .borders
            .iter()
            .flatten()
            .filter(|t| t.marker == Some(player))
            .count() as u32;
    let placed = u32::from(position.markers[p]);
    let held = u32::from(position.senate[p]);
    let senate_most = held * (held + 1) / 2;
    if placed < visible || placed - visible > senate_most {
        return Err(Error::invalid_state(
            format!("markers.{}", player.name()),
            format!(
                "{} has {visible} control markers on the board and at most {senate_most} under {held} Senate tokens, so not {placed} placed",
                player.name()
            ),
        ));
    }
    Ok(())
}

/// Turns: Caesar first, alternating but for extra turns, each from a Tactics token.
fn turns_fit_tactics(position: &Position, on_board: &[u8; 4]) -> Result<()> {
    let placed = |player: Player| {
        position
            .borders
            .iter()
            .flatten()
            .filter(|t| t.owner == player)
            .count() as u32
    };
    let (mut caesar, mut pompey) = (placed(Player::Caesar), placed(Player::Pompey));
    match position.to_move {
        Some(Player::Caesar) => caesar += 1,
        Some(Player::Pompey) => pompey += 1,
        None => {}
    }
    let tactics_taken = taken(on_board, Bonus::Tactics);
    let extra = fewest_extra_turns(caesar, pompey);
    if extra.is_none_or(|extra| extra > tactics_taken) {
        return Err(Error::invalid_state(
            "to_move",
            format!(
                "caesar placed {} tokens and pompey {}: with Caesar first and {} Tactics taken, {} cannot be to move",
                placed(Player::Caesar),
                placed(Player::Pompey),
                tactics_taken,
                position.to_move.map_or("nobody", Player::name)
            ),
        ));
    }
    Ok(())
}

/// Fewest extra turns (Tactics) that a turn sequence starting with Caesar needs to hold `caesar` and
/// `pompey` turns; `None` when no such sequence starts with Caesar.
fn fewest_extra_turns(caesar: u32, pompey: u32) -> Option<u32> {
    if caesar == 0 {
        return (pompey == 0).then_some(0);
    }
    Some(if caesar > pompey {
        caesar - pompey - 1
    } else {
        pompey - caesar
    })
}

/// The control of a resolved province fits its sums: the numbers facing it now, where a token
/// flipped after the closure may have counted in full then.
fn check_sums(position: &Position, province: usize, control: Option<Player>) -> Result<()> {
    let mut least = [0u32; 2];
    let mut most = [0u32; 2];
    for border in 0..BORDER_COUNT {
        if PROVINCE_MASK[province] >> border & 1 == 0 {
            continue;
        }
        if let Some(placed) = position.borders[border] {
            let value = placed.facing(border, province);
            let owner = placed.owner as usize;
            most[owner] += value;
            if !placed.flipped {
                least[owner] += value;
            }
        }
    }
    let fits = match control {
        Some(winner) => {
            let (w, l) = (winner as usize, winner.other() as usize);
            most[w] > least[l]
        }
        None => most[0] >= least[1] && most[1] >= least[0],
    };
    if fits {
        return Ok(());
    }
    let code = province_code(province);
    Err(Error::invalid_state(
        format!("provinces.{code}.control"),
        format!(
            "the tokens facing {code} sum to caesar {}..{} and pompey {}..{}: {}",
            least[0],
            most[0],
            least[1],
            most[1],
            match control {
                Some(winner) => format!("{} cannot have won it", winner.name()),
                None => "they cannot have tied".to_owned(),
            }
        ),
    ))
}
