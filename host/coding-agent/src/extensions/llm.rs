//! Model access for compactor components granted `llm` (`llm.complete`): the session's own
//! request path (see [`AgentSession::complete_for_extension`]) behind pi-wasm's blocking
//! [`LlmBridge`].

use crate::agent_session::WeakAgentSession;
use pi_wasm::LlmBridge;
use pi_wasm::bindings::types as wit;
use tokio::runtime::Handle;

/// The bridge of one compaction: the session it asks for, and the runtime its requests run on.
pub struct SessionLlm {
    session: WeakAgentSession,
    runtime: Handle,
}

impl SessionLlm {
    pub fn new(session: WeakAgentSession, runtime: Handle) -> Self {
        SessionLlm { session, runtime }
    }
}

impl LlmBridge for SessionLlm {
    /// Runs on the component's blocking thread: the request is a task on the session's
    /// runtime (its HTTP clients and timers live there) and this thread waits for it.
    fn complete(
        &self,
        model: Option<String>,
        context: wit::LlmContext,
    ) -> Result<wit::AssistantMessage, String> {
        let session = self
            .session
            .upgrade()
            .ok_or_else(|| "the session has ended".to_owned())?;
        let context = pi_wasm::convert::from_context(context);
        let task = self.runtime.spawn(async move {
            session
                .complete_for_extension(model.as_deref(), context)
                .await
        });
        let message = self
            .runtime
            .block_on(task)
            .map_err(|e| format!("the model request failed in the host: {e}"))??;
        Ok(pi_wasm::convert::assistant(&message))
    }
}
