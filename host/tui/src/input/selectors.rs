//! The selectors the UI opens over the editor: models, sessions, providers to log in to or
//! out of, and the hidden API-key prompt.

use super::{Action, Ui};
use crate::keys::Binding;
use crate::picker::{Entry, Outcome, Picker, Purpose};
use pi_app::App;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

impl Ui {
    /// A key while a selector is open: it takes every key.
    pub(super) fn picker_key(&mut self, key: &KeyEvent, app: &App) -> Action {
        let Some(picker) = &self.picker else {
            return Action::None;
        };
        if picker.purpose == Purpose::Tree
            && let Some(filter) = self.tree_filter_for(key)
        {
            self.open_tree(app, filter);
            return Action::None;
        }
        if let Some(action) = self.entry_key(key, app) {
            return action;
        }
        let keymap = self.keymap.clone();
        let is = |binding| keymap.is(key, binding);
        let Some(picker) = &mut self.picker else {
            return Action::None;
        };
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        let outcome = if is(Binding::SelectCancel) {
            Outcome::Closed
        } else if is(Binding::SelectConfirm)
            || (alt && key.code == KeyCode::Enter)
            || (picker.purpose == Purpose::Model && is(Binding::ModelsSave))
        {
            picker.choose()
        } else {
            if is(Binding::SelectUp) {
                picker.step(-1);
            } else if is(Binding::SelectDown) {
                picker.step(1);
            } else if is(Binding::SelectPageUp) {
                picker.step(-10);
            } else if is(Binding::SelectPageDown) {
                picker.step(10);
            } else if key.code == KeyCode::Backspace {
                picker.backspace();
            } else if let KeyCode::Char(c) = key.code
                && !ctrl
            {
                picker.type_char(c);
            }
            Outcome::Open
        };
        let purpose = picker.purpose;
        // Ctrl+S in the model selector saves the default; Alt+Enter in the tree summarises.
        let save = is(Binding::ModelsSave) || (alt && key.code == KeyCode::Enter);
        match outcome {
            Outcome::Open => {
                self.sync_picker_rows();
                Action::None
            }
            Outcome::Closed => {
                self.close_picker();
                self.mcp_back(purpose, app);
                Action::None
            }
            Outcome::Chosen(entry) => {
                self.close_picker();
                self.chosen(purpose, entry, save, app)
            }
        }
    }

    /// The keys that act on the selected entry without choosing it: in the tree Shift+L labels
    /// an entry and Shift+T shows label times; in the session picker Ctrl+R renames, Ctrl+D
    /// (or Ctrl+Backspace with an empty search) deletes to the trash, and Ctrl+P lists every
    /// directory's sessions. The scoped-models editor has its own (`scoped`).
    fn entry_key(&mut self, key: &KeyEvent, app: &App) -> Option<Action> {
        let picker = self.picker.as_ref()?;
        let purpose = picker.purpose;
        let selected = match picker.choose() {
            Outcome::Chosen(entry) => Some(entry),
            _ => None,
        };
        if purpose == Purpose::ScopedModels {
            return self.scoped_models_key(key, app, selected);
        }
        let query_empty = picker.query.is_empty();
        let keymap = self.keymap.clone();
        let is = |binding| keymap.is(key, binding);
        let fold = is(Binding::TreeFoldOrUp);
        match purpose {
            Purpose::Tree if fold || is(Binding::TreeUnfoldOrDown) => {
                let entry = selected?;
                if fold {
                    self.tree_folds.insert(entry.value.clone());
                } else {
                    self.tree_folds.remove(&entry.value);
                }
                self.reopen_tree_at(app, Some(&entry.value));
            }
            Purpose::Tree if is(Binding::TreeToggleLabelTimestamp) => {
                self.tree_label_times = !self.tree_label_times;
                self.reopen_tree_at(app, selected.as_ref().map(|e| e.value.as_str()));
            }
            Purpose::Tree if is(Binding::TreeEditLabel) => {
                let entry = selected?;
                self.close_picker();
                self.prompt = Some(TextPrompt::new(Asks::Label(entry.value)));
            }
            Purpose::Session if is(Binding::SessionRename) => {
                let entry = selected?;
                self.close_picker();
                self.prompt = Some(TextPrompt::new(Asks::SessionName(entry.value.into())));
            }
            // Ctrl+Backspace deletes only while the search is empty, so it never takes a
            // keystroke meant for editing the search.
            Purpose::Session
                if is(Binding::SessionDelete)
                    || (is(Binding::SessionDeleteNoninvasive) && query_empty) =>
            {
                let entry = selected?;
                let all = self.all_sessions;
                match trash(std::path::Path::new(&entry.value), &self.agent_dir) {
                    Ok(where_to) => {
                        self.transcript
                            .notice(format!("Moved the session to {where_to}."), false);
                    }
                    Err(error) => self.notice(format!("Cannot delete the session: {error}")),
                }
                self.close_picker();
                self.all_sessions = all;
                self.open_session_picker(app);
            }
            Purpose::Session if is(Binding::SessionToggleSort) => {
                self.sessions_by_name = !self.sessions_by_name;
                self.close_picker();
                self.open_session_picker(app);
            }
            Purpose::Session if is(Binding::SessionToggleNamedFilter) => {
                self.named_only = !self.named_only;
                self.close_picker();
                self.open_session_picker(app);
            }
            Purpose::Session if is(Binding::SessionTogglePath) => {
                self.all_sessions = !self.all_sessions;
                self.close_picker();
                self.open_session_picker(app);
            }
            _ => return None,
        }
        Some(Action::None)
    }

    /// `/import <file>`: the file is checked, copied into this directory's sessions (keeping
    /// its name, never over another file) and continued.
    pub(super) fn import(&mut self, file: &str) -> Action {
        let source = self.cwd.join(file);
        let Some(dir) = self.sessions_dir.clone() else {
            self.notice("Sessions are not saved in this run (--no-session)".into());
            return Action::None;
        };
        if !source.is_file() {
            self.notice(format!("Cannot import {}: no such file", source.display()));
            return Action::None;
        }
        if let Err(error) = pi_session::session::SessionManager::open(&source, &self.cwd) {
            self.notice(format!("Cannot import {}: {error}", source.display()));
            return Action::None;
        }
        let name = source.file_name().unwrap_or_default();
        let target = dir.join(name);
        if target.exists() {
            self.notice(format!("{} is already a session here", target.display()));
            return Action::None;
        }
        let copied = std::fs::create_dir_all(&dir).and_then(|()| std::fs::copy(&source, &target));
        match copied {
            Ok(_) => Action::SwitchSession(target),
            Err(error) => {
                self.notice(format!(
                    "Cannot copy {} into {}: {error}",
                    source.display(),
                    dir.display()
                ));
                Action::None
            }
        }
    }

    /// A key while a one-line prompt is open.
    pub(super) fn prompt_key(&mut self, key: &KeyEvent, app: &App) -> Action {
        let Some(prompt) = &mut self.prompt else {
            return Action::None;
        };
        match key.code {
            KeyCode::Esc => self.prompt = None,
            KeyCode::Backspace => {
                prompt.text.pop();
            }
            KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                prompt.text.push(c);
            }
            KeyCode::Enter if prompt.text.trim().is_empty() && prompt.hidden() => {}
            KeyCode::Enter => {
                if let Some(prompt) = self.prompt.take() {
                    return self.answer(prompt, app);
                }
            }
            _ => {}
        }
        Action::None
    }

    /// What an answered prompt does.
    fn answer(&mut self, prompt: TextPrompt, app: &App) -> Action {
        let text = prompt.text.trim().to_owned();
        let done = match prompt.asks {
            Asks::SummaryFocus(id) => {
                return Action::Navigate {
                    id,
                    summary: Some((!text.is_empty()).then_some(text)),
                };
            }
            Asks::LoginPaste(provider) => {
                if let Some(lines) = &self.login_paste {
                    let _ = lines.send(text);
                }
                Ok(format!("Signing in to {provider} with what you pasted…"))
            }
            Asks::ApiKey(provider) => app
                .login_api_key(&provider, &text)
                .map(|()| format!("Stored the API key for {provider} in auth.json.")),
            Asks::Label(id) => {
                let label = (!text.is_empty()).then_some(text.clone());
                app.set_label(&id, label).map(|()| match text.as_str() {
                    "" => "Label cleared.".to_owned(),
                    label => format!("Labelled \"{label}\"."),
                })
            }
            Asks::SessionName(path) => rename_session(&path, &text, &self.cwd)
                .map(|()| format!("Renamed the session to \"{text}\"."))
                .map_err(pi_app::AppError::from),
        };
        match done {
            Ok(text) => self.transcript.notice(text, false),
            Err(error) => self.notice(error.to_string()),
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
            Some(provider) => self.prompt = Some(TextPrompt::new(Asks::ApiKey(provider))),
            None => {
                // Subscriptions first (signed in through the browser or a device code), then
                // every provider's API key.
                let mut entries: Vec<Entry> = app
                    .subscription_logins()
                    .into_iter()
                    .map(|(provider, what)| {
                        Entry::choice(
                            &format!("{SIGN_IN}{provider}"),
                            format!("{provider}: sign in"),
                            what,
                        )
                    })
                    .collect();
                entries.extend(provider_entries(app.login_providers()));
                self.open_picker(Picker::new(Purpose::Login, "Log in to", entries));
            }
        }
    }

    /// `/login`'s subscription sign-in to `provider` started: for a flow that takes a pasted
    /// redirect, the prompt for it and the channel it goes to the sign-in by.
    pub fn open_login_paste(&mut self, provider: &str) -> Option<pi_app::app::Pasted> {
        let pastes = pi_ai::oauth::SignIn::for_provider(provider).is_some_and(|s| s.pastes());
        if !pastes {
            return None;
        }
        let (lines, pasted) = tokio::sync::mpsc::unbounded_channel();
        self.login_paste = Some(lines);
        self.prompt = Some(TextPrompt::new(Asks::LoginPaste(provider.to_owned())));
        Some(pasted)
    }

    /// Closes the paste prompt of a sign-in that finished (through the browser); whether the
    /// screen changed.
    pub fn close_finished_login(&mut self) -> bool {
        if !self
            .login_paste
            .as_ref()
            .is_some_and(|lines| lines.is_closed())
        {
            return false;
        }
        self.login_paste = None;
        let open = matches!(&self.prompt, Some(p) if matches!(p.asks, Asks::LoginPaste(_)));
        if open {
            self.prompt = None;
        }
        open
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

    fn chosen(&mut self, purpose: Purpose, entry: Entry, save: bool, app: &App) -> Action {
        match purpose {
            Purpose::ScopedModels => {
                self.edit_scoped(app, &entry.value, super::scoped::Edit::Toggle);
                Action::None
            }
            Purpose::Tree if save => Action::Navigate {
                id: entry.value,
                summary: Some(None),
            },
            Purpose::Tree => self.ask_summary(app, entry.value),
            Purpose::TreeSummary => self.summary_chosen(&entry.value),
            Purpose::Settings => {
                let at = super::settings::position(&entry.value);
                self.change_setting(app, &entry.value);
                self.open_settings(app, at);
                Action::None
            }
            Purpose::Login => match entry.value.strip_prefix(SIGN_IN) {
                Some(provider) => Action::SignIn(provider.to_owned()),
                None => {
                    self.login(Some(entry.value), app);
                    Action::None
                }
            },
            Purpose::Logout => {
                self.logout(Some(entry.value), app);
                Action::None
            }
            Purpose::Session => Action::SwitchSession(entry.value.into()),
            Purpose::Mode => {
                self.choose_mode(app, &entry.value);
                Action::None
            }
            Purpose::PlanNext => self.plan_next(app, &entry.value),
            Purpose::Rewind | Purpose::RewindHow | Purpose::RewindOverwrite => {
                self.rewind_chosen(purpose, entry.value, app)
            }
            Purpose::McpServers
            | Purpose::McpServer
            | Purpose::McpTools
            | Purpose::McpExposure
            | Purpose::McpTrust => self.mcp_chosen(purpose, &entry.value, app),
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

    pub(super) fn open_picker(&mut self, picker: Picker) {
        self.picker = Some(picker);
        self.sync_picker_rows();
    }

    pub(super) fn sync_picker_rows(&mut self) {
        if let Some(picker) = &self.picker {
            self.popup_rows = picker.view().0;
        }
    }

    pub(super) fn close_picker(&mut self) {
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
        let dirs: Vec<std::path::PathBuf> = if self.all_sessions {
            let root = pi_session::paths::sessions_root(&self.agent_dir);
            std::fs::read_dir(&root)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        } else {
            vec![dir.clone()]
        };
        let mut infos: Vec<_> = dirs
            .iter()
            .flat_map(|d| pi_session::session::list_sessions(d))
            .collect();
        if self.sessions_by_name {
            infos.sort_by_key(|info| {
                let name = info
                    .name
                    .clone()
                    .unwrap_or_else(|| info.first_message.clone());
                name.to_lowercase()
            });
        } else {
            infos.sort_by_key(|info| std::cmp::Reverse(info.modified));
        }
        let all = self.all_sessions;
        let named_only = self.named_only;
        let entries: Vec<Entry> = infos
            .into_iter()
            .filter(|info| Some(&info.path) != current.as_ref())
            .filter(|info| !named_only || info.name.is_some())
            .map(|info| {
                let mut detail = format!(
                    "{} messages · {}",
                    info.message_count,
                    age(now - info.modified)
                );
                if all {
                    detail.push_str(&format!(" · {}", info.cwd));
                }
                Entry {
                    label: info
                        .name
                        .clone()
                        .unwrap_or_else(|| info.first_message.chars().take(60).collect()),
                    detail,
                    search_text: info.all_messages_text,
                    value: info.path.display().to_string(),
                }
            })
            .collect();
        if entries.is_empty() && !named_only {
            self.notice("No other session in this directory yet".into());
            return;
        }
        let title = format!(
            "Resume{}{}{} (type to search; Enter: open, Ctrl+P: {}, Ctrl+S: sort by {}, Ctrl+N: {}, \
             Ctrl+R: rename, Ctrl+D: delete)",
            if all { ", all directories" } else { "" },
            if self.sessions_by_name {
                ", by name"
            } else {
                ""
            },
            if named_only { ", named only" } else { "" },
            if all {
                "this directory"
            } else {
                "all directories"
            },
            if self.sessions_by_name {
                "date"
            } else {
                "name"
            },
            if named_only {
                "all sessions"
            } else {
                "named only"
            },
        );
        self.open_picker(Picker::new(Purpose::Session, title, entries));
    }
}

/// A one-line question in the status line (an API key, a label, a session name).
#[derive(Debug, Clone, PartialEq)]
pub struct TextPrompt {
    asks: Asks,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq)]
enum Asks {
    /// Never shown: dots stand for what is typed.
    ApiKey(String),
    /// The label of a tree entry (empty clears it).
    Label(String),
    /// A new name for the session in this file.
    SessionName(std::path::PathBuf),
    /// What the summary of the branch left for tree entry `.0` should focus on.
    SummaryFocus(String),
    /// The redirect (or code) of a sign-in to provider `.0` whose browser could not call back.
    LoginPaste(String),
}

impl TextPrompt {
    /// Asks for the focus of the summary of the branch left for tree entry `id`.
    pub(super) fn focus(id: String) -> Self {
        TextPrompt::new(Asks::SummaryFocus(id))
    }

    fn new(asks: Asks) -> Self {
        TextPrompt {
            asks,
            text: String::new(),
        }
    }

    fn hidden(&self) -> bool {
        matches!(self.asks, Asks::ApiKey(_))
    }

    /// The status line while it is open.
    pub fn line(&self) -> String {
        match &self.asks {
            Asks::ApiKey(provider) => format!(
                "API key for {provider}: {} (Enter to save, Esc to cancel)",
                "•".repeat(self.text.chars().count())
            ),
            Asks::Label(_) => format!("Label (empty clears it): {}▏", self.text),
            Asks::SessionName(_) => format!("New name for the session: {}▏", self.text),
            Asks::SummaryFocus(_) => {
                format!("Focus of the summary (Enter for none): {}▏", self.text)
            }
            Asks::LoginPaste(provider) => format!(
                "Signing in to {provider} in the browser; or paste where it ended (Esc hides this): {}▏",
                self.text
            ),
        }
    }
}

/// Deletes a session file the recoverable way, its checkpoints (`/rewind`) with it: the
/// desktop trash (`gio trash`, `trash`) where one is installed, else `<agent dir>/trash/`. Says
/// where it went.
fn trash(path: &std::path::Path, agent_dir: &std::path::Path) -> std::io::Result<String> {
    let went = trash_one(path, agent_dir)?;
    let checkpoints = pi_session::checkpoints::dir_for(path);
    if checkpoints.exists()
        && let Err(error) = trash_one(&checkpoints, agent_dir)
    {
        tracing::warn!("cannot delete {}: {error}", checkpoints.display());
    }
    Ok(went)
}

fn trash_one(path: &std::path::Path, agent_dir: &std::path::Path) -> std::io::Result<String> {
    for (program, args) in [("gio", &["trash"][..]), ("trash", &[][..])] {
        let done = std::process::Command::new(program)
            .args(args)
            .arg(path)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status();
        if done.is_ok_and(|s| s.success()) {
            return Ok("the trash".to_owned());
        }
    }
    let bin = agent_dir.join("trash");
    std::fs::create_dir_all(&bin)?;
    let name = path.file_name().unwrap_or_default();
    let target = bin.join(name);
    std::fs::rename(path, &target)?;
    Ok(target.display().to_string())
}

/// Appends a `session_info` entry with `name` to the session in `path`.
fn rename_session(
    path: &std::path::Path,
    name: &str,
    cwd: &std::path::Path,
) -> Result<(), pi_session::session::SessionError> {
    let name = name.replace(['\n', '\r'], " ").trim().to_owned();
    let mut session = pi_session::session::SessionManager::open(path, cwd)?;
    session.append_session_info((!name.is_empty()).then_some(name))?;
    Ok(())
}

/// The value of a `/login` entry that signs in with a subscription (the rest: an API key).
const SIGN_IN: &str = "sign-in:";

fn provider_entries(names: Vec<String>) -> Vec<Entry> {
    names
        .into_iter()
        .map(|name| Entry::choice(&name, name.clone(), "API key"))
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
