//! Moving around a long transcript: search (type a query, Enter for the next match, Esc to
//! close) and jumps to the previous or next prompt. Both work on the lines the last frame drew
//! and express where to go as the view's scroll offset (lines back from the end).

use crate::transcript::{Item, Transcript};
use crate::view::LineCache;

/// An open transcript search.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Search {
    pub query: String,
    /// The transcript lines that match, in order.
    matches: Vec<usize>,
    /// Which match is shown (an index into `matches`).
    current: Option<usize>,
}

impl Search {
    /// Finds `query` again (after it changed) and shows the last match before the end: the
    /// most recent mention is usually the one wanted.
    pub fn refresh(&mut self, lines: &LineCache) -> Option<usize> {
        self.matches = lines.find(&self.query);
        self.current = self.matches.len().checked_sub(1);
        self.scroll_for(lines)
    }

    /// Steps to the previous (`back`) or next match, wrapping around.
    pub fn step(&mut self, lines: &LineCache, back: bool) -> Option<usize> {
        let count = self.matches.len();
        if count == 0 {
            return None;
        }
        let current = self.current.unwrap_or(0);
        self.current = Some(if back {
            (current + count - 1) % count
        } else {
            (current + 1) % count
        });
        self.scroll_for(lines)
    }

    /// The scroll offset that puts the current match in view.
    fn scroll_for(&self, lines: &LineCache) -> Option<usize> {
        let line = *self.matches.get(self.current?)?;
        Some(scroll_to(lines, line))
    }

    /// "Search: query (2/5)" for the status line.
    pub fn status(&self) -> String {
        let position = match (self.current, self.matches.len()) {
            (_, 0) if self.query.is_empty() => String::new(),
            (_, 0) => " (no match)".to_owned(),
            (Some(i), n) => format!(" ({}/{n})", i + 1),
            (None, n) => format!(" ({n})"),
        };
        format!(
            "Search: {}{position} — Enter next, Shift+Enter previous, Esc close",
            self.query
        )
    }
}

/// The scroll offset that shows transcript line `line` near the top of the view.
fn scroll_to(lines: &LineCache, line: usize) -> usize {
    let total = lines.total();
    let height = lines.height.max(1);
    // The line at the top: scroll = lines hidden below the view.
    total
        .saturating_sub(line + height)
        .min(total.saturating_sub(height))
}

/// The scroll offset that shows the prompt before (`back`) or after the one at the top of the
/// view, or `None` when there is no such prompt.
pub fn jump_to_prompt(
    transcript: &Transcript,
    lines: &LineCache,
    scroll: usize,
    back: bool,
) -> Option<usize> {
    let total = lines.total();
    let height = lines.height.max(1);
    let top = total.saturating_sub(scroll + height);
    let mut prompts = lines
        .starts()
        .into_iter()
        .filter(|(index, _)| matches!(transcript.items().get(*index), Some(Item::User(_))))
        .map(|(_, line)| line);
    let target = if back {
        prompts.take_while(|line| *line < top).last()
    } else {
        prompts.find(|line| *line > top)
    }?;
    Some(scroll_to(lines, target))
}
