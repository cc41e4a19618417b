//! The map and the pieces of Caesar!, as data in one place (`docs/rules/caesar.md`): provinces in table
//! order, borders in the rules' list order with their icons, influence tokens in token order, bonus
//! tokens. Everything else (masks, lookups) is derived from these tables at compile time.

use std::sync::OnceLock;

use schemars::JsonSchema;

use crate::players::TwoPlayers;

pub const PROVINCE_COUNT: usize = 18;
pub const BORDER_COUNT: usize = 30;
pub const TOKEN_KINDS: usize = 15;
/// Italia, the province with two spaces (solid and dashed).
pub const IT: usize = 7;
pub const CONTROL_MARKERS: u8 = 12;
pub const START_HAND_LIMIT: u8 = 2;

/// Provinces in table order (left table, then right, top to bottom): code, name, border count.
pub const PROVINCES: [(&str, &str, u8); PROVINCE_COUNT] = [
    ("HU", "Hispania Ulterior", 2),
    ("HC", "Hispania Citerior", 2),
    ("MT", "Mauretania", 3),
    ("SD", "Sardinia", 4),
    ("GA", "Gallia", 3),
    ("NU", "Numidia", 3),
    ("SC", "Sicilia", 4),
    ("IT", "Italia", 6),
    ("GC", "Gallia Cisalpina", 3),
    ("AF", "Africa", 4),
    ("AC", "Achaea", 4),
    ("MD", "Macedonia", 3),
    ("DM", "Dalmatia", 3),
    ("CY", "Cyrenaica", 3),
    ("CR", "Creta", 4),
    ("AG", "Aegyptus", 4),
    ("AS", "Asia", 3),
    ("SY", "Syria", 2),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Icon {
    Sword = 0,
    Shield = 1,
    Ship = 2,
}

impl Icon {
    pub fn name(self) -> &'static str {
        match self {
            Icon::Sword => "sword",
            Icon::Shield => "shield",
            Icon::Ship => "ship",
        }
    }
}

const HU: usize = 0;
const HC: usize = 1;
const MT: usize = 2;
const SD: usize = 3;
const GA: usize = 4;
const NU: usize = 5;
const SC: usize = 6;
const GC: usize = 8;
const AF: usize = 9;
const AC: usize = 10;
const MD: usize = 11;
const DM: usize = 12;
const CY: usize = 13;
const CR: usize = 14;
const AG: usize = 15;
const AS: usize = 16;
const SY: usize = 17;

/// Border spaces in border order (the rules' list read row by row): the two provinces, as the
/// canonical id `A-B` names them, and the icon.
pub const BORDERS: [(usize, usize, Icon); BORDER_COUNT] = [
    (HU, HC, Icon::Shield),
    (HU, MT, Icon::Ship),
    (HC, GA, Icon::Sword),
    (MT, SD, Icon::Ship),
    (MT, NU, Icon::Sword),
    (SD, GA, Icon::Shield),
    (SD, SC, Icon::Ship),
    (SD, IT, Icon::Shield),
    (GA, GC, Icon::Sword),
    (NU, SC, Icon::Ship),
    (NU, AF, Icon::Sword),
    (SC, IT, Icon::Sword),
    (SC, AF, Icon::Ship),
    (IT, GC, Icon::Sword),
    (IT, AC, Icon::Ship),
    (IT, MD, Icon::Shield),
    (IT, DM, Icon::Ship),
    (GC, DM, Icon::Shield),
    (AF, AC, Icon::Ship),
    (AF, CY, Icon::Shield),
    (AC, MD, Icon::Sword),
    (AC, CR, Icon::Shield),
    (MD, DM, Icon::Sword),
    (CY, CR, Icon::Shield),
    (CY, AG, Icon::Sword),
    (CR, AG, Icon::Ship),
    (CR, AS, Icon::Shield),
    (AG, AS, Icon::Ship),
    (AG, SY, Icon::Sword),
    (AS, SY, Icon::Shield),
];

/// The borders around each province, as a bit set over border indices.
pub const PROVINCE_MASK: [u32; PROVINCE_COUNT] = {
    let mut masks = [0u32; PROVINCE_COUNT];
    let mut border = 0;
    while border < BORDER_COUNT {
        let (a, b, _) = BORDERS[border];
        masks[a] |= 1 << border;
        masks[b] |= 1 << border;
        border += 1;
    }
    masks
};

/// The borders of each icon, as a bit set.
pub const ICON_MASK: [u32; 3] = {
    let mut masks = [0u32; 3];
    let mut border = 0;
    while border < BORDER_COUNT {
        masks[BORDERS[border].2 as usize] |= 1 << border;
        border += 1;
    }
    masks
};

pub const ALL_BORDERS: u32 = (1 << BORDER_COUNT) - 1;

/// The borders in the bit set `mask`, in border order.
pub(super) fn borders_in(mask: u32) -> impl Iterator<Item = usize> {
    let mut rest = mask;
    std::iter::from_fn(move || {
        let border = rest.trailing_zeros() as usize;
        rest &= rest.wrapping_sub(1);
        (border < BORDER_COUNT).then_some(border)
    })
}

/// The provinces around `border` that the filled borders `filled` close, in table order (the order
/// their closures resolve in), and how many.
pub(super) fn closed_around(filled: u32, border: usize) -> ([usize; 2], usize) {
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

/// The border between two provinces, in either order.
pub fn border_between(a: usize, b: usize) -> Option<usize> {
    BORDERS
        .iter()
        .position(|&(x, y, _)| (x, y) == (a, b) || (x, y) == (b, a))
}

pub fn province_code(province: usize) -> &'static str {
    PROVINCES[province].0
}

pub fn parse_province(code: &str) -> Option<usize> {
    // Every code is two letters: compared as bytes, without a call to compare strings.
    let [first, second] = *code.as_bytes() else {
        return None;
    };
    PROVINCES
        .iter()
        .position(|(c, _, _)| c.as_bytes() == [first, second])
}

/// The canonical id of a border, `A-B` as the rules list it.
pub fn border_id(border: usize) -> &'static str {
    static IDS: OnceLock<Vec<String>> = OnceLock::new();
    let ids = IDS.get_or_init(|| {
        let id = |&(a, b, _): &(usize, usize, Icon)| {
            format!("{}-{}", province_code(a), province_code(b))
        };
        BORDERS.iter().map(id).collect()
    });
    &ids[border]
}

/// A border written `A-B` in either order: the border and whether it was written canonically.
pub fn parse_border(text: &str) -> Option<(usize, bool)> {
    // Province codes are two letters, so a border is five bytes with `-` in the middle.
    if text.len() != 5 || text.as_bytes()[2] != b'-' {
        return None;
    }
    let (a, b) = (
        parse_province(text.get(..2)?)?,
        parse_province(text.get(3..)?)?,
    );
    let border = border_between(a, b)?;
    Some((border, BORDERS[border].0 == a))
}

/// Influence tokens in token order: code, icon (`None` for the wild laurel), the two numbers (larger
/// first), and how many of them each bag starts with.
pub const TOKENS: [(&str, Option<Icon>, u8, u8, u8); TOKEN_KINDS] = [
    ("L40", None, 4, 0, 1),
    ("L31", None, 3, 1, 1),
    ("L22", None, 2, 2, 2),
    ("S60", Some(Icon::Sword), 6, 0, 1),
    ("S51", Some(Icon::Sword), 5, 1, 1),
    ("S42", Some(Icon::Sword), 4, 2, 1),
    ("S33", Some(Icon::Sword), 3, 3, 1),
    ("D60", Some(Icon::Shield), 6, 0, 1),
    ("D51", Some(Icon::Shield), 5, 1, 1),
    ("D42", Some(Icon::Shield), 4, 2, 1),
    ("D33", Some(Icon::Shield), 3, 3, 1),
    ("N60", Some(Icon::Ship), 6, 0, 1),
    ("N51", Some(Icon::Ship), 5, 1, 1),
    ("N42", Some(Icon::Ship), 4, 2, 1),
    ("N33", Some(Icon::Ship), 3, 3, 1),
];

pub const BAG_SIZE: u8 = 16;

pub fn token_code(kind: usize) -> &'static str {
    TOKENS[kind].0
}

pub fn parse_token(code: &str) -> Option<usize> {
    token_of_code(code.as_bytes())
}

/// The token kind of a code given as bytes.
pub fn token_of_code(code: &[u8]) -> Option<usize> {
    let &[a, b, c] = code else {
        return None;
    };
    let packed = u32::from_le_bytes([a, b, c, 0]);
    PACKED_CODES.iter().position(|&p| p == packed)
}

/// Each token's 3-byte code as one number: a state names dozens of tokens, and comparing numbers
/// costs less than comparing strings.
const PACKED_CODES: [u32; TOKEN_KINDS] = {
    let mut packed = [0; TOKEN_KINDS];
    let mut kind = 0;
    while kind < TOKEN_KINDS {
        let code = TOKENS[kind].0.as_bytes();
        assert!(code.len() == 3, "token codes are 3 bytes");
        packed[kind] = u32::from_le_bytes([code[0], code[1], code[2], 0]);
        kind += 1;
    }
    packed
};

pub fn token_icon_name(kind: usize) -> &'static str {
    TOKENS[kind].1.map_or("laurel", Icon::name)
}

/// Both halves show the same number: the two orientations are one placement.
pub fn is_symmetric(kind: usize) -> bool {
    TOKENS[kind].2 == TOKENS[kind].3
}

/// The borders a token may be placed on (when empty): its icon's, or all for a laurel.
pub fn token_borders(kind: usize) -> u32 {
    TOKENS[kind]
        .1
        .map_or(ALL_BORDERS, |icon| ICON_MASK[icon as usize])
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, schemars::JsonSchema)]
#[schemars(rename = "CaesarBonus", rename_all = "lowercase")]
pub enum Bonus {
    Senate = 0,
    Tactics = 1,
    Wealth = 2,
    Might = 3,
}

/// The 18 province bonus tokens: one Senate always on Italia's solid space, the rest shuffled.
pub const BONUSES: [(Bonus, u8); 4] = [
    (Bonus::Senate, 6),
    (Bonus::Tactics, 4),
    (Bonus::Wealth, 4),
    (Bonus::Might, 4),
];

impl Bonus {
    pub const ALL: [Bonus; 4] = [Bonus::Senate, Bonus::Tactics, Bonus::Wealth, Bonus::Might];

    pub fn name(self) -> &'static str {
        match self {
            Bonus::Senate => "senate",
            Bonus::Tactics => "tactics",
            Bonus::Wealth => "wealth",
            Bonus::Might => "might",
        }
    }

    pub fn parse(name: &str) -> Option<Bonus> {
        Bonus::ALL.into_iter().find(|bonus| bonus.name() == name)
    }

    /// Its letter in the position notation.
    pub fn letter(self) -> char {
        match self {
            Bonus::Senate => 'S',
            Bonus::Tactics => 'T',
            Bonus::Wealth => 'W',
            Bonus::Might => 'M',
        }
    }

    pub fn count(self) -> u8 {
        BONUSES[self as usize].1
    }
}

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

    pub(super) fn letter(self) -> char {
        match self {
            Player::Caesar => 'c',
            Player::Pompey => 'p',
        }
    }
}

/// Token counts per kind, in token order (a bag or a hand).
pub type Tokens = [u8; TOKEN_KINDS];

/// The codes of the tokens of a hand or a bag, in token order.
pub(super) fn codes_in_order(tokens: &Tokens) -> impl Iterator<Item = &'static str> + '_ {
    tokens
        .iter()
        .enumerate()
        .flat_map(|(kind, &n)| std::iter::repeat_n(token_code(kind), n as usize))
}

/// The tokens of a hand or a bag, in token order.
pub(super) fn token_list<T: From<&'static str>>(tokens: &Tokens) -> Vec<T> {
    codes_in_order(tokens).map(T::from).collect()
}

pub(super) fn token_total(tokens: &Tokens) -> u32 {
    tokens.iter().map(|&n| u32::from(n)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn border_counts_and_icons_match_the_rules_tables() {
        for (province, (code, _, count)) in PROVINCES.iter().enumerate() {
            assert_eq!(
                PROVINCE_MASK[province].count_ones(),
                u32::from(*count),
                "{code}"
            );
        }
        assert!(ICON_MASK.iter().all(|mask| mask.count_ones() == 10));
        assert_eq!(ICON_MASK[0] | ICON_MASK[1] | ICON_MASK[2], ALL_BORDERS);
        let tokens: u8 = TOKENS.iter().map(|t| t.4).sum();
        assert_eq!(tokens, BAG_SIZE);
        let bonuses: u8 = BONUSES.iter().map(|b| b.1).sum();
        assert_eq!(bonuses as usize, PROVINCE_COUNT);
        assert_eq!(parse_border("HC-HU"), Some((0, false)));
        assert_eq!(parse_border("AS-SY"), Some((29, true)));
        assert_eq!(parse_border("HU-IT"), None);
    }
}
