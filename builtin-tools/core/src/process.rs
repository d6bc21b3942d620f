//! The process abstraction `bash` runs commands through.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// One shell command to spawn.
#[derive(Debug, Clone)]
pub struct SpawnRequest {
    pub program: String,
    pub args: Vec<String>,
    pub cwd: PathBuf,
    /// The complete environment of the child (nothing is inherited implicitly).
    pub env: Vec<(String, String)>,
    pub timeout: Option<Duration>,
}

/// How a spawned command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProcessExit {
    /// Exit code; `None` when a signal ended it.
    Exited(Option<i32>),
    /// The timeout elapsed; the whole process group was killed.
    TimedOut,
    /// `cancel` was set; the whole process group was killed.
    Aborted,
}

#[derive(Debug, thiserror::Error)]
pub enum ProcessError {
    #[error("Failed to start {program}: {message}")]
    Spawn { program: String, message: String },
    #[error("Process I/O failed: {0}")]
    Io(String),
}

/// Spawns a command in its own process group, streams stdout and stderr (interleaved, in
/// arrival order) to `on_output`, and kills the whole group on timeout or cancellation.
pub trait ProcessRunner: Send + Sync {
    fn run(
        &self,
        request: &SpawnRequest,
        on_output: &mut dyn FnMut(&[u8]),
        cancel: &AtomicBool,
    ) -> Result<ProcessExit, ProcessError>;
}
