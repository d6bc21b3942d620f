//! Locking shared state without letting a poisoned lock spread a panic.

use std::sync::{Mutex, MutexGuard};

/// Locks `mutex`, taking the guard even when the mutex is poisoned.
///
/// A panic in another thread while it held the lock (a listener, a tool, a test's callback)
/// must not take the whole session down with a second panic here. Use it for state that each
/// holder changes in single steps (a push, an insert, a field assignment), which a holder
/// that panicked cannot have left half-updated.
pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_poisoned_mutex_still_locks() {
        let shared = Arc::new(Mutex::new(1));
        let in_thread = shared.clone();
        let panicked = std::thread::spawn(move || {
            let _guard = in_thread.lock().unwrap();
            panic!("poison the lock");
        })
        .join()
        .is_err();
        assert!(panicked && shared.is_poisoned());
        *lock(&shared) += 1;
        assert_eq!(*lock(&shared), 2);
    }
}
