//! pi-agent: the Runtime loop of pi.
//!
//! [`run_agent_loop`] drives one run over an [`AgentContext`]: it streams model responses
//! through a pluggable stream function (default [`pi_ai::stream()`]), runs the requested
//! [`AgentTool`]s, injects steering and follow-up messages, and reports progress as
//! [`AgentEvent`]s in pi's vocabulary. [`Agent`] wraps the loop with state, queues (whose
//! changes are events too), its one listener, abort and continue.

pub mod agent;
pub mod config;
pub mod event;
mod exec;
pub mod host_message;
pub mod message;
pub mod queue;
pub mod run;
pub mod tool;
pub mod validate;

pub use agent::{Agent, AgentError, AgentOptions, AgentState, PromptInput};
pub use config::{
    AfterToolCallFn, AgentContext, BeforeToolCallFn, ConvertToLlmFn, GetApiKeyFn, Hooks,
    LoopConfig, NextTurnUpdate, PrepareNextTurnFn, ShouldStopAfterTurnFn, StreamFn, ToolCallResult,
    ToolExecution, ToolGate, TransformContextFn, TurnInfo, default_stream_fn,
};
pub use event::{AgentEvent, Emit};
pub use host_message::{
    BashExecutionMessage, BranchSummaryMessage, CompactionSummaryMessage, CustomMessage,
    DeclaredTool, HostMessage, PromptSections, RemovedTool, SystemMessage,
};
pub use message::{AgentMessage, default_convert_to_llm};
pub use queue::{MessageQueue, QueueMode, QueuedMessages};
pub use run::{LoopError, run_agent_loop, run_agent_loop_continue};
pub use tool::{
    AgentTool, BoxFuture, ExecutionMode, ToolError, ToolOutput, ToolUpdateFn, to_llm_tool,
};
pub use validate::validate_tool_arguments;
