//! Context compaction: token accounting, the cut point, summary requests, file
//! lists, branch summaries, and the seam where registered compactors may take over.

pub mod branch_summary;
pub mod cut_point;
pub mod file_ops;
pub mod prompts;
pub mod summarize;
pub mod tokens;

pub use cut_point::{CompactionPreparation, CutPoint, find_cut_point, prepare_compaction};
pub use summarize::{SummaryError, SummaryOutput, SummaryRequester, serialize_conversation};
pub use tokens::{ContextEstimate, estimate_context_tokens, estimate_tokens, should_compact};

use serde::Serialize;
use serde_json::Value;

/// Why a compaction runs (`compaction_start.reason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CompactionReason {
    /// `/compact`.
    Manual,
    /// `T > W − R`.
    Threshold,
    /// Context overflow or recoverable length truncation.
    Overflow,
}

/// What a registered compactor decides before the default summary is generated.
#[derive(Debug, Clone, PartialEq)]
pub enum CompactionDecision {
    /// Let the next compactor (finally the built-in summarizer) decide.
    UseDefault,
    /// Do not compact; the reason is reported to the UI.
    Cancel(String),
    /// Use this summary instead (saved with `fromHook: true`).
    Custom {
        summary: String,
        details: Option<Value>,
    },
}

/// What a compactor is shown.
pub struct CompactionRequest<'a> {
    pub preparation: &'a CompactionPreparation,
    pub reason: CompactionReason,
    /// `/compact` instructions, if any.
    pub focus: Option<&'a str>,
}

/// A compactor registered with the session (extensions, the WASM compactor world). Asked in
/// registration order; the first answer other than `UseDefault` wins. Asynchronous because a
/// component runs on a blocking thread while the session's runtime goes on.
pub trait CompactionOverride: Send + Sync {
    fn decide<'a>(
        &'a self,
        request: &'a CompactionRequest<'a>,
    ) -> pi_agent::BoxFuture<'a, CompactionDecision>;
}
