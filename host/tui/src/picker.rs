//! A selector: a titled list above the editor that narrows as you type (every word of the
//! query must appear in an entry's text, in any case), chosen with Up/Down and Enter, closed
//! with Esc. The model selector and the session picker are pickers.

/// One entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub label: String,
    pub detail: String,
    /// What the search looks in besides the label and detail.
    pub search_text: String,
    /// What choosing it means to the caller (a model id, a session path).
    pub value: String,
}

impl Entry {
    /// One of a menu's choices: `value` is what choosing it means to the caller.
    pub fn choice(value: &str, label: impl Into<String>, detail: impl Into<String>) -> Entry {
        Entry {
            label: label.into(),
            detail: detail.into(),
            search_text: String::new(),
            value: value.to_owned(),
        }
    }
}

/// What the picker is choosing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    Model,
    Session,
    /// The provider to store an API key for.
    Login,
    /// The provider whose credential to remove.
    Logout,
    /// A setting to change (Enter moves it to its next value).
    Settings,
    /// An entry of the session tree to continue from.
    Tree,
    /// Summarize the branch left by going there?
    TreeSummary,
    /// The models Ctrl+P cycles through (Enter toggles one).
    ScopedModels,
    /// The permission mode.
    Mode,
    /// What to do after a run in plan mode answered with a plan.
    PlanNext,
    /// `/rewind`: the prompt (or earlier rewind) to go back to.
    Rewind,
    /// `/rewind`: what to put back.
    RewindHow,
    /// `/rewind`: overwrite the files changed outside pi since?
    RewindOverwrite,
    /// `/mcp`: the servers.
    McpServers,
    /// `/mcp`: what to do with one server.
    McpServer,
    /// `/mcp`: a server's tools.
    McpTools,
    /// `/mcp`: a server's exposure.
    McpExposure,
    /// Trust a server's changed tool definitions?
    McpTrust,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Picker {
    pub purpose: Purpose,
    pub title: String,
    pub query: String,
    entries: Vec<Entry>,
    /// Indices of the entries that match the query, in order.
    shown: Vec<usize>,
    selected: usize,
}

/// How a key changed the picker.
#[derive(Debug, PartialEq)]
pub enum Outcome {
    Open,
    Closed,
    Chosen(Entry),
}

impl Picker {
    pub fn new(purpose: Purpose, title: impl Into<String>, entries: Vec<Entry>) -> Picker {
        let shown = (0..entries.len()).collect();
        Picker {
            purpose,
            title: title.into(),
            query: String::new(),
            entries,
            shown,
            selected: 0,
        }
    }

    /// Puts the cursor on the entry whose value is `value` (the current model, say).
    pub fn select_value(&mut self, value: &str) {
        if let Some(at) = self
            .shown
            .iter()
            .position(|&i| self.entries[i].value == value)
        {
            self.selected = at;
        }
    }

    pub fn type_char(&mut self, c: char) {
        self.query.push(c);
        self.filter();
    }

    pub fn backspace(&mut self) {
        self.query.pop();
        self.filter();
    }

    pub fn step(&mut self, by: isize) {
        let n = self.shown.len();
        if n > 0 {
            self.selected = self.selected.saturating_add_signed(by).min(n - 1);
        }
    }

    pub fn choose(&self) -> Outcome {
        match self.shown.get(self.selected) {
            Some(&i) => Outcome::Chosen(self.entries[i].clone()),
            None => Outcome::Open,
        }
    }

    fn filter(&mut self) {
        let words: Vec<String> = self
            .query
            .split_whitespace()
            .map(str::to_lowercase)
            .collect();
        self.shown = self
            .entries
            .iter()
            .enumerate()
            .filter(|(_, e)| {
                let text = format!("{} {} {}", e.label, e.detail, e.search_text).to_lowercase();
                words.iter().all(|w| text.contains(w.as_str()))
            })
            .map(|(i, _)| i)
            .collect();
        self.selected = 0;
    }

    /// The rows to draw: (label, detail) of the matching entries, the selected one, and the
    /// header line.
    pub fn view(&self) -> (Vec<(String, String)>, usize, String) {
        let rows = self
            .shown
            .iter()
            .map(|&i| {
                (
                    self.entries[i].label.clone(),
                    self.entries[i].detail.clone(),
                )
            })
            .collect();
        // What is typed and how many match come first: a long title may be cut at the edge.
        let header = format!(
            "› {}  ({} of {})  {}",
            self.query,
            self.shown.len(),
            self.entries.len(),
            self.title
        );
        (rows, self.selected, header)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(label: &str, detail: &str) -> Entry {
        Entry {
            label: label.into(),
            detail: detail.into(),
            search_text: String::new(),
            value: label.into(),
        }
    }

    #[test]
    fn narrows_by_every_word_and_chooses_the_selected_entry() {
        let mut p = Picker::new(
            Purpose::Model,
            "Model",
            vec![
                entry("anthropic/claude-sonnet-4-5", "200k"),
                entry("openai/gpt-5", "400k"),
                entry("anthropic/claude-haiku-4-5", "200k"),
            ],
        );
        p.select_value("openai/gpt-5");
        assert_eq!(p.choose(), Outcome::Chosen(entry("openai/gpt-5", "400k")));
        for c in "CLAUDE hai".chars() {
            p.type_char(c);
        }
        assert_eq!(p.view().0.len(), 1);
        assert_eq!(
            p.choose(),
            Outcome::Chosen(entry("anthropic/claude-haiku-4-5", "200k"))
        );
        for c in "zz".chars() {
            p.type_char(c);
        }
        assert_eq!(p.choose(), Outcome::Open);
        p.backspace();
        p.backspace();
        p.step(5);
        assert_eq!(p.view().1, 0, "one match: the cursor stays on it");
    }
}
