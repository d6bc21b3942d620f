//! pi-app: the application layer every face of pi drives.
//!
//! [`App`] wraps the [`AgentSession`](agent_session::AgentSession) — the agent
//! loop plus the session file, retries, recovery, compaction and navigation — with what start-up
//! resolved around it (model registry and scope, skills, prompt templates). Commands are
//! methods with typed results and errors; everything that happens is one typed event stream.
//! `startup` is the composition root: settings, trust, extensions, tools and the session.

pub mod agent_session;
pub mod app;
pub mod extensions;
pub mod local_servers;
pub mod model_select;
pub mod project_code;
pub mod shipped_docs;
pub mod startup;
pub mod tool_policy;
pub mod tools;

pub use app::{App, AppError, AppEvent, BashOutcome, Disposition};
