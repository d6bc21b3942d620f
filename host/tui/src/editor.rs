//! The input editor: multi-line text with a cursor, and the history of sent prompts. Positions
//! are byte offsets on character boundaries. A large paste shows as one marker line
//! (`[paste #1 +120 lines]`) so the editor stays readable; the marker becomes the pasted text
//! again when the prompt is sent.

/// A paste longer than this many lines, or characters, is shown as a marker.
const PASTE_LINES: usize = 10;
const PASTE_CHARS: usize = 1000;

/// Editor state.
#[derive(Debug, Default, Clone)]
pub struct Editor {
    text: String,
    cursor: usize,
    history: Vec<String>,
    /// While browsing the history: the entry shown, and the draft it replaced.
    browsing: Option<(usize, String)>,
    /// The large pastes, by marker.
    pastes: Vec<(String, String)>,
    /// Text deleted by the kill commands (Ctrl+K, Ctrl+U, word deletes), newest last.
    kills: Vec<String>,
    /// The span the last yank inserted and which kill it was, for yank-pop.
    yanked: Option<(usize, usize, usize)>,
    /// Earlier states for undo: (text, cursor).
    undo: Vec<(String, usize)>,
}

/// Undo keeps this many steps.
const UNDO_STEPS: usize = 200;

impl Editor {
    /// The text as shown, with markers for large pastes.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The text with every paste marker replaced by what was pasted: what is sent.
    pub fn expanded(&self) -> String {
        let mut text = self.text.clone();
        for (marker, pasted) in &self.pastes {
            text = text.replace(marker, pasted);
        }
        text
    }

    /// Inserts pasted text; a large paste goes in as a marker.
    pub fn paste(&mut self, text: &str) {
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        let lines = text.lines().count();
        if lines <= PASTE_LINES && text.chars().count() <= PASTE_CHARS {
            self.insert(&text);
            return;
        }
        let marker = if lines > PASTE_LINES {
            format!("[paste #{} +{lines} lines]", self.pastes.len() + 1)
        } else {
            format!(
                "[paste #{} {} chars]",
                self.pastes.len() + 1,
                text.chars().count()
            )
        };
        self.insert(&marker);
        self.pastes.push((marker, text));
    }

    pub fn cursor(&self) -> usize {
        self.cursor
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    pub fn insert(&mut self, text: &str) {
        self.snapshot();
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        self.text.insert_str(self.cursor, &text);
        self.cursor += text.len();
        self.browsing = None;
    }

    pub fn set(&mut self, text: &str) {
        self.text = text.to_owned();
        self.cursor = self.text.len();
    }

    pub fn clear(&mut self) {
        self.set("");
        self.browsing = None;
        self.pastes.clear();
    }

    /// The text before the cursor on the cursor's line.
    pub fn line_before_cursor(&self) -> &str {
        let before = &self.text[..self.cursor];
        &before[before.rfind('\n').map_or(0, |i| i + 1)..]
    }

    /// Replaces the `len` bytes before the cursor with `with` (a completion).
    pub fn replace_before_cursor(&mut self, len: usize, with: &str) {
        let start = self.cursor.saturating_sub(len);
        if !self.text.is_char_boundary(start) {
            return;
        }
        self.text.replace_range(start..self.cursor, with);
        self.cursor = start + with.len();
        self.browsing = None;
    }

    /// Empties the editor and returns what it held (pastes expanded), remembered in the
    /// history.
    pub fn take(&mut self) -> String {
        let text = self.expanded();
        self.text.clear();
        self.pastes.clear();
        self.cursor = 0;
        self.browsing = None;
        if !text.trim().is_empty() && self.history.last() != Some(&text) {
            self.history.push(text.clone());
        }
        text
    }

    fn prev_boundary(&self, at: usize) -> usize {
        self.text[..at]
            .char_indices()
            .next_back()
            .map_or(0, |(i, _)| i)
    }

    fn next_boundary(&self, at: usize) -> usize {
        self.text[at..]
            .chars()
            .next()
            .map_or(at, |c| at + c.len_utf8())
    }

    pub fn backspace(&mut self) {
        self.snapshot();
        // A paste marker goes as a whole, and its text with it.
        let before = &self.text[..self.cursor];
        if let Some(i) = self
            .pastes
            .iter()
            .position(|(m, _)| before.ends_with(m.as_str()))
        {
            let (marker, _) = self.pastes.remove(i);
            let start = self.cursor - marker.len();
            self.text.replace_range(start..self.cursor, "");
            self.cursor = start;
            return;
        }
        if self.cursor > 0 {
            let start = self.prev_boundary(self.cursor);
            self.text.replace_range(start..self.cursor, "");
            self.cursor = start;
        }
    }

    pub fn delete(&mut self) {
        self.snapshot();
        if self.cursor < self.text.len() {
            let end = self.next_boundary(self.cursor);
            self.text.replace_range(self.cursor..end, "");
        }
    }

    pub fn left(&mut self) {
        self.cursor = self.prev_boundary(self.cursor);
    }

    pub fn right(&mut self) {
        self.cursor = self.next_boundary(self.cursor);
    }

    pub fn home(&mut self) {
        self.cursor = self.text[..self.cursor].rfind('\n').map_or(0, |i| i + 1);
    }

    pub fn end(&mut self) {
        self.cursor = self.text[self.cursor..]
            .find('\n')
            .map_or(self.text.len(), |i| self.cursor + i);
    }

    /// Remembers the state before an edit, for undo. A run of typed characters is one step.
    fn snapshot(&mut self) {
        self.yanked = None;
        if self.undo.last().is_some_and(|(t, _)| *t == self.text) {
            return;
        }
        self.undo.push((self.text.clone(), self.cursor));
        if self.undo.len() > UNDO_STEPS {
            self.undo.remove(0);
        }
    }

    pub fn undo(&mut self) {
        if let Some((text, cursor)) = self.undo.pop() {
            self.text = text;
            self.cursor = cursor.min(self.text.len());
        }
    }

    /// Where the word before the cursor starts (words end at whitespace).
    fn word_start(&self) -> usize {
        let before = &self.text[..self.cursor];
        let trimmed = before.trim_end_matches(char::is_whitespace);
        trimmed.rfind(char::is_whitespace).map_or(0, |i| {
            i + trimmed[i..].chars().next().map_or(1, char::len_utf8)
        })
    }

    /// Where the word after the cursor ends.
    fn word_end(&self) -> usize {
        let after = &self.text[self.cursor..];
        let skipped = after.len() - after.trim_start_matches(char::is_whitespace).len();
        let rest = &after[skipped..];
        self.cursor + skipped + rest.find(char::is_whitespace).unwrap_or(rest.len())
    }

    pub fn word_left(&mut self) {
        self.cursor = self.word_start();
    }

    pub fn word_right(&mut self) {
        self.cursor = self.word_end();
    }

    /// Deletes `start..end` into the kill ring.
    fn kill(&mut self, start: usize, end: usize) {
        if start >= end {
            return;
        }
        self.snapshot();
        self.kills.push(self.text[start..end].to_owned());
        self.text.replace_range(start..end, "");
        self.cursor = start;
    }

    /// Deletes from the cursor back to the start of the word (Ctrl+W).
    pub fn delete_word_back(&mut self) {
        self.kill(self.word_start(), self.cursor);
    }

    pub fn delete_word_forward(&mut self) {
        self.kill(self.cursor, self.word_end());
    }

    pub fn delete_to_line_start(&mut self) {
        let start = self.text[..self.cursor].rfind('\n').map_or(0, |i| i + 1);
        self.kill(start, self.cursor);
    }

    pub fn delete_to_line_end(&mut self) {
        let end = self.text[self.cursor..]
            .find('\n')
            .map_or(self.text.len(), |i| self.cursor + i);
        // At the end of a line, Ctrl+K joins the next one.
        let end = if end == self.cursor && end < self.text.len() {
            end + 1
        } else {
            end
        };
        self.kill(self.cursor, end);
    }

    /// Inserts the newest killed text (Ctrl+Y).
    pub fn yank(&mut self) {
        let Some(text) = self.kills.last().cloned() else {
            return;
        };
        let start = self.cursor;
        self.insert(&text);
        self.yanked = Some((start, self.cursor, self.kills.len() - 1));
    }

    /// Right after a yank, replaces what it inserted with the kill before it (Alt+Y).
    pub fn yank_pop(&mut self) {
        let Some((start, end, index)) = self.yanked else {
            return;
        };
        let previous = index.checked_sub(1).unwrap_or(self.kills.len() - 1);
        let Some(text) = self.kills.get(previous).cloned() else {
            return;
        };
        self.text.replace_range(start..end, &text);
        self.cursor = start + text.len();
        self.yanked = Some((start, self.cursor, previous));
    }

    /// Moves to the next (or previous) occurrence of `target` (Ctrl+] then a character).
    pub fn jump_to(&mut self, target: char, forward: bool) {
        let found = if forward {
            let from = self.next_boundary(self.cursor);
            self.text[from..].find(target).map(|i| from + i)
        } else {
            self.text[..self.cursor].rfind(target)
        };
        if let Some(at) = found {
            self.cursor = at;
        }
    }

    /// Whether the cursor is on the first (`up`) or last line: where Up/Down browse history.
    pub fn at_edge(&self, up: bool) -> bool {
        if up {
            !self.text[..self.cursor].contains('\n')
        } else {
            !self.text[self.cursor..].contains('\n')
        }
    }

    /// Moves the cursor a line up or down, or browses the history at the edges.
    pub fn vertical(&mut self, up: bool) {
        if self.at_edge(up) {
            self.browse(up);
            return;
        }
        let line_start = self.text[..self.cursor].rfind('\n').map_or(0, |i| i + 1);
        let column = self.text[line_start..self.cursor].chars().count();
        let target_start = if up {
            self.text[..line_start.saturating_sub(1)]
                .rfind('\n')
                .map_or(0, |i| i + 1)
        } else {
            self.text[self.cursor..]
                .find('\n')
                .map_or(self.text.len(), |i| self.cursor + i + 1)
        };
        let line_end = self.text[target_start..]
            .find('\n')
            .map_or(self.text.len(), |i| target_start + i);
        self.cursor = self.text[target_start..line_end]
            .char_indices()
            .nth(column)
            .map_or(line_end, |(i, _)| target_start + i);
    }

    fn browse(&mut self, up: bool) {
        let len = self.history.len();
        let next = match (&self.browsing, up) {
            (None, true) if len > 0 => Some(len - 1),
            (Some((i, _)), true) => Some(i.saturating_sub(1)),
            (Some((i, _)), false) if i + 1 < len => Some(i + 1),
            _ => None,
        };
        match next {
            Some(i) => {
                let draft = match self.browsing.take() {
                    Some((_, draft)) => draft,
                    None => self.text.clone(),
                };
                let entry = self.history.get(i).cloned().unwrap_or_default();
                self.set(&entry);
                self.browsing = Some((i, draft));
            }
            None if !up => {
                if let Some((_, draft)) = self.browsing.take() {
                    self.set(&draft);
                }
            }
            None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Editor;

    #[test]
    fn edits_on_character_boundaries() {
        let mut e = Editor::default();
        e.insert("héllo 日本");
        e.backspace();
        e.left();
        e.left();
        e.insert("X");
        assert_eq!(e.text(), "hélloX 日");
        e.home();
        e.delete();
        assert_eq!(e.text(), "élloX 日");
        e.end();
        e.delete_word_back();
        assert_eq!(e.text(), "élloX ");
    }

    #[test]
    fn history_at_the_edges_keeps_the_draft() {
        let mut e = Editor::default();
        e.insert("first");
        e.take();
        e.insert("second");
        e.take();
        e.insert("draft");
        e.vertical(true);
        assert_eq!(e.text(), "second");
        e.vertical(true);
        assert_eq!(e.text(), "first");
        e.vertical(false);
        e.vertical(false);
        assert_eq!(e.text(), "draft");
    }

    #[test]
    fn kill_yank_undo_and_words() {
        let mut e = Editor::default();
        e.insert("one two three");
        e.word_left();
        e.delete_to_line_end();
        assert_eq!(e.text(), "one two ");
        e.home();
        e.delete_word_forward();
        assert_eq!(e.text(), " two ");
        e.yank();
        assert_eq!(e.text(), "one two ");
        e.yank_pop();
        assert_eq!(e.text(), "three two ");
        e.undo();
        assert_eq!(e.text(), " two ");
        e.end();
        e.jump_to('t', false);
        assert_eq!(&e.text()[e.cursor()..], "two ");
        e.delete_to_line_start();
        assert_eq!(e.text(), "two ");
    }

    #[test]
    fn a_large_paste_is_a_marker_until_sent() {
        let mut e = Editor::default();
        let long: String = (1..=40).map(|i| format!("line {i}\n")).collect();
        e.insert("see ");
        e.paste(&long);
        assert_eq!(e.text(), "see [paste #1 +40 lines]");
        e.paste(" and this");
        assert_eq!(e.text(), "see [paste #1 +40 lines] and this");
        assert_eq!(e.take(), format!("see {long} and this"));
        e.paste(&long);
        e.backspace();
        assert_eq!(e.text(), "");
        assert_eq!(e.take(), "");
    }

    #[test]
    fn up_and_down_move_between_lines() {
        let mut e = Editor::default();
        e.insert("abc\nde\nfghij");
        e.vertical(true);
        assert_eq!(&e.text()[e.cursor()..], "\nfghij");
        e.vertical(true);
        assert_eq!(&e.text()[e.cursor()..], "c\nde\nfghij");
        e.vertical(false);
        e.vertical(false);
        assert_eq!(&e.text()[e.cursor()..], "hij");
    }
}
