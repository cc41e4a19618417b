//! Batches as JSON text: many (state, move) items validated in parallel, as NDJSON lines or a JSON array.
//!
//! Input and output stay JSON bytes, so that a batch crosses the Python boundary once as one buffer and
//! the parsing runs in parallel with the rules (converting Python objects needs the GIL; bytes do not).
//! Each item is read as one request is (`request`).

use std::io::Write as _;

use rayon::prelude::*;
use serde::Serialize;

use crate::engine::Engine;
use crate::error::Error;
use crate::game::{Rules, Verdict};
use crate::json::{bits, prefix_xor, syntax_error, Classes, BLOCK};
use crate::request::{take_item, Judged, Taken};

/// A line of NDJSON input that is not JSON: the batch stops there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MalformedLine {
    /// 1-based line number within the input given.
    pub line: usize,
    pub detail: String,
}

/// The results of the lines before the first malformed one (all of them when none is), as NDJSON.
#[derive(Debug, Default)]
pub struct Output {
    pub ndjson: Vec<u8>,
    pub items: usize,
    pub malformed: Option<MalformedLine>,
    /// Bytes of the input read: through the last line judged (all of it unless `max_lines` stopped
    /// the judging before its end).
    pub consumed: usize,
}

/// The non-blank lines of NDJSON input with their 1-based line numbers.
pub(crate) fn lines(data: &[u8]) -> Vec<(usize, &[u8])> {
    numbered_lines(data)
        .map(|(number, line, _)| (number, line))
        .collect()
}

/// The non-blank lines of NDJSON input with their 1-based line numbers and where each ends (past its
/// newline).
fn numbered_lines(data: &[u8]) -> impl Iterator<Item = (usize, &[u8], usize)> {
    let (mut start, mut number) = (0, 0);
    std::iter::from_fn(move || {
        (start <= data.len()).then(|| {
            let end = next_newline(data, start).unwrap_or(data.len());
            let line = &data[start..end];
            number += 1;
            start = end + 1;
            (
                number,
                line.strip_suffix(b"\r").unwrap_or(line),
                start.min(data.len()),
            )
        })
    })
    .filter(|(_, line, _)| !line.iter().all(u8::is_ascii_whitespace))
}

/// Where the next `\n` is from byte `from`, found by `memchr` (vector instructions; a byte-by-byte
/// search cost an archive's records a few percent of their time).
fn next_newline(data: &[u8], from: usize) -> Option<usize> {
    memchr::memchr(b'\n', &data[from..]).map(|offset| from + offset)
}

/// How `validate_lines` answers.
#[derive(Debug, Clone, Copy)]
pub struct LinesAnswer {
    /// Every result with its next state (a legal move's).
    pub with_state: bool,
    /// The `index` of the first line's result.
    pub first_index: usize,
    /// A result equal (but for its index) to that of the last item written in full is written
    /// `{"index":N,"same_as":M}`, M that item's index (`{"index":N,"legal":true}` is always written
    /// so): a stream of items that fail alike answers a few bytes an item, not a whole problem each.
    pub compact: bool,
    /// Most lines judged (the rest of the input is left, and `consumed` says where it starts): what
    /// one call answers stays bounded however small the lines.
    pub max_lines: usize,
}

impl Default for LinesAnswer {
    fn default() -> Self {
        LinesAnswer {
            with_state: false,
            first_index: 0,
            compact: false,
            max_lines: usize::MAX,
        }
    }
}

/// Validates NDJSON items (`{"state", "move", "player"?, "secret"?}` a line), one result a line in input order,
/// each with its `index` (counted from `first_index`). A bad item gets an error result and never fails
/// its neighbours; a line that is not JSON stops the batch there. With `keys`, every state must carry
/// a valid seal and every next state is sealed.
pub fn validate_lines<G: Rules>(data: &[u8], engine: &Engine<G>, answer: LinesAnswer) -> Output {
    let lines: Vec<(usize, &[u8], usize)> = numbered_lines(data).take(answer.max_lines).collect();
    let chunks: Vec<(Vec<u8>, usize, Option<MalformedLine>)> = lines
        .par_chunks(ITEMS_PER_TASK)
        .enumerate()
        .map(|(task, chunk)| {
            let mut out = Vec::with_capacity(chunk.len() * RESULT_BYTES);
            let mut last_full = None;
            for (offset, &(line, text, _)) in chunk.iter().enumerate() {
                let index = answer.first_index + task * ITEMS_PER_TASK + offset;
                let start = out.len();
                let written = std::str::from_utf8(text)
                    .map_err(|e| e.to_string())
                    .and_then(|text| {
                        write_result::<G>(&mut out, text, engine, index, answer.with_state)
                    });
                if let Err(detail) = written {
                    return (out, offset, Some(MalformedLine { line, detail }));
                }
                if answer.compact {
                    last_full = compacted(&mut out, start, index, last_full);
                }
                out.push(b'\n');
            }
            (out, chunk.len(), None)
        })
        .collect();
    let mut output = Output::default();
    for (bytes, items, malformed) in chunks {
        output.ndjson.extend_from_slice(&bytes);
        output.items += items;
        if malformed.is_some() {
            output.malformed = malformed;
            break;
        }
    }
    output.consumed = match (&output.malformed, lines.len() < answer.max_lines) {
        (None, true) => data.len(),
        _ => lines
            .get(output.items)
            .or(lines.last())
            .map_or(0, |&(_, _, end)| end),
    };
    output
}

/// The fields of a legal verdict without its next state.
const LEGAL_FIELDS: &[u8] = b"\"legal\":true}";

/// The result just written at `start` of `out` (`{"index":N,...}`), rewritten `{"index":N,"same_as":M}`
/// when it equals the last full one (but for the index), is longer, and is not a bare legal verdict;
/// the last full result after it (its index, and where its fields start and end in `out`).
fn compacted(
    out: &mut Vec<u8>,
    start: usize,
    index: usize,
    last_full: Option<(usize, std::ops::Range<usize>)>,
) -> Option<(usize, std::ops::Range<usize>)> {
    let fields = start + out[start..].iter().position(|&b| b == b',')? + 1;
    let same = last_full
        .as_ref()
        .is_some_and(|(_, range)| out[range.clone()] == out[fields..]);
    // A legal verdict without a state is as short as its reference: clients count it as it is.
    if !same || out[fields..] == *LEGAL_FIELDS {
        return Some((index, fields..out.len()));
    }
    let (full_index, range) = last_full.expect("a full result is kept");
    let mut short = Vec::with_capacity(24);
    let _ = write!(short, "\"same_as\":{full_index}}}");
    if short.len() < out.len() - fields {
        out.truncate(fields);
        out.extend_from_slice(&short);
    }
    Some((full_index, range))
}

/// Items judged by one parallel task: enough that a task's own buffer replaces a buffer per item.
const ITEMS_PER_TASK: usize = 256;
/// Room for a typical result (`{"index":12345,"legal":false,"reason":{...}}`).
const RESULT_BYTES: usize = 160;

/// Validates a JSON array of at most `max_items` items; the results as a JSON array in input order,
/// and their count. `Err` says why when the input is not such an array. `keys` as `validate_lines`.
pub fn validate_array<G: Rules>(
    data: &[u8],
    engine: &Engine<G>,
    with_state: bool,
    max_items: usize,
) -> Result<ArrayResults, Error> {
    let text = std::str::from_utf8(data).map_err(Error::not_json)?;
    // Items past the limit are counted, not kept: 8 MB of `{}` are 2.7 million of them.
    let (items, count) = items_within(text, max_items.saturating_add(1)).map_err(|detail| {
        match syntax_error(text) {
            Some(syntax) => Error::not_json(syntax),
            None => Error::malformed_field("body", format!("not a JSON array of items: {detail}")),
        }
    })?;
    if count > max_items {
        let message = format!("more than {max_items} items");
        let detail = format!("a batch has at most {max_items} items, this one has {count}");
        return Err(Error::malformed_request_detail(
            vec![("body".into(), message)],
            detail,
        ));
    }
    let chunks: Vec<Vec<u8>> = items
        .par_chunks(ITEMS_PER_TASK)
        .enumerate()
        .map(|(task, chunk)| {
            let mut out = Vec::with_capacity(chunk.len() * RESULT_BYTES);
            for (offset, item) in chunk.iter().enumerate() {
                let index = task * ITEMS_PER_TASK + offset;
                if index > 0 {
                    out.push(b',');
                }
                write_result::<G>(&mut out, item, engine, index, with_state)
                    .map_err(|detail| Error::not_json(format!("item {index}: {detail}")))?;
            }
            Ok(out)
        })
        .collect::<Result<_, Error>>()?;
    Ok(ArrayResults {
        parts: chunks,
        items: items.len(),
    })
}

/// A batch's results, a JSON array, as the parallel tasks wrote them (each task's results, with
/// the commas between): copied once, into whatever holds the answer (a Python `bytes`), not joined
/// into a buffer of their own first.
#[derive(Debug)]
pub struct ArrayResults {
    parts: Vec<Vec<u8>>,
    /// How many results.
    pub items: usize,
}

impl ArrayResults {
    /// The array's length in bytes, brackets included.
    pub fn byte_len(&self) -> usize {
        self.parts.iter().map(Vec::len).sum::<usize>() + 2
    }

    /// Writes the array into `out`, `byte_len()` bytes: the parts copied in parallel.
    pub fn write_into(&self, out: &mut [u8]) {
        let (open, rest) = out.split_first_mut().expect("room for the array");
        let (close, mut rest) = rest.split_last_mut().expect("room for the array");
        (*open, *close) = (b'[', b']');
        let mut places = Vec::with_capacity(self.parts.len());
        for part in &self.parts {
            let (place, after) = rest.split_at_mut(part.len());
            places.push((place, part));
            rest = after;
        }
        places
            .into_par_iter()
            .for_each(|(place, part)| place.copy_from_slice(part));
    }

    /// The array as one buffer.
    pub fn into_vec(self) -> Vec<u8> {
        let mut out = vec![0; self.byte_len()];
        self.write_into(&mut out);
        out
    }
}

/// The items of a JSON array, as text. One pass finds where each item ends by following strings and
/// nesting only; whether each item is JSON is checked as it is parsed, in parallel. (Parsing the whole
/// array first would run on one core ahead of the parallel work, a fifth of a large batch's time.)
/// The array is JSON exactly when every item is: items are what lies between its top-level commas.
///
/// A large array's second half is scanned on another core from a likely boundary between items
/// (`},{` past the middle); that scan is kept only if the first half's scan reaches the same comma
/// outside every string and nesting, where the two scans are the one pass in two parts. Otherwise
/// the first scan goes on to the end alone.
#[cfg(test)]
fn array_items(text: &str) -> Result<Vec<&str>, String> {
    items_within(text, usize::MAX).map(|(items, _)| items)
}

/// `array_items`, keeping at most `keep` items: the items kept, and how many there are.
fn items_within(text: &str, keep: usize) -> Result<(Vec<&str>, usize), String> {
    let body = text.trim_start_matches(WHITESPACE);
    let at = text.len() - body.len();
    if !body.starts_with('[') {
        return Err(format!("expected `[` at byte {at}"));
    }
    let middle = text.len() / 2;
    let split = (text.len() >= SPLIT_SCAN_BYTES)
        .then(|| {
            text.as_bytes()[middle..]
                .windows(3)
                .position(|w| w == b"},{")
        })
        .flatten()
        .map(|offset| middle + offset + 1);
    let Some(comma) = split else {
        return scan_kept(text, at + 1, None, true, keep).map(|(items, count, _)| (items, count));
    };
    let (first, second) = rayon::join(
        || scan_kept(text, at + 1, Some(comma), true, keep),
        || scan_kept(text, comma + 1, None, false, keep),
    );
    match first? {
        (mut items, count, true) => {
            let (more, more_count, _) = second?;
            items.extend(more.into_iter().take(keep.saturating_sub(items.len())));
            Ok((items, count + more_count))
        }
        (items, count, false) => Ok((items, count)),
    }
}

/// JSON's whitespace.
const WHITESPACE: &[char] = &[' ', '\t', '\n', '\r'];

/// Arrays of this many bytes or more are scanned in two halves at once.
const SPLIT_SCAN_BYTES: usize = 1 << 20;

/// `array_items`' pass from byte `at`, outside any string or nesting, just after the array's `[`
/// (`first`) or after a top-level comma: the items to the end of the array, or (and `true`) those
/// up to the top-level comma at byte `stop` when the pass meets it. The bytes are classified a
/// block at a time (`Classes`); in a block without a backslash, where strings are is found from
/// its quotes alone, and only the commas and brackets outside strings are looked at one by one.
#[cfg(test)]
fn scan_items(
    text: &str,
    at: usize,
    stop: Option<usize>,
    first: bool,
) -> Result<(Vec<&str>, bool), String> {
    scan_kept(text, at, stop, first, usize::MAX).map(|(items, _, stopped)| (items, stopped))
}

/// `scan_items`, keeping at most `keep` items and counting them all: the items kept, how many there
/// are, and whether the pass met `stop`.
fn scan_kept(text: &str, at: usize, stop: Option<usize>, first: bool, keep: usize) -> Scanned<'_> {
    let bytes = text.as_bytes();
    let mut cut = Cut {
        text,
        stop,
        first,
        items: Vec::new(),
        keep,
        count: 0,
        start: at,
        depth: 0,
    };
    let mut in_string = false;
    // Bytes before this one are taken (an escaped byte in a string).
    let mut next = at;
    let mut block = at;
    while block < bytes.len() {
        let classes = Classes::of(&bytes[block..]);
        if classes.backslash == 0 && next <= block {
            let inside = prefix_xor(classes.quote) ^ if in_string { u64::MAX } else { 0 };
            in_string ^= classes.quote.count_ones() % 2 == 1;
            let (structural, closing) = (classes.structural & !inside, classes.closing & !inside);
            if cut.depth > closing.count_ones() as usize {
                // Nested all through the block: no item ends in it, only the depth changes.
                let opening = structural & !closing & !classes.comma;
                cut.depth += opening.count_ones() as usize;
                cut.depth -= closing.count_ones() as usize;
                block += BLOCK;
                continue;
            }
            for at in bits(structural, block) {
                if let Some(done) = cut.structural(at) {
                    return done;
                }
            }
        } else {
            let special = classes.quote | classes.backslash | classes.structural;
            for at in bits(special, block) {
                if at < next {
                    continue;
                }
                match (in_string, bytes[at]) {
                    (true, b'"') => in_string = false,
                    (true, b'\\') => next = at + 2,
                    (true, _) => {}
                    (false, b'"') => in_string = true,
                    (false, b'\\') => {} // outside a string: the item's parse refuses it
                    (false, _) => {
                        if let Some(done) = cut.structural(at) {
                            return done;
                        }
                    }
                }
            }
        }
        block += BLOCK;
    }
    Err("the array does not end".to_owned())
}

/// The items `scan_items` has cut so far, and where it stands outside strings.
struct Cut<'a> {
    text: &'a str,
    stop: Option<usize>,
    first: bool,
    items: Vec<&'a str>,
    /// The most items kept; how many there are so far.
    keep: usize,
    count: usize,
    /// Where the item under way starts.
    start: usize,
    depth: usize,
}

/// What `scan_kept` answers.
type Scanned<'a> = Result<(Vec<&'a str>, usize, bool), String>;

impl<'a> Cut<'a> {
    /// A comma, bracket or brace outside strings at byte `at`; `Some` when the scan ends there.
    fn structural(&mut self, at: usize) -> Option<Scanned<'a>> {
        let byte = self.text.as_bytes()[at];
        match byte {
            b'[' | b'{' => self.depth += 1,
            b']' | b'}' if self.depth > 0 => self.depth -= 1,
            b',' | b']' if self.depth == 0 => return self.item_end(at, byte == b']'),
            b'}' => return Some(Err(format!("unexpected `}}` at byte {at}"))),
            _ => {}
        }
        None
    }

    /// A top-level comma, or the array's `]` (`last`), at byte `at`.
    fn item_end(&mut self, at: usize, last: bool) -> Option<Scanned<'a>> {
        let item = self.text[self.start..at].trim_matches(WHITESPACE);
        if item.is_empty() && !(last && self.first && self.count == 0) {
            return Some(Err(format!("expected a value before byte {at}")));
        }
        if !item.is_empty() {
            if self.count < self.keep {
                self.items.push(item);
            }
            self.count += 1;
        }
        if last {
            let rest = self.text[at + 1..].trim_matches(WHITESPACE);
            let items = std::mem::take(&mut self.items);
            return Some(match rest.is_empty() {
                true => Ok((items, self.count, false)),
                false => Err(format!("trailing characters after byte {at}")),
            });
        }
        if self.stop == Some(at) {
            return Some(Ok((std::mem::take(&mut self.items), self.count, true)));
        }
        self.start = at + 1;
        None
    }
}

/// Writes one item's result as JSON, `index` first; `Err` (with nothing written) says why the item is
/// not JSON. The common answers (legal without the state, a refusal, an error of the move) are
/// written straight, without a tree of JSON values.
fn write_result<G: Rules>(
    out: &mut Vec<u8>,
    item: &str,
    engine: &Engine<G>,
    index: usize,
    with_state: bool,
) -> Result<(), String> {
    let ((position, form), mv, player, secret) = match take_item::<G>(item, "item", engine) {
        Taken::NotJson(detail) => return Err(detail),
        Taken::Refused(error) => {
            write_indexed(
                out,
                index,
                &Failed {
                    error: error.reason_out(),
                },
            );
            return Ok(());
        }
        Taken::Item(position, mv, player, secret) => (position, mv, player, secret),
    };
    match engine.validate(&position, &form, &mv, player.as_deref(), secret.as_deref()) {
        Ok(Verdict::Legal {
            position: next,
            effects,
        }) if with_state => {
            // A batch item's verdict: `legal` beside the `play` answer's fields.
            let mut played = serde_json::json!(engine.played(&position, &next, effects, &form));
            played["legal"] = serde_json::Value::Bool(true);
            write_indexed(out, index, &played);
        }
        Ok(Verdict::Legal { .. }) => write_indexed(out, index, &Judged::Legal),
        Ok(Verdict::Illegal(error)) => write_indexed(out, index, &Judged::Illegal(error)),
        Err(error) => write_indexed(
            out,
            index,
            &Failed {
                error: error.reason_out(),
            },
        ),
    }
    Ok(())
}

/// An item that could not be judged (a malformed envelope, a state refused, the mover's secret missing, a
/// player the game does not have): why.
#[derive(Serialize)]
struct Failed<R> {
    error: R,
}

/// Writes `{"index":N,` and then the fields of `result`, a JSON object (its own `{` left out).
fn write_indexed<T: Serialize>(out: &mut Vec<u8>, index: usize, result: &T) {
    // The number through serde_json's integer writer, not the formatting machinery.
    out.extend_from_slice(b"{\"index\":");
    serde_json::to_writer(&mut *out, &index).expect("a number serializes");
    out.push(b',');
    let start = out.len();
    serde_json::to_writer(&mut *out, result).expect("a result serializes");
    out.remove(start);
}

#[cfg(test)]
pub(crate) mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::game;
    use crate::iago::Iago;
    use crate::keys::SealKeys;
    use serde_json::Value;

    pub(crate) fn setup() -> &'static game::CheckedSetup<<Iago as Rules>::Setup> {
        static SETUP: std::sync::OnceLock<game::CheckedSetup<<Iago as Rules>::Setup>> =
            std::sync::OnceLock::new();
        SETUP.get_or_init(game::default_setup::<Iago>)
    }

    /// An engine of the default setup, with `keys` or none.
    pub(crate) fn engine(keys: Option<&Arc<SealKeys>>) -> Engine<Iago> {
        Engine::new(setup().clone(), keys.cloned())
    }

    pub(crate) fn start() -> String {
        let position = Iago::start(setup(), None, None);
        serde_json::to_string(&game::StateOf::<Iago>(&position)).unwrap()
    }

    #[test]
    fn lines_are_every_non_blank_line_with_its_number() {
        // Every length and place of lines, blank ones, carriage returns and bytes near `\n` (0x0a):
        // compared with the lines of a byte-by-byte split.
        let mut seed = 7u64;
        for _ in 0..2000 {
            let mut data = Vec::new();
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            for index in 0..(seed >> 58) {
                let byte = [b'\n', b'\r', b' ', b'a', 0x0b, 0x8a, 0x09]
                    [((seed >> (index % 50)) % 7) as usize];
                data.push(byte);
            }
            let expected: Vec<(usize, &[u8])> = data
                .split(|&byte| byte == b'\n')
                .enumerate()
                .map(|(index, line)| (index + 1, line.strip_suffix(b"\r").unwrap_or(line)))
                .filter(|(_, line)| !line.iter().all(u8::is_ascii_whitespace))
                .collect();
            assert_eq!(lines(&data), expected, "{data:?}");
        }
    }

    pub(crate) fn ndjson_values(ndjson: &[u8]) -> Vec<Value> {
        ndjson
            .split(|&b| b == b'\n')
            .filter(|line| !line.is_empty())
            .map(|line| serde_json::from_slice(line).unwrap())
            .collect()
    }

    #[test]
    fn lines_keep_order_and_stop_at_a_malformed_line() {
        let state = start();
        let input = format!(
            "{{\"state\":{state},\"move\":\"e4\"}}\n\n{{\"state\":{state},\"move\":\"e5\"}}\n{{\"move\":7}}\nnot json\n{{\"state\":{state},\"move\":\"e5\"}}\n"
        );
        let answer = LinesAnswer {
            first_index: 10,
            ..LinesAnswer::default()
        };
        let output = validate_lines::<Iago>(input.as_bytes(), &engine(None), answer);
        let results = ndjson_values(&output.ndjson);
        assert_eq!(output.items, 3);
        assert_eq!(results[0]["index"], 10);
        assert_eq!(results[0]["legal"], true);
        assert_eq!(results[1]["legal"], false);
        assert_eq!(results[1]["reason"]["code"], "illegal-move");
        assert_eq!(results[2]["error"]["code"], "malformed-request");
        let fields: Vec<&str> = results[2]["error"]["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["field"].as_str().unwrap())
            .collect();
        assert_eq!(fields, ["state", "move"]);
        assert_eq!(output.malformed.as_ref().map(|m| m.line), Some(5));
    }

    #[test]
    fn compact_lines_name_the_last_full_result_they_repeat() {
        let state = start();
        let legal = format!("{{\"state\":{state},\"move\":\"e4\"}}");
        let input = ["{}", "{}", "{}", &legal, &legal, "{}", "[]", "[]", "{}"].join("\n");
        let plain = validate_lines::<Iago>(input.as_bytes(), &engine(None), LinesAnswer::default());
        let answer = LinesAnswer {
            compact: true,
            ..LinesAnswer::default()
        };
        let compact = validate_lines::<Iago>(input.as_bytes(), &engine(None), answer);
        let same_as: Vec<Option<u64>> = ndjson_values(&compact.ndjson)
            .iter()
            .map(|result| result.get("same_as").map(|m| m.as_u64().unwrap()))
            .collect();
        // A bare legal verdict stays whole (but it is the last full result when it comes).
        let expected = [
            None,
            Some(0),
            Some(0),
            None,
            None,
            None,
            None,
            Some(6),
            None,
        ];
        assert_eq!(same_as, expected.to_vec());
        // Every compact line stands for exactly its reference's result.
        let full = ndjson_values(&plain.ndjson);
        for (index, result) in ndjson_values(&compact.ndjson).iter().enumerate() {
            let reference = result
                .get("same_as")
                .map_or(index, |m| m.as_u64().unwrap() as usize);
            let mut expected = full[reference].clone();
            expected["index"] = index.into();
            assert_eq!(full[index], expected, "line {index}");
        }
        assert!(compact.ndjson.len() < plain.ndjson.len());
        let alike = "{}\n".repeat(1000);
        let plain = validate_lines::<Iago>(alike.as_bytes(), &engine(None), LinesAnswer::default());
        let compact = validate_lines::<Iago>(alike.as_bytes(), &engine(None), answer);
        assert_eq!(compact.items, 1000);
        assert!(compact.ndjson.len() * 8 < plain.ndjson.len());
    }

    #[test]
    fn at_most_max_lines_are_judged_and_the_rest_is_left() {
        let input = "{}\n\n{}\r\n{}\n\n{}";
        let answer = |max_lines| LinesAnswer {
            max_lines,
            ..LinesAnswer::default()
        };
        let two = validate_lines::<Iago>(input.as_bytes(), &engine(None), answer(2));
        assert_eq!((two.items, two.consumed), (2, "{}\n\n{}\r\n".len()));
        let rest = &input.as_bytes()[two.consumed..];
        let after = validate_lines::<Iago>(rest, &engine(None), answer(2));
        assert_eq!((after.items, after.consumed), (2, rest.len()));
        let all = validate_lines::<Iago>(input.as_bytes(), &engine(None), answer(9));
        assert_eq!((all.items, all.consumed), (4, input.len()));
    }
    #[test]
    fn an_array_gives_an_array_in_order() {
        let state = start();
        let input = format!(
            "[{{\"state\":{state},\"move\":\"e4\"}}, 3, {{\"state\":{{}},\"move\":\"e5\"}}]"
        );
        let results: Vec<Value> = serde_json::from_slice(
            &validate_array::<Iago>(input.as_bytes(), &engine(None), true, 3)
                .unwrap()
                .into_vec(),
        )
        .unwrap();
        assert_eq!(results.len(), 3);
        assert_eq!(results[0]["legal"], true);
        assert!(results[0]["state"].is_object());
        assert_eq!(results[1]["error"]["errors"][0]["field"], "item");
        assert_eq!(results[2]["error"]["code"], "invalid-state");
        assert!(validate_array::<Iago>(b"{}", &engine(None), false, 3).is_err());
        assert!(validate_array::<Iago>(input.as_bytes(), &engine(None), false, 2).is_err());
    }
    /// The parallel tasks' parts are copied into one array, in order, each result once.
    #[test]
    fn the_parts_of_a_large_array_join_in_order() {
        let state = start();
        let count = 3 * ITEMS_PER_TASK + 5;
        let items: Vec<String> = (0..count)
            .map(|i| {
                let mv = if i % 3 == 0 { "e4" } else { "a1" };
                format!("{{\"state\":{state},\"move\":\"{mv}\"}}")
            })
            .collect();
        let input = format!("[{}]", items.join(","));
        let results =
            validate_array::<Iago>(input.as_bytes(), &engine(None), false, count).unwrap();
        assert_eq!(results.items, count);
        let results: Vec<Value> = serde_json::from_slice(&results.into_vec()).unwrap();
        for (index, result) in results.iter().enumerate() {
            assert_eq!(result["index"], index);
            assert_eq!(result["legal"], index % 3 == 0);
        }
        assert_eq!(results.len(), count);
    }

    #[test]
    fn array_items_follow_strings_and_nesting() {
        assert_eq!(array_items(" [ ] ").unwrap(), Vec::<&str>::new());
        assert_eq!(
            array_items(r#"[ {"a": "x,]\"}"} , [1,[2]] ,3]"#).unwrap(),
            [r#"{"a": "x,]\"}"}"#, "[1,[2]]", "3"]
        );
        for bad in ["", "{}", "[", "[1,]", "[,1]", "[1] x", "[1}", r#"["abc]"#] {
            assert!(array_items(bad).is_err(), "{bad}");
        }
        // Items are cut at top-level commas only; each is parsed later, which finds `[1 2]` is no JSON.
        assert_eq!(array_items("[1 2]").unwrap(), ["1 2"]);
        let refused = validate_array::<Iago>(b"[1 2]", &engine(None), false, 10)
            .unwrap_err()
            .reason();
        assert_eq!(refused["code"], "malformed-json");
        assert!(refused["detail"].as_str().unwrap().contains("item 0"));
        // JSON that is no array is a malformed request; text that is no JSON, malformed JSON.
        let refused = validate_array::<Iago>(b"{}", &engine(None), false, 10)
            .unwrap_err()
            .reason();
        assert_eq!(refused["code"], "malformed-request");
        assert_eq!(refused["errors"][0]["field"], "body");
        let refused = validate_array::<Iago>(b"{bad", &engine(None), false, 10)
            .unwrap_err()
            .reason();
        assert_eq!(refused["code"], "malformed-json");
    }
    #[test]
    fn escapes_and_brackets_in_strings_are_followed_across_blocks() {
        let long = format!(r#"{{"long":"{}"}}"#, "],{[}".repeat(30));
        let items = [
            r#"{"a":"x\\\"],{"}"#,
            r#"["\\",{"b":"]"}]"#,
            r#""\"\\\\""#,
            &long,
        ];
        for padding in 0..(2 * BLOCK) {
            let text = format!("[{}{}]", " ".repeat(padding), items.join(" ,"));
            let found = array_items(&text).unwrap();
            assert_eq!(found, items, "{padding}");
            let cut = &text[..text.len() - 2 - padding % 5];
            assert!(array_items(cut).is_err(), "{cut}");
        }
    }
    #[test]
    fn items_past_the_limit_are_counted_not_kept() {
        for count in [3, SPLIT_SCAN_BYTES / 3 + 7] {
            let text = format!("[{}{{}}]", "{},".repeat(count - 1));
            let (items, counted) = items_within(&text, 2).unwrap();
            assert_eq!((items, counted), (vec!["{}", "{}"], count));
            let refused = validate_array::<Iago>(text.as_bytes(), &engine(None), false, 2)
                .unwrap_err()
                .reason();
            let detail = format!("a batch has at most 2 items, this one has {count}");
            assert_eq!(refused["detail"], detail);
        }
    }

    #[test]
    fn a_large_array_scanned_in_two_halves_gives_the_one_pass_answer() {
        let item = r#"{"a":[{"b":1},{"c":"x},{y"}],"d":"\"},{"}"#;
        let count = SPLIT_SCAN_BYTES / item.len() + 2;
        let items = vec![item; count];
        let good = format!("[{}]", items.join(","));
        fn one_pass(text: &str) -> Result<Vec<&str>, String> {
            scan_items(text, 1, None, true).map(|(items, _)| items)
        }
        assert_eq!(array_items(&good).unwrap().len(), count);
        assert_eq!(array_items(&good), one_pass(&good));
        // Faults in the second half, and a `},{` in a string or in nesting at the middle.
        let middle = good.len() / 2;
        let mut cases = vec![
            format!("{},]", &good[..good.len() - 1]),
            format!("{}] x", &good[..good.len() - 1]),
            good[..good.len() - 1].to_owned(),
            format!("{},,{}", &good[..middle], &good[middle..]),
        ];
        for inner in [r#""},{""#, r#"[{},{}]"#] {
            let head = vec![item; count / 2].join(",");
            cases.push(format!("[{head},{inner},{}]", items[..count / 2].join(",")));
        }
        for case in &cases {
            assert_eq!(
                array_items(case),
                one_pass(case),
                "{}",
                &case[case.len() - 40..]
            );
        }
        assert!(array_items(&cases[0]).is_err());
        assert!(array_items(&cases[4]).is_ok());
    }
}
#[cfg(test)]
/// The item scanner against the plain byte-at-a-time scan it replaced (kept here as the reference),
/// on seeded random texts of quotes, escapes, brackets, commas and multibyte characters.
mod scan_reference {
    use super::*;

    fn byte_at_a_time_scan(
        text: &str,
        mut at: usize,
        stop: Option<usize>,
        first: bool,
    ) -> Result<(Vec<&str>, bool), String> {
        let bytes = text.as_bytes();
        let mut items = Vec::new();
        let (mut start, mut depth) = (at, 0usize);
        while at < bytes.len() {
            match bytes[at] {
                b'"' => {
                    at += 1;
                    while at < bytes.len() && bytes[at] != b'"' {
                        at += if bytes[at] == b'\\' { 2 } else { 1 };
                    }
                }
                b'[' | b'{' => depth += 1,
                b']' | b'}' if depth > 0 => depth -= 1,
                b',' | b']' if depth == 0 => {
                    let item = text[start..at].trim_matches(WHITESPACE);
                    let last = bytes[at] == b']';
                    if item.is_empty() && !(last && first && items.is_empty()) {
                        return Err(format!("expected a value before byte {at}"));
                    }
                    if !item.is_empty() {
                        items.push(item);
                    }
                    if last {
                        let rest = text[at + 1..].trim_matches(WHITESPACE);
                        return match rest.is_empty() {
                            true => Ok((items, false)),
                            false => Err(format!("trailing characters after byte {at}")),
                        };
                    }
                    if stop == Some(at) {
                        return Ok((items, true));
                    }
                    start = at + 1;
                }
                b'}' => return Err(format!("unexpected `}}` at byte {at}")),
                _ => {}
            }
            at += 1;
        }
        Err("the array does not end".to_owned())
    }

    #[test]
    fn scan_items_agrees_with_a_byte_at_a_time_scan() {
        let alphabet: [&str; 12] = [
            "\"",
            "\\",
            ",",
            "[",
            "]",
            "{",
            "}",
            " ",
            "a",
            "é",
            "\u{1F600}",
            "\\\\",
        ];
        let mut state: u64 = 0x1234_5678_9abc_def1;
        let mut rnd = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for case in 0..20_000u32 {
            let len = (rnd() % if case % 2 == 0 { 260 } else { 1200 }) as usize;
            let mut text = String::from("[");
            for _ in 0..len {
                // bias towards plain bytes so that long strings occur
                let r = rnd() % if case % 3 == 0 { 30 } else { 90 };
                let piece = if r < 12 { alphabet[r as usize] } else { "a" };
                text.push_str(piece);
            }
            if rnd() % 2 == 0 {
                text.push(']');
            }
            let new = scan_items(&text, 1, None, true);
            let old = byte_at_a_time_scan(&text, 1, None, true);
            assert_eq!(new, old, "case {case}: {text:?}");
            // with a stop at some comma
            let commas: Vec<usize> = text.match_indices(',').map(|(i, _)| i).collect();
            if !commas.is_empty() {
                let stop = commas[(rnd() as usize) % commas.len()];
                assert_eq!(
                    scan_items(&text, 1, Some(stop), true),
                    byte_at_a_time_scan(&text, 1, Some(stop), true),
                    "stop {stop} case {case}: {text:?}"
                );
                assert_eq!(
                    scan_items(&text, stop + 1, None, false),
                    byte_at_a_time_scan(&text, stop + 1, None, false),
                    "from {stop} case {case}: {text:?}"
                );
            }
        }
    }
}
