//! A cross-process lock for read-modify-write of a config file (`auth.json`, `settings.json`,
//! `mcp-auth.json`), the way the reference pi locks them (npm's `proper-lockfile`), so that both
//! can share an agent directory: the lock is the directory `<file>.lock`, made with one `mkdir`
//! (which only one process can win) and removed on release. A lock whose directory was not touched
//! for 10 s belongs to a process that died holding it, and is broken.
//!
//! A side entry rather than a lock on the file itself, because the file is replaced by rename on
//! every write: a lock on it would be lost with the old inode.

use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// How old an untouched lock must be to count as abandoned (`proper-lockfile`'s default).
const STALE: Duration = Duration::from_secs(10);
/// The first wait before trying again; it doubles up to [`MAX_RETRY`].
const FIRST_RETRY: Duration = Duration::from_millis(5);
const MAX_RETRY: Duration = Duration::from_millis(100);

/// Held while a change is read, applied and written; released on drop.
#[derive(Debug)]
pub struct FileLock {
    dir: PathBuf,
}

impl FileLock {
    /// Blocks until this process holds the lock for `path` (creating the parent directory when
    /// missing). Waits while another process holds it; breaks a lock left stale.
    pub fn acquire(path: &Path) -> std::io::Result<Self> {
        let dir = lock_path(path);
        if let Some(parent) = dir.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)?;
        }
        let mut wait = FIRST_RETRY;
        loop {
            match std::fs::create_dir(&dir) {
                Ok(()) => return Ok(FileLock { dir }),
                Err(error) if error.kind() == ErrorKind::AlreadyExists => {
                    if !break_abandoned(&dir)? {
                        std::thread::sleep(wait);
                        wait = (wait * 2).min(MAX_RETRY);
                    }
                }
                Err(error) => return Err(error),
            }
        }
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.dir);
    }
}

/// Removes the lock at `dir` when nobody can be holding it any more: a directory untouched for
/// [`STALE`], or the plain lock file earlier versions of this pi left behind (which the
/// reference pi cannot lock past). Whether it did (or the lock is gone already).
fn break_abandoned(dir: &Path) -> std::io::Result<bool> {
    let meta = match std::fs::symlink_metadata(dir) {
        Ok(meta) => meta,
        Err(error) if error.kind() == ErrorKind::NotFound => return Ok(true),
        Err(error) => return Err(error),
    };
    if meta.is_file() {
        return remove_legacy_file(dir);
    }
    let age = meta
        .modified()
        .ok()
        .and_then(|modified| SystemTime::now().duration_since(modified).ok())
        .unwrap_or_default();
    if age < STALE {
        return Ok(false);
    }
    match std::fs::remove_dir(dir) {
        Ok(()) => Ok(true),
        Err(error) if error.kind() == ErrorKind::NotFound => Ok(true),
        Err(error) => Err(error),
    }
}

/// An older pi's lock file: it held an advisory lock on it while changing the file. Removed once
/// no one holds that.
fn remove_legacy_file(path: &Path) -> std::io::Result<bool> {
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(error) if error.kind() == ErrorKind::NotFound => return Ok(true),
        Err(error) => return Err(error),
    };
    match file.try_lock() {
        Ok(()) => {
            let removed = std::fs::remove_file(path);
            let _ = file.unlock();
            match removed {
                Err(error) if error.kind() != ErrorKind::NotFound => Err(error),
                _ => Ok(true),
            }
        }
        Err(_) => Ok(false),
    }
}

/// The lock of `path`: the directory `<path>.lock`.
pub fn lock_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    path.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    fn waiter(path: &Path) -> (mpsc::Receiver<()>, std::thread::JoinHandle<()>) {
        let (tx, rx) = mpsc::channel();
        let path = path.to_owned();
        let handle = std::thread::spawn(move || {
            let _second = FileLock::acquire(&path).unwrap();
            tx.send(()).unwrap();
        });
        (rx, handle)
    }

    #[test]
    fn a_second_holder_waits_for_the_first_and_nothing_is_left_behind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        let first = FileLock::acquire(&path).unwrap();
        assert!(lock_path(&path).is_dir());
        let (rx, handle) = waiter(&path);
        // The waiter cannot get the lock while `first` is held: no message yet.
        assert!(rx.recv_timeout(Duration::from_millis(200)).is_err());
        drop(first);
        rx.recv_timeout(Duration::from_secs(10)).unwrap();
        handle.join().unwrap();
        assert!(!lock_path(&path).exists());
    }

    #[test]
    fn a_stale_lock_is_broken_and_a_fresh_one_is_waited_for() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("auth.json");
        std::fs::create_dir(lock_path(&path)).unwrap();
        let (rx, handle) = waiter(&path);
        assert!(rx.recv_timeout(Duration::from_millis(200)).is_err());
        // Aged past the stale threshold, as a crashed holder's lock would be.
        let old = SystemTime::now() - STALE - Duration::from_secs(1);
        std::fs::File::open(lock_path(&path))
            .unwrap()
            .set_modified(old)
            .unwrap();
        rx.recv_timeout(Duration::from_secs(10)).unwrap();
        handle.join().unwrap();
    }

    #[test]
    fn an_older_pis_lock_file_is_replaced_once_nobody_holds_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("auth.json");
        let legacy = std::fs::File::create(lock_path(&path)).unwrap();
        legacy.lock().unwrap();
        let (rx, handle) = waiter(&path);
        assert!(rx.recv_timeout(Duration::from_millis(200)).is_err());
        legacy.unlock().unwrap();
        rx.recv_timeout(Duration::from_secs(10)).unwrap();
        handle.join().unwrap();
        assert!(!lock_path(&path).exists());
    }
}
