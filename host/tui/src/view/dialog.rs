//! Drawing an extension's dialog over the editor: a bordered box naming the extension, the
//! title (with the seconds left when it has a timeout), what it asks, and the keys it takes.
//! Laid out as pi's extension selector and input are: a `→` marks the chosen option. An
//! approval shows the call above its numbered options (`approval`), cut to the rows there are.

use super::{Palette, approval};
use crate::dialog::{Dialog, Kind};
use crate::theme::Token;
use crate::wrap::wrap;
use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Padding, Paragraph};
use unicode_width::UnicodeWidthStr;

/// The dialog shown, with the whole seconds left before its timeout.
#[derive(Debug, Clone, Copy)]
pub struct DialogView<'a> {
    pub dialog: &'a Dialog,
    pub seconds_left: Option<u64>,
}

/// Options shown at once; a longer list scrolls with the selection.
const VISIBLE_OPTIONS: usize = 10;

/// The box's rows (border included) at `width` columns (a column of padding each side), when
/// it may take at most `rows` (only an approval's preview is cut to fit).
pub(super) fn height(view: &DialogView, palette: &Palette, width: u16, rows: u16) -> u16 {
    let inner = width.saturating_sub(4).max(1) as usize;
    let room = usize::from(rows.saturating_sub(2));
    body(view, palette, inner, room).0.len() as u16 + 2
}

/// Draws the dialog into `area`; an input dialog places the cursor in its line.
pub(super) fn draw(frame: &mut Frame, view: &DialogView, palette: &Palette, area: Rect) {
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(palette.style(Token::BorderAccent))
        .padding(Padding::horizontal(1))
        .title(Span::styled(
            format!(" {} ", view.dialog.from),
            palette.style(Token::Muted),
        ));
    let inner = block.inner(area);
    let room = usize::from(inner.height);
    let (lines, cursor) = body(view, palette, inner.width.max(1) as usize, room);
    frame.render_widget(Paragraph::new(lines).block(block), area);
    if let Some((row, col)) = cursor {
        let x = inner
            .x
            .saturating_add(col)
            .min(inner.right().saturating_sub(1));
        frame.set_cursor_position(Position::new(x, inner.y.saturating_add(row)));
    }
}

/// The lines inside the box (an approval's preview cut so they fit in `room` rows), and where
/// the cursor goes (row, column) when it is shown.
fn body(
    view: &DialogView,
    palette: &Palette,
    width: usize,
    room: usize,
) -> (Vec<Line<'static>>, Option<(u16, u16)>) {
    let dialog = view.dialog;
    let mut title = dialog.title.clone();
    if let Some(left) = view.seconds_left {
        title.push_str(&format!(" ({left}s)"));
    }
    let mut lines: Vec<Line<'static>> = wrap(&title, width)
        .into_iter()
        .map(|l| Line::styled(l, palette.bold(Token::Accent)))
        .collect();
    let mut cursor = None;
    let hint = match &dialog.kind {
        Kind::Confirm { message, yes } => {
            lines.extend(wrap(message, width).into_iter().map(Line::from));
            lines.push(Line::default());
            lines.push(option_line("Yes", *yes, palette));
            lines.push(option_line("No", !*yes, palette));
            "y yes  n no  ↑↓ choose  enter select  esc cancel".to_owned()
        }
        Kind::Select { options, selected } => {
            return select_body(lines, view, options, *selected, palette, (width, room));
        }
        Kind::Input {
            placeholder,
            text,
            cursor: at,
        } => {
            lines.push(Line::default());
            let (line, col) = input_line(text, *at, placeholder.as_deref(), palette, width);
            cursor = Some((lines.len() as u16, col));
            lines.push(line);
            "enter submit  esc cancel".to_owned()
        }
    };
    lines.push(Line::default());
    push_hint(&mut lines, &hint, palette, width);
    (lines, cursor)
}

fn push_hint(lines: &mut Vec<Line<'static>>, hint: &str, palette: &Palette, width: usize) {
    let rows = wrap(hint, width).into_iter();
    lines.extend(rows.map(|row| Line::styled(row, palette.dim())));
}

/// A select's lines after its title: an approval's call (given the rows the rest leaves it,
/// and the blank rows too when it does not fit otherwise), the options and the keys.
fn select_body(
    mut lines: Vec<Line<'static>>,
    view: &DialogView,
    options: &[String],
    selected: usize,
    palette: &Palette,
    (width, room): (usize, usize),
) -> (Vec<Line<'static>>, Option<(u16, u16)>) {
    let approval = view.dialog.approval.as_ref();
    let hint = match approval {
        Some(_) => format!(
            "1-{} choose  ↑↓ navigate  enter select  esc deny",
            options.len().min(9)
        ),
        None => "↑↓ navigate  enter select  esc cancel".to_owned(),
    };
    let options = option_lines(options, selected, palette);
    let mut spaced = true;
    if let Some(approval) = approval {
        // Title, options and hint keep their rows; the call gets the rest.
        let fixed = lines.len() + options.len() + wrap(&hint, width).len();
        let whole = approval::lines(approval, palette, width, usize::MAX).len();
        spaced = fixed + 2 + whole <= room;
        let left = room.saturating_sub(fixed + if spaced { 2 } else { 0 });
        lines.extend(approval::lines(approval, palette, width, left));
    }
    let blank = || spaced.then(Line::default);
    lines.extend(blank());
    lines.extend(options);
    lines.extend(blank());
    push_hint(&mut lines, &hint, palette, width);
    (lines, None)
}

fn option_line(label: &str, chosen: bool, palette: &Palette) -> Line<'static> {
    if chosen {
        Line::styled(format!("→ {label}"), palette.style(Token::Accent))
    } else {
        Line::from(format!("  {label}"))
    }
}

/// The options around the selection, with where the list is when it does not fit.
fn option_lines(options: &[String], selected: usize, palette: &Palette) -> Vec<Line<'static>> {
    let start = selected
        .saturating_sub(VISIBLE_OPTIONS / 2)
        .min(options.len().saturating_sub(VISIBLE_OPTIONS));
    let end = (start + VISIBLE_OPTIONS).min(options.len());
    let mut lines: Vec<Line<'static>> = options[start..end]
        .iter()
        .enumerate()
        .map(|(i, option)| option_line(option, start + i == selected, palette))
        .collect();
    if start > 0 || end < options.len() {
        let at = format!("  ({}/{})", selected + 1, options.len());
        lines.push(Line::styled(at, palette.style(Token::Muted)));
    }
    lines
}

/// `› text`, or the placeholder dimmed while nothing is typed; the end of a long line is
/// shown. Returns the line and the cursor's column.
fn input_line(
    text: &str,
    cursor: usize,
    placeholder: Option<&str>,
    palette: &Palette,
    width: usize,
) -> (Line<'static>, u16) {
    let prompt = Span::styled("› ", palette.style(Token::Accent));
    if text.is_empty() {
        let shown = Span::styled(placeholder.unwrap_or("").to_owned(), palette.dim());
        return (Line::from(vec![prompt, shown]), 2);
    }
    let room = width.saturating_sub(3).max(1);
    let before: String = text.chars().take(cursor).collect();
    // Scroll so the cursor stays in view.
    let mut skip = 0;
    while before.chars().skip(skip).collect::<String>().width() > room {
        skip += 1;
    }
    let shown: String = text.chars().skip(skip).collect();
    let col = 2 + before.chars().skip(skip).collect::<String>().width();
    let line = Line::from(vec![prompt, Span::raw(shown)]);
    (line, col as u16)
}
