//! pi-app: the application layer every face of pi drives.
//!
//! [`App`] is the one façade: the typed commands, queries and event stream of a running session.
//! Inside it, a private `AgentSession` holds the agent loop plus the session file, retries,
//! recovery, compaction and navigation; the `App` adds what start-up resolved around it (model
//! registry and scope, skills, prompt templates). Commands are methods with typed results and
//! errors; everything that happens is one typed event stream ([`AppEvent`]) with one list of
//! subscribers (the agent and the session each hand their events to the layer above). `startup`
//! is the composition root: settings, trust, extensions, tools and the session.

mod agent_session;
pub mod app;
mod checkpoints;
pub mod command_hooks;
pub mod extensions;
pub mod hooks;
pub mod local_servers;
pub mod mcp;
pub mod model_select;
pub mod permissions;
pub mod project_code;
pub mod rewind;
pub mod served_tools;
pub mod shipped_docs;
pub mod startup;
pub mod subagents;
#[cfg(test)]
mod test_dirs;
pub mod tool_policy;
pub mod tools;

pub use agent_session::{
    AgentSessionError, AgentSessionEvent, AgentSessionOptions, CompactionResult, NavigateOptions,
    NavigateResult, SessionEvent, SummarizationSource,
};
pub use app::{
    App, AppError, AppEvent, BUILTIN_COMMANDS, BashOutcome, Disposition, ExtensionCommand,
};
pub use pi_session::checkpoints::{ChangeKind, FileChange, RewindMode};
pub use rewind::{RewindFailure, RewindOutcome, RewindPoint, RewindPointKind, RewindPreview};
