//! The disk cache of compiled components, keyed by content hash + engine compatibility, and
//! the description index (tool descriptions, hook info) that lets start-up skip compilation
//! entirely.

use crate::bindings::types::ToolDefinition;
use crate::index::StartupIndex;
use crate::linkers::Linkers;
use crate::record::{DescriptionRecord, HookRecord, write_atomic};
use crate::source::ComponentSource;
pub use pi_ext_api::ToolDescription;
use pi_ext_api::hooks::HookInfo;
use sha2::{Digest, Sha256};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::UNIX_EPOCH;
use wasmtime::Engine;
use wasmtime::component::Component;

/// Compiled artifacts (`<key>.cwasm`), description records (`describe/<path-hash>.json`) and
/// the start-up index (`startup-<paths-hash>.json`, see `index.rs`).
pub struct ComponentCache {
    dir: PathBuf,
    compilations: AtomicU64,
    index: Mutex<StartupIndex>,
    /// Kept with the artifacts they link (not on disk).
    linkers: Linkers,
}

/// The host's description of a WIT tool definition (an unparsable schema becomes an empty
/// object schema, so a sloppy component still gets its tools offered).
pub(crate) fn description_of(def: &ToolDefinition) -> ToolDescription {
    ToolDescription {
        name: def.name.clone(),
        label: def.label.clone(),
        description: def.description.clone(),
        parameters: pi_ai::Schema::from_text_or_object(&def.parameters_schema),
        prompt_snippet: def.prompt_snippet.clone(),
        prompt_guidelines: def.prompt_guidelines.clone(),
        sequential: matches!(
            def.execution_mode,
            crate::bindings::types::ExecutionMode::Sequential
        ),
    }
}

fn fingerprint(path: &Path) -> Option<(u64, u128)> {
    let meta = std::fs::metadata(path).ok()?;
    let mtime = meta
        .modified()
        .ok()?
        .duration_since(UNIX_EPOCH)
        .ok()?
        .as_nanos();
    Some((meta.len(), mtime))
}

/// A loaded component and, when its compiled artifact is on disk, the artifact's key: such a
/// component can be dropped when idle and mapped again in well under a millisecond.
pub(crate) struct Cached {
    pub component: Component,
    pub key: Option<String>,
}

impl Cached {
    fn stored(component: Component, key: String) -> Self {
        Cached {
            component,
            key: Some(key),
        }
    }

    fn unstored(component: Component) -> Self {
        Cached {
            component,
            key: None,
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl ComponentCache {
    /// A cache in `dir` (created when first written).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        ComponentCache {
            dir: dir.into(),
            compilations: AtomicU64::new(0),
            index: Mutex::new(StartupIndex::default()),
            linkers: Linkers::default(),
        }
    }

    /// The linkers of the components loaded through this cache (all of one engine).
    pub(crate) fn linkers(&self) -> &Linkers {
        &self.linkers
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// How many components this cache compiled since it was created.
    pub fn compilations(&self) -> u64 {
        self.compilations.load(Ordering::Relaxed)
    }

    /// How many manifests were read and parsed because the start-up index had no valid
    /// entry for them.
    pub fn manifest_parses(&self) -> u64 {
        self.index().manifest_parses
    }

    pub(crate) fn index(&self) -> MutexGuard<'_, StartupIndex> {
        // The index is a plain value; a panic elsewhere cannot leave it half-updated in a way
        // that matters (at worst an entry is re-read), so a poisoned lock is still usable.
        self.index
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The artifact key of `bytes` for `engine`.
    pub fn key(engine: &Engine, bytes: &[u8]) -> String {
        Self::digest_key(engine, &hex(&Sha256::digest(bytes)))
    }

    /// The artifact key of a component whose SHA-256 (lowercase hex) is `sha256`.
    pub fn digest_key(engine: &Engine, sha256: &str) -> String {
        let mut compat = std::collections::hash_map::DefaultHasher::new();
        engine.precompile_compatibility_hash().hash(&mut compat);
        let mut sha = Sha256::new();
        sha.update(sha256.as_bytes());
        sha.update(compat.finish().to_le_bytes());
        hex(&sha.finalize())
    }

    /// Loads the component at `path`: from the cache when its artifact exists, else compiles
    /// it once and stores the artifact.
    pub fn load(&self, engine: &Engine, path: &Path) -> Result<Component, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read: {e}"))?;
        self.load_bytes(engine, &bytes)
    }

    /// Loads a component given as bytes: from the cache when its artifact exists, else
    /// compiles it once and stores the artifact.
    pub fn load_bytes(&self, engine: &Engine, bytes: &[u8]) -> Result<Component, String> {
        Ok(self
            .load_keyed(engine, bytes, Self::key(engine, bytes))?
            .component)
    }

    /// Loads a component from its source; says whether it can be loaded again cheaply.
    pub(crate) fn load_source(
        &self,
        engine: &Engine,
        source: &ComponentSource,
    ) -> Result<Cached, String> {
        match source {
            ComponentSource::File(path) => {
                // While the file's size and mtime are those its description record was made
                // for (the same test that lets start-up trust the record's tools), the record
                // names the artifact of these bytes: a warm load neither reads nor hashes them.
                let known = self.record(path).and_then(|record| record.artifact);
                if let Some(key) = known
                    && let Some(component) = self.reload(engine, &key)
                {
                    return Ok(Cached::stored(component, key));
                }
                let bytes = std::fs::read(path).map_err(|e| format!("cannot read: {e}"))?;
                self.load_keyed(engine, &bytes, Self::key(engine, &bytes))
            }
            // The digest was computed at build time: a warm load touches only the artifact,
            // never the embedded bytes.
            ComponentSource::Embedded { bytes, sha256, .. } => {
                self.load_keyed(engine, bytes, Self::digest_key(engine, sha256))
            }
        }
    }

    /// The stored artifact `key` again (see [`Cached::key`]); `None` if it is gone or damaged.
    pub(crate) fn reload(&self, engine: &Engine, key: &str) -> Option<Component> {
        deserialize(engine, &self.dir.join(format!("{key}.cwasm"))).ok()
    }

    fn load_keyed(&self, engine: &Engine, bytes: &[u8], key: String) -> Result<Cached, String> {
        let artifact = self.dir.join(format!("{key}.cwasm"));
        if artifact.is_file() {
            match deserialize(engine, &artifact) {
                Ok(component) => return Ok(Cached::stored(component, key)),
                // A damaged artifact is rebuilt below rather than trusted.
                Err(e) => {
                    tracing::warn!(path = %artifact.display(), "cached component unusable: {e}")
                }
            }
        }
        let compiled = crate::engine::compiler()?
            .precompile_component(bytes)
            .map_err(|e| format!("{e:#}"))?;
        self.compilations.fetch_add(1, Ordering::Relaxed);
        if let Err(e) = write_atomic(&artifact, &compiled) {
            tracing::warn!(path = %artifact.display(), "cannot store compiled component: {e}");
            return deserialize_bytes(engine, &compiled).map(Cached::unstored);
        }
        // Another thread may have replaced the artifact meanwhile; the bytes in hand are good.
        match deserialize(engine, &artifact) {
            Ok(component) => Ok(Cached::stored(component, key)),
            Err(_) => deserialize_bytes(engine, &compiled).map(Cached::unstored),
        }
    }

    fn record_path(&self, wasm: &Path) -> PathBuf {
        // Keyed by the path as given (no canonicalize: it costs a syscall per component on the
        // start-up path); size and mtime inside the record guard against stale entries.
        let mut sha = Sha256::new();
        sha.update(wasm.as_os_str().as_encoded_bytes());
        self.dir
            .join("describe")
            .join(format!("{}.json", &hex(&sha.finalize())[..32]))
    }

    /// The cached description record of `wasm`, if its size and mtime still match: from the
    /// start-up index, else from its own record file (then added to the index).
    fn record(&self, wasm: &Path) -> Option<DescriptionRecord> {
        let (size, mtime_ns) = fingerprint(wasm)?;
        if let Some(record) = self.index().record(wasm, size, mtime_ns) {
            return Some(record);
        }
        let text = std::fs::read(self.record_path(wasm)).ok()?;
        let record: DescriptionRecord = serde_json::from_slice(&text).ok()?;
        if record.size != size || record.mtime_ns != mtime_ns {
            return None;
        }
        self.index().store_descriptions(wasm, &record);
        Some(record)
    }

    /// The cached tool descriptions of `wasm`, if its size and mtime still match.
    pub fn descriptions(&self, wasm: &Path) -> Option<Vec<ToolDescription>> {
        self.record(wasm)
            .filter(|record| record.hook.is_none())
            .map(|record| record.tools)
    }

    /// The cached hook info of the hook component `wasm`, if its size and mtime still match.
    pub fn hook_info(&self, wasm: &Path) -> Option<HookInfo> {
        self.record(wasm)?.hook.map(|hook| hook.info())
    }

    /// Stores the tool descriptions of `wasm` next to the compiled artifacts, with the key of
    /// its artifact when it has one.
    pub fn store_descriptions(
        &self,
        wasm: &Path,
        tools: &[ToolDescription],
        artifact: Option<&str>,
    ) {
        self.store_record(wasm, tools.to_vec(), None, artifact);
    }

    /// Stores what the hook component `wasm` subscribes to and serves (and its artifact key).
    pub fn store_hook_info(&self, wasm: &Path, info: &HookInfo, artifact: Option<&str>) {
        self.store_record(wasm, Vec::new(), Some(HookRecord::of(info)), artifact);
    }

    fn store_record(
        &self,
        wasm: &Path,
        tools: Vec<ToolDescription>,
        hook: Option<HookRecord>,
        artifact: Option<&str>,
    ) {
        let Some((size, mtime_ns)) = fingerprint(wasm) else {
            return;
        };
        let record = DescriptionRecord {
            size,
            mtime_ns,
            tools,
            hook,
            artifact: artifact.map(str::to_owned),
        };
        self.index().store_descriptions(wasm, &record);
        let path = self.record_path(wasm);
        let written = serde_json::to_vec(&record)
            .map_err(|e| e.to_string())
            .and_then(|bytes| write_atomic(&path, &bytes));
        if let Err(e) = written {
            tracing::warn!(path = %path.display(), "cannot store the description: {e}");
        }
    }
}

#[allow(unsafe_code)]
fn deserialize(engine: &Engine, artifact: &Path) -> Result<Component, String> {
    // SAFETY: the artifact was written by `precompile_component` of pi's compiling engine
    // (same settings as `engine`, whose compatibility hash is part of the file name), into
    // pi's own cache directory, via an atomic rename, so it is never observed half-written.
    // wasmtime still checks its header and settings.
    unsafe { Component::deserialize_file(engine, artifact) }.map_err(|e| format!("{e:#}"))
}

#[allow(unsafe_code)]
fn deserialize_bytes(engine: &Engine, compiled: &[u8]) -> Result<Component, String> {
    // SAFETY: `compiled` was produced just now by `precompile_component` of pi's compiling
    // engine, whose settings match `engine`'s.
    unsafe { Component::deserialize(engine, compiled) }.map_err(|e| format!("{e:#}"))
}
