//! Front matter: the YAML block between two `---` lines at the start of a Markdown file.
//!
//! Skills and prompt templates carry their metadata there. Only a small YAML subset is needed
//! (flat `key: value` mappings), so this module parses that subset itself instead of pulling in
//! a YAML crate: plain, single- and double-quoted scalars, block scalars (`|`, `>`, with `-`/`+`
//! chomping), indented continuation of plain scalars, and nested blocks or flow collections,
//! which are kept as opaque values. Anything else is reported as an error with its line number,
//! the way a YAML parser would, so callers can warn and skip the file.

use thiserror::Error;

/// A value in the front matter mapping.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrontmatterValue {
    /// A scalar that is not `true`/`false`/`null`, with quoting and folding already resolved.
    String(String),
    /// `true` or `false` (YAML 1.2 core schema spellings).
    Bool(bool),
    /// An empty value, `~` or `null`.
    Null,
    /// A nested mapping or sequence, or a flow collection (`[..]`, `{..}`): kept as raw text.
    Nested(String),
}

impl FrontmatterValue {
    /// The value as text, if it is a string scalar.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            FrontmatterValue::String(s) => Some(s),
            _ => None,
        }
    }
}

/// Parsed front matter, keys in file order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Frontmatter {
    pub fields: Vec<(String, FrontmatterValue)>,
}

impl Frontmatter {
    pub fn get(&self, key: &str) -> Option<&FrontmatterValue> {
        self.fields.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// A string field; `None` when absent or not a string.
    pub fn get_str(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(FrontmatterValue::as_str)
    }

    /// True only for the boolean `true` (a quoted `"true"` is a string, as in YAML).
    pub fn is_true(&self, key: &str) -> bool {
        matches!(self.get(key), Some(FrontmatterValue::Bool(true)))
    }

    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.fields.iter().map(|(k, _)| k.as_str())
    }
}

/// A front matter block that is not valid (in our YAML subset).
#[derive(Debug, Clone, Error, PartialEq, Eq)]
#[error("{message} at line {line}, column {column}")]
pub struct FrontmatterError {
    pub message: String,
    /// 1-based line in the file (the opening `---` is line 1).
    pub line: usize,
    pub column: usize,
}

/// A Markdown document split into front matter and body.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Document {
    pub frontmatter: Frontmatter,
    /// The text after the closing `---` line (the whole text if there is no front matter).
    pub body: String,
}

/// Splits `content` into the raw YAML text and the body. Line endings are normalised to `\n`
/// and a UTF-8 BOM is dropped. Without an opening `---` line or a closing one, the whole text
/// is the body.
pub fn split(content: &str) -> (Option<String>, String) {
    let text = content.strip_prefix('\u{feff}').unwrap_or(content);
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let Some(rest) = text.strip_prefix("---\n") else {
        return (None, text);
    };
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            let yaml = rest[..offset].to_string();
            let body = rest[offset + line.len()..].to_string();
            return (Some(yaml), body);
        }
        offset += line.len();
    }
    (None, text)
}

/// Returns the body of `content` with any front matter removed.
pub fn strip(content: &str) -> String {
    split(content).1
}

/// Splits and parses a document. A missing front matter block gives an empty mapping.
pub fn parse_document(content: &str) -> Result<Document, FrontmatterError> {
    let (yaml, body) = split(content);
    let frontmatter = match yaml {
        Some(yaml) => parse_yaml(&yaml)?,
        None => Frontmatter::default(),
    };
    Ok(Document { frontmatter, body })
}

/// Parses the YAML text of a front matter block (without the `---` lines).
pub fn parse_yaml(yaml: &str) -> Result<Frontmatter, FrontmatterError> {
    let lines: Vec<&str> = yaml.lines().collect();
    let mut parser = Parser {
        lines: &lines,
        pos: 0,
    };
    parser.mapping()
}

/// Line offset of the YAML text inside the file: the opening `---` is line 1.
const FIRST_LINE: usize = 2;

struct Parser<'a> {
    lines: &'a [&'a str],
    pos: usize,
}

impl Parser<'_> {
    fn error(&self, index: usize, column: usize, message: impl Into<String>) -> FrontmatterError {
        FrontmatterError {
            message: message.into(),
            line: index + FIRST_LINE,
            column: column + 1,
        }
    }

    fn mapping(&mut self) -> Result<Frontmatter, FrontmatterError> {
        let mut out = Frontmatter::default();
        while self.pos < self.lines.len() {
            let index = self.pos;
            let line = self.lines[index];
            if is_blank_or_comment(line) {
                self.pos += 1;
                continue;
            }
            if line.starts_with([' ', '\t']) {
                return Err(self.error(
                    index,
                    indent_of(line),
                    "bad indentation of a mapping entry",
                ));
            }
            let Some((key, rest)) = split_key(line) else {
                return Err(self.error(index, 0, "expected a `key: value` mapping entry"));
            };
            if out.get(&key).is_some() {
                return Err(self.error(index, 0, format!("duplicated mapping key \"{key}\"")));
            }
            self.pos += 1;
            let value = self.value(index, rest)?;
            out.fields.push((key, value));
        }
        Ok(out)
    }

    /// Parses the value that starts after `key:` on line `index` (plus any lines it owns).
    fn value(&mut self, index: usize, rest: &str) -> Result<FrontmatterValue, FrontmatterError> {
        let column = self.lines[index].len() - rest.len();
        let text = strip_comment(rest).trim();
        match text.chars().next() {
            None => Ok(self.nested_block()),
            Some('|') | Some('>') => self.block_scalar(index, text),
            Some('"') => self.double_quoted(index, column, rest.trim_start()),
            Some('\'') => self.single_quoted(index, column, rest.trim_start()),
            Some('[') | Some('{') => self.flow(index, column, text),
            Some('&') | Some('*') | Some('!') | Some('@') | Some('`') => {
                Err(self.error(index, column, "unsupported YAML syntax"))
            }
            Some(_) => Ok(scalar(self.plain_continuation(text))),
        }
    }

    /// Indented lines after `key:` with no inline value: a nested mapping or sequence.
    fn nested_block(&mut self) -> FrontmatterValue {
        let start = self.pos;
        while self.pos < self.lines.len() {
            let line = self.lines[self.pos];
            let continues = line.trim().is_empty() || line.starts_with([' ', '\t', '-']);
            if !continues {
                break;
            }
            self.pos += 1;
        }
        let raw: Vec<&str> = self.lines[start..self.pos].to_vec();
        if raw.iter().all(|l| l.trim().is_empty()) {
            return FrontmatterValue::Null;
        }
        FrontmatterValue::Nested(raw.join("\n").trim_end().to_string())
    }

    /// A plain scalar may continue on following lines that are indented; they fold with spaces.
    fn plain_continuation(&mut self, first: &str) -> String {
        let mut out = first.to_string();
        while self.pos < self.lines.len() {
            let line = self.lines[self.pos];
            if !line.starts_with([' ', '\t']) || line.trim().is_empty() {
                break;
            }
            out.push(' ');
            out.push_str(strip_comment(line).trim());
            self.pos += 1;
        }
        out
    }

    fn block_scalar(
        &mut self,
        index: usize,
        header: &str,
    ) -> Result<FrontmatterValue, FrontmatterError> {
        let folded = header.starts_with('>');
        let chomp = match &header[1..] {
            "" => Chomp::Clip,
            "-" => Chomp::Strip,
            "+" => Chomp::Keep,
            _ => return Err(self.error(index, 0, "unsupported block scalar indicator")),
        };
        let start = self.pos;
        let indent = self.lines[start..]
            .iter()
            .find(|l| !l.trim().is_empty())
            .map(|l| indent_of(l))
            .unwrap_or(0);
        let mut body: Vec<&str> = Vec::new();
        while self.pos < self.lines.len() {
            let line = self.lines[self.pos];
            if !line.trim().is_empty() && (indent == 0 || indent_of(line) < indent) {
                break;
            }
            body.push(line.get(indent..).unwrap_or(""));
            self.pos += 1;
        }
        let text = if folded {
            fold_lines(&body)
        } else {
            body.join("\n")
        };
        Ok(FrontmatterValue::String(chomp.apply(&text)))
    }

    fn double_quoted(
        &mut self,
        index: usize,
        column: usize,
        rest: &str,
    ) -> Result<FrontmatterValue, FrontmatterError> {
        let (raw, tail) = self.quoted_span(index, column, rest, '"')?;
        let mut out = String::new();
        let mut chars = raw.chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('r') => out.push('\r'),
                Some('0') => out.push('\0'),
                Some('"') => out.push('"'),
                Some('\\') => out.push('\\'),
                Some('/') => out.push('/'),
                Some(other) => {
                    return Err(self.error(
                        index,
                        column,
                        format!("unknown escape sequence \\{other}"),
                    ));
                }
                None => out.push('\\'),
            }
        }
        self.expect_end(index, column, tail)?;
        Ok(FrontmatterValue::String(out))
    }

    fn single_quoted(
        &mut self,
        index: usize,
        column: usize,
        rest: &str,
    ) -> Result<FrontmatterValue, FrontmatterError> {
        let (raw, tail) = self.quoted_span(index, column, rest, '\'')?;
        self.expect_end(index, column, tail)?;
        Ok(FrontmatterValue::String(raw.replace("''", "'")))
    }

    /// Finds the closing quote, joining continuation lines with a space as YAML folds them.
    /// Returns the raw text between the quotes and what follows the closing quote.
    fn quoted_span(
        &mut self,
        index: usize,
        column: usize,
        rest: &str,
        quote: char,
    ) -> Result<(String, String), FrontmatterError> {
        let mut text = rest[1..].to_string();
        loop {
            if let Some(end) = closing_quote(&text, quote) {
                let tail = text[end + 1..].to_string();
                text.truncate(end);
                return Ok((text, tail));
            }
            let Some(next) = self.lines.get(self.pos) else {
                return Err(self.error(
                    index,
                    column,
                    "unexpected end of the stream within a quoted scalar",
                ));
            };
            text = format!("{} {}", text.trim_end(), next.trim());
            self.pos += 1;
        }
    }

    fn expect_end(
        &self,
        index: usize,
        column: usize,
        tail: String,
    ) -> Result<(), FrontmatterError> {
        if strip_comment(&tail).trim().is_empty() {
            Ok(())
        } else {
            Err(self.error(index, column, "unexpected text after a quoted scalar"))
        }
    }

    /// Flow collections are kept raw; they only need to be balanced (possibly across lines).
    fn flow(
        &mut self,
        index: usize,
        column: usize,
        first: &str,
    ) -> Result<FrontmatterValue, FrontmatterError> {
        let mut text = first.to_string();
        while !is_balanced(&text) {
            let Some(next) = self.lines.get(self.pos) else {
                return Err(self.error(
                    index,
                    column,
                    "unexpected end of the stream within a flow collection",
                ));
            };
            if !next.starts_with([' ', '\t']) {
                return Err(self.error(
                    index,
                    column,
                    "missed comma between flow collection entries",
                ));
            }
            text.push(' ');
            text.push_str(next.trim());
            self.pos += 1;
        }
        Ok(FrontmatterValue::Nested(text))
    }
}

#[derive(Clone, Copy)]
enum Chomp {
    Clip,
    Strip,
    Keep,
}

impl Chomp {
    fn apply(self, text: &str) -> String {
        let content = text.trim_end_matches('\n');
        match self {
            Chomp::Strip => content.to_string(),
            Chomp::Clip if content.is_empty() => String::new(),
            Chomp::Clip => format!("{content}\n"),
            Chomp::Keep => format!("{text}\n"),
        }
    }
}

/// Folding for `>` block scalars: single line breaks become spaces, empty lines stay breaks.
fn fold_lines(lines: &[&str]) -> String {
    let mut out = String::new();
    let mut pending_break = false;
    for line in lines {
        if line.is_empty() {
            out.push('\n');
            pending_break = false;
            continue;
        }
        if pending_break {
            out.push(' ');
        }
        out.push_str(line);
        pending_break = true;
    }
    out
}

fn scalar(text: String) -> FrontmatterValue {
    match text.as_str() {
        "true" | "True" | "TRUE" => FrontmatterValue::Bool(true),
        "false" | "False" | "FALSE" => FrontmatterValue::Bool(false),
        "" | "~" | "null" | "Null" | "NULL" => FrontmatterValue::Null,
        _ => FrontmatterValue::String(text),
    }
}

fn is_blank_or_comment(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || t.starts_with('#')
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches([' ', '\t']).len()
}

/// Splits `key: rest` (the colon must be followed by a space or end the line).
fn split_key(line: &str) -> Option<(String, &str)> {
    let mut search = 0;
    while let Some(found) = line[search..].find(':') {
        let at = search + found;
        let after = &line[at + 1..];
        if after.is_empty() || after.starts_with([' ', '\t']) {
            let key = unquote_key(line[..at].trim())?;
            return Some((key, after));
        }
        search = at + 1;
    }
    None
}

fn unquote_key(key: &str) -> Option<String> {
    if key.is_empty() || key.starts_with(['-', '[', '{', '?']) {
        return None;
    }
    for quote in ['"', '\''] {
        if let Some(inner) = key.strip_prefix(quote).and_then(|k| k.strip_suffix(quote)) {
            return Some(inner.to_string());
        }
    }
    Some(key.to_string())
}

/// Removes a trailing ` # comment` from unquoted text.
fn strip_comment(text: &str) -> &str {
    let bytes = text.as_bytes();
    for (i, b) in bytes.iter().enumerate() {
        if *b == b'#' && (i == 0 || bytes[i - 1] == b' ' || bytes[i - 1] == b'\t') {
            return &text[..i];
        }
    }
    text
}

/// Index of the closing quote in `text` (which starts after the opening quote).
fn closing_quote(text: &str, quote: char) -> Option<usize> {
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if quote == '"' && c == '\\' {
            chars.next();
        } else if c == quote {
            // '' inside a single-quoted scalar is an escaped quote.
            if quote == '\'' && chars.peek().map(|(_, n)| *n) == Some('\'') {
                chars.next();
                continue;
            }
            return Some(i);
        }
    }
    None
}

/// Whether brackets and braces are balanced outside quoted parts.
fn is_balanced(text: &str) -> bool {
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"') | (None, '\'') => quote = Some(c),
            (None, '[') | (None, '{') => depth += 1,
            (None, ']') | (None, '}') => depth -= 1,
            _ => {}
        }
    }
    depth <= 0 && quote.is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(yaml: &str) -> Frontmatter {
        parse_yaml(yaml).unwrap()
    }

    #[test]
    fn plain_quoted_and_bool_values() {
        let fm = parse("name: a-b\ndescription: \"Say \\\"hi\\\"\"\nx: 'it''s'\nflag: true\nn:\n");
        assert_eq!(fm.get_str("name"), Some("a-b"));
        assert_eq!(fm.get_str("description"), Some("Say \"hi\""));
        assert_eq!(fm.get_str("x"), Some("it's"));
        assert!(fm.is_true("flag"));
        assert_eq!(fm.get("n"), Some(&FrontmatterValue::Null));
    }

    #[test]
    fn block_scalars_and_continuations() {
        let fm =
            parse("a: |\n  one\n  two\nb: >-\n  one\n  two\n\n  three\nc: plain\n  continued\n");
        assert_eq!(fm.get_str("a"), Some("one\ntwo\n"));
        assert_eq!(fm.get_str("b"), Some("one two\nthree"));
        assert_eq!(fm.get_str("c"), Some("plain continued"));
    }

    #[test]
    fn nested_values_are_kept_raw() {
        let fm =
            parse("metadata:\n  author: me\nallowed-tools:\n  - read\nlist: [a, b]\nafter: x\n");
        assert!(matches!(
            fm.get("metadata"),
            Some(FrontmatterValue::Nested(_))
        ));
        assert!(matches!(
            fm.get("allowed-tools"),
            Some(FrontmatterValue::Nested(_))
        ));
        assert!(matches!(fm.get("list"), Some(FrontmatterValue::Nested(_))));
        assert_eq!(fm.get_str("after"), Some("x"));
    }

    #[test]
    fn errors_carry_the_line() {
        let err = parse_yaml("name: x\ndescription: [unclosed bracket\n").unwrap_err();
        assert_eq!(err.line, 3);
        assert!(err.to_string().contains("at line 3"));
        assert!(parse_yaml("a: \"open\n").is_err());
        assert!(parse_yaml("just text\n").is_err());
        assert!(parse_yaml("a: 1\na: 2\n").is_err());
    }

    #[test]
    fn split_handles_missing_and_crlf() {
        assert_eq!(split("# Title\n"), (None, "# Title\n".to_string()));
        let (yaml, body) = split("---\r\nname: x\r\n---\r\nBody\r\n");
        assert_eq!(yaml.as_deref(), Some("name: x\n"));
        assert_eq!(body, "Body\n");
        assert_eq!(split("---\nname: x\n").0, None);
    }
}
