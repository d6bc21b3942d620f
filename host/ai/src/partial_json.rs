//! Lenient, incremental JSON for tool-call arguments that are still streaming (or were cut off).
//!
//! A model streams a tool call's arguments as fragments of one JSON object; the UI shows the
//! arguments as they grow. [`StreamingJson`] is a push parser: each fragment is read once and
//! applied to the value in place (a string grows by the fragment's text), so following a long
//! `write` call costs time linear in its length, not a re-parse of everything on every delta.
//! It keeps no recursion (an explicit stack of open containers) and refuses nesting deeper than
//! [`MAX_DEPTH`], so a server sending a million `[` can neither overflow the stack here nor
//! hand a tree to code that walks it recursively (serialisation, drop, validation).
//!
//! What a prefix shows: every complete member, plus the one being read — a partial string as
//! far as it goes, a truncated literal (`tr` is `true`), a number as far as it parses. A key
//! appears only once its value has begun. Input that cannot continue a JSON object stops the
//! parse with an error and keeps what was read. On a complete document the result is exactly
//! what `serde_json` parses; the result of a text never depends on how it was cut into
//! fragments.

use serde_json::{Map, Value};

/// Deepest nesting accepted, the arguments object itself being level 1. Far beyond any tool
/// schema, and low enough that the arguments stay readable by `serde_json` (limit 128) inside
/// the session file's and the providers' own wrapping objects.
pub const MAX_DEPTH: usize = 64;

/// Longest number accepted; its value is re-read on each fragment, so this bounds that cost.
pub const MAX_NUMBER_LEN: usize = 1024;

/// Why the argument text stopped being read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PartialJsonError {
    #[error("tool-call arguments nest deeper than {MAX_DEPTH} levels")]
    TooDeep,
    #[error("tool-call arguments are not a JSON object")]
    NotAnObject,
    #[error("unexpected {found:?} at byte {offset} of the tool-call arguments")]
    Unexpected { offset: usize, found: char },
    #[error("invalid number {0:?} in the tool-call arguments")]
    InvalidNumber(String),
    #[error("a number in the tool-call arguments is longer than {MAX_NUMBER_LEN} characters")]
    NumberTooLong,
}

/// Parses possibly-truncated JSON object text for display. Always returns an object.
pub fn parse_streaming_json(text: &str) -> Value {
    parse(text).0
}

/// Parses a whole argument text: the value as [`parse_streaming_json`] gives it, and the
/// error that stopped the parse, if any.
pub fn parse(text: &str) -> (Value, Option<PartialJsonError>) {
    let mut parser = StreamingJson::new();
    let mut value = Value::Object(Map::new());
    parser.push(&mut value, text);
    let error = parser.error().cloned();
    (value, error)
}

/// The state of one argument text between fragments. The value itself lives with the caller
/// (inside the tool call being streamed), so nothing is copied per fragment.
#[derive(Debug, Clone, Default)]
pub struct StreamingJson {
    /// Open containers, outermost (the arguments object) first.
    frames: Vec<Frame>,
    token: Token,
    phase: Phase,
    /// Bytes read by earlier fragments, for error offsets.
    offset: usize,
}

#[derive(Debug, Clone, Default)]
enum Phase {
    /// Before the opening `{`.
    #[default]
    Start,
    Open,
    /// The object closed; anything after it is ignored.
    Done,
    Failed(PartialJsonError),
}

#[derive(Debug, Clone)]
struct Frame {
    object: bool,
    expect: Expect,
    /// Objects: the key of the member being read.
    key: String,
    /// Objects: the member is the map's last entry (its key was new), so it is reached without
    /// hashing the key again.
    at_end: bool,
}

/// What the next significant byte of a container may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// Objects, after `{` or `,`: a key or `}`.
    KeyOrEnd,
    /// Objects, after a key.
    Colon,
    /// Objects, after `:`.
    Value,
    /// Arrays, after `[` or `,`: a value or `]`.
    ValueOrEnd,
    /// After a member: `,` or the closing bracket.
    CommaOrEnd,
}

/// A scalar being read across bytes (and fragments).
#[derive(Debug, Clone, Default)]
enum Token {
    #[default]
    None,
    Str {
        key: bool,
        escape: Escape,
        /// A `\uD800`–`\uDBFF` escape waiting for its low half.
        high: Option<u32>,
    },
    Number {
        text: String,
        inserted: bool,
    },
    Literal {
        word: &'static [u8],
        matched: usize,
    },
}

#[derive(Debug, Clone, Copy, Default)]
enum Escape {
    #[default]
    None,
    Backslash,
    Hex {
        code: u32,
        digits: u8,
    },
}

impl StreamingJson {
    pub fn new() -> Self {
        Self::default()
    }

    /// What stopped the parse, if something did.
    pub fn error(&self) -> Option<&PartialJsonError> {
        match &self.phase {
            Phase::Failed(error) => Some(error),
            _ => None,
        }
    }

    /// Reads the next fragment into `root` (the value of the earlier fragments; start with an
    /// empty object). After an error or the end of the object, fragments are ignored.
    pub fn push(&mut self, root: &mut Value, fragment: &str) {
        let mut at = 0;
        while at < fragment.len() && matches!(self.phase, Phase::Start | Phase::Open) {
            at = self.step(root, fragment, at);
        }
        self.sync_number(root);
        self.offset = self.offset.saturating_add(fragment.len());
    }

    fn fail(&mut self, error: PartialJsonError) {
        self.phase = Phase::Failed(error);
    }

    fn unexpected(&mut self, text: &str, at: usize) {
        let found = text
            .get(at..)
            .and_then(|rest| rest.chars().next())
            .unwrap_or(char::REPLACEMENT_CHARACTER);
        let offset = self.offset.saturating_add(at);
        self.fail(PartialJsonError::Unexpected { offset, found });
    }

    /// Reads from `at`; returns where to go on.
    fn step(&mut self, root: &mut Value, text: &str, at: usize) -> usize {
        let byte = text.as_bytes()[at];
        match &mut self.token {
            Token::Str { .. } => return self.string_step(root, text, at),
            Token::Number { text: number, .. } => {
                if !is_number_byte(byte) {
                    self.end_number(root);
                    // The byte that ended the number is read as structure below.
                    return at;
                }
                if number.len() >= MAX_NUMBER_LEN {
                    self.fail(PartialJsonError::NumberTooLong);
                } else {
                    number.push(char::from(byte));
                }
                return at + 1;
            }
            Token::Literal { word, matched } => {
                if word.get(*matched) != Some(&byte) {
                    self.unexpected(text, at);
                    return at;
                }
                *matched += 1;
                if *matched == word.len() {
                    self.token = Token::None;
                    self.member_done();
                }
                return at + 1;
            }
            Token::None => {}
        }
        if matches!(byte, b' ' | b'\t' | b'\n' | b'\r') {
            return at + 1;
        }
        self.structure(root, text, at);
        at + 1
    }

    /// A significant byte outside any scalar.
    fn structure(&mut self, root: &mut Value, text: &str, at: usize) {
        let byte = text.as_bytes()[at];
        if matches!(self.phase, Phase::Start) {
            if byte == b'{' {
                *root = Value::Object(Map::new());
                self.frames.push(Frame::new(true));
                self.phase = Phase::Open;
            } else {
                self.fail(PartialJsonError::NotAnObject);
            }
            return;
        }
        let Some(top) = self.frames.last_mut() else {
            return;
        };
        match (top.expect, byte) {
            (Expect::KeyOrEnd | Expect::ValueOrEnd, b',') => {}
            (Expect::KeyOrEnd, b'"') => {
                top.key.clear();
                top.expect = Expect::Colon;
                self.token = Token::Str {
                    key: true,
                    escape: Escape::None,
                    high: None,
                };
            }
            (Expect::Colon, b':') => top.expect = Expect::Value,
            (Expect::CommaOrEnd, b',') => {
                top.expect = if top.object {
                    Expect::KeyOrEnd
                } else {
                    Expect::ValueOrEnd
                };
            }
            (Expect::KeyOrEnd | Expect::CommaOrEnd, b'}') if top.object => self.close(),
            (Expect::ValueOrEnd | Expect::CommaOrEnd, b']') if !top.object => self.close(),
            (Expect::Value | Expect::ValueOrEnd, _) => self.start_value(root, text, at),
            _ => self.unexpected(text, at),
        }
    }

    fn close(&mut self) {
        self.frames.pop();
        if self.frames.is_empty() {
            self.phase = Phase::Done;
        } else {
            self.member_done();
        }
    }

    /// The innermost container's current member is complete.
    fn member_done(&mut self) {
        if let Some(top) = self.frames.last_mut() {
            top.expect = Expect::CommaOrEnd;
        }
    }

    fn start_value(&mut self, root: &mut Value, text: &str, at: usize) {
        let byte = text.as_bytes()[at];
        let literal = |word: &'static [u8]| Token::Literal { word, matched: 1 };
        match byte {
            b'{' | b'[' => {
                if self.frames.len() >= MAX_DEPTH {
                    self.fail(PartialJsonError::TooDeep);
                    return;
                }
                let empty = if byte == b'{' {
                    Value::Object(Map::new())
                } else {
                    Value::Array(Vec::new())
                };
                self.insert(root, empty);
                self.frames.push(Frame::new(byte == b'{'));
            }
            b'"' => {
                self.insert(root, Value::String(String::new()));
                self.token = Token::Str {
                    key: false,
                    escape: Escape::None,
                    high: None,
                };
            }
            b't' => {
                self.insert(root, Value::Bool(true));
                self.token = literal(b"true");
            }
            b'f' => {
                self.insert(root, Value::Bool(false));
                self.token = literal(b"false");
            }
            b'n' => {
                self.insert(root, Value::Null);
                self.token = literal(b"null");
            }
            b'-' | b'0'..=b'9' => {
                self.token = Token::Number {
                    text: char::from(byte).to_string(),
                    inserted: false,
                };
            }
            _ => self.unexpected(text, at),
        }
    }

    /// Adds a member to the innermost container (for objects, under the key just read).
    fn insert(&mut self, root: &mut Value, value: Value) {
        let Some((top, parents)) = self.frames.split_last_mut() else {
            return;
        };
        match (descend(root, parents), top.object) {
            (Some(Value::Object(map)), true) => {
                top.at_end = !map.contains_key(&top.key);
                if top.at_end {
                    map.insert(std::mem::take(&mut top.key), value);
                } else {
                    // A repeated key keeps its place and takes the new value, as in serde_json.
                    map.insert(top.key.clone(), value);
                }
            }
            (Some(Value::Array(items)), false) => items.push(value),
            _ => {}
        }
    }

    /// The member being read (the innermost container's current child).
    fn current<'v>(&self, root: &'v mut Value) -> Option<&'v mut Value> {
        descend(root, &self.frames)
    }

    fn string_step(&mut self, root: &mut Value, text: &str, at: usize) -> usize {
        let Token::Str { escape, .. } = self.token else {
            return at;
        };
        let bytes = text.as_bytes();
        match escape {
            Escape::None => match memchr::memchr2(b'"', b'\\', &bytes[at..]) {
                None => {
                    self.append(root, &text[at..]);
                    text.len()
                }
                Some(run) => {
                    self.append(root, &text[at..at + run]);
                    if bytes[at + run] == b'"' {
                        self.end_string(root);
                    } else {
                        self.set_escape(Escape::Backslash);
                    }
                    at + run + 1
                }
            },
            Escape::Backslash => {
                let c = text[at..]
                    .chars()
                    .next()
                    .unwrap_or(char::REPLACEMENT_CHARACTER);
                if c == 'u' {
                    self.set_escape(Escape::Hex { code: 0, digits: 0 });
                } else {
                    self.set_escape(Escape::None);
                    self.append(root, unescape(c).encode_utf8(&mut [0; 4]));
                }
                at + c.len_utf8()
            }
            Escape::Hex { code, digits } => match char::from(bytes[at]).to_digit(16) {
                Some(digit) if digits == 3 => {
                    self.set_escape(Escape::None);
                    self.unicode(root, code * 16 + digit);
                    at + 1
                }
                Some(digit) => {
                    let code = code * 16 + digit;
                    self.set_escape(Escape::Hex {
                        code,
                        digits: digits + 1,
                    });
                    at + 1
                }
                None => {
                    // A cut `\u` escape: a replacement character, and the byte is read again.
                    self.set_escape(Escape::None);
                    self.flush_high(root);
                    self.push_str(root, "\u{FFFD}");
                    at
                }
            },
        }
    }

    fn set_escape(&mut self, next: Escape) {
        if let Token::Str { escape, .. } = &mut self.token {
            *escape = next;
        }
    }

    /// A decoded `\u` escape (four hex digits): surrogate halves are paired, lone ones become
    /// U+FFFD, the replacement character.
    fn unicode(&mut self, root: &mut Value, code: u32) {
        let Token::Str { high, .. } = &mut self.token else {
            return;
        };
        let pending = high.take();
        let text = match (pending, code) {
            (Some(h), 0xDC00..=0xDFFF) => {
                char::from_u32(0x10000 + ((h - 0xD800) << 10) + (code - 0xDC00)).map(String::from)
            }
            (pending, 0xD800..=0xDBFF) => {
                *high = Some(code);
                pending.map(|_| "\u{FFFD}".to_owned())
            }
            (pending, code) => {
                let c = char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER);
                let mut text = pending.map(|_| "\u{FFFD}".to_owned()).unwrap_or_default();
                text.push(c);
                Some(text)
            }
        };
        if let Some(text) = text {
            self.push_str(root, &text);
        }
    }

    /// Appends decoded text, first settling a high surrogate that got no low half.
    fn append(&mut self, root: &mut Value, piece: &str) {
        if !piece.is_empty() {
            self.flush_high(root);
            self.push_str(root, piece);
        }
    }

    /// A high surrogate followed by anything but a low one stands alone: U+FFFD.
    fn flush_high(&mut self, root: &mut Value) {
        if let Token::Str { high, .. } = &mut self.token
            && high.take().is_some()
        {
            self.push_str(root, "\u{FFFD}");
        }
    }

    fn push_str(&mut self, root: &mut Value, piece: &str) {
        let Token::Str { key, .. } = self.token else {
            return;
        };
        if key {
            if let Some(top) = self.frames.last_mut() {
                top.key.push_str(piece);
            }
        } else if let Some(Value::String(s)) = self.current(root) {
            s.push_str(piece);
        }
    }

    fn end_string(&mut self, root: &mut Value) {
        self.flush_high(root);
        if let Token::Str { key: false, .. } = std::mem::take(&mut self.token) {
            self.member_done();
        }
    }

    /// Puts the number read so far into the tree: its value once its text (less a trailing
    /// sign, dot or exponent mark) is non-empty, `null` when `serde_json` cannot represent it.
    fn sync_number(&mut self, root: &mut Value) {
        let Token::Number { text, inserted } = &mut self.token else {
            return;
        };
        let trimmed = text.trim_end_matches(['-', '+', '.', 'e', 'E']);
        if trimmed.is_empty() {
            return;
        }
        let value = serde_json::from_str::<Value>(trimmed)
            .ok()
            .filter(Value::is_number)
            .unwrap_or(Value::Null);
        if std::mem::replace(inserted, true) {
            if let Some(slot) = self.current(root) {
                *slot = value;
            }
        } else {
            self.insert(root, value);
        }
    }

    fn end_number(&mut self, root: &mut Value) {
        self.sync_number(root);
        let Token::Number { text, .. } = std::mem::take(&mut self.token) else {
            return;
        };
        if serde_json::from_str::<Value>(&text).is_ok_and(|v| v.is_number()) {
            self.member_done();
        } else {
            self.fail(PartialJsonError::InvalidNumber(text));
        }
    }
}

impl Frame {
    fn new(object: bool) -> Self {
        Frame {
            object,
            expect: if object {
                Expect::KeyOrEnd
            } else {
                Expect::ValueOrEnd
            },
            key: String::new(),
            at_end: false,
        }
    }
}

/// Follows each frame's current member from `value` down.
fn descend<'v>(mut value: &'v mut Value, frames: &[Frame]) -> Option<&'v mut Value> {
    for frame in frames {
        value = match value {
            Value::Object(map) => {
                if frame.at_end {
                    map.values_mut().next_back()?
                } else {
                    map.get_mut(frame.key.as_str())?
                }
            }
            Value::Array(items) => items.last_mut()?,
            _ => return None,
        };
    }
    Some(value)
}

fn is_number_byte(byte: u8) -> bool {
    byte.is_ascii_digit() || matches!(byte, b'-' | b'+' | b'.' | b'e' | b'E')
}

/// The character a one-letter escape stands for; an unknown escape stands for itself.
fn unescape(c: char) -> char {
    match c {
        'n' => '\n',
        't' => '\t',
        'r' => '\r',
        'b' => '\u{8}',
        'f' => '\u{c}',
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn complete_and_truncated_documents() {
        assert_eq!(parse_streaming_json(""), json!({}));
        assert_eq!(parse_streaming_json(r#"{"a":1}"#), json!({"a":1}));
        assert_eq!(parse_streaming_json(r#"{"locati"#), json!({}));
        assert_eq!(
            parse_streaming_json(r#"{"location": "Par"#),
            json!({"location":"Par"})
        );
        assert_eq!(
            parse_streaming_json(r#"{"a": [1, 2, {"b": tr"#),
            json!({"a":[1,2,{"b":true}]})
        );
        assert_eq!(parse_streaming_json(r#"{"a": "x\n"#), json!({"a":"x\n"}));
        assert_eq!(parse_streaming_json(r#"{"a": 12"#), json!({"a":12}));
        assert_eq!(parse_streaming_json("not json"), json!({}));
        assert_eq!(parse_streaming_json(r#"{"k": "\u00e9t"#), json!({"k":"ét"}));
    }

    #[test]
    fn surrogate_pairs_and_cut_escapes() {
        assert_eq!(
            parse_streaming_json(r#"{"k": "\ud83d\ude00!"}"#),
            json!({"k":"😀!"})
        );
        assert_eq!(parse_streaming_json(r#"{"k": "a\ud83d"#), json!({"k":"a"}));
        assert_eq!(
            parse_streaming_json(r#"{"k": "a\ud83dx"}"#),
            json!({"k":"a\u{FFFD}x"})
        );
        assert_eq!(parse_streaming_json(r#"{"k": "a\u00"#), json!({"k":"a"}));
    }

    #[test]
    fn numbers_appear_once_they_parse() {
        assert_eq!(parse_streaming_json(r#"{"a": -"#), json!({}));
        assert_eq!(parse_streaming_json(r#"{"a": 1.5e"#), json!({"a":1.5}));
        assert_eq!(parse_streaming_json(r#"{"a": 1e400}"#), json!({"a":null}));
        let (value, error) = parse(r#"{"a": 1-2, "b": 3}"#);
        assert_eq!(value, json!({"a": null}));
        assert_eq!(error, Some(PartialJsonError::InvalidNumber("1-2".into())));
    }

    #[test]
    fn repeated_keys_keep_their_place_and_take_the_last_value() {
        let text = r#"{"a": 1, "b": 2, "a": [3]}"#;
        let ours = parse_streaming_json(text);
        let theirs: Value = serde_json::from_str(text).unwrap();
        assert_eq!(ours, theirs);
        assert_eq!(
            serde_json::to_string(&ours).unwrap(),
            serde_json::to_string(&theirs).unwrap()
        );
    }

    #[test]
    fn nesting_beyond_the_limit_stops_the_parse() {
        let deep = format!("{{\"a\":{}", "[".repeat(100_000));
        let (value, error) = parse(&deep);
        assert_eq!(error, Some(PartialJsonError::TooDeep));
        let mut depth = 0;
        let mut at = &value;
        while let Some(next) = at.get("a").or_else(|| at.get(0)) {
            depth += 1;
            at = next;
        }
        assert_eq!(depth, MAX_DEPTH - 1);
    }

    #[test]
    fn fragments_are_applied_in_place() {
        let mut parser = StreamingJson::new();
        let mut value = json!({});
        for piece in [
            r#"{"path": "a.txt", "con"#,
            r#"tent": "li"#,
            "ne 1\\",
            "nline 2",
        ] {
            parser.push(&mut value, piece);
        }
        assert_eq!(value, json!({"path": "a.txt", "content": "line 1\nline 2"}));
        assert!(parser.error().is_none());
    }
}
