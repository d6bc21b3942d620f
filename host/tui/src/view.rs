//! Drawing one frame: the transcript (scrollable, following the end unless scrolled back), the
//! queued messages, the working indicator, the editor and the footer. Everything is computed
//! from [`Screen`], so a frame is a pure function of the state (the snapshot tests rely on it).

use crate::color::ColorLevel;
use crate::editor::Editor;
use crate::markdown;
use crate::transcript::{Item, ToolCall, Transcript};
use crate::wrap::wrap;
use pi_ai::AssistantBlock;
use pi_ext_api::{MessageRenderer, RenderTarget, StyledLine};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{
    Block, Borders, Paragraph, Scrollbar, ScrollbarOrientation, ScrollbarState,
};
use serde_json::Value;
use std::cell::RefCell;
use std::sync::Arc;
use unicode_width::UnicodeWidthStr;

/// Lines of a tool's output shown before Ctrl+O expands it.
const TOOL_TAIL: usize = 8;

/// What the footer shows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Footer {
    /// The working directory, `~` for the home directory.
    pub cwd: String,
    /// The git branch checked out there.
    pub branch: Option<String>,
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
    /// The extensions' renderers of custom messages and tool results.
    pub renderers: &'a [Arc<dyn MessageRenderer>],
}

struct Palette {
    colors: ColorLevel,
}

impl Palette {
    fn style(&self, fg: Color) -> Style {
        match self.colors.fit(fg) {
            Some(fg) => Style::default().fg(fg),
            None => Style::default(),
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
        colors: screen.colors,
    };
    let queue = queue_lines(screen.transcript, &palette, area.width as usize);
    let editor_width = area.width.saturating_sub(2).max(1) as usize;
    let editor_lines = wrap(screen.editor.text(), editor_width).len().clamp(1, 10);
    let popup = screen.popup.len().min(10) as u16;
    let fixed = queue.len() as u16 + popup + 1 + editor_lines as u16 + 2 + 1;
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
        Constraint::Length(editor_lines as u16 + 2),
        Constraint::Length(1),
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
    draw_editor(frame, screen.editor, &palette, editor_area);
    frame.render_widget(
        Paragraph::new(footer_line(screen, &palette, footer_area.width as usize)),
        footer_area,
    );
}

/// Regular layout: the items not yet printed to the scrollback, their last lines when they do
/// not fit.
fn draw_live(frame: &mut Frame, screen: &Screen, from: usize, area: Rect) {
    let cache = screen.lines.borrow();
    let lines = cache.item_range(from, usize::MAX);
    let skip = lines.len().saturating_sub(area.height as usize);
    frame.render_widget(Paragraph::new(lines[skip..].to_vec()), area);
}

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
                palette.style(Color::Cyan).add_modifier(Modifier::REVERSED)
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

/// The transcript as plain text lines for `width` cells (what is printed after the alternate
/// screen is left).
pub fn plain_transcript(screen: &Screen, width: usize) -> Vec<String> {
    let palette = Palette {
        colors: ColorLevel::None,
    };
    let mut cache = LineCache::default();
    cache.update(screen, &palette, width);
    cache
        .slice(0, cache.total(), None)
        .iter()
        .map(plain)
        .collect()
}

/// Regular layout: the lines of items `from..to` for `width` cells, to print above the live
/// region into the terminal's scrollback.
pub fn scrollback_lines(
    screen: &Screen,
    width: usize,
    from: usize,
    to: usize,
) -> Vec<Line<'static>> {
    let palette = Palette {
        colors: screen.colors,
    };
    let mut cache = screen.lines.borrow_mut();
    cache.update(screen, &palette, width);
    cache.item_range(from, to)
}

fn plain(line: &Line) -> String {
    line.spans.iter().map(|s| s.content.as_ref()).collect()
}

/// Each transcript item's screen lines, kept between frames until the item, the width or a
/// display toggle changes: a frame renders only what changed (the streaming answer), however
/// long the conversation.
#[derive(Debug, Default)]
pub struct LineCache {
    key: Option<CacheKey>,
    /// Per item: its revision and its lines (empty for an item that shows nothing).
    items: Vec<(u64, Vec<Line<'static>>)>,
    /// The transcript area's height at the last frame, for paging and jumps.
    pub height: usize,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct CacheKey {
    width: usize,
    expanded: bool,
    show_thinking: bool,
    colors: ColorLevel,
}

impl LineCache {
    fn update(&mut self, screen: &Screen, palette: &Palette, width: usize) {
        let key = CacheKey {
            width,
            expanded: screen.expanded,
            show_thinking: screen.show_thinking,
            colors: palette.colors,
        };
        if self.key != Some(key) {
            self.items.clear();
            self.key = Some(key);
        }
        let items = screen.transcript.items();
        self.items.truncate(items.len());
        for (index, item) in items.iter().enumerate() {
            let revision = screen.transcript.revision(index);
            if self.items.get(index).is_some_and(|(r, _)| *r == revision) {
                continue;
            }
            let mut lines = Vec::new();
            item_lines(&mut lines, item, screen, palette, width);
            match self.items.get_mut(index) {
                Some(slot) => *slot = (revision, lines),
                None => self.items.push((revision, lines)),
            }
        }
    }

    /// Where each item that shows something starts, in transcript lines: (item index, line).
    /// A blank line separates items.
    pub fn starts(&self) -> Vec<(usize, usize)> {
        let mut starts = Vec::new();
        let mut line = 0;
        for (index, (_, lines)) in self.items.iter().enumerate() {
            if lines.is_empty() {
                continue;
            }
            if !starts.is_empty() {
                line += 1;
            }
            starts.push((index, line));
            line += lines.len();
        }
        starts
    }

    /// The lines of items `from..to`, separated as in the transcript (what the regular layout
    /// prints to the scrollback, and draws live).
    pub fn item_range(&self, from: usize, to: usize) -> Vec<Line<'static>> {
        let mut out = Vec::new();
        let end = to.min(self.items.len());
        for (_, lines) in self.items.get(from..end).unwrap_or_default() {
            if lines.is_empty() {
                continue;
            }
            if !out.is_empty() || from > 0 {
                out.push(Line::default());
            }
            out.extend(lines.iter().cloned());
        }
        out
    }

    /// How many lines the items from `from` on take.
    fn lines_from(&self, from: usize) -> usize {
        let shown = self.items.iter().skip(from).filter(|(_, l)| !l.is_empty());
        shown.map(|(_, l)| l.len() + 1).sum::<usize>()
    }

    /// How many lines the transcript has.
    pub fn total(&self) -> usize {
        let shown = self.items.iter().filter(|(_, l)| !l.is_empty());
        let (count, lines) = shown.fold((0usize, 0usize), |(c, n), (_, l)| (c + 1, n + l.len()));
        lines + count.saturating_sub(1)
    }

    /// Lines `start..end` of the transcript, with `search` matches highlighted.
    fn slice(&self, start: usize, end: usize, search: Option<&str>) -> Vec<Line<'static>> {
        let mut out = Vec::with_capacity(end.saturating_sub(start));
        let mut line = 0;
        let mut first = true;
        for (_, lines) in &self.items {
            if lines.is_empty() {
                continue;
            }
            if !first {
                if (start..end).contains(&line) {
                    out.push(Line::default());
                }
                line += 1;
            }
            first = false;
            if line + lines.len() > start && line < end {
                let from = start.saturating_sub(line);
                let to = (end - line).min(lines.len());
                out.extend(lines[from..to].iter().map(|l| mark_matches(l, search)));
            }
            line += lines.len();
            if line >= end {
                break;
            }
        }
        out
    }

    /// The transcript lines that contain `query` (case-insensitive), in order.
    pub fn find(&self, query: &str) -> Vec<usize> {
        let query = query.to_lowercase();
        if query.is_empty() {
            return Vec::new();
        }
        let mut found = Vec::new();
        let total = self.total();
        for (n, line) in self.slice(0, total, None).iter().enumerate() {
            if plain(line).to_lowercase().contains(&query) {
                found.push(n);
            }
        }
        found
    }
}

/// `line` with the spans reversed where they contain `query`: a whole span lights up, which
/// is enough to see where the match is without splitting styled spans.
fn mark_matches(line: &Line<'static>, query: Option<&str>) -> Line<'static> {
    let Some(query) = query.filter(|q| !q.is_empty()) else {
        return line.clone();
    };
    let query = query.to_lowercase();
    if !plain(line).to_lowercase().contains(&query) {
        return line.clone();
    }
    let spans = line.spans.iter().map(|span| {
        if span.content.to_lowercase().contains(&query) {
            span.clone()
                .patch_style(Style::default().add_modifier(Modifier::REVERSED))
        } else {
            span.clone()
        }
    });
    Line::from(spans.collect::<Vec<_>>())
}

/// The screen lines of one transcript item for `width` cells.
fn item_lines(
    out: &mut Vec<Line<'static>>,
    item: &Item,
    screen: &Screen,
    palette: &Palette,
    width: usize,
) {
    match item {
        Item::User(text) => {
            prefixed(
                out,
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
                        prefixed(out, &t.thinking, "  ", palette.dim(), width, palette.dim());
                    }
                    AssistantBlock::Thinking(_) => {
                        out.push(Line::styled("  Thinking… (Ctrl+T shows it)", palette.dim()));
                    }
                    AssistantBlock::Text(t) => {
                        let styles = markdown::Styles::new(palette.colors);
                        out.extend(markdown::render(&t.text, "  ", width, styles));
                    }
                    AssistantBlock::ToolCall(_) => {}
                }
            }
            if *streaming {
                out.push(Line::styled("  ▍", palette.style(Color::Cyan)));
            }
        }
        Item::Tool(call) => {
            let output = call.output.as_ref().filter(|_| call.done);
            let target = output.map(|output| RenderTarget::ToolResult {
                tool_name: &call.name,
                arguments: &call.args,
                output,
                is_error: call.is_error,
                expanded: screen.expanded,
            });
            let rendered = target.and_then(|t| rendered(screen.renderers, &t, palette, width));
            match rendered {
                Some(Ok(lines)) => {
                    tool_header(out, call, palette, width);
                    out.extend(lines);
                }
                failed => {
                    tool_lines(out, call, screen.expanded, palette, width);
                    if let Some(Err(error)) = failed {
                        out.push(Line::styled(format!("    ({error})"), palette.dim()));
                    }
                }
            }
        }
        Item::Custom {
            custom_type,
            text,
            details,
        } => {
            let target = RenderTarget::CustomMessage {
                custom_type,
                payload: details,
            };
            match rendered(screen.renderers, &target, palette, width) {
                Some(Ok(lines)) => out.extend(lines),
                failed => {
                    let label = format!("[{custom_type}] ");
                    let style = palette.style(Color::Magenta);
                    prefixed(out, text, &label, style, width, Style::default());
                    if let Some(Err(error)) = failed {
                        out.push(Line::styled(format!("  ({error})"), palette.dim()));
                    }
                }
            }
        }
        Item::Notice { text, error } => {
            let color = if *error { Color::Red } else { Color::Yellow };
            prefixed(
                out,
                text,
                "• ",
                palette.style(color),
                width,
                palette.style(color),
            );
        }
    }
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

/// What the renderer that draws `target` made of it: `None` when no renderer draws it or it
/// left it to pi, `Some(Err)` when it failed (pi draws it then, and says so).
fn rendered(
    renderers: &[Arc<dyn MessageRenderer>],
    target: &RenderTarget<'_>,
    palette: &Palette,
    width: usize,
) -> Option<Result<Vec<Line<'static>>, String>> {
    let renderer = renderers.iter().find(|r| r.handles(target))?;
    match renderer.render(target, width as u32) {
        Ok(Some(lines)) => Some(Ok(lines
            .into_iter()
            .map(|line| styled_line(line, palette, width))
            .collect())),
        Ok(None) => None,
        Err(error) => Some(Err(format!("renderer failed: {error}"))),
    }
}

/// A renderer's line: theme colour names become colours; anything past `width` is cut (a
/// component's promise to keep to the width is not trusted).
fn styled_line(line: StyledLine, palette: &Palette, width: usize) -> Line<'static> {
    let mut room = width;
    let mut spans = Vec::new();
    for span in line {
        let text: String = crate::wrap::take_width(&span.text, room);
        room -= text.width().min(room);
        let mut style = Style::default();
        if let Some(fg) = span.style.fg.as_deref().and_then(theme_color) {
            style = style.patch(palette.style(fg));
        }
        if let Some(bg) = span.style.bg.as_deref().and_then(theme_color)
            && let Some(bg) = palette.colors.fit(bg)
        {
            style = style.bg(bg);
        }
        let modifiers = [
            (span.style.bold, Modifier::BOLD),
            (span.style.italic, Modifier::ITALIC),
            (span.style.dim, Modifier::DIM),
            (span.style.underline, Modifier::UNDERLINED),
        ];
        for (on, modifier) in modifiers {
            if on {
                style = style.add_modifier(modifier);
            }
        }
        spans.push(Span::styled(text, style));
    }
    Line::from(spans)
}

/// A theme colour name (pi's tokens) or `#rrggbb`.
fn theme_color(name: &str) -> Option<Color> {
    if let Some(hex) = name.strip_prefix('#').filter(|h| h.len() == 6) {
        let byte = |i: usize| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok();
        return Some(Color::Rgb(byte(0)?, byte(2)?, byte(4)?));
    }
    Some(match name {
        "accent" | "borderAccent" | "mdHeading" | "mdLink" => Color::Cyan,
        "success" | "toolDiffAdded" => Color::Green,
        "error" | "toolDiffRemoved" => Color::Red,
        "warning" => Color::Yellow,
        "muted" | "dim" | "borderMuted" | "thinkingText" => Color::DarkGray,
        "toolTitle" | "text" => Color::White,
        "mdCode" | "mdCodeBlock" => Color::LightYellow,
        "customMessageLabel" => Color::Magenta,
        _ => return None,
    })
}

/// The first line of a tool call: its state mark, name and what it was asked.
fn tool_header(out: &mut Vec<Line<'static>>, call: &ToolCall, palette: &Palette, width: usize) {
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
}

fn tool_lines(
    out: &mut Vec<Line<'static>>,
    call: &ToolCall,
    expanded: bool,
    palette: &Palette,
    width: usize,
) {
    tool_header(out, call, palette, width);
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
    if let Some(hint) = &screen.hint {
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
    if let Some(branch) = &footer.branch {
        left.push_str(&format!(" ({branch})"));
    }
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
