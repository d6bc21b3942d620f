//! Locking that survives a panic elsewhere: a panic in another thread while it held a lock
//! must not take the whole session down with it, so the guard of a poisoned mutex is used as
//! it is.

use std::sync::{Mutex, MutexGuard};

/// Locks `mutex`, taking the guard of a poisoned one.
pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
