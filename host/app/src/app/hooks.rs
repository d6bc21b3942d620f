//! The `App`'s side of hooks: installing them (with the services they are given), the
//! commands they serve, the prompt's `input` step, and telling them a session started or ends.

use super::{App, AppEvent, Disposition};
use crate::agent_session::InputOutcome;
use crate::hooks::HookSession;
use pi_ai::ImageContent;
use pi_ext_api::hooks::{
    CommandInfo, Hook, HookEvent, HookServices, InputSource, NotifyLevel, SessionStartReason,
    UserInterface,
};
use std::sync::Arc;

/// The commands pi itself serves in the interactive UI (offered after `/`), with what they do.
/// A hook's command of the same name is refused.
pub const BUILTIN_COMMANDS: [(&str, &str); 27] = [
    (
        "reload",
        "Read skills, prompt templates, context files, keybindings and the theme again",
    ),
    ("scoped-models", "Choose the models Ctrl+P cycles through"),
    ("import", "Continue a session from a JSONL file"),
    ("settings", "Change the common settings"),
    (
        "trust",
        "Trust this project's files from the next start (/trust no: never)",
    ),
    ("login", "Store an API key for a provider"),
    ("logout", "Remove a provider's stored credential"),
    ("resume", "Continue another session of this directory"),
    ("compact", "Compact the context now (optional instructions)"),
    ("name", "Name this session, or show its name"),
    (
        "session",
        "Show the session's file, id, messages, tokens and cost",
    ),
    ("new", "Start a new session"),
    ("clone", "Copy the current branch into a new session file"),
    ("fork", "Start a new session from an earlier prompt"),
    (
        "tree",
        "Navigate the session tree: continue from any earlier entry",
    ),
    (
        "rewind",
        "Put the files and the conversation back as they were before a prompt",
    ),
    (
        "export",
        "Export the session as HTML (or JSONL for a .jsonl path)",
    ),
    ("copy", "Copy the last answer to the clipboard"),
    ("model", "Choose the model (or switch to provider/model)"),
    ("thinking", "Set the thinking level"),
    (
        "mode",
        "Set the permission mode: auto, ask-writes, ask-all or plan",
    ),
    (
        "grants",
        "Show the approval rules and the packages' grants (/grants revoke <id>)",
    ),
    (
        "agents",
        "List the agent definitions subagents can run, and their sources",
    ),
    ("hotkeys", "Show the keys"),
    ("quit", "Quit pi"),
    ("exit", "Quit pi"),
    ("help", "Show the commands"),
];

/// A hook command with the hook that serves it, as `/` completion and `/help` list them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtensionCommand {
    pub info: CommandInfo,
    /// The serving extension's `name@version` (or the command hook's source).
    pub source: String,
}

impl App {
    /// What hooks are given: this app's user interface and session.
    pub fn hook_services(&self) -> HookServices {
        let ui_events = Arc::clone(&self.shared);
        let session = HookSession::new(
            self.session.downgrade(),
            Arc::new(move |event| ui_events.emit(&AppEvent::Session(event))),
            self.session.next_turn(),
        );
        HookServices {
            ui: self.ui.clone(),
            session: Arc::new(session),
        }
    }

    /// Installs the hooks, in load order. Commands named like one of pi's own, a prompt
    /// template's, a skill's or an earlier hook's are refused; the warnings say which (they are
    /// also kept for [`startup_warnings`](Self::startup_warnings)).
    pub fn set_hooks(&self, hooks: Vec<Arc<dyn Hook>>) -> Vec<String> {
        let taken = BUILTIN_COMMANDS
            .iter()
            .map(|(name, _)| (name.to_string(), "pi".to_owned()))
            .chain(
                self.resource_commands()
                    .into_iter()
                    .map(|c| (c.name, "a prompt template or skill".to_owned())),
            )
            .collect();
        prepare(&hooks);
        let warnings = self.session.set_hooks(hooks, taken);
        for warning in &warnings {
            tracing::warn!("{warning}");
        }
        pi_ai::lock(&self.hook_warnings).clone_from(&warnings);
        warnings
    }

    /// What installing the hooks refused, to show with the other start-up warnings.
    pub fn startup_warnings(&self) -> Vec<String> {
        pi_ai::lock(&self.hook_warnings).clone()
    }

    /// The hooks' commands that were not refused, in load order.
    pub fn extension_commands(&self) -> Vec<ExtensionCommand> {
        self.session
            .hooks()
            .commands()
            .into_iter()
            .filter(|c| {
                !BUILTIN_COMMANDS
                    .iter()
                    .any(|(name, _)| *name == c.info.name)
            })
            .map(|c| ExtensionCommand {
                source: c.hook.source().to_owned(),
                info: c.info,
            })
            .collect()
    }

    /// Runs `text` when it is `/name args` for a hook's command (pi runs these at once, even
    /// while the agent works); `None` when it names none.
    pub async fn run_extension_command(&self, text: &str) -> Option<Disposition> {
        let rest = text.strip_prefix('/')?;
        let (name, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        // pi 1.6's `/mcp` outside the interactive UI (which runs its own).
        if name == "mcp" && self.run_mcp_command(args).await {
            return Some(Disposition::Handled);
        }
        if BUILTIN_COMMANDS.iter().any(|(builtin, _)| *builtin == name) {
            return None;
        }
        let command = self.session.hooks().command(name)?;
        self.session
            .hooks()
            .run_command(&command, args.trim())
            .await;
        Some(Disposition::Handled)
    }

    /// Whether `text` is `/name …` for a hook's command.
    pub fn is_extension_command(&self, text: &str) -> bool {
        let Some(rest) = text.strip_prefix('/') else {
            return false;
        };
        let name = rest.split_whitespace().next().unwrap_or("");
        !BUILTIN_COMMANDS.iter().any(|(builtin, _)| *builtin == name)
            && self.session.hooks().command(name).is_some()
    }

    /// Whether a prompt's `input` step may take a while (some hook wants the event).
    pub fn has_input_hooks(&self) -> bool {
        self.session
            .hooks()
            .wants(pi_ext_api::hooks::HookEventKind::Input)
    }

    /// The `input` step of a prompt (pi's steps 1 and 3): a hook command runs, `input` hooks
    /// may transform the prompt or handle it. `Err` carries the disposition of a prompt that
    /// ends here; `Ok` the prompt for [`prompt_after_input`](Self::prompt_after_input).
    pub async fn input_step(
        &self,
        text: String,
        images: Vec<ImageContent>,
        source: InputSource,
    ) -> Result<(String, Vec<ImageContent>), Disposition> {
        if let Some(done) = self.run_extension_command(&text).await {
            return Err(done);
        }
        match self.session.hooks().input(text, images, source).await {
            InputOutcome::Continue { text, images } => Ok((text, images)),
            InputOutcome::Handled => Err(Disposition::Handled),
        }
    }

    /// Tells the hooks a session was opened (start-up, `/new`, a switch, a fork, `/reload`),
    /// without waiting for them (outside a tokio runtime nobody is told).
    pub fn announce_session(&self, reason: SessionStartReason) {
        let pipeline = std::sync::Arc::clone(self.session.hooks());
        if !pipeline.wants(pi_ext_api::hooks::HookEventKind::SessionStart) {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (session_id, cwd) = self
            .session
            .with_session(|s| (s.session_id().to_owned(), std::path::PathBuf::from(s.cwd())));
        let event = HookEvent::SessionStart {
            reason,
            session_id,
            cwd,
        };
        runtime.spawn(async move { pipeline.observe(event).await });
    }

    /// Tells the hooks the session is being closed (quitting, or before another opens).
    pub async fn shutdown(&self) {
        self.session
            .hooks()
            .observe(HookEvent::SessionShutdown)
            .await;
        self.stop_mcp().await;
    }

    /// Shows a notice from pi itself through the same channel as extensions' notices.
    pub fn notify(&self, text: &str, level: NotifyLevel) {
        self.ui.notify("pi", text, level);
    }
}

/// Loads the hooks one after the other on a thread of their own while the session gets going,
/// so that the first event finds them ready (one thread: the loads do not crowd the session's).
fn prepare(hooks: &[Arc<dyn Hook>]) {
    if hooks.is_empty() {
        return;
    }
    let hooks = hooks.to_vec();
    let started = std::thread::Builder::new()
        .name("pi-hooks prepare".into())
        .spawn(move || hooks.iter().for_each(|hook| hook.prepare()));
    if let Err(error) = started {
        tracing::debug!("hooks not prepared ahead: {error}");
    }
}
