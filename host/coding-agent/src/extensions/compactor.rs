//! Compactor components as session compactors: asked before pi's own summary whenever the
//! session compacts (manual, threshold or overflow). The component is loaded on its first
//! compaction. A component that fails (trap, deadline, invalid) is logged and pi compacts as
//! usual, as pi does when a `session_before_compact` handler throws.

use super::llm::SessionLlm;
use crate::agent_session::WeakAgentSession;
use crate::compaction::{CompactionDecision, CompactionOverride, CompactionRequest};
use crate::messages::convert_to_llm;
use pi_agent::BoxFuture;
use pi_wasm::{CompactionOverride as _, ComponentCompactor, LazyComponent};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// One compactor component of an extension.
pub struct ExtensionCompactor {
    component: Arc<LazyComponent>,
    /// The session it compacts: model access (`llm`) and abort.
    session: WeakAgentSession,
}

impl ExtensionCompactor {
    pub fn new(component: Arc<LazyComponent>, session: WeakAgentSession) -> Self {
        ExtensionCompactor { component, session }
    }

    async fn ask(&self, request: &CompactionRequest<'_>) -> Result<CompactionDecision, String> {
        let lazy = Arc::clone(&self.component);
        // Loading may compile (first use): not on the runtime's thread.
        let loaded = tokio::task::spawn_blocking(move || lazy.get())
            .await
            .map_err(|e| e.to_string())?
            .map_err(|e| e.to_string())?;
        let prep = request.preparation;
        let preparation = pi_wasm::CompactionPreparation {
            messages_to_summarize: convert_to_llm(&prep.messages_to_summarize),
            turn_prefix_messages: convert_to_llm(&prep.turn_prefix_messages),
            previous_summary: prep.previous_summary.clone(),
            first_kept_entry_id: prep.first_kept_entry_id.clone(),
            tokens_before: prep.tokens_before,
            is_split_turn: prep.is_split_turn,
            custom_instructions: request.focus.map(str::to_owned),
        };
        let cancel = self
            .session
            .upgrade()
            .map_or_else(CancellationToken::new, |s| s.abort_signal());
        // pi-wasm links model access only for components granted `llm`.
        let llm = SessionLlm::new(self.session.clone(), tokio::runtime::Handle::current());
        let decision = ComponentCompactor::new(loaded)
            .with_llm(Arc::new(llm))
            .compact(&preparation, cancel)
            .await
            .map_err(|e| e.to_string())?;
        Ok(match decision {
            pi_wasm::CompactionDecision::UseDefault => CompactionDecision::UseDefault,
            pi_wasm::CompactionDecision::Cancel(reason) => CompactionDecision::Cancel(reason),
            pi_wasm::CompactionDecision::Custom { summary, details } => {
                CompactionDecision::Custom { summary, details }
            }
        })
    }
}

impl CompactionOverride for ExtensionCompactor {
    fn decide<'a>(
        &'a self,
        request: &'a CompactionRequest<'a>,
    ) -> BoxFuture<'a, CompactionDecision> {
        Box::pin(async move {
            self.ask(request).await.unwrap_or_else(|error| {
                tracing::warn!("compactor extension failed, compacting as usual: {error}");
                CompactionDecision::UseDefault
            })
        })
    }
}
