//! Compactor components as [`CompactionOverride`]s: the preparation goes to the component in
//! its WIT form, and the decision comes back as pi-ext-api's. Each call runs under a watchdog
//! (`watchdog.rs`): past its deadline or on abort the compaction gets the error at once.

use crate::bindings::types as wit;
use crate::component::{LoadedComponent, Pre};
use crate::convert;
use crate::error::{Cause, ExtensionError};
use crate::state::CallContext;
use crate::watchdog;
use pi_agent::BoxFuture;
use pi_ext_api::{
    CompactionDecision, CompactionOverride, CompactionPreparation, CompactionRequest,
    ExtensionFailure, LlmBridge,
};
use serde_json::Value;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// A compactor component.
pub struct ComponentCompactor {
    component: Arc<LoadedComponent>,
    llm: Option<Arc<dyn LlmBridge>>,
}

impl ComponentCompactor {
    pub fn new(component: Arc<LoadedComponent>) -> Self {
        ComponentCompactor {
            component,
            llm: None,
        }
    }

    /// Model access for a compactor granted `llm`.
    pub fn with_llm(mut self, llm: Arc<dyn LlmBridge>) -> Self {
        self.llm = Some(llm);
        self
    }

    fn run(
        component: &LoadedComponent,
        preparation: &wit::CompactionPreparation,
        call: CallContext,
    ) -> Result<CompactionDecision, ExtensionError> {
        let Pre::Compactor(pre) = &component.pre else {
            return Err(component.error(Cause::Runtime("not a compactor component".into())));
        };
        let mut store = component.store(call)?;
        let decision = pre
            .compact(&mut store, preparation)
            .map_err(|e| component.classify(&e, &store))?;
        store.data().flush_output();
        Ok(match decision {
            wit::CompactionDecision::UseDefault => CompactionDecision::UseDefault,
            wit::CompactionDecision::Cancel(reason) => CompactionDecision::Cancel(reason),
            wit::CompactionDecision::Custom(custom) => CompactionDecision::Custom {
                summary: custom.summary,
                details: custom
                    .details
                    .map(|d| serde_json::from_str(&d).unwrap_or(Value::String(d))),
            },
        })
    }
}

fn to_wit(p: &CompactionPreparation) -> wit::CompactionPreparation {
    wit::CompactionPreparation {
        messages_to_summarize: p
            .messages_to_summarize
            .iter()
            .map(convert::message)
            .collect(),
        turn_prefix_messages: p
            .turn_prefix_messages
            .iter()
            .map(convert::message)
            .collect(),
        previous_summary: p.previous_summary.clone(),
        first_kept_entry_id: p.first_kept_entry_id.clone(),
        tokens_before: p.tokens_before,
        is_split_turn: p.is_split_turn,
        custom_instructions: p.custom_instructions.clone(),
    }
}

impl ComponentCompactor {
    /// Asks the component; `cancel` interrupts it.
    pub async fn compact(
        &self,
        preparation: &CompactionPreparation,
        cancel: CancellationToken,
    ) -> Result<CompactionDecision, ExtensionError> {
        let component = self.component.clone();
        let llm = self.llm.clone().filter(|_| component.grant.llm);
        let prep = to_wit(preparation);
        let abort = cancel.clone();
        watchdog::spawn(&self.component.extension, cancel, move |watch| {
            let mut call = CallContext::new(component.grant.limits.timeout);
            call.abort = abort;
            call.llm = llm;
            call.watch = watch;
            Self::run(&component, &prep, call)
        })?
        .wait()
        .await
    }
}

impl CompactionOverride for ComponentCompactor {
    fn decide<'a>(
        &'a self,
        request: &'a CompactionRequest<'a>,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<CompactionDecision, ExtensionFailure>> {
        Box::pin(async move {
            self.compact(request.preparation, cancel)
                .await
                .map_err(|e| ExtensionFailure(e.to_string()))
        })
    }
}
