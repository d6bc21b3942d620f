//! Blocking on a network future from synchronous code (the package commands and start-up are
//! synchronous). A runtime cannot be blocked on inside another one: when the caller already
//! runs one, the future gets a thread of its own.

use std::future::Future;

/// Runs `work` to completion; `Err` only when no runtime could be started.
pub(crate) fn block_on<T, F>(work: F) -> std::io::Result<T>
where
    T: Send,
    F: Future<Output = T> + Send,
{
    let run = || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map(|runtime| runtime.block_on(work))
    };
    if tokio::runtime::Handle::try_current().is_ok() {
        std::thread::scope(|scope| scope.spawn(run).join())
            .map_err(|_| std::io::Error::other("the download thread panicked"))?
    } else {
        run()
    }
}
