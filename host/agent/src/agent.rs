//! `Agent`: the stateful wrapper around the loop. It owns the conversation state and the
//! steering/follow-up queues, runs one run at a time, and keeps its state in step with the
//! events of the run.
//!
//! Events go to one listener ([`Agent::on_event`]), installed by the layer above (the session):
//! that layer fans them out to its own subscribers, so there is one list of subscribers in the
//! process, not one per layer. Queue changes are events too ([`AgentEvent::QueueChanged`]), so
//! nothing above keeps a copy of the queues.

use crate::config::{AgentContext, Hooks, LoopConfig, NextTurnUpdate, ToolExecution};
use crate::event::{AgentEvent, Emit};
use crate::message::AgentMessage;
use crate::queue::{QueueMode, QueuedMessages, Queues};
use crate::run::{LoopError, run_agent_loop, run_agent_loop_continue};
use crate::tool::AgentTool;
use pi_ai::{
    AssistantBlock, AssistantMessage, ImageContent, Model, StopReason, StreamOptions, TextContent,
    ThinkingLevel, UserBlock, UserContent, UserMessage, lock,
};
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

/// Errors of the `Agent` API (failures inside a run become an error message instead).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AgentError {
    #[error(
        "Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion."
    )]
    AlreadyRunning,
    #[error("Agent is already processing. Wait for completion before continuing.")]
    AlreadyRunningContinue,
    #[error("No messages to continue from")]
    NothingToContinue,
    #[error("Cannot continue from message role: {0}")]
    CannotContinueFrom(String),
}

/// The agent's state. Read it with [`Agent::state`] or [`Agent::with_state`].
#[derive(Clone)]
pub struct AgentState {
    pub system_prompt: String,
    pub model: Model,
    pub thinking_level: ThinkingLevel,
    pub tools: Vec<Arc<dyn AgentTool>>,
    pub messages: Vec<AgentMessage>,
    pub is_streaming: bool,
    /// The assistant message being streamed, if any.
    pub streaming_message: Option<Arc<AssistantMessage>>,
    /// Ids of tool calls between `tool_execution_start` and `tool_execution_end`.
    pub pending_tool_calls: BTreeSet<String>,
    /// The error of the last failed response.
    pub error_message: Option<String>,
}

/// Construction options. `Default`: pi's defaults (pi-ai `stream`, keep-LLM-roles conversion,
/// one-at-a-time queues, parallel tools, default request options).
#[derive(Clone, Default)]
pub struct AgentOptions {
    pub hooks: Hooks,
    pub steering_mode: QueueMode,
    pub follow_up_mode: QueueMode,
    pub tool_execution: ToolExecution,
    /// Request template (api key, session id, retries, timeouts).
    pub stream_options: StreamOptions,
}

/// What to prompt with.
pub enum PromptInput {
    Text(String),
    Messages(Vec<AgentMessage>),
}

impl From<&str> for PromptInput {
    fn from(text: &str) -> Self {
        PromptInput::Text(text.to_owned())
    }
}

impl From<String> for PromptInput {
    fn from(text: String) -> Self {
        PromptInput::Text(text)
    }
}

impl From<AgentMessage> for PromptInput {
    fn from(message: AgentMessage) -> Self {
        PromptInput::Messages(vec![message])
    }
}

impl From<Vec<AgentMessage>> for PromptInput {
    fn from(messages: Vec<AgentMessage>) -> Self {
        PromptInput::Messages(messages)
    }
}

impl PromptInput {
    /// Text plus images as one user message (`[text, ...images]`), as pi builds it.
    pub fn with_images(text: impl Into<String>, images: Vec<ImageContent>) -> Self {
        let mut blocks = vec![text_block(text.into())];
        blocks.extend(images.into_iter().map(UserBlock::Image));
        PromptInput::Messages(vec![user_blocks(blocks)])
    }

    fn into_messages(self) -> Vec<AgentMessage> {
        match self {
            PromptInput::Text(text) => vec![user_blocks(vec![text_block(text)])],
            PromptInput::Messages(messages) => messages,
        }
    }
}

fn text_block(text: String) -> UserBlock {
    UserBlock::Text(TextContent {
        text,
        text_signature: None,
    })
}

fn user_blocks(blocks: Vec<UserBlock>) -> AgentMessage {
    AgentMessage::from(UserMessage {
        content: UserContent::Blocks(blocks),
        timestamp: pi_ai::now_ms(),
    })
}

type Listener = Arc<dyn Fn(&AgentEvent) + Send + Sync>;

struct Inner {
    state: Mutex<AgentState>,
    options: Mutex<AgentOptions>,
    queues: Arc<Queues>,
    listener: Mutex<Option<Listener>>,
    /// The running run's cancel token.
    run: Mutex<Option<CancellationToken>>,
    /// `true` while no run is active.
    idle: watch::Sender<bool>,
}

/// The stateful agent. Cheap to clone: clones share the same agent.
#[derive(Clone)]
pub struct Agent {
    inner: Arc<Inner>,
}

enum RunKind {
    Prompt(Vec<AgentMessage>),
    /// Queued messages drained to become the prompt (`steering`: from the steering queue).
    Queued {
        messages: Vec<AgentMessage>,
        steering: bool,
    },
    Continue,
}

impl Agent {
    pub fn new(model: Model, options: AgentOptions) -> Self {
        let queues = Arc::new(Queues::default());
        queues.set_modes(options.steering_mode, options.follow_up_mode);
        let state = AgentState {
            system_prompt: String::new(),
            model,
            thinking_level: ThinkingLevel::Off,
            tools: Vec::new(),
            messages: Vec::new(),
            is_streaming: false,
            streaming_message: None,
            pending_tool_calls: BTreeSet::new(),
            error_message: None,
        };
        Agent {
            inner: Arc::new(Inner {
                state: Mutex::new(state),
                options: Mutex::new(options),
                queues,
                listener: Mutex::new(None),
                run: Mutex::new(None),
                idle: watch::channel(true).0,
            }),
        }
    }

    // ---- state ------------------------------------------------------------------------------

    /// A snapshot of the state.
    pub fn state(&self) -> AgentState {
        lock(&self.inner.state).clone()
    }

    /// Reads the state without copying it.
    pub fn with_state<R>(&self, f: impl FnOnce(&AgentState) -> R) -> R {
        f(&lock(&self.inner.state))
    }

    pub fn messages(&self) -> Vec<AgentMessage> {
        lock(&self.inner.state).messages.clone()
    }

    pub fn set_system_prompt(&self, prompt: impl Into<String>) {
        lock(&self.inner.state).system_prompt = prompt.into();
    }

    pub fn set_model(&self, model: Model) {
        lock(&self.inner.state).model = model;
    }

    pub fn set_thinking_level(&self, level: ThinkingLevel) {
        lock(&self.inner.state).thinking_level = level;
    }

    pub fn set_tools(&self, tools: Vec<Arc<dyn AgentTool>>) {
        lock(&self.inner.state).tools = tools;
    }

    pub fn replace_messages(&self, messages: Vec<AgentMessage>) {
        lock(&self.inner.state).messages = messages;
    }

    pub fn append_message(&self, message: AgentMessage) {
        lock(&self.inner.state).messages.push(message);
    }

    /// Replaces the hooks for the next runs.
    pub fn set_hooks(&self, hooks: Hooks) {
        lock(&self.inner.options).hooks = hooks;
    }

    /// How tool calls of one response are scheduled (default parallel).
    pub fn set_tool_execution(&self, mode: ToolExecution) {
        lock(&self.inner.options).tool_execution = mode;
    }

    pub fn set_queue_modes(&self, steering: QueueMode, follow_up: QueueMode) {
        self.inner.queues.set_modes(steering, follow_up);
    }

    /// Clears messages, queues and run state (not the model, tools or prompt).
    pub fn reset(&self) {
        let mut state = lock(&self.inner.state);
        state.messages.clear();
        state.streaming_message = None;
        state.pending_tool_calls.clear();
        state.error_message = None;
        drop(state);
        if self.has_queued_messages() {
            self.clear_all_queues();
        }
    }

    // ---- events -----------------------------------------------------------------------------

    /// Sets the one listener: it is called for every event, in order, after the state has
    /// been updated, and replaces any listener set before.
    pub fn on_event(&self, listener: impl Fn(&AgentEvent) + Send + Sync + 'static) {
        *lock(&self.inner.listener) = Some(Arc::new(listener));
    }

    fn dispatch(inner: &Inner, event: AgentEvent) {
        apply_to_state(&mut lock(&inner.state), &event);
        let listener = lock(&inner.listener).clone();
        if let Some(listener) = listener {
            listener(&event);
        }
    }

    // ---- queues -----------------------------------------------------------------------------

    /// Queues a message delivered after the current turn's tool calls finish, before the next
    /// model request, and publishes the queues.
    pub fn steer(&self, message: impl Into<AgentMessage>) {
        let queued = self.inner.queues.steer(message.into());
        Agent::dispatch(&self.inner, queued.into());
    }

    /// Queues a message delivered when the agent would otherwise stop, and publishes the
    /// queues.
    pub fn follow_up(&self, message: impl Into<AgentMessage>) {
        let queued = self.inner.queues.follow_up(message.into());
        Agent::dispatch(&self.inner, queued.into());
    }

    /// Empties the steering queue; returns what it held.
    pub fn clear_steering_queue(&self) -> Vec<AgentMessage> {
        self.clear(true, false).steering
    }

    /// Empties the follow-up queue; returns what it held.
    pub fn clear_follow_up_queue(&self) -> Vec<AgentMessage> {
        self.clear(false, true).follow_up
    }

    /// Empties both queues; returns what they held.
    pub fn clear_all_queues(&self) -> QueuedMessages {
        self.clear(true, true)
    }

    /// Clears and publishes the queues (always: a clear is reported even when nothing was
    /// queued, as pi's `clear_queue` is).
    fn clear(&self, steering: bool, follow_up: bool) -> QueuedMessages {
        let (removed, left) = self.inner.queues.clear(steering, follow_up);
        Agent::dispatch(&self.inner, left.into());
        removed
    }

    pub fn has_queued_messages(&self) -> bool {
        self.inner.queues.has_messages()
    }

    /// What both queues hold, oldest first.
    pub fn queued_messages(&self) -> QueuedMessages {
        self.inner.queues.snapshot()
    }

    // ---- runs -------------------------------------------------------------------------------

    pub fn is_running(&self) -> bool {
        lock(&self.inner.run).is_some()
    }

    /// Runs the agent on new input until the run ends. Failures inside the run are recorded as
    /// an assistant error message, not returned.
    pub async fn prompt(&self, input: impl Into<PromptInput>) -> Result<(), AgentError> {
        let cancel = self.begin_run(AgentError::AlreadyRunning)?;
        self.execute(RunKind::Prompt(input.into().into_messages()), cancel)
            .await;
        Ok(())
    }

    /// Starts a run from the current messages without a new user message. When the last
    /// message is an assistant message, queued steering (then follow-up) messages become the
    /// prompt; with nothing queued that is an error.
    pub async fn continue_run(&self) -> Result<(), AgentError> {
        let cancel = self.begin_run(AgentError::AlreadyRunningContinue)?;
        let kind = match self.continue_kind() {
            Ok(kind) => kind,
            Err(error) => {
                self.end_run();
                return Err(error);
            }
        };
        self.execute(kind, cancel).await;
        Ok(())
    }

    fn continue_kind(&self) -> Result<RunKind, AgentError> {
        let last_role = self.with_state(|s| s.messages.last().map(|m| m.role().to_owned()));
        match last_role.as_deref() {
            None => Err(AgentError::NothingToContinue),
            Some("assistant") => {
                let steering = self.inner.queues.drain_steering();
                if !steering.is_empty() {
                    return Ok(RunKind::Queued {
                        messages: steering,
                        steering: true,
                    });
                }
                let follow_ups = self.inner.queues.drain_follow_ups();
                if !follow_ups.is_empty() {
                    return Ok(RunKind::Queued {
                        messages: follow_ups,
                        steering: false,
                    });
                }
                Err(AgentError::CannotContinueFrom("assistant".to_owned()))
            }
            Some(_) => Ok(RunKind::Continue),
        }
    }

    /// Cancels the running stream and tools; their aborted results are recorded.
    pub fn abort(&self) {
        if let Some(cancel) = lock(&self.inner.run).as_ref() {
            cancel.cancel();
        }
    }

    /// Resolves when no run is active.
    pub async fn wait_for_idle(&self) {
        let mut idle = self.inner.idle.subscribe();
        let _ = idle.wait_for(|idle| *idle).await;
    }

    fn begin_run(&self, busy: AgentError) -> Result<CancellationToken, AgentError> {
        let mut run = lock(&self.inner.run);
        if run.is_some() {
            return Err(busy);
        }
        let cancel = CancellationToken::new();
        *run = Some(cancel.clone());
        self.inner.idle.send_replace(false);
        let mut state = lock(&self.inner.state);
        state.is_streaming = true;
        state.error_message = None;
        Ok(cancel)
    }

    fn end_run(&self) {
        {
            let mut state = lock(&self.inner.state);
            state.is_streaming = false;
            state.streaming_message = None;
            state.pending_tool_calls.clear();
        }
        *lock(&self.inner.run) = None;
        self.inner.idle.send_replace(true);
    }

    async fn execute(&self, kind: RunKind, cancel: CancellationToken) {
        let (context, mut config) = self.run_setup();
        config.skip_initial_steering_poll = matches!(kind, RunKind::Queued { steering: true, .. });
        config.prompts_from_queue = matches!(kind, RunKind::Queued { .. });
        let inner = Arc::clone(&self.inner);
        let emit: Emit = Arc::new(move |event| Agent::dispatch(&inner, event));
        let result = match kind {
            RunKind::Prompt(messages) | RunKind::Queued { messages, .. } => {
                run_agent_loop(messages, context, config, emit, cancel.clone()).await
            }
            RunKind::Continue => {
                run_agent_loop_continue(context, config, emit, cancel.clone()).await
            }
        };
        if let Err(error) = result {
            self.record_failure(&error, cancel.is_cancelled());
        }
        self.end_run();
    }

    fn run_setup(&self) -> (AgentContext, LoopConfig) {
        let options = lock(&self.inner.options).clone();
        let state = lock(&self.inner.state);
        let context = AgentContext {
            system_prompt: state.system_prompt.clone(),
            messages: state.messages.clone(),
            tools: state.tools.clone(),
        };
        let mut hooks = options.hooks;
        hooks.prepare_next_turn = hooks
            .prepare_next_turn
            .map(|hook| self.sync_next_turn(hook));
        let config = LoopConfig {
            model: state.model.clone(),
            thinking_level: state.thinking_level,
            stream_options: options.stream_options,
            tool_execution: options.tool_execution,
            hooks,
            queue: Some(self.inner.queues.clone()),
            skip_initial_steering_poll: false,
            prompts_from_queue: false,
        };
        (context, config)
    }

    /// Wraps `prepare_next_turn` so the agent's state follows what the hook replaced.
    fn sync_next_turn(
        &self,
        hook: crate::config::PrepareNextTurnFn,
    ) -> crate::config::PrepareNextTurnFn {
        let inner = Arc::downgrade(&self.inner);
        Arc::new(move |info| {
            let future = hook(info);
            let inner = inner.clone();
            Box::pin(async move {
                let update = future.await;
                if let (Some(update), Some(inner)) = (&update, inner.upgrade()) {
                    apply_next_turn(&mut lock(&inner.state), update);
                }
                update
            })
        })
    }

    /// A run that failed outright ends with a synthetic assistant error message.
    fn record_failure(&self, error: &LoopError, aborted: bool) {
        let model = self.with_state(|s| s.model.clone());
        let mut message = AssistantMessage::empty_for(&model);
        message.content = vec![AssistantBlock::Text(TextContent::default())];
        message.stop_reason = if aborted {
            StopReason::Aborted
        } else {
            StopReason::Error
        };
        message.error_message = Some(error.to_string());
        let message = AgentMessage::from(message);
        {
            let mut state = lock(&self.inner.state);
            state.messages.push(message.clone());
            state.error_message = Some(error.to_string());
        }
        Agent::dispatch(
            &self.inner,
            AgentEvent::AgentEnd {
                messages: vec![message],
            },
        );
    }
}

fn apply_next_turn(state: &mut AgentState, update: &NextTurnUpdate) {
    if let Some(messages) = &update.messages {
        state.messages = messages.clone();
    }
    if let Some(model) = &update.model {
        state.model = model.clone();
    }
    if let Some(level) = update.thinking_level {
        state.thinking_level = level;
    }
    if let Some(tools) = &update.tools {
        state.tools = tools.clone();
    }
}

/// Keeps the state in step with the run (pi's `processEvents`).
fn apply_to_state(state: &mut AgentState, event: &AgentEvent) {
    match event {
        AgentEvent::MessageStart { message } => {
            if let Some(assistant) = message.as_assistant() {
                state.streaming_message = Some(Arc::new(assistant.clone()));
            }
        }
        AgentEvent::MessageUpdate { message, .. } => {
            state.streaming_message = Some(Arc::clone(message));
        }
        AgentEvent::MessageEnd { message } => {
            state.streaming_message = None;
            if let Some(error) = message.as_assistant().and_then(|m| m.error_message.clone()) {
                state.error_message = Some(error);
            }
            state.messages.push(message.clone());
        }
        AgentEvent::ToolExecutionStart { tool_call_id, .. } => {
            state.pending_tool_calls.insert(tool_call_id.clone());
        }
        AgentEvent::ToolExecutionEnd { tool_call_id, .. } => {
            state.pending_tool_calls.remove(tool_call_id);
        }
        AgentEvent::AgentEnd { .. } => state.streaming_message = None,
        _ => {}
    }
}
