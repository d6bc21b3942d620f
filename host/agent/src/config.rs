//! What a run needs besides its context: the model, request options, and the hooks the layers
//! above plug in (context transformation, conversion, auth, next-turn preparation, stop rule,
//! the stream function itself).

use crate::message::{AgentMessage, default_convert_to_llm};
use crate::queue::MessageQueue;
use crate::tool::{AgentTool, BoxFuture};
use pi_ai::{
    AssistantMessage, AssistantMessageEventStream, Context, Message, Model, StreamOptions,
    ThinkingLevel, ToolResultMessage,
};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// What the Runtime sends to the model each turn: the system prompt, the message list and the
/// tools enabled for this run.
#[derive(Clone, Default)]
pub struct AgentContext {
    pub system_prompt: String,
    pub messages: Vec<AgentMessage>,
    pub tools: Vec<Arc<dyn AgentTool>>,
}

impl std::fmt::Debug for AgentContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentContext")
            .field("system_prompt", &self.system_prompt)
            .field("messages", &self.messages.len())
            .field(
                "tools",
                &self.tools.iter().map(|t| t.name()).collect::<Vec<_>>(),
            )
            .finish()
    }
}

/// Starts one model response (default: [`pi_ai::stream()`]). Tests and extension providers
/// substitute their own.
pub type StreamFn =
    Arc<dyn Fn(&Model, &Context, StreamOptions) -> AssistantMessageEventStream + Send + Sync>;

/// Rewrites the message list before each request (pruning, injecting context). An `Err` ends
/// the run as a failure.
pub type TransformContextFn = Arc<
    dyn Fn(
            Vec<AgentMessage>,
            CancellationToken,
        ) -> BoxFuture<'static, Result<Vec<AgentMessage>, String>>
        + Send
        + Sync,
>;

/// Turns the Runtime's messages into what the model-call layer understands.
pub type ConvertToLlmFn = Arc<dyn Fn(&[AgentMessage]) -> Vec<Arc<Message>> + Send + Sync>;

/// Resolves the API key for a provider before each request (may refresh OAuth tokens).
/// `Ok(None)` leaves the choice to the adapter (the environment); `Err` is an authentication
/// failure: the request is not sent and the turn ends with that error, so a broken stored
/// credential is never quietly replaced by another key.
pub type GetApiKeyFn =
    Arc<dyn Fn(&str) -> BoxFuture<'static, Result<Option<String>, String>> + Send + Sync>;

/// Called after `turn_end` when the run goes on, before queued messages are injected. It sees
/// the turn synchronously (so it can clone only what it needs) and returns a future that may
/// replace the messages, the model or the thinking level. The session layer compacts here.
pub type PrepareNextTurnFn =
    Arc<dyn Fn(&TurnInfo<'_>) -> BoxFuture<'static, Option<NextTurnUpdate>> + Send + Sync>;

/// What becomes of a tool call before it runs (pi's `beforeToolCall`).
#[derive(Debug, Clone, PartialEq)]
pub enum ToolGate {
    /// Run it with these arguments (the validated ones, or a hook's rewrite of them; a
    /// rewrite is validated again).
    Run(serde_json::Value),
    /// Do not run it: the model gets an error result with this text.
    Block(String),
}

/// Asked before each validated call runs, in the assistant's order (for parallel batches
/// too). Arguments: the call and its validated arguments.
pub type BeforeToolCallFn = Arc<
    dyn Fn(&pi_ai::ToolCall, serde_json::Value, CancellationToken) -> BoxFuture<'static, ToolGate>
        + Send
        + Sync,
>;

/// A finished call's result as the model will see it; [`AfterToolCallFn`] may replace it.
#[derive(Debug, Clone)]
pub struct ToolCallResult {
    pub output: crate::tool::ToolOutput,
    pub is_error: bool,
}

/// Asked after each call that ran, before its result message (pi's `afterToolCall`).
/// Arguments: the call, the arguments it ran with, and its result.
pub type AfterToolCallFn = Arc<
    dyn Fn(
            &pi_ai::ToolCall,
            &serde_json::Value,
            ToolCallResult,
            CancellationToken,
        ) -> BoxFuture<'static, ToolCallResult>
        + Send
        + Sync,
>;

/// Ends the run after the current turn when it returns true.
pub type ShouldStopAfterTurnFn = Arc<dyn Fn(&TurnInfo<'_>) -> bool + Send + Sync>;

/// The state after a turn, as the hooks see it.
pub struct TurnInfo<'a> {
    pub messages: &'a [AgentMessage],
    pub model: &'a Model,
    pub thinking_level: ThinkingLevel,
    pub message: &'a AssistantMessage,
    pub tool_results: &'a [ToolResultMessage],
}

/// Replacements returned by [`PrepareNextTurnFn`]; `None` fields stay as they are.
#[derive(Clone, Default)]
pub struct NextTurnUpdate {
    pub messages: Option<Vec<AgentMessage>>,
    pub model: Option<Model>,
    pub thinking_level: Option<ThinkingLevel>,
    /// The tools from the next turn on (tools that became available during the run: an MCP
    /// server that connected, a tool `tool_search` loaded).
    pub tools: Option<Vec<Arc<dyn crate::AgentTool>>>,
}

/// The default stream function: pi-ai's registry.
pub fn default_stream_fn() -> StreamFn {
    Arc::new(pi_ai::stream)
}

/// How the calls of one assistant message are scheduled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ToolExecution {
    /// Preflight in order, run concurrently (pi's default). A `Sequential` tool in the batch
    /// makes the whole batch sequential.
    #[default]
    Parallel,
    Sequential,
}

/// The pluggable behaviour of the loop.
#[derive(Clone)]
pub struct Hooks {
    pub stream_fn: StreamFn,
    pub convert_to_llm: ConvertToLlmFn,
    pub transform_context: Option<TransformContextFn>,
    pub get_api_key: Option<GetApiKeyFn>,
    pub prepare_next_turn: Option<PrepareNextTurnFn>,
    pub should_stop_after_turn: Option<ShouldStopAfterTurnFn>,
    pub before_tool_call: Option<BeforeToolCallFn>,
    pub after_tool_call: Option<AfterToolCallFn>,
}

impl Default for Hooks {
    fn default() -> Self {
        Hooks {
            stream_fn: default_stream_fn(),
            convert_to_llm: Arc::new(default_convert_to_llm),
            transform_context: None,
            get_api_key: None,
            prepare_next_turn: None,
            should_stop_after_turn: None,
            before_tool_call: None,
            after_tool_call: None,
        }
    }
}

/// Everything a run needs besides the context.
#[derive(Clone)]
pub struct LoopConfig {
    pub model: Model,
    /// `Off` sends no reasoning request.
    pub thinking_level: ThinkingLevel,
    /// Template for each request (api key, session id, retries, timeouts). Its `cancel` token is
    /// replaced by the run's, and `reasoning` by `thinking_level`.
    pub stream_options: StreamOptions,
    pub tool_execution: ToolExecution,
    pub hooks: Hooks,
    pub queue: Option<Arc<dyn MessageQueue>>,
    /// Skip the steering poll before the first turn (used when the prompt *is* the drained
    /// steering queue).
    pub skip_initial_steering_poll: bool,
    /// The prompt messages were drained from `queue`: the run publishes what is left before
    /// they start, as it does for messages it polls.
    pub prompts_from_queue: bool,
}

impl LoopConfig {
    pub fn new(model: Model) -> Self {
        LoopConfig {
            model,
            thinking_level: ThinkingLevel::Off,
            stream_options: StreamOptions::default(),
            tool_execution: ToolExecution::Parallel,
            hooks: Hooks::default(),
            queue: None,
            skip_initial_steering_poll: false,
            prompts_from_queue: false,
        }
    }
}
