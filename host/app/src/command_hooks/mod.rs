//! Command hooks in Claude Code's and codex's format: the `hooks` of the settings, each a shell
//! command run on an event (`PreToolUse`, `PostToolUse`, `UserPromptSubmit`, `SessionStart`,
//! `Stop`) with the event JSON on stdin, answering by exit code (2 blocks) or JSON on stdout.
//!
//! They run as host processes with the user's rights, outside any sandbox. The global
//! settings' hooks are the user's own and always run; a project's run only when the project is
//! trusted and the command was approved (`pi hooks approve`, or a yes when the interactive UI
//! asks at its first use). `--no-command-hooks` and `commandHooks: false` turn them all off.
//! Each command is one [`Hook`] for the session's hook pipeline, after the component hooks.

mod approvals;
mod config;
mod hook;
mod matcher;
mod process;

pub use approvals::{APPROVALS_FILE, approved, record as record_approvals};
pub use config::{ConfiguredHook, DEFAULT_TIMEOUT, HookEventName, HookScope, configured, enabled};
pub use hook::CommandHook;
pub use matcher::{CLAUDE_CODE_NAMES, Matcher};

use pi_ext_api::hooks::{Hook, UserInterface};
use pi_session::settings::SettingsManager;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

/// The user interface the hooks ask through, set once the face that runs is known.
#[derive(Clone, Default)]
pub struct UiSlot(Arc<RwLock<Option<Arc<dyn UserInterface>>>>);

impl UiSlot {
    fn get(&self) -> Option<Arc<dyn UserInterface>> {
        self.0.read().ok().and_then(|ui| ui.clone())
    }

    fn set(&self, ui: Arc<dyn UserInterface>) {
        if let Ok(mut slot) = self.0.write() {
            *slot = Some(ui);
        }
    }
}

/// The session the hooks report (`session_id`, `transcript_path`).
#[derive(Clone, Default)]
pub struct SessionSlot(Arc<RwLock<(String, Option<PathBuf>)>>);

impl SessionSlot {
    fn get(&self) -> (String, Option<PathBuf>) {
        self.0.read().map(|s| s.clone()).unwrap_or_default()
    }

    fn set(&self, id: &str, transcript: Option<PathBuf>) {
        if let Ok(mut slot) = self.0.write() {
            *slot = (id.to_owned(), transcript);
        }
    }

    /// A session started: a new id leaves the file unknown until [`CommandHooks::set_session`]
    /// names it, rather than reporting the old one.
    fn follow(&self, id: &str) {
        if let Ok(mut slot) = self.0.write()
            && slot.0 != id
        {
            *slot = (id.to_owned(), None);
        }
    }
}

/// What loading the command hooks needs.
pub struct LoadOptions<'a> {
    pub settings: &'a SettingsManager,
    pub agent_dir: &'a Path,
    pub cwd: &'a Path,
    /// `--no-command-hooks`.
    pub disabled: bool,
    /// Someone can be asked (the interactive UI): a project hook not yet approved asks at its
    /// first use. Otherwise it is skipped and a warning says how to approve it.
    pub can_ask: bool,
}

/// The loaded command hooks, in the settings' order (global first), and what loading found.
pub struct CommandHooks {
    pub hooks: Vec<Arc<dyn Hook>>,
    /// Start-up warnings: entries that do not run, project hooks skipped unapproved.
    pub warnings: Vec<String>,
    ui: UiSlot,
    session: SessionSlot,
}

impl std::fmt::Debug for CommandHooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sources: Vec<&str> = self.hooks.iter().map(|h| h.source()).collect();
        f.debug_struct("CommandHooks")
            .field("hooks", &sources)
            .field("warnings", &self.warnings)
            .finish()
    }
}

impl CommandHooks {
    /// No hooks.
    pub fn none() -> Self {
        CommandHooks {
            hooks: Vec::new(),
            warnings: Vec::new(),
            ui: UiSlot::default(),
            session: SessionSlot::default(),
        }
    }

    /// The hooks the settings configure and may run (the project's only when the settings
    /// hold them, i.e. the project is trusted). `ui` is who to ask, when already known.
    pub fn load(opts: &LoadOptions, ui: Option<Arc<dyn UserInterface>>) -> Self {
        let mut loaded = CommandHooks::none();
        if let Some(ui) = ui {
            loaded.ui.set(ui);
        }
        let settings = opts.settings;
        if opts.disabled || !enabled(settings.global(), settings.project()) {
            return loaded;
        }
        let warnings = &mut loaded.warnings;
        let global = configured(settings.global(), HookScope::Global, warnings);
        let project = configured(settings.project(), HookScope::Project, warnings);
        let current: Vec<String> = project.iter().map(|h| h.command.clone()).collect();
        let approved = approved(opts.agent_dir, opts.cwd);
        if approved.iter().any(|c| !current.contains(c))
            && let Err(error) = record_approvals(opts.agent_dir, opts.cwd, &[], &current)
        {
            warnings.push(format!("Warning (hooks): approvals not updated: {error}"));
        }
        let shell = settings
            .shell_path()
            .map(|p| {
                pi_session::paths::expand_tilde(&p)
                    .to_string_lossy()
                    .into_owned()
            })
            .unwrap_or_else(|| "sh".to_owned());
        let mut skipped = Vec::new();
        for hook in global.iter().chain(&project) {
            let matcher = match Matcher::new(hook.matcher.as_deref()) {
                Ok(matcher) => matcher,
                Err(error) => {
                    loaded.warnings.push(format!(
                        "Warning (hooks): the {} hook `{}` is not run: its matcher is not a \
                         valid regex: {error}",
                        hook.event.as_str(),
                        hook.command
                    ));
                    continue;
                }
            };
            let gated = hook.scope == HookScope::Project && !approved.contains(&hook.command);
            if gated && !opts.can_ask {
                skipped.push(format!("{} `{}`", hook.event.as_str(), hook.command));
                continue;
            }
            let record = gated.then(|| hook::ApprovalRecord {
                agent_dir: opts.agent_dir.to_path_buf(),
                current: current.clone(),
            });
            let slots = (loaded.ui.clone(), loaded.session.clone());
            let command_hook = CommandHook::new(
                hook,
                matcher,
                shell.clone(),
                opts.cwd.to_path_buf(),
                record,
                slots,
            );
            loaded.hooks.push(Arc::new(command_hook));
        }
        if !skipped.is_empty() {
            loaded.warnings.push(format!(
                "Warning (hooks): this project's command hooks not approved, so not run: {}. \
                 Run `pi hooks approve` in the project to approve them.",
                skipped.join(", ")
            ));
        }
        loaded
    }

    /// Sets who the hooks ask (a project hook's first use) and notify.
    pub fn set_ui(&self, ui: Arc<dyn UserInterface>) {
        self.ui.set(ui);
    }

    /// Sets the session the hooks report: its id and file (none for `--no-session`).
    pub fn set_session(&self, id: &str, transcript: Option<PathBuf>) {
        self.session.set(id, transcript);
    }
}

#[cfg(test)]
mod tests;
