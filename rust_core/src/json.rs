//! JSON text as every entry point reads it: a key given twice in one object is refused, wherever it
//! is. serde keeps the last value of a key in a map and refuses a second one in a struct, so two
//! readers of the same request (a route that reads the body whole, one that reads a state's fields)
//! would disagree on which value counts; with one rule, they cannot. `fault` words the refusal.
//! Requests (`request::take_item`, their hot path) are read first, by readers that each stop on a
//! key given twice, and scanned only when refused; other entry points scan before reading.

use std::borrow::Cow;
use std::collections::hash_map::RandomState;
use std::collections::HashSet;
use std::fmt::Write as _;
use std::hash::BuildHasher;
use std::hash::{BuildHasherDefault, Hasher};

/// Deeper nesting is left to the parser, which refuses it (serde_json's limit is 128 levels), so
/// that a body of brackets costs this scan no memory.
const MAX_DEPTH: usize = 129;
/// Keys of one object compared one by one (by their fingerprints: a state's objects have up to 40
/// keys); beyond, through a set of their keyed hashes (a hostile object's thousands of keys cost
/// linear time, not quadratic, and about 10 bytes each: its text takes at least 6 a key).
const LINEAR_KEYS: usize = 64;

/// The fault of JSON text refused for a key given twice: its syntax error, or else the place of the
/// key (`duplicate key at state.board`). `None` for JSON text without a key given twice. (Only text
/// where the scan finds a duplicate is parsed whole here; the readers parse the rest. A syntax error
/// the scan's parse skips over, a number out of range or a lone surrogate, loses to the key.)
pub fn fault(text: &str) -> Option<String> {
    let path = duplicate_key(text)?;
    Some(match serde_json::from_str::<serde::de::IgnoredAny>(text) {
        Err(error) => error.to_string(),
        Ok(_) => format!("duplicate key at {path}"),
    })
}

/// The value of a field read into its `slot`, once: a key given twice stops the reading (a reader's
/// part of the one rule; `fault` then names the key).
pub(crate) fn once<'de, T: serde::Deserialize<'de>, M: serde::de::MapAccess<'de>>(
    slot: &mut Option<T>,
    name: &'static str,
    map: &mut M,
) -> Result<(), M::Error> {
    if slot.is_some() {
        return Err(serde::de::Error::duplicate_field(name));
    }
    *slot = Some(map.next_value()?);
    Ok(())
}

/// Why a text is not JSON as every route reads it (serde_json's grammar, numbers that fit a double,
/// no lone surrogate, at most 128 levels of nesting); `None` when it is JSON.
pub fn syntax_error(text: &str) -> Option<String> {
    serde_json::from_str::<CheckedAny>(text)
        .err()
        .map(|error| error.to_string())
}

/// Any JSON value, read in full and kept as nothing: unlike `IgnoredAny`, whose skipped values'
/// numbers and string escapes go unchecked.
pub(crate) struct CheckedAny;

impl<'de> serde::Deserialize<'de> for CheckedAny {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(CheckedAny)
    }
}

impl<'de> serde::de::Visitor<'de> for CheckedAny {
    type Value = CheckedAny;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<CheckedAny, E> {
        Ok(CheckedAny)
    }
    fn visit_i64<E>(self, _: i64) -> Result<CheckedAny, E> {
        Ok(CheckedAny)
    }
    fn visit_u64<E>(self, _: u64) -> Result<CheckedAny, E> {
        Ok(CheckedAny)
    }
    fn visit_f64<E>(self, _: f64) -> Result<CheckedAny, E> {
        Ok(CheckedAny)
    }
    fn visit_str<E>(self, _: &str) -> Result<CheckedAny, E> {
        Ok(CheckedAny)
    }
    fn visit_unit<E>(self) -> Result<CheckedAny, E> {
        Ok(CheckedAny)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<CheckedAny, A::Error> {
        while seq.next_element::<CheckedAny>()?.is_some() {}
        Ok(CheckedAny)
    }
    fn visit_map<M: serde::de::MapAccess<'de>>(self, mut map: M) -> Result<CheckedAny, M::Error> {
        while map.next_entry::<CheckedAny, CheckedAny>()?.is_some() {}
        Ok(CheckedAny)
    }
}

/// The path of the first key given twice in one object (`state.board`, `pawns.red[2]`), if any. The
/// text is followed by its strings and nesting only: on text that is not JSON the answer means
/// nothing, and `fault` asks the parser then. It runs on whole bodies and archives, so it looks only at
/// quotes and brackets, found a block at a time (`Classes`), and allocates only its stacks.
fn duplicate_key(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut scan = Scan {
        text: bytes,
        keys: Vec::with_capacity(LINEAR_KEYS),
        frames: Vec::with_capacity(8),
        sets: Vec::new(),
        random: None,
        string: None,
    };
    // Bytes before `next` are taken (the byte a backslash escapes).
    let (mut in_string, mut next, mut block) = (false, 0, 0);
    while block < bytes.len() {
        let classes = Classes::of(&bytes[block..]);
        if classes.backslash == 0 && next <= block {
            // The block's strings are found from its quotes alone: only closing quotes and the
            // brackets and commas outside strings matter (a key's start is its opening quote's).
            let inside = prefix_xor(classes.quote) ^ if in_string { u64::MAX } else { 0 };
            let opening = classes.quote & inside;
            for at in bits((classes.quote | classes.structural) & !inside, block) {
                if bytes[at] == b'"' && scan.string.is_none() {
                    if !scan.expects_key() {
                        continue; // a value's string: nothing to keep
                    }
                    scan.string = Some((after_last(opening, at - block, block), true, false));
                }
                if let Err(found) = scan.byte(at, bytes[at]) {
                    return found;
                }
            }
            in_string ^= classes.quote.count_ones() % 2 == 1;
            if in_string && scan.string.is_none() {
                let start = after_last(opening, BLOCK, block);
                scan.string = Some((start, scan.expects_key(), false));
            }
        } else {
            for at in bits(
                classes.quote | classes.backslash | classes.structural,
                block,
            ) {
                if at < next {
                    continue;
                }
                match (in_string, bytes[at]) {
                    (true, b'\\') => {
                        next = at + 2;
                        scan.escaped();
                        continue;
                    }
                    (_, b'"') => in_string = !in_string,
                    (true, _) | (false, b'\\') => continue, // a bracket in a string; a stray backslash
                    (false, _) => {}
                }
                if let Err(found) = scan.byte(at, bytes[at]) {
                    return found;
                }
            }
        }
        block += BLOCK;
    }
    None
}

/// An object or array being scanned: where its keys start on the scan's stack of keys, whether the
/// next string is a key (objects), the index of the element being read (arrays).
#[derive(Clone, Copy)]
struct Frame {
    object: bool,
    first_key: usize,
    expects_key: bool,
    index: usize,
    /// A bit for each key's fingerprint seen (a key whose bit is clear is new: no comparison), and
    /// whether a key had an escape (then every key is compared).
    seen: u64,
    escapes: bool,
    /// Where its opening bracket is, and whether its keys are past LINEAR_KEYS (then kept as hashes
    /// in the scan's `sets`, and only the last one on the stack of keys, for `path`).
    start: usize,
    hashed: bool,
}

/// A key: where its string's contents start, their length (the top bit set when they have an escape),
/// and their first eight bytes: length and head tell most keys apart without reading them again.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Key {
    start: usize,
    length: usize,
    head: u64,
}

/// The bit of `Key::length` that says the key has an escape.
const ESCAPED: usize = 1 << (usize::BITS - 1);

impl Key {
    fn new(text: &[u8], start: usize, end: usize, escaped: bool) -> Key {
        let length = end - start;
        let head = match text.get(start..start + 8) {
            Some(eight) => u64::from_le_bytes(eight.try_into().expect("eight bytes")),
            None => text[start..]
                .iter()
                .rev()
                .fold(0, |word, &byte| word << 8 | u64::from(byte)),
        };
        let head = if length >= 8 {
            head
        } else {
            head & ((1 << (8 * length)) - 1)
        };
        Key {
            start,
            length: length | if escaped { ESCAPED } else { 0 },
            head,
        }
    }

    fn escaped(self) -> bool {
        self.length & ESCAPED != 0
    }

    fn span(self) -> std::ops::Range<usize> {
        self.start..self.start + (self.length & !ESCAPED)
    }
}

/// The keys of a large object, as their keyed hashes (`Scan::random`): 8 bytes each, whatever their
/// length. Two keys of one hash are told apart by the object's text (`earlier_key`).
type HashedKeys = HashSet<u64, BuildHasherDefault<Fnv>>;

struct Scan<'a> {
    text: &'a [u8],
    /// The keys of the open objects, innermost last.
    keys: Vec<Key>,
    frames: Vec<Frame>,
    /// For objects of more than `LINEAR_KEYS` keys (rare): their depth and their keys' hashes, keyed
    /// by `random` (made with the first such object), so that no text chooses what collides.
    sets: Vec<(usize, HashedKeys)>,
    random: Option<RandomState>,
    /// The string being read: where its contents start, whether it is a key, whether it has an escape.
    string: Option<(usize, bool, bool)>,
}

impl<'a> Scan<'a> {
    /// A quote, or a bracket or comma outside strings, at byte `at`: `Err` ends the scan, with the
    /// path of a key given twice, or with nothing for nesting too deep to be JSON.
    #[inline(always)]
    fn byte(&mut self, at: usize, byte: u8) -> Result<(), Option<String>> {
        match byte {
            b'"' => match self.string.take() {
                None => self.string = Some((at + 1, self.expects_key(), false)),
                Some((start, true, escaped)) => {
                    if self.add_key(Key::new(self.text, start, at, escaped)) {
                        return Err(Some(self.path()));
                    }
                }
                Some(_) => {}
            },
            b'{' | b'[' if self.frames.len() >= MAX_DEPTH => return Err(None),
            b'{' | b'[' => self.open(byte == b'{', at),
            b'}' | b']' => self.close(),
            _ => self.next_member(),
        }
        Ok(())
    }

    /// The string being read has an escape.
    fn escaped(&mut self) {
        if let Some((_, _, escaped)) = &mut self.string {
            *escaped = true;
        }
    }

    fn open(&mut self, object: bool, start: usize) {
        if let Some(frame) = self.frames.last_mut() {
            frame.expects_key = false; // a container in key position is no key (not JSON anyway)
        }
        self.frames.push(Frame {
            object,
            first_key: self.keys.len(),
            expects_key: object,
            index: 0,
            seen: 0,
            escapes: false,
            start,
            hashed: false,
        });
    }

    fn close(&mut self) {
        if let Some(frame) = self.frames.pop() {
            self.keys.truncate(frame.first_key);
            if self
                .sets
                .last()
                .is_some_and(|(depth, _)| *depth == self.frames.len())
            {
                self.sets.pop();
            }
        }
    }

    fn expects_key(&self) -> bool {
        self.frames.last().is_some_and(|frame| frame.expects_key)
    }

    fn next_member(&mut self) {
        if let Some(frame) = self.frames.last_mut() {
            frame.expects_key = frame.object;
            frame.index += 1;
        }
    }

    /// Adds a key to the innermost object: true when the object already has it.
    #[inline(always)]
    fn add_key(&mut self, key: Key) -> bool {
        let depth = self.frames.len() - 1;
        let frame = &mut self.frames[depth];
        frame.expects_key = false;
        if frame.hashed {
            let first = frame.first_key;
            self.keys[first] = key;
            return self.add_hashed(depth);
        }
        let first = frame.first_key;
        let bit =
            1u64 << ((key.head ^ key.length as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 58);
        let maybe_seen = frame.seen & bit != 0 || frame.escapes || key.escaped();
        frame.seen |= bit;
        frame.escapes |= key.escaped();
        // Pushed before it is compared, and read back from the stack by reference: a copy kept
        // aside for the comparisons was stored in parts and loaded whole, a stall on every key.
        self.keys.push(key);
        let twice = maybe_seen && self.seen_before(first);
        if !twice && self.keys.len() - first > LINEAR_KEYS {
            self.hash_keys(depth);
        }
        twice
    }

    /// The object at `depth` has passed LINEAR_KEYS keys: from now on they are kept as hashes.
    #[cold]
    fn hash_keys(&mut self, depth: usize) {
        let random = self.random.get_or_insert_with(RandomState::new).clone();
        let first = self.frames[depth].first_key;
        let set = self.keys[first..]
            .iter()
            .map(|&key| random.hash_one(&*self.key_bytes(key)))
            .collect();
        let last = self.keys[self.keys.len() - 1];
        self.keys.truncate(first);
        self.keys.push(last);
        self.frames[depth].hashed = true;
        self.sets.push((depth, set));
    }

    /// Adds the key in the one place on the stack of the object at `depth` (the innermost, its keys
    /// kept as hashes) to its hashes: true when it has the key.
    fn add_hashed(&mut self, depth: usize) -> bool {
        let key = self.keys[self.frames[depth].first_key];
        let random = self.random.as_ref().expect("made with the object's hashes");
        let hash = random.hash_one(&*self.key_bytes(key));
        let (_, set) = self.sets.last_mut().expect("the object's hashes");
        !set.insert(hash) && self.earlier_key(depth, key)
    }

    /// Whether the object at `depth` has `key` before it, read from its text: its hash was seen, so
    /// it is a key given twice, or (with a keyed 64-bit hash, as good as never) another key's twin.
    /// Text that is not JSON here says no: the parser reports it.
    #[cold]
    fn earlier_key(&self, depth: usize, key: Key) -> bool {
        /// Reads an object's members until one's key is the name (then `found`).
        struct Finds<'k>(&'k [u8], &'k std::cell::Cell<bool>);
        impl<'de> serde::de::Visitor<'de> for Finds<'_> {
            type Value = ();
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(self, mut map: M) -> Result<(), M::Error> {
                while let Some(name) = map.next_key::<String>()? {
                    if name.as_bytes() == self.0 {
                        self.1.set(true);
                        break;
                    }
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
                Ok(())
            }
        }
        // The object's text up to the key's opening quote: its members before it, each followed by a
        // comma (the reading ends with an error, found or not: the object does not end there).
        let before = &self.text[self.frames[depth].start..key.start - 1];
        let (name, found) = (self.key_bytes(key), std::cell::Cell::new(false));
        let mut deserializer = serde_json::Deserializer::from_slice(before);
        let _ = serde::Deserializer::deserialize_map(&mut deserializer, Finds(&name, &found));
        found.get()
    }

    /// Whether the last key on the stack is one of the keys from `first` before it.
    fn seen_before(&self, first: usize) -> bool {
        let (last, before) = self.keys[first..].split_last().expect("a key was pushed");
        before.iter().any(|other| self.same(other, last))
    }

    /// Whether two keys are the same string.
    fn same(&self, a: &Key, b: &Key) -> bool {
        if a.escaped() || b.escaped() {
            return self.key_bytes(*a) == self.key_bytes(*b);
        }
        a.length == b.length
            && a.head == b.head
            && (a.length <= 8 || self.text[a.span()] == self.text[b.span()])
    }

    /// A key as its string says it (UTF-8): its contents, decoded when it has escapes.
    fn key_bytes(&self, key: Key) -> Cow<'a, [u8]> {
        let span = key.span();
        let inner = &self.text[span.clone()];
        if !key.escaped() {
            return Cow::Borrowed(inner);
        }
        let quoted = &self.text[span.start - 1..(span.end + 1).min(self.text.len())];
        serde_json::from_slice::<String>(quoted)
            .map_or(Cow::Borrowed(inner), |text| Cow::Owned(text.into_bytes()))
    }

    /// The path of the member being read, in the notation of the engine's `field`s.
    #[cold]
    fn path(&self) -> String {
        let mut path = String::new();
        for (depth, frame) in self.frames.iter().enumerate() {
            if !frame.object {
                let _ = write!(path, "[{}]", frame.index);
                continue;
            }
            let last = self
                .frames
                .get(depth + 1)
                .map_or(self.keys.len(), |next| next.first_key);
            let bytes = match last > frame.first_key {
                true => self.key_bytes(self.keys[last - 1]),
                false => Cow::Borrowed(&b""[..]),
            };
            let key = String::from_utf8_lossy(&bytes);
            let plain = !key.is_empty()
                && key
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
            match (plain, path.is_empty()) {
                (true, true) => path.push_str(&key),
                (true, false) => {
                    let _ = write!(path, ".{key}");
                }
                (false, _) => {
                    let quoted = serde_json::to_string(key.as_ref()).expect("a string serializes");
                    let _ = write!(path, "[{quoted}]");
                }
            }
        }
        path
    }
}

/// What JSON text becomes as Python objects (CPython 3.11, 64-bit), in bytes, estimated from above:
/// each value's object and the reference its container keeps (`{}` is 72 bytes, a one-key object
/// 224, a number 40, a string 49 bytes and its characters at their width, 1, 2 or 4 bytes). The text
/// is read in full as JSON (`Err`: why it is not), without building anything; `None` once the
/// estimate passes `limit` (the reading stops there). It bounds what a route that reads a body as
/// Python objects makes of it, before it makes any: 8 MB of `{}` would be 190 MiB of dicts.
pub fn python_bytes(text: &[u8], limit: usize) -> Result<Option<usize>, String> {
    let mut footprint = Footprint { bytes: 0, limit };
    let mut deserializer = serde_json::Deserializer::from_slice(text);
    let read = serde::de::DeserializeSeed::deserialize(&mut footprint, &mut deserializer)
        .and_then(|()| deserializer.end());
    match read {
        Ok(()) => Ok(Some(footprint.bytes)),
        Err(_) if footprint.bytes > limit => Ok(None),
        Err(error) => Err(error.to_string()),
    }
}

/// The estimate of `python_bytes` so far; the reading fails once it passes `limit`.
struct Footprint {
    bytes: usize,
    limit: usize,
}

/// A reference to an object, kept by its container.
const REFERENCE: usize = 8;

impl Footprint {
    fn add<E: serde::de::Error>(&mut self, bytes: usize) -> Result<(), E> {
        self.bytes = self.bytes.saturating_add(bytes);
        match self.bytes > self.limit {
            true => Err(E::custom("past the limit")),
            false => Ok(()),
        }
    }

    fn string<E: serde::de::Error>(&mut self, text: &str) -> Result<(), E> {
        let bytes = match text.is_ascii() {
            true => 49 + text.len(),
            false => {
                let width = match text.chars().map(u32::from).max().unwrap_or(0) {
                    0..=0xFF => 1,
                    0x100..=0xFFFF => 2,
                    _ => 4,
                };
                80 + width * text.chars().count()
            }
        };
        self.add(REFERENCE + bytes)
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for &mut Footprint {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for &mut Footprint {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<(), E> {
        self.add(REFERENCE)
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
        self.add(REFERENCE)
    }
    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<(), E> {
        self.add(REFERENCE + 32)
    }
    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<(), E> {
        self.add(REFERENCE + 32)
    }
    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<(), E> {
        self.add(REFERENCE + 24)
    }
    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<(), E> {
        self.string(text)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.add(REFERENCE + 56)?;
        while seq.next_element_seed(&mut *self)?.is_some() {
            self.add(REFERENCE)?; // the list's slot
        }
        Ok(())
    }
    fn visit_map<M: serde::de::MapAccess<'de>>(self, mut map: M) -> Result<(), M::Error> {
        self.add(REFERENCE + 64)?;
        let mut first = true;
        while map.next_key_seed(&mut *self)?.is_some() {
            // A dict's table: about 40 bytes an entry, and 120 once it has one.
            self.add(if first { 160 } else { 40 })?;
            first = false;
            map.next_value_seed(&mut *self)?;
        }
        Ok(())
    }
}

/// The positions of the set bits of `mask`, counted from `first`, in order.
pub(crate) fn bits(mut mask: u64, first: usize) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        let bit = mask.trailing_zeros();
        mask &= mask.wrapping_sub(1);
        (bit < 64).then_some(first + bit as usize)
    })
}

/// The position after the last set bit of `mask` below bit `below` (`mask` has one there), counted
/// from `first`: where a string starts, from its block's opening quotes.
fn after_last(mask: u64, below: usize, first: usize) -> usize {
    let under = mask & u64::MAX.checked_shr(64 - below as u32).unwrap_or(0);
    first + (u64::BITS - under.leading_zeros()) as usize
}

/// Bit `i` set when an odd number of bits `0..=i` of `mask` are: between a string's opening quote
/// (set) and its closing one (clear), when the quotes are the block's only ones.
pub(crate) fn prefix_xor(mut mask: u64) -> u64 {
    for shift in [1, 2, 4, 8, 16, 32] {
        mask ^= mask << shift;
    }
    mask
}

/// Bytes classified at once.
pub(crate) const BLOCK: usize = 64;

/// The bytes of a block (its first `BLOCK` bytes, fewer at the end) that can matter to a scan of
/// JSON text (`batch::scan_items`, `duplicate_key`), bit `i` for byte `i`.
#[derive(Debug, PartialEq)]
pub(crate) struct Classes {
    pub quote: u64,
    pub backslash: u64,
    /// `,`, `[`, `]`, `{`, `}`.
    pub structural: u64,
    /// `]`, `}`.
    pub closing: u64,
    pub comma: u64,
}

impl Classes {
    pub fn of(bytes: &[u8]) -> Classes {
        let mut padded = [0u8; BLOCK]; // a zero byte is in no class
        let block = match bytes.get(..BLOCK) {
            Some(whole) => whole,
            None => {
                padded[..bytes.len()].copy_from_slice(bytes);
                &padded
            }
        };
        let mut classes = Classes {
            quote: 0,
            backslash: 0,
            structural: 0,
            closing: 0,
            comma: 0,
        };
        for (index, chunk) in block.chunks_exact(16).enumerate() {
            let chunk: &[u8; 16] = chunk.try_into().expect("16 bytes");
            let [quote, backslash, opening, closing, comma] = classes16(chunk).map(u64::from);
            classes.quote |= quote << (16 * index);
            classes.backslash |= backslash << (16 * index);
            classes.structural |= (opening | closing | comma) << (16 * index);
            classes.closing |= closing << (16 * index);
            classes.comma |= comma << (16 * index);
        }
        classes
    }
}

/// The quotes, backslashes, opening brackets, closing brackets and commas of 16 bytes, 16 comparisons
/// at a time (SSE2, always there on x86-64).
#[cfg(target_arch = "x86_64")]
fn classes16(chunk: &[u8; 16]) -> [u16; 5] {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
    };
    // SAFETY: SSE2 is part of every x86-64 CPU; the load reads the 16 bytes of `chunk`, unaligned.
    unsafe {
        let splat = |byte: u8| _mm_set1_epi8(byte as i8);
        let bytes = _mm_loadu_si128(chunk.as_ptr().cast());
        // `[` and `{`, `]` and `}` differ by the bit 0x20 alone.
        let folded = _mm_or_si128(bytes, splat(0x20));
        let opening = _mm_cmpeq_epi8(folded, splat(b'{'));
        let closing = _mm_cmpeq_epi8(folded, splat(b'}'));
        let comma = _mm_cmpeq_epi8(bytes, splat(b','));
        let mask = |hits| _mm_movemask_epi8(hits) as u16;
        [
            mask(_mm_cmpeq_epi8(bytes, splat(b'"'))),
            mask(_mm_cmpeq_epi8(bytes, splat(b'\\'))),
            mask(opening),
            mask(closing),
            mask(comma),
        ]
    }
}

/// `classes16` a byte at a time, where there is no SSE2.
#[cfg(any(not(target_arch = "x86_64"), test))]
fn classes16_bytewise(chunk: &[u8; 16]) -> [u16; 5] {
    let mask = |class: &dyn Fn(u8) -> bool| {
        (0..16).fold(0, |mask, index| {
            mask | u16::from(class(chunk[index])) << index
        })
    };
    [
        mask(&|byte| byte == b'"'),
        mask(&|byte| byte == b'\\'),
        mask(&|byte| matches!(byte, b'[' | b'{')),
        mask(&|byte| matches!(byte, b']' | b'}')),
        mask(&|byte| byte == b','),
    ]
}

#[cfg(not(target_arch = "x86_64"))]
fn classes16(chunk: &[u8; 16]) -> [u16; 5] {
    classes16_bytewise(chunk)
}

/// FNV-1a: a hash of a few cycles a byte for the keys of a large object (the standard hasher's keyed
/// SipHash costs more than the whole scan of a state; no adversary chooses what collides here more
/// cheaply than by sending the keys themselves, which a linear scan would compare anyway).
#[derive(Default)]
struct Fnv(u64);

impl Hasher for Fnv {
    fn write(&mut self, bytes: &[u8]) {
        let mut hash = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for &byte in bytes {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = hash;
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_are_found_in_every_lane_and_only_within_the_text() {
        for byte in 0..=255u8 {
            for lane in [0, 5, 15] {
                let mut chunk = [b'a'; 16];
                chunk[lane] = byte;
                assert_eq!(classes16(&chunk), classes16_bytewise(&chunk), "{byte}");
            }
        }
        let text = br#"{"a\\":[1,2]}, "x" "#;
        let of = |class: &[u8]| -> u64 {
            (0..text.len())
                .filter(|&at| class.contains(&text[at]))
                .map(|at| 1 << at)
                .sum()
        };
        let expected = Classes {
            quote: of(b"\""),
            backslash: of(b"\\"),
            structural: of(b",[]{}"),
            closing: of(b"]}"),
            comma: of(b","),
        };
        assert_eq!(Classes::of(text), expected);
        assert_eq!(Classes::of(b"").structural, 0);
        let long = [b','; 70];
        assert_eq!(Classes::of(&long).structural, u64::MAX);
        assert_eq!(Classes::of(&long[..63]).structural, u64::MAX >> 1);
        assert_eq!(prefix_xor(0b1000_0100), 0b0111_1100);
        assert_eq!(prefix_xor(1 << 63 | 1), u64::MAX >> 1);
    }

    #[test]
    fn json_without_a_key_twice_has_no_fault() {
        for text in [
            r#"{}"#,
            r#"[]"#,
            r#"{"a": 1, "b": {"a": 2, "b": [{"a": 3}, {"a": 4}]}}"#,
            r#"{"a\"b": 1, "a": 2, "b": "\"a\": 3, \"a\": 4"}"#,
            r#"[{"a": 1}, {"a": 1}]"#,
            r#""{\"a\":1,\"a\":2}""#,
        ] {
            assert_eq!(fault(text), None, "{text}");
        }
    }

    #[test]
    fn a_key_twice_is_named_by_its_path() {
        for (text, path) in [
            (r#"{"move": "e4", "move": "e5"}"#, "move"),
            (
                r#"{"state": {"board": [], "to_move": 1, "board": []}}"#,
                "state.board",
            ),
            (
                r#"{"a": [1, {"b": {"c": 1}}, {"b": {"c": 1, "c": 2}}]}"#,
                "a[2].b.c",
            ),
            (r#"{"pawns": {"red": [], "red": []}}"#, "pawns.red"),
            (r#"[[], [{"x": 1, "y": 2, "x": 3}]]"#, "[1][0].x"),
            (r#"{"a b": {"k": 1, "k": 1}}"#, r#"["a b"].k"#),
        ] {
            assert_eq!(
                fault(text),
                Some(format!("duplicate key at {path}")),
                "{text}"
            );
        }
    }

    #[test]
    fn keys_are_compared_as_their_strings_say_them() {
        assert_eq!(
            fault(r#"{"board": 1, "bo\u0061rd": 2}"#).as_deref(),
            Some("duplicate key at board")
        );
        assert_eq!(fault(r#"{"a\\": 1, "a": 2}"#), None);
    }

    #[test]
    fn strings_and_escapes_are_followed_across_blocks() {
        let long = "],{[}\\\"".repeat(20);
        for padding in 0..(2 * BLOCK) {
            let pad = " ".repeat(padding);
            let distinct =
                format!(r#"{{{pad}"k\"x":1,"v":"{long}","k\\":[{{"k\"x":"}}"}}],"k\"y":2}}"#);
            assert_eq!(fault(&distinct), None, "{padding}");
            let twice = format!(r#"{{{pad}"k\"x":1,"v":"{long}","{{\"":[],"k\"x":2}}"#);
            assert_eq!(
                fault(&twice).as_deref(),
                Some(r#"duplicate key at ["k\"x"]"#),
                "{padding}"
            );
        }
    }

    #[test]
    fn keys_and_values_are_found_across_blocks_without_escapes() {
        // No backslash: every block is read from its quotes alone, strings of every length
        // crossing every block edge, keys opened in one block and closed in the next.
        for padding in 0..(2 * BLOCK) {
            let pad = "p".repeat(padding);
            let value = "v".repeat(padding % 70);
            let distinct = format!(
                r#"{{"{pad}":"{value}","key":{{"{value}k":[1,"{{"],"key":"}}"}},"k{value}":{{"key":1}}}}"#
            );
            assert_eq!(fault(&distinct), None, "{distinct}");
            let twice = format!(r#"{{"{pad}":"{value}","a":{{"{value}k":1,"{value}k":2}}}}"#);
            let path = match value.is_empty() {
                true => "a.k".to_owned(),
                false => format!("a.{value}k"),
            };
            assert_eq!(
                fault(&twice),
                Some(format!("duplicate key at {path}")),
                "{twice}"
            );
        }
    }

    #[test]
    fn many_keys_are_compared_through_a_set() {
        let members: Vec<String> = (0..1000).map(|k| format!("\"k{k}\": {k}")).collect();
        let distinct = format!("{{{}}}", members.join(","));
        assert_eq!(fault(&distinct), None);
        let twice = format!("{{{}, \"k500\": 0}}", members.join(","));
        assert_eq!(fault(&twice).as_deref(), Some("duplicate key at k500"));
        // Escapes are compared as their strings say them; nested objects after and inside a large one
        // are named by their paths (its last key kept for them).
        let escaped = format!("{{{}, \"k\\u0035\": 0}}", members.join(","));
        assert_eq!(fault(&escaped).as_deref(), Some("duplicate key at k5"));
        let inside = format!("{{{}, \"in\": {{\"a\": 1, \"a\": 2}}}}", members.join(","));
        assert_eq!(fault(&inside).as_deref(), Some("duplicate key at in.a"));
        let after = format!("{{\"big\": {{{}}}, \"x\": 1, \"x\": 2}}", members.join(","));
        assert_eq!(fault(&after).as_deref(), Some("duplicate key at x"));
        let nested = format!(
            "[{{\"big\": {{{}, \"k999\": [], \"z\": 1}}}}]",
            members.join(",")
        );
        assert_eq!(
            fault(&nested).as_deref(),
            Some("duplicate key at [0].big.k999")
        );
    }

    #[test]
    fn text_that_is_not_json_gets_the_parsers_error() {
        // The scan sees `a` twice, but the text is cut short: the syntax error is the fault.
        let fault = fault(r#"{"a": 1, "a": "#).expect("a fault");
        assert!(fault.starts_with("EOF while parsing"), "{fault}");
        assert_eq!(super::fault(r#"{"a": 1,"#), None); // left to the readers' parse
    }

    #[test]
    fn python_bytes_are_estimated_from_above_and_stop_past_the_limit() {
        let of = |text: &str| python_bytes(text.as_bytes(), usize::MAX).unwrap().unwrap();
        assert_eq!(of("{}"), 72);
        assert_eq!(of("[]"), 64);
        assert_eq!(of(r#""abc""#), 8 + 49 + 3);
        assert_eq!(of(r#""\ud83d\ude00""#), 8 + 80 + 4);
        assert_eq!(of("[{}, 1, 1.5, null]"), 64 + 4 * 8 + 72 + 40 + 32 + 8);
        assert!(of(r#"{"a": 1}"#) >= 184 + 50 + 36);
        let empties = format!("[{}{{}}]", "{},".repeat(100_000));
        assert_eq!(python_bytes(empties.as_bytes(), 1 << 20), Ok(None));
        assert_eq!(of(&empties), 64 + 100_001 * 80);
        for not_json in ["[1,", r#"{"a" 1}"#, "1e400", r#""\ud800""#, "[] []"] {
            assert!(
                python_bytes(not_json.as_bytes(), usize::MAX).is_err(),
                "{not_json}"
            );
        }
        let deep = "[".repeat(200) + &"]".repeat(200);
        assert!(python_bytes(deep.as_bytes(), usize::MAX).is_err());
    }

    #[test]
    fn deep_nesting_is_left_to_the_parser() {
        let deep = "[".repeat(100_000);
        assert_eq!(fault(&deep), None);
        let deep_twice = format!("{}{{\"a\":1,\"a\":2}}", "[".repeat(200));
        assert_eq!(fault(&deep_twice), None);
    }
}
