//! Markdown for the terminal, line by line so a streaming answer renders as it grows: headings
//! bold, list bullets, quotes with a bar, fenced code blocks in the code colour with their
//! language shown, and inline `code` and **bold** spans (which may continue over a wrapped
//! line). Tables and links are shown as written.

use crate::wrap::wrap;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

/// How markdown is coloured (plain when colours are off).
#[derive(Debug, Clone, Copy)]
pub struct Styles {
    pub code: Style,
    pub heading: Style,
    pub quote: Style,
    pub muted: Style,
}

impl Styles {
    pub fn new(no_color: bool) -> Self {
        let fg = |c: Color| {
            if no_color {
                Style::default()
            } else {
                Style::default().fg(c)
            }
        };
        Styles {
            code: fg(Color::LightYellow),
            heading: fg(Color::LightCyan).add_modifier(Modifier::BOLD),
            quote: fg(Color::Gray).add_modifier(Modifier::ITALIC),
            muted: Style::default().add_modifier(Modifier::DIM),
        }
    }
}

/// `text` as screen lines `width` cells wide, each starting with `indent`.
pub fn render(text: &str, indent: &str, width: usize, styles: Styles) -> Vec<Line<'static>> {
    let room = width.saturating_sub(indent.chars().count()).max(1);
    let mut out = Vec::new();
    let mut fence: Option<String> = None;
    for raw in text.split('\n') {
        let trimmed = raw.trim_start();
        if let Some(rest) = trimmed.strip_prefix("```") {
            let lang = rest.trim().to_owned();
            let label = match (&fence, lang.is_empty()) {
                (None, false) => format!("─── {lang}"),
                _ => "───".to_owned(),
            };
            fence = if fence.is_some() { None } else { Some(lang) };
            out.push(Line::from(vec![
                Span::raw(indent.to_owned()),
                Span::styled(label, styles.muted),
            ]));
            continue;
        }
        if fence.is_some() {
            for line in wrap(raw, room) {
                out.push(Line::from(vec![
                    Span::raw(indent.to_owned()),
                    Span::styled(line, styles.code),
                ]));
            }
            continue;
        }
        block_line(raw, indent, room, styles, &mut out);
    }
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
        let lines = render(text, "  ", 40, Styles::new(true));
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
        let styled = render("a `code` b", "", 40, Styles::new(false));
        assert_eq!(styled[0].spans[3].content, "code");
        assert_eq!(styled[0].spans[3].style.fg, Some(Color::LightYellow));
    }
}
