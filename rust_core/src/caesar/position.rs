//! The position: borders, provinces, hands and bags; its outcome, each player's view, and its text
//! (written and read).

use std::collections::BTreeMap;

use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};
use serde_json::Value;

use super::board::{
    border_id, codes_in_order, is_symmetric, parse_token, province_code, token_code, token_total,
    Bonus, Player, Tokens, BORDERS, BORDER_COUNT, CONTROL_MARKERS, PROVINCE_COUNT, PROVINCE_MASK,
    START_HAND_LIMIT, TOKENS, TOKEN_KINDS,
};
use super::invariants::{check_icon, BordersRead, Parts, ProvinceRead, ProvincesRead, TokenList};
use super::state::{self, PerPlayer, TokensOf, RULES};
use crate::chance::{self, Chance, ChanceKeys, SeedText};
use crate::digits::push_number;
use crate::error::{codes, Error, Result};
use crate::game::{Outcome, Status};

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
    pub(super) fn facing(self, border: usize, province: usize) -> u32 {
        let (_, _, hi, lo, _) = TOKENS[self.kind as usize];
        let toward_first = BORDERS[border].0 == province;
        u32::from(if toward_first == self.forward { hi } else { lo })
    }

    /// The numbers facing the border's two provinces, in canonical order.
    pub(super) fn faces(self) -> (u8, u8) {
        let (_, _, hi, lo, _) = TOKENS[self.kind as usize];
        if self.forward {
            (hi, lo)
        } else {
            (lo, hi)
        }
    }
}

codes! {
    /// What decided a finished game of Caesar! (its outcome's `decided_by`).
    pub enum DecidedBy {
        /// A player placed their twelfth control marker.
        TwelfthMarker => "twelfth_marker",
        /// The player to move has no token: the other wins.
        NoToken => "no_token",
        /// The player to move has no space to place on: the other wins.
        NoSpace => "no_space",
    }
}

/// A valid Caesar! position, with both hands, both bags and the random source: the full state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Position {
    pub(super) borders: [Option<Placed>; BORDER_COUNT],
    /// Bit set of the borders holding a token.
    pub(super) filled: u32,
    pub(super) control: [Option<Player>; PROVINCE_COUNT],
    /// Bit set of provinces whose control marker Might flipped.
    pub(super) province_flipped: u32,
    /// The bonus token still on each province's space.
    pub(super) bonus: [Option<Bonus>; PROVINCE_COUNT],
    pub(super) italia_dashed: Option<Player>,
    pub(super) hands: [Tokens; 2],
    pub(super) bags: [Tokens; 2],
    pub(super) hand_limits: [u8; 2],
    pub(super) senate: [u8; 2],
    pub(super) markers: [u8; 2],
    /// `None` once a player has placed their 12th marker.
    pub(super) to_move: Option<Player>,
    pub(super) chance: Chance,
}

impl Position {
    /// Full bags, empty hands, no bonus tokens: the board before setup.
    pub(super) fn empty(chance: Chance) -> Self {
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

    pub(super) fn is_closed(&self, province: usize) -> bool {
        self.filled & PROVINCE_MASK[province] == PROVINCE_MASK[province]
    }

    pub(super) fn is_flipped(&self, province: usize) -> bool {
        self.province_flipped >> province & 1 == 1
    }

    /// The winner and how, once the game is over.
    pub fn result(&self) -> Option<(Player, DecidedBy)> {
        if let Some(&winner) = Player::BOTH
            .iter()
            .find(|p| self.markers[**p as usize] >= CONTROL_MARKERS)
        {
            return Some((winner, DecidedBy::TwelfthMarker));
        }
        let player = self.to_move?;
        if token_total(&self.hands[player as usize]) == 0 {
            return Some((player.other(), DecidedBy::NoToken));
        }
        if !self.has_placement(player) {
            return Some((player.other(), DecidedBy::NoSpace));
        }
        None
    }

    /// The player to move while the game goes on.
    pub(super) fn active(&self) -> Option<Player> {
        self.result().is_none().then_some(self.to_move).flatten()
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
            Some((winner, decided_by)) => Outcome::won(scores, winner.name(), decided_by.code()),
        }
    }

    /// What `player` may see: the state without the generator, the bags and the opponent's hand;
    /// hand and bag sizes of both players instead.
    pub fn view(&self, player: Player) -> Value {
        serde_json::to_value(self.view_of(player)).unwrap_or_default()
    }

    /// `view` in its typed form, written straight to JSON (no tree of values on the play path).
    pub fn view_of(&self, player: Player) -> View<'_> {
        View {
            position: self,
            player,
        }
    }
}

/// What one player sees of a state (see `Position::view`): the contract's `CaesarView`, the
/// state's fields but the generator and the bags, only the player's hand, both players' hand and
/// bag sizes.
pub struct View<'a> {
    position: &'a Position,
    player: Player,
}

impl Serialize for View<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let (position, player) = (self.position, self.player);
        let sizes = |tokens: &[Tokens; 2]| PerPlayer::of(tokens.each_ref().map(token_total));
        let hand = [(player.name(), TokensOf(&position.hands[player as usize]))];
        let mut view = serializer.serialize_struct("View", 11)?;
        view.serialize_field("rules", RULES)?;
        view.serialize_field("to_move", &position.to_move.map(Player::name))?;
        view.serialize_field("borders", &state::BordersOf(position))?;
        view.serialize_field("provinces", &state::ProvincesOf(position))?;
        view.serialize_field("italia_dashed", &position.italia_dashed.map(Player::name))?;
        view.serialize_field("hands", &Hand(hand))?;
        view.serialize_field("hand_limits", &PerPlayer::of(position.hand_limits))?;
        view.serialize_field("senate", &PerPlayer::of(position.senate))?;
        view.serialize_field("markers", &PerPlayer::of(position.markers))?;
        view.serialize_field("hand_sizes", &sizes(&position.hands))?;
        view.serialize_field("bag_sizes", &sizes(&position.bags))?;
        view.end()
    }
}

/// One player's hand, by the player's name.
struct Hand<'a>([(&'static str, TokensOf<'a>); 1]);

impl Serialize for Hand<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(player, hand)| (player, hand)))
    }
}

pub const POSITION_NOTATION: &str =
    "space-separated: the 30 borders in border order joined by ',' \
(. empty, else owner c/p, token, > when its larger number faces the border's first province or <, \
! when flipped, ^c/^p for a marker on it); the 18 provinces in table order, two characters each \
(bonus S T W M or - once taken; control . c p, upper case when flipped); Italia's dashed space \
(. c p); the side to move (c p, - once won); hands, bags, hand limits, Senate tokens and markers, \
each caesar/pompey (tokens concatenated, - for none); the generator as seed:word_pos (then @<key id> when chance is keyed)";

fn player_letter(player: Option<Player>, none: char) -> char {
    player.map_or(none, Player::letter)
}

/// A list of tokens as concatenated codes, `-` for none.
fn push_tokens(text: &mut String, tokens: &Tokens) {
    if token_total(tokens) == 0 {
        text.push('-');
    }
    text.extend(codes_in_order(tokens));
}

/// Two values of the players, `caesar/pompey`; `push` writes one.
fn push_pair<T>(text: &mut String, values: [T; 2], mut push: impl FnMut(&mut String, T)) {
    let [caesar, pompey] = values;
    push(text, caesar);
    text.push('/');
    push(text, pompey);
}

pub fn text(position: &Position) -> String {
    let mut text = String::with_capacity(320);
    for (b, placed) in position.borders.iter().enumerate() {
        if b > 0 {
            text.push(',');
        }
        match placed {
            None => text.push('.'),
            Some(t) => push_border(&mut text, t),
        }
    }
    text.push(' ');
    for q in 0..PROVINCE_COUNT {
        text.push(position.bonus[q].map_or('-', Bonus::letter));
        let control = player_letter(position.control[q], '.');
        text.push(if position.is_flipped(q) {
            control.to_ascii_uppercase()
        } else {
            control
        });
    }
    let number = |text: &mut String, n: u8| push_number(text, u64::from(n));
    text.push(' ');
    text.push(player_letter(position.italia_dashed, '.'));
    text.push(' ');
    text.push(player_letter(position.to_move, '-'));
    text.push(' ');
    push_pair(
        &mut text,
        [&position.hands[0], &position.hands[1]],
        push_tokens,
    );
    text.push(' ');
    push_pair(
        &mut text,
        [&position.bags[0], &position.bags[1]],
        push_tokens,
    );
    for values in [position.hand_limits, position.senate, position.markers] {
        text.push(' ');
        push_pair(&mut text, values, number);
    }
    text.push(' ');
    text.push_str(&position.chance.notation(SeedText::Hex));
    text
}

/// A placed token as the notation writes it: owner, token, facing, `!` when flipped, `^` and the
/// marker's owner.
fn push_border(text: &mut String, t: &Placed) {
    text.push(t.owner.letter());
    text.push_str(token_code(t.kind as usize));
    text.push(if t.forward { '>' } else { '<' });
    if t.flipped {
        text.push('!');
    }
    if let Some(marker) = t.marker {
        text.push('^');
        text.push(marker.letter());
    }
}

fn notation_error(detail: impl Into<String>) -> Error {
    Error::invalid_state("position", detail)
}

/// A position string (see `POSITION_NOTATION`) read into its position: a fault of the notation is
/// told at once (field `position`), the parts it gives are checked as a state's are
/// (`Parts`; a keyed random source needs its key among `keys`).
pub(super) fn read_text(text: &str, keys: Option<&ChanceKeys>) -> Result<Position> {
    let [borders, provinces, dashed, to_move, hands, bags, limits, senate, markers, rng] =
        split_exact(text, b' ').map_err(|count| {
            notation_error(format!(
                "a position has 10 space-separated fields, not {count}: {POSITION_NOTATION}"
            ))
        })?;
    let borders = read_borders(borders)?;
    let provinces = read_provinces(provinces)?;
    let rng = chance::parse_notation(rng, SeedText::Hex)?;
    let to_move = player_of_letter(to_move, "-", "the side to move")?;
    let italia_dashed = player_of_letter(dashed, ".", "Italia's dashed space")?;
    let hands = both(hands, "the hands", |text| read_tokens(text, "a hand"))?;
    let bags = both(bags, "the bags", |text| read_tokens(text, "a bag"))?;
    Parts {
        rules: Ok(()),
        rng,
        to_move: Ok(to_move),
        borders: borders.finish(),
        provinces: provinces.finish(),
        italia_dashed: Ok(italia_dashed),
        hands,
        bags,
        hand_limits: both(limits, "the hand limits", read_count)?,
        senate: both(senate, "the Senate tokens", read_count)?,
        markers: both(markers, "the markers", read_count)?,
    }
    .position(keys)
}

/// A player's letter (`c`, `p`), or `none` for no player.
#[inline]
fn player_of_letter(letter: &str, none: &str, what: &str) -> Result<Option<Player>> {
    match letter {
        "c" => Ok(Some(Player::Caesar)),
        "p" => Ok(Some(Player::Pompey)),
        _ if letter == none => Ok(None),
        _ => Err(notation_error(format!(
            "{what} is c, p or {none}, not {letter:?}"
        ))),
    }
}

/// The 30 borders joined by ',', in border order: `.` or a token.
fn read_borders(text: &str) -> Result<BordersRead> {
    let entries: [&str; BORDER_COUNT] = split_exact(text, b',')
        .map_err(|count| notation_error(format!("30 borders joined by ',', not {count}")))?;
    let mut borders = BordersRead::in_order();
    for (border, entry) in entries.into_iter().enumerate() {
        if let Some(placed) = read_border(entry, border)? {
            let placed = check_icon(border, placed.kind as usize).map(|()| placed);
            borders.place(border, placed);
        }
    }
    Ok(borders)
}

/// A border's entry: `.`, or its token: owner, token, `>` when its larger number faces the
/// border's first province or `<`, `!` when flipped, `^` and the marker's owner.
#[inline]
fn read_border(text: &str, border: usize) -> Result<Option<Placed>> {
    if text == "." {
        return Ok(None);
    }
    let bad = || {
        notation_error(format!(
            "border {}: {text:?} is not . or <c|p><token><>|<>[!][^c|^p]",
            border_id(border)
        ))
    };
    if !text.is_ascii() || text.len() < 5 {
        return Err(bad());
    }
    let owner = player_of_letter(&text[..1], "", "a token's owner")?.ok_or_else(bad)?;
    let kind = parse_token(&text[1..4]).ok_or_else(bad)?;
    let forward = match &text[4..5] {
        ">" => true,
        "<" if !is_symmetric(kind) => false,
        _ => return Err(bad()),
    };
    let (flipped, rest) = match text[5..].strip_prefix('!') {
        Some(rest) => (true, rest),
        None => (false, &text[5..]),
    };
    let marker = match rest {
        "" => None,
        "^c" => Some(Player::Caesar),
        "^p" => Some(Player::Pompey),
        _ => return Err(bad()),
    };
    Ok(Some(Placed {
        kind: kind as u8,
        owner,
        forward,
        flipped,
        marker,
    }))
}

/// The 18 provinces, two characters each (bonus, control), in table order.
fn read_provinces(text: &str) -> Result<ProvincesRead> {
    let mut letters = ['\0'; 2 * PROVINCE_COUNT];
    let mut count = 0;
    for letter in text.chars() {
        if let Some(slot) = letters.get_mut(count) {
            *slot = letter;
        }
        count += 1;
    }
    if count != letters.len() {
        return Err(notation_error(
            "the provinces are 36 characters: a bonus and a control for each",
        ));
    }
    let mut provinces = ProvincesRead::in_order();
    for (province, pair) in letters.chunks(2).enumerate() {
        provinces.place(province, read_province(pair[0], pair[1], province)?);
    }
    Ok(provinces)
}

/// Province `q` from its bonus letter and its control letter (upper case when flipped).
#[inline]
fn read_province(bonus: char, control: char, q: usize) -> Result<ProvinceRead> {
    let code = province_code(q);
    let bonus = match bonus {
        '-' => None,
        letter => Some(
            Bonus::ALL
                .into_iter()
                .find(|bonus| bonus.letter() == letter)
                .ok_or_else(|| {
                    notation_error(format!("{code}: bonus {letter:?} is not one of S T W M -"))
                })?,
        ),
    };
    let controller = match control {
        '.' => None,
        'c' | 'C' => Some(Player::Caesar),
        'p' | 'P' => Some(Player::Pompey),
        other => {
            return Err(notation_error(format!(
                "{code}: control {other:?} is not one of . c p C P"
            )))
        }
    };
    Ok(ProvinceRead {
        bonus: Ok(bonus),
        control: Ok(controller),
        flipped: control.is_ascii_uppercase(),
    })
}

/// A concatenation of 3-character token codes, or `-` for none.
fn read_tokens(text: &str, what: &str) -> Result<TokenList> {
    let mut list = TokenList::default();
    if text == "-" {
        return Ok(list);
    }
    if !text.is_ascii() || text.is_empty() || text.len() % 3 != 0 {
        return Err(notation_error(format!(
            "{what}: tokens are 3 characters each, or - for none"
        )));
    }
    for code in text.as_bytes().chunks(3) {
        list.add(code);
    }
    Ok(list)
}

/// `caesar/pompey`, each read by `read`.
fn both<T>(text: &str, what: &str, read: impl Fn(&str) -> Result<T>) -> Result<[T; 2]> {
    let at = text.bytes().position(|byte| byte == b'/');
    let at = at.ok_or_else(|| notation_error(format!("{what} is caesar/pompey, not {text:?}")))?;
    Ok([read(&text[..at])?, read(&text[at + 1..])?])
}

/// A count in canonical decimal (no sign, no leading zero), so that the text round-trips.
fn read_count(text: &str) -> Result<u32> {
    let canonical =
        text.bytes().all(|b| b.is_ascii_digit()) && (text == "0" || !text.starts_with('0'));
    text.parse::<u32>()
        .ok()
        .filter(|_| canonical)
        .ok_or_else(|| notation_error(format!("{text:?} is not a count")))
}

/// Exactly `N` parts of `text` separated by `separator`, an ASCII byte (found byte by byte:
/// `str::split`'s search for a `char` costs more than reading the whole notation); else how many.
fn split_exact<const N: usize>(text: &str, separator: u8) -> std::result::Result<[&str; N], usize> {
    let mut rest = Some(text);
    let mut pieces = std::iter::from_fn(move || {
        let text = rest?;
        match text.bytes().position(|byte| byte == separator) {
            Some(at) => {
                rest = Some(&text[at + 1..]);
                Some(&text[..at])
            }
            None => {
                rest = None;
                Some(text)
            }
        }
    });
    let mut parts = [""; N];
    for (count, part) in parts.iter_mut().enumerate() {
        *part = pieces.next().ok_or(count)?;
    }
    match pieces.next() {
        None => Ok(parts),
        Some(_) => Err(N + 1 + pieces.count()),
    }
}
