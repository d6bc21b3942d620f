//! INTERIM glue between the modes and the agent, used until `AgentSession`
//! (`agent_session/`) is merged: it drives a `pi_agent::Agent`, appends every finished
//! message to the session file, and answers the state questions the modes ask. It has no
//! retry, compaction or overflow recovery of its own — those belong to AgentSession, and this
//! module is to be replaced by it, not grown.

use crate::cli::model_select::ScopedModel;
use crate::cli::startup::Prepared;
use crate::messages::{self, AgentMessage as SessionMessage};
use crate::prompt_templates::PromptTemplates;
use crate::session::{EntryKind, SessionError, SessionManager};
use crate::skills::SkillRegistry;
use pi_agent::{Agent, AgentEvent, AgentMessage, AgentOptions, AgentTool, Hooks, QueueMode};
use pi_ai::{
    AssistantMessage, AuthStorage, ImageContent, Model, ModelRegistry, ThinkingLevel,
    supported_thinking_levels,
};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::mpsc;

/// A session event as the modes see it: the agent's events plus the session's own.
// Nearly every event is an agent event; boxing it would allocate for each token.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum SessionEvent {
    Agent(AgentEvent),
    /// Any other event, already in pi's JSON shape (`thinking_level_changed`, …).
    Other(Value),
}

impl SessionEvent {
    pub fn to_json(&self) -> Value {
        match self {
            SessionEvent::Agent(event) => serde_json::to_value(event).unwrap_or(Value::Null),
            SessionEvent::Other(value) => value.clone(),
        }
    }
}

struct Shared {
    session: Mutex<SessionManager>,
    listeners: Mutex<Vec<mpsc::UnboundedSender<SessionEvent>>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Shared {
    fn emit(&self, event: SessionEvent) {
        lock(&self.listeners).retain(|tx| tx.send(event.clone()).is_ok());
    }
}

/// One running session: the agent, its session file, models and credentials.
pub struct RunSession {
    agent: Agent,
    shared: Arc<Shared>,
    registry: ModelRegistry,
    auth: Arc<AuthStorage>,
    api_key: Option<String>,
    scoped: Vec<ScopedModel>,
    auto_compaction: Mutex<bool>,
    auto_retry: Mutex<bool>,
    queue_modes: Mutex<(QueueMode, QueueMode)>,
    skills: SkillRegistry,
    templates: PromptTemplates,
}

impl RunSession {
    /// Builds the agent from start-up results; `tools` are the enabled tools.
    pub fn new(prepared: Prepared, tools: Vec<Arc<dyn AgentTool>>) -> Self {
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
            ..
        } = prepared;
        let auth = Arc::new(base.auth);
        let mut options = AgentOptions {
            hooks: hooks(&base.registry, &auth, api_key.clone()),
            steering_mode: queue_mode(&base.settings.steering_mode()),
            follow_up_mode: queue_mode(&base.settings.follow_up_mode()),
            ..AgentOptions::default()
        };
        options.stream_options.session_id = Some(session.session_id().to_owned());
        let retry = base.settings.retry();
        options.stream_options.max_retries = retry.provider.max_retries as u32;
        options.stream_options.max_retry_delay_ms = retry.provider.max_retry_delay_ms;
        if let Some(ms) = base.settings.http_idle_timeout_ms() {
            options.stream_options.idle_timeout = std::time::Duration::from_millis(ms);
            options.stream_options.header_timeout = std::time::Duration::from_millis(ms);
        }
        let modes = (options.steering_mode, options.follow_up_mode);
        let agent = Agent::new(model.clone(), options);
        agent.set_system_prompt(system_prompt);
        agent.set_thinking_level(thinking);
        agent.set_tools(tools);
        agent.replace_messages(
            session
                .build_session_context()
                .messages
                .iter()
                .filter_map(to_agent_message)
                .collect(),
        );
        let shared = Arc::new(Shared {
            session: Mutex::new(session),
            listeners: Mutex::new(Vec::new()),
        });
        let run = RunSession {
            agent,
            shared,
            registry: base.registry,
            auth,
            api_key,
            scoped,
            auto_compaction: Mutex::new(base.settings.compaction().enabled),
            auto_retry: Mutex::new(retry.enabled),
            queue_modes: Mutex::new(modes),
            skills,
            templates,
        };
        run.record_model_and_thinking(&model, thinking);
        run.forward_agent_events();
        run
    }

    /// Writes the start-up model and thinking level when they differ from what the branch
    /// last recorded.
    fn record_model_and_thinking(&self, model: &Model, thinking: ThinkingLevel) {
        let mut session = lock(&self.shared.session);
        let context = session.build_session_context();
        let same_model = context
            .model
            .as_ref()
            .is_some_and(|m| m.provider == model.provider && m.model_id == model.id);
        if !same_model {
            log_error(session.append_model_change(&model.provider, &model.id));
        }
        if context.thinking_level != thinking.as_str() || session.entries().is_empty() {
            log_error(session.append_thinking_level_change(thinking.as_str()));
        }
    }

    fn forward_agent_events(&self) {
        let shared = Arc::clone(&self.shared);
        self.agent.subscribe(move |event| {
            if let AgentEvent::MessageEnd { message } = event
                && let Some(stored) = to_session_message(message)
            {
                log_error(lock(&shared.session).append_message(stored));
            }
            shared.emit(SessionEvent::Agent(event.clone()));
        });
    }

    /// Every event from now on.
    pub fn subscribe(&self) -> mpsc::UnboundedReceiver<SessionEvent> {
        let (tx, rx) = mpsc::unbounded_channel();
        lock(&self.shared.listeners).push(tx);
        rx
    }

    /// The session header line (pi's JSON).
    pub fn header_json(&self) -> Value {
        lock(&self.shared.session).header().to_json()
    }

    pub fn with_session<R>(&self, f: impl FnOnce(&mut SessionManager) -> R) -> R {
        f(&mut lock(&self.shared.session))
    }

    // ---- prompting -------------------------------------------------------------------------

    /// `/skill:name args` and `/template args` expanded (pi's prompt step 4).
    pub fn expand_input(&self, text: &str) -> Result<String, String> {
        if text.starts_with(crate::skills::SKILL_COMMAND_PREFIX) {
            return self.skills.expand_command(text).map_err(|e| e.to_string());
        }
        Ok(self.templates.expand(text))
    }

    /// Slash commands for RPC `get_commands`: templates and skills.
    pub fn commands_json(&self) -> Vec<Value> {
        let templates = self.templates.templates.iter().map(|t| {
            json!({"name": t.name, "description": t.description, "source": "prompt",
                   "path": t.file_path})
        });
        let skills = self.skills.skills.iter().map(|s| {
            json!({"name": format!("skill:{}", s.name), "description": s.description,
                   "source": "skill", "path": s.file_path})
        });
        templates.chain(skills).collect()
    }

    /// Runs one prompt to the end of its run.
    pub async fn prompt(&self, text: String, images: Vec<ImageContent>) -> Result<(), String> {
        let text = self.expand_input(&text)?;
        let input = if images.is_empty() {
            pi_agent::PromptInput::Text(text)
        } else {
            pi_agent::PromptInput::with_images(text, images)
        };
        self.agent.prompt(input).await.map_err(|e| e.to_string())
    }

    pub fn steer(&self, text: String) {
        self.agent.steer(AgentMessage::user_text(text));
        self.emit_queue_update();
    }

    pub fn follow_up(&self, text: String) {
        self.agent.follow_up(AgentMessage::user_text(text));
        self.emit_queue_update();
    }

    fn emit_queue_update(&self) {
        // The agent does not expose queue contents; report that something is queued.
        self.shared.emit(SessionEvent::Other(json!({
            "type": "queue_update",
            "steering": [],
            "followUp": [],
        })));
    }

    pub fn abort(&self) {
        self.agent.abort();
    }

    pub async fn wait_for_idle(&self) {
        self.agent.wait_for_idle().await;
    }

    pub fn is_streaming(&self) -> bool {
        self.agent.is_running()
    }

    /// The last assistant message of the conversation.
    pub fn last_assistant(&self) -> Option<AssistantMessage> {
        self.agent.with_state(|s| {
            s.messages
                .iter()
                .rev()
                .find_map(|m| m.as_assistant().cloned())
        })
    }

    pub fn messages_json(&self) -> Vec<Value> {
        self.agent.with_state(|s| {
            s.messages
                .iter()
                .filter_map(|m| serde_json::to_value(m).ok())
                .collect()
        })
    }

    // ---- model and thinking ----------------------------------------------------------------

    pub fn model(&self) -> Model {
        self.agent.with_state(|s| s.model.clone())
    }

    pub fn thinking_level(&self) -> ThinkingLevel {
        self.agent.with_state(|s| s.thinking_level)
    }

    /// Models with credentials (scoped ones when a scope is set).
    pub fn available_models(&self) -> Vec<Model> {
        if !self.scoped.is_empty() {
            return self.scoped.iter().map(|s| s.model.clone()).collect();
        }
        let mut models: Vec<Model> = self
            .registry
            .available(&self.auth)
            .into_iter()
            .cloned()
            .collect();
        let current = self.model();
        if let Some(provider_key) = &self.api_key
            && !provider_key.is_empty()
            && !models
                .iter()
                .any(|m| m.provider == current.provider && m.id == current.id)
        {
            models.insert(0, current);
        }
        models
    }

    pub fn set_model(&self, provider: &str, id: &str) -> Result<Model, String> {
        let model = self
            .registry
            .find(provider, id)
            .cloned()
            .ok_or_else(|| format!("Model not found: {provider}/{id}"))?;
        let usable = self.registry.has_credential(provider, &self.auth)
            || (self.api_key.is_some() && provider == self.model().provider);
        if !usable {
            return Err(format!("No API key for {provider}/{id}"));
        }
        self.apply_model(model.clone(), None);
        Ok(model)
    }

    fn apply_model(&self, model: Model, thinking: Option<ThinkingLevel>) {
        log_error(lock(&self.shared.session).append_model_change(&model.provider, &model.id));
        self.agent.set_model(model);
        let level = thinking.unwrap_or_else(|| self.thinking_level());
        self.set_thinking_level(level);
    }

    /// Next model of the scope (or of all available models). `None` when there is only one.
    pub fn cycle_model(&self) -> Option<(Model, ThinkingLevel)> {
        let current = self.model();
        let pool: Vec<ScopedModel> = if self.scoped.is_empty() {
            self.available_models()
                .into_iter()
                .map(|model| ScopedModel {
                    model,
                    thinking: None,
                })
                .collect()
        } else {
            self.scoped.clone()
        };
        if pool.len() <= 1 {
            return None;
        }
        let at = pool
            .iter()
            .position(|s| s.model.provider == current.provider && s.model.id == current.id);
        let next = pool[at.map_or(0, |i| (i + 1) % pool.len())].clone();
        self.apply_model(next.model.clone(), next.thinking);
        Some((next.model, self.thinking_level()))
    }

    /// Sets the level, clamped to the model; records it when it changes.
    pub fn set_thinking_level(&self, level: ThinkingLevel) -> ThinkingLevel {
        let clamped = pi_ai::clamp_thinking_level(&self.model(), level);
        let before = self.thinking_level();
        self.agent.set_thinking_level(clamped);
        let recorded = lock(&self.shared.session)
            .build_session_context()
            .thinking_level;
        if before != clamped || recorded != clamped.as_str() {
            log_error(lock(&self.shared.session).append_thinking_level_change(clamped.as_str()));
            self.shared.emit(SessionEvent::Other(json!({
                "type": "thinking_level_changed",
                "level": clamped.as_str(),
            })));
        }
        clamped
    }

    pub fn available_thinking_levels(&self) -> Vec<ThinkingLevel> {
        supported_thinking_levels(&self.model())
    }

    pub fn cycle_thinking_level(&self) -> Option<ThinkingLevel> {
        let levels = self.available_thinking_levels();
        if levels.len() <= 1 {
            return None;
        }
        let current = self.thinking_level();
        let at = levels.iter().position(|l| *l == current).unwrap_or(0);
        Some(self.set_thinking_level(levels[(at + 1) % levels.len()]))
    }

    pub fn set_queue_modes(&self, steering: Option<&str>, follow_up: Option<&str>) {
        let (s, f) = self.queue_modes();
        let steering = steering.map(queue_mode).unwrap_or(s);
        let follow_up = follow_up.map(queue_mode).unwrap_or(f);
        *lock(&self.queue_modes) = (steering, follow_up);
        self.agent.set_queue_modes(steering, follow_up);
    }

    pub fn queue_modes(&self) -> (QueueMode, QueueMode) {
        *lock(&self.queue_modes)
    }

    pub fn set_auto_compaction(&self, enabled: bool) {
        *lock(&self.auto_compaction) = enabled;
    }

    pub fn auto_compaction(&self) -> bool {
        *lock(&self.auto_compaction)
    }

    pub fn set_auto_retry(&self, enabled: bool) {
        *lock(&self.auto_retry) = enabled;
    }

    // ---- session operations ----------------------------------------------------------------

    pub fn set_session_name(&self, name: &str) -> Result<(), SessionError> {
        let name = name.replace(['\n', '\r'], " ").trim().to_owned();
        lock(&self.shared.session).append_session_info(Some(name.clone()))?;
        self.shared.emit(SessionEvent::Other(json!({
            "type": "session_info_changed",
            "name": name,
        })));
        Ok(())
    }

    /// pi's fork: a new session holding the history before user message `entry_id`; returns
    /// that message's text (for the editor).
    pub fn fork(&self, entry_id: &str) -> Result<String, String> {
        let mut session = lock(&self.shared.session);
        let entry = session
            .entry(entry_id)
            .cloned()
            .ok_or_else(|| format!("Entry not found: {entry_id}"))?;
        let EntryKind::Message(SessionMessage::User(user)) = &entry.kind else {
            return Err(format!("Entry {entry_id} is not a user message"));
        };
        let text = user_text(&user.content);
        match &entry.parent_id {
            Some(parent) => {
                session
                    .create_branched_session(parent)
                    .map_err(|e| e.to_string())?;
            }
            None => {
                let cwd = std::path::PathBuf::from(session.cwd());
                let dir = session
                    .session_file()
                    .and_then(|p| p.parent().map(std::path::Path::to_path_buf));
                *session = match dir {
                    Some(dir) => SessionManager::create(&cwd, &dir),
                    None => SessionManager::in_memory(&cwd),
                };
            }
        }
        let messages = session
            .build_session_context()
            .messages
            .iter()
            .filter_map(to_agent_message)
            .collect();
        drop(session);
        self.agent.replace_messages(messages);
        Ok(text)
    }

    /// Switches to another session (new, opened or cloned) and reloads the conversation.
    pub fn replace_session(&self, session: SessionManager) {
        let messages = session
            .build_session_context()
            .messages
            .iter()
            .filter_map(to_agent_message)
            .collect();
        *lock(&self.shared.session) = session;
        self.agent.replace_messages(messages);
        self.agent.clear_all_queues();
    }

    /// Records a user shell command (RPC `bash`) in the session and the conversation.
    pub fn record_bash(&self, bash: crate::messages::BashExecutionMessage) {
        let message = SessionMessage::BashExecution(bash);
        if let Some(agent_message) = to_agent_message(&message) {
            self.agent.append_message(agent_message);
        }
        log_error(lock(&self.shared.session).append_message(message));
    }

    /// User messages of the branch a fork can start from: `(entryId, text)`.
    pub fn fork_messages(&self) -> Vec<(String, String)> {
        lock(&self.shared.session)
            .get_branch(None)
            .iter()
            .filter_map(|e| match &e.kind {
                EntryKind::Message(SessionMessage::User(u)) => {
                    Some((e.id.clone(), user_text(&u.content)))
                }
                _ => None,
            })
            .collect()
    }

    /// pi's `RpcSessionState`.
    pub fn state_json(&self) -> Value {
        let session = lock(&self.shared.session);
        let (steering, follow_up) = self.queue_modes();
        let model = self.model();
        json!({
            "model": model,
            "thinkingLevel": self.thinking_level().as_str(),
            "isStreaming": self.is_streaming(),
            "isCompacting": false,
            "steeringMode": queue_mode_name(steering),
            "followUpMode": queue_mode_name(follow_up),
            "sessionFile": session.session_file().map(|p| p.to_string_lossy().into_owned()),
            "sessionId": session.session_id(),
            "sessionName": session.session_name(),
            "autoCompactionEnabled": self.auto_compaction(),
            "messageCount": self.agent.with_state(|s| s.messages.len()),
            "pendingMessageCount": usize::from(self.agent.has_queued_messages()),
        })
    }
}

fn user_text(content: &pi_ai::UserContent) -> String {
    content
        .to_blocks()
        .iter()
        .filter_map(|b| match b {
            pi_ai::UserBlock::Text(t) => Some(t.text.as_str()),
            pi_ai::UserBlock::Image(_) => None,
        })
        .collect::<Vec<_>>()
        .join("")
}

fn hooks(registry: &ModelRegistry, auth: &Arc<AuthStorage>, api_key: Option<String>) -> Hooks {
    let keys: std::collections::BTreeMap<String, String> = registry
        .providers()
        .into_iter()
        .filter_map(|p| {
            registry
                .provider_api_key(p)
                .map(|k| (p.to_owned(), k.to_owned()))
        })
        .collect();
    let auth = Arc::clone(auth);
    let get_api_key: pi_agent::GetApiKeyFn = Arc::new(move |provider: &str| {
        let key = pi_ai::resolve_api_key(
            provider,
            api_key.as_deref(),
            &auth,
            keys.get(provider).map(String::as_str),
        );
        Box::pin(async move { key.ok().flatten() })
    });
    Hooks {
        convert_to_llm: Arc::new(convert_to_llm),
        get_api_key: Some(get_api_key),
        ..Hooks::default()
    }
}

/// The coding agent's conversion (bash executions, summaries, custom messages).
fn convert_to_llm(messages: &[AgentMessage]) -> Vec<pi_ai::Message> {
    let converted: Vec<SessionMessage> = messages.iter().filter_map(to_session_message).collect();
    messages::convert_to_llm(&converted)
}

fn to_session_message(message: &AgentMessage) -> Option<SessionMessage> {
    if let Some(llm) = message.as_llm() {
        return Some(SessionMessage::from(llm.clone()));
    }
    serde_json::to_value(message)
        .ok()
        .and_then(|v| serde_json::from_value(v).ok())
}

fn to_agent_message(message: &SessionMessage) -> Option<AgentMessage> {
    serde_json::to_value(message)
        .ok()
        .and_then(|v| serde_json::from_value(v).ok())
}

fn queue_mode(name: &str) -> QueueMode {
    if name == "all" {
        QueueMode::All
    } else {
        QueueMode::OneAtATime
    }
}

fn queue_mode_name(mode: QueueMode) -> &'static str {
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
