//! The bounds of one running call — its deadline, its abort token and the grant's abort
//! grace — as one value shared by everything that must stop the call: the epoch callback
//! (wasm running), the bounded WASI waits (`bounded.rs`), the HTTP gate (`state.rs`) and the
//! watchdog on the caller's side (`watchdog.rs`).
//!
//! The deadline can be paused: time a call spends waiting for the user (a `ui` dialog) is not
//! the component's time, so the deadline moves on by the length of the wait.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// The bounds of one running call: its deadline, its abort token and the grant's abort grace.
/// Cheap to clone; every clone sees the same abort and the same start of the grace.
#[derive(Clone)]
pub(crate) struct CallClock {
    pub(crate) timeout: Duration,
    /// Shared by every clone: [`CallClock::pause`] moves it.
    deadline: Arc<Mutex<Instant>>,
    /// How many pauses are under way; the deadline does not pass while one is.
    paused: Arc<AtomicU32>,
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
            deadline: Arc::new(Mutex::new(
                now.checked_add(timeout)
                    .unwrap_or(now + Duration::from_secs(86_400)),
            )),
            paused: Arc::new(AtomicU32::new(0)),
            abort,
            grace,
            abort_seen: Arc::new(OnceLock::new()),
        }
    }

    /// The deadline now (it moves on after each pause).
    pub(crate) fn deadline(&self) -> Instant {
        *self.deadline.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn paused(&self) -> bool {
        self.paused.load(Ordering::Acquire) > 0
    }

    /// Whether the deadline has passed (never while paused).
    fn past_deadline(&self) -> bool {
        !self.paused() && Instant::now() >= self.deadline()
    }

    /// Stops the deadline until the guard is dropped, then moves it on by the time paused.
    /// An abort still stops the call meanwhile.
    pub(crate) fn pause(&self) -> Pause {
        self.paused.fetch_add(1, Ordering::AcqRel);
        Pause {
            clock: self.clone(),
            since: Instant::now(),
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
        if self.past_deadline() {
            Some(Interrupt::Deadline)
        } else {
            None
        }
    }

    /// Aborted or past the deadline, grace or not.
    pub(crate) fn stop_requested(&self) -> bool {
        self.abort.is_cancelled() || self.past_deadline()
    }

    /// Time left before the deadline.
    pub(crate) fn remaining(&self) -> Duration {
        self.deadline().saturating_duration_since(Instant::now())
    }

    /// Completes when the deadline has passed, pauses included.
    async fn deadline_passed(&self) {
        loop {
            let at = tokio::time::Instant::from_std(self.deadline());
            tokio::time::sleep_until(at).await;
            if self.past_deadline() {
                return;
            }
            if self.paused() {
                // Checked again soon: the pause's end moves the deadline.
                tokio::time::sleep(PAUSE_POLL).await;
            }
        }
    }

    /// Completes when [`interrupt`](Self::interrupt) would stop the call: at the deadline, or
    /// at the end of the grace after an abort. Needs a tokio context (timers).
    pub(crate) async fn reached(&self) -> Interrupt {
        tokio::select! {
            () = self.deadline_passed() => return Interrupt::Deadline,
            () = self.abort.cancelled() => {}
        }
        let seen = *self.abort_seen.get_or_init(Instant::now);
        let end_of_grace = seen
            .checked_add(self.grace)
            .unwrap_or_else(|| self.deadline());
        let until = end_of_grace.min(self.deadline());
        tokio::time::sleep_until(tokio::time::Instant::from_std(until)).await;
        self.interrupt().unwrap_or(Interrupt::Aborted)
    }
}

/// How often a waiter looks at a paused deadline again.
pub(crate) const PAUSE_POLL: Duration = Duration::from_millis(20);

/// A pause of a call's deadline (see [`CallClock::pause`]); dropping it resumes the clock.
pub(crate) struct Pause {
    clock: CallClock,
    since: Instant,
}

impl Drop for Pause {
    fn drop(&mut self) {
        let waited = self.since.elapsed();
        {
            let mut deadline = self
                .clock
                .deadline
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            *deadline = deadline.checked_add(waited).unwrap_or(*deadline);
        }
        self.clock.paused.fetch_sub(1, Ordering::AcqRel);
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
