//! The input editor: multi-line text with a cursor, and the history of sent prompts. Positions
//! are byte offsets on character boundaries.

/// Editor state.
#[derive(Debug, Default, Clone)]
pub struct Editor {
    text: String,
    cursor: usize,
    history: Vec<String>,
    /// While browsing the history: the entry shown, and the draft it replaced.
    browsing: Option<(usize, String)>,
}

impl Editor {
    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn cursor(&self) -> usize {
        self.cursor
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    pub fn insert(&mut self, text: &str) {
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
    }

    /// Empties the editor and returns what it held, remembered in the history.
    pub fn take(&mut self) -> String {
        let text = std::mem::take(&mut self.text);
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
        if self.cursor > 0 {
            let start = self.prev_boundary(self.cursor);
            self.text.replace_range(start..self.cursor, "");
            self.cursor = start;
        }
    }

    pub fn delete(&mut self) {
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

    /// Deletes from the cursor back to the start of the word (Ctrl+W).
    pub fn delete_word_back(&mut self) {
        let before = &self.text[..self.cursor];
        let trimmed = before.trim_end_matches(' ');
        let start = trimmed.rfind([' ', '\n']).map_or(0, |i| i + 1);
        self.text.replace_range(start..self.cursor, "");
        self.cursor = start;
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
