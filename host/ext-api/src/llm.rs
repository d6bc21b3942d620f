//! Model access for extensions granted `llm`: the embedder (the session) answers with its own
//! models, credentials and retries, so an extension never holds a key.

use pi_ai::{AssistantMessage, Context};

/// Completes one request with one of the session's models (`None`: the current one, else a
/// model named like `--model` would name it). Called on the extension's blocking thread.
pub trait LlmBridge: Send + Sync {
    fn complete(&self, model: Option<String>, context: Context)
    -> Result<AssistantMessage, String>;
}
