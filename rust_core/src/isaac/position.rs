//! The position: pieces, phase, scores, markers; its outcome, and its text (written and read).

use std::collections::BTreeMap;

use schemars::JsonSchema;

use super::board::{Piece, LENGTHS, PIECES_PER_PLAYER, SUPPLY, TARGET};
use super::{Color, Config, Setup};
use crate::digits::push_number;
use crate::error::{codes, Error, Result};
use crate::game::{CheckedSetup, Outcome};
use crate::players::COLORS;

/// A finished game keeps the phase it ended in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, JsonSchema)]
#[schemars(rename = "IsaacPhase", rename_all = "lowercase")]
pub enum Phase {
    #[default]
    Placement,
    Scoring,
}

impl Phase {
    pub fn name(self) -> &'static str {
        match self {
            Phase::Placement => "placement",
            Phase::Scoring => "scoring",
        }
    }

    pub(super) fn from_name(name: &str) -> Option<Phase> {
        match name {
            "placement" => Some(Phase::Placement),
            "scoring" => Some(Phase::Scoring),
            _ => None,
        }
    }
}

codes! {
    /// What decided a finished game of Isaac (its outcome's `decided_by`), in the order the rules check.
    pub enum DecidedBy {
        /// A score reached the target, 100.
        Target => "target",
        /// The higher score.
        Score => "score",
        /// Tie-break: more cells of unplaced pieces.
        UnplacedCells => "unplaced_cells",
        /// Tie-break: fewer unplaced pieces.
        UnplacedCount => "unplaced_count",
        /// Last tie-break: the first player wins.
        FirstPlayer => "first_player",
    }
}

/// A valid Isaac position. Each player's pieces on the board are kept as cell masks sorted by their
/// lower-left cell; `occupied` is their union.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    pub(super) config: Config,
    pub(super) occupied: u128,
    pub(super) pieces: [[u128; PIECES_PER_PLAYER]; 2],
    pub(super) piece_count: [u8; 2],
    /// Pieces not yet placed, by length − 3.
    pub(super) unplaced: [[u8; 5]; 2],
    pub(super) phase: Phase,
    /// `None` once the game is over.
    pub(super) to_move: Option<Color>,
    /// Who has passed in the current phase.
    pub(super) passed: [bool; 2],
    pub(super) first_to_pass: Option<Color>,
    pub(super) scores: [u16; 2],
    /// Lengths removed, in removal order (never decreasing).
    pub(super) removed: [[u8; PIECES_PER_PLAYER]; 2],
    pub(super) removed_count: [u8; 2],
}

impl Position {
    pub fn start(config: Config) -> Position {
        Position {
            config,
            occupied: 0,
            pieces: [[0; PIECES_PER_PLAYER]; 2],
            piece_count: [0; 2],
            unplaced: [SUPPLY; 2],
            phase: Phase::Placement,
            to_move: Some(config.first_player),
            passed: [false; 2],
            first_to_pass: None,
            scores: [0; 2],
            removed: [[0; PIECES_PER_PLAYER]; 2],
            removed_count: [0; 2],
        }
    }

    pub fn config(&self) -> Config {
        self.config
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    pub fn to_move(&self) -> Option<Color> {
        self.to_move
    }

    pub fn score(&self, color: Color) -> u16 {
        self.scores[color as usize]
    }

    /// The pieces of a player on the board, as cell masks in lower-left cell order.
    pub fn pieces(&self, color: Color) -> &[u128] {
        &self.pieces[color as usize][..usize::from(self.piece_count[color as usize])]
    }

    pub(super) fn removed(&self, color: Color) -> &[u8] {
        &self.removed[color as usize][..usize::from(self.removed_count[color as usize])]
    }

    /// The longest piece the player removed so far (0 if none): removals never get shorter.
    pub(super) fn longest_removed(&self, color: Color) -> u8 {
        self.removed(color).last().copied().unwrap_or(0)
    }

    pub(super) fn add_piece(&mut self, color: Color, mask: u128) {
        let c = color as usize;
        let count = usize::from(self.piece_count[c]);
        let list = &mut self.pieces[c];
        // Insertion into the anchor-sorted list; no two pieces share an anchor.
        let mut at = count;
        while at > 0 && list[at - 1].trailing_zeros() > mask.trailing_zeros() {
            list[at] = list[at - 1];
            at -= 1;
        }
        list[at] = mask;
        self.piece_count[c] += 1;
        self.occupied |= mask;
    }

    pub(super) fn remove_piece(&mut self, color: Color, index: usize) {
        let c = color as usize;
        let count = usize::from(self.piece_count[c]);
        self.occupied &= !self.pieces[c][index];
        self.pieces[c].copy_within(index + 1..count, index);
        self.pieces[c][count - 1] = 0;
        self.piece_count[c] -= 1;
    }

    /// The cell of a player's marker; `None` once the score reached 100 (the marker left the board).
    pub fn marker(&self, color: Color) -> Option<usize> {
        let score = usize::from(self.scores[color as usize]);
        (score < usize::from(TARGET)).then_some(match color {
            Color::Black => score,
            Color::White => 99 - score,
        })
    }

    pub(super) fn markers(&self) -> u128 {
        COLORS
            .iter()
            .filter_map(|&color| self.marker(color))
            .fold(0, |set, cell| set | 1u128 << cell)
    }

    pub(super) fn unplaced_cells(&self, color: Color) -> u32 {
        LENGTHS
            .iter()
            .map(|&length| length as u32 * u32::from(self.unplaced[color as usize][length - 3]))
            .sum()
    }

    pub(super) fn unplaced_pieces(&self, color: Color) -> u32 {
        self.unplaced[color as usize]
            .iter()
            .map(|&n| u32::from(n))
            .sum()
    }

    pub fn outcome(&self) -> Outcome {
        let [black, white] = self.scores.map(i64::from);
        let scores = BTreeMap::from([("black", black), ("white", white)]);
        if let Some(mover) = self.to_move {
            return Outcome::ongoing(mover.name(), scores);
        }
        let (winner, decided_by) = self.result();
        Outcome::won(scores, winner.name(), decided_by.code())
    }

    /// The winner of a finished game and how it was decided.
    pub(super) fn result(&self) -> (Color, DecidedBy) {
        let [black, white] = COLORS;
        if let Some(&winner) = COLORS.iter().find(|&&c| self.score(c) >= TARGET) {
            return (winner, DecidedBy::Target);
        }
        let better = |a: u32, b: u32, more_wins: bool| match a.cmp(&b) {
            std::cmp::Ordering::Equal => None,
            std::cmp::Ordering::Greater => Some(if more_wins { black } else { white }),
            std::cmp::Ordering::Less => Some(if more_wins { white } else { black }),
        };
        if let Some(winner) = better(
            u32::from(self.score(black)),
            u32::from(self.score(white)),
            true,
        ) {
            return (winner, DecidedBy::Score);
        }
        if let Some(winner) = better(self.unplaced_cells(black), self.unplaced_cells(white), true) {
            return (winner, DecidedBy::UnplacedCells);
        }
        if let Some(winner) = better(
            self.unplaced_pieces(black),
            self.unplaced_pieces(white),
            false,
        ) {
            return (winner, DecidedBy::UnplacedCount);
        }
        (self.config.first_player, DecidedBy::FirstPlayer)
    }

    /// Every piece on the board with its owner, in lower-left cell order.
    pub(super) fn all_pieces(&self) -> Vec<(Color, Piece)> {
        let mut all: Vec<(Color, Piece)> = COLORS
            .iter()
            .flat_map(|&color| {
                self.pieces(color)
                    .iter()
                    .filter_map(move |&mask| Piece::from_mask(mask).map(|piece| (color, piece)))
            })
            .collect();
        all.sort_by_key(|(_, piece)| piece.anchor());
        all
    }

    /// The position string, written straight into one string (`format!` of its fields cost a
    /// quarter of `position`).
    pub fn text(&self) -> String {
        let mut text = String::with_capacity(256);
        for (index, (color, piece)) in self.all_pieces().iter().enumerate() {
            if index > 0 {
                text.push(',');
            }
            text.push(color.letter().to_ascii_uppercase());
            piece.push_name(&mut text);
        }
        if text.is_empty() {
            text.push('-');
        }
        let letter = |color: Option<Color>| color.map_or('-', Color::letter);
        text.push(' ');
        text.push_str(self.phase.name());
        text.push(' ');
        text.push(letter(self.to_move));
        text.push(' ');
        push_number(&mut text, u64::from(self.scores[0]));
        text.push(',');
        push_number(&mut text, u64::from(self.scores[1]));
        text.push(' ');
        text.push(letter(self.first_to_pass));
        text.push(' ');
        let passers = COLORS.into_iter().filter(|&c| self.passed[c as usize]);
        push_or_dash(&mut text, passers.map(Color::letter));
        text.push(' ');
        let lengths = |color| self.removed(color).iter().map(|&l| char::from(b'0' + l));
        push_or_dash(&mut text, lengths(Color::Black));
        text.push('/');
        push_or_dash(&mut text, lengths(Color::White));
        text
    }
}

/// Appends `letters`, or `-` when there are none.
fn push_or_dash(text: &mut String, letters: impl Iterator<Item = char>) {
    let before = text.len();
    text.extend(letters);
    if text.len() == before {
        text.push('-');
    }
}

/// The parsed fields of a state or position string, before the checks of `from_parts`.
/// A piece with its index in its state's list (for errors; `None` in a position string).
pub(super) type IndexedPiece = (Piece, Option<usize>);

pub(super) struct Parts {
    /// Each player's pieces with the index of each in its state's list (for errors; `None` in a
    /// position string).
    pub(super) pieces: [Vec<IndexedPiece>; 2],
    pub(super) phase: Phase,
    pub(super) to_move: Option<Color>,
    pub(super) scores: [i64; 2],
    pub(super) first_to_pass: Option<Color>,
    pub(super) passed: [bool; 2],
    pub(super) removed: [Vec<i64>; 2],
}

/// A refusal of a position string's syntax.
pub(super) fn syntax(detail: String) -> Error {
    Error::invalid_state("position", detail)
}

/// Reads a position string's 7 fields, in order (the first refusal a string meets stays the same).
pub(super) fn parse_text(text: &str) -> Result<Parts> {
    let fields: Vec<&str> = text.split(' ').collect();
    let [pieces, phase, to_move, scores, first, passed, removed] = fields.as_slice() else {
        return Err(syntax(format!(
            "a position has 7 fields separated by single spaces (pieces, phase, to move, scores, first to pass, passed, removed), not {}",
            fields.len()
        )));
    };
    let phase = Phase::from_name(phase)
        .ok_or_else(|| syntax(format!("the phase is placement or scoring, not {phase:?}")))?;
    let pieces = parse_pieces(pieces)?;
    let to_move = parse_player(to_move, "the player to move")?;
    let first_to_pass = parse_player(first, "the first to pass")?;
    let scores = parse_scores(scores)?;
    let passed = parse_passed(passed)?;
    let removed = parse_removed(removed)?;
    Ok(Parts {
        pieces,
        phase,
        to_move,
        scores,
        first_to_pass,
        passed,
        removed,
    })
}

/// Reads the pieces field: `-`, or pieces like `Bc4-g4` separated by commas, by lower-left cell.
pub(super) fn parse_pieces(text: &str) -> Result<[Vec<IndexedPiece>; 2]> {
    let mut pieces = [Vec::new(), Vec::new()];
    if text == "-" {
        return Ok(pieces);
    }
    let mut last_anchor: Option<usize> = None;
    for entry in text.split(',') {
        let (color, piece) = match entry.split_at_checked(1) {
            Some(("B", piece)) => (Color::Black, piece),
            Some(("W", piece)) => (Color::White, piece),
            _ => {
                return Err(syntax(format!(
                    "{entry:?} is not a piece: B or W followed by its end cells (Bc4-g4)"
                )))
            }
        };
        let piece = Piece::parse(piece).map_err(syntax)?;
        if last_anchor.is_some_and(|anchor| anchor >= piece.anchor()) {
            return Err(syntax(format!(
                "pieces are listed by lower-left cell: {entry} is out of order"
            )));
        }
        last_anchor = Some(piece.anchor());
        pieces[color as usize].push((piece, None));
    }
    Ok(pieces)
}

/// Reads a player field (`b`, `w`, or `-` for nobody); `what` names it in the refusal.
pub(super) fn parse_player(letter: &str, what: &str) -> Result<Option<Color>> {
    match letter {
        "-" => Ok(None),
        _ => Color::from_letter(letter)
            .map(Some)
            .ok_or_else(|| syntax(format!("{what} is b, w or -, not {letter:?}"))),
    }
}

/// Reads the scores field: black's and white's, canonical decimals separated by a comma.
pub(super) fn parse_scores(scores: &str) -> Result<[i64; 2]> {
    let Some((black, white)) = scores.split_once(',') else {
        return Err(syntax(format!(
            "the scores are black's and white's separated by a comma, not {scores:?}"
        )));
    };
    Ok([parse_score(black)?, parse_score(white)?])
}

/// Reads one score: a decimal number without leading zeros.
pub(super) fn parse_score(text: &str) -> Result<i64> {
    let canonical = text == "0" || (!text.starts_with('0') && !text.is_empty());
    text.parse::<u16>()
        .ok()
        .filter(|_| canonical && text.bytes().all(|b| b.is_ascii_digit()))
        .map(i64::from)
        .ok_or_else(|| syntax(format!("{text:?} is not a score: a decimal number")))
}

/// Reads the passed field: `-`, `b`, `w` or `bw`.
pub(super) fn parse_passed(passed: &str) -> Result<[bool; 2]> {
    match passed {
        "-" => Ok([false, false]),
        "b" => Ok([true, false]),
        "w" => Ok([false, true]),
        "bw" => Ok([true, true]),
        other => Err(syntax(format!("passed is -, b, w or bw, not {other:?}"))),
    }
}

/// Reads the removed field: black's and white's lengths separated by /.
pub(super) fn parse_removed(removed: &str) -> Result<[Vec<i64>; 2]> {
    let Some((black, white)) = removed.split_once('/') else {
        return Err(syntax(format!(
            "the removed lengths are black's and white's separated by /, not {removed:?}"
        )));
    };
    Ok([parse_lengths(black)?, parse_lengths(white)?])
}

/// Reads one player's removed lengths: digits 3 to 7, or `-` for none.
pub(super) fn parse_lengths(text: &str) -> Result<Vec<i64>> {
    if text == "-" {
        return Ok(Vec::new());
    }
    text.bytes()
        .map(|b| match b {
            b'3'..=b'7' => Ok(i64::from(b - b'0')),
            _ => Err(syntax(format!(
                "removed lengths are digits 3 to 7 (or -), not {text:?}"
            ))),
        })
        .collect()
}

pub(super) fn parse_position(text: &str, setup: &CheckedSetup<Setup>) -> Result<Position> {
    let config = setup
        .config()
        .map_err(|(field, detail)| Error::InvalidOptions { field, detail })?;
    Position::from_parts(parse_text(text)?, config)
}

pub(super) fn position_text(position: &Position) -> String {
    position.text()
}
