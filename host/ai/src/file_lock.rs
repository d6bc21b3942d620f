//! A cross-process lock for read-modify-write of a config file (`auth.json`, `settings.json`).
//!
//! The lock is an exclusive advisory lock on a side file, `<file>.lock`, because the file itself
//! is replaced by rename on every write: a lock on it would be lost with the old inode.

use std::fs::File;
use std::path::{Path, PathBuf};

/// Held while a change is read, applied and written; released on drop.
#[derive(Debug)]
pub struct FileLock(File);

impl FileLock {
    /// Blocks until this process holds the lock for `path` (creating its directory and the lock
    /// file, mode 0600, when missing).
    pub fn acquire(path: &Path) -> std::io::Result<Self> {
        let lock_path = lock_path(path);
        if let Some(dir) = lock_path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(false);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let file = options.open(&lock_path)?;
        file.lock()?;
        Ok(FileLock(file))
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        let _ = self.0.unlock();
    }
}

/// The side file locked for `path`.
pub fn lock_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    path.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_waits_for_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        let first = FileLock::acquire(&path).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let waiter = {
            let path = path.clone();
            std::thread::spawn(move || {
                let _second = FileLock::acquire(&path).unwrap();
                tx.send(()).unwrap();
            })
        };
        // The waiter cannot get the lock while `first` is held: no message yet.
        assert!(
            rx.recv_timeout(std::time::Duration::from_millis(200))
                .is_err()
        );
        drop(first);
        rx.recv_timeout(std::time::Duration::from_secs(10)).unwrap();
        waiter.join().unwrap();
        assert!(lock_path(&path).exists());
    }
}
