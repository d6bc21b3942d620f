//! Model access for compactor components granted `llm`: the session's own request path (see
//! [`AgentSession::complete_for_extension`](crate::agent_session::AgentSession)) behind the
//! blocking [`LlmBridge`] the extension host calls.

use crate::agent_session::WeakAgentSession;
use pi_ai::{AssistantMessage, Context};
use pi_ext_api::LlmBridge;
use tokio::runtime::Handle;

/// The bridge of one compaction: the session it asks for, and the runtime its requests run on.
pub struct SessionLlm {
    session: WeakAgentSession,
    runtime: Handle,
}

impl SessionLlm {
    pub(crate) fn new(session: WeakAgentSession, runtime: Handle) -> Self {
        SessionLlm { session, runtime }
    }
}

impl LlmBridge for SessionLlm {
    /// Runs on the component's blocking thread: the request is a task on the session's
    /// runtime (its HTTP clients and timers live there) and this thread waits for it.
    fn complete(
        &self,
        model: Option<String>,
        context: Context,
    ) -> Result<AssistantMessage, String> {
        let session = self
            .session
            .upgrade()
            .ok_or_else(|| "the session has ended".to_owned())?;
        let task = self.runtime.spawn(async move {
            session
                .complete_for_extension(model.as_deref(), context)
                .await
        });
        self.runtime
            .block_on(task)
            .map_err(|e| format!("the model request failed in the host: {e}"))?
    }
}
