//! A loaded component: checked against its declared world and its grant, linked once into an
//! `InstancePre`, instantiated in a fresh store for every call.

use crate::bindings::Optional;
pub(crate) use crate::bindings::Pre;
use crate::cache::{Cached, ComponentCache};
use crate::clock::Interrupt;
use crate::engine::new_store;
use crate::error::{Cause, ExtensionError, ExtensionId};
use crate::grant::Grant;
use crate::linkers::Linkers;
use crate::manifest::{WitVersion, World};
pub use crate::source::ComponentSource;
use crate::state::{CallContext, HostState};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use wasmtime::component::{Component, Linker};
use wasmtime::{Engine, Store, Trap};

/// A component ready to be called.
pub struct LoadedComponent {
    pub extension: Arc<ExtensionId>,
    pub world: World,
    /// The WIT version it was built against (its manifest's `wit`).
    pub wit: WitVersion,
    pub path: PathBuf,
    pub grant: Arc<Grant>,
    engine: Engine,
    pub(crate) pre: Pre,
    temp_dir: Option<Arc<TempDir>>,
    /// The key of the compiled artifact on disk, when there is one.
    artifact: Option<String>,
}

/// What linking a component uses that outlives one load: the temp directory of its previous
/// load (its files last the session) and the host's linkers.
struct Reuse<'a> {
    temp_dir: Option<Arc<TempDir>>,
    linkers: &'a Linkers,
}

/// A component that is loaded on first use (start-up reads only manifests and cached
/// descriptions). A failed load is remembered: the same error comes back on every use.
///
/// The loaded component stays in memory only while calls hold it: its compiled code is a
/// private mapping of a few MB, and mapping the cached artifact again costs a fraction of a
/// millisecond, so an idle extension costs nothing. A component whose artifact could not be
/// stored (read-only cache) is kept, since loading it again would mean compiling again.
pub struct LazyComponent {
    engine: Engine,
    cache: Arc<ComponentCache>,
    pub extension: Arc<ExtensionId>,
    source: ComponentSource,
    path: PathBuf,
    pub world: World,
    pub wit: WitVersion,
    pub grant: Arc<Grant>,
    slot: Mutex<Slot>,
    loads: AtomicU64,
}

#[derive(Default)]
struct Slot {
    failed: Option<ExtensionError>,
    resident: Weak<LoadedComponent>,
    /// Kept alive when the component cannot be loaded again cheaply.
    pinned: Option<Arc<LoadedComponent>>,
    /// The key of the stored artifact once the component was loaded.
    artifact: Option<String>,
    /// The temp directory of the previous load.
    temp_dir: Option<Arc<TempDir>>,
}

impl LazyComponent {
    pub fn new(
        engine: Engine,
        cache: Arc<ComponentCache>,
        extension: Arc<ExtensionId>,
        path: PathBuf,
        world: World,
        wit: WitVersion,
        grant: Arc<Grant>,
    ) -> Self {
        Self::from_source(
            engine,
            cache,
            extension,
            ComponentSource::File(path),
            world,
            wit,
            grant,
        )
    }

    /// A component from any source (e.g. bytes embedded in the binary).
    pub fn from_source(
        engine: Engine,
        cache: Arc<ComponentCache>,
        extension: Arc<ExtensionId>,
        source: ComponentSource,
        world: World,
        wit: WitVersion,
        grant: Arc<Grant>,
    ) -> Self {
        LazyComponent {
            engine,
            cache,
            extension,
            path: source.display_path(),
            source,
            world,
            wit,
            grant,
            slot: Mutex::new(Slot::default()),
            loads: AtomicU64::new(0),
        }
    }

    /// The same component under another grant (plan mode's read-only one), loaded on its
    /// own first use: nothing loaded under this one's grant is shared with it.
    pub fn with_grant(&self, grant: Arc<Grant>) -> Self {
        Self::from_source(
            self.engine.clone(),
            Arc::clone(&self.cache),
            Arc::clone(&self.extension),
            self.source.clone(),
            self.world,
            self.wit,
            grant,
        )
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How many times the component was loaded (mapped from the cache or compiled).
    pub fn loads(&self) -> u64 {
        self.loads.load(Ordering::Relaxed)
    }

    /// Whether the component is in memory now (a call holds it, or it is pinned).
    pub fn is_resident(&self) -> bool {
        self.lock().resident.strong_count() > 0
    }

    /// The loaded component (loads it now if needed; may compile on a cold cache). Keep the
    /// `Arc` for the length of a call, not longer: dropping the last one unloads it.
    pub fn get(&self) -> Result<Arc<LoadedComponent>, ExtensionError> {
        // Held while loading: parallel first calls wait for one load instead of each compiling.
        let mut slot = self.lock();
        if let Some(error) = &slot.failed {
            return Err(error.clone());
        }
        if let Some(loaded) = slot.resident.upgrade() {
            return Ok(loaded);
        }
        let loaded = match self.load(&slot) {
            Ok(loaded) => Arc::new(loaded),
            Err(error) => {
                slot.failed = Some(error.clone());
                return Err(error);
            }
        };
        self.loads.fetch_add(1, Ordering::Relaxed);
        slot.resident = Arc::downgrade(&loaded);
        slot.temp_dir = loaded.temp_dir.clone();
        slot.artifact = loaded.artifact.clone();
        if loaded.artifact.is_none() {
            slot.pinned = Some(loaded.clone());
        }
        Ok(loaded)
    }

    fn load(&self, slot: &Slot) -> Result<LoadedComponent, ExtensionError> {
        let again = slot
            .artifact
            .as_ref()
            .and_then(|key| Some((key, self.cache.reload(&self.engine, key)?)));
        let cached = match again {
            Some((key, component)) => Cached {
                component,
                key: Some(key.clone()),
            },
            None => self
                .cache
                .load_source(&self.engine, &self.source)
                .map_err(|reason| {
                    ExtensionError::new(
                        &self.extension,
                        Cause::InvalidComponent {
                            path: self.path.clone(),
                            reason,
                        },
                    )
                })?,
        };
        LoadedComponent::link(
            &self.engine,
            self.extension.clone(),
            &self.path,
            cached,
            (self.world, self.wit),
            self.grant.clone(),
            Reuse {
                temp_dir: slot.temp_dir.clone(),
                linkers: self.cache.linkers(),
            },
        )
    }

    fn lock(&self) -> MutexGuard<'_, Slot> {
        // Every update of the slot is a single assignment; a panic elsewhere cannot leave it
        // half-written, so a poisoned lock is still usable.
        self.slot.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The temp directory of a component: a private one (removed with the component) or a host
/// directory named by the grant (kept).
struct TempDir {
    path: PathBuf,
    private: bool,
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if self.private {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

impl TempDir {
    fn create(extension: &ExtensionId) -> Result<Self, String> {
        let dir = std::env::temp_dir().join(format!(
            "pi-ext-{}-{}-{:x}",
            extension.name,
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or_default()
        ));
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        Ok(TempDir {
            path: dir,
            private: true,
        })
    }

    fn for_grant(grant: &Grant, extension: &ExtensionId) -> Result<Option<Self>, String> {
        if let Some(path) = &grant.temp_dir {
            return Ok(Some(TempDir {
                path: path.clone(),
                private: false,
            }));
        }
        if grant.temp {
            return Self::create(extension).map(Some);
        }
        Ok(None)
    }
}

/// Notes in `optional` what an import needs linked, or refuses an import pi does not provide
/// in this world, or one of another `pi:extension` version than `wit`.
fn check_import(
    name: &str,
    (world, wit): (World, WitVersion),
    optional: &mut Optional,
    path: &Path,
) -> Result<(), Cause> {
    let (interface, version) = name.split_once('@').unwrap_or((name, ""));
    if interface.starts_with("pi:extension/") && version != wit.as_str() {
        return Err(Cause::WitMismatch {
            path: path.to_owned(),
            declared: wit,
            interface: name.to_owned(),
        });
    }
    match interface {
        "pi:extension/types" | "pi:extension/host" => {}
        "pi:extension/hook-types" if wit >= WitVersion::V0_3_0 => {}
        "pi:extension/ui" if wit >= WitVersion::V0_3_0 && talks(world) => optional.ui = true,
        "pi:extension/session" if wit >= WitVersion::V0_3_0 && talks(world) => {
            optional.session = true;
        }
        "pi:extension/stream-sink" if world == World::Provider => {}
        "pi:extension/directory" if world == World::Tool => {}
        "pi:extension/process" if world == World::Tool => optional.process = true,
        "pi:extension/llm" if world == World::Compactor => optional.llm = true,
        i if i.starts_with("wasi:http/") => optional.http = true,
        i if i.starts_with("wasi:") => {}
        _ => {
            return Err(Cause::UnknownImport {
                path: path.to_owned(),
                import: name.to_owned(),
            });
        }
    }
    Ok(())
}

/// Whether components of `world` may import `ui` and `session` (since 0.3.0).
fn talks(world: World) -> bool {
    matches!(world, World::Tool | World::Hook)
}

/// The names a component exports.
fn exports_of(engine: &Engine, component: &Component) -> Vec<String> {
    let ty = component.component_type();
    ty.exports(engine)
        .map(|(name, _)| name.to_owned())
        .collect()
}

fn listed(exports: &[String]) -> String {
    if exports.is_empty() {
        "nothing".to_owned()
    } else {
        exports.join(", ")
    }
}

/// The world and WIT version of a component's `*-guest` export, when it has a supported one.
fn guest_export(exports: &[String]) -> Option<(World, WitVersion, &str)> {
    exports.iter().find_map(|name| {
        let (interface, version) = name.split_once('@')?;
        let world = World::ALL
            .into_iter()
            .find(|w| w.export_name() == interface)?;
        Some((world, WitVersion::parse(version)?, name.as_str()))
    })
}

/// The world a component implements and the WIT version it was built against, from its
/// exports (a component published on its own, as wkg does, comes without a manifest).
/// Compiles it to read its type, so `engine` is the compiling engine
/// ([`crate::engine::compiler`]).
pub fn world_of(engine: &Engine, bytes: &[u8]) -> Result<(World, WitVersion), String> {
    let component =
        Component::new(engine, bytes).map_err(|e| format!("not a valid component: {e:#}"))?;
    let exports = exports_of(engine, &component);
    guest_export(&exports)
        .map(|(world, wit, _)| (world, wit))
        .ok_or_else(|| {
            format!(
                "the component implements no pi world of a supported WIT version ({}; it exports: {})",
                crate::manifest::SUPPORTED_WIT.join(", "),
                listed(&exports)
            )
        })
}

/// Checks that the component exports its world's interface in the manifest's WIT version;
/// built against another version it is told apart from one of another world, so the author
/// learns which `wit` to write.
fn check_world(
    engine: &Engine,
    component: &Component,
    (world, wit): (World, WitVersion),
    path: &Path,
) -> Result<(), Cause> {
    let exports = exports_of(engine, component);
    let expected = world.export_interface(wit);
    if exports.contains(&expected) {
        return Ok(());
    }
    let other_version = exports.iter().find(|name| {
        name.split_once('@')
            .is_some_and(|(interface, _)| interface == world.export_name())
    });
    if let Some(interface) = other_version {
        return Err(Cause::WitMismatch {
            path: path.to_owned(),
            declared: wit,
            interface: interface.clone(),
        });
    }
    Err(Cause::WorldMismatch {
        path: path.to_owned(),
        world: world.as_str().to_owned(),
        reason: format!(
            "it does not export `{expected}` (it exports: {})",
            listed(&exports)
        ),
    })
}

fn linker(
    engine: &Engine,
    (world, wit): (World, WitVersion),
    optional: Optional,
) -> wasmtime::Result<Linker<HostState>> {
    let mut linker = Linker::new(engine);
    wasmtime_wasi::p2::add_to_linker_sync(&mut linker)?;
    refuse_symlinks(&mut linker)?;
    crate::bounded::add_to_linker(&mut linker)?;
    crate::fs_guard::add_to_linker(&mut linker, crate::bounded::WASI_VERSION)?;
    crate::bindings::add_to_linker(&mut linker, wit, world, optional)?;
    if optional.http {
        wasmtime_wasi_http::p2::add_only_http_to_linker_sync(&mut linker)?;
    }
    Ok(linker)
}

/// WASI refuses absolute link targets but creates relative ones that leave the preopen
/// (`AGENTS.md -> ../outside/secret`): the next reader that follows the link (pi itself, a
/// built-in tool, the user's editor) reads outside what the extension was granted. No
/// extension needs to create links, so none may.
fn refuse_symlinks(linker: &mut Linker<HostState>) -> wasmtime::Result<()> {
    use wasmtime::component::Resource;
    use wasmtime_wasi::p2::bindings::filesystem::types::{Descriptor, ErrorCode};
    linker.allow_shadowing(true);
    linker.instance("wasi:filesystem/types@0.2.12")?.func_wrap(
        "[method]descriptor.symlink-at",
        |_store, (_dir, _target, _link): (Resource<Descriptor>, String, String)| {
            Ok((Err::<(), ErrorCode>(ErrorCode::NotPermitted),))
        },
    )?;
    linker.allow_shadowing(false);
    Ok(())
}

impl LoadedComponent {
    /// Loads (from the cache when possible), checks and links one component file.
    pub fn load(
        engine: &Engine,
        cache: &ComponentCache,
        extension: Arc<ExtensionId>,
        path: &Path,
        world: World,
        wit: WitVersion,
        grant: Arc<Grant>,
    ) -> Result<Self, ExtensionError> {
        let source = ComponentSource::File(path.to_owned());
        Self::load_source(engine, cache, extension, &source, world, wit, grant)
    }

    /// Loads (from the cache when possible), checks and links one component.
    pub fn load_source(
        engine: &Engine,
        cache: &ComponentCache,
        extension: Arc<ExtensionId>,
        source: &ComponentSource,
        world: World,
        wit: WitVersion,
        grant: Arc<Grant>,
    ) -> Result<Self, ExtensionError> {
        let path = source.display_path();
        let cached = cache.load_source(engine, source).map_err(|reason| {
            ExtensionError::new(
                &extension,
                Cause::InvalidComponent {
                    path: path.clone(),
                    reason,
                },
            )
        })?;
        Self::link(
            engine,
            extension,
            &path,
            cached,
            (world, wit),
            grant,
            Reuse {
                temp_dir: None,
                linkers: cache.linkers(),
            },
        )
    }

    /// Checks a loaded component against its world, WIT version and grant and links it
    /// through that version's host module, reusing what an earlier load of the same
    /// component left.
    fn link(
        engine: &Engine,
        extension: Arc<ExtensionId>,
        path: &Path,
        cached: Cached,
        (world, wit): (World, WitVersion),
        grant: Arc<Grant>,
        reuse: Reuse<'_>,
    ) -> Result<Self, ExtensionError> {
        let fail = |cause| ExtensionError::new(&extension, cause);
        let component = cached.component;
        check_world(engine, &component, (world, wit), path).map_err(fail)?;
        let ty = component.component_type();
        let mut optional = Optional::default();
        for (name, _) in ty.imports(engine) {
            check_import(name, (world, wit), &mut optional, path).map_err(fail)?;
        }
        let runtime = |e: wasmtime::Error| fail(Cause::Runtime(format!("{e:#}")));
        let linker = reuse
            .linkers
            .get((world, wit), optional, || {
                linker(engine, (world, wit), optional)
            })
            .map_err(runtime)?;
        let instance_pre = linker.instantiate_pre(&component).map_err(runtime)?;
        let pre = Pre::new(world, wit, instance_pre).map_err(runtime)?;
        let temp_dir = match reuse.temp_dir {
            Some(dir) => Some(dir),
            None => TempDir::for_grant(&grant, &extension)
                .map_err(|e| fail(Cause::Io(e)))?
                .map(Arc::new),
        };
        Ok(LoadedComponent {
            extension,
            world,
            wit,
            path: path.to_owned(),
            grant,
            engine: engine.clone(),
            pre,
            temp_dir,
            artifact: cached.key,
        })
    }

    /// A fresh store for one call.
    pub(crate) fn store(&self, call: CallContext) -> Result<Store<HostState>, ExtensionError> {
        let state = HostState::new(
            self.extension.clone(),
            self.grant.clone(),
            self.temp_dir.as_ref().map(|t| t.path.as_path()),
            call,
        )
        .map_err(|e| self.error(Cause::Io(e)))?;
        Ok(new_store(&self.engine, state))
    }

    /// The key of its compiled artifact on disk, when there is one.
    pub(crate) fn artifact(&self) -> Option<&str> {
        self.artifact.as_deref()
    }

    pub(crate) fn error(&self, cause: Cause) -> ExtensionError {
        ExtensionError::new(&self.extension, cause)
    }

    /// Turns a failed call into a cause: interrupt, memory cap, stack overflow, other trap.
    pub(crate) fn classify(
        &self,
        err: &wasmtime::Error,
        store: &Store<HostState>,
    ) -> ExtensionError {
        let state = store.data();
        let cause = if let Some(interrupt) = err.downcast_ref::<Interrupt>() {
            match interrupt {
                Interrupt::Deadline => Cause::Deadline(state.call.timeout),
                Interrupt::Aborted => Cause::Aborted,
            }
        } else if state.limiter.memory_denied {
            Cause::OutOfMemory(self.grant.limits.memory_mib)
        } else if let Some(trap) = err.downcast_ref::<Trap>() {
            match trap {
                Trap::StackOverflow => Cause::StackOverflow,
                other => Cause::Trap(other.to_string()),
            }
        } else {
            Cause::Runtime(format!("{err:#}"))
        };
        state.flush_output();
        self.error(cause)
    }
}
