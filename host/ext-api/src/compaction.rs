//! The compaction seam: before pi summarises part of a session, each registered override is
//! shown what would be summarised and may let pi go on, cancel, or supply its own summary.

use crate::ExtensionFailure;
use pi_agent::BoxFuture;
use pi_ai::Message;
use serde::Serialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// Why a compaction runs (`compaction_start.reason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CompactionReason {
    /// `/compact`.
    Manual,
    /// The context grew past the window minus the reserve.
    Threshold,
    /// Context overflow or recoverable length truncation.
    Overflow,
}

/// The part of a session a compaction would summarise, as the model would see it.
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
    /// Let the next override (finally pi's own summarizer) decide.
    UseDefault,
    /// Do not compact; the reason is reported to the user.
    Cancel(String),
    /// Use this summary instead (saved with `fromHook: true`).
    Custom {
        summary: String,
        details: Option<Value>,
    },
}

/// What an override is asked.
pub struct CompactionRequest<'a> {
    pub preparation: &'a CompactionPreparation,
    pub reason: CompactionReason,
}

/// Something that may take over a compaction (a compactor component, or a test double).
/// Overrides are asked in registration order; the first answer other than `UseDefault` wins.
/// Asynchronous because a component runs on a blocking thread while the session goes on;
/// `cancel` fires when the user aborts.
pub trait CompactionOverride: Send + Sync {
    fn decide<'a>(
        &'a self,
        request: &'a CompactionRequest<'a>,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<CompactionDecision, ExtensionFailure>>;
}
