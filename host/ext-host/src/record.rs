//! What the cache keeps on disk besides compiled code: the description record of a component
//! file, written atomically so a reader never sees half of one.

use pi_ext_api::ToolDescription;
use pi_ext_api::hooks::{CommandInfo, HookEventKind, HookInfo};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// What `describe` returned for a component file, with the file's fingerprint.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct DescriptionRecord {
    pub size: u64,
    pub mtime_ns: u128,
    pub tools: Vec<ToolDescription>,
    /// What a hook component's `describe` answered (none for other worlds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hook: Option<HookRecord>,
    /// The key of the compiled artifact of these bytes (see `ComponentCache::load_source`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact: Option<String>,
}

/// A [`HookInfo`] as stored: events by their WIT names.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct HookRecord {
    pub events: Vec<String>,
    pub commands: Vec<CommandRecord>,
}

/// A [`CommandInfo`] as stored.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CommandRecord {
    pub name: String,
    pub description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub argument_hint: Option<String>,
}

const EVENT_NAMES: [(HookEventKind, &str); 10] = [
    (HookEventKind::SessionStart, "session-start"),
    (HookEventKind::SessionShutdown, "session-shutdown"),
    (HookEventKind::Input, "input"),
    (HookEventKind::BeforeAgentStart, "before-agent-start"),
    (HookEventKind::Context, "context"),
    (HookEventKind::ToolCall, "tool-call"),
    (HookEventKind::ToolResult, "tool-result"),
    (HookEventKind::BeforeCompact, "before-compact"),
    (HookEventKind::TurnEnd, "turn-end"),
    (HookEventKind::AgentEnd, "agent-end"),
];

impl HookRecord {
    pub fn of(info: &HookInfo) -> Self {
        HookRecord {
            events: info
                .events
                .iter()
                .filter_map(|kind| EVENT_NAMES.iter().find(|(k, _)| k == kind))
                .map(|(_, name)| (*name).to_owned())
                .collect(),
            commands: info
                .commands
                .iter()
                .map(|c| CommandRecord {
                    name: c.name.clone(),
                    description: c.description.clone(),
                    argument_hint: c.argument_hint.clone(),
                })
                .collect(),
        }
    }

    /// The info back; an event name this build does not know is left out.
    pub fn info(&self) -> HookInfo {
        HookInfo {
            events: self
                .events
                .iter()
                .filter_map(|name| EVENT_NAMES.iter().find(|(_, n)| n == name))
                .map(|(kind, _)| *kind)
                .collect(),
            commands: self
                .commands
                .iter()
                .map(|c| CommandInfo {
                    name: c.name.clone(),
                    description: c.description.clone(),
                    argument_hint: c.argument_hint.clone(),
                })
                .collect(),
        }
    }
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
