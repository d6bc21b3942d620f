//! pi-ext-api: the seams where extensions plug into pi, as plain Rust types.
//!
//! The session and the UI program against these types; the wasm host (pi-ext-host) implements
//! them with components, and tests implement them with doubles. Nothing here knows about
//! wasmtime or the WIT bindings, so a change of the runtime or of the contract's version stays
//! inside the host.

pub mod compaction;
pub mod hooks;
pub mod llm;
pub mod render;
pub mod tool;

pub use compaction::{
    CompactionDecision, CompactionOverride, CompactionPreparation, CompactionReason,
    CompactionRequest,
};
pub use hooks::{Hook, HookAnswer, HookEvent, HookEventKind, HookServices};
pub use llm::LlmBridge;
pub use pi_ai::Schema;
pub use render::{MessageRenderer, RenderTarget, Span, Style, StyledLine};
pub use tool::ToolDescription;

/// An extension failed while serving a seam. The message names the extension (`name@version`)
/// and the cause, so it can be shown as it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ExtensionFailure(pub String);
