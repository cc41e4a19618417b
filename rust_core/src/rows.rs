//! A data set's rows (`referee validate --dataset`): one a ply of every legal record, its start
//! included, made by the archive's one replay and kept as Arrow columns, each as its buffers in
//! Arrow's layout (validity bitmap, little-endian offsets and values), which pyarrow takes whole: no
//! value crosses into Python one by one.

use serde_json::Value;

/// A legal record's plies, as its replay saw them: from the start, the position after each ply and
/// the player to move there; each move with its action id when it is one decision; the final returns.
#[derive(Debug, Default)]
pub struct Plies {
    pub positions: Vec<String>,
    pub to_move: Vec<Option<&'static str>>,
    pub moves: Vec<String>,
    /// One a move (the start has none).
    pub actions: Vec<Option<usize>>,
    pub returns: Vec<f64>,
}

/// The validity bitmap of a column with nulls (bit i set: row i has a value), and its nulls.
#[derive(Debug, Default, PartialEq)]
pub struct Validity {
    pub bits: Vec<u8>,
    pub nulls: usize,
    len: usize,
}

impl Validity {
    fn push(&mut self, valid: bool) {
        if self.len % 8 == 0 {
            self.bits.push(0);
        }
        if valid {
            self.bits[self.len / 8] |= 1 << (self.len % 8);
        } else {
            self.nulls += 1;
        }
        self.len += 1;
    }

    fn append(&mut self, other: &Validity) {
        for row in 0..other.len {
            self.push(other.bits[row / 8] & (1 << (row % 8)) != 0);
        }
    }
}

/// A column of strings (Arrow `string`: 32-bit offsets).
#[derive(Debug, PartialEq)]
pub struct Strings {
    pub validity: Validity,
    pub offsets: Vec<u8>,
    pub data: Vec<u8>,
}

impl Default for Strings {
    fn default() -> Self {
        Strings {
            validity: Validity::default(),
            offsets: 0i32.to_le_bytes().to_vec(),
            data: Vec::new(),
        }
    }
}

impl Strings {
    fn push(&mut self, text: Option<&str>) {
        self.validity.push(text.is_some());
        self.data
            .extend_from_slice(text.unwrap_or_default().as_bytes());
        self.offsets.extend_from_slice(&int32(self.data.len()));
    }

    fn append(&mut self, other: Strings) {
        self.validity.append(&other.validity);
        append_offsets(&mut self.offsets, &other.offsets, self.data.len());
        self.data.extend_from_slice(&other.data);
    }
}

/// Appends the offsets of the values that follow `base` values (their first, 0, is the last of ours).
fn append_offsets(offsets: &mut Vec<u8>, more: &[u8], base: usize) {
    for offset in more.chunks_exact(4).skip(1) {
        let offset = i32::from_le_bytes(offset.try_into().expect("4 bytes"));
        offsets.extend_from_slice(&int32(base + offset as usize));
    }
}

/// A column of int32s with nulls.
#[derive(Debug, Default, PartialEq)]
pub struct Int32s {
    pub validity: Validity,
    pub values: Vec<u8>,
}

impl Int32s {
    fn push(&mut self, value: Option<usize>) {
        self.validity.push(value.is_some());
        self.values.extend_from_slice(&int32(value.unwrap_or(0)));
    }

    fn append(&mut self, other: Int32s) {
        self.validity.append(&other.validity);
        self.values.extend_from_slice(&other.values);
    }
}

/// An Arrow int32: a ply, an action id, an offset (a chunk's column is a few tens of MiB: its records
/// are `CHUNK_BYTES`).
fn int32(value: usize) -> [u8; 4] {
    i32::try_from(value)
        .expect("an int32 column's value (a chunk's column holds less than 2 GiB)")
        .to_le_bytes()
}

/// A data set's columns but `source` (the partition's, the same on every row): `record` (int64),
/// `id`, `game`, `position`, `move`, `to_move` (strings), `ply`, `action` (int32), `returns` (a list of
/// float64: its offsets, its values).
#[derive(Debug, Default, PartialEq)]
pub struct Rows {
    pub rows: usize,
    pub record: Vec<u8>,
    pub id: Strings,
    pub game: Strings,
    pub ply: Vec<u8>,
    pub position: Strings,
    pub moves: Strings,
    pub action: Int32s,
    pub to_move: Strings,
    pub returns_offsets: Vec<u8>,
    pub returns: Vec<u8>,
}

impl Rows {
    pub fn new() -> Rows {
        Rows {
            returns_offsets: 0i32.to_le_bytes().to_vec(),
            ..Rows::default()
        }
    }

    /// A legal record's rows: its start and one a ply. `id` as the record gives it (JSON text when not
    /// a string).
    pub fn add(&mut self, record: usize, id: Option<&Value>, game: &str, plies: &Plies) {
        let id = id.map(|id| match id {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        });
        let record = i64::try_from(record).expect("a record number fits 64 bits");
        for (ply, position) in plies.positions.iter().enumerate() {
            self.rows += 1;
            self.record.extend_from_slice(&record.to_le_bytes());
            self.id.push(id.as_deref());
            self.game.push(Some(game));
            self.ply.extend_from_slice(&int32(ply));
            self.position.push(Some(position));
            let played = ply.checked_sub(1);
            self.moves
                .push(played.map(|index| plies.moves[index].as_str()));
            let action = played.and_then(|index| plies.actions[index]);
            self.action.push(action);
            self.to_move.push(plies.to_move[ply]);
            for value in &plies.returns {
                self.returns.extend_from_slice(&value.to_le_bytes());
            }
            self.returns_offsets
                .extend_from_slice(&int32(self.returns.len() / 8));
        }
    }

    /// Appends the rows that follow.
    pub fn append(&mut self, other: Rows) {
        self.rows += other.rows;
        self.record.extend_from_slice(&other.record);
        self.id.append(other.id);
        self.game.append(other.game);
        self.ply.extend_from_slice(&other.ply);
        self.position.append(other.position);
        self.moves.append(other.moves);
        self.action.append(other.action);
        self.to_move.append(other.to_move);
        let base = self.returns.len() / 8;
        append_offsets(&mut self.returns_offsets, &other.returns_offsets, base);
        self.returns.extend_from_slice(&other.returns);
    }
}
