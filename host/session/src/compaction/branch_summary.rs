//! Branch summaries for tree navigation: when `/tree` leaves a branch, the
//! entries between the old leaf and the common ancestor are summarised into a `branch_summary`
//! entry under the new position.

use super::file_ops::{FileOps, append_file_lists, details_value};
use super::prompts;
use super::summarize::{SummaryError, SummaryOutput, SummaryRequester, serialize_messages};
use super::tokens::estimate_tokens;
use crate::messages::{AgentMessage, HostMessage};
use crate::session::context::entry_message;
use crate::session::{EntryKind, SessionEntry, SessionManager};
use pi_ai::Usage;
use std::collections::HashSet;

/// Output cap of a branch summary request.
pub const BRANCH_SUMMARY_MAX_TOKENS: u64 = 2_048;
/// Context window assumed when the model does not say.
pub const DEFAULT_CONTEXT_WINDOW: u64 = 128_000;
/// Summary written when the abandoned branch holds nothing to summarise.
pub const NO_CONTENT: &str = "No content to summarize";

/// The entries of the branch being left: from the common ancestor of `old_leaf` and `target`
/// (exclusive) to `old_leaf`, oldest first.
pub fn collect_entries_for_branch_summary(
    session: &SessionManager,
    old_leaf: Option<&str>,
    target: &str,
) -> Vec<SessionEntry> {
    let Some(old_leaf) = old_leaf else {
        return Vec::new();
    };
    let target_path: HashSet<&str> = session
        .get_branch(Some(target))
        .into_iter()
        .map(|e| e.id.as_str())
        .collect();
    let mut out: Vec<SessionEntry> = session
        .get_branch(Some(old_leaf))
        .into_iter()
        .rev()
        .take_while(|e| !target_path.contains(e.id.as_str()))
        .cloned()
        .collect();
    out.reverse();
    out
}

/// The messages to summarise (newest first until `budget` tokens, returned oldest first) and
/// the files touched. Tool results are left out (their calls say what happened). The message
/// that crosses the budget is not taken, except a summary while the messages taken so far stay
/// under 90 % of the budget; its file operations count either way. A budget of 0 (a window no
/// larger than the reserve) is no limit.
pub fn prepare_branch_entries(
    entries: &[SessionEntry],
    budget: u64,
) -> (Vec<AgentMessage>, FileOps) {
    let mut file_ops = FileOps::default();
    for entry in entries {
        if let EntryKind::BranchSummary(b) = &entry.kind
            && b.from_hook != Some(true)
        {
            file_ops.merge_details(b.details.as_ref());
        }
    }
    let mut picked = Vec::new();
    let mut total = 0u64;
    for entry in entries.iter().rev() {
        let Some(message) = entry_message(entry) else {
            continue;
        };
        if message.as_tool_result().is_some() {
            continue;
        }
        file_ops.collect_from(std::slice::from_ref(&message));
        let tokens = estimate_tokens(&message);
        if budget > 0 && total + tokens > budget {
            let is_summary = matches!(
                message.as_host(),
                Some(HostMessage::BranchSummary(_) | HostMessage::CompactionSummary(_))
            );
            if is_summary && (total as f64) < 0.9 * budget as f64 {
                picked.push(message);
            }
            break;
        }
        total += tokens;
        picked.push(message);
    }
    picked.reverse();
    (picked, file_ops)
}

/// Summarises an abandoned branch. `custom` instructions replace the default ones when
/// `replace`, else they are added as a focus.
pub async fn generate_branch_summary(
    messages: &[AgentMessage],
    file_ops: &FileOps,
    requester: &SummaryRequester,
    custom: Option<&str>,
    replace: bool,
) -> Result<SummaryOutput, SummaryError> {
    let details = file_ops.details();
    if messages.is_empty() {
        return Ok(SummaryOutput {
            summary: NO_CONTENT.to_owned(),
            details: details_value(&details),
            usage: Usage::default(),
        });
    }
    let prompt = prompts::branch_prompt(&serialize_messages(messages), custom, replace);
    let (text, usage) = requester
        .request(prompt, BRANCH_SUMMARY_MAX_TOKENS, "Branch summarization")
        .await?;
    let summary = format!("{}{text}", prompts::BRANCH_SUMMARY_PREFIX);
    Ok(SummaryOutput {
        summary: append_file_lists(&summary, &details),
        details: details_value(&details),
        usage,
    })
}
