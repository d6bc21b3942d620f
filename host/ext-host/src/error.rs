//! Errors of the extension host. Everything an extension causes names the extension.

use crate::manifest::WitVersion;
use std::path::PathBuf;
use std::time::Duration;

/// `name@version` of an extension, used in every error and log line it causes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ExtensionId {
    pub name: String,
    pub version: String,
}

impl std::fmt::Display for ExtensionId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}@{}", self.name, self.version)
    }
}

/// Why an extension call or load failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Cause {
    /// The call ran past its deadline and was interrupted.
    #[error("deadline of {0:?} exceeded; the call was interrupted")]
    Deadline(Duration),
    /// The user aborted the call.
    #[error("aborted")]
    Aborted,
    /// The component asked for more memory than its cap.
    #[error("out of memory: the component tried to grow past its {0} MiB cap")]
    OutOfMemory(u64),
    /// The component overflowed its stack (e.g. unbounded recursion).
    #[error("stack overflow (trap)")]
    StackOverflow,
    /// Any other trap (panic, unreachable, bad memory access).
    #[error("trap: {0}")]
    Trap(String),
    /// The component returned an error value.
    #[error("{0}")]
    Guest(String),
    /// What `describe()` returned breaks a rule (a name, a count, a schema).
    #[error("refused at load: {0}")]
    Describe(String),
    /// The `.wasm` is not a valid component for this engine.
    #[error("invalid component {path}: {reason}")]
    InvalidComponent { path: PathBuf, reason: String },
    /// The component does not implement the world its manifest declares.
    #[error("component {path} does not implement world `{world}`: {reason}")]
    WorldMismatch {
        path: PathBuf,
        world: String,
        reason: String,
    },
    /// The component was built against another WIT version than its manifest names: it
    /// uses `interface` (`pi:extension/<name>@<version>`), whose version says which.
    #[error(
        "component {path} was built against pi:extension@{built} (it uses `{interface}`), but its manifest says wit = \"{declared}\": set `wit = \"{built}\"` in pi-extension.toml",
        built = version_of(interface)
    )]
    WitMismatch {
        path: PathBuf,
        declared: WitVersion,
        interface: String,
    },
    /// The component imports an interface pi does not provide.
    #[error("component {path} imports `{import}`, which pi does not provide")]
    UnknownImport { path: PathBuf, import: String },
    /// Filesystem trouble in the host (cache, temp dir, workspace).
    #[error("{0}")]
    Io(String),
    /// Anything else the runtime reported.
    #[error("{0}")]
    Runtime(String),
}

/// The version part of an interface name (`pi:extension/host@0.1.0` → `0.1.0`).
fn version_of(interface: &str) -> &str {
    interface.split_once('@').map_or("", |(_, version)| version)
}

/// An error caused by one extension.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("extension {extension}: {cause}")]
pub struct ExtensionError {
    pub extension: ExtensionId,
    pub cause: Cause,
}

impl ExtensionError {
    pub fn new(extension: &ExtensionId, cause: Cause) -> Self {
        ExtensionError {
            extension: extension.clone(),
            cause,
        }
    }
}
