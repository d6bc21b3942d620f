//! `packages.lock.json`: the packages `pi ext install` put in a scope, what the user approved for
//! each, and the SHA-256 of every file a fetched package holds. Start-up reads it to grant a
//! package only what was approved and to refuse one whose files changed since it was installed.

use crate::manifest::Capabilities;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The lock file's name in a scope's directory (`~/.pi/agent`, `.pi`).
pub const LOCK_FILE: &str = "packages.lock.json";

/// One scope's lock file.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct LockFile {
    pub packages: Vec<LockedPackage>,
}

/// One installed package.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LockedPackage {
    /// The source as the settings' `packages` entry names it.
    pub source: String,
    pub name: String,
    pub version: String,
    /// Where it is installed (absolute); for a local folder, the folder itself.
    pub path: PathBuf,
    /// The git commit or npm version it was installed from (fetched packages).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved: Option<String>,
    /// What the user approved.
    pub approved: Capabilities,
    /// SHA-256 (hex) of each file by its `/`-separated path in the package. Empty for a local
    /// folder: that is the author's working copy, loaded as it is.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub files: BTreeMap<String, String>,
    /// Size and modification time of each file when it was hashed: a start-up that finds them
    /// unchanged does not read the file again (start-up reads no component bytes).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub stamps: BTreeMap<String, FileStamp>,
}

/// What `stat` says about a file, to tell cheaply that it did not change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileStamp {
    pub size: u64,
    pub mtime_ns: u64,
}

/// The files of a package directory: their hashes and stamps, by relative path.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PackageFiles {
    pub hashes: BTreeMap<String, String>,
    pub stamps: BTreeMap<String, FileStamp>,
}

#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: not a valid lock file: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("{path}: a symbolic link; packages hold regular files only")]
    Symlink { path: PathBuf },
    #[error(
        "{dir}: {file} {what} since it was installed; run `pi ext update {name}` (or remove and \
         install it again) to use what the source has now"
    )]
    Tampered {
        dir: PathBuf,
        name: String,
        file: String,
        what: &'static str,
    },
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> LockError + '_ {
    move |source| LockError::Io {
        path: path.to_owned(),
        source,
    }
}

impl LockFile {
    /// Reads `path`; a missing file is an empty lock.
    pub fn load(path: &Path) -> Result<LockFile, LockError> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(LockFile::default()),
            Err(e) => return Err(io_error(path)(e)),
        };
        serde_json::from_str(&text).map_err(|e| LockError::Parse {
            path: path.to_owned(),
            message: e.to_string(),
        })
    }

    /// Writes `path` through a temp file and a rename: readers see the old or the new lock.
    pub fn save(&self, path: &Path) -> Result<(), LockError> {
        let mut text = serde_json::to_string_pretty(self).map_err(|e| LockError::Parse {
            path: path.to_owned(),
            message: e.to_string(),
        })?;
        text.push('\n');
        crate::record::write_atomic(path, text.as_bytes())
            .map_err(|e| io_error(path)(std::io::Error::other(e)))
    }

    pub fn find(&self, source: &str) -> Option<&LockedPackage> {
        self.packages.iter().find(|p| p.source == source)
    }

    /// The package installed from `source` or named `name`.
    pub fn find_by_name_or_source(&self, key: &str) -> Option<&LockedPackage> {
        self.find(key)
            .or_else(|| self.packages.iter().find(|p| p.name == key))
    }

    /// Adds `package`, replacing the entry of the same source.
    pub fn upsert(&mut self, package: LockedPackage) {
        match self
            .packages
            .iter_mut()
            .find(|p| p.source == package.source)
        {
            Some(entry) => *entry = package,
            None => self.packages.push(package),
        }
    }

    pub fn remove(&mut self, source: &str) -> Option<LockedPackage> {
        let at = self.packages.iter().position(|p| p.source == source)?;
        Some(self.packages.remove(at))
    }
}

impl LockedPackage {
    /// Whether the package was fetched (git, npm, URL) and so has file hashes to check.
    pub fn fetched(&self) -> bool {
        !self.files.is_empty()
    }

    /// Checks the installed files against their hashes: a changed, missing or added file is
    /// refused, naming the file. A file whose size and modification time are as recorded is
    /// not read.
    pub fn verify(&self) -> Result<(), LockError> {
        if !self.fetched() {
            return Ok(());
        }
        let now = walk(&self.path)?;
        let tampered = |file: &str, what| LockError::Tampered {
            dir: self.path.clone(),
            name: self.name.clone(),
            file: file.to_owned(),
            what,
        };
        for (file, digest) in &self.files {
            let Some((path, stamp)) = now.get(file) else {
                return Err(tampered(file, "is missing"));
            };
            if self.stamps.get(file) == Some(stamp) {
                continue;
            }
            if &hash(path)? != digest {
                return Err(tampered(file, "changed"));
            }
        }
        if let Some(file) = now.keys().find(|f| !self.files.contains_key(*f)) {
            return Err(tampered(file, "was added"));
        }
        Ok(())
    }
}

/// Hashes and stamps of every regular file under `dir`. A symbolic link anywhere is an
/// error: it could point out of the package.
pub fn hash_files(dir: &Path) -> Result<PackageFiles, LockError> {
    let mut out = PackageFiles::default();
    for (relative, (path, stamp)) in walk(dir)? {
        out.hashes.insert(relative.clone(), hash(&path)?);
        out.stamps.insert(relative, stamp);
    }
    Ok(out)
}

fn hash(path: &Path) -> Result<String, LockError> {
    let bytes = std::fs::read(path).map_err(io_error(path))?;
    Ok(hex(&Sha256::digest(&bytes)))
}

/// Every regular file under `dir` by `/`-separated relative path, with its stamp; refuses
/// symbolic links.
fn walk(dir: &Path) -> Result<BTreeMap<String, (PathBuf, FileStamp)>, LockError> {
    let mut out = BTreeMap::new();
    // Each folder with its relative path ("" for `dir`, else ending in `/`).
    let mut stack = vec![(dir.to_owned(), String::new())];
    while let Some((at, prefix)) = stack.pop() {
        for entry in std::fs::read_dir(&at).map_err(io_error(&at))? {
            let entry = entry.map_err(io_error(&at))?;
            let kind = entry.file_type().map_err(io_error(&entry.path()))?;
            if kind.is_symlink() {
                return Err(LockError::Symlink { path: entry.path() });
            }
            let mut relative = prefix.clone();
            relative.push_str(&entry.file_name().to_string_lossy());
            if kind.is_dir() {
                relative.push('/');
                stack.push((entry.path(), relative));
                continue;
            }
            let meta = entry.metadata().map_err(io_error(&entry.path()))?;
            let mtime_ns = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
            let stamp = FileStamp {
                size: meta.len(),
                mtime_ns,
            };
            out.insert(relative, (entry.path(), stamp));
        }
    }
    Ok(out)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn locked(dir: &Path) -> LockedPackage {
        let files = hash_files(dir).unwrap();
        LockedPackage {
            source: "git:example.com/a/b@v1".into(),
            name: "b".into(),
            version: "1.0.0".into(),
            path: dir.to_owned(),
            resolved: Some("abc".into()),
            approved: Capabilities::default(),
            files: files.hashes,
            stamps: files.stamps,
        }
    }

    #[test]
    fn a_changed_missing_or_added_file_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/tool.wasm"), b"\0asm").unwrap();
        std::fs::write(dir.path().join("pi-extension.toml"), b"x").unwrap();
        let package = locked(dir.path());
        assert_eq!(
            package.files.keys().collect::<Vec<_>>(),
            ["pi-extension.toml", "sub/tool.wasm"]
        );
        package.verify().unwrap();
        // Same size; the modification time may even be unchanged (a coarse clock): the stamp
        // is recorded as a different one so the content is what decides.
        std::fs::write(dir.path().join("sub/tool.wasm"), b"\0asn").unwrap();
        let mut stale = package.clone();
        stale.stamps.clear();
        assert!(
            stale
                .verify()
                .unwrap_err()
                .to_string()
                .contains("sub/tool.wasm changed")
        );
        let error = stale.verify().unwrap_err().to_string();
        assert!(error.contains("sub/tool.wasm changed"), "{error}");
        assert!(error.contains("pi ext update b"), "{error}");
        std::fs::remove_file(dir.path().join("sub/tool.wasm")).unwrap();
        assert!(
            package
                .verify()
                .unwrap_err()
                .to_string()
                .contains("is missing")
        );
        std::fs::write(dir.path().join("sub/tool.wasm"), b"\0asm").unwrap();
        std::fs::write(dir.path().join("extra.wasm"), b"").unwrap();
        assert!(
            package
                .verify()
                .unwrap_err()
                .to_string()
                .contains("extra.wasm was added")
        );
    }

    #[test]
    fn a_symlink_in_a_package_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink("/etc/passwd", dir.path().join("leak")).unwrap();
        assert!(matches!(
            hash_files(dir.path()),
            Err(LockError::Symlink { .. })
        ));
    }

    #[test]
    fn what_a_manifest_asks_beyond_the_approval_is_named() {
        use crate::manifest::FsAccess;
        let approved = Capabilities {
            filesystem: FsAccess::Read,
            network: vec!["api.example.com".into()],
            ..Capabilities::default()
        };
        let mut asks = approved.clone();
        assert!(asks.beyond(&approved).is_empty());
        asks.filesystem = FsAccess::Write;
        asks.network.push("evil.example.com".into());
        asks.process = true;
        assert_eq!(
            asks.beyond(&approved),
            [
                "read and write files in the working directory",
                "reach these hosts: evil.example.com",
                "run processes"
            ]
        );
        // Asking for less than approved is covered.
        assert!(Capabilities::default().beyond(&approved).is_empty());
    }

    #[test]
    fn the_lock_round_trips_and_replaces_by_source() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(LOCK_FILE);
        let mut lock = LockFile::load(&path).unwrap();
        assert!(lock.packages.is_empty());
        let mut package = locked(dir.path());
        lock.upsert(package.clone());
        package.version = "2.0.0".into();
        lock.upsert(package.clone());
        lock.save(&path).unwrap();
        let again = LockFile::load(&path).unwrap();
        assert_eq!(again.packages, [package]);
        assert_eq!(again.find_by_name_or_source("b").unwrap().version, "2.0.0");
        std::fs::write(&path, "{").unwrap();
        assert!(matches!(
            LockFile::load(&path),
            Err(LockError::Parse { .. })
        ));
    }
}
