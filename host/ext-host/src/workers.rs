//! The threads extension calls run on, reused: starting a thread costs more than a small
//! call (a hook answering `allow`), so a thread that finished its call waits a while for the
//! next one. A call the watchdog abandons keeps its thread, which never comes back; nothing
//! else changes for the caller.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TryRecvError, sync_channel};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// One call's work.
pub(crate) type Job = Box<dyn FnOnce() + Send + 'static>;

/// How long an idle thread waits for another call before it ends.
const IDLE_FOR: Duration = Duration::from_secs(30);

/// How long a thread that finished its call watches for the next one before it sleeps:
/// the hooks of one event come one after the other, and a sleeping thread is slow to wake.
const SPIN: Duration = Duration::from_micros(100);

/// At most this many threads wait idle; more finish when their call does.
const MAX_IDLE: usize = 8;

/// An idle thread: its number and the channel that reaches it.
type Idle = (u64, SyncSender<Job>);

/// The idle threads.
static IDLE: Mutex<Vec<Idle>> = Mutex::new(Vec::new());

/// Numbers the threads, so one can take itself off the idle list.
static NEXT: AtomicU64 = AtomicU64::new(0);

fn idle() -> std::sync::MutexGuard<'static, Vec<Idle>> {
    IDLE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Runs `job` on an idle thread, or on a new one with `stack` bytes of stack.
pub(crate) fn run(stack: usize, job: Job) -> std::io::Result<()> {
    let mut job = job;
    while let Some((_, worker)) = idle().pop() {
        match worker.send(job) {
            Ok(()) => return Ok(()),
            // The thread ended meanwhile: try another.
            Err(returned) => job = returned.0,
        }
    }
    let (sender, receiver) = sync_channel::<Job>(1);
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    std::thread::Builder::new()
        .name("pi-ext call".into())
        .stack_size(stack)
        .spawn(move || serve(job, (id, sender), &receiver))?;
    Ok(())
}

/// A thread's life: its first call, then the calls it is given while it waits idle.
fn serve(first: Job, me: Idle, receiver: &Receiver<Job>) {
    let mut job = first;
    loop {
        job();
        {
            let mut idle = idle();
            if idle.len() >= MAX_IDLE {
                return;
            }
            idle.push((me.0, me.1.clone()));
        }
        if let Some(next) = spin(receiver) {
            job = next;
            continue;
        }
        job = match receiver.recv_timeout(IDLE_FOR) {
            Ok(next) => next,
            Err(RecvTimeoutError::Timeout) => {
                let mut idle = idle();
                let before = idle.len();
                idle.retain(|(id, _)| *id != me.0);
                if idle.len() < before {
                    return;
                }
                // Someone took this thread just now: their call is on its way.
                drop(idle);
                match receiver.recv() {
                    Ok(next) => next,
                    Err(_) => return,
                }
            }
            Err(RecvTimeoutError::Disconnected) => return,
        };
    }
}

/// The next call if it comes within [`SPIN`].
fn spin(receiver: &Receiver<Job>) -> Option<Job> {
    let until = Instant::now() + SPIN;
    while Instant::now() < until {
        match receiver.try_recv() {
            Ok(job) => return Some(job),
            Err(TryRecvError::Empty) => std::hint::spin_loop(),
            Err(TryRecvError::Disconnected) => return None,
        }
    }
    None
}
