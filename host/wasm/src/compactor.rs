//! The compaction override seam and its component implementation. The session layer prepares
//! a [`CompactionPreparation`], asks the override, and acts on the [`CompactionDecision`].

use crate::bindings::types as wit;
use crate::component::{LoadedComponent, Pre};
use crate::convert;
use crate::error::{Cause, ExtensionError};
use crate::state::{CallContext, LlmBridge};
use pi_agent::BoxFuture;
use pi_ai::Message;
use serde_json::Value;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tokio_util::sync::CancellationToken;

/// The part of a session a compaction would summarize.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CompactionPreparation {
    /// Messages the summary replaces.
    pub messages_to_summarize: Vec<Message>,
    /// When the cut splits a turn: that turn's messages before the cut.
    pub turn_prefix_messages: Vec<Message>,
    /// The previous compaction's summary, to fold in.
    pub previous_summary: Option<String>,
    /// Id of the first entry kept verbatim.
    pub first_kept_entry_id: String,
    /// Estimated context tokens before compaction.
    pub tokens_before: u64,
    pub is_split_turn: bool,
    /// Instructions given to `/compact`.
    pub custom_instructions: Option<String>,
}

/// What an override decided.
#[derive(Debug, Clone, PartialEq)]
pub enum CompactionDecision {
    /// Compact as usual.
    UseDefault,
    /// Skip this compaction; the reason is shown to the user.
    Cancel(String),
    /// Use this summary.
    Custom {
        summary: String,
        details: Option<Value>,
    },
}

/// Something that can override compaction (a compactor component, or a test double).
pub trait CompactionOverride: Send + Sync {
    fn compact<'a>(
        &'a self,
        preparation: &'a CompactionPreparation,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<CompactionDecision, ExtensionError>>;
}

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
        abort: Arc<AtomicBool>,
        llm: Option<Arc<dyn LlmBridge>>,
    ) -> Result<CompactionDecision, ExtensionError> {
        let Pre::Compactor(pre) = &component.pre else {
            return Err(component.error(Cause::Runtime("not a compactor component".into())));
        };
        let mut call = CallContext::new(component.grant.limits.timeout);
        call.abort = abort;
        call.llm = llm.filter(|_| component.grant.llm);
        let mut store = component.store(call)?;
        let instance = pre
            .instantiate(&mut store)
            .map_err(|e| component.classify(&e, &store))?;
        let decision = instance
            .pi_extension_compactor_guest()
            .call_compact(&mut store, preparation)
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

impl CompactionOverride for ComponentCompactor {
    fn compact<'a>(
        &'a self,
        preparation: &'a CompactionPreparation,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<CompactionDecision, ExtensionError>> {
        Box::pin(async move {
            let abort = Arc::new(AtomicBool::new(cancel.is_cancelled()));
            let watcher = {
                let abort = abort.clone();
                tokio::spawn(async move {
                    cancel.cancelled().await;
                    abort.store(true, Ordering::Relaxed);
                })
            };
            let component = self.component.clone();
            let llm = self.llm.clone();
            let prep = to_wit(preparation);
            let joined =
                tokio::task::spawn_blocking(move || Self::run(&component, &prep, abort, llm)).await;
            watcher.abort();
            joined.unwrap_or_else(|e| {
                Err(self
                    .component
                    .error(Cause::Runtime(format!("the call failed in the host: {e}"))))
            })
        })
    }
}
