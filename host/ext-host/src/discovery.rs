//! Finding extension packages: the global dir (`~/.pi/agent/extensions/`), the trusted
//! project dir (`.pi/extensions/`) and `-e <path>` arguments. Only manifests are read here.

use crate::manifest::{MANIFEST_FILE, Manifest, ManifestError};
use std::path::{Path, PathBuf};

/// Where a package was found. Later sources win when two packages share a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ExtensionSource {
    Global,
    Project,
    CommandLine,
}

/// Where to look; the caller resolves paths, trust and settings.
#[derive(Debug, Clone, Default)]
pub struct SearchPaths {
    /// The global extensions dir, e.g. `~/.pi/agent/extensions`.
    pub global: Option<PathBuf>,
    /// The project's `.pi/extensions`, only when the project is trusted.
    pub project: Option<PathBuf>,
    /// Package directories given with `-e`.
    pub command_line: Vec<PathBuf>,
    /// Package names disabled in settings.
    pub disabled: Vec<String>,
}

/// A package whose manifest is valid.
#[derive(Debug, Clone, PartialEq)]
pub struct DiscoveredExtension {
    pub dir: PathBuf,
    pub manifest: Manifest,
    pub source: ExtensionSource,
}

fn packages_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    // The entry type comes with the directory listing; whether a manifest exists is learnt
    // by reading it (one syscall fewer per package on the start-up path).
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir() || t.is_symlink()))
        .map(|e| e.path())
        .collect();
    dirs.sort();
    dirs
}

/// How reading one manifest went.
pub(crate) enum ManifestRead {
    Found(Box<Manifest>),
    /// The file does not exist: in an extensions dir, that folder is not a package.
    Missing(ManifestError),
    Failed(ManifestError),
}

/// Reads and validates the manifest at `path`.
pub(crate) fn read_manifest(path: &Path) -> ManifestRead {
    match std::fs::read_to_string(path) {
        Ok(text) => match Manifest::parse(&text, path) {
            Ok(manifest) => ManifestRead::Found(Box::new(manifest)),
            Err(e) => ManifestRead::Failed(e),
        },
        Err(e) => {
            let missing = e.kind() == std::io::ErrorKind::NotFound;
            let error = ManifestError::Read {
                path: path.to_owned(),
                reason: e.to_string(),
            };
            if missing {
                ManifestRead::Missing(error)
            } else {
                ManifestRead::Failed(error)
            }
        }
    }
}

/// Reads every manifest. Invalid ones are returned as errors and skipped; a name found in a
/// later source replaces the earlier one; disabled names are dropped.
pub fn discover(paths: &SearchPaths) -> (Vec<DiscoveredExtension>, Vec<ManifestError>) {
    discover_with(paths, read_manifest)
}

fn candidates(paths: &SearchPaths) -> Vec<(PathBuf, ExtensionSource)> {
    let mut candidates: Vec<(PathBuf, ExtensionSource)> = Vec::new();
    if let Some(global) = &paths.global {
        candidates.extend(
            packages_in(global)
                .into_iter()
                .map(|d| (d, ExtensionSource::Global)),
        );
    }
    if let Some(project) = &paths.project {
        candidates.extend(
            packages_in(project)
                .into_iter()
                .map(|d| (d, ExtensionSource::Project)),
        );
    }
    candidates.extend(
        paths
            .command_line
            .iter()
            .map(|d| (d.clone(), ExtensionSource::CommandLine)),
    );
    candidates
}

/// [`discover`] with the manifest reader given: the extension host passes one that answers
/// from its start-up index when the file did not change.
pub(crate) fn discover_with(
    paths: &SearchPaths,
    mut read: impl FnMut(&Path) -> ManifestRead,
) -> (Vec<DiscoveredExtension>, Vec<ManifestError>) {
    let mut found: Vec<DiscoveredExtension> = Vec::new();
    let mut errors = Vec::new();
    for (dir, source) in candidates(paths) {
        let manifest = match read(&dir.join(MANIFEST_FILE)) {
            ManifestRead::Found(manifest) => *manifest,
            ManifestRead::Missing(_) if source != ExtensionSource::CommandLine => continue,
            ManifestRead::Missing(e) | ManifestRead::Failed(e) => {
                errors.push(e);
                continue;
            }
        };
        if paths.disabled.contains(&manifest.name) {
            continue;
        }
        found.retain(|e| e.manifest.name != manifest.name);
        found.push(DiscoveredExtension {
            dir,
            manifest,
            source,
        });
    }
    (found, errors)
}
