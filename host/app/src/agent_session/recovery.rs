//! What happens after a run ends: first a retry of a
//! transient failure, then overflow / length recovery (one compaction and one more run, never
//! more per prompt), then the threshold check. Also the check before a new prompt.

use super::events::SessionEvent;
use super::{AgentSession, lock};
use pi_ai::{AssistantMessage, Model, StopReason, is_context_overflow};
use pi_session::compaction::tokens::{estimate_tokens, has_valid_usage, usage_tokens};
use pi_session::compaction::{CompactionReason, estimate_context_tokens, should_compact};
use pi_session::retry::{is_retryable_run, sleep_or_cancel};

/// Shown when a second overflow follows the one recovery attempt.
pub const OVERFLOW_RECOVERY_FAILED: &str = "Context overflow recovery failed after one compact-and-retry attempt. Try reducing context or switching to a larger-context model.";

/// What to do after a run.
#[derive(Debug, Clone, PartialEq)]
enum AfterRun {
    Retry {
        attempt: u32,
        max: u32,
        delay_ms: u64,
    },
    /// The last allowed retry failed too (reported by `auto_retry_end`).
    RetryExhausted,
    Recover,
    RecoveryFailed,
    /// The provider accepted an oversized context silently: compact, do not re-run.
    SilentOverflow,
    Threshold,
    Settle,
}

/// `stopReason = length` with output below the model's own limit: the reply was cut by the
/// context, not by the output cap.
pub fn is_recoverable_length(message: &AssistantMessage, model: &Model) -> bool {
    message.stop_reason == StopReason::Length && message.usage.output < model.max_tokens
}

fn from_current_model(message: &AssistantMessage, model: &Model) -> bool {
    message.provider == model.provider && message.model == model.id
}

impl AgentSession {
    /// Whether the newest reply predates the newest compaction on the branch (its usage was
    /// measured on a context that no longer exists). Decided by entry order, not timestamps:
    /// a fast reply can share the compaction's millisecond.
    fn reply_predates_compaction(&self) -> bool {
        self.with_session(|s| {
            s.branch_heads()
                .into_iter()
                .rev()
                .find_map(|e| match e.entry_type {
                    "compaction" => Some(true),
                    _ if e.assistant => Some(false),
                    _ => None,
                })
                .unwrap_or(false)
        })
    }

    pub(super) fn last_assistant(&self) -> Option<AssistantMessage> {
        self.inner.agent.with_state(|s| {
            s.messages
                .iter()
                .rev()
                .find_map(|m| m.as_assistant().cloned())
        })
    }

    /// `T` at a check after a run or before a prompt: the last reply's usage plus what came
    /// after it, or the estimate when that usage is not usable.
    fn tokens_at_check(&self, last: &AssistantMessage, allow_aborted: bool) -> u64 {
        let history = self.inner.agent.messages();
        let messages = &history[..];
        let usable = has_valid_usage(last)
            || (allow_aborted && last.stop_reason == StopReason::Aborted && usage_tokens(last) > 0);
        if !usable {
            return estimate_context_tokens(messages).tokens;
        }
        let after = messages
            .iter()
            .rposition(|m| m.as_assistant() == Some(last))
            .map_or(0, |i| messages[i + 1..].iter().map(estimate_tokens).sum());
        usage_tokens(last) + after
    }

    /// Threshold check on the existing context before a new prompt is added.
    pub(super) async fn check_before_prompt(&self) {
        let settings = self.compaction_settings();
        let Some(last) = self.last_assistant() else {
            return;
        };
        let model = self.model();
        if !settings.enabled || !from_current_model(&last, &model) {
            return;
        }
        if self.reply_predates_compaction() {
            return;
        }
        let tokens = self.tokens_at_check(&last, true);
        if should_compact(tokens, model.context_window, &settings) {
            let _ = self
                .run_compaction(CompactionReason::Threshold, None, false)
                .await;
        }
    }

    fn decide_after_run(&self, last: &AssistantMessage) -> AfterRun {
        let model = self.model();
        let policy = self.retry_policy();
        if policy.enabled && is_retryable_run(last, model.context_window) {
            let attempt = lock(&self.inner.run).retry_attempt + 1;
            if attempt > policy.max_retries {
                return AfterRun::RetryExhausted;
            }
            return AfterRun::Retry {
                attempt,
                max: policy.max_retries,
                delay_ms: policy.delay(attempt).as_millis() as u64,
            };
        }
        let settings = self.compaction_settings();
        if last.stop_reason == StopReason::Aborted || !settings.enabled {
            return AfterRun::Settle;
        }
        if !from_current_model(last, &model) {
            return AfterRun::Settle;
        }
        let stale = self.reply_predates_compaction();
        let overflow = is_context_overflow(last, Some(model.context_window))
            || is_recoverable_length(last, &model);
        if overflow && !stale {
            if last.stop_reason == StopReason::Stop {
                return AfterRun::SilentOverflow;
            }
            if lock(&self.inner.run).overflow_recovery_attempted {
                return AfterRun::RecoveryFailed;
            }
            return AfterRun::Recover;
        }
        if !stale
            && should_compact(
                self.tokens_at_check(last, false),
                model.context_window,
                &settings,
            )
        {
            return AfterRun::Threshold;
        }
        AfterRun::Settle
    }

    /// Emits the held `agent_end` and, when a retry sequence ends here, `auto_retry_end`.
    fn finish_run_events(&self, last: Option<&AssistantMessage>, will_retry: bool, retrying: bool) {
        let messages = lock(&self.inner.run)
            .pending_agent_end
            .take()
            .unwrap_or_default();
        self.emit(SessionEvent::AgentEnd {
            messages,
            will_retry,
        });
        if retrying {
            return;
        }
        let attempt = std::mem::take(&mut lock(&self.inner.run).retry_attempt);
        if attempt == 0 {
            return;
        }
        let failed =
            last.is_none_or(|m| matches!(m.stop_reason, StopReason::Error | StopReason::Aborted));
        self.emit(SessionEvent::AutoRetryEnd {
            success: !failed,
            attempt,
            final_error: failed.then(|| {
                last.and_then(|m| m.error_message.clone())
                    .unwrap_or_else(|| "Retry failed".to_owned())
            }),
        });
    }

    /// Removes the failed reply from the agent's messages (the file keeps it).
    fn drop_failed_reply(&self, failed: &AssistantMessage) {
        let mut messages = self.inner.agent.messages();
        if messages
            .last()
            .and_then(|m| m.as_assistant())
            .is_some_and(|m| m.timestamp == failed.timestamp && m.stop_reason == failed.stop_reason)
        {
            messages.pop();
            self.inner.agent.replace_messages(messages);
        }
    }

    /// Retries, recovers and compacts until the session is settled, then emits `agent_settled`.
    pub(super) async fn after_run(&self) {
        loop {
            let last = self.last_assistant();
            let action = match &last {
                Some(last) => self.decide_after_run(last),
                None => AfterRun::Settle,
            };
            let will_retry = matches!(action, AfterRun::Retry { .. } | AfterRun::Recover);
            let retrying = matches!(action, AfterRun::Retry { .. });
            self.finish_run_events(last.as_ref(), will_retry, retrying);
            let again = match (action, last) {
                (
                    AfterRun::Retry {
                        attempt,
                        max,
                        delay_ms,
                    },
                    Some(last),
                ) => self.retry(&last, attempt, max, delay_ms).await,
                (AfterRun::Recover, Some(last)) => self.recover(&last).await,
                (AfterRun::RecoveryFailed, _) => {
                    self.emit(SessionEvent::CompactionEnd {
                        reason: CompactionReason::Overflow,
                        result: None,
                        aborted: false,
                        will_retry: false,
                        error_message: Some(OVERFLOW_RECOVERY_FAILED.to_owned()),
                    });
                    false
                }
                (AfterRun::SilentOverflow, _) => {
                    let _ = self
                        .run_compaction(CompactionReason::Overflow, None, false)
                        .await;
                    false
                }
                (AfterRun::Threshold, _) => self.threshold_after_run().await,
                _ => false,
            };
            if !again {
                break;
            }
        }
        // The token is fresh at each prompt, so a cancelled one means this run was aborted.
        let aborted = self.cancel_token().is_cancelled();
        self.record_checkpoint();
        self.emit(SessionEvent::AgentSettled { aborted });
    }

    /// One session-level retry: report, drop the failed reply, wait, `continue()`. Returns
    /// whether a new run happened.
    async fn retry(
        &self,
        failed: &AssistantMessage,
        attempt: u32,
        max: u32,
        delay_ms: u64,
    ) -> bool {
        lock(&self.inner.run).retry_attempt = attempt;
        self.emit(SessionEvent::AutoRetryStart {
            attempt,
            max_attempts: max,
            delay_ms,
            error_message: failed.error_message.clone().unwrap_or_default(),
        });
        self.drop_failed_reply(failed);
        let delay = std::time::Duration::from_millis(delay_ms);
        let cancel = self.cancel_token();
        if !sleep_or_cancel(self.inner.sleeper.as_ref(), delay, &cancel).await {
            lock(&self.inner.run).retry_attempt = 0;
            self.emit(SessionEvent::AutoRetryEnd {
                success: false,
                attempt,
                final_error: Some("Retry cancelled".to_owned()),
            });
            return false;
        }
        self.continue_agent().await
    }

    /// Overflow / length recovery: drop the reply, compact, run once more.
    async fn recover(&self, failed: &AssistantMessage) -> bool {
        lock(&self.inner.run).overflow_recovery_attempted = true;
        self.drop_failed_reply(failed);
        if self
            .run_compaction(CompactionReason::Overflow, None, true)
            .await
            .is_err()
        {
            return false;
        }
        // The rebuilt context comes from the file, which still holds the failed reply.
        self.drop_failed_reply(failed);
        self.continue_agent().await
    }

    /// Threshold compaction after a run; queued messages then start a new run.
    async fn threshold_after_run(&self) -> bool {
        let compacted = self
            .run_compaction(CompactionReason::Threshold, None, false)
            .await
            .is_ok();
        compacted && self.inner.agent.has_queued_messages() && self.continue_agent().await
    }

    async fn continue_agent(&self) -> bool {
        match self.inner.agent.continue_run().await {
            Ok(()) => true,
            Err(error) => {
                tracing::warn!(%error, "the session could not continue the agent");
                false
            }
        }
    }
}
