//! `<agentDir>/package-approvals.json`: what the user approved, package by package, kept where no
//! extension reaches (the agent directory is protected, see [`crate::protected`]).
//!
//! A project's `.pi/` is the workspace's: a write-granted extension, a script or a `git pull`
//! can change it. So a package found there — placed by hand in `.pi/extensions`, or named by
//! `.pi/packages.lock.json` — is taken at its word only when this record agrees:
//! - a package placed by hand (a global or project `extensions/` folder, the settings'
//!   `extensions` list) gets capabilities only once `pi ext approve` recorded them with the hash
//!   of every file, and only while its files still have those hashes;
//! - a project lock entry is used only when `pi ext install` recorded the same entry here (same
//!   source, path, approved capabilities and files): a forged entry has no record.
//!
//! Each record has the lock file's shape ([`LockedPackage`]), keyed by the package's path.

use crate::lockfile::{LockError, LockedPackage};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The record's file name in the agent directory.
pub const APPROVALS_FILE: &str = "package-approvals.json";

/// Every approval the user gave on this machine.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Approvals {
    pub packages: Vec<LockedPackage>,
}

impl Approvals {
    /// Reads the record of `agent_dir`; a missing file holds no approval.
    pub fn load(agent_dir: &Path) -> Result<Approvals, LockError> {
        let path = agent_dir.join(APPROVALS_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Approvals::default()),
            Err(source) => return Err(LockError::Io { path, source }),
        };
        serde_json::from_str(&text).map_err(|e| LockError::Parse {
            path,
            message: e.to_string(),
        })
    }

    /// Adds `package` to the record of `agent_dir` (replacing the one of the same path), under
    /// the agent directory's file lock so that two installs never lose each other's record.
    pub fn record(agent_dir: &Path, package: LockedPackage) -> Result<(), LockError> {
        Self::change(agent_dir, |approvals| {
            approvals.packages.retain(|p| p.path != package.path);
            approvals.packages.push(package);
        })
    }

    /// Removes the approval of the package at `path`, if any.
    pub fn forget(agent_dir: &Path, path: &Path) -> Result<(), LockError> {
        Self::change(agent_dir, |approvals| {
            approvals.packages.retain(|p| p.path != path);
        })
    }

    fn change(agent_dir: &Path, edit: impl FnOnce(&mut Approvals)) -> Result<(), LockError> {
        let path = agent_dir.join(APPROVALS_FILE);
        let io = |source| LockError::Io {
            path: path.clone(),
            source,
        };
        let _guard = pi_ai::file_lock::FileLock::acquire(&path).map_err(io)?;
        let mut approvals = Self::load(agent_dir)?;
        edit(&mut approvals);
        let mut text = serde_json::to_string_pretty(&approvals).map_err(|e| LockError::Parse {
            path: path.clone(),
            message: e.to_string(),
        })?;
        text.push('\n');
        crate::record::write_atomic(&path, text.as_bytes())
            .map_err(|e| io(std::io::Error::other(e)))
    }

    /// The approval of the package at `dir`.
    pub fn of(&self, dir: &Path) -> Option<&LockedPackage> {
        self.packages.iter().find(|p| p.path == dir)
    }

    /// Whether `entry` (a lock file's) is what `pi ext install` recorded: same source, path,
    /// version, approved capabilities and file hashes.
    pub fn vouches_for(&self, entry: &LockedPackage) -> bool {
        self.of(&entry.path).is_some_and(|recorded| {
            recorded.source == entry.source
                && recorded.name == entry.name
                && recorded.version == entry.version
                && recorded.approved == entry.approved
                && recorded.files == entry.files
        })
    }

    /// What the package placed by hand at `dir`, whose manifest asks for `asks`, may use: the
    /// approved capabilities when its files are as approved and it asks for no more, else why not.
    pub fn grant_for(
        &self,
        dir: &Path,
        asks: &crate::Capabilities,
    ) -> Result<crate::Capabilities, Unapproved> {
        let Some(recorded) = self.of(dir) else {
            return Err(Unapproved::Never);
        };
        match recorded.verify() {
            Ok(()) => {}
            Err(LockError::Tampered { file, what, .. }) => {
                return Err(Unapproved::Changed(format!("{file} {what}")));
            }
            Err(error) => return Err(Unapproved::Changed(error.to_string())),
        }
        let beyond = asks.beyond(&recorded.approved);
        if !beyond.is_empty() {
            return Err(Unapproved::AsksMore(beyond));
        }
        Ok(asks.clone())
    }
}

/// Why a package placed by hand runs without capabilities.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unapproved {
    /// `pi ext approve` was never run for it.
    Never,
    /// Its files changed since it was approved.
    Changed(String),
    /// Its manifest asks for more than was approved (in plain words).
    AsksMore(Vec<String>),
}

impl std::fmt::Display for Unapproved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unapproved::Never => f.write_str("it was never approved"),
            Unapproved::Changed(why) => {
                write!(f, "its files changed since it was approved ({why})")
            }
            Unapproved::AsksMore(more) => write!(
                f,
                "it asks for more than was approved ({})",
                more.join("; ")
            ),
        }
    }
}

/// The record of the package at `dir` as the user approves it now: every file's hash, the
/// capabilities approved.
pub fn approval_of(
    dir: &Path,
    manifest: &crate::Manifest,
    source: &str,
    approved: crate::Capabilities,
) -> Result<LockedPackage, LockError> {
    let files = crate::lockfile::hash_files(dir)?;
    Ok(LockedPackage {
        source: source.to_owned(),
        name: manifest.name.clone(),
        version: manifest.version.clone(),
        path: canonical_dir(dir),
        resolved: None,
        approved,
        files: files.hashes,
        stamps: files.stamps,
    })
}

/// `dir` as records name it (resolved links), so that lookups agree with discovery.
pub fn canonical_dir(dir: &Path) -> PathBuf {
    std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::manifest::FsAccess;
    use crate::{Capabilities, Manifest};

    fn package(dir: &Path, asks: &str) -> Manifest {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(
            dir.join("pi-extension.toml"),
            format!(
                "[package]\nname = \"p\"\nversion = \"1.0.0\"\nwit = \"0.3.0\"\n\n[[component]]\npath = \
                 \"t.wasm\"\nworld = \"tool\"\n\n[capabilities]\n{asks}\n"
            ),
        )
        .unwrap();
        std::fs::write(dir.join("t.wasm"), b"\0asm").unwrap();
        Manifest::load(dir).unwrap()
    }

    #[test]
    fn a_package_placed_by_hand_gets_what_was_approved_while_it_stays_as_approved() {
        let tmp = tempfile::tempdir().unwrap();
        let (agent, dir) = (tmp.path().join("agent"), tmp.path().join("pkg"));
        let manifest = package(&dir, "filesystem = \"read\"");
        let asks = manifest.capabilities.clone();
        let none = Approvals::load(&agent).unwrap();
        assert_eq!(
            none.grant_for(&canonical_dir(&dir), &asks),
            Err(Unapproved::Never)
        );
        let approval = approval_of(&dir, &manifest, "placed by hand", asks.clone()).unwrap();
        Approvals::record(&agent, approval).unwrap();
        let approvals = Approvals::load(&agent).unwrap();
        assert_eq!(
            approvals.grant_for(&canonical_dir(&dir), &asks),
            Ok(asks.clone())
        );
        // Asking for more.
        let more = Capabilities {
            filesystem: FsAccess::Write,
            ..asks.clone()
        };
        assert!(matches!(
            approvals.grant_for(&canonical_dir(&dir), &more),
            Err(Unapproved::AsksMore(_))
        ));
        // A component replaced under the same manifest.
        std::fs::write(dir.join("t.wasm"), b"\0asm\x01").unwrap();
        assert!(matches!(
            approvals.grant_for(&canonical_dir(&dir), &asks),
            Err(Unapproved::Changed(_))
        ));
        Approvals::forget(&agent, &canonical_dir(&dir)).unwrap();
        assert!(Approvals::load(&agent).unwrap().packages.is_empty());
    }

    #[test]
    fn only_the_lock_entry_that_was_recorded_is_vouched_for() {
        let tmp = tempfile::tempdir().unwrap();
        let (agent, dir) = (tmp.path().join("agent"), tmp.path().join("pkg"));
        let manifest = package(&dir, "");
        let entry = approval_of(
            &dir,
            &manifest,
            "git:example.com/a/p",
            Capabilities::default(),
        )
        .unwrap();
        Approvals::record(&agent, entry.clone()).unwrap();
        let approvals = Approvals::load(&agent).unwrap();
        assert!(approvals.vouches_for(&entry));
        let mut forged = entry.clone();
        forged.approved.process = true;
        assert!(!approvals.vouches_for(&forged));
        let mut elsewhere = entry;
        elsewhere.path = tmp.path().join("other");
        assert!(!approvals.vouches_for(&elsewhere));
    }
}
