//! Getting a git or npm source: into a temporary directory for one run (`-e`), or into a
//! staging directory for an install.

use crate::source::Source;
use crate::{git, npm};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// Why a source could not be installed.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error("cannot create a temporary directory: {0}")]
    TempDir(#[source] std::io::Error),
    #[error(transparent)]
    Git(#[from] git::GitError),
    #[error(transparent)]
    Npm(#[from] npm::NpmError),
    #[error(transparent)]
    Oci(#[from] crate::oci::OciError),
    #[error(transparent)]
    Tarball(#[from] crate::tarball::TarballError),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}")]
    Component(String),
}

/// A source installed for this run: the package directory (its `pi-extension.toml` at the
/// top) inside a temporary directory that is removed when this value drops.
pub struct Installed {
    pub dir: PathBuf,
    _temp: TempDir,
}

/// A temporary directory named after the source, so that the extension host's start-up index
/// and description records (kept per package path) are reused by the next run instead of
/// piling up; a random name when that one is taken (another run of the same source).
fn temp_dir(source: &Source) -> Result<TempDir, InstallError> {
    let digest = Sha256::digest(source.to_string().as_bytes());
    let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    let stable = tempfile::Builder::new()
        .prefix(&format!("pi-extension-{hex}"))
        .rand_bytes(0)
        .tempdir();
    match stable {
        Ok(dir) => Ok(dir),
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => tempfile::Builder::new()
            .prefix("pi-extension-")
            .tempdir()
            .map_err(InstallError::TempDir),
        Err(error) => Err(InstallError::TempDir(error)),
    }
}

/// Installs a non-local source into a fresh temporary directory; `None` for a local path.
pub fn install(source: &Source) -> Result<Option<Installed>, InstallError> {
    let temp = || temp_dir(source);
    let (temp, dir) = match source {
        Source::Local(_) => return Ok(None),
        Source::Git(spec) => {
            let temp = temp()?;
            let dir = temp.path().join("repo");
            git::clone(spec, &dir)?;
            (temp, dir)
        }
        Source::Npm(_) | Source::Url(_) | Source::Oci(_) | Source::Wasm(_) => {
            let temp = temp()?;
            let (dir, _) = fetch(source, temp.path())?;
            (temp, dir)
        }
    };
    Ok(Some(Installed { dir, _temp: temp }))
}

/// Fetches a git or npm source into `into`: the package directory and what it resolved to (a
/// commit, an npm version). A git clone loses its `.git`: the install is a snapshot, hashed.
pub(crate) fn fetch(parsed: &Source, into: &Path) -> Result<(PathBuf, String), InstallError> {
    let dir = into.join("package");
    match parsed {
        Source::Git(spec) => {
            git::clone(spec, &dir)?;
            let commit = git::head(&dir)?;
            let _ = std::fs::remove_dir_all(dir.join(".git"));
            Ok((dir, commit))
        }
        Source::Npm(spec) => {
            let version = npm::install(spec, &dir)?;
            Ok((dir, version))
        }
        Source::Url(url) => {
            let bytes = npm::download(url)?;
            crate::tarball::unpack(&bytes, &dir)?;
            Ok((dir, format!("sha256:{}", hex(&Sha256::digest(&bytes)))))
        }
        Source::Oci(reference) => {
            let pulled = crate::oci::pull(&crate::oci::parse(reference)?)?;
            match pulled.artifact {
                crate::oci::Artifact::Package(bytes) => crate::tarball::unpack(&bytes, &dir)?,
                crate::oci::Artifact::Component(bytes) => {
                    let version = pulled.tag.as_deref().unwrap_or("0.0.0");
                    one_component_package(&bytes, &pulled.name, version, &dir)?;
                }
            }
            Ok((dir, pulled.digest))
        }
        Source::Wasm(path) => {
            let path = Path::new(path);
            let bytes = std::fs::read(path).map_err(|source| InstallError::Io {
                path: path.to_owned(),
                source,
            })?;
            let name = path
                .file_stem()
                .map(|s| s.to_string_lossy().replace('_', "-"))
                .unwrap_or_else(|| "component".into());
            one_component_package(&bytes, &name, "0.0.0", &dir)?;
            Ok((dir, format!("sha256:{}", hex(&Sha256::digest(&bytes)))))
        }
        Source::Local(_) => Ok((dir, String::new())),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A package of one component (`component.wasm`) with a manifest naming the world its exports
/// implement; it asks for no capabilities (nobody wrote down what it needs).
fn one_component_package(
    bytes: &[u8],
    name: &str,
    version: &str,
    dir: &Path,
) -> Result<(), InstallError> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| InstallError::Io { path, source }
    };
    let engine = pi_ext_host::engine::compiler().map_err(InstallError::Component)?;
    let (world, wit) =
        pi_ext_host::component::world_of(engine, bytes).map_err(InstallError::Component)?;
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let wasm = dir.join("component.wasm");
    std::fs::write(&wasm, bytes).map_err(io(&wasm))?;
    let version = version.trim_start_matches('v');
    let manifest = format!(
        "[package]\nname = {name:?}\nversion = {version:?}\nwit = \"{wit}\"\n\n\
         [[component]]\npath = \"component.wasm\"\nworld = \"{}\"\n",
        world.as_str()
    );
    let path = dir.join(pi_ext_host::manifest::MANIFEST_FILE);
    std::fs::write(&path, manifest).map_err(io(&path))
}
