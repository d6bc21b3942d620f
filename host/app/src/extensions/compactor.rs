//! Compactor components as session compactors: asked before pi's own summary whenever the
//! session compacts (manual, threshold or overflow). The component is loaded on its first
//! compaction; one that fails (trap, deadline, invalid) is reported to the session, which
//! compacts as usual.

use super::llm::SessionLlm;
use crate::agent_session::WeakAgentSession;
use pi_agent::BoxFuture;
use pi_ext_api::{CompactionDecision, CompactionOverride, CompactionRequest, ExtensionFailure};
use pi_ext_host::{ComponentCompactor, LazyComponent};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// One compactor component of an extension.
pub struct ExtensionCompactor {
    component: Arc<LazyComponent>,
    /// The same component under its grant made read-only, for a compaction in plan mode.
    plan_component: Arc<LazyComponent>,
    /// The session it compacts, for model access (`llm`).
    session: WeakAgentSession,
}

impl ExtensionCompactor {
    pub(crate) fn new(component: Arc<LazyComponent>, session: WeakAgentSession) -> Self {
        ExtensionCompactor {
            plan_component: crate::permissions::plan::read_only_component(&component),
            component,
            session,
        }
    }

    async fn ask(
        &self,
        request: &CompactionRequest<'_>,
        cancel: CancellationToken,
    ) -> Result<CompactionDecision, ExtensionFailure> {
        let planning = self
            .session
            .upgrade()
            .is_some_and(|s| s.permission_mode().get() == crate::permissions::PermissionMode::Plan);
        let lazy = Arc::clone(match planning {
            true => &self.plan_component,
            false => &self.component,
        });
        // Loading may compile (first use): not on the runtime's thread.
        let loaded = tokio::task::spawn_blocking(move || lazy.get())
            .await
            .map_err(|e| ExtensionFailure(format!("the component did not load: {e}")))?
            .map_err(|e| ExtensionFailure(e.to_string()))?;
        // pi-ext-host links model access only for components granted `llm`.
        let llm = SessionLlm::new(self.session.clone(), tokio::runtime::Handle::current());
        ComponentCompactor::new(loaded)
            .with_llm(Arc::new(llm))
            .decide(request, cancel)
            .await
    }
}

impl CompactionOverride for ExtensionCompactor {
    fn decide<'a>(
        &'a self,
        request: &'a CompactionRequest<'a>,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<CompactionDecision, ExtensionFailure>> {
        Box::pin(self.ask(request, cancel))
    }
}
