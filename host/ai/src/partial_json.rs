//! Lenient JSON for tool-call arguments that are still streaming (or were cut off).
//!
//! `parse_streaming_json` never fails: complete JSON parses as usual; a truncated document yields
//! everything that was complete plus a partial trailing string; anything else yields `{}`.

use serde_json::{Map, Value};

/// Parses possibly-truncated JSON object text for display. Always returns an object.
pub fn parse_streaming_json(text: &str) -> Value {
    if text.trim().is_empty() {
        return Value::Object(Map::new());
    }
    if let Ok(v @ Value::Object(_)) = serde_json::from_str::<Value>(text) {
        return v;
    }
    let mut parser = Parser {
        bytes: text.as_bytes(),
        pos: 0,
    };
    parser.skip_ws();
    match parser.value() {
        Some(v @ Value::Object(_)) => v,
        _ => Value::Object(Map::new()),
    }
}

struct Parser<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn skip_ws(&mut self) {
        while self.pos < self.bytes.len() && self.bytes[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// Parses a value; `None` when nothing usable was there (truncated before any content).
    fn value(&mut self) -> Option<Value> {
        self.skip_ws();
        match self.peek()? {
            b'{' => Some(self.object()),
            b'[' => Some(self.array()),
            b'"' => self.string().map(Value::String),
            b't' => self.literal("true", Value::Bool(true)),
            b'f' => self.literal("false", Value::Bool(false)),
            b'n' => self.literal("null", Value::Null),
            _ => self.number(),
        }
    }

    fn literal(&mut self, word: &str, value: Value) -> Option<Value> {
        let rest = &self.bytes[self.pos..];
        let n = rest.len().min(word.len());
        if rest[..n] == word.as_bytes()[..n] {
            self.pos += n;
            // A truncated literal still tells the value.
            Some(value)
        } else {
            None
        }
    }

    fn number(&mut self) -> Option<Value> {
        let start = self.pos;
        while let Some(c) = self.peek() {
            if c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'.' | b'e' | b'E') {
                self.pos += 1;
            } else {
                break;
            }
        }
        let text = std::str::from_utf8(&self.bytes[start..self.pos]).ok()?;
        let trimmed = text.trim_end_matches(['-', '+', '.', 'e', 'E']);
        serde_json::from_str::<Value>(trimmed).ok()
    }

    /// A string; a truncated string returns what was read. `None` only when the opening quote
    /// is the last byte.
    fn string(&mut self) -> Option<String> {
        self.pos += 1; // opening quote
        let mut out = String::new();
        let mut chunk_start = self.pos;
        while let Some(c) = self.peek() {
            match c {
                b'"' => {
                    out.push_str(&String::from_utf8_lossy(&self.bytes[chunk_start..self.pos]));
                    self.pos += 1;
                    return Some(out);
                }
                b'\\' => {
                    out.push_str(&String::from_utf8_lossy(&self.bytes[chunk_start..self.pos]));
                    let esc = self.bytes.get(self.pos + 1).copied();
                    match esc {
                        None => {
                            self.pos = self.bytes.len();
                            return Some(out);
                        }
                        Some(b'u') => {
                            let hex = self.bytes.get(self.pos + 2..self.pos + 6);
                            match hex
                                .and_then(|h| std::str::from_utf8(h).ok())
                                .and_then(|h| u32::from_str_radix(h, 16).ok())
                            {
                                Some(code) => {
                                    out.push(char::from_u32(code).unwrap_or('\u{FFFD}'));
                                    self.pos += 6;
                                }
                                None => {
                                    self.pos = self.bytes.len();
                                    return Some(out);
                                }
                            }
                        }
                        Some(e) => {
                            out.push(match e {
                                b'n' => '\n',
                                b't' => '\t',
                                b'r' => '\r',
                                b'b' => '\u{8}',
                                b'f' => '\u{c}',
                                other => other as char,
                            });
                            self.pos += 2;
                        }
                    }
                    chunk_start = self.pos;
                }
                _ => self.pos += 1,
            }
        }
        out.push_str(&String::from_utf8_lossy(&self.bytes[chunk_start..]));
        Some(out)
    }

    fn object(&mut self) -> Value {
        self.pos += 1;
        let mut map = Map::new();
        loop {
            self.skip_ws();
            match self.peek() {
                Some(b'}') => {
                    self.pos += 1;
                    break;
                }
                Some(b',') => {
                    self.pos += 1;
                    continue;
                }
                Some(b'"') => {}
                _ => break,
            }
            let start = self.pos;
            let Some(key) = self.string() else { break };
            // A key whose closing quote never arrived is dropped.
            if self.bytes.get(self.pos - 1) != Some(&b'"') || self.pos - start < 2 {
                break;
            }
            self.skip_ws();
            if self.peek() != Some(b':') {
                break;
            }
            self.pos += 1;
            match self.value() {
                Some(v) => {
                    map.insert(key, v);
                }
                None => break,
            }
        }
        Value::Object(map)
    }

    fn array(&mut self) -> Value {
        self.pos += 1;
        let mut items = Vec::new();
        loop {
            self.skip_ws();
            match self.peek() {
                Some(b']') => {
                    self.pos += 1;
                    break;
                }
                Some(b',') => {
                    self.pos += 1;
                    continue;
                }
                None => break,
                _ => {}
            }
            match self.value() {
                Some(v) => items.push(v),
                None => break,
            }
        }
        Value::Array(items)
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
}
