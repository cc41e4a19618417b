//! JSON text as every entry point reads it: a key given twice in one object is refused, wherever it
//! is. serde keeps the last value of a key in a map and refuses a second one in a struct, so two
//! readers of the same request (a route that reads the body whole, one that reads a state's fields)
//! would disagree on which value counts; with one rule before any reader, they cannot.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt::Write as _;

/// Deeper nesting is left to the parser, which refuses it (serde_json's limit is 128 levels), so
/// that a body of brackets costs this scan no memory.
const MAX_DEPTH: usize = 129;
/// Keys of one object compared one by one; beyond, through a set (a hostile object's thousands of
/// keys cost linear time, not quadratic).
const LINEAR_KEYS: usize = 16;

/// The fault of JSON text that the engine refuses before reading it: its syntax error, or else the
/// place of a key given twice (`duplicate key at state.board`). `None` for JSON text without either.
/// (Only text where the scan finds a duplicate is parsed whole here; the readers parse the rest.)
pub fn fault(text: &str) -> Option<String> {
    let path = duplicate_key(text)?;
    Some(match serde_json::from_str::<serde::de::IgnoredAny>(text) {
        Err(error) => error.to_string(),
        Ok(_) => format!("duplicate key at {path}"),
    })
}

/// The path of the first key given twice in one object (`state.board`, `pawns.red[2]`), if any. The
/// text is followed by its strings and nesting only: on text that is not JSON the answer means
/// nothing, and `fault` asks the parser then.
fn duplicate_key(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut scan = Scan::default();
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'"' => {
                let end = string_end(bytes, at + 1);
                if scan.expects_key() {
                    let key = key_text(&text[at..end.min(bytes.len())]);
                    if scan.add_key(key) {
                        return Some(scan.path());
                    }
                }
                at = end;
                continue;
            }
            b'{' | b'[' if scan.frames.len() >= MAX_DEPTH => return None,
            b'{' => scan.open(Frame::object()),
            b'[' => scan.open(Frame::Array(0)),
            b'}' | b']' => {
                scan.frames.pop();
            }
            b',' => scan.next_member(),
            _ => {}
        }
        at += 1;
    }
    None
}

/// Where a string whose contents start at `at` ends: just past its closing quote.
fn string_end(bytes: &[u8], mut at: usize) -> usize {
    while let Some(offset) = bytes[at.min(bytes.len())..]
        .iter()
        .position(|&byte| byte == b'"' || byte == b'\\')
    {
        at += offset;
        if bytes[at] == b'"' {
            return at + 1;
        }
        at += 2; // a backslash and the byte it escapes
    }
    bytes.len()
}

/// A key as its string says it: the text between the quotes, decoded when it has escapes.
fn key_text(quoted: &str) -> Cow<'_, str> {
    let inner = quoted
        .strip_prefix('"')
        .and_then(|rest| rest.strip_suffix('"'))
        .unwrap_or(quoted);
    if !inner.contains('\\') {
        return Cow::Borrowed(inner);
    }
    serde_json::from_str::<String>(quoted).map_or(Cow::Borrowed(inner), Cow::Owned)
}

/// An object or array being scanned.
enum Frame<'a> {
    /// The object's keys so far (the last one is the member being read), and, past `LINEAR_KEYS`,
    /// the same keys as a set; whether the next string is a key.
    Object {
        keys: Vec<Cow<'a, str>>,
        set: Option<HashSet<Cow<'a, str>>>,
        expects_key: bool,
    },
    /// The index of the element being read.
    Array(usize),
}

impl Frame<'_> {
    fn object() -> Self {
        Frame::Object {
            keys: Vec::new(),
            set: None,
            expects_key: true,
        }
    }
}

#[derive(Default)]
struct Scan<'a> {
    frames: Vec<Frame<'a>>,
}

impl<'a> Scan<'a> {
    fn open(&mut self, frame: Frame<'a>) {
        if let Some(Frame::Object { expects_key, .. }) = self.frames.last_mut() {
            *expects_key = false; // a container in key position is no key (not JSON anyway)
        }
        self.frames.push(frame);
    }

    fn expects_key(&self) -> bool {
        matches!(
            self.frames.last(),
            Some(Frame::Object {
                expects_key: true,
                ..
            })
        )
    }

    fn next_member(&mut self) {
        match self.frames.last_mut() {
            Some(Frame::Object { expects_key, .. }) => *expects_key = true,
            Some(Frame::Array(index)) => *index += 1,
            None => {}
        }
    }

    /// Adds a key to the innermost object; true when the object already has it.
    fn add_key(&mut self, key: Cow<'a, str>) -> bool {
        let Some(Frame::Object {
            keys,
            set,
            expects_key,
        }) = self.frames.last_mut()
        else {
            return false;
        };
        *expects_key = false;
        let twice = match set {
            Some(set) => !set.insert(key.clone()),
            None => keys.contains(&key),
        };
        if set.is_none() && keys.len() >= LINEAR_KEYS {
            *set = Some(keys.iter().cloned().chain([key.clone()]).collect());
        }
        keys.push(key);
        twice
    }

    /// The path of the member being read, in the notation of the engine's `field`s.
    fn path(&self) -> String {
        let mut path = String::new();
        for frame in &self.frames {
            match frame {
                Frame::Object { keys, .. } => {
                    let key = keys.last().map_or("", |key| key.as_ref());
                    let plain = !key.is_empty()
                        && key
                            .bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
                    match (plain, path.is_empty()) {
                        (true, true) => path.push_str(key),
                        (true, false) => {
                            let _ = write!(path, ".{key}");
                        }
                        (false, _) => {
                            let quoted = serde_json::to_string(key).expect("a string serializes");
                            let _ = write!(path, "[{quoted}]");
                        }
                    }
                }
                Frame::Array(index) => {
                    let _ = write!(path, "[{index}]");
                }
            }
        }
        path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn many_keys_are_compared_through_a_set() {
        let members: Vec<String> = (0..1000).map(|k| format!("\"k{k}\": {k}")).collect();
        let distinct = format!("{{{}}}", members.join(","));
        assert_eq!(fault(&distinct), None);
        let twice = format!("{{{}, \"k500\": 0}}", members.join(","));
        assert_eq!(fault(&twice).as_deref(), Some("duplicate key at k500"));
    }

    #[test]
    fn text_that_is_not_json_gets_the_parsers_error() {
        // The scan sees `a` twice, but the text is cut short: the syntax error is the fault.
        let fault = fault(r#"{"a": 1, "a": "#).expect("a fault");
        assert!(fault.starts_with("EOF while parsing"), "{fault}");
        assert_eq!(super::fault(r#"{"a": 1,"#), None); // left to the readers' parse
    }

    #[test]
    fn deep_nesting_is_left_to_the_parser() {
        let deep = "[".repeat(100_000);
        assert_eq!(fault(&deep), None);
        let deep_twice = format!("{}{{\"a\":1,\"a\":2}}", "[".repeat(200));
        assert_eq!(fault(&deep_twice), None);
    }
}
