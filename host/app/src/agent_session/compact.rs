//! Compaction as the session runs it: prepare the cut, ask the registered compactors, summarise,
//! save the `compaction` entry, rebuild the agent's messages, and report it all as events.

use super::events::{CompactionResult, SessionEvent, SummarizationSource};
use super::{AgentSession, lock};
use pi_agent::NextTurnUpdate;
use pi_ai::Usage;
use pi_ext_api::{CompactionDecision, CompactionPreparation, CompactionRequest};
use pi_session::compaction::summarize::{RetryNotice, summarize_preparation};
use pi_session::compaction::{
    CompactionReason, SummaryError, SummaryRequester, estimate_context_tokens, estimate_tokens,
    prepare_compaction, should_compact,
};
use pi_session::messages::convert_to_llm;
use pi_session::session::{CompactionEntry, EntryKind, SessionEntry};
use serde_json::Value;
use std::sync::Arc;

/// The context limit and the actual size an overflow error states ("maximum context length is
/// 128000 tokens. However, your messages resulted in 213462 tokens", "prompt is too long:
/// 213462 tokens > 200000 maximum"): the smallest and the largest number of four digits or
/// more, when they differ.
fn stated_tokens(message: &pi_ai::AssistantMessage) -> Option<(u64, u64)> {
    let text = message.error_message.as_deref()?;
    let numbers: Vec<u64> = text
        .split(|c: char| !c.is_ascii_digit())
        .filter(|n| n.len() >= 4)
        .filter_map(|n| n.parse().ok())
        .collect();
    let (min, max) = (numbers.iter().min()?, numbers.iter().max()?);
    (max > min).then_some((*min, *max))
}

/// A preparation that keeps less than `settings` asks: the recent part scaled by how far our
/// estimate is below what the server counted, then only the current turn.
fn deeper_preparation(
    path: &[SessionEntry],
    settings: &pi_session::settings::CompactionSettings,
    stated: Option<(u64, u64)>,
) -> Option<pi_session::compaction::CompactionPreparation> {
    let refs: Vec<&SessionEntry> = path.iter().collect();
    let estimate =
        estimate_context_tokens(&pi_session::session::build_session_context(&refs).messages).tokens;
    let mut keeps = Vec::new();
    if let Some((_, actual)) = stated
        && actual > estimate
    {
        keeps.push(settings.keep_recent_tokens.saturating_mul(estimate) / actual);
    }
    keeps.push(0);
    keeps.into_iter().find_map(|keep| {
        let settings = pi_session::settings::CompactionSettings {
            keep_recent_tokens: keep,
            ..*settings
        };
        prepare_compaction(path, &settings)
    })
}

/// Why a compaction produced nothing.
enum CompactFailure {
    Cancelled(String),
    Failed(String),
}

/// The summary to save and where it came from.
struct Produced {
    summary: String,
    details: Option<Value>,
    usage: Option<Usage>,
    from_hook: bool,
}

impl AgentSession {
    /// The requester summary calls use: the current model and key, the agent's stream function,
    /// the session's retry policy, and `abort` as cancellation; its retries are reported as
    /// `summarization_retry_*` events of `source`.
    pub(super) async fn summary_requester(
        &self,
        source: SummarizationSource,
    ) -> Result<SummaryRequester, String> {
        self.requester_for(self.model(), Some(source)).await
    }

    /// [`summary_requester`](Self::summary_requester) for another model (its own key). Without
    /// a `source` (an extension's own request, not a summary) retries are not reported.
    pub(super) async fn requester_for(
        &self,
        model: pi_ai::Model,
        source: Option<SummarizationSource>,
    ) -> Result<SummaryRequester, String> {
        let api_key = self
            .resolve_api_key(&model.provider)
            .await
            .map_err(|e| e.to_string())?;
        let weak = Arc::downgrade(&self.inner);
        Ok(SummaryRequester {
            thinking_level: self.thinking_level(),
            model,
            api_key,
            stream_fn: self.inner.stream_fn.clone(),
            cancel: self.cancel_token(),
            retry: self.retry_policy(),
            sleeper: self.inner.sleeper.clone(),
            on_retry: Arc::new(move |notice: RetryNotice| {
                let (Some(source), Some(session)) = (source, AgentSession::from_weak(&weak)) else {
                    return;
                };
                session.emit(match notice {
                    RetryNotice::Scheduled(retry) => SessionEvent::SummarizationRetryScheduled {
                        attempt: retry.attempt,
                        max_attempts: retry.max_attempts,
                        delay_ms: retry.delay_ms,
                        error_message: retry.error_message,
                    },
                    RetryNotice::AttemptStart => {
                        SessionEvent::SummarizationRetryAttemptStart { source }
                    }
                    RetryNotice::Finished => SessionEvent::SummarizationRetryFinished,
                });
            }),
        })
    }

    /// Runs one compaction with its `compaction_start` / `compaction_end` events. `Err` holds the
    /// message reported in `compaction_end`.
    pub(super) async fn run_compaction(
        &self,
        reason: CompactionReason,
        focus: Option<&str>,
        will_retry: bool,
    ) -> Result<CompactionResult, String> {
        lock(&self.inner.run).compacting = true;
        self.emit(SessionEvent::CompactionStart { reason });
        let outcome = self.compact_branch(reason, focus).await;
        lock(&self.inner.run).compacting = false;
        let (result, aborted, error_message) = match &outcome {
            Ok(result) => (Some(result.clone()), false, None),
            Err(CompactFailure::Cancelled(m)) => (None, true, Some(m.clone())),
            Err(CompactFailure::Failed(m)) => (None, false, Some(m.clone())),
        };
        self.emit(SessionEvent::CompactionEnd {
            reason,
            result,
            aborted,
            will_retry: will_retry && outcome.is_ok(),
            error_message,
        });
        outcome.map_err(|failure| match failure {
            CompactFailure::Cancelled(m) | CompactFailure::Failed(m) => m,
        })
    }

    async fn compact_branch(
        &self,
        reason: CompactionReason,
        focus: Option<&str>,
    ) -> Result<CompactionResult, CompactFailure> {
        let settings = self.compaction_settings();
        let path: Vec<SessionEntry> =
            self.with_session(|s| s.get_branch(None).into_iter().cloned().collect());
        if path
            .last()
            .is_some_and(|e| matches!(e.kind, EntryKind::Compaction(_)))
        {
            return Err(CompactFailure::Failed("Already compacted".to_owned()));
        }
        let nothing =
            || CompactFailure::Failed("Nothing to compact (session too small)".to_owned());
        let prep = match prepare_compaction(&path, &settings) {
            Some(prep) => prep,
            // The server's verdict wins over our estimate (a smaller window than the model
            // says, a huge tool result, images): cut deeper, down to the current turn.
            None if reason == CompactionReason::Overflow => {
                let stated = self.last_assistant().and_then(|m| stated_tokens(&m));
                deeper_preparation(&path, &settings, stated).ok_or_else(nothing)?
            }
            None => return Err(nothing()),
        };
        if let Some(why) = self
            .inner
            .hooks
            .before_compact(reason, prep.tokens_before)
            .await
        {
            return Err(CompactFailure::Cancelled(why));
        }
        let produced = self.produce_summary(&prep, reason, focus).await?;
        let entry = CompactionEntry {
            summary: produced.summary.clone(),
            first_kept_entry_id: prep.first_kept_entry_id.clone(),
            tokens_before: prep.tokens_before,
            details: produced.details.clone(),
            usage: produced.usage,
            from_hook: produced.from_hook.then_some(true),
        };
        let context = {
            let mut session = lock(&self.inner.session);
            session
                .append_compaction(entry)
                .map_err(|e| CompactFailure::Failed(e.to_string()))?;
            session.build_session_context()
        };
        // pi 1.6: the estimate of every message the next request starts from (no usage).
        let estimated_tokens_after = context.messages.iter().map(estimate_tokens).sum();
        self.inner.agent.replace_messages(context.messages);
        Ok(CompactionResult {
            summary: produced.summary,
            first_kept_entry_id: prep.first_kept_entry_id,
            tokens_before: prep.tokens_before,
            estimated_tokens_after,
            usage: produced.usage.map(Box::new),
            details: produced.details,
        })
    }

    async fn produce_summary(
        &self,
        prep: &pi_session::compaction::CompactionPreparation,
        reason: CompactionReason,
        focus: Option<&str>,
    ) -> Result<Produced, CompactFailure> {
        let compactors = lock(&self.inner.compactors).clone();
        let preparation = (!compactors.is_empty()).then(|| seam_preparation(prep, focus));
        for compactor in compactors {
            let Some(preparation) = &preparation else {
                break;
            };
            let request = CompactionRequest {
                preparation,
                reason,
            };
            let decision = compactor.decide(&request, self.cancel_token()).await;
            match decision.unwrap_or_else(|error| {
                // A failing override must not cost the user the compaction (pi does the same
                // when a `session_before_compact` handler throws).
                tracing::warn!("compactor extension failed, compacting as usual: {error}");
                CompactionDecision::UseDefault
            }) {
                CompactionDecision::UseDefault => continue,
                CompactionDecision::Cancel(why) => return Err(CompactFailure::Cancelled(why)),
                CompactionDecision::Custom { summary, details } => {
                    return Ok(Produced {
                        summary,
                        details,
                        usage: None,
                        from_hook: true,
                    });
                }
            }
        }
        let requester = self
            .summary_requester(SummarizationSource::Compaction { reason })
            .await
            .map_err(CompactFailure::Failed)?;
        match summarize_preparation(prep, &requester, focus).await {
            Ok(output) => Ok(Produced {
                summary: output.summary,
                details: Some(output.details),
                usage: Some(output.usage),
                from_hook: false,
            }),
            Err(SummaryError::Cancelled) => Err(CompactFailure::Cancelled(
                SummaryError::Cancelled.to_string(),
            )),
            Err(error) => Err(CompactFailure::Failed(error.to_string())),
        }
    }

    /// The context's size as pi 1.6's `contextUsage` reports it: the last reply's usage plus
    /// the estimate of what came after; `None` after a compaction until a reply measured the
    /// compacted context.
    pub fn context_tokens(&self) -> Option<u64> {
        let messages = self.inner.agent.messages();
        let estimate = estimate_context_tokens(&messages);
        let compacted = messages.iter().any(|m| {
            matches!(
                m.as_host(),
                Some(pi_agent::HostMessage::CompactionSummary(_))
            )
        });
        (!compacted || estimate.last_usage_index.is_some()).then_some(estimate.tokens)
    }

    /// The check before the next turn of a run: `T = U + ΣE` over the run's messages; compact
    /// when over the threshold and hand the rebuilt messages back to the loop.
    pub(super) async fn compact_before_next_turn(
        &self,
        messages: Vec<pi_agent::AgentMessage>,
    ) -> Option<NextTurnUpdate> {
        let settings = self.compaction_settings();
        let tokens = estimate_context_tokens(&messages).tokens;
        if !should_compact(tokens, self.model().context_window, &settings) {
            return None;
        }
        self.run_compaction(CompactionReason::Threshold, None, false)
            .await
            .ok()?;
        Some(NextTurnUpdate {
            messages: Some(self.inner.agent.messages()),
            ..NextTurnUpdate::default()
        })
    }
}

/// What an override is shown: the session's preparation as the model would see it.
fn seam_preparation(
    prep: &pi_session::compaction::CompactionPreparation,
    focus: Option<&str>,
) -> CompactionPreparation {
    CompactionPreparation {
        messages_to_summarize: owned_llm(&prep.messages_to_summarize),
        turn_prefix_messages: owned_llm(&prep.turn_prefix_messages),
        previous_summary: prep.previous_summary.clone(),
        first_kept_entry_id: prep.first_kept_entry_id.clone(),
        tokens_before: prep.tokens_before,
        is_split_turn: prep.is_split_turn,
        custom_instructions: focus.map(str::to_owned),
    }
}

/// The model's view of `messages` as owned messages, for an extension's compactor (it gets a
/// copy of its own; the agent's history is shared, not handed out).
fn owned_llm(messages: &[pi_agent::AgentMessage]) -> Vec<pi_ai::Message> {
    convert_to_llm(messages)
        .into_iter()
        .map(Arc::unwrap_or_clone)
        .collect()
}
