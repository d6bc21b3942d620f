//! HTML to text a model can read, without an HTML parser: a single pass over the tags that
//! keeps what carries meaning and drops the rest.
//!
//! - `script`, `style`, `noscript`, `template`, `svg`, `iframe`, `object` and `canvas` are dropped
//!   with their content; comments and doctypes too.
//! - Headings become `#`…`######` lines, list items `- ` lines, table cells are joined with
//!   ` | `, `pre` keeps its lines; other blocks (paragraphs, divs, rows…) start new lines.
//! - A link becomes `text (url)`, its URL resolved against the page (a link whose text is its
//!   URL is written once, one without text is left out; `#…` and `javascript:` links keep
//!   only their text); an image with `alt` text becomes `[image: alt]`.
//! - Whitespace collapses to single spaces, at most one blank line between blocks.
//!
//! Real pages are often malformed: unclosed tags are fine (the text still comes out), an
//! unterminated comment or tag ends the document.

use crate::url::Url;

/// What a page reads as.
pub struct Readable {
    /// The `<title>`, when there is one.
    pub title: Option<String>,
    pub text: String,
}

/// Elements whose content is never text for a reader.
const DROPPED: [&str; 8] = [
    "script", "style", "noscript", "template", "svg", "iframe", "object", "canvas",
];
/// Elements that end a paragraph (a blank line before and after).
const PARAGRAPHS: [&str; 8] = ["p", "blockquote", "pre", "table", "ul", "ol", "dl", "hr"];
/// Elements that start a new line.
const LINES: [&str; 17] = [
    "div",
    "section",
    "article",
    "header",
    "footer",
    "main",
    "nav",
    "aside",
    "tr",
    "dt",
    "dd",
    "figure",
    "figcaption",
    "form",
    "details",
    "summary",
    "address",
];

/// Converts `html` (the page at `base`) to readable text.
pub fn to_text(html: &str, base: &Url) -> Readable {
    let mut reader = Reader {
        out: Writer::default(),
        base,
        title: None,
        in_title: false,
        links: Vec::new(),
        lists: 0,
        cells: 0,
    };
    reader.run(html);
    Readable {
        title: reader.title.map(|t| collapse(&t)).filter(|t| !t.is_empty()),
        text: reader.out.finish(),
    }
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A link being read: where it goes and where its text starts in the output.
struct Link {
    href: Option<String>,
    start: usize,
}

struct Reader<'a> {
    out: Writer,
    base: &'a Url,
    title: Option<String>,
    in_title: bool,
    links: Vec<Link>,
    /// Depth of nested lists, for the indentation of their items.
    lists: usize,
    /// Cells seen in the current table row.
    cells: usize,
}

impl Reader<'_> {
    fn run(&mut self, html: &str) {
        // ASCII lowercasing keeps byte offsets, so positions found in `lower` index `html`.
        let lower = html.to_ascii_lowercase();
        let mut i = 0;
        while i < html.len() {
            let Some(lt) = html[i..].find('<').map(|p| i + p) else {
                self.text(&html[i..]);
                break;
            };
            self.text(&html[i..lt]);
            i = match self.markup(html, &lower, lt) {
                Some(next) => next,
                None => break,
            };
        }
    }

    /// Reads the markup at `at` (a `<`); the offset after it, or `None` at an unterminated
    /// comment or tag.
    fn markup(&mut self, html: &str, lower: &str, at: usize) -> Option<usize> {
        let rest = &lower[at..];
        if rest.starts_with("<!--") {
            return rest.find("-->").map(|p| at + p + 3);
        }
        if rest.starts_with("<!") || rest.starts_with("<?") {
            return rest.find('>').map(|p| at + p + 1);
        }
        let closing = rest.starts_with("</");
        let name_start = at + if closing { 2 } else { 1 };
        let name_len = lower[name_start..]
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(lower.len() - name_start);
        if name_len == 0 || !lower[name_start..].starts_with(|c: char| c.is_ascii_alphabetic()) {
            // A lone `<` is text.
            self.text("<");
            return Some(at + 1);
        }
        let name = &lower[name_start..name_start + name_len];
        let (attributes, end) = tag_end(html, name_start + name_len)?;
        if closing {
            self.close(name);
            return Some(end);
        }
        if DROPPED.contains(&name) {
            // Their content may hold `<` (scripts): skip to the closing tag itself.
            let close = format!("</{name}");
            return Some(lower[end..].find(&close).map_or(html.len(), |p| {
                let after = end + p;
                lower[after..]
                    .find('>')
                    .map_or(html.len(), |q| after + q + 1)
            }));
        }
        self.open(name, &attributes);
        Some(end)
    }

    fn text(&mut self, raw: &str) {
        if raw.is_empty() {
            return;
        }
        let text = decode(raw);
        if self.in_title {
            self.title.get_or_insert_with(String::new).push_str(&text);
        } else {
            self.out.text(&text);
        }
    }

    fn open(&mut self, name: &str, attributes: &[(String, String)]) {
        let attribute = |key: &str| {
            attributes
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| decode(v))
        };
        match name {
            "title" => self.in_title = true,
            "br" => self.out.line_break(),
            "a" => self.links.push(Link {
                href: attribute("href").and_then(|href| self.link_target(&href)),
                start: self.out.len(),
            }),
            "img" => {
                if let Some(alt) = attribute("alt")
                    .map(|a| collapse(&a))
                    .filter(|a| !a.is_empty())
                {
                    self.out.text(&format!(" [image: {alt}] "));
                }
            }
            "li" => {
                self.out.block(1);
                let indent = "  ".repeat(self.lists.saturating_sub(1));
                self.out.prefix(format!("{indent}- "));
            }
            "ul" | "ol" => {
                self.lists += 1;
                self.out.block(if self.lists == 1 { 2 } else { 1 });
            }
            "tr" => {
                self.cells = 0;
                self.out.block(1);
            }
            "td" | "th" => {
                if self.cells > 0 {
                    self.out.text(" | ");
                }
                self.cells += 1;
            }
            "pre" => {
                self.out.block(2);
                self.out.pre += 1;
            }
            heading if heading_level(heading).is_some() => {
                self.out.block(2);
                let level = heading_level(heading).unwrap_or(1);
                self.out.prefix(format!("{} ", "#".repeat(level)));
            }
            block if PARAGRAPHS.contains(&block) => self.out.block(2),
            line if LINES.contains(&line) => self.out.block(1),
            _ => {}
        }
    }

    fn close(&mut self, name: &str) {
        match name {
            "title" => self.in_title = false,
            "a" => self.end_link(),
            "ul" | "ol" => {
                self.lists = self.lists.saturating_sub(1);
                self.out.block(if self.lists == 0 { 2 } else { 1 });
            }
            "pre" => {
                self.out.pre = self.out.pre.saturating_sub(1);
                self.out.block(2);
            }
            heading if heading_level(heading).is_some() => self.out.block(2),
            block if PARAGRAPHS.contains(&block) => self.out.block(2),
            line if LINES.contains(&line) || line == "li" => self.out.block(1),
            _ => {}
        }
    }

    /// Where a link goes, when that is worth writing down.
    fn link_target(&self, href: &str) -> Option<String> {
        let href = href.trim();
        let lower = href.to_ascii_lowercase();
        if href.is_empty() || href.starts_with('#') || lower.starts_with("javascript:") {
            return None;
        }
        Some(self.base.resolve(href))
    }

    fn end_link(&mut self) {
        let Some(link) = self.links.pop() else { return };
        let Some(href) = link.href else { return };
        let text = self.out.since(link.start).trim();
        // A link without text (an icon) is left out: its URL alone reads as noise.
        if !text.is_empty() && text != href {
            self.out.text(&format!(" ({href})"));
        }
    }
}

fn heading_level(name: &str) -> Option<usize> {
    match name.as_bytes() {
        [b'h', level @ b'1'..=b'6'] => Some(usize::from(level - b'0')),
        _ => None,
    }
}

/// Reads a tag's attributes from `at` (just after its name) to its `>`: the attributes
/// (names lowercased) and the offset after the `>`; `None` when the tag never ends.
fn tag_end(html: &str, at: usize) -> Option<(Vec<(String, String)>, usize)> {
    let bytes = html.as_bytes();
    let mut attributes = Vec::new();
    let mut i = at;
    loop {
        while i < bytes.len() && (bytes[i].is_ascii_whitespace() || bytes[i] == b'/') {
            i += 1;
        }
        match bytes.get(i) {
            None => return None,
            Some(b'>') => return Some((attributes, i + 1)),
            Some(_) => {}
        }
        let name_start = i;
        while i < bytes.len() && !matches!(bytes[i], b'=' | b'>' | b'/') {
            if bytes[i].is_ascii_whitespace() {
                break;
            }
            i += 1;
        }
        let name = html[name_start..i].to_ascii_lowercase();
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        let mut value = String::new();
        if bytes.get(i) == Some(&b'=') {
            i += 1;
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            let (start, end, next) = match bytes.get(i) {
                Some(&quote @ (b'"' | b'\'')) => {
                    let end = html[i + 1..].find(char::from(quote)).map(|p| i + 1 + p)?;
                    (i + 1, end, end + 1)
                }
                _ => {
                    let end = html[i..]
                        .find(|c: char| c.is_ascii_whitespace() || c == '>')
                        .map_or(html.len(), |p| i + p);
                    (i, end, end)
                }
            };
            value = html[start..end].to_owned();
            i = next;
        }
        if !name.is_empty() {
            attributes.push((name, value));
        }
    }
}

/// `text` with its character references decoded (the named ones pages use most, and every
/// numeric one); an unknown reference stays as written.
fn decode(text: &str) -> String {
    if !text.contains('&') {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let decoded = rest[1..]
            .find(';')
            .filter(|&end| end <= 10)
            .and_then(|end| reference(&rest[1..1 + end]).map(|c| (c, end + 2)));
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn reference(name: &str) -> Option<char> {
    if let Some(number) = name.strip_prefix('#') {
        let code = match number.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => number.parse().ok()?,
        };
        return char::from_u32(code);
    }
    Some(match name {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" => ' ',
        "mdash" => '—',
        "ndash" => '–',
        "hellip" => '…',
        "copy" => '©',
        "reg" => '®',
        "trade" => '™',
        "lsquo" => '‘',
        "rsquo" => '’',
        "ldquo" => '“',
        "rdquo" => '”',
        "laquo" => '«',
        "raquo" => '»',
        "middot" => '·',
        "bull" => '•',
        _ => return None,
    })
}

/// The text being written: collapses whitespace and places the breaks blocks ask for.
#[derive(Default)]
struct Writer {
    out: String,
    /// Newlines wanted before the next text (at most 2: one blank line).
    breaks: usize,
    /// A space is wanted before the next text.
    space: bool,
    /// Written at the start of the next line of text (`# `, `- `).
    prefix: Option<String>,
    /// Inside `pre` (whitespace kept).
    pre: usize,
}

impl Writer {
    fn len(&self) -> usize {
        self.out.len()
    }

    fn since(&self, start: usize) -> &str {
        self.out.get(start..).unwrap_or_default()
    }

    fn block(&mut self, breaks: usize) {
        self.breaks = self.breaks.max(breaks);
    }

    fn line_break(&mut self) {
        self.block(1);
    }

    fn prefix(&mut self, prefix: String) {
        self.prefix = Some(prefix);
    }

    /// Places what is pending before the next character of text.
    fn separate(&mut self) {
        if self.out.is_empty() {
            self.breaks = 0;
            self.space = false;
        }
        if self.breaks > 0 {
            let kept = self.out.trim_end_matches([' ', '\n']).len();
            self.out.truncate(kept);
            self.out.push_str(&"\n".repeat(self.breaks));
            self.breaks = 0;
            self.space = false;
        } else if self.space && !self.out.ends_with([' ', '\n']) {
            self.out.push(' ');
        }
        self.space = false;
        if let Some(prefix) = self.prefix.take() {
            self.out.push_str(&prefix);
        }
    }

    fn text(&mut self, text: &str) {
        if self.pre > 0 {
            if !text.is_empty() {
                self.separate();
                self.out.push_str(text);
            }
            return;
        }
        for c in text.chars() {
            if c.is_whitespace() {
                self.space = true;
            } else {
                self.separate();
                self.out.push(c);
            }
        }
    }

    fn finish(self) -> String {
        self.out.trim().to_owned()
    }
}
