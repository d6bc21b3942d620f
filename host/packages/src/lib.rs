//! pi-packages: `pi ext install|remove|list|info`. A package comes from a local folder (loaded
//! in place), git, npm or the URL of a `.tar.gz`; it is validated (manifest, every component against its world, which
//! also precompiles it into the component cache) before anything is written, the user approves
//! what it asks for, and the approval is recorded in the scope's lock file with a hash of every
//! fetched file. Start-up (pi-app) grants a package only what was approved.
//!
//! A fetched package goes into a fresh directory `<scope>/packages/<name>/<id>`; the lock file's
//! rename is the commit point, so an install that fails, is interrupted or killed at any step
//! leaves the previous install in use. Old directories are removed after the commit.

pub mod fetch;
mod git;
mod npm;
pub mod oci;
mod runtime;
pub mod scope;
pub mod source;
mod tarball;

use fetch::{InstallError, fetch};
use pi_ext_host::lockfile::{LockError, LockFile, LockedPackage, hash_files};
use pi_ext_host::{Capabilities, ExtensionHost, Grant, Manifest, ManifestError};
use scope::Scope;
use source::{Source, SourceError};
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(Debug, thiserror::Error)]
pub enum PackageError {
    #[error("invalid source \"{arg}\": {error}")]
    Source { arg: String, error: SourceError },
    #[error("cannot fetch {arg}: {error}")]
    Fetch { arg: String, error: InstallError },
    #[error("{0} is not a directory")]
    NotADirectory(PathBuf),
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    #[error("{path}: {message}")]
    Component { path: PathBuf, message: String },
    #[error(transparent)]
    Lock(#[from] LockError),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}")]
    Settings(String),
    #[error("not installed: {0} (see `pi ext list`)")]
    NotInstalled(String),
    #[error("not installed: {0}")]
    Refused(String),
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> PackageError + '_ {
    move |source| PackageError::Io {
        path: path.to_owned(),
        source,
    }
}

/// What the user is asked to approve.
pub struct ConsentRequest<'a> {
    pub manifest: &'a Manifest,
    pub source: &'a str,
    /// What it asks for, in plain words (empty: nothing).
    pub asks: Vec<String>,
}

/// The user's answer: the capabilities approved (normally all it asks for), or a refusal.
pub type Consent<'a> = dyn FnMut(&ConsentRequest) -> Result<Capabilities, String> + 'a;

/// A finished install.
#[derive(Debug, Clone)]
pub struct Installed {
    pub package: LockedPackage,
    pub scope: Scope,
    /// Whether an earlier install of the same source was replaced.
    pub replaced: bool,
}

/// Installs `arg` into `scope`: fetch, validate, ask `consent`, commit.
pub fn install(
    arg: &str,
    scope: &Scope,
    cwd: &Path,
    agent_dir: &Path,
    consent: &mut Consent,
) -> Result<Installed, PackageError> {
    let parsed = match source::parse(arg) {
        // Recorded absolute, so `update` finds it from anywhere.
        Ok(Source::Wasm(path)) => Source::Wasm(cwd.join(path).to_string_lossy().into_owned()),
        Ok(parsed) => parsed,
        Err(error) => {
            return Err(PackageError::Source {
                arg: arg.to_owned(),
                error,
            });
        }
    };
    let Staged {
        dir,
        recorded,
        resolved,
        fetched,
    } = stage(&parsed, arg, scope, cwd)?;
    let manifest = validate(&dir, agent_dir)?;
    let asks = manifest.capabilities.plain_words();
    // A folder is shown where it is, not as the settings record it (relative to them).
    let shown = match &parsed {
        Source::Local(_) => dir.display().to_string(),
        _ => recorded.clone(),
    };
    let approved = consent(&ConsentRequest {
        manifest: &manifest,
        source: &shown,
        asks,
    })
    .map_err(PackageError::Refused)?;
    let refused = manifest.capabilities.beyond(&approved);
    if !refused.is_empty() {
        return Err(PackageError::Refused(format!(
            "{} asks for more than was granted: {}",
            manifest.name,
            refused.join("; ")
        )));
    }
    let (path, files) = match fetched {
        None => (dir, pi_ext_host::lockfile::PackageFiles::default()),
        Some(temp) => place(&dir, temp, &manifest, scope)?,
    };
    let package = LockedPackage {
        source: recorded,
        name: manifest.name.clone(),
        version: manifest.version.clone(),
        path,
        resolved,
        approved,
        files: files.hashes,
        stamps: files.stamps,
    };
    // Recorded where no extension reaches before the lock names it: a project lock entry counts
    // only when this record agrees with it (`pi_ext_host::approvals`).
    pi_ext_host::approvals::Approvals::record(agent_dir, package.clone())?;
    let replaced = commit(scope, package.clone())?;
    Ok(Installed {
        package,
        scope: scope.clone(),
        replaced,
    })
}

/// A package ready to be validated: where it is now, how the settings will name it, what it
/// resolved to, and (when fetched) the staging directory holding it.
struct Staged {
    dir: PathBuf,
    recorded: String,
    resolved: Option<String>,
    fetched: Option<tempfile::TempDir>,
}

/// A folder is used where it is; anything else is fetched into a fresh staging directory
/// (removed when it drops, whatever happens next).
fn stage(parsed: &Source, arg: &str, scope: &Scope, cwd: &Path) -> Result<Staged, PackageError> {
    if let Source::Local(path) = parsed {
        let dir = pi_session::paths::expand_tilde(path);
        let dir = if dir.is_absolute() {
            dir
        } else {
            cwd.join(dir)
        };
        let dir = std::fs::canonicalize(&dir).map_err(io_error(&dir))?;
        if !dir.is_dir() {
            return Err(PackageError::NotADirectory(dir));
        }
        return Ok(Staged {
            recorded: scope.record_local(&dir),
            dir,
            resolved: None,
            fetched: None,
        });
    }
    let staging = scope.staging_dir();
    std::fs::create_dir_all(&staging).map_err(io_error(&staging))?;
    let temp = tempfile::Builder::new()
        .prefix("fetch-")
        .tempdir_in(&staging)
        .map_err(io_error(&staging))?;
    let (dir, resolved) = fetch(parsed, temp.path()).map_err(|error| PackageError::Fetch {
        arg: arg.to_owned(),
        error,
    })?;
    Ok(Staged {
        dir,
        recorded: parsed.to_string(),
        resolved: Some(resolved),
        fetched: Some(temp),
    })
}

/// Hashes a fetched package and moves it from staging into a directory of its own, which no
/// lock entry names yet (the commit does).
fn place(
    dir: &Path,
    temp: tempfile::TempDir,
    manifest: &Manifest,
    scope: &Scope,
) -> Result<(PathBuf, pi_ext_host::lockfile::PackageFiles), PackageError> {
    let files = hash_files(dir)?;
    let parent = scope.packages_dir().join(&manifest.name);
    let final_dir = parent.join(format!("{}-{}", manifest.version, fastrand::u64(..)));
    std::fs::create_dir_all(&parent).map_err(io_error(&parent))?;
    std::fs::rename(dir, &final_dir).map_err(io_error(&final_dir))?;
    drop(temp);
    Ok((final_dir, files))
}

/// The manifest of the package in `dir`, after every component was loaded against its world
/// under the manifest's own capabilities (which compiles it into the component cache, so the
/// first run after the install starts warm).
pub fn validate(dir: &Path, agent_dir: &Path) -> Result<Manifest, PackageError> {
    let manifest = Manifest::load(dir)?;
    let host =
        ExtensionHost::new(pi_app::startup::component_cache_dir(agent_dir)).map_err(|message| {
            PackageError::Component {
                path: dir.to_owned(),
                message,
            }
        })?;
    let extension = Arc::new(pi_ext_host::ExtensionId {
        name: manifest.name.clone(),
        version: manifest.version.clone(),
    });
    let grant = Arc::new(Grant::from_capabilities(&manifest.capabilities, dir));
    for entry in &manifest.components {
        let path = dir.join(&entry.path);
        let component = host.component(
            extension.clone(),
            path.clone(),
            entry.world,
            manifest.wit,
            grant.clone(),
        );
        component.get().map_err(|error| PackageError::Component {
            path: path.clone(),
            message: error.to_string(),
        })?;
    }
    Ok(manifest)
}

/// `pi ext publish`: validates the package in `dir` and pushes it to the OCI registry
/// `target` names (`oci://registry/repository:tag`); returns its manifest and the digest.
pub fn publish(
    dir: &Path,
    target: &str,
    agent_dir: &Path,
) -> Result<(Manifest, String), PackageError> {
    let reference = target
        .strip_prefix("oci://")
        .ok_or_else(|| {
            PackageError::Settings(format!("{target}: expected oci://registry/repository:tag"))
        })
        .and_then(|r| oci::parse(r).map_err(|e| PackageError::Settings(e.to_string())))?;
    let manifest = validate(dir, agent_dir)?;
    // Refuses symbolic links, which an install would refuse anyway; a repository's `.git` is
    // the author's, not the package's.
    let files: Vec<String> = hash_files(dir)?
        .hashes
        .into_keys()
        .filter(|f| !f.starts_with(".git/"))
        .collect();
    let tarball = pack(dir, &files).map_err(io_error(dir))?;
    let config = serde_json::json!({
        "name": manifest.name,
        "version": manifest.version,
        "description": manifest.description,
        "wit": manifest.wit,
    });
    let digest = oci::push(&reference, tarball, config.to_string().into_bytes())
        .map_err(|e| PackageError::Settings(e.to_string()))?;
    Ok((manifest, digest))
}

/// `files` of the package in `dir` as a gzipped tar under `package/` (npm's layout, which
/// every tarball source unpacks).
fn pack(dir: &Path, files: &[String]) -> std::io::Result<Vec<u8>> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let mut builder = tar::Builder::new(gz);
    for file in files {
        builder.append_path_with_name(dir.join(file), format!("package/{file}"))?;
    }
    builder.into_inner()?.finish()
}

/// Records `package` in the scope's lock file and settings (under the lock file's lock), then
/// removes the directory of the install it replaced. Returns whether one was replaced.
fn commit(scope: &Scope, package: LockedPackage) -> Result<bool, PackageError> {
    let lock_path = scope.lock_file();
    let _guard = pi_ai::file_lock::FileLock::acquire(&lock_path).map_err(io_error(&lock_path))?;
    let mut lock = LockFile::load(&lock_path)?;
    let previous = lock.find(&package.source).cloned();
    let source = package.source.clone();
    lock.upsert(package.clone());
    lock.save(&lock_path)?;
    scope.add_to_settings(&source)?;
    if let Some(old) = &previous
        && old.fetched()
        && old.path != package.path
    {
        remove_install_dir(scope, &old.path);
    }
    collect_garbage(scope, &lock);
    Ok(previous.is_some())
}

/// How old a directory no lock entry names must be before it is removed: younger ones may be
/// another install's, between its move into place and its commit.
const GARBAGE_AGE: std::time::Duration = std::time::Duration::from_secs(3600);

/// Removes what killed installs left: fetches in the staging dir and install directories no
/// lock entry names, once they are older than [`GARBAGE_AGE`]. Called under the lock.
fn collect_garbage(scope: &Scope, lock: &LockFile) {
    let old = |path: &Path| {
        std::fs::metadata(path)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > GARBAGE_AGE)
    };
    let children = |dir: &Path| -> Vec<PathBuf> {
        std::fs::read_dir(dir)
            .map(|entries| entries.flatten().map(|e| e.path()).collect())
            .unwrap_or_default()
    };
    let packages = scope.packages_dir();
    for name_dir in children(&packages) {
        for install in children(&name_dir) {
            let named = lock.packages.iter().any(|p| p.path == install);
            if !named && old(&install) {
                remove_install_dir(scope, &install);
            }
        }
    }
}

/// Removes the package named `key` (a name or a source) from `scope`.
pub fn remove(key: &str, scope: &Scope) -> Result<LockedPackage, PackageError> {
    let lock_path = scope.lock_file();
    let _guard = pi_ai::file_lock::FileLock::acquire(&lock_path).map_err(io_error(&lock_path))?;
    let mut lock = LockFile::load(&lock_path)?;
    let source = lock
        .find_by_name_or_source(key)
        .map(|p| p.source.clone())
        .ok_or_else(|| PackageError::NotInstalled(key.to_owned()))?;
    let removed = lock
        .remove(&source)
        .ok_or_else(|| PackageError::NotInstalled(key.to_owned()))?;
    lock.save(&lock_path)?;
    scope.remove_from_settings(&source)?;
    if removed.fetched() {
        remove_install_dir(scope, &removed.path);
    }
    Ok(removed)
}

/// Deletes an install directory, but only one inside the scope's packages dir (never a local
/// folder, never anything a hand-edited lock file points at).
fn remove_install_dir(scope: &Scope, dir: &Path) {
    if dir.starts_with(scope.packages_dir())
        && let Err(error) = std::fs::remove_dir_all(dir)
    {
        tracing::warn!("cannot remove {}: {error}", dir.display());
    }
}

/// The installed packages of `scope`.
pub fn list(scope: &Scope) -> Result<Vec<LockedPackage>, PackageError> {
    Ok(LockFile::load(&scope.lock_file())?.packages)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn aged(path: &Path) {
        std::fs::create_dir_all(path).unwrap();
        let two_hours = std::time::SystemTime::now() - 2 * GARBAGE_AGE;
        std::fs::File::open(path)
            .unwrap()
            .set_modified(two_hours)
            .unwrap();
    }

    #[test]
    fn leftovers_of_killed_installs_go_once_old_and_unnamed() {
        let dir = tempfile::tempdir().unwrap();
        let scope = Scope::user(dir.path());
        let packages = scope.packages_dir();
        let named = packages.join("a/1.0.0-1");
        for path in [
            &named,
            &packages.join("a/1.0.0-2"),
            &scope.staging_dir().join("fetch-x"),
        ] {
            aged(path);
        }
        let young = packages.join("a/1.0.0-3");
        std::fs::create_dir_all(&young).unwrap();
        let lock = LockFile {
            packages: vec![LockedPackage {
                source: "git:h/o/a".into(),
                name: "a".into(),
                version: "1.0.0".into(),
                path: named.clone(),
                resolved: None,
                approved: Capabilities::default(),
                files: [("x".to_owned(), "y".to_owned())].into(),
                stamps: Default::default(),
            }],
        };
        collect_garbage(&scope, &lock);
        assert!(named.exists());
        assert!(young.exists());
        assert!(!packages.join("a/1.0.0-2").exists());
        assert!(!scope.staging_dir().join("fetch-x").exists());
    }
}
