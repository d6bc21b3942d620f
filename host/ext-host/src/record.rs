//! What the cache keeps on disk besides compiled code: the description record of a component
//! file, written atomically so a reader never sees half of one.

use pi_ext_api::ToolDescription;
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// What `describe` returned for a component file, with the file's fingerprint.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct DescriptionRecord {
    pub size: u64,
    pub mtime_ns: u128,
    pub tools: Vec<ToolDescription>,
}

/// Writes through a temp file unique to this call (process id + a per-process counter), so
/// two threads storing the same artifact never truncate each other's half-written file.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), String> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = path.parent().ok_or("no parent directory")?;
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let tmp = dir.join(format!(
        ".{}.{}.{}.tmp",
        path.file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default(),
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&tmp, bytes).map_err(|e| e.to_string())?;
    std::fs::rename(&tmp, path).map_err(|e| e.to_string())
}
