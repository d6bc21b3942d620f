//! The selectors the UI opens over the editor: models, sessions, providers to log in to or
//! out of, and the hidden API-key prompt.

use super::{Action, Ui};
use crate::picker::{Entry, Outcome, Picker, Purpose};
use pi_app::App;
use pi_app::app::{TreeRow, TreeRowKind};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

impl Ui {
    /// A key while a selector is open: it takes every key.
    pub(super) fn picker_key(&mut self, key: &KeyEvent, app: &App) -> Action {
        let Some(picker) = &mut self.picker else {
            return Action::None;
        };
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if picker.purpose == Purpose::Tree
            && ctrl
            && let KeyCode::Char(c) = key.code
            && let Some(filter) = TreeFilter::for_key(c)
        {
            self.open_tree(app, filter);
            return Action::None;
        }
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        let outcome = match key.code {
            KeyCode::Esc => Outcome::Closed,
            KeyCode::Enter => picker.choose(),
            KeyCode::Char('s') if ctrl && picker.purpose == Purpose::Model => picker.choose(),
            KeyCode::Up => {
                picker.step(-1);
                Outcome::Open
            }
            KeyCode::Down => {
                picker.step(1);
                Outcome::Open
            }
            KeyCode::PageUp => {
                picker.step(-10);
                Outcome::Open
            }
            KeyCode::PageDown => {
                picker.step(10);
                Outcome::Open
            }
            KeyCode::Backspace => {
                picker.backspace();
                Outcome::Open
            }
            KeyCode::Char(c) if !ctrl => {
                picker.type_char(c);
                Outcome::Open
            }
            _ => Outcome::Open,
        };
        let purpose = picker.purpose;
        // Ctrl+S in the model selector saves the default; Alt+Enter in the tree summarises.
        let save = (ctrl && key.code == KeyCode::Char('s')) || (alt && key.code == KeyCode::Enter);
        match outcome {
            Outcome::Open => {
                self.sync_picker_rows();
                Action::None
            }
            Outcome::Closed => {
                self.close_picker();
                Action::None
            }
            Outcome::Chosen(entry) => {
                self.close_picker();
                self.chosen(purpose, entry, save, app)
            }
        }
    }

    /// A key while an API key is typed.
    pub(super) fn secret_key(&mut self, key: &KeyEvent, app: &App) -> Action {
        let Some((provider, typed)) = &mut self.secret else {
            return Action::None;
        };
        match key.code {
            KeyCode::Esc => self.secret = None,
            KeyCode::Backspace => {
                typed.pop();
            }
            KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => typed.push(c),
            KeyCode::Enter if typed.trim().is_empty() => {}
            KeyCode::Enter => {
                let (provider, typed) = (provider.clone(), typed.clone());
                self.secret = None;
                match app.login_api_key(&provider, &typed) {
                    Ok(()) => self.transcript.notice(
                        format!("Stored the API key for {provider} in auth.json."),
                        false,
                    ),
                    Err(error) => self.notice(error.to_string()),
                }
            }
            _ => {}
        }
        Action::None
    }

    /// `/trust`: the decision for this directory in `trust.json`, used from the next start.
    pub(super) fn save_trust(&mut self, trusted: bool) {
        let saved = pi_session::trust::TrustStore::load(&self.agent_dir)
            .and_then(|mut store| store.set(&self.cwd, trusted));
        match saved {
            Ok(()) if trusted => self.transcript.notice(
                "Saved: this project's files are trusted from the next start.".into(),
                false,
            ),
            Ok(()) => self.transcript.notice(
                "Saved: this project's files are ignored from the next start.".into(),
                false,
            ),
            Err(error) => self.notice(error.to_string()),
        }
    }

    /// `/login [provider]`.
    pub fn login(&mut self, provider: Option<String>, app: &App) {
        match provider {
            Some(provider) => self.secret = Some((provider, String::new())),
            None => {
                let entries = provider_entries(app.login_providers());
                self.open_picker(Picker::new(Purpose::Login, "Log in to", entries));
            }
        }
    }

    /// `/logout [provider]`.
    pub fn logout(&mut self, provider: Option<String>, app: &App) {
        let Some(provider) = provider else {
            let stored = app.stored_credentials();
            if stored.is_empty() {
                self.transcript
                    .notice("No credential is stored in auth.json.".into(), false);
            } else {
                let entries = provider_entries(stored);
                self.open_picker(Picker::new(Purpose::Logout, "Log out of", entries));
            }
            return;
        };
        match app.logout(&provider) {
            Ok(true) => self
                .transcript
                .notice(format!("Removed the credential of {provider}."), false),
            Ok(false) => self
                .transcript
                .notice(format!("No credential of {provider} is stored."), false),
            Err(error) => self.notice(error.to_string()),
        }
    }

    /// `/tree`: every entry of the session, the current branch marked, through `filter`.
    pub(super) fn open_tree(&mut self, app: &App, filter: TreeFilter) {
        let rows = app.tree_rows();
        let leaf = rows.iter().find(|r| r.is_leaf).map(|r| r.id.clone());
        let entries: Vec<Entry> = rows
            .into_iter()
            .filter(|row| filter.shows(row))
            .map(|row| {
                let mark = match (row.is_leaf, row.on_branch) {
                    (true, _) => "●",
                    (false, true) => "•",
                    (false, false) => "·",
                };
                let who = match row.kind {
                    TreeRowKind::User => "you: ",
                    TreeRowKind::Assistant => "pi: ",
                    TreeRowKind::ToolCalls | TreeRowKind::ToolResult | TreeRowKind::Other => "",
                };
                Entry {
                    label: format!("{}{mark} {who}{}", "  ".repeat(row.depth), row.text),
                    detail: row.label.map(|l| format!("[{l}]")).unwrap_or_default(),
                    search_text: String::new(),
                    value: row.id,
                }
            })
            .collect();
        if entries.is_empty() {
            self.notice(format!("Nothing to show with the {} filter", filter.name()));
            return;
        }
        let title = format!(
            "Tree, {} (Enter: continue there, Alt+Enter: with a summary of the branch left; \
             Ctrl+D/T/U/L/A: default, no tools, user only, labeled, all)",
            filter.name()
        );
        let mut picker = Picker::new(Purpose::Tree, title, entries);
        if let Some(leaf) = leaf {
            picker.select_value(&leaf);
        }
        self.open_picker(picker);
    }

    /// `/settings`: the common settings with their values; Enter moves one to its next value
    /// and saves it, the list staying open on it.
    pub(super) fn open_settings(&mut self, app: &App, selected: usize) {
        let entries = SETTINGS
            .iter()
            .map(|(path, values, what)| {
                let value = current(app, path, values);
                Entry {
                    label: format!("{path}: {value}"),
                    detail: (*what).to_owned(),
                    search_text: String::new(),
                    value: (*path).to_owned(),
                }
            })
            .collect();
        let mut picker = Picker::new(
            Purpose::Settings,
            "Settings (Enter: next value, saved at once; Esc: close)",
            entries,
        );
        picker.step(selected as isize);
        self.open_picker(picker);
    }

    /// Moves setting `path` to its next value, saves it and applies what applies now.
    fn change_setting(&mut self, app: &App, path: &str) {
        let Some((_, values, _)) = SETTINGS.iter().find(|(p, ..)| *p == path) else {
            return;
        };
        let now = current(app, path, values);
        let at = values
            .iter()
            .position(|v| *v == now)
            .map_or(0, |i| (i + 1) % values.len());
        let next = values[at];
        let value = match next {
            "true" => serde_json::Value::Bool(true),
            "false" => serde_json::Value::Bool(false),
            other => serde_json::Value::String(other.to_owned()),
        };
        if let Err(error) = app.save_setting(path, value) {
            self.notice(error.to_string());
            return;
        }
        match path {
            "hideThinkingBlock" => self.show_thinking = next == "false",
            "doubleEscapeAction" => self.double_escape_action = next.to_owned(),
            "theme" => {
                let choice = crate::theme::choose(next, &[], &[]);
                self.theme = choice.theme;
            }
            _ => {}
        }
    }

    fn chosen(&mut self, purpose: Purpose, entry: Entry, save: bool, app: &App) -> Action {
        match purpose {
            Purpose::Tree => Action::Navigate {
                id: entry.value,
                summarize: save,
            },
            Purpose::Settings => {
                let at = SETTINGS
                    .iter()
                    .position(|(p, ..)| *p == entry.value)
                    .unwrap_or(0);
                self.change_setting(app, &entry.value);
                self.open_settings(app, at);
                Action::None
            }
            Purpose::Login => {
                self.login(Some(entry.value), app);
                Action::None
            }
            Purpose::Logout => {
                self.logout(Some(entry.value), app);
                Action::None
            }
            Purpose::Session => Action::SwitchSession(entry.value.into()),
            Purpose::Model => {
                let Some((provider, id)) = entry.value.split_once('/') else {
                    return Action::None;
                };
                let switched = app.set_model(provider, id).and_then(|model| {
                    if save {
                        app.save_default_model()?;
                    }
                    Ok(model)
                });
                match switched {
                    Ok(model) => {
                        let saved = if save { " (saved as the default)" } else { "" };
                        self.hint = Some(format!("Model: {}/{}{saved}", model.provider, model.id));
                    }
                    Err(error) => self.notice(error.to_string()),
                }
                Action::None
            }
        }
    }

    fn open_picker(&mut self, picker: Picker) {
        self.picker = Some(picker);
        self.sync_picker_rows();
    }

    fn sync_picker_rows(&mut self) {
        if let Some(picker) = &self.picker {
            self.popup_rows = picker.view().0;
        }
    }

    fn close_picker(&mut self) {
        self.picker = None;
        self.popup_rows.clear();
    }

    /// Ctrl+L, `/model`: every model with credentials, the current one selected.
    pub fn open_model_picker(&mut self, app: &App) {
        let current = app.model();
        let entries: Vec<Entry> = app
            .available_models()
            .into_iter()
            .map(|m| Entry {
                label: format!("{}/{}", m.provider, m.id),
                detail: format!("{} · {}k context", m.name, m.context_window / 1000),
                search_text: String::new(),
                value: format!("{}/{}", m.provider, m.id),
            })
            .collect();
        if entries.is_empty() {
            self.notice("No model has credentials: set an API key (pi --list-models)".into());
            return;
        }
        let mut picker = Picker::new(
            Purpose::Model,
            "Model (Enter: switch, Ctrl+S: switch and save as default, Esc: close)",
            entries,
        );
        picker.select_value(&format!("{}/{}", current.provider, current.id));
        self.open_picker(picker);
    }

    /// `/resume`, `pi -r`: this directory's sessions, newest first, searchable by what they
    /// say.
    pub fn open_session_picker(&mut self, app: &App) {
        let Some(dir) = &self.sessions_dir else {
            self.notice("Sessions are not saved in this run (--no-session)".into());
            return;
        };
        let current = app.session_stats().session_file;
        let now = pi_ai::now_ms();
        let entries: Vec<Entry> = pi_session::session::list_sessions(dir)
            .into_iter()
            .filter(|info| Some(&info.path) != current.as_ref())
            .map(|info| Entry {
                label: info
                    .name
                    .clone()
                    .unwrap_or_else(|| info.first_message.chars().take(60).collect()),
                detail: format!(
                    "{} messages · {}",
                    info.message_count,
                    age(now - info.modified)
                ),
                search_text: info.all_messages_text,
                value: info.path.display().to_string(),
            })
            .collect();
        if entries.is_empty() {
            self.notice("No other session in this directory yet".into());
            return;
        }
        self.open_picker(Picker::new(
            Purpose::Session,
            "Resume (type to search, Enter: open, Esc: close)",
            entries,
        ));
    }
}

/// Which entries the tree navigator lists (pi's filters and keys).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TreeFilter {
    /// Everything but tool results.
    Default,
    NoTools,
    UserOnly,
    LabeledOnly,
    All,
}

impl TreeFilter {
    fn for_key(c: char) -> Option<TreeFilter> {
        Some(match c {
            'd' => TreeFilter::Default,
            't' => TreeFilter::NoTools,
            'u' => TreeFilter::UserOnly,
            'l' => TreeFilter::LabeledOnly,
            'a' => TreeFilter::All,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            TreeFilter::Default => "default",
            TreeFilter::NoTools => "no tools",
            TreeFilter::UserOnly => "user only",
            TreeFilter::LabeledOnly => "labeled",
            TreeFilter::All => "all",
        }
    }

    fn shows(self, row: &TreeRow) -> bool {
        match self {
            TreeFilter::Default => row.kind != TreeRowKind::ToolResult,
            TreeFilter::NoTools => {
                !matches!(row.kind, TreeRowKind::ToolResult | TreeRowKind::ToolCalls)
            }
            TreeFilter::UserOnly => row.kind == TreeRowKind::User,
            TreeFilter::LabeledOnly => row.label.is_some(),
            TreeFilter::All => true,
        }
    }
}

/// The settings `/settings` edits: (key, its values in order, what it does). The first value
/// is the default.
const SETTINGS: [(&str, &[&str], &str); 9] = [
    (
        "theme",
        &["dark", "light"],
        "Colours (JSON themes: the theme setting)",
    ),
    (
        "hideThinkingBlock",
        &["false", "true"],
        "Start with thinking collapsed",
    ),
    (
        "steeringMode",
        &["one-at-a-time", "all"],
        "How queued steering messages are sent",
    ),
    (
        "followUpMode",
        &["one-at-a-time", "all"],
        "How queued follow-ups are sent",
    ),
    (
        "compaction.enabled",
        &["true", "false"],
        "Compact when the context fills",
    ),
    ("retry.enabled", &["true", "false"], "Retry failed requests"),
    (
        "doubleEscapeAction",
        &["tree", "fork", "none"],
        "What Esc twice does",
    ),
    (
        "tuiMode",
        &["fullscreen", "regular"],
        "The layout (from the next start)",
    ),
    (
        "quietStartup",
        &["false", "true"],
        "Hide the start-up header (from the next start)",
    ),
];

/// A setting's value as text, or its default.
fn current(app: &App, path: &str, values: &[&str]) -> String {
    match app.setting(path) {
        Some(serde_json::Value::Bool(b)) => b.to_string(),
        Some(serde_json::Value::String(s)) => s,
        _ => values.first().copied().unwrap_or("").to_owned(),
    }
}

fn provider_entries(names: Vec<String>) -> Vec<Entry> {
    names
        .into_iter()
        .map(|name| Entry {
            label: name.clone(),
            detail: String::new(),
            search_text: String::new(),
            value: name,
        })
        .collect()
}

/// `90000` (ms) → `1m ago`.
fn age(ms: i64) -> String {
    let minutes = ms.max(0) / 60_000;
    match minutes {
        0 => "just now".to_owned(),
        1..60 => format!("{minutes}m ago"),
        60..1440 => format!("{}h ago", minutes / 60),
        _ => format!("{}d ago", minutes / 1440),
    }
}
