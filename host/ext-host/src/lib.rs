//! pi-ext-host: the extension host of pi.
//!
//! Extensions are WebAssembly components implementing a world of the `pi:extension` WIT
//! package (`wit/`): tools, model providers, renderers, compaction overrides and hooks. One wasmtime
//! [`Engine`](wasmtime::Engine) runs them all with epoch interruption, a per-call deadline and
//! a memory cap; compiled components are cached on disk (content hash + engine compatibility),
//! linked once into an `InstancePre` and instantiated in a fresh store per call. Each store's
//! WASI context is built from the extension's [`Grant`] only. Every call is bounded from
//! outside too: it runs on its own thread under a watchdog, and the WASI calls that can wait
//! end at its deadline or abort.

pub mod approvals;
mod bindings;
mod bounded;
mod bounds;
pub mod cache;
mod clock;
pub mod compactor;
pub mod component;
mod convert;
mod directory;
pub mod discovery;
pub mod engine;
pub mod error;
mod fs_guard;
pub mod grant;
pub mod hook;
mod hook_convert;
pub mod host;
mod index;
mod linkers;
pub mod lockfile;
pub mod manifest;
mod process;
pub mod protected;
pub mod provider;
mod record;
pub mod renderer;
pub mod sandbox;
mod services;
mod source;
mod state;
pub mod tool;
mod watchdog;
mod workers;

pub use cache::ComponentCache;
pub use compactor::ComponentCompactor;
pub use component::{ComponentSource, LazyComponent, LoadedComponent};
pub use discovery::{DiscoveredExtension, ExtensionSource, SearchPaths, discover};
pub use error::{Cause, ExtensionError, ExtensionId};
pub use grant::{Grant, Limits, Preopen};
pub use hook::HookComponent;
pub use host::{ExtensionHost, LoadedExtension};
pub use manifest::{
    Capabilities, FsAccess, HookSettings, Manifest, ManifestError, WitVersion, World,
};
pub use provider::ComponentProvider;
pub use renderer::ComponentRenderer;
pub use sandbox::{SandboxError, SandboxMode, ShellSandbox};
pub use state::WriteFn;
pub use tool::{ComponentTool, ToolOutput};
pub use wasmtime::Engine;
