//! `/tree` navigation: move the leaf to another entry, optionally leaving a summary of the
//! branch being abandoned.

use super::{AgentSession, AgentSessionError, SummarizationSource, lock};
use pi_session::compaction::branch_summary::{
    DEFAULT_CONTEXT_WINDOW, collect_entries_for_branch_summary, generate_branch_summary,
    prepare_branch_entries,
};
use pi_session::compaction::summarize::SummaryError;
use pi_session::session::EntryKind;

/// How to leave the current branch.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NavigateOptions {
    /// Summarise the branch being left.
    pub summarize: bool,
    /// Extra instructions for the summary.
    pub custom_instructions: Option<String>,
    /// The custom instructions replace the default ones instead of adding a focus.
    pub replace_instructions: bool,
    /// A label to put on the target entry.
    pub label: Option<String>,
}

/// What navigation did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NavigateResult {
    /// Text of the selected user message, for the editor (the leaf moved to its parent).
    pub editor_text: Option<String>,
    /// The `branch_summary` entry written, if any.
    pub summary_entry_id: Option<String>,
    /// The summary was cancelled (`abort`); nothing changed.
    pub cancelled: bool,
}

impl AgentSession {
    /// Moves to `target_id`. Selecting a user (or extension) message puts the leaf on its
    /// parent and returns its text for re-editing; any other entry becomes the leaf.
    pub async fn navigate_tree(
        &self,
        target_id: &str,
        options: NavigateOptions,
    ) -> Result<NavigateResult, AgentSessionError> {
        if self.is_running() {
            return Err(AgentSessionError::NavigateWhileRunning);
        }
        self.reset_cancel();
        let (old_leaf, new_leaf, editor_text, entries) = {
            let session = lock(&self.inner.session);
            let entry = session.entry(target_id).ok_or_else(|| {
                pi_session::session::SessionError::UnknownEntry(target_id.to_owned())
            })?;
            let editor_text = match &entry.kind {
                EntryKind::Message(m) => m.as_user().map(|u| u.content.text()),
                EntryKind::CustomMessage(c) => Some(c.content.text()),
                _ => None,
            };
            let new_leaf = match editor_text {
                Some(_) => entry.parent_id.clone(),
                None => Some(entry.id.clone()),
            };
            let old_leaf = session.leaf_id().map(str::to_owned);
            let entries = if options.summarize {
                collect_entries_for_branch_summary(&session, old_leaf.as_deref(), target_id)
            } else {
                Vec::new()
            };
            (old_leaf, new_leaf, editor_text, entries)
        };
        let mut result = NavigateResult {
            editor_text,
            ..NavigateResult::default()
        };
        let summary = if options.summarize && !entries.is_empty() {
            match self.branch_summary(&entries, &options).await {
                Ok(output) => Some(output),
                Err(SummaryError::Cancelled) => {
                    result.cancelled = true;
                    return Ok(result);
                }
                Err(error) => return Err(AgentSessionError::Compaction(error.to_string())),
            }
        } else {
            None
        };
        tracing::debug!(?old_leaf, ?new_leaf, "tree navigation");
        let context = {
            let mut session = lock(&self.inner.session);
            match summary {
                Some(output) => {
                    let id = session.branch_with_summary(
                        new_leaf.as_deref(),
                        output.summary,
                        Some(output.details),
                        None,
                        Some(output.usage),
                    )?;
                    result.summary_entry_id = Some(id);
                }
                None => match &new_leaf {
                    Some(id) => session.branch(id)?,
                    None => session.reset_leaf(),
                },
            }
            if let Some(label) = options.label.clone() {
                session.append_label(target_id, Some(label))?;
            }
            session.build_session_context()
        };
        self.inner.agent.replace_messages(context.messages);
        Ok(result)
    }

    async fn branch_summary(
        &self,
        entries: &[pi_session::session::SessionEntry],
        options: &NavigateOptions,
    ) -> Result<pi_session::compaction::SummaryOutput, SummaryError> {
        let window = Some(self.model().context_window)
            .filter(|w| *w > 0)
            .unwrap_or(DEFAULT_CONTEXT_WINDOW);
        let reserve = self.with_settings(|s| s.branch_summary().reserve_tokens);
        let (messages, file_ops) = prepare_branch_entries(entries, window.saturating_sub(reserve));
        let requester = self
            .summary_requester(SummarizationSource::BranchSummary)
            .await
            .map_err(SummaryError::Failed)?;
        generate_branch_summary(
            &messages,
            &file_ops,
            &requester,
            options.custom_instructions.as_deref(),
            options.replace_instructions,
        )
        .await
    }
}
