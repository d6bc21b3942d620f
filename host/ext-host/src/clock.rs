//! The bounds of one running call — its deadline, its abort token and the grant's abort
//! grace — as one value shared by everything that must stop the call: the epoch callback
//! (wasm running), the bounded WASI waits (`bounded.rs`), the HTTP gate (`state.rs`) and the
//! watchdog on the caller's side (`watchdog.rs`).

use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// The bounds of one running call: its deadline, its abort token and the grant's abort grace.
/// Cheap to clone; every clone sees the same abort and the same start of the grace.
#[derive(Clone)]
pub(crate) struct CallClock {
    pub(crate) timeout: Duration,
    pub(crate) deadline: Instant,
    abort: CancellationToken,
    grace: Duration,
    /// When the abort was first seen (the start of the abort grace).
    abort_seen: Arc<OnceLock<Instant>>,
}

impl CallClock {
    pub(crate) fn start(timeout: Duration, abort: CancellationToken, grace: Duration) -> Self {
        let now = Instant::now();
        CallClock {
            timeout,
            deadline: now
                .checked_add(timeout)
                .unwrap_or(now + Duration::from_secs(86_400)),
            abort,
            grace,
            abort_seen: Arc::new(OnceLock::new()),
        }
    }

    /// Abort first (once the grace has passed), then the deadline.
    pub(crate) fn interrupt(&self) -> Option<Interrupt> {
        if self.abort.is_cancelled() {
            let seen = self.abort_seen.get_or_init(Instant::now);
            if self.grace.is_zero() || seen.elapsed() >= self.grace {
                return Some(Interrupt::Aborted);
            }
        }
        if Instant::now() >= self.deadline {
            Some(Interrupt::Deadline)
        } else {
            None
        }
    }

    /// Aborted or past the deadline, grace or not.
    pub(crate) fn stop_requested(&self) -> bool {
        self.abort.is_cancelled() || Instant::now() >= self.deadline
    }

    /// Time left before the deadline.
    pub(crate) fn remaining(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }

    /// Completes when [`interrupt`](Self::interrupt) would stop the call: at the deadline, or
    /// at the end of the grace after an abort. Needs a tokio context (timers).
    pub(crate) async fn reached(&self) -> Interrupt {
        let deadline = tokio::time::Instant::from_std(self.deadline);
        tokio::select! {
            () = tokio::time::sleep_until(deadline) => return Interrupt::Deadline,
            () = self.abort.cancelled() => {}
        }
        let seen = *self.abort_seen.get_or_init(Instant::now);
        let end_of_grace = seen.checked_add(self.grace).unwrap_or(self.deadline);
        let until = end_of_grace.min(self.deadline);
        tokio::time::sleep_until(tokio::time::Instant::from_std(until)).await;
        self.interrupt().unwrap_or(Interrupt::Aborted)
    }
}

/// Why a call was stopped (the epoch callback, a bounded wait or the watchdog).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Interrupt {
    #[error("deadline exceeded")]
    Deadline,
    #[error("aborted")]
    Aborted,
}
