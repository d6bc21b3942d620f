//! Markdown for the terminal, line by line so a streaming answer renders as it grows: headings
//! bold, list bullets, quotes with a bar, fenced code blocks syntax-highlighted with their
//! language shown, tables with aligned columns, links as their text with the address after
//! it, and inline `code` and **bold** spans (which may continue over a wrapped line).

use crate::color::ColorLevel;
use crate::highlight::{Highlighter, Kind};
use crate::theme::{Theme, Token};
use crate::wrap::wrap;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

/// How markdown is coloured: the theme's tokens, fitted to the terminal (plain when colours
/// are off).
#[derive(Debug, Clone, Copy)]
pub struct Styles {
    pub code: Style,
    pub code_block: Style,
    pub heading: Style,
    pub quote: Style,
    pub muted: Style,
    /// By highlighter kind, in `KINDS` order.
    syntax: [Style; 11],
}

/// The highlighter's kinds and the tokens that colour them.
const KINDS: [(Kind, Option<Token>); 11] = [
    (Kind::Plain, None),
    (Kind::Punctuation, Some(Token::SyntaxPunctuation)),
    (Kind::Keyword, Some(Token::SyntaxKeyword)),
    (Kind::Type, Some(Token::SyntaxType)),
    (Kind::Function, Some(Token::SyntaxFunction)),
    (Kind::String, Some(Token::SyntaxString)),
    (Kind::Number, Some(Token::SyntaxNumber)),
    (Kind::Comment, Some(Token::SyntaxComment)),
    (Kind::Operator, Some(Token::SyntaxOperator)),
    (Kind::Added, Some(Token::ToolDiffAdded)),
    (Kind::Removed, Some(Token::ToolDiffRemoved)),
];

impl Styles {
    pub fn new(colors: ColorLevel, theme: &Theme) -> Self {
        let fg = |token: Token| match theme.get(token).and_then(|c| colors.fit(c)) {
            Some(c) => Style::default().fg(c),
            None => Style::default(),
        };
        let code_block = fg(Token::MdCodeBlock);
        let syntax = KINDS.map(|(kind, token)| {
            let style = token.map_or(code_block, fg);
            if kind == Kind::Comment {
                style.add_modifier(Modifier::ITALIC)
            } else {
                style
            }
        });
        Styles {
            code: fg(Token::MdCode),
            code_block,
            heading: fg(Token::MdHeading).add_modifier(Modifier::BOLD),
            quote: fg(Token::MdQuote).add_modifier(Modifier::ITALIC),
            muted: fg(Token::MdCodeBlockBorder).add_modifier(Modifier::DIM),
            syntax,
        }
    }

    /// The colour of a piece of highlighted code.
    fn syntax(&self, kind: Kind) -> Style {
        let at = KINDS.iter().position(|(k, _)| *k == kind).unwrap_or(0);
        self.syntax[at]
    }
}

/// `text` as screen lines `width` cells wide, each starting with `indent`.
pub fn render(text: &str, indent: &str, width: usize, styles: Styles) -> Vec<Line<'static>> {
    let room = width.saturating_sub(indent.chars().count()).max(1);
    let mut out = Vec::new();
    // Inside a fence: its highlighter, when the language is known.
    let mut fence: Option<Option<Highlighter>> = None;
    let lines: Vec<&str> = text.split('\n').collect();
    let mut i = 0;
    while i < lines.len() {
        let raw = lines[i];
        i += 1;
        let trimmed = raw.trim_start();
        if let Some(rest) = trimmed.strip_prefix("```") {
            let lang = rest.trim();
            let label = match (&fence, lang.is_empty()) {
                (None, false) => format!("─── {lang}"),
                _ => "───".to_owned(),
            };
            fence = match fence {
                Some(_) => None,
                None => Some(Highlighter::for_language(lang)),
            };
            out.push(Line::from(vec![
                Span::raw(indent.to_owned()),
                Span::styled(label, styles.muted),
            ]));
            continue;
        }
        if let Some(highlighter) = &mut fence {
            code_line(raw, highlighter.as_mut(), indent, room, styles, &mut out);
            continue;
        }
        if is_table_row(trimmed) {
            let start = i - 1;
            while i < lines.len() && is_table_row(lines[i].trim_start()) {
                i += 1;
            }
            table(&lines[start..i], indent, room, styles, &mut out);
            continue;
        }
        block_line(&links(raw), indent, room, styles, &mut out);
    }
    out
}

/// One line of a code block, highlighted, cut into rows of `room` cells.
fn code_line(
    raw: &str,
    highlighter: Option<&mut Highlighter>,
    indent: &str,
    room: usize,
    styles: Styles,
    out: &mut Vec<Line<'static>>,
) {
    let raw = raw.replace('\t', "    ");
    let spans: Vec<(Style, &str)> = match highlighter {
        Some(h) => h
            .line(&raw)
            .into_iter()
            .filter_map(|(kind, range)| Some((styles.syntax(kind), raw.get(range)?)))
            .collect(),
        None => vec![(styles.code_block, raw.as_str())],
    };
    let mut row: Vec<Span<'static>> = vec![Span::raw(indent.to_owned())];
    let mut used = 0;
    for (style, text) in spans {
        let mut piece = String::new();
        for ch in text.chars() {
            let w = unicode_width::UnicodeWidthChar::width(ch).unwrap_or(0);
            if used + w > room && used > 0 {
                row.push(Span::styled(std::mem::take(&mut piece), style));
                out.push(Line::from(std::mem::replace(
                    &mut row,
                    vec![Span::raw(indent.to_owned())],
                )));
                used = 0;
            }
            piece.push(ch);
            used += w;
        }
        if !piece.is_empty() {
            row.push(Span::styled(piece, style));
        }
    }
    out.push(Line::from(row));
}

fn is_table_row(line: &str) -> bool {
    line.starts_with('|') && line.trim_end().len() > 1 && line.trim_end().ends_with('|')
}

/// A markdown table with its columns aligned; the `|---|` row becomes a rule. A table wider
/// than the room is shown as written, wrapped.
fn table(rows: &[&str], indent: &str, room: usize, styles: Styles, out: &mut Vec<Line<'static>>) {
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
            let inner = row.trim().trim_start_matches('|').trim_end_matches('|');
            inner.split('|').map(|c| links(c.trim())).collect()
        })
        .collect();
    let is_rule = |row: &[String]| {
        row.iter()
            .all(|c| !c.is_empty() && c.chars().all(|ch| matches!(ch, '-' | ':' | ' ')))
    };
    let columns = cells.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![0; columns];
    for row in cells.iter().filter(|r| !is_rule(r)) {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.width());
        }
    }
    let total: usize = widths.iter().sum::<usize>() + 3 * columns.saturating_sub(1);
    if total > room {
        for row in rows {
            block_line(row, indent, room, styles, out);
        }
        return;
    }
    for (n, row) in cells.iter().enumerate() {
        if is_rule(row) {
            let rule: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
            out.push(Line::from(vec![
                Span::raw(indent.to_owned()),
                Span::styled(rule.join("─┼─"), styles.muted),
            ]));
            continue;
        }
        let mut spans = vec![Span::raw(indent.to_owned())];
        for (c, width) in widths.iter().enumerate() {
            let cell = row.get(c).map_or("", String::as_str);
            if c > 0 {
                spans.push(Span::styled(" │ ", styles.muted));
            }
            let pad = " ".repeat(width.saturating_sub(cell.width()));
            let style = if n == 0 {
                Style::default().add_modifier(Modifier::BOLD)
            } else {
                Style::default()
            };
            spans.push(Span::styled(format!("{cell}{pad}"), style));
        }
        out.push(Line::from(spans));
    }
}

/// `[text](url)` → `text (url)`; a link whose text is its address shows once.
fn links(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        let parsed = after.find("](").and_then(|close| {
            let url_part = &after[close + 2..];
            url_part
                .find(')')
                .map(|end| (&after[..close], &url_part[..end], close + 2 + end + 1))
        });
        match parsed {
            Some((text, url, used)) if !text.contains('[') && !url.contains(' ') => {
                out.push_str(&rest[..open]);
                out.push_str(text);
                if text != url {
                    out.push_str(&format!(" ({url})"));
                }
                rest = &after[used..];
            }
            _ => {
                out.push_str(&rest[..=open]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// One line outside code fences: its block marker, then wrapped inline text.
fn block_line(raw: &str, indent: &str, room: usize, styles: Styles, out: &mut Vec<Line<'static>>) {
    let trimmed = raw.trim_start();
    let lead = &raw[..raw.len() - trimmed.len()];
    let (marker, body, base) = if let Some(level) = heading_level(trimmed) {
        ("", trimmed[level..].trim_start(), styles.heading)
    } else if let Some(rest) = trimmed
        .strip_prefix("- ")
        .or_else(|| trimmed.strip_prefix("* "))
        .or_else(|| trimmed.strip_prefix("+ "))
    {
        ("• ", rest, Style::default())
    } else if let Some(rest) = trimmed.strip_prefix('>') {
        ("│ ", rest.trim_start(), styles.quote)
    } else {
        ("", trimmed, Style::default())
    };
    let prefix = format!("{lead}{marker}");
    let hang = " ".repeat(prefix.chars().count());
    let mut state = Inline::default();
    for (i, line) in wrap(body, room.saturating_sub(hang.len()).max(1))
        .into_iter()
        .enumerate()
    {
        let lead_text = if i == 0 { prefix.clone() } else { hang.clone() };
        let mut spans = vec![
            Span::raw(indent.to_owned()),
            Span::styled(lead_text, styles.muted),
        ];
        spans.extend(state.spans(&line, base, styles));
        out.push(Line::from(spans));
    }
}

fn heading_level(line: &str) -> Option<usize> {
    let hashes = line.bytes().take_while(|b| *b == b'#').count();
    ((1..=6).contains(&hashes) && line[hashes..].starts_with(' ')).then_some(hashes)
}

/// Inline markers open so far (they carry over to the next wrapped line).
#[derive(Default)]
struct Inline {
    code: bool,
    bold: bool,
}

impl Inline {
    fn spans(&mut self, line: &str, base: Style, styles: Styles) -> Vec<Span<'static>> {
        let mut spans = Vec::new();
        let mut current = String::new();
        let mut rest = line;
        while let Some(ch) = rest.chars().next() {
            let marker = if rest.starts_with('`') {
                Some(1)
            } else if rest.starts_with("**") && !self.code {
                Some(2)
            } else {
                None
            };
            match marker {
                Some(len) => {
                    if !current.is_empty() {
                        spans.push(Span::styled(
                            std::mem::take(&mut current),
                            self.style(base, styles),
                        ));
                    }
                    if len == 1 {
                        self.code = !self.code;
                    } else {
                        self.bold = !self.bold;
                    }
                    rest = &rest[len..];
                }
                None => {
                    current.push(ch);
                    rest = &rest[ch.len_utf8()..];
                }
            }
        }
        if !current.is_empty() {
            spans.push(Span::styled(current, self.style(base, styles)));
        }
        spans
    }

    fn style(&self, base: Style, styles: Styles) -> Style {
        let style = if self.code { styles.code } else { base };
        if self.bold {
            style.add_modifier(Modifier::BOLD)
        } else {
            style
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(lines: &[Line]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    #[test]
    fn blocks_and_inline_markers() {
        let text = "# Title\n- one `x`\n> quoted\n```rust\nlet a = 1;\n```\n**bold** end";
        let lines = render(
            text,
            "  ",
            40,
            Styles::new(ColorLevel::None, &Theme::dark()),
        );
        assert_eq!(
            plain(&lines),
            [
                "  Title",
                "  • one x",
                "  │ quoted",
                "  ─── rust",
                "  let a = 1;",
                "  ───",
                "  bold end"
            ]
        );
        let styled = render(
            "a `code` b",
            "",
            40,
            Styles::new(ColorLevel::TrueColor, &Theme::dark()),
        );
        assert_eq!(styled[0].spans[3].content, "code");
        assert_eq!(
            styled[0].spans[3].style.fg,
            Theme::dark().get(Token::MdCode)
        );
    }

    #[test]
    fn tables_line_up_and_links_show_their_address() {
        let text = "| name | size |\n|---|---|\n| a.rs | 12 |\n| long_name.rs | 3 |\nsee [docs](https://x.dev) and [https://y.dev](https://y.dev)";
        let lines = render(text, "", 60, Styles::new(ColorLevel::None, &Theme::dark()));
        assert_eq!(
            plain(&lines),
            [
                "name         │ size",
                "─────────────┼─────",
                "a.rs         │ 12  ",
                "long_name.rs │ 3   ",
                "see docs (https://x.dev) and https://y.dev",
            ]
        );
    }

    #[test]
    fn code_blocks_are_highlighted_and_cut_to_the_width() {
        let text = "```rust\nfn main() { let s = \"hi\"; }\n```";
        let lines = render(
            text,
            "",
            12,
            Styles::new(ColorLevel::TrueColor, &Theme::dark()),
        );
        assert_eq!(
            plain(&lines),
            ["─── rust", "fn main() { ", "let s = \"hi\"", "; }", "───"]
        );
        let keyword = &lines[1].spans[1];
        assert_eq!(keyword.content, "fn");
        assert_eq!(keyword.style.fg, Theme::dark().get(Token::SyntaxKeyword));
    }
}
