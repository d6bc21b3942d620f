//! Per-file serialisation of file-mutating calls: pi queues `edit`/`write` calls to the same
//! file within one process, so a read-modify-write never loses a parallel call's change.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// One async mutex per file path, created on demand and dropped when no call holds it.
#[derive(Default)]
pub struct FileLocks {
    locks: Mutex<HashMap<PathBuf, Arc<tokio::sync::Mutex<()>>>>,
}

/// Held while a call mutates `path`; releasing it forgets the path when nobody waits.
pub struct FileGuard<'a> {
    locks: &'a FileLocks,
    path: PathBuf,
    guard: Option<tokio::sync::OwnedMutexGuard<()>>,
}

impl Drop for FileGuard<'_> {
    fn drop(&mut self) {
        drop(self.guard.take());
        if let Ok(mut map) = self.locks.locks.lock()
            && map
                .get(&self.path)
                .is_some_and(|m| Arc::strong_count(m) == 1)
        {
            map.remove(&self.path);
        }
    }
}

impl FileLocks {
    /// Waits until no other call mutates `path`, then holds it.
    pub async fn lock(&self, path: PathBuf) -> FileGuard<'_> {
        let mutex = match self.locks.lock() {
            Ok(mut map) => map.entry(path.clone()).or_default().clone(),
            // A poisoned map only loses serialisation, never correctness of the call itself.
            Err(poisoned) => poisoned
                .into_inner()
                .entry(path.clone())
                .or_default()
                .clone(),
        };
        let guard = mutex.lock_owned().await;
        FileGuard {
            locks: self,
            path,
            guard: Some(guard),
        }
    }
}

/// The key of a model-given path: `@` stripped, joined to the cwd, `.`/`..` folded, so two
/// spellings of one file share a lock.
pub fn lock_key(cwd: &Path, user_path: &str) -> PathBuf {
    let path = user_path.strip_prefix('@').unwrap_or(user_path);
    pi_ai::lexical_path::fold(&cwd.join(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_of_one_file_share_a_key() {
        let cwd = Path::new("/ws");
        assert_eq!(lock_key(cwd, "a.txt"), lock_key(cwd, "@./d/../a.txt"));
        assert_eq!(lock_key(cwd, "/ws/a.txt"), PathBuf::from("/ws/a.txt"));
    }
}
