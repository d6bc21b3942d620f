//! `AgentSession`: the coding agent's session layer around pi-agent's [`Agent`]: compaction,
//! session-level retry and recovery, and the session events.
//!
//! It owns the session file, the settings, the model and thinking level; appends every message
//! to the file as it completes; compacts before a prompt, before each next turn and after each
//! run; retries transient failures; recovers once from context overflow and length truncation;
//! and summarises branches left through `/tree`. Its events are the agent's plus the session's
//! own ([`SessionEvent`]).
//!
//! It is private to pi-app: [`App`](crate::App) is the one façade. The session has no
//! subscribers of its own: it hands every event to the one sink the `App` gave it, which fans
//! them out (one listener list in the process). The agent's queue changes arrive as
//! [`AgentEvent::QueueChanged`] and leave as [`SessionEvent::QueueUpdate`], so no layer keeps a
//! copy of the queues.

mod approval;
pub(crate) mod checkpoints;
mod child;
mod compact;
pub mod events;
mod hooked;
mod mcp;
mod model_access;
mod navigate;
mod pipeline;
mod recovery;
mod system_record;
mod ui_request;

pub(crate) use child::ChildSpec;
pub use events::{AgentSessionEvent, CompactionResult, SessionEvent, SummarizationSource};
pub(crate) use hooked::custom_message;
pub(crate) use model_access::WeakAgentSession;
pub use navigate::{NavigateOptions, NavigateResult};
pub use pi_session::retry::{RetryPolicy, Sleeper, TokioSleeper};
pub use pipeline::HookCommand;
pub(crate) use pipeline::{HookPipeline, InputOutcome};
pub use ui_request::{ApprovalView, NotifyType, UiRequest, UiResponse};

use pi_agent::{
    Agent, AgentEvent, AgentMessage, AgentOptions, AgentTool, Hooks, PromptInput, StreamFn,
};
use pi_ai::{
    AuthStorage, Model, ModelRegistry, StreamOptions, TextContent, ThinkingLevel, UserBlock,
    UserContent, UserMessage,
};
use pi_ext_api::CompactionOverride;
use pi_session::messages;
use pi_session::session::{SessionError, SessionManager};
use pi_session::settings::SettingsManager;
use pi_session::system_prompt::{self, PromptSection};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Errors of the session API. Failures inside a run are reported as events and messages.
#[derive(Debug, thiserror::Error)]
pub enum AgentSessionError {
    #[error(
        "Agent is already processing. Use steer() or follow_up() to queue messages, or wait for completion."
    )]
    Busy,
    #[error("Compaction is in progress. Wait for it to finish.")]
    Compacting,
    #[error(
        "No API key found for {0}. Run `pi auth login {0}` (or /login {0} in interactive pi) or set an API key."
    )]
    NoApiKey(String),
    #[error(transparent)]
    Auth(#[from] pi_ai::AuthError),
    #[error(transparent)]
    Agent(#[from] pi_agent::AgentError),
    #[error(transparent)]
    Session(#[from] SessionError),
    /// Compaction or navigation did not happen (the reason is also in `compaction_end`).
    #[error("{0}")]
    Compaction(String),
    #[error("Cannot navigate the tree while the agent is running")]
    NavigateWhileRunning,
}

/// What a session is built from.
pub struct AgentSessionOptions {
    pub session: SessionManager,
    pub settings: SettingsManager,
    pub model: Model,
    pub thinking_level: ThinkingLevel,
    /// The system prompt as pi 1.6's named sections (sent joined, recorded as sections).
    pub system_prompt: Vec<PromptSection>,
    pub tools: Vec<Arc<dyn AgentTool>>,
    /// Credentials (`auth.json`).
    pub auth: Arc<AuthStorage>,
    /// `--api-key`: for the provider of the model the session starts with (as pi's runtime
    /// key), where it wins over everything else; never for another provider.
    pub api_key: Option<String>,
    /// For `models.json` provider keys.
    pub registry: Option<Arc<ModelRegistry>>,
    /// The stream function (default: pi-ai's registry).
    pub stream_fn: Option<StreamFn>,
    /// The clock retries wait on (default: tokio's).
    pub sleeper: Option<Arc<dyn Sleeper>>,
    /// Compactors asked before each compaction.
    pub compactors: Vec<Arc<dyn CompactionOverride>>,
    /// Whether the current model takes images, shared with the `read` tool (it says so
    /// instead of attaching an image the model would not see); kept up to date on model
    /// changes.
    pub model_images: Arc<std::sync::atomic::AtomicBool>,
    /// The permission mode, shared with whoever switches it.
    pub permission_mode: crate::permissions::ModeCell,
    /// Told of each user prompt (a checkpoint opens) and asked at the end of each run what
    /// the tools changed (`None`: no checkpoints, as in a child run).
    pub checkpoints: Option<Arc<pi_session::checkpoints::Recorder>>,
}

impl AgentSessionOptions {
    /// Options with defaults for everything but the session, settings and model.
    pub fn new(session: SessionManager, settings: SettingsManager, model: Model) -> Self {
        let model_images = Arc::new(std::sync::atomic::AtomicBool::new(model.supports_images()));
        AgentSessionOptions {
            session,
            settings,
            model,
            thinking_level: ThinkingLevel::Off,
            system_prompt: Vec::new(),
            tools: Vec::new(),
            auth: Arc::new(AuthStorage::in_memory()),
            api_key: None,
            registry: None,
            stream_fn: None,
            sleeper: None,
            compactors: Vec::new(),
            model_images,
            permission_mode: crate::permissions::ModeCell::default(),
            checkpoints: None,
        }
    }
}

/// Where the session's events go, in order: the one listener, installed by the `App`. It gets
/// the session too, to read what an event implies (the entries appended).
pub(crate) type EventSink = Arc<dyn Fn(&AgentSession, &AgentSessionEvent) + Send + Sync>;

/// Run bookkeeping of the session layer.
#[derive(Default)]
struct RunState {
    /// Retries made for the current failure (0 when none is in progress).
    retry_attempt: u32,
    /// One compact-and-retry per prompt.
    overflow_recovery_attempted: bool,
    /// The agent's `agent_end`, held until the session knows whether it will retry.
    pending_agent_end: Option<Vec<AgentMessage>>,
    compacting: bool,
}

/// A key given on the command line, and the provider it was given for.
struct ExplicitKey {
    provider: String,
    key: String,
}

struct Inner {
    agent: Agent,
    session: Mutex<SessionManager>,
    settings: Mutex<SettingsManager>,
    auth: Arc<AuthStorage>,
    /// `--api-key` with the one provider it is for.
    api_key: Option<ExplicitKey>,
    registry: Option<Arc<ModelRegistry>>,
    stream_fn: StreamFn,
    sleeper: Arc<dyn Sleeper>,
    compactors: Mutex<Vec<Arc<dyn CompactionOverride>>>,
    sink: EventSink,
    run: Mutex<RunState>,
    /// Cancels a retry wait or a running compaction (`abort`).
    cancel: Mutex<CancellationToken>,
    model_images: Arc<std::sync::atomic::AtomicBool>,
    permission_mode: crate::permissions::ModeCell,
    /// The sections of the prompt the agent sends, recorded before requests.
    prompt_sections: Mutex<Vec<PromptSection>>,
    /// The hooks asked at the session's lifecycle events.
    hooks: Arc<HookPipeline>,
    /// Messages hooks sent for the next prompt (`deliver-as: next-turn`).
    next_turn: Arc<Mutex<Vec<AgentMessage>>>,
    /// The number of the running turn in the current run (for `turn_end` hooks).
    turn_index: std::sync::atomic::AtomicU32,
    /// The session's own tools (built-in and extension); the agent has these plus the MCP
    /// tools offered at the time.
    base_tools: Mutex<Vec<Arc<dyn AgentTool>>>,
    mcp: Mutex<Option<Arc<crate::mcp::McpTools>>>,
    /// The `subagent` tool, when the session offers it.
    subagent: Mutex<Option<Arc<dyn AgentTool>>>,
    checkpoints: Option<Arc<pi_session::checkpoints::Recorder>>,
}

use pi_ai::lock;

/// The coding agent's session. Cheap to clone: clones share the session.
#[derive(Clone)]
pub(crate) struct AgentSession {
    inner: Arc<Inner>,
}

/// How a queued message appears in `queue_update`: the text of its content (pi's
/// `contentText`), empty for a message without text.
fn queued_text(message: &AgentMessage) -> String {
    match message.as_llm() {
        Some(pi_ai::Message::User(user)) => user.content.text(),
        _ => String::new(),
    }
}

fn texts(queued: pi_agent::QueuedMessages) -> (Vec<String>, Vec<String>) {
    (
        queued.steering.iter().map(queued_text).collect(),
        queued.follow_up.iter().map(queued_text).collect(),
    )
}

fn user_message(text: String) -> AgentMessage {
    AgentMessage::from(UserMessage {
        content: UserContent::Blocks(vec![UserBlock::Text(TextContent {
            text,
            text_signature: None,
        })]),
        timestamp: pi_ai::now_ms(),
    })
}

impl AgentSession {
    /// Builds the agent and loads the session's current branch into it; every event goes to
    /// `sink`.
    pub(crate) fn new(
        options: AgentSessionOptions,
        sink: EventSink,
        hooks: Arc<HookPipeline>,
    ) -> Self {
        let stream_fn = options
            .stream_fn
            .unwrap_or_else(pi_agent::default_stream_fn);
        let provider_retry = options.settings.retry().provider;
        // `httpIdleTimeoutMs` (default 5 min; 0/"disabled" = off) bounds every silence, the
        // wait for headers included unless `retry.provider.timeoutMs` sets that one.
        let idle = options
            .settings
            .http_idle_timeout_ms()
            .map_or(Duration::from_secs(365 * 24 * 3600), Duration::from_millis);
        let stream_options = StreamOptions {
            session_id: Some(options.session.session_id().to_owned()),
            max_retries: u32::try_from(provider_retry.max_retries).unwrap_or(0),
            max_retry_delay_ms: provider_retry.max_retry_delay_ms,
            header_timeout: provider_retry
                .timeout_ms
                .map_or(idle.min(Duration::from_secs(600)), Duration::from_millis),
            idle_timeout: idle,
            ..StreamOptions::default()
        };
        let api_key = options.api_key.map(|key| ExplicitKey {
            provider: options.model.provider.clone(),
            key,
        });
        let agent = Agent::new(
            options.model,
            AgentOptions {
                stream_options,
                ..AgentOptions::default()
            },
        );
        agent.set_system_prompt(system_prompt::join(&options.system_prompt));
        agent.set_thinking_level(options.thinking_level);
        agent.set_tools(options.tools.clone());
        let context = options.session.build_session_context();
        agent.replace_messages(context.messages);
        let inner = Arc::new(Inner {
            agent,
            session: Mutex::new(options.session),
            settings: Mutex::new(options.settings),
            auth: options.auth,
            api_key,
            registry: options.registry,
            stream_fn,
            sleeper: options.sleeper.unwrap_or_else(|| Arc::new(TokioSleeper)),
            compactors: Mutex::new(options.compactors),
            sink,
            run: Mutex::new(RunState::default()),
            cancel: Mutex::new(CancellationToken::new()),
            model_images: options.model_images,
            permission_mode: options.permission_mode,
            prompt_sections: Mutex::new(options.system_prompt),
            hooks,
            next_turn: Arc::default(),
            turn_index: Default::default(),
            base_tools: Mutex::new(options.tools),
            mcp: Mutex::default(),
            subagent: Mutex::default(),
            checkpoints: options.checkpoints,
        });
        let session = AgentSession { inner };
        session.install_hooks();
        session.forward_agent_events();
        session
    }

    fn from_weak(weak: &Weak<Inner>) -> Option<AgentSession> {
        weak.upgrade().map(|inner| AgentSession { inner })
    }

    fn install_hooks(&self) {
        let weak = Arc::downgrade(&self.inner);
        let key_weak = weak.clone();
        let get_api_key: pi_agent::GetApiKeyFn = Arc::new(move |provider| {
            let session = AgentSession::from_weak(&key_weak);
            let provider = provider.to_owned();
            Box::pin(async move {
                match session {
                    // A stored credential that fails is the run's error, never "no key" (the
                    // adapter would then read the environment).
                    Some(session) => session
                        .resolve_api_key(&provider)
                        .await
                        .map_err(|e| e.to_string()),
                    None => Ok(None),
                }
            })
        });
        let convert_weak = weak.clone();
        let convert_to_llm: pi_agent::ConvertToLlmFn = Arc::new(move |messages| {
            let converted = messages::convert_to_llm(messages);
            let blocked = AgentSession::from_weak(&convert_weak)
                .is_some_and(|s| lock(&s.inner.settings).images_block());
            if blocked {
                messages::block_images(converted)
            } else {
                converted
            }
        });
        let (transform_context, before_tool_call, after_tool_call) = self.hook_fns();
        let turn_weak = weak;
        let prepare_next_turn: pi_agent::PrepareNextTurnFn = Arc::new(move |info| {
            let session = AgentSession::from_weak(&turn_weak);
            // Shared, not copied: the check reads the history where it is.
            let messages = info.messages.to_vec();
            Box::pin(async move {
                let session = session?;
                let compacted = session.compact_before_next_turn(messages).await;
                session.mcp_next_turn(compacted)
            })
        });
        self.inner.agent.set_hooks(Hooks {
            stream_fn: self.inner.stream_fn.clone(),
            convert_to_llm,
            get_api_key: Some(get_api_key),
            prepare_next_turn: Some(prepare_next_turn),
            transform_context,
            before_tool_call,
            after_tool_call,
            ..Hooks::default()
        });
    }

    /// Persists completed messages and relays the agent's events (holding `agent_end`, and
    /// turning queue changes into pi's `queue_update`).
    fn forward_agent_events(&self) {
        let weak = Arc::downgrade(&self.inner);
        self.inner.agent.on_event(move |event| {
            let Some(session) = AgentSession::from_weak(&weak) else {
                return;
            };
            match event {
                AgentEvent::AgentEnd { messages } => {
                    lock(&session.inner.run).pending_agent_end = Some(messages.clone());
                }
                AgentEvent::MessageEnd { message } => {
                    session.persist(message);
                    session.emit(AgentSessionEvent::Agent(event.clone()));
                }
                AgentEvent::TurnEnd { .. } => {
                    session.emit(AgentSessionEvent::Agent(event.clone()));
                    session.observe_turn_end(event);
                }
                AgentEvent::QueueChanged {
                    steering,
                    follow_up,
                } => session.emit(SessionEvent::QueueUpdate {
                    steering: steering.iter().map(queued_text).collect(),
                    follow_up: follow_up.iter().map(queued_text).collect(),
                }),
                _ => session.emit(AgentSessionEvent::Agent(event.clone())),
            }
        });
    }

    /// Saves a completed message: an extension's custom message as pi's `custom_message`
    /// entry, any other as a `message` entry.
    fn persist(&self, message: &AgentMessage) {
        let mut session = lock(&self.inner.session);
        let saved = match message.as_host() {
            Some(pi_agent::HostMessage::Custom(custom)) => session.append_custom_message(
                custom.custom_type.clone(),
                custom.content.clone(),
                custom.display,
                custom.details.clone(),
            ),
            _ => session.append_message(message.clone()),
        };
        match saved {
            Err(error) => tracing::warn!(%error, "message not saved to the session file"),
            Ok(id) => {
                if let Some(recorder) = &self.inner.checkpoints
                    && message.as_user().is_some()
                {
                    recorder.start(session.session_file(), &id);
                }
            }
        }
    }

    fn emit(&self, event: impl Into<AgentSessionEvent>) {
        (self.inner.sink)(self, &event.into());
    }

    // ---- API for the App --------------------------------------------------------------------

    /// Sends prepared messages (text, images, extension messages) and runs until the agent is
    /// settled (retries, recovery and compaction included).
    pub async fn prompt_messages(
        &self,
        messages: Vec<AgentMessage>,
    ) -> Result<(), AgentSessionError> {
        self.ensure_idle()?;
        // A fresh token first: an earlier abort must not cancel this prompt's refresh.
        self.reset_cancel();
        let provider = self.model().provider;
        if self.resolve_api_key(&provider).await?.is_none() {
            return Err(AgentSessionError::NoApiKey(provider));
        }
        {
            let mut run = lock(&self.inner.run);
            run.overflow_recovery_attempted = false;
            run.retry_attempt = 0;
        }
        self.check_before_prompt().await;
        self.refresh_mcp_before_prompt().await;
        self.record_system_prompt();
        let (messages, system_prompt) = self.with_run_additions(messages).await;
        let started = std::time::Instant::now();
        self.inner
            .turn_index
            .store(0, std::sync::atomic::Ordering::Relaxed);
        if let Some(system_prompt) = system_prompt {
            self.inner.agent.set_system_prompt(system_prompt);
        }
        let ran = self
            .inner
            .agent
            .prompt(PromptInput::Messages(messages))
            .await;
        if ran.is_ok() {
            self.after_run().await;
        }
        self.restore_system_prompt();
        ran?;
        self.observe_agent_end(started).await;
        Ok(())
    }

    /// Queues a message delivered after the current turn's tool calls.
    pub fn steer(&self, text: impl Into<String>) {
        self.inner.agent.steer(user_message(text.into()));
    }

    /// Queues a message delivered when the agent would otherwise stop.
    pub fn follow_up(&self, text: impl Into<String>) {
        self.inner.agent.follow_up(user_message(text.into()));
    }

    /// Empties both queues (published as `queue_update`); returns the texts they held.
    pub fn clear_queues(&self) -> (Vec<String>, Vec<String>) {
        texts(self.inner.agent.clear_all_queues())
    }

    /// The texts of the queued messages (steering, follow-up).
    pub fn queued_texts(&self) -> (Vec<String>, Vec<String>) {
        texts(self.inner.agent.queued_messages())
    }

    /// Stops the running request and tools, a retry wait, or a compaction.
    pub fn abort(&self) {
        lock(&self.inner.cancel).cancel();
        self.inner.agent.abort();
    }

    /// `/compact [focus]`: stops any run, then compacts regardless of the threshold.
    pub async fn compact(
        &self,
        focus: Option<&str>,
    ) -> Result<CompactionResult, AgentSessionError> {
        if lock(&self.inner.run).compacting {
            return Err(AgentSessionError::Compacting);
        }
        self.inner.agent.abort();
        self.inner.agent.wait_for_idle().await;
        self.reset_cancel();
        self.run_compaction(
            pi_session::compaction::CompactionReason::Manual,
            focus,
            false,
        )
        .await
        .map_err(AgentSessionError::Compaction)
    }

    /// Registers a compactor (asked before the built-in summarizer).
    pub fn add_compactor(&self, compactor: Arc<dyn CompactionOverride>) {
        lock(&self.inner.compactors).push(compactor);
    }

    /// Replaces the registered compactors (`/reload` of extensions).
    pub fn set_compactors(&self, compactors: Vec<Arc<dyn CompactionOverride>>) {
        *lock(&self.inner.compactors) = compactors;
    }

    // ---- state ------------------------------------------------------------------------------

    /// The agent (state, queues, tools).
    pub fn agent(&self) -> &Agent {
        &self.inner.agent
    }

    /// The messages the next request starts from.
    pub fn messages(&self) -> Vec<AgentMessage> {
        self.inner.agent.messages()
    }

    pub fn model(&self) -> Model {
        self.inner.agent.with_state(|s| s.model.clone())
    }

    pub fn thinking_level(&self) -> ThinkingLevel {
        self.inner.agent.with_state(|s| s.thinking_level)
    }

    pub fn is_running(&self) -> bool {
        self.inner.agent.is_running()
    }

    pub fn is_compacting(&self) -> bool {
        lock(&self.inner.run).compacting
    }

    /// Reads the session file manager.
    pub fn with_session<R>(&self, f: impl FnOnce(&SessionManager) -> R) -> R {
        f(&lock(&self.inner.session))
    }

    /// Reads the session file manager unless another thread holds it right now.
    pub fn try_with_session<R>(&self, f: impl FnOnce(&SessionManager) -> R) -> Option<R> {
        let guard = match self.inner.session.try_lock() {
            Ok(guard) => guard,
            Err(std::sync::TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return None,
        };
        Some(f(&guard))
    }

    /// Reads the settings.
    pub fn with_settings<R>(&self, f: impl FnOnce(&SettingsManager) -> R) -> R {
        f(&lock(&self.inner.settings))
    }

    /// Changes the session file manager (RPC `bash`, `fork`, `clone`, `switch_session`). The
    /// caller reloads the agent's messages when it changes the branch.
    pub fn with_session_mut<R>(&self, f: impl FnOnce(&mut SessionManager) -> R) -> R {
        f(&mut lock(&self.inner.session))
    }

    /// Changes the settings for this process (RPC `set_auto_compaction`, `set_auto_retry`).
    pub fn with_settings_mut<R>(&self, f: impl FnOnce(&mut SettingsManager) -> R) -> R {
        f(&mut lock(&self.inner.settings))
    }

    /// Switches the model and records a `model_change` entry.
    /// Whether the current model takes images (shared with the `read` tool).
    /// The permission mode (shared: setting it switches the session's).
    pub fn permission_mode(&self) -> crate::permissions::ModeCell {
        self.inner.permission_mode.clone()
    }

    pub fn model_images(&self) -> Arc<std::sync::atomic::AtomicBool> {
        Arc::clone(&self.inner.model_images)
    }

    pub fn set_model(&self, model: Model) -> Result<(), AgentSessionError> {
        lock(&self.inner.session).append_model_change(&model.provider, &model.id)?;
        self.inner.model_images.store(
            model.supports_images(),
            std::sync::atomic::Ordering::Relaxed,
        );
        self.inner.agent.set_model(model);
        Ok(())
    }

    /// Sets the thinking level, records a `thinking_level_change` entry and reports it.
    pub fn set_thinking_level(&self, level: ThinkingLevel) -> Result<(), AgentSessionError> {
        lock(&self.inner.session).append_thinking_level_change(level.as_str())?;
        self.inner.agent.set_thinking_level(level);
        self.emit(SessionEvent::ThinkingLevelChanged {
            level: level.as_str().to_owned(),
        });
        Ok(())
    }

    // ---- internals --------------------------------------------------------------------------

    fn ensure_idle(&self) -> Result<(), AgentSessionError> {
        if lock(&self.inner.run).compacting {
            return Err(AgentSessionError::Compacting);
        }
        if self.inner.agent.is_running() {
            return Err(AgentSessionError::Busy);
        }
        Ok(())
    }

    fn reset_cancel(&self) {
        let mut cancel = lock(&self.inner.cancel);
        if cancel.is_cancelled() {
            *cancel = CancellationToken::new();
        }
    }

    fn cancel_token(&self) -> CancellationToken {
        lock(&self.inner.cancel).clone()
    }

    /// `--api-key`, when `provider` is the one it was given for.
    fn explicit_key(&self, provider: &str) -> Option<&str> {
        self.inner
            .api_key
            .as_ref()
            .filter(|explicit| explicit.provider == provider)
            .map(|explicit| explicit.key.as_str())
    }

    /// Whether `--api-key` was given for `provider`.
    pub fn has_explicit_key(&self, provider: &str) -> bool {
        self.explicit_key(provider).is_some()
    }

    /// The key for `provider`: `--api-key` (its provider only), stored credential (an OAuth
    /// login refreshed when less than max(5 min, `minOAuthValidityMs`) remains; `abort` cancels
    /// the refresh), environment, `models.json`.
    async fn resolve_api_key(&self, provider: &str) -> Result<Option<String>, AgentSessionError> {
        let models_key = self
            .inner
            .registry
            .as_ref()
            .and_then(|r| r.provider_api_key(provider).map(str::to_owned));
        let min_validity = lock(&self.inner.settings)
            .min_oauth_validity_ms()
            .map_or(pi_ai::oauth::REFRESH_WINDOW, Duration::from_millis);
        let options = pi_ai::ResolveOptions {
            min_validity,
            cancel: self.cancel_token(),
            ..pi_ai::ResolveOptions::default()
        };
        Ok(pi_ai::resolve_api_key(
            provider,
            self.explicit_key(provider),
            &self.inner.auth,
            models_key.as_deref(),
            &options,
        )
        .await?)
    }

    fn retry_policy(&self) -> RetryPolicy {
        RetryPolicy::from(lock(&self.inner.settings).retry())
    }

    fn compaction_settings(&self) -> pi_session::settings::CompactionSettings {
        lock(&self.inner.settings).compaction()
    }
}
