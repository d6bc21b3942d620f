//! Drawing one frame: the transcript (scrollable, following the end unless scrolled back), the
//! queued messages, the working indicator, the editor and the footer. Everything is computed
//! from [`Screen`], so a frame is a pure function of the state (the snapshot tests rely on it).

use crate::editor::Editor;
use crate::markdown;
use crate::transcript::{Item, ToolCall, Transcript};
use crate::wrap::wrap;
use pi_ai::AssistantBlock;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{
    Block, Borders, Paragraph, Scrollbar, ScrollbarOrientation, ScrollbarState,
};
use serde_json::Value;
use unicode_width::UnicodeWidthStr;

/// Lines of a tool's output shown before Ctrl+O expands it.
const TOOL_TAIL: usize = 8;

/// What the footer shows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Footer {
    /// The working directory, `~` for the home directory.
    pub cwd: String,
    pub session_name: Option<String>,
    pub model: String,
    pub thinking: String,
    pub context_window: u64,
}

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
    pub hint: Option<&'a str>,
    /// Colours off (`NO_COLOR`).
    pub no_color: bool,
    /// Frames drawn so far, for the spinner.
    pub tick: usize,
}

struct Palette {
    no_color: bool,
}

impl Palette {
    fn style(&self, fg: Color) -> Style {
        if self.no_color {
            Style::default()
        } else {
            Style::default().fg(fg)
        }
    }

    fn dim(&self) -> Style {
        Style::default().add_modifier(Modifier::DIM)
    }

    fn bold(&self, fg: Color) -> Style {
        self.style(fg).add_modifier(Modifier::BOLD)
    }
}

/// Draws the whole screen.
pub fn draw(frame: &mut Frame, screen: &Screen) {
    let area = frame.area();
    let palette = Palette {
        no_color: screen.no_color,
    };
    let queue = queue_lines(screen.transcript, &palette, area.width as usize);
    let editor_width = area.width.saturating_sub(2).max(1) as usize;
    let editor_lines = wrap(screen.editor.text(), editor_width).len().clamp(1, 10);
    let [
        transcript_area,
        queue_area,
        status_area,
        editor_area,
        footer_area,
    ] = Layout::vertical([
        Constraint::Min(1),
        Constraint::Length(queue.len() as u16),
        Constraint::Length(1),
        Constraint::Length(editor_lines as u16 + 2),
        Constraint::Length(1),
    ])
    .areas(area);
    draw_transcript(frame, screen, &palette, transcript_area);
    frame.render_widget(Paragraph::new(queue), queue_area);
    frame.render_widget(Paragraph::new(status_line(screen, &palette)), status_area);
    draw_editor(frame, screen.editor, &palette, editor_area);
    frame.render_widget(
        Paragraph::new(footer_line(screen, &palette, footer_area.width as usize)),
        footer_area,
    );
}

fn draw_transcript(frame: &mut Frame, screen: &Screen, palette: &Palette, area: Rect) {
    // The last column is the scrollbar's.
    let lines = transcript_lines(screen, palette, area.width.saturating_sub(1) as usize);
    let height = area.height as usize;
    let end = lines.len().saturating_sub(screen.scroll.min(lines.len()));
    let start = end.saturating_sub(height);
    let visible: Vec<Line> = lines[start..end].to_vec();
    frame.render_widget(Paragraph::new(visible), area);
    if lines.len() > height {
        let mut state = ScrollbarState::new(lines.len().saturating_sub(height))
            .position(start)
            .viewport_content_length(height);
        let bar = Scrollbar::new(ScrollbarOrientation::VerticalRight)
            .begin_symbol(None)
            .end_symbol(None)
            .style(palette.dim());
        frame.render_stateful_widget(bar, area, &mut state);
    }
}

/// The transcript as plain text lines for `width` cells (what is printed after the alternate
/// screen is left).
pub fn plain_transcript(screen: &Screen, width: usize) -> Vec<String> {
    let palette = Palette { no_color: true };
    transcript_lines(screen, &palette, width)
        .iter()
        .map(|line| line.spans.iter().map(|s| s.content.as_ref()).collect())
        .collect()
}

/// The transcript as screen lines for `width` cells.
fn transcript_lines(screen: &Screen, palette: &Palette, width: usize) -> Vec<Line<'static>> {
    let mut out: Vec<Line<'static>> = Vec::new();
    for item in &screen.transcript.items {
        if !out.is_empty() {
            out.push(Line::default());
        }
        match item {
            Item::User(text) => {
                prefixed(
                    &mut out,
                    text,
                    "› ",
                    palette.bold(Color::Cyan),
                    width,
                    Style::default(),
                );
            }
            Item::Assistant { message, streaming } => {
                for block in &message.content {
                    match block {
                        AssistantBlock::Thinking(t) if screen.show_thinking => {
                            prefixed(
                                &mut out,
                                &t.thinking,
                                "  ",
                                palette.dim(),
                                width,
                                palette.dim(),
                            );
                        }
                        AssistantBlock::Thinking(_) => {
                            out.push(Line::styled("  Thinking… (Ctrl+T shows it)", palette.dim()));
                        }
                        AssistantBlock::Text(t) => {
                            let styles = markdown::Styles::new(palette.no_color);
                            out.extend(markdown::render(&t.text, "  ", width, styles));
                        }
                        AssistantBlock::ToolCall(_) => {}
                    }
                }
                if *streaming {
                    out.push(Line::styled("  ▍", palette.style(Color::Cyan)));
                }
            }
            Item::Tool(call) => tool_lines(&mut out, call, screen.expanded, palette, width),
            Item::Notice { text, error } => {
                let color = if *error { Color::Red } else { Color::Yellow };
                prefixed(
                    &mut out,
                    text,
                    "• ",
                    palette.style(color),
                    width,
                    palette.style(color),
                );
            }
        }
    }
    out
}

/// `text` wrapped under a first-line prefix (and an indent of the same width after it).
fn prefixed(
    out: &mut Vec<Line<'static>>,
    text: &str,
    prefix: &str,
    prefix_style: Style,
    width: usize,
    text_style: Style,
) {
    let indent = " ".repeat(prefix.width());
    for (i, line) in wrap(text, width.saturating_sub(prefix.width()))
        .into_iter()
        .enumerate()
    {
        let lead = if i == 0 {
            prefix.to_owned()
        } else {
            indent.clone()
        };
        out.push(Line::from(vec![
            Span::styled(lead, prefix_style),
            Span::styled(line, text_style),
        ]));
    }
}

/// What a tool call's header says about its arguments.
fn tool_summary(call: &ToolCall) -> String {
    let arg = |key: &str| call.args.get(key).and_then(Value::as_str).unwrap_or("");
    match call.name.as_str() {
        "bash" => format!("$ {}", arg("command")),
        "read" => {
            let range = match (call.args.get("offset"), call.args.get("limit")) {
                (Some(o), Some(l)) => format!(":{o}+{l}"),
                (Some(o), None) => format!(":{o}"),
                _ => String::new(),
            };
            format!("{}{range}", arg("path"))
        }
        "edit" | "write" | "ls" => arg("path").to_owned(),
        "grep" | "find" => format!("{} {}", arg("pattern"), arg("path"))
            .trim()
            .to_owned(),
        _ => match &call.args {
            Value::Null => String::new(),
            other => other.to_string(),
        },
    }
}

fn tool_lines(
    out: &mut Vec<Line<'static>>,
    call: &ToolCall,
    expanded: bool,
    palette: &Palette,
    width: usize,
) {
    let (mark, color) = match (call.done, call.is_error) {
        (false, _) => ("○ ", Color::Yellow),
        (true, false) => ("● ", Color::Green),
        (true, true) => ("● ", Color::Red),
    };
    let header = format!("{} {}", call.name, tool_summary(call));
    prefixed(
        out,
        header.trim_end(),
        mark,
        palette.style(color),
        width,
        palette.bold(Color::White),
    );
    let text = match call.name.as_str() {
        "write" if !call.done => String::new(),
        "write" => call
            .args
            .get("content")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned(),
        "edit" => diff_text(call).unwrap_or_else(|| call.output_text()),
        _ => call.output_text(),
    };
    if text.is_empty() {
        return;
    }
    let lines = wrap(&text, width.saturating_sub(4));
    let hidden = if expanded {
        0
    } else {
        lines.len().saturating_sub(TOOL_TAIL)
    };
    if hidden > 0 {
        out.push(Line::styled(
            format!("    … {hidden} more lines (Ctrl+O to expand)"),
            palette.dim(),
        ));
    }
    for line in lines.into_iter().skip(hidden) {
        let style = match line.chars().next() {
            _ if call.is_error => palette.style(Color::Red),
            Some('+') if call.name == "edit" => palette.style(Color::Green),
            Some('-') if call.name == "edit" => palette.style(Color::Red),
            _ => palette.dim(),
        };
        out.push(Line::from(vec![
            Span::raw("    "),
            Span::styled(line, style),
        ]));
    }
}

/// The diff `edit` reports in its details, when it has one.
fn diff_text(call: &ToolCall) -> Option<String> {
    let output = call.output.as_ref()?;
    output.details.get("diff")?.as_str().map(str::to_owned)
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
                Span::styled(format!("  {label}"), palette.style(Color::Magenta)),
                Span::styled(shown, palette.dim()),
            ])
        })
        .collect()
}

const SPINNER: [&str; 8] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧"];

fn status_line(screen: &Screen, palette: &Palette) -> Line<'static> {
    if let Some(hint) = screen.hint {
        return Line::styled(format!(" {hint}"), palette.style(Color::Yellow));
    }
    if screen.transcript.working {
        let spin = SPINNER[screen.tick % SPINNER.len()];
        return Line::from(vec![
            Span::styled(format!(" {spin} Working… "), palette.style(Color::Cyan)),
            Span::styled(
                "(Esc to interrupt, Enter to steer, Alt+Enter to follow up)",
                palette.dim(),
            ),
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

fn draw_editor(frame: &mut Frame, editor: &Editor, palette: &Palette, area: Rect) {
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(palette.style(Color::DarkGray));
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

fn footer_line(screen: &Screen, palette: &Palette, width: usize) -> Line<'static> {
    let footer = screen.footer;
    let usage = screen.transcript.last_usage.unwrap_or_default();
    let context = usage.input + usage.cache_read + usage.cache_write + usage.output;
    let percent = if footer.context_window > 0 {
        (context as f64 * 100.0 / footer.context_window as f64).min(100.0)
    } else {
        0.0
    };
    let bar_color = match percent {
        p if p >= 90.0 => Color::Red,
        p if p >= 70.0 => Color::Yellow,
        _ => Color::Green,
    };
    let filled = ((percent / 10.0).round() as usize).min(10);
    let context_part = format!(
        "{}{} {percent:.0}%",
        "█".repeat(filled),
        "░".repeat(10 - filled)
    );
    // Most important last: the context gauge and the model stay when the line is narrow.
    let optional = [
        format!("${:.3}", usage.cost.total),
        format!(
            "↑{} ↓{} R{} W{}",
            short(usage.input),
            short(usage.output),
            short(usage.cache_read),
            short(usage.cache_write)
        ),
        footer.thinking.clone(),
        footer.model.clone(),
    ];
    let mut left = footer.cwd.clone();
    if let Some(name) = &footer.session_name {
        left.push_str(&format!(" • {name}"));
    }
    // The directory keeps up to 20 cells before anything optional is shown.
    let reserved = left.width().min(20) + 2;
    let mut right: Vec<String> = Vec::new();
    let mut used = context_part.width() + 1;
    for part in optional.iter().rev() {
        // A narrow line shows the model without its provider.
        let part = match part.split_once('/') {
            Some((_, id)) if used + part.width() + 3 + reserved > width => id.to_owned(),
            _ => part.clone(),
        };
        if used + part.width() + 3 + reserved > width {
            break;
        }
        used += part.width() + 3;
        right.push(part);
    }
    right.reverse();
    let room = width.saturating_sub(used + 2);
    let left = truncate_start(&left, room);
    let gap = width.saturating_sub(used + left.width() + 1).max(1);
    let mut spans = vec![
        Span::styled(format!(" {left}"), palette.dim()),
        Span::raw(" ".repeat(gap)),
    ];
    for part in right {
        spans.push(Span::styled(format!("{part} • "), palette.dim()));
    }
    spans.push(Span::styled(context_part, palette.style(bar_color)));
    Line::from(spans)
}

/// The end of `text` in at most `width` cells, with `…` where it was cut.
fn truncate_start(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_owned();
    }
    let mut kept: Vec<char> = Vec::new();
    let mut used = 1;
    for ch in text.chars().rev() {
        let w = unicode_width::UnicodeWidthChar::width(ch).unwrap_or(0);
        if used + w > width {
            break;
        }
        used += w;
        kept.push(ch);
    }
    let tail: String = kept.into_iter().rev().collect();
    if width == 0 {
        String::new()
    } else {
        format!("…{tail}")
    }
}

/// `1234` → `1.2k`, `2500000` → `2.5M`.
fn short(n: u64) -> String {
    match n {
        0..1000 => n.to_string(),
        1000..1_000_000 => format!("{:.1}k", n as f64 / 1000.0),
        _ => format!("{:.1}M", n as f64 / 1_000_000.0),
    }
}
