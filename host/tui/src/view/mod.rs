//! Drawing one frame: the transcript (scrollable, following the end unless scrolled back), the
//! queued messages, the working indicator, the editor (or an extension's dialog in its place)
//! and the footer (with the extensions' status line under it when they set one). Everything is computed
//! from [`Screen`], so a frame is a pure function of the state (the snapshot tests rely on it).
//! The transcript's lines come from [`LineCache`], which draws each item once (`lines`, `items`).

mod approval;
mod dialog;
mod footer;
mod items;
mod lines;
mod subagents;

pub use dialog::DialogView;
pub use footer::{Footer, status_text};
use footer::{footer_line, status_slots_line};
pub use lines::{LineCache, plain_transcript, scrollback_lines};

use crate::color::ColorLevel;
use crate::editor::Editor;
use crate::theme::{Theme, Token};
use crate::transcript::Transcript;
use crate::wrap::wrap;
use pi_ext_api::MessageRenderer;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{
    Block, Borders, Paragraph, Scrollbar, ScrollbarOrientation, ScrollbarState,
};
use std::cell::RefCell;
use std::sync::Arc;
use unicode_width::UnicodeWidthStr;

/// Everything a frame is drawn from.
pub struct Screen<'a> {
    pub transcript: &'a Transcript,
    pub editor: &'a Editor,
    pub footer: &'a Footer,
    /// Lines scrolled back from the end (0: follow the end).
    pub scroll: usize,
    /// Tool output shown whole (Ctrl+O).
    pub expanded: bool,
    /// Thinking blocks shown (Ctrl+T).
    pub show_thinking: bool,
    /// A hint for the status line (e.g. "Press Ctrl+C again to exit").
    pub hint: Option<String>,
    /// The colours the terminal shows.
    pub colors: ColorLevel,
    /// Frames drawn so far, for the spinner.
    pub tick: usize,
    /// The transcript's lines as drawn last time (kept by the caller between frames).
    pub lines: &'a RefCell<LineCache>,
    /// The transcript search being typed, when one is open: its matches are highlighted.
    pub search: Option<&'a str>,
    /// Regular layout: the first item not yet printed to the terminal's scrollback (only
    /// those from it on are drawn). `None`: fullscreen, the whole transcript, scrollable.
    pub live_from: Option<usize>,
    /// Completions offered above the editor: (label, detail), and which one is selected.
    pub popup: &'a [(String, String)],
    pub popup_selected: usize,
    /// Most rows the list takes at once (it scrolls with the selection): the completions'
    /// `autocompleteMaxVisible`, the selectors' own height.
    pub popup_height: usize,
    /// The extensions' renderers of custom messages and tool results.
    pub renderers: &'a [Arc<dyn MessageRenderer>],
    /// How the terminal draws pictures (none: placeholders only).
    pub images: crate::images::ImageProtocol,
    /// The colours of the UI's parts.
    pub theme: &'a Theme,
    /// An extension's dialog, drawn in the editor's place while it is open.
    pub dialog: Option<DialogView<'a>>,
    /// The extensions' footer statuses (`setStatus`), in the order of their keys.
    pub statuses: Vec<String>,
}

impl<'a> Screen<'a> {
    /// A screen of `transcript`, `editor` and `footer` with everything else at rest: following
    /// the end, nothing expanded, no hint, search, completion or renderers, full colour, the
    /// fullscreen layout.
    pub fn new(
        transcript: &'a Transcript,
        editor: &'a Editor,
        footer: &'a Footer,
        lines: &'a RefCell<LineCache>,
    ) -> Self {
        Screen {
            transcript,
            editor,
            footer,
            scroll: 0,
            expanded: false,
            show_thinking: false,
            hint: None,
            colors: ColorLevel::TrueColor,
            tick: 0,
            lines,
            search: None,
            live_from: None,
            popup: &[],
            popup_selected: 0,
            popup_height: SELECTOR_ROWS,
            renderers: &[],
            images: crate::images::ImageProtocol::None,
            theme: Theme::default_dark(),
            dialog: None,
            statuses: Vec::new(),
        }
    }
}

pub(crate) struct Palette<'t> {
    pub(crate) colors: ColorLevel,
    pub(crate) theme: &'t Theme,
}

impl Palette<'_> {
    pub(crate) fn of<'s>(screen: &Screen<'s>) -> Palette<'s> {
        Palette {
            colors: screen.colors,
            theme: screen.theme,
        }
    }

    /// The style of a token: its colour fitted to the terminal (none when it has none).
    pub(crate) fn style(&self, token: Token) -> Style {
        match self.theme.get(token) {
            Some(color) => self.color(color),
            None => Style::default(),
        }
    }

    /// A colour as the terminal can show it.
    pub(crate) fn color(&self, fg: Color) -> Style {
        match self.colors.fit(fg) {
            Some(fg) => Style::default().fg(fg),
            None => Style::default(),
        }
    }

    pub(crate) fn dim(&self) -> Style {
        Style::default().add_modifier(Modifier::DIM)
    }

    pub(crate) fn bold(&self, fg: Token) -> Style {
        self.style(fg).add_modifier(Modifier::BOLD)
    }
}

/// Draws the whole screen.
pub fn draw(frame: &mut Frame, screen: &Screen) {
    let area = frame.area();
    let palette = Palette::of(screen);
    let queue = queue_lines(screen.transcript, &palette, area.width as usize);
    let editor_width = area.width.saturating_sub(2).max(1) as usize;
    let footer_rows = 1 + u16::from(!screen.statuses.is_empty());
    // A dialog takes the editor's place (and the completion list's), leaving the status line
    // and, in the fullscreen layout, a row of the transcript.
    let (editor_rows, popup) = match &screen.dialog {
        Some(view) => {
            let kept = queue.len() as u16 + footer_rows + 1 + u16::from(screen.live_from.is_none());
            let rows = area.height.saturating_sub(kept);
            (dialog::height(view, &palette, area.width, rows), 0)
        }
        None => {
            let lines = wrap(screen.editor.text(), editor_width).len().clamp(1, 10);
            let popup = screen.popup.len().min(screen.popup_height) as u16;
            (lines as u16 + 2, popup)
        }
    };
    let fixed = queue.len() as u16 + popup + 1 + editor_rows + footer_rows;
    // Fullscreen: the transcript takes what is left. Regular: the live items come first and take
    // only the rows they need, so the editor follows them.
    let transcript_rows = match screen.live_from {
        None => Constraint::Min(1),
        Some(from) => {
            let room = area.height.saturating_sub(fixed) as usize;
            let mut cache = screen.lines.borrow_mut();
            cache.update(screen, &palette, area.width as usize);
            Constraint::Length(cache.lines_from(from).min(room) as u16)
        }
    };
    let [
        transcript_area,
        queue_area,
        status_area,
        popup_area,
        editor_area,
        footer_area,
    ] = Layout::vertical([
        transcript_rows,
        Constraint::Length(queue.len() as u16),
        Constraint::Length(1),
        Constraint::Length(popup),
        Constraint::Length(editor_rows),
        Constraint::Length(footer_rows),
    ])
    .flex(ratatui::layout::Flex::Start)
    .areas(area);
    match screen.live_from {
        None => draw_transcript(frame, screen, &palette, transcript_area),
        Some(from) => draw_live(frame, screen, from, transcript_area),
    }
    frame.render_widget(Paragraph::new(queue), queue_area);
    frame.render_widget(Paragraph::new(status_line(screen, &palette)), status_area);
    draw_popup(frame, screen, &palette, popup_area);
    match &screen.dialog {
        Some(view) => dialog::draw(frame, view, &palette, editor_area),
        None => draw_editor(frame, screen, &palette, editor_area),
    }
    let width = footer_area.width as usize;
    let mut footer = vec![footer_line(screen, &palette, width)];
    if !screen.statuses.is_empty() {
        footer.push(status_slots_line(&screen.statuses, &palette, width));
    }
    frame.render_widget(Paragraph::new(footer), footer_area);
}

/// Regular layout: the items not yet printed to the scrollback, their last lines when they do
/// not fit.
fn draw_live(frame: &mut Frame, screen: &Screen, from: usize, area: Rect) {
    let cache = screen.lines.borrow();
    let lines = cache.item_range(from, usize::MAX);
    let skip = lines.len().saturating_sub(area.height as usize);
    frame.render_widget(Paragraph::new(lines[skip..].to_vec()), area);
}

/// Rows of a selector's list (models, sessions, the tree's entries, …).
pub const SELECTOR_ROWS: usize = 10;

/// The completion list above the editor, the selected row highlighted.
fn draw_popup(frame: &mut Frame, screen: &Screen, palette: &Palette, area: Rect) {
    let rows = area.height as usize;
    if rows == 0 {
        return;
    }
    let selected = screen
        .popup_selected
        .min(screen.popup.len().saturating_sub(1));
    let top = selected.saturating_sub(rows - 1);
    let lines: Vec<Line> = screen
        .popup
        .iter()
        .enumerate()
        .skip(top)
        .take(rows)
        .map(|(i, (label, detail))| {
            let style = if i == selected {
                palette
                    .style(Token::Accent)
                    .add_modifier(Modifier::REVERSED)
            } else {
                Style::default()
            };
            Line::from(vec![
                Span::styled(format!("  {label}"), style),
                Span::styled(format!("  {detail}"), palette.dim()),
            ])
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), area);
}

fn draw_transcript(frame: &mut Frame, screen: &Screen, palette: &Palette, area: Rect) {
    // The last column is the scrollbar's.
    let width = area.width.saturating_sub(1) as usize;
    let mut cache = screen.lines.borrow_mut();
    cache.update(screen, palette, width);
    let total = cache.total();
    let height = area.height as usize;
    cache.height = height;
    let end = total.saturating_sub(screen.scroll.min(total));
    let start = end.saturating_sub(height);
    cache.view = Some((start, area));
    frame.render_widget(Paragraph::new(cache.slice(start, end, screen.search)), area);
    if total > height {
        let mut state = ScrollbarState::new(total.saturating_sub(height))
            .position(start)
            .viewport_content_length(height);
        let bar = Scrollbar::new(ScrollbarOrientation::VerticalRight)
            .begin_symbol(None)
            .end_symbol(None)
            .style(palette.dim());
        frame.render_stateful_widget(bar, area, &mut state);
    }
}

fn queue_lines(transcript: &Transcript, palette: &Palette, width: usize) -> Vec<Line<'static>> {
    let queued = transcript
        .steering
        .iter()
        .map(|t| ("Steer: ", t))
        .chain(transcript.follow_up.iter().map(|t| ("Follow-up: ", t)));
    queued
        .map(|(label, text)| {
            let first = text.lines().next().unwrap_or("");
            let room = width.saturating_sub(label.width() + 2);
            let shown: String = first.chars().take(room).collect();
            Line::from(vec![
                Span::styled(format!("  {label}"), palette.style(Token::Accent)),
                Span::styled(shown, palette.dim()),
            ])
        })
        .collect()
}

const SPINNER: [&str; 8] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧"];

fn status_line(screen: &Screen, palette: &Palette) -> Line<'static> {
    if let Some(hint) = &screen.hint {
        return Line::styled(format!(" {hint}"), palette.style(Token::Warning));
    }
    if let Some((at, attempt, max)) = screen.transcript.retry {
        let left = at.saturating_duration_since(std::time::Instant::now());
        return Line::styled(
            format!(
                " ⟳ Retrying in {}s (attempt {attempt}/{max}; Esc to stop)",
                left.as_millis().div_ceil(1000)
            ),
            palette.style(Token::Warning),
        );
    }
    if screen.transcript.bash_running() && !screen.transcript.working {
        let spin = SPINNER[screen.tick % SPINNER.len()];
        return Line::from(vec![
            Span::styled(format!(" {spin} Running… "), palette.style(Token::BashMode)),
            Span::styled("(Esc to cancel the command)", palette.dim()),
        ]);
    }
    if screen.transcript.working {
        let spin = SPINNER[screen.tick % SPINNER.len()];
        // While a dialog is open the keys are the dialog's: Esc cancels it, not the run.
        let keys = if screen.dialog.is_some() {
            "(waiting for your answer below; Esc cancels the dialog)"
        } else {
            "(Esc to interrupt, Enter to steer, Alt+Enter to follow up)"
        };
        return Line::from(vec![
            Span::styled(format!(" {spin} Working… "), palette.style(Token::Accent)),
            Span::styled(keys, palette.dim()),
        ]);
    }
    if screen.scroll > 0 {
        return Line::styled(
            format!(" ↑ {} lines back (PageDown to return)", screen.scroll),
            palette.dim(),
        );
    }
    Line::default()
}

/// The editor's border says the thinking level, as pi's does.
fn thinking_border(level: &str) -> Token {
    match level {
        "minimal" => Token::ThinkingMinimal,
        "low" => Token::ThinkingLow,
        "medium" => Token::ThinkingMedium,
        "high" => Token::ThinkingHigh,
        "xhigh" => Token::ThinkingXhigh,
        "max" => Token::ThinkingMax,
        _ => Token::ThinkingOff,
    }
}

fn draw_editor(frame: &mut Frame, screen: &Screen, palette: &Palette, area: Rect) {
    let editor = screen.editor;
    let thinking = screen.footer.thinking.as_str();
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(palette.style(thinking_border(thinking)));
    let inner = block.inner(area);
    let width = inner.width.max(1) as usize;
    let lines = wrap(editor.text(), width);
    let (row, col) = cursor_cell(editor, width);
    let top = row.saturating_sub(inner.height.saturating_sub(1) as usize);
    let shown: Vec<Line> = lines.into_iter().skip(top).map(Line::from).collect();
    frame.render_widget(Paragraph::new(shown).block(block), area);
    let x = inner.x.saturating_add(col as u16);
    let y = inner.y.saturating_add((row - top) as u16);
    frame.set_cursor_position(Position::new(x.min(inner.right().saturating_sub(1)), y));
}

/// The screen row and column of the editor's cursor, with the text wrapped to `width`.
fn cursor_cell(editor: &Editor, width: usize) -> (usize, usize) {
    let before = &editor.text()[..editor.cursor()];
    let lines = wrap(before, width);
    let row = lines.len().saturating_sub(1);
    let col = lines.last().map_or(0, |l| l.width());
    // A line filled to the width puts the cursor at the start of the next one.
    if col >= width {
        (row + 1, 0)
    } else {
        (row, col)
    }
}
