//! The notation of a Caesar! turn: the `Move` (token, border, orientation, bonus choices, draws)
//! and the targets and choices it names, written and read.

use std::fmt;

use super::board::{
    border_id, is_symmetric, parse_border, parse_province, parse_token, province_code, token_code,
    Bonus, BORDERS, BORDER_COUNT, PROVINCE_COUNT, TOKEN_KINDS,
};
use crate::error::{Error, Result};

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
        pub(in crate::caesar) fn generated(
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
pub(super) const LONGEST_GENERATED_TEXT: usize = 25;

/// Appends the notation of token `kind` on `border`, the larger number toward the first province
/// written (the canonical id's first when `forward`).
pub(super) fn push_placement(text: &mut String, kind: usize, border: usize, forward: bool) {
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
pub(super) fn push_choice(text: &mut String, choice: Choice) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::caesar::board::{BORDER_COUNT, PROVINCE_COUNT};

    #[test]
    fn might_targets_name_only_borders_and_provinces_of_the_map() {
        assert_eq!(BorderIndex::new(BORDER_COUNT), None);
        assert_eq!(ProvinceIndex::new(PROVINCE_COUNT), None);
        let last = BorderIndex::new(BORDER_COUNT - 1).map(BorderIndex::index);
        assert_eq!(last, Some(BORDER_COUNT - 1));
        assert!(parse_move("S60@HC-HU M:ZZ").is_err());
    }
}
