//! The start-up index: one file in the cache dir holding, for one set of search paths, every
//! package's validated manifest (keyed by the manifest file's size, mtime, ctime and inode)
//! and the tool descriptions (or hook info) of its components. A warm start then costs one `metadata()` per
//! manifest and per tool component plus one file read, instead of reading and TOML-parsing
//! each manifest and reading one description record per component.
//!
//! Manifests and description records are kept as raw JSON text inside the index and parsed
//! only when looked up: each one is then built once, straight into the value handed out,
//! instead of being parsed with the whole file and cloned.
//!
//! The index is only an accelerator: an entry whose file changed is read the normal way and
//! replaced; an unreadable or corrupt index is ignored and rewritten; it never causes an error.

use crate::discovery::{ManifestRead, SearchPaths};
use crate::manifest::Manifest;
use crate::record::{DescriptionRecord, write_atomic};
use serde::{Deserialize, Serialize};
use serde_json::value::{RawValue, to_raw_value};
use sha2::{Digest, Sha256};
use std::collections::{HashMap, HashSet};
use std::fs::Metadata;
use std::path::{Path, PathBuf};

/// Bumped when the stored shape changes; an index of another format is ignored.
const FORMAT: u32 = 1;

/// What identifies one version of a file without reading it. The ctime and inode catch a
/// replacement that keeps size and mtime (`cp -p`, archive extraction).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct FileKey {
    size: u64,
    mtime_ns: i128,
    ctime_ns: i128,
    inode: u64,
}

impl FileKey {
    fn of(path: &Path) -> Option<FileKey> {
        std::fs::metadata(path)
            .ok()
            .map(|meta| Self::from_metadata(&meta))
    }

    #[cfg(unix)]
    fn from_metadata(meta: &Metadata) -> FileKey {
        use std::os::unix::fs::MetadataExt;
        let ns = |secs: i64, nanos: i64| i128::from(secs) * 1_000_000_000 + i128::from(nanos);
        FileKey {
            size: meta.size(),
            mtime_ns: ns(meta.mtime(), meta.mtime_nsec()),
            ctime_ns: ns(meta.ctime(), meta.ctime_nsec()),
            inode: meta.ino(),
        }
    }

    #[cfg(not(unix))]
    fn from_metadata(meta: &Metadata) -> FileKey {
        let mtime_ns = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as i128);
        FileKey {
            size: meta.len(),
            mtime_ns,
            ctime_ns: 0,
            inode: 0,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct PackageEntry {
    key: FileKey,
    /// A [`Manifest`].
    manifest: Box<RawValue>,
}

/// The stored form.
#[derive(Debug, Default, Serialize, Deserialize)]
struct IndexData {
    format: u32,
    /// By manifest path.
    packages: HashMap<PathBuf, PackageEntry>,
    /// [`DescriptionRecord`]s by component path (package dir joined with the manifest's
    /// component path).
    descriptions: HashMap<PathBuf, Box<RawValue>>,
}

/// The index of one discovery run, kept by the component cache until the host saves it.
#[derive(Debug, Default)]
pub(crate) struct StartupIndex {
    /// Where it is stored; `None` until a discovery through the host chose the file.
    file: Option<PathBuf>,
    data: IndexData,
    /// Entries loaded from the file and not (yet) confirmed by this run's discovery.
    unconfirmed: HashMap<PathBuf, PackageEntry>,
    dirty: bool,
    /// Manifests read and parsed because the index had no valid entry for them.
    pub(crate) manifest_parses: u64,
}

/// The index file of `paths` in `cache_dir`: one per set of searched places, so switching
/// between projects does not make each run invalidate the other's entries.
pub(crate) fn index_file(cache_dir: &Path, paths: &SearchPaths) -> PathBuf {
    let mut sha = Sha256::new();
    let roots = [&paths.global, &paths.project]
        .into_iter()
        .map(|p| p.as_deref())
        .chain(paths.command_line.iter().map(|p| Some(p.as_path())));
    for root in roots {
        // Tagged and length-prefixed so that two different lists never hash the same bytes.
        let bytes = root.map_or(&[][..], |p| p.as_os_str().as_encoded_bytes());
        sha.update([u8::from(root.is_some())]);
        sha.update((bytes.len() as u64).to_le_bytes());
        sha.update(bytes);
    }
    let hash: String = sha.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    cache_dir.join(format!("startup-{hash}.json"))
}

impl StartupIndex {
    /// Starts a discovery run against `file`: its entries become candidates to confirm.
    pub(crate) fn begin(&mut self, file: PathBuf) {
        let data = match std::fs::read(&file) {
            Ok(bytes) => match serde_json::from_slice::<IndexData>(&bytes) {
                Ok(data) if data.format == FORMAT => Some(data),
                Ok(_) => None,
                Err(e) => {
                    tracing::debug!(path = %file.display(), "start-up index ignored: {e}");
                    None
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(IndexData::default()),
            Err(e) => {
                tracing::debug!(path = %file.display(), "start-up index unreadable: {e}");
                None
            }
        };
        // An unusable file is rewritten even if nothing else changes.
        self.dirty = data.is_none();
        let mut data = data.unwrap_or_default();
        self.unconfirmed = std::mem::take(&mut data.packages);
        self.data = data;
        self.file = Some(file);
    }

    /// The manifest at `path`: from the index when the file's key still matches, else read
    /// with `read` and recorded.
    pub(crate) fn manifest(
        &mut self,
        path: &Path,
        read: impl FnOnce(&Path) -> ManifestRead,
    ) -> ManifestRead {
        let key = FileKey::of(path);
        let cached = self.unconfirmed.remove(path);
        if let (Some(key), Some(entry)) = (key, cached)
            && entry.key == key
            && let Ok(manifest) = serde_json::from_str::<Manifest>(entry.manifest.get())
        {
            self.data.packages.insert(path.to_owned(), entry);
            return ManifestRead::Found(Box::new(manifest));
        }
        self.manifest_parses += 1;
        let result = read(path);
        if let (Some(key), ManifestRead::Found(manifest)) = (key, &result)
            && let Ok(manifest) = to_raw_value(manifest)
        {
            let entry = PackageEntry { key, manifest };
            self.data.packages.insert(path.to_owned(), entry);
        }
        // New, changed, vanished or now invalid: the stored index is out of date.
        self.dirty = true;
        result
    }

    /// Ends the discovery run: entries not confirmed belong to removed packages.
    pub(crate) fn end_discovery(&mut self) {
        if !self.unconfirmed.is_empty() {
            self.unconfirmed.clear();
            self.dirty = true;
        }
    }

    /// The stored description record of the component at `wasm` if its fingerprint still
    /// matches.
    pub(crate) fn record(
        &self,
        wasm: &Path,
        size: u64,
        mtime_ns: u128,
    ) -> Option<DescriptionRecord> {
        let raw = self.data.descriptions.get(wasm)?;
        let record: DescriptionRecord = serde_json::from_str(raw.get()).ok()?;
        (record.size == size && record.mtime_ns == mtime_ns).then_some(record)
    }

    /// Records the descriptions of `wasm` (only while an index file is in use).
    pub(crate) fn store_descriptions(&mut self, wasm: &Path, record: &DescriptionRecord) {
        if self.file.is_none() {
            return;
        }
        let Ok(raw) = to_raw_value(record) else {
            return;
        };
        let stored = self.data.descriptions.get(wasm);
        if stored.is_none_or(|old| old.get() != raw.get()) {
            self.data.descriptions.insert(wasm.to_owned(), raw);
            self.dirty = true;
        }
    }

    /// Writes the index if anything changed (temp file + rename, so readers never see half
    /// of it). Descriptions of components no package lists any more are dropped first.
    pub(crate) fn save(&mut self) {
        let Some(file) = &self.file else { return };
        if !self.dirty {
            return;
        }
        let listed: HashSet<PathBuf> = self
            .data
            .packages
            .iter()
            .flat_map(|(path, entry)| component_paths(path, entry))
            .collect();
        self.data
            .descriptions
            .retain(|wasm, _| listed.contains(wasm));
        self.data.format = FORMAT;
        let written = serde_json::to_vec(&self.data)
            .map_err(|e| e.to_string())
            .and_then(|bytes| write_atomic(file, &bytes));
        match written {
            Ok(()) => self.dirty = false,
            Err(e) => tracing::warn!(path = %file.display(), "cannot store start-up index: {e}"),
        }
    }
}

/// Where the components of an indexed package are.
fn component_paths(manifest_path: &Path, entry: &PackageEntry) -> Vec<PathBuf> {
    let (Some(dir), Ok(manifest)) = (
        manifest_path.parent(),
        serde_json::from_str::<Manifest>(entry.manifest.get()),
    ) else {
        return Vec::new();
    };
    manifest
        .components
        .iter()
        .map(|c| dir.join(&c.path))
        .collect()
}
