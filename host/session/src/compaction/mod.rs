//! Context compaction: token accounting, the cut point, summary requests, file lists and
//! branch summaries. Extensions that take a compaction over do so through pi-ext-api's seam.

pub mod branch_summary;
pub mod cut_point;
pub mod file_ops;
pub mod prompts;
pub mod summarize;
pub mod tokens;

pub use cut_point::{CompactionPreparation, CutPoint, find_cut_point, prepare_compaction};
pub use summarize::{SummaryError, SummaryOutput, SummaryRequester, serialize_conversation};
pub use tokens::{ContextEstimate, estimate_context_tokens, estimate_tokens, should_compact};

/// Why a compaction runs; the extension seam shares it.
pub use pi_ext_api::CompactionReason;
