//! [`App`]: the typed API every face of pi drives, and the only one: it owns the (private)
//! [`AgentSession`] and adds what start-up resolved around it (model registry and scope, skills,
//! prompt templates) and the commands a user gives between runs: queueing, model and thinking
//! changes, session switches.
//!
//! Everything that happens reaches subscribers as one typed [`AppEvent`] stream, in order: the
//! agent's events (its queue changes become `queue_update`, published by the agent's queues
//! themselves, so a delivered message's `queue_update` precedes its `message_start`), the
//! session's (retries, compaction, `agent_end`/`agent_settled`), and the application's own
//! (`session_info_changed`, `entry_appended`, `bash_execution_update`, `model_changed`). The
//! agent and the session each have one sink, not subscribers: the `App`'s list is the only
//! one. JSON exists only in the faces that print it.

mod bash;
mod hooks;
mod login;
pub use login::Pasted;
mod mcp;
mod mcp_command;
mod mode;
mod permissions;
mod queries;
mod reload;
mod rewind;
mod session_ops;
mod subagents;

pub use bash::BashOutcome;
pub use hooks::{BUILTIN_COMMANDS, ExtensionCommand};
pub use mcp::{
    EXPOSURE_CHOICES, McpOverview, McpServerView, McpToolView,
    describe_state as describe_mcp_state, status_text as mcp_status_text,
};
pub use mcp_command::MCP_USAGE;
pub use queries::{
    AppState, Command, CommandSource, ContextUsage, SessionStats, TokenTotals, TreeNode, TreeRow,
    TreeRowKind,
};

use crate::agent_session::{
    AgentSession, AgentSessionError, AgentSessionEvent, AgentSessionOptions, EventSink,
    SessionEvent,
};
use crate::model_select::ScopedModel;
use crate::startup::Prepared;
use pi_agent::{AgentEvent, AgentMessage, AgentTool, QueueMode};
use pi_ai::{
    AssistantMessage, AuthStorage, ImageContent, Model, ModelRegistry, TextContent, ThinkingLevel,
    UserBlock, UserContent, UserMessage, clamp_thinking_level, lock, supported_thinking_levels,
};
use pi_ext_api::hooks::InputSource;
use pi_session::prompt_templates::PromptTemplates;
use pi_session::session::{SessionError, SessionManager};
use pi_session::settings::Settings;
use pi_session::skills::SkillRegistry;
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;

/// Everything an [`App`] reports, in order.
pub type AppEvent = AgentSessionEvent;

type Listener = Arc<dyn Fn(&AppEvent) + Send + Sync>;

/// Why a command was refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error(transparent)]
    Session(#[from] AgentSessionError),
    #[error(transparent)]
    SessionFile(#[from] SessionError),
    #[error(transparent)]
    Settings(#[from] pi_session::settings::SettingsError),
    #[error(transparent)]
    Auth(#[from] pi_ai::AuthError),
    /// A `/skill:name` command that names no skill, or a skill that cannot be read.
    #[error("{0}")]
    Skill(String),
    #[error("Model not found: {provider}/{id}")]
    ModelNotFound { provider: String, id: String },
    #[error("No API key for {provider}/{id}")]
    NoApiKey { provider: String, id: String },
    #[error("Entry not found: {0}")]
    EntryNotFound(String),
    #[error("Entry {0} is not a user message")]
    NotAUserMessage(String),
    #[error("Nothing to clone yet")]
    NothingToClone,
    #[error("Session name cannot be empty")]
    EmptyName,
    #[error("A bash command is already running")]
    BashRunning,
    #[error("Cannot run bash: {0}")]
    Bash(std::io::Error),
    #[error("Cannot start the shell {shell} (setting shellPath): {source}")]
    Shell {
        shell: String,
        source: std::io::Error,
    },
    /// A rewind of the files where this session keeps no checkpoints.
    #[error("This session keeps no checkpoints{0}")]
    NoCheckpoints(&'static str),
    /// An entry `/rewind` cannot go back to (not a user prompt or a rewind).
    #[error("Entry {0} is not a prompt or a rewind")]
    NotARewindPoint(String),
    #[error("Cannot rewind the files: {0}")]
    Checkpoint(#[from] pi_session::checkpoints::CheckpointError),
    #[error("Cannot write {path}: {source}")]
    Write {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
}

/// What became of a prompt, steer or follow-up (pi 1.6's `disposition`): a run started, the
/// message was queued for the running one, or it was handled without a run (pi: an extension
/// command or input hook; ours have neither yet, so no command answers `Handled` today).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Disposition {
    Started,
    Queued,
    Handled,
}

/// One running session and the command line's view of models and commands. Cheap to share
/// behind an `Arc`; every method takes `&self`.
pub struct App {
    session: AgentSession,
    registry: Arc<ModelRegistry>,
    auth: Arc<AuthStorage>,
    scoped: Mutex<Vec<ScopedModel>>,
    skills: Mutex<SkillRegistry>,
    templates: Mutex<PromptTemplates>,
    /// How start-up found them, to look again (`/reload`); `None` for an App built by hand.
    resource_search: Mutex<Option<crate::startup::ResourceSearch>>,
    /// Runs the extension components; kept to load them again (`/reload`).
    host: Option<pi_ext_host::ExtensionHost>,
    queue_modes: Mutex<(QueueMode, QueueMode)>,
    shared: Arc<Shared>,
    bash: bash::BashSlot,
    /// What extensions ask the user and tell them.
    ui: Arc<crate::hooks::UiBridge>,
    /// What installing the hooks refused (clashing command names).
    hook_warnings: Mutex<Vec<String>>,
    /// The settings' command hooks (kept across `/reload`, which reloads only packages).
    command_hooks: Mutex<Vec<Arc<dyn pi_ext_api::Hook>>>,
    /// The extensions' renderers, for the interactive UI.
    renderers: Mutex<Vec<Arc<dyn pi_ext_api::MessageRenderer>>>,
    /// The themes the extension packages ship, for the interactive UI.
    themes: Mutex<crate::extensions::PackageThemes>,
    /// What the tools and the system prompt are built from, for a switch of mode.
    rebuild: Arc<Mutex<crate::tools::RunSources>>,
    /// Each loaded package with what it was granted (`/grants`).
    package_grants: Mutex<Vec<(String, Vec<String>)>>,
    /// The agents a `subagent` call can name (`/agents`).
    agents: Arc<Mutex<crate::subagents::AgentDefinitions>>,
    /// Whether the run's tool flags allow `subagent` (offered when an agent is defined).
    subagent_allowed: bool,
}

/// What the session's event sink and the commands both update.
#[derive(Default)]
struct Shared {
    /// The subscribers: the one listener list of the process.
    listeners: Mutex<Vec<Listener>>,
    /// The last assistant message the session produced (the agent's state may drop a failed
    /// one while recovering, but that failure is still the run's outcome if nothing follows).
    last_assistant: Mutex<Option<AssistantMessage>>,
    /// How many of the session file's entries subscribers have been told about.
    reported_entries: Mutex<usize>,
}

impl Shared {
    fn emit(&self, event: &AppEvent) {
        let callbacks: Vec<Listener> = lock(&self.listeners).clone();
        for callback in callbacks {
            callback(event);
        }
    }

    fn has_listeners(&self) -> bool {
        !lock(&self.listeners).is_empty()
    }

    /// Reports the entries appended since the last report. Skipped while the session file is
    /// locked by the code that appends (the entries are reported by the next call).
    fn report_entries(&self, session: &AgentSession) {
        let Some(new) = session.try_with_session(|s| {
            let mut reported = lock(&self.reported_entries);
            let count = s.entry_count();
            let start = (*reported).min(count);
            *reported = count;
            if self.has_listeners() {
                s.entries_from(start).into_iter().cloned().collect()
            } else {
                Vec::new()
            }
        }) else {
            return;
        };
        for entry in new {
            self.emit(&AppEvent::Session(SessionEvent::EntryAppended {
                entry: Box::new(entry),
            }));
        }
    }

    /// Forwards one session event, with what it implies for the application's own state.
    fn forward(&self, session: &AgentSession, event: &AgentSessionEvent) {
        if let AgentSessionEvent::Agent(AgentEvent::MessageEnd { message }) = event
            && let Some(assistant) = message.as_assistant()
        {
            *lock(&self.last_assistant) = Some(assistant.clone());
        }
        if self.has_listeners() {
            self.emit(event);
        }
        // Streaming updates never follow an append: skip the check on the per-token path.
        let streaming = matches!(
            event,
            AgentSessionEvent::Agent(
                AgentEvent::MessageUpdate { .. } | AgentEvent::ToolExecutionUpdate { .. }
            )
        );
        if !streaming {
            self.report_entries(session);
        }
    }
}

impl App {
    /// Builds the agent session from start-up results; `tools` are the enabled tools.
    pub fn new(prepared: Prepared, tools: Vec<Arc<dyn AgentTool>>) -> Self {
        let tool_source = crate::startup::prepared_source(&prepared);
        let Prepared {
            base,
            session,
            model,
            thinking,
            scoped,
            api_key,
            system_prompt,
            skills,
            templates,
            resource_search,
            model_images,
            command_hooks,
            permission_mode,
            prompt_options,
            prompt_sources,
            mcp,
            agents,
            checkpoints,
            ..
        } = prepared;
        let auth = Arc::new(base.auth);
        let registry = Arc::new(base.registry);
        let modes = (
            base.settings.steering_mode(),
            base.settings.follow_up_mode(),
        );
        let mut options = AgentSessionOptions::new(session, base.settings, model.clone());
        options.thinking_level = thinking;
        options.system_prompt = system_prompt;
        options.tools = tools;
        options.auth = Arc::clone(&auth);
        options.api_key = api_key;
        options.registry = Some(Arc::clone(&registry));
        options.model_images = model_images;
        options.permission_mode = crate::permissions::ModeCell::new(permission_mode);
        options.checkpoints = checkpoints;
        let mut app = App::from_options(options, registry, auth, scoped, skills, templates);
        app.session
            .set_compactors(reload::compactors(&base.extensions, &app.session));
        app.renderers = Mutex::new(base.extensions.renderers.clone());
        app.themes = Mutex::new(base.extensions.themes.clone());
        app.resource_search = Mutex::new(Some(resource_search));
        *lock(&app.agents) = agents;
        app.subagent_allowed = tool_source
            .names()
            .iter()
            .any(|n| n == crate::subagents::TOOL_NAME);
        *lock(&app.rebuild) = crate::tools::RunSources {
            tools: Some(tool_source),
            prompt: Some((prompt_options, prompt_sources)),
        };
        // Hook components reach the user and the session through this app.
        base.host.set_hook_services(app.hook_services());
        app.host = Some(base.host);
        app.set_queue_modes(Some(modes.0), Some(modes.1));
        app.record_model_and_thinking(&model, thinking);
        // The settings' command hooks come after the component hooks in the pipeline; they ask
        // (a project hook's first use) and notify through this app's interface.
        command_hooks.set_ui(app.ui.clone());
        *lock(&app.command_hooks) = command_hooks.hooks.clone();
        let mut hooks = base.extensions.hooks.clone();
        hooks.extend(command_hooks.hooks.iter().cloned());
        app.set_hooks(hooks);
        app.load_approvals(&base.env, base.trusted, &base.extensions);
        if let Some(setup) = mcp {
            app.start_mcp(setup);
        }
        app.offer_subagents();
        app.announce_session(pi_ext_api::hooks::SessionStartReason::Startup);
        app
    }

    /// An app around a session built from `options` without start-up (tests, embedders): no
    /// extensions, the given models, skills and templates.
    pub fn from_options(
        options: AgentSessionOptions,
        registry: Arc<ModelRegistry>,
        auth: Arc<AuthStorage>,
        scoped: Vec<ScopedModel>,
        skills: SkillRegistry,
        templates: PromptTemplates,
    ) -> Self {
        let shared = Arc::new(Shared::default());
        *lock(&shared.reported_entries) = options.session.entry_count();
        let forward = Arc::clone(&shared);
        let sink: EventSink = Arc::new(move |session, event| forward.forward(session, event));
        let ui_events = Arc::clone(&shared);
        let ui = Arc::new(crate::hooks::UiBridge::new(Arc::new(move |event| {
            ui_events.emit(&AppEvent::Session(event));
        })));
        let pipeline = Arc::new(crate::agent_session::HookPipeline::new(
            ui.clone(),
            options.permission_mode.clone(),
        ));
        let session = AgentSession::new(options, sink, pipeline);
        App {
            session,
            registry,
            auth,
            scoped: Mutex::new(scoped),
            skills: Mutex::new(skills),
            templates: Mutex::new(templates),
            resource_search: Mutex::new(None),
            host: None,
            queue_modes: Mutex::new((QueueMode::OneAtATime, QueueMode::OneAtATime)),
            shared,
            bash: bash::BashSlot::default(),
            ui,
            hook_warnings: Mutex::default(),
            command_hooks: Mutex::default(),
            renderers: Mutex::new(Vec::new()),
            themes: Mutex::default(),
            rebuild: Arc::default(),
            package_grants: Mutex::default(),
            agents: Arc::default(),
            subagent_allowed: false,
        }
    }

    /// Records the start-up model and thinking level when they differ from what the branch
    /// last recorded (pi writes both when a session starts).
    fn record_model_and_thinking(&self, model: &Model, thinking: ThinkingLevel) {
        self.session.with_session_mut(|session| {
            log_error(session.record_start_settings(&model.provider, &model.id, thinking.as_str()));
        });
        self.shared.report_entries(&self.session);
    }

    /// The agent definitions a `subagent` call can name, with the warnings of the last look.
    pub fn agent_definitions(&self) -> crate::subagents::AgentDefinitions {
        lock(&self.agents).clone()
    }

    /// The extensions' renderers of custom messages and tool results.
    pub fn renderers(&self) -> Vec<Arc<dyn pi_ext_api::MessageRenderer>> {
        lock(&self.renderers).clone()
    }

    /// The theme folders and files of the extension packages (as of the last `/reload`).
    pub fn package_themes(&self) -> crate::extensions::PackageThemes {
        lock(&self.themes).clone()
    }

    // ---- events ----------------------------------------------------------------------------

    /// Every event from now on, through a channel.
    pub fn subscribe(&self) -> mpsc::UnboundedReceiver<AppEvent> {
        let (tx, rx) = mpsc::unbounded_channel();
        self.subscribe_fn(move |event| {
            let _ = tx.send(event.clone());
        });
        rx
    }

    /// Calls `listener` for every event, in order, as it happens.
    pub fn subscribe_fn(&self, listener: impl Fn(&AppEvent) + Send + Sync + 'static) {
        lock(&self.shared.listeners).push(Arc::new(listener));
    }

    fn emit(&self, event: SessionEvent) {
        self.shared.emit(&AppEvent::Session(event));
    }

    /// Reads the session file manager.
    pub fn with_session<R>(&self, f: impl FnOnce(&SessionManager) -> R) -> R {
        self.session.with_session(f)
    }

    // ---- prompting -------------------------------------------------------------------------

    /// `enableSkillCommands` (default on): whether `/skill:name` expands, in every mode.
    pub fn skill_commands_enabled(&self) -> bool {
        self.session.with_settings(|s| s.enable_skill_commands())
    }

    /// `/skill:name args` (while skill commands are on) and `/template args` expanded (pi's
    /// prompt step 4).
    pub fn expand_input(&self, text: &str) -> Result<String, AppError> {
        if text.starts_with(pi_session::skills::SKILL_COMMAND_PREFIX)
            && self.skill_commands_enabled()
        {
            return lock(&self.skills)
                .expand_command(text)
                .map_err(|e| AppError::Skill(e.to_string()));
        }
        Ok(lock(&self.templates).expand(text))
    }

    /// Runs one prompt until the session is settled (retries, recovery, compaction): it
    /// started a run (`Started`), or a hook's command or `input` hook dealt with it
    /// (`Handled`). The prompt comes from the user (pi's `interactive` source).
    pub async fn prompt(
        &self,
        text: String,
        images: Vec<ImageContent>,
    ) -> Result<Disposition, AppError> {
        self.prompt_from(InputSource::Interactive, text, images)
            .await
    }

    /// [`prompt`](Self::prompt) from `source` (what `input` hooks are told).
    pub async fn prompt_from(
        &self,
        source: InputSource,
        text: String,
        images: Vec<ImageContent>,
    ) -> Result<Disposition, AppError> {
        match self.input_step(text, images, source).await {
            Ok((text, images)) => self.prompt_after_input(text, images).await,
            Err(disposition) => Ok(disposition),
        }
    }

    /// Runs a prompt that went through [`input_step`](Self::input_step): templates and
    /// skills expanded, then the run until the session is settled.
    pub async fn prompt_after_input(
        &self,
        text: String,
        images: Vec<ImageContent>,
    ) -> Result<Disposition, AppError> {
        let text = self.expand_input(&text)?;
        let mut blocks = vec![UserBlock::Text(TextContent {
            text,
            text_signature: None,
        })];
        blocks.extend(images.into_iter().map(UserBlock::Image));
        let message = AgentMessage::from(UserMessage {
            content: UserContent::Blocks(blocks),
            timestamp: pi_ai::now_ms(),
        });
        self.session.prompt_messages(vec![message]).await?;
        Ok(Disposition::Started)
    }

    /// Queues a message delivered after the current turn's tool calls.
    pub fn steer(&self, text: String) -> Disposition {
        self.enqueue(text, true);
        Disposition::Queued
    }

    /// Queues a message delivered when the agent would otherwise stop.
    pub fn follow_up(&self, text: String) -> Disposition {
        self.enqueue(text, false);
        Disposition::Queued
    }

    /// Queues through the agent, whose queues publish the change (`queue_update`).
    fn enqueue(&self, text: String, steering: bool) {
        if steering {
            self.session.steer(text);
        } else {
            self.session.follow_up(text);
        }
    }

    /// Empties both queues and returns the texts they held (steering, follow-up), e.g. to put
    /// the messages back into the editor. Reported as a `queue_update`, even when empty.
    pub fn clear_queue(&self) -> (Vec<String>, Vec<String>) {
        self.session.clear_queues()
    }

    /// The texts of the queued messages (steering, follow-up), oldest first.
    pub fn queued_messages(&self) -> (Vec<String>, Vec<String>) {
        self.session.queued_texts()
    }

    /// Registers a compactor, asked before pi's own summary (after those already registered).
    pub fn add_compactor(&self, compactor: Arc<dyn pi_ext_api::CompactionOverride>) {
        self.session.add_compactor(compactor);
    }

    /// Registers a compactor component (e.g. one granted `llm`, whose model requests go through
    /// this session's models, credentials, retries and abort).
    pub fn add_extension_compactor(&self, component: Arc<pi_ext_host::LazyComponent>) {
        self.add_compactor(Arc::new(crate::extensions::ExtensionCompactor::new(
            component,
            self.session.downgrade(),
        )));
    }

    /// Stops the running request and tools, a retry wait, or a compaction.
    pub fn abort(&self) {
        self.ui.cancel_all();
        self.session.abort();
    }

    // ---- extensions talking to the user ------------------------------------------------------

    /// The face can answer extensions' dialogs (the terminal UI, RPC mode). Until a face says so,
    /// dialogs answer "cancelled" at once.
    pub fn enable_dialogs(&self) {
        self.ui.enable_dialogs();
    }

    /// Answers the dialog of the `extension_ui_request` with this `id`; false when no such
    /// dialog is open (answered already, timed out or cancelled).
    pub fn respond_ui(&self, id: &str, response: crate::hooks::UiResponse) -> bool {
        self.ui.respond(id, response)
    }

    pub async fn wait_for_idle(&self) {
        self.session.agent().wait_for_idle().await;
    }

    pub fn is_streaming(&self) -> bool {
        self.session.is_running()
    }

    /// The last assistant message produced in this process, else the conversation's last.
    pub fn last_assistant(&self) -> Option<AssistantMessage> {
        if let Some(message) = lock(&self.shared.last_assistant).clone() {
            return Some(message);
        }
        self.session.agent().with_state(|s| {
            s.messages
                .iter()
                .rev()
                .find_map(|m| m.as_assistant().cloned())
        })
    }

    /// The messages the next request starts from.
    pub fn messages(&self) -> Vec<AgentMessage> {
        self.session.messages()
    }

    /// The same messages read in place, without a copy (a long history is written out from
    /// here). `f` runs under the agent's state lock, so it must not wait on the agent.
    pub fn with_messages<R>(&self, f: impl FnOnce(&[AgentMessage]) -> R) -> R {
        self.session.agent().with_state(|s| f(&s.messages))
    }

    /// `/compact [focus]`: compacts now, whatever the threshold.
    pub async fn compact(
        &self,
        focus: Option<&str>,
    ) -> Result<crate::agent_session::CompactionResult, AppError> {
        let result = self.session.compact(focus).await;
        self.shared.report_entries(&self.session);
        Ok(result?)
    }

    // ---- model and thinking ----------------------------------------------------------------

    pub fn model(&self) -> Model {
        self.session.model()
    }
    /// Replaces the tools the model may call. The next request records the change in the
    /// session (pi 1.6's system-message patch), so a resumed session knows which tools it had.
    pub fn set_tools(&self, tools: Vec<Arc<dyn pi_agent::AgentTool>>) {
        self.session.set_tools(tools);
    }

    pub fn thinking_level(&self) -> ThinkingLevel {
        self.session.thinking_level()
    }

    /// Models with credentials (the scoped ones when a scope is set).
    pub fn available_models(&self) -> Vec<Model> {
        let scoped = self.scoped_models();
        if !scoped.is_empty() {
            return scoped.into_iter().map(|s| s.model).collect();
        }
        self.all_available_models()
    }

    /// Every model with credentials, whatever the scope.
    pub fn all_available_models(&self) -> Vec<Model> {
        let mut models: Vec<Model> = self.registry.available(&self.auth);
        let current = self.model();
        if !models
            .iter()
            .any(|m| m.provider == current.provider && m.id == current.id)
        {
            models.insert(0, current);
        }
        models
    }

    /// Switches to `provider/id`, which must have credentials.
    pub fn set_model(&self, provider: &str, id: &str) -> Result<Model, AppError> {
        let model = self
            .registry
            .find(provider, id)
            .ok_or_else(|| AppError::ModelNotFound {
                provider: provider.to_owned(),
                id: id.to_owned(),
            })?;
        let usable = self.registry.has_credential(provider, &self.auth)
            || self.session.has_explicit_key(provider);
        if !usable {
            return Err(AppError::NoApiKey {
                provider: provider.to_owned(),
                id: id.to_owned(),
            });
        }
        self.apply_model(model.clone(), None)?;
        Ok(model)
    }

    fn apply_model(&self, model: Model, thinking: Option<ThinkingLevel>) -> Result<(), AppError> {
        let level = thinking.unwrap_or_else(|| self.thinking_level());
        self.session.set_model(model.clone())?;
        self.emit(SessionEvent::ModelChanged {
            model: Box::new(model),
        });
        self.set_thinking_level(level)?;
        self.shared.report_entries(&self.session);
        Ok(())
    }

    /// Next model of the scope (or of the available models). `None` when there is only one.
    pub fn cycle_model(&self) -> Result<Option<(Model, ThinkingLevel)>, AppError> {
        self.cycle_model_by(false)
    }

    /// The next model (`back`: the previous one) of the scope or of the available models.
    pub fn cycle_model_by(&self, back: bool) -> Result<Option<(Model, ThinkingLevel)>, AppError> {
        let current = self.model();
        let scoped = self.scoped_models();
        let pool: Vec<ScopedModel> = if scoped.is_empty() {
            self.available_models()
                .into_iter()
                .map(|model| ScopedModel {
                    model,
                    thinking: None,
                })
                .collect()
        } else {
            scoped
        };
        let at = pool
            .iter()
            .position(|s| s.model.provider == current.provider && s.model.id == current.id);
        let len = pool.len();
        let step = |i: usize| {
            if back {
                (i + len - 1) % len
            } else {
                (i + 1) % len
            }
        };
        let Some(next) = (len > 1)
            .then(|| pool.get(at.map_or(0, step)))
            .flatten()
            .cloned()
        else {
            return Ok(None);
        };
        self.apply_model(next.model.clone(), next.thinking)?;
        Ok(Some((next.model, self.thinking_level())))
    }

    pub fn is_scoped(&self) -> bool {
        !lock(&self.scoped).is_empty()
    }

    /// The models Ctrl+P cycles through (`--models`, `enabledModels`); empty: all.
    pub fn scoped_models(&self) -> Vec<ScopedModel> {
        lock(&self.scoped).clone()
    }

    /// `/scoped-models`: the models to cycle through; `save` also writes them to
    /// `enabledModels` in the global settings.json.
    pub fn set_scoped_models(&self, models: Vec<ScopedModel>, save: bool) -> Result<(), AppError> {
        let patterns: Vec<String> = models
            .iter()
            .map(|s| {
                let id = format!("{}/{}", s.model.provider, s.model.id);
                match s.thinking {
                    Some(level) => format!("{id}:{}", level.as_str()),
                    None => id,
                }
            })
            .collect();
        *lock(&self.scoped) = models;
        if save {
            self.update_settings(|s| s.enabled_models = Some(patterns))?;
        }
        Ok(())
    }

    /// Sets the level clamped to the model; records it only when it changes.
    pub fn set_thinking_level(&self, level: ThinkingLevel) -> Result<ThinkingLevel, AppError> {
        let clamped = clamp_thinking_level(&self.model(), level);
        if clamped != self.thinking_level() {
            self.session.set_thinking_level(clamped)?;
            self.shared.report_entries(&self.session);
        }
        Ok(clamped)
    }

    pub fn available_thinking_levels(&self) -> Vec<ThinkingLevel> {
        supported_thinking_levels(&self.model())
    }

    /// The next supported level. `None` when the model supports only one.
    pub fn cycle_thinking_level(&self) -> Result<Option<ThinkingLevel>, AppError> {
        let levels = self.available_thinking_levels();
        let current = self.thinking_level();
        let at = levels.iter().position(|l| *l == current).unwrap_or(0);
        match (levels.len() > 1).then(|| levels.get((at + 1) % levels.len())) {
            Some(Some(next)) => self.set_thinking_level(*next).map(Some),
            _ => Ok(None),
        }
    }

    /// Sets how queued steering and follow-up messages are delivered (`None`: unchanged).
    pub fn set_queue_modes(&self, steering: Option<QueueMode>, follow_up: Option<QueueMode>) {
        let mut modes = lock(&self.queue_modes);
        if let Some(s) = steering {
            modes.0 = s;
        }
        if let Some(f) = follow_up {
            modes.1 = f;
        }
        self.session.agent().set_queue_modes(modes.0, modes.1);
    }

    pub fn queue_modes(&self) -> (QueueMode, QueueMode) {
        *lock(&self.queue_modes)
    }

    /// `/login`: the providers pi knows models of, sorted.
    pub fn login_providers(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .registry
            .providers()
            .into_iter()
            .map(str::to_owned)
            .collect();
        names.sort();
        names.dedup();
        names
    }

    /// `/logout`: the providers with a credential stored in `auth.json`.
    pub fn stored_credentials(&self) -> Vec<String> {
        let mut names = self.auth.providers();
        names.sort();
        names
    }

    /// `/login <provider>`: stores an API key in `auth.json` (mode 0600, under its lock).
    pub fn login_api_key(&self, provider: &str, key: &str) -> Result<(), AppError> {
        self.auth
            .set(provider, &pi_ai::Credential::api_key(key.trim()))
            .map_err(AppError::from)
    }

    /// `/logout <provider>`: removes its stored credential; whether there was one.
    pub fn logout(&self, provider: &str) -> Result<bool, AppError> {
        self.auth.remove(provider).map_err(AppError::from)
    }

    /// Ctrl+S in the model selector: the current model and thinking level become the defaults
    /// (`defaultProvider`, `defaultModel`, `defaultThinkingLevel` in the global settings.json).
    pub fn save_default_model(&self) -> Result<(), AppError> {
        let model = self.model();
        let thinking = self.thinking_level();
        self.update_settings(|s| {
            s.default_provider = Some(model.provider.clone());
            s.default_model = Some(model.id.clone());
            s.default_thinking_level = Some(thinking);
        })
    }

    /// The effective settings (global merged with the trusted project's).
    pub fn settings(&self) -> Settings {
        self.session.with_settings(|s| s.effective().clone())
    }

    /// Changes the global settings: saved at once (the keys that changed), applied to the
    /// running session where they apply now (the queue modes), and announced as
    /// [`SessionEvent::SettingsChanged`]. A failed save does not undo the change for this
    /// process; it is returned for the caller to report.
    pub fn update_settings(&self, change: impl FnOnce(&mut Settings)) -> Result<(), AppError> {
        let (saved, settings) = self.session.with_settings_mut(|s| {
            let before = (s.steering_mode(), s.follow_up_mode());
            let saved = s.update(change);
            let after = (s.steering_mode(), s.follow_up_mode());
            let modes = (before != after).then_some(after);
            (saved, (modes, s.effective().clone()))
        });
        let (modes, settings) = settings;
        if let Some((steering, follow_up)) = modes {
            self.set_queue_modes(Some(steering), Some(follow_up));
        }
        self.emit(SessionEvent::SettingsChanged {
            settings: Box::new(settings),
        });
        saved.map_err(AppError::from)
    }
}

/// pi's queue mode names: `all`, anything else one at a time.
pub fn queue_mode(name: &str) -> QueueMode {
    if name == "all" {
        QueueMode::All
    } else {
        QueueMode::OneAtATime
    }
}

/// The name pi shows for a queue mode.
pub fn queue_mode_name(mode: QueueMode) -> &'static str {
    match mode {
        QueueMode::All => "all",
        QueueMode::OneAtATime => "one-at-a-time",
    }
}

fn log_error<T>(result: Result<T, SessionError>) {
    if let Err(error) = result {
        tracing::error!("session file: {error}");
    }
}
