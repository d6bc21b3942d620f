//! What the modes drive: an [`AgentSession`] plus what the command line resolved around it
//! (model registry and scope, skills, prompt templates), with the operations print, JSON and
//! RPC mode share. Events reach the modes as pi-shaped JSON values.

use crate::agent_session::{
    AgentSession, AgentSessionError, AgentSessionEvent, AgentSessionOptions, bridge,
};
use crate::cli::model_select::ScopedModel;
use crate::cli::startup::Prepared;
use crate::messages::AgentMessage as SessionMessage;
use crate::prompt_templates::PromptTemplates;
use crate::session::{EntryKind, SessionError, SessionManager};
use crate::skills::SkillRegistry;
use pi_agent::{AgentEvent, AgentMessage, AgentTool, QueueMode};
use pi_ai::{
    AssistantMessage, AuthStorage, ImageContent, Model, ModelRegistry, TextContent, ThinkingLevel,
    UserBlock, UserContent, UserMessage, clamp_thinking_level, supported_thinking_levels,
};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::mpsc;

type Listener = Arc<dyn Fn(&Value) + Send + Sync>;
type Listeners = Arc<Mutex<Vec<Listener>>>;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn emit(listeners: &Listeners, event: Value) {
    let callbacks: Vec<Listener> = lock(listeners).clone();
    for callback in callbacks {
        callback(&event);
    }
}

/// One running session and the command line's view of models and commands.
pub struct RunSession {
    session: AgentSession,
    registry: Arc<ModelRegistry>,
    auth: Arc<AuthStorage>,
    api_key: Option<String>,
    scoped: Vec<ScopedModel>,
    skills: SkillRegistry,
    templates: PromptTemplates,
    queue_modes: Mutex<(QueueMode, QueueMode)>,
    listeners: Listeners,
    /// The last assistant message the session produced (the agent's state may drop a failed
    /// one while recovering, but that failure is still the run's outcome if nothing follows).
    last_assistant: Arc<Mutex<Option<AssistantMessage>>>,
    queued: Arc<Mutex<Queued>>,
}

/// Texts of the queued steering and follow-up messages, for pi's `queue_update` event (the
/// agent keeps its queues private).
#[derive(Default)]
struct Queued {
    steering: Vec<String>,
    follow_up: Vec<String>,
}

impl Queued {
    fn event(&self) -> Value {
        json!({"type": "queue_update", "steering": self.steering, "followUp": self.follow_up})
    }

    /// A user message was delivered: drop it from the queue it came from.
    fn delivered(&mut self, text: &str) -> bool {
        for queue in [&mut self.steering, &mut self.follow_up] {
            if let Some(at) = queue.iter().position(|t| t == text) {
                queue.remove(at);
                return true;
            }
        }
        false
    }
}

impl RunSession {
    /// Builds the agent session from start-up results; `tools` are the enabled tools.
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
        let registry = Arc::new(base.registry);
        let modes = (
            queue_mode(&base.settings.steering_mode()),
            queue_mode(&base.settings.follow_up_mode()),
        );
        let mut options = AgentSessionOptions::new(session, base.settings, model.clone());
        options.thinking_level = thinking;
        options.system_prompt = system_prompt;
        options.tools = tools;
        options.auth = Arc::clone(&auth);
        options.api_key = api_key.clone();
        options.registry = Some(Arc::clone(&registry));
        let session = AgentSession::new(options);
        for component in &base.extensions.compactors {
            session.add_compactor(Arc::new(crate::extensions::ExtensionCompactor::new(
                Arc::clone(component),
                session.downgrade(),
            )));
        }
        session.agent().set_queue_modes(modes.0, modes.1);
        let listeners: Listeners = Arc::default();
        let forward = Arc::clone(&listeners);
        let last_assistant: Arc<Mutex<Option<AssistantMessage>>> = Arc::default();
        let last = Arc::clone(&last_assistant);
        let queued: Arc<Mutex<Queued>> = Arc::default();
        let queue_view = Arc::clone(&queued);
        session.subscribe(move |event| {
            if let AgentSessionEvent::Agent(AgentEvent::MessageEnd { message }) = event
                && let Some(assistant) = message.as_assistant()
            {
                *lock(&last) = Some(assistant.clone());
            }
            let delivered = match event {
                AgentSessionEvent::Agent(AgentEvent::MessageStart { message }) => {
                    user_message_text(message).and_then(|text| {
                        let mut queued = lock(&queue_view);
                        queued.delivered(&text).then(|| queued.event())
                    })
                }
                _ => None,
            };
            if !lock(&forward).is_empty()
                && let Ok(value) = serde_json::to_value(event)
            {
                emit(&forward, value);
            }
            if let Some(update) = delivered {
                emit(&forward, update);
            }
        });
        let run = RunSession {
            session,
            registry,
            auth,
            api_key,
            scoped,
            skills,
            templates,
            queue_modes: Mutex::new(modes),
            listeners,
            last_assistant,
            queued,
        };
        run.record_model_and_thinking(&model, thinking);
        run
    }

    /// Records the start-up model and thinking level when they differ from what the branch
    /// last recorded (pi writes both when a session starts).
    fn record_model_and_thinking(&self, model: &Model, thinking: ThinkingLevel) {
        self.session.with_session_mut(|session| {
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
        });
    }

    /// Every event from now on, as pi-shaped JSON, through a channel.
    pub fn subscribe(&self) -> mpsc::UnboundedReceiver<Value> {
        let (tx, rx) = mpsc::unbounded_channel();
        self.subscribe_fn(move |event| {
            let _ = tx.send(event.clone());
        });
        rx
    }

    /// Calls `listener` for every event, in order, as it happens.
    pub fn subscribe_fn(&self, listener: impl Fn(&Value) + Send + Sync + 'static) {
        lock(&self.listeners).push(Arc::new(listener));
    }

    fn emit(&self, event: Value) {
        emit(&self.listeners, event);
    }

    /// The underlying agent session.
    pub fn agent_session(&self) -> &AgentSession {
        &self.session
    }

    /// The session header line (pi's JSON).
    pub fn header_json(&self) -> Value {
        self.session.with_session(|s| s.header().to_json())
    }

    pub fn with_session<R>(&self, f: impl FnOnce(&mut SessionManager) -> R) -> R {
        self.session.with_session_mut(f)
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

    /// Runs one prompt until the session is settled (retries, recovery, compaction).
    pub async fn prompt(&self, text: String, images: Vec<ImageContent>) -> Result<(), String> {
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
        self.session
            .prompt_messages(vec![message])
            .await
            .map_err(|e| e.to_string())
    }

    pub fn steer(&self, text: String) {
        let update = {
            let mut queued = lock(&self.queued);
            queued.steering.push(text.clone());
            queued.event()
        };
        self.session.steer(text);
        self.emit(update);
    }

    pub fn follow_up(&self, text: String) {
        let update = {
            let mut queued = lock(&self.queued);
            queued.follow_up.push(text.clone());
            queued.event()
        };
        self.session.follow_up(text);
        self.emit(update);
    }

    pub fn abort(&self) {
        self.session.abort();
    }

    pub async fn wait_for_idle(&self) {
        self.session.agent().wait_for_idle().await;
    }

    pub fn is_streaming(&self) -> bool {
        self.session.is_running()
    }

    /// The last assistant message produced in this process, else the conversation's last.
    pub fn last_assistant(&self) -> Option<AssistantMessage> {
        if let Some(message) = lock(&self.last_assistant).clone() {
            return Some(message);
        }
        self.session.agent().with_state(|s| {
            s.messages
                .iter()
                .rev()
                .find_map(|m| m.as_assistant().cloned())
        })
    }

    pub fn messages_json(&self) -> Vec<Value> {
        self.session.agent().with_state(|s| {
            s.messages
                .iter()
                .filter_map(|m| serde_json::to_value(m).ok())
                .collect()
        })
    }

    /// RPC `compact`: the compaction result as pi's JSON.
    pub async fn compact(&self, focus: Option<&str>) -> Result<Value, String> {
        let result = self
            .session
            .compact(focus)
            .await
            .map_err(|e| e.to_string())?;
        Ok(serde_json::to_value(result).unwrap_or(Value::Null))
    }

    // ---- model and thinking ----------------------------------------------------------------

    pub fn model(&self) -> Model {
        self.session.model()
    }

    pub fn thinking_level(&self) -> ThinkingLevel {
        self.session.thinking_level()
    }

    /// Models with credentials (the scoped ones when a scope is set).
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
        if !models
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
        self.apply_model(model.clone(), None)?;
        Ok(model)
    }

    fn apply_model(&self, model: Model, thinking: Option<ThinkingLevel>) -> Result<(), String> {
        let level = thinking.unwrap_or_else(|| self.thinking_level());
        self.session.set_model(model).map_err(|e| e.to_string())?;
        self.set_thinking_level(level)?;
        Ok(())
    }

    /// Next model of the scope (or of the available models). `None` when there is only one.
    pub fn cycle_model(&self) -> Result<Option<(Model, ThinkingLevel)>, String> {
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
            return Ok(None);
        }
        let at = pool
            .iter()
            .position(|s| s.model.provider == current.provider && s.model.id == current.id);
        let next = pool[at.map_or(0, |i| (i + 1) % pool.len())].clone();
        self.apply_model(next.model.clone(), next.thinking)?;
        Ok(Some((next.model, self.thinking_level())))
    }

    pub fn is_scoped(&self) -> bool {
        !self.scoped.is_empty()
    }

    /// Sets the level clamped to the model; records it only when it changes.
    pub fn set_thinking_level(&self, level: ThinkingLevel) -> Result<ThinkingLevel, String> {
        let clamped = clamp_thinking_level(&self.model(), level);
        if clamped != self.thinking_level() {
            self.session
                .set_thinking_level(clamped)
                .map_err(|e| e.to_string())?;
        }
        Ok(clamped)
    }

    pub fn available_thinking_levels(&self) -> Vec<ThinkingLevel> {
        supported_thinking_levels(&self.model())
    }

    pub fn cycle_thinking_level(&self) -> Result<Option<ThinkingLevel>, String> {
        let levels = self.available_thinking_levels();
        if levels.len() <= 1 {
            return Ok(None);
        }
        let current = self.thinking_level();
        let at = levels.iter().position(|l| *l == current).unwrap_or(0);
        self.set_thinking_level(levels[(at + 1) % levels.len()])
            .map(Some)
    }

    pub fn set_queue_modes(&self, steering: Option<&str>, follow_up: Option<&str>) {
        let mut modes = lock(&self.queue_modes);
        if let Some(s) = steering {
            modes.0 = queue_mode(s);
        }
        if let Some(f) = follow_up {
            modes.1 = queue_mode(f);
        }
        self.session.agent().set_queue_modes(modes.0, modes.1);
    }

    pub fn queue_modes(&self) -> (QueueMode, QueueMode) {
        *lock(&self.queue_modes)
    }

    /// Turns automatic compaction (`"compaction.enabled"`) or retry (`"retry.enabled"`) on or
    /// off, and saves it in the global settings file as pi does, so later runs keep it. Like
    /// pi, a failed save does not fail the command: the change applies to this process and
    /// the failure is logged.
    pub fn set_setting(&self, path: &str, enabled: bool) {
        self.session.with_settings_mut(|s| {
            s.set(path, Value::Bool(enabled));
            if s.global_path().as_os_str().is_empty() {
                return;
            }
            if let Err(e) = s.save() {
                tracing::warn!("cannot save setting {path}: {e}");
            }
        });
    }

    // ---- session operations ----------------------------------------------------------------

    pub fn set_session_name(&self, name: &str) -> Result<(), SessionError> {
        let name = name.replace(['\n', '\r'], " ").trim().to_owned();
        self.session
            .with_session_mut(|s| s.append_session_info(Some(name.clone())))?;
        self.emit(json!({"type": "session_info_changed", "name": name}));
        Ok(())
    }

    /// Reloads the agent's conversation from the session's current branch.
    fn reload_messages(&self) {
        let messages = self
            .session
            .with_session(|s| bridge::all_to_runtime(&s.build_session_context().messages));
        self.session.agent().replace_messages(messages);
        self.session.agent().clear_all_queues();
        *lock(&self.last_assistant) = None;
        *lock(&self.queued) = Queued::default();
    }

    /// Switches to another session (new, opened) and reloads the conversation.
    pub fn replace_session(&self, next: SessionManager) -> Result<(), AgentSessionError> {
        if self.is_streaming() {
            return Err(AgentSessionError::Busy);
        }
        self.session.with_session_mut(|s| *s = next);
        self.reload_messages();
        Ok(())
    }

    /// Records a user shell command (RPC `bash`) in the session and the conversation.
    pub fn record_bash(&self, bash: crate::messages::BashExecutionMessage) {
        let message = SessionMessage::BashExecution(bash);
        self.session
            .agent()
            .append_message(bridge::to_runtime(&message));
        log_error(self.session.with_session_mut(|s| s.append_message(message)));
    }

    /// pi's fork: a new session holding the history before user message `entry_id`; returns
    /// that message's text.
    pub fn fork(&self, entry_id: &str) -> Result<String, String> {
        if self.is_streaming() {
            return Err(AgentSessionError::Busy.to_string());
        }
        let text = self.session.with_session_mut(|session| {
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
                    *session = match session.session_file().and_then(|p| p.parent()) {
                        Some(dir) => SessionManager::create(&cwd, dir),
                        None => SessionManager::in_memory(&cwd),
                    };
                }
            }
            Ok(text)
        })?;
        self.reload_messages();
        Ok(text)
    }

    /// RPC `clone`: the current branch in a new session file.
    pub fn clone_session(&self) -> Result<(), String> {
        if self.is_streaming() {
            return Err(AgentSessionError::Busy.to_string());
        }
        self.session
            .with_session_mut(|s| match s.leaf_id().map(str::to_owned) {
                Some(leaf) => s
                    .create_branched_session(&leaf)
                    .map(|_| ())
                    .map_err(|e| e.to_string()),
                None => Err("Nothing to clone yet".to_owned()),
            })?;
        self.reload_messages();
        Ok(())
    }

    /// User messages of the branch a fork can start from: `(entryId, text)`.
    pub fn fork_messages(&self) -> Vec<(String, String)> {
        self.session.with_session(|s| {
            s.get_branch(None)
                .iter()
                .filter_map(|e| match &e.kind {
                    EntryKind::Message(SessionMessage::User(u)) => {
                        Some((e.id.clone(), user_text(&u.content)))
                    }
                    _ => None,
                })
                .collect()
        })
    }

    /// pi's `RpcSessionState`.
    pub fn state_json(&self) -> Value {
        let (steering, follow_up) = self.queue_modes();
        let auto_compaction = self.session.with_settings(|s| s.compaction().enabled);
        let agent = self.session.agent();
        self.session.with_session(|session| {
            json!({
                "model": self.model(),
                "thinkingLevel": self.thinking_level().as_str(),
                "isStreaming": self.is_streaming(),
                "isCompacting": self.session.is_compacting(),
                "steeringMode": queue_mode_name(steering),
                "followUpMode": queue_mode_name(follow_up),
                "sessionFile": session.session_file().map(|p| p.to_string_lossy().into_owned()),
                "sessionId": session.session_id(),
                "sessionName": session.session_name(),
                "autoCompactionEnabled": auto_compaction,
                "messageCount": agent.with_state(|s| s.messages.len()),
                "pendingMessageCount": usize::from(agent.has_queued_messages()),
            })
        })
    }
}

/// The text of a user message (for matching delivered queue entries).
fn user_message_text(message: &AgentMessage) -> Option<String> {
    match message.as_llm()? {
        pi_ai::Message::User(user) => Some(user_text(&user.content)),
        _ => None,
    }
}

fn user_text(content: &UserContent) -> String {
    content
        .to_blocks()
        .iter()
        .filter_map(|b| match b {
            UserBlock::Text(t) => Some(t.text.as_str()),
            UserBlock::Image(_) => None,
        })
        .collect::<Vec<_>>()
        .join("")
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
