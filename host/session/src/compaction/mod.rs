//! Context compaction (SPEC §11): token accounting, the cut point, summary requests, file
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

/// Why a compaction runs; the extension seam shares it.
pub use pi_ext_api::CompactionReason;
