//! Drawing the call an approval dialog asks about: the tool (and the file it touches), then a
//! preview in the transcript's colours — a command with its programs and operators standing
//! out, an edit's `-`/`+` lines in the diff colours, the first lines of a file written, the
//! arguments as JSON. The preview is cut to the rows the screen leaves it, with a
//! "… N more lines" line, so the options under it always show.

use super::Palette;
use crate::approval::{Approval, Part, Preview, command_parts};
use crate::theme::Token;
use crate::wrap::wrap;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

/// Lines of a written file's content shown at most, however much room there is.
const WRITE_LINES: usize = 10;
/// Preview lines are indented this much under the tool's line.
const INDENT: &str = "  ";

/// The tool's line and the preview, in at most `room` rows of `width` cells (nothing when
/// there is no room at all).
pub(super) fn lines(
    approval: &Approval,
    palette: &Palette,
    width: usize,
    room: usize,
) -> Vec<Line<'static>> {
    if room == 0 {
        return Vec::new();
    }
    let mut head = vec![Span::styled(
        approval.tool.clone(),
        palette.bold(Token::ToolTitle),
    )];
    let inner = width.saturating_sub(INDENT.len()).max(1);
    let (rows, hidden) = match &approval.preview {
        Preview::Command(lines) => (command_rows(lines, palette, inner), 0),
        Preview::Edit { path, diff } => {
            head.push(Span::styled(
                format!(" {path}"),
                palette.style(Token::Accent),
            ));
            (diff_rows(diff, palette, inner), 0)
        }
        Preview::Write { path, content } => {
            head.push(Span::styled(
                format!(" {path}"),
                palette.style(Token::Accent),
            ));
            let shown = content.len().min(WRITE_LINES);
            let rows = plain_rows(&content[..shown], Style::default(), inner);
            (rows, content.len() - shown)
        }
        Preview::Arguments(json) => (plain_rows(json, palette.style(Token::ToolOutput), inner), 0),
    };
    let mut out = cut_head(head, width);
    out.extend(fit(rows, hidden, room - out.len(), palette));
    out
}

/// The tool's line, cut to one row.
fn cut_head(spans: Vec<Span<'static>>, width: usize) -> Vec<Line<'static>> {
    let mut used = 0;
    let mut kept = Vec::new();
    for span in spans {
        let text: String = span
            .content
            .chars()
            .take_while(|c| {
                used += c.width().unwrap_or(0);
                used <= width
            })
            .collect();
        kept.push(Span::styled(text, span.style));
    }
    vec![Line::from(kept)]
}

/// `rows` (and `hidden` lines left out already) in `room` rows: when they do not fit, the
/// last row says how many were left out.
fn fit(
    mut rows: Vec<Line<'static>>,
    hidden: usize,
    room: usize,
    palette: &Palette,
) -> Vec<Line<'static>> {
    let needed = rows.len() + usize::from(hidden > 0);
    if needed <= room {
        if hidden > 0 {
            rows.push(more(hidden, palette));
        }
        return rows;
    }
    if room == 0 {
        return Vec::new();
    }
    let keep = room - 1;
    let hidden = hidden + rows.len() - keep;
    rows.truncate(keep);
    rows.push(more(hidden, palette));
    rows
}

fn more(hidden: usize, palette: &Palette) -> Line<'static> {
    let s = if hidden == 1 { "" } else { "s" };
    Line::styled(format!("{INDENT}… {hidden} more line{s}"), palette.dim())
}

/// Lines in one style, wrapped and indented.
fn plain_rows(lines: &[String], style: Style, width: usize) -> Vec<Line<'static>> {
    lines
        .iter()
        .flat_map(|line| wrap(line, width))
        .map(|row| Line::styled(format!("{INDENT}{row}"), style))
        .collect()
}

/// An edit's lines: `-` in the removed colour, `+` in the added one.
fn diff_rows(diff: &[String], palette: &Palette, width: usize) -> Vec<Line<'static>> {
    diff.iter()
        .flat_map(|line| {
            let token = match line.chars().next() {
                Some('-') => Some(Token::ToolDiffRemoved),
                Some('+') => Some(Token::ToolDiffAdded),
                _ => None,
            };
            let style = token.map_or_else(|| palette.dim(), |t| palette.style(t));
            plain_rows(std::slice::from_ref(line), style, width)
        })
        .collect()
}

/// A command's lines, each cut at the width (a word is split where the row ends), its
/// programs and operators coloured.
fn command_rows(lines: &[String], palette: &Palette, width: usize) -> Vec<Line<'static>> {
    let mut rows = Vec::new();
    for line in lines {
        let mut row: Vec<Span<'static>> = Vec::new();
        let mut used = 0;
        for (text, part) in command_parts(line) {
            let style = match part {
                Part::Program => palette.bold(Token::BashMode),
                Part::Operator => palette.bold(Token::Warning),
                Part::Plain => Style::default(),
            };
            let mut piece = String::new();
            for c in text.chars() {
                let w = c.width().unwrap_or(0);
                if used + w > width && used > 0 {
                    row.push(Span::styled(std::mem::take(&mut piece), style));
                    rows.push(indented(std::mem::take(&mut row)));
                    used = 0;
                }
                piece.push(c);
                used += w;
            }
            row.push(Span::styled(piece, style));
        }
        rows.push(indented(row));
    }
    rows
}

fn indented(mut spans: Vec<Span<'static>>) -> Line<'static> {
    spans.insert(0, Span::raw(INDENT));
    Line::from(spans)
}
