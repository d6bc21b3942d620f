//! The transcript's screen lines: each item drawn once per width and display toggle, kept
//! until the item changes, and sliced for the frame, the scrollback and the search.

use super::items::{bash_lines, prefixed, rendered, tool_header, tool_lines};
use super::subagents::{Block, subagent_lines};
use super::{Palette, Screen};
use crate::color::ColorLevel;
use crate::images::{ImageProtocol, Picture, Placed};
use crate::markdown;
use crate::theme::Token;
use crate::transcript::Item;
use pi_ai::AssistantBlock;
use pi_ai::terminal_text::{Keep, terminal_safe};
use pi_ext_api::RenderTarget;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use std::sync::Arc;

/// The transcript as plain text lines for `width` cells (what is printed after the alternate
/// screen is left).
pub fn plain_transcript(screen: &Screen, width: usize) -> Vec<String> {
    let palette = Palette {
        colors: ColorLevel::None,
        theme: screen.theme,
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
    let palette = Palette::of(screen);
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
    /// Per item: its pictures, by the line (within the item) of their first row.
    pictures: Vec<Vec<(usize, Arc<Picture>)>>,
    /// The transcript area's height at the last frame, for paging and jumps.
    pub height: usize,
    /// The last frame's first transcript line and the area it was drawn in.
    pub(super) view: Option<(usize, Rect)>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct CacheKey {
    width: usize,
    expanded: bool,
    show_thinking: bool,
    colors: ColorLevel,
    images: ImageProtocol,
    theme: u64,
}

impl LineCache {
    pub(super) fn update(&mut self, screen: &Screen, palette: &Palette, width: usize) {
        let key = CacheKey {
            width,
            expanded: screen.expanded,
            show_thinking: screen.show_thinking,
            colors: palette.colors,
            images: screen.images,
            theme: palette.theme.id,
        };
        if self.key != Some(key) {
            self.items.clear();
            self.pictures.clear();
            self.key = Some(key);
        }
        let items = screen.transcript.items();
        self.items.truncate(items.len());
        self.pictures.resize_with(items.len(), Vec::new);
        for (index, item) in items.iter().enumerate() {
            let revision = screen.transcript.revision(index);
            // A running subagent block's spinners turn with the frames.
            if self.items.get(index).is_some_and(|(r, _)| *r == revision) && !animated(item) {
                continue;
            }
            let mut lines = Vec::new();
            item_lines(&mut lines, item, screen, palette, width);
            screen_safe(&mut lines);
            self.pictures[index] = pictures(&mut lines, item, screen.images, width);
            match self.items.get_mut(index) {
                Some(slot) => *slot = (revision, lines),
                None => self.items.push((revision, lines)),
            }
        }
    }

    /// The pictures wholly inside the last frame's transcript area, with their cells.
    pub fn visible_pictures(&self) -> Vec<Placed> {
        let Some((start, area)) = self.view else {
            return Vec::new();
        };
        let end = start + area.height as usize;
        let mut placed = Vec::new();
        for (index, line) in self.starts() {
            for (offset, picture) in self.pictures.get(index).into_iter().flatten() {
                let top = line + offset;
                if top >= start && top + picture.rows as usize <= end {
                    placed.push(Placed {
                        x: area.x + PICTURE_INDENT,
                        y: area.y + (top - start) as u16,
                        picture: Arc::clone(picture),
                    });
                }
            }
        }
        placed
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
    pub(super) fn lines_from(&self, from: usize) -> usize {
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
    pub(super) fn slice(
        &self,
        start: usize,
        end: usize,
        search: Option<&str>,
    ) -> Vec<Line<'static>> {
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

/// Makes every span of `lines` [`screen_text`](crate::wrap::screen_text). Text is already
/// cleaned where it is wrapped; this catches whatever reached a line another way (a header
/// built with `format!`, a highlighted code line), so no item's line can carry an escape
/// sequence to the screen, the scrollback or the transcript printed at exit. The UI's own
/// styling is in the spans' styles, not their text, and is kept.
fn screen_safe(lines: &mut [Line<'static>]) {
    for span in lines.iter_mut().flat_map(|line| line.spans.iter_mut()) {
        if let std::borrow::Cow::Owned(clean) = crate::wrap::screen_text(&span.content) {
            span.content = clean.into();
        }
    }
}

/// Whether `item` changes with every frame: a `subagent` call whose children run.
fn animated(item: &Item) -> bool {
    matches!(item, Item::Tool(call) if call.name == crate::transcript::children::TOOL && !call.done)
}

/// Columns left of a picture (it sits under its tool's output).
const PICTURE_INDENT: u16 = 4;

/// The pictures of a finished tool result, each given blank rows at the end of `lines`.
fn pictures(
    lines: &mut Vec<Line<'static>>,
    item: &Item,
    protocol: ImageProtocol,
    width: usize,
) -> Vec<(usize, Arc<Picture>)> {
    let Item::Tool(call) = item else {
        return Vec::new();
    };
    let Some(output) = call.output.as_ref().filter(|_| call.done) else {
        return Vec::new();
    };
    if protocol == ImageProtocol::None {
        return Vec::new();
    }
    let room = width.saturating_sub(PICTURE_INDENT as usize);
    let mut placed = Vec::new();
    for block in output.content() {
        let pi_ai::UserBlock::Image(image) = block else {
            continue;
        };
        if let Some(picture) = Picture::new(image, room, protocol) {
            placed.push((lines.len(), Arc::new(picture)));
            let rows = placed.last().map_or(0, |(_, p)| p.rows as usize);
            lines.extend(std::iter::repeat_with(Line::default).take(rows));
        }
    }
    placed
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
                palette.bold(Token::Accent),
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
                        let styles = markdown::Styles::new(palette.colors, palette.theme);
                        // Cleaned before it is parsed: no sequence is split across spans.
                        let text = terminal_safe(&t.text, Keep::Lines);
                        out.extend(markdown::render(&text, "  ", width, styles));
                    }
                    AssistantBlock::ToolCall(_) => {}
                }
            }
            if *streaming {
                out.push(Line::styled("  ▍", palette.style(Token::Accent)));
            }
        }
        Item::Tool(call) => {
            let output = call.output.as_ref().filter(|_| call.done);
            let target = output.map(|output| RenderTarget::ToolResult {
                tool_name: &call.name,
                arguments: &call.args,
                content: output.content(),
                details: output.details(),
                is_error: call.is_error,
                expanded: screen.expanded,
            });
            let rendered = target.and_then(|t| rendered(screen.renderers, &t, palette, width));
            let subagents =
                crate::transcript::children::details_of(item).filter(|_| rendered.is_none());
            if let Some(details) = subagents {
                let block = Block {
                    details: &details,
                    expanded: screen.expanded,
                    tick: screen.tick,
                    logs: &screen.transcript.children,
                };
                return subagent_lines(out, call, &block, palette, width);
            }
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
        Item::Bash(run) => bash_lines(out, run, screen.expanded, palette, width),
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
                    let style = palette.style(Token::CustomMessageLabel);
                    prefixed(out, text, &label, style, width, Style::default());
                    if let Some(Err(error)) = failed {
                        out.push(Line::styled(format!("  ({error})"), palette.dim()));
                    }
                }
            }
        }
        Item::Status(text) => prefixed(out, text, "  ", palette.dim(), width, palette.dim()),
        Item::Notice { text, error } => {
            let color = if *error { Token::Error } else { Token::Warning };
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
