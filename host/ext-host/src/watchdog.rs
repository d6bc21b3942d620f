//! The watchdog of one extension call: the call runs on a thread of its own, and the caller
//! waits for its result or for its bounds, whichever comes first. The epoch interrupt stops a
//! component while wasm runs and the bounded WASI waits (`bounded.rs`) stop it while it waits,
//! but a thread stuck in some other host call (a blocking open, a slow disk) would hold the
//! caller forever; the watchdog gives the caller its error at the deadline or abort and
//! abandons the store with its thread.
//!
//! The threads are plain `std` threads outside any tokio runtime (reused from call to call,
//! `workers`), not `spawn_blocking`: a
//! runtime waits for its blocking tasks when it is dropped, so an abandoned call would keep pi
//! from exiting, and WASI calls made inside a runtime that shuts down panic. Outside one,
//! wasmtime-wasi runs its futures on its own ambient runtime, which lives as long as the process.
//!
//! The clock starts when the call's store exists (the component may have to be compiled
//! first, which is not the component's time); an abort before that ends the wait at once.

use crate::clock::{CallClock, Interrupt};
use crate::error::{Cause, ExtensionError, ExtensionId};
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

/// How long past its bounds a call may still report its own result (the epoch interrupt
/// needs a tick or two) before the watchdog answers for it.
pub const SLACK: Duration = Duration::from_millis(100);

/// How long [`Watchdog::wait_short`] watches before it sleeps.
const SPIN: Duration = Duration::from_micros(150);

/// Native stack of a call thread: above the engine's wasm stack limit plus host frames, so
/// that deep recursion traps instead of overflowing the thread.
const CALL_STACK: usize = 4 << 20;

/// The call thread's side: tells the waiter when the store (and so the call's clock) exists.
/// The default one tells nobody (calls made inline, without a watchdog).
#[derive(Clone, Default)]
pub(crate) struct Watch {
    started: Option<Arc<Signal>>,
}

impl Watch {
    pub(crate) fn started(&self, clock: &CallClock) {
        if let Some(signal) = &self.started {
            signal.update(|slot| slot.clock = Some(clock.clone()));
        }
    }
}

/// What the call thread reported so far.
struct Slot {
    clock: Option<CallClock>,
    ended: bool,
}

/// A slot with both kinds of wake-up: a condvar for synchronous waiters, a `Notify` for async.
struct Signal {
    slot: Mutex<Slot>,
    changed: Condvar,
    notify: Notify,
}

impl Signal {
    fn lock(&self) -> MutexGuard<'_, Slot> {
        // Every update is a single assignment: a poisoned slot is still consistent.
        self.slot.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn update(&self, f: impl FnOnce(&mut Slot)) {
        f(&mut self.lock());
        self.changed.notify_all();
        self.notify.notify_waiters();
    }

    /// Waits (async) until `ready` holds for the slot.
    async fn until<T>(&self, ready: impl Fn(&Slot) -> Option<T>) -> T {
        loop {
            let notified = self.notify.notified();
            tokio::pin!(notified);
            // Registered before the check, so an update between the two is not lost.
            notified.as_mut().enable();
            if let Some(value) = ready(&self.lock()) {
                return value;
            }
            notified.await;
        }
    }
}

/// A call running on its own thread.
pub(crate) struct Watchdog<T> {
    extension: Arc<ExtensionId>,
    abort: CancellationToken,
    signal: Arc<Signal>,
    result: Arc<Mutex<Option<Result<T, ExtensionError>>>>,
}

/// Starts `call` on a thread of its own (a reused one: `workers`). `call` gets the [`Watch`] to put in its `CallContext`.
pub(crate) fn spawn<T, F>(
    extension: &Arc<ExtensionId>,
    abort: CancellationToken,
    call: F,
) -> Result<Watchdog<T>, ExtensionError>
where
    T: Send + 'static,
    F: FnOnce(Watch) -> Result<T, ExtensionError> + Send + 'static,
{
    let signal = Arc::new(Signal {
        slot: Mutex::new(Slot {
            clock: None,
            ended: false,
        }),
        changed: Condvar::new(),
        notify: Notify::new(),
    });
    let result = Arc::new(Mutex::new(None));
    let watch = Watch {
        started: Some(signal.clone()),
    };
    let (thread_signal, thread_result, id) = (signal.clone(), result.clone(), extension.clone());
    let job = move || {
        let outcome =
            std::panic::catch_unwind(AssertUnwindSafe(|| call(watch))).unwrap_or_else(|_| {
                Err(ExtensionError::new(
                    &id,
                    Cause::Runtime("the call failed in the host (panic)".into()),
                ))
            });
        *thread_result.lock().unwrap_or_else(PoisonError::into_inner) = Some(outcome);
        thread_signal.update(|slot| slot.ended = true);
    };
    crate::workers::run(CALL_STACK, Box::new(job)).map_err(|e| {
        ExtensionError::new(
            extension,
            Cause::Runtime(format!("cannot start the call's thread: {e}")),
        )
    })?;
    Ok(Watchdog {
        extension: extension.clone(),
        abort,
        signal,
        result,
    })
}

impl<T> Watchdog<T> {
    fn take(&self) -> Result<T, ExtensionError> {
        self.result
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
            .unwrap_or_else(|| Err(self.stopped(Interrupt::Aborted, None)))
    }

    fn stopped(&self, interrupt: Interrupt, clock: Option<&CallClock>) -> ExtensionError {
        let cause = match (interrupt, clock) {
            (Interrupt::Deadline, Some(clock)) => Cause::Deadline(clock.timeout),
            _ => Cause::Aborted,
        };
        tracing::warn!(extension = %self.extension, "call abandoned: {cause}");
        ExtensionError::new(&self.extension, cause)
    }

    /// The call's result, or its error once it is past its deadline or aborted (with the
    /// grant's abort grace); the call's thread is then left to itself.
    pub(crate) async fn wait(self) -> Result<T, ExtensionError> {
        let ended = self.signal.until(|slot| slot.ended.then_some(()));
        let bounds = async {
            let clock = tokio::select! {
                biased;
                clock = self.signal.until(|slot| slot.clock.clone()) => clock,
                () = self.abort.cancelled() => return (Interrupt::Aborted, None),
            };
            let interrupt = clock.reached().await;
            tokio::time::sleep(SLACK).await;
            (interrupt, Some(clock))
        };
        tokio::select! {
            biased;
            () = ended => self.take(),
            (interrupt, clock) = bounds => match self.finished() {
                true => self.take(),
                false => Err(self.stopped(interrupt, clock.as_ref())),
            },
        }
    }

    /// Like [`wait`](Self::wait) for callers without a runtime (start-up, the UI's renderers);
    /// only the deadline applies (they have no abort).
    pub(crate) fn wait_blocking(self) -> Result<T, ExtensionError> {
        let mut slot = self.signal.lock();
        loop {
            if slot.ended {
                drop(slot);
                return self.take();
            }
            let limit = slot
                .clock
                .as_ref()
                .map(|c| (c.deadline() + SLACK, c.clone()));
            slot = match limit {
                None => self
                    .signal
                    .changed
                    .wait(slot)
                    .unwrap_or_else(PoisonError::into_inner),
                Some((at, clock)) => {
                    let now = Instant::now();
                    if now >= at && clock.interrupt() == Some(Interrupt::Deadline) {
                        return Err(self.stopped(Interrupt::Deadline, Some(&clock)));
                    }
                    // A paused deadline is looked at again shortly.
                    let wait = at
                        .saturating_duration_since(now)
                        .max(crate::clock::PAUSE_POLL);
                    self.signal
                        .changed
                        .wait_timeout(slot, wait)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0
                }
            };
        }
    }

    fn finished(&self) -> bool {
        self.signal.lock().ended
    }

    /// Like [`wait`](Self::wait), for calls that are usually over in microseconds (hooks):
    /// the caller first watches for the end for up to [`SPIN`], which spares it being put to
    /// sleep and woken again, the larger part of such a call.
    pub(crate) async fn wait_short(self) -> Result<T, ExtensionError> {
        let until = Instant::now() + SPIN;
        while Instant::now() < until {
            if self.finished() {
                return self.take();
            }
            std::hint::spin_loop();
        }
        self.wait().await
    }
}
