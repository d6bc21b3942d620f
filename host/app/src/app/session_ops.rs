//! Commands that change which session or branch the [`App`] works on, or what the session file
//! records besides the conversation: naming, new/switch/fork/clone, tree navigation, user shell
//! commands and export. Each refuses while the agent runs where pi does.

use super::{App, AppError, log_error};
use crate::agent_session::{AgentSessionError, NavigateOptions, NavigateResult, SessionEvent};
use pi_ai::lock;
use pi_ext_api::hooks::SessionStartReason;
use pi_session::messages::{AgentMessage, BashExecutionMessage};
use pi_session::session::SessionManager;
use std::path::{Path, PathBuf};

impl App {
    /// Names the session (line breaks become spaces) and reports `session_info_changed`.
    pub fn set_session_name(&self, name: &str) -> Result<(), AppError> {
        let name = name.replace(['\n', '\r'], " ").trim().to_owned();
        if name.is_empty() {
            return Err(AppError::EmptyName);
        }
        self.session
            .with_session_mut(|s| s.append_session_info(Some(name.clone())))?;
        self.emit(SessionEvent::SessionInfoChanged { name });
        self.shared.report_entries(&self.session);
        Ok(())
    }

    /// Sets (or with `None`, clears) the label of entry `id`.
    pub fn set_label(&self, id: &str, label: Option<String>) -> Result<(), AppError> {
        self.session
            .with_session_mut(|s| s.append_label(id, label))?;
        self.shared.report_entries(&self.session);
        Ok(())
    }

    pub(super) fn ensure_idle(&self) -> Result<(), AppError> {
        if self.is_streaming() {
            return Err(AgentSessionError::Busy.into());
        }
        Ok(())
    }

    /// Reloads the agent's conversation from the session's current branch.
    fn reload_messages(&self) {
        let messages = self
            .session
            .with_session(|s| s.build_session_context().messages);
        self.session.agent().replace_messages(messages);
        if self.session.agent().has_queued_messages() {
            self.session.clear_queues();
        }
        *lock(&self.shared.last_assistant) = None;
        *lock(&self.shared.reported_entries) = self.session.with_session(|s| s.entry_count());
    }

    /// Switches to another session and reloads the conversation.
    pub fn replace_session(&self, next: SessionManager) -> Result<(), AppError> {
        self.ensure_idle()?;
        self.session.with_session_mut(|s| *s = next);
        self.reload_messages();
        Ok(())
    }

    /// A new, empty session in the same directory (`parent`: the session it continues).
    pub fn new_session(&self, parent: Option<String>) -> Result<(), AppError> {
        self.ensure_idle()?;
        let next = self.session.with_session(|s| {
            let cwd = PathBuf::from(s.cwd());
            match s.session_file().and_then(Path::parent) {
                Some(dir) => SessionManager::create(&cwd, dir),
                None => SessionManager::in_memory(&cwd),
            }
        });
        self.replace_session(next.with_parent_session(parent.filter(|p| !p.is_empty())))?;
        self.announce_session(SessionStartReason::New);
        Ok(())
    }

    /// Opens the session file at `path`.
    pub fn switch_session(&self, path: &Path) -> Result<(), AppError> {
        let cwd = self.session.with_session(|s| PathBuf::from(s.cwd()));
        let next = SessionManager::open(path, &cwd)?;
        self.replace_session(next)?;
        self.announce_session(SessionStartReason::Resume);
        Ok(())
    }

    /// pi's fork: a new session holding the history before user message `entry_id`; returns
    /// that message's text (for the editor).
    pub fn fork(&self, entry_id: &str) -> Result<String, AppError> {
        self.ensure_idle()?;
        let text = self.session.with_session_mut(|session| {
            let entry = session
                .entry(entry_id)
                .cloned()
                .ok_or_else(|| AppError::EntryNotFound(entry_id.to_owned()))?;
            let Some(user) = entry.message().and_then(AgentMessage::as_user) else {
                return Err(AppError::NotAUserMessage(entry_id.to_owned()));
            };
            match &entry.parent_id {
                Some(parent) => {
                    session.create_branched_session(parent)?;
                }
                None => {
                    let cwd = PathBuf::from(session.cwd());
                    *session = match session.session_file().and_then(Path::parent) {
                        Some(dir) => SessionManager::create(&cwd, dir),
                        None => SessionManager::in_memory(&cwd),
                    };
                }
            }
            Ok(user.content.text())
        })?;
        self.reload_messages();
        self.announce_session(SessionStartReason::Fork);
        Ok(text)
    }

    /// The current branch in a new session file.
    pub fn clone_session(&self) -> Result<(), AppError> {
        self.ensure_idle()?;
        self.session
            .with_session_mut(|s| match s.leaf_id().map(str::to_owned) {
                Some(leaf) => s
                    .create_branched_session(&leaf)
                    .map(|_| ())
                    .map_err(AppError::from),
                None => Err(AppError::NothingToClone),
            })?;
        self.reload_messages();
        self.announce_session(SessionStartReason::Fork);
        Ok(())
    }

    /// `/tree`: continues from entry `target`, summarising the branch left when asked.
    pub async fn navigate_tree(
        &self,
        target: &str,
        options: NavigateOptions,
    ) -> Result<NavigateResult, AppError> {
        let result = self.session.navigate_tree(target, options).await;
        *lock(&self.shared.last_assistant) = None;
        self.shared.report_entries(&self.session);
        Ok(result?)
    }

    /// Records a user shell command in the session and the conversation.
    pub fn record_bash(&self, bash: BashExecutionMessage) {
        let message = AgentMessage::from(bash);
        self.session.agent().append_message(message.clone());
        log_error(self.session.with_session_mut(|s| s.append_message(message)));
        self.shared.report_entries(&self.session);
    }

    /// Writes the session as a self-contained HTML page (default name: `pi-session-<id>.html`
    /// in the working directory); returns the path written.
    pub fn export_html(&self, output: Option<PathBuf>) -> Result<PathBuf, AppError> {
        let (html, default_name) = self.session.with_session(|s| {
            (
                pi_session::export_html::render_entries(s.header(), &s.entries()),
                format!("pi-session-{}.html", s.session_id()),
            )
        });
        let path = output.unwrap_or_else(|| PathBuf::from(default_name));
        pi_session::paths::write_atomic(&path, html.as_bytes()).map_err(|source| {
            AppError::Write {
                path: path.clone(),
                source,
            }
        })?;
        Ok(path)
    }
}
