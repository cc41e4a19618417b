//! The players of the two-player games without a name of their own for them (Iago, Isaac): black
//! and white. Each game keeps its own schema name for them in the contract (`IagoPlayer`,
//! `IsaacPlayer`), so this type has no schema.

/// Black or white; black is the default first player.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Color {
    #[default]
    Black = 0,
    White = 1,
}

/// Both colours, in index order.
pub const COLORS: [Color; 2] = [Color::Black, Color::White];

impl Color {
    pub fn other(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// The name states and answers use: `black`, `white`.
    pub fn name(self) -> &'static str {
        match self {
            Color::Black => "black",
            Color::White => "white",
        }
    }

    /// The letter position notations use: `b`, `w`.
    pub fn letter(self) -> char {
        match self {
            Color::Black => 'b',
            Color::White => 'w',
        }
    }

    pub fn from_name(name: &str) -> Option<Color> {
        COLORS.into_iter().find(|color| color.name() == name)
    }

    pub fn from_letter(letter: &str) -> Option<Color> {
        COLORS
            .into_iter()
            .find(|color| letter.len() == 1 && letter.starts_with(color.letter()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_letters_read_back() {
        for color in COLORS {
            assert_eq!(Color::from_name(color.name()), Some(color));
            assert_eq!(Color::from_letter(&color.letter().to_string()), Some(color));
            assert_eq!(color.other().other(), color);
            assert_ne!(color.other(), color);
        }
        assert_eq!(Color::from_name("b"), None);
        assert_eq!(Color::from_letter("black"), None);
        assert_eq!(Color::from_letter("bb"), None);
    }
}
