//! Session-level retry: which failed runs are retried, how long to
//! wait (`baseDelayMs · 2^(attempt−1)`: 2 s, 4 s, 8 s by default), and an injectable clock so
//! tests can check the waits without sleeping.

use crate::settings::RetrySettings;
use pi_agent::BoxFuture;
use pi_ai::{AssistantMessage, StopReason, is_context_overflow, is_retryable_error};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Waits. The session sleeps only through this, so tests can substitute a clock.
pub trait Sleeper: Send + Sync {
    fn sleep(&self, duration: Duration) -> BoxFuture<'static, ()>;
}

/// The real clock (tokio's timer).
#[derive(Debug, Clone, Copy, Default)]
pub struct TokioSleeper;

impl Sleeper for TokioSleeper {
    fn sleep(&self, duration: Duration) -> BoxFuture<'static, ()> {
        Box::pin(tokio::time::sleep(duration))
    }
}

/// Sleeps unless `cancel` fires first. Returns false when cancelled.
pub async fn sleep_or_cancel(
    sleeper: &dyn Sleeper,
    duration: Duration,
    cancel: &CancellationToken,
) -> bool {
    if cancel.is_cancelled() {
        return false;
    }
    tokio::select! {
        () = sleeper.sleep(duration) => true,
        () = cancel.cancelled() => false,
    }
}

/// `retry.*` as the session applies it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    pub enabled: bool,
    pub max_retries: u32,
    pub base_delay_ms: u64,
}

impl RetryPolicy {
    /// The wait before retry number `attempt` (1-based): `base · 2^(attempt−1)`.
    pub fn delay(&self, attempt: u32) -> Duration {
        let factor = 1u64 << attempt.saturating_sub(1).min(30);
        Duration::from_millis(self.base_delay_ms.saturating_mul(factor))
    }
}

impl From<RetrySettings> for RetryPolicy {
    fn from(s: RetrySettings) -> Self {
        RetryPolicy {
            enabled: s.enabled,
            max_retries: u32::try_from(s.max_retries).unwrap_or(u32::MAX),
            base_delay_ms: s.base_delay_ms,
        }
    }
}

/// Whether a run that ended with `message` is retried: an `error` whose text is transient and
/// not a quota, billing or context-overflow failure.
pub fn is_retryable_run(message: &AssistantMessage, context_window: u64) -> bool {
    message.stop_reason == StopReason::Error
        && !is_context_overflow(message, Some(context_window))
        && is_retryable_error(message)
}
