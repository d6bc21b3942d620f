//! Session files: pi's JSONL v3 tree of entries, and the manager that opens, appends, branches,
//! forks and clones them.

mod branch_context;
pub mod context;
pub mod entry;
pub mod file;
pub mod ids;
mod index;
mod message_line;
pub mod migrate;
mod open;
pub mod positions;
pub mod tree;

pub use context::{BranchSettings, ModelRef, SessionContext, build_session_context};
pub use entry::{
    BranchSummaryEntry, CURRENT_SESSION_VERSION, CompactionEntry, CustomMessageEntry, EntryKind,
    FileOpsDetails, SessionEntry, SessionHeader,
};
pub use file::{LoadWarning, Repair};
pub use open::{
    FoundSession, SessionInfo, find_session_by_id, is_session_path, list_session_files,
    list_sessions, session_info,
};
pub use tree::{Label, SessionTree};

use crate::messages::{AgentMessage, HostMessage};
use file::SessionWriter;
use index::Slot;
use pi_ai::{Usage, UserContent};
use positions::{Positions, Slots};
use serde_json::{Map, Value};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Errors of session files.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("Session file is not a valid pi session: {path}")]
    NotASession { path: PathBuf },
    #[error("no session matches `{0}`")]
    NotFound(String),
    #[error("session id prefix `{prefix}` is ambiguous: {count} sessions match")]
    Ambiguous { prefix: String, count: usize },
    #[error("entry `{0}` does not exist in this session")]
    UnknownEntry(String),
    #[error("cannot read entry `{id}` from the session file it was opened from: {source}")]
    Unreadable { id: String, source: std::io::Error },
    #[error("messages with role `{0}` must be appended as their own entry type")]
    InvalidRole(String),
}

enum Storage {
    /// `--no-session`: nothing is written.
    Memory,
    /// `persisted` is false until the first assistant message (pi's lazy persistence).
    File {
        writer: SessionWriter,
        persisted: bool,
    },
}

/// One open session: its header, the index of its entries, the current leaf and where it is
/// stored. Entries read from a file are parsed when asked for (see `index`); `source` is the
/// file their byte ranges point into.
pub struct SessionManager {
    header: SessionHeader,
    slots: Slots,
    leaf: Option<String>,
    storage: Storage,
    warnings: Vec<LoadWarning>,
    source: Option<Arc<File>>,
}

/// What the index knows of an entry without parsing it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryHead<'a> {
    pub id: &'a str,
    pub entry_type: &'a str,
    /// A `message` entry of an assistant reply.
    pub assistant: bool,
    /// The role of a `message` entry: `user`, `assistant` or `toolResult`.
    pub role: Option<&'a str>,
}

/// The header field naming the agent of a subagent's session (this pi's; pi ignores it).
const SUBAGENT_KEY: &str = "subagent";

fn new_header(cwd: &Path, parent_session: Option<String>) -> SessionHeader {
    SessionHeader {
        version: Some(CURRENT_SESSION_VERSION),
        id: ids::new_uuid_v7(),
        timestamp: ids::iso_now(),
        cwd: cwd.to_string_lossy().into_owned(),
        parent_session,
        extra: Map::new(),
    }
}

impl SessionManager {
    fn from_parts(header: SessionHeader, entries: Vec<SessionEntry>, storage: Storage) -> Self {
        let slots = entries.into_iter().map(|e| Slot::parsed(e, None)).collect();
        Self::from_slots(header, slots, storage, None)
    }

    fn from_slots(
        header: SessionHeader,
        slots: Vec<Slot>,
        storage: Storage,
        source: Option<Arc<File>>,
    ) -> Self {
        let mut manager = SessionManager {
            header,
            slots: Slots::new(slots),
            leaf: None,
            storage,
            warnings: Vec::new(),
            source,
        };
        manager.leaf = manager.slots.last().map(|s| s.id.to_string());
        manager
    }

    /// A new session for `cwd` in `session_dir` (`<timestamp>_<id>.jsonl`). Nothing is written
    /// until the first assistant message.
    pub fn create(cwd: &Path, session_dir: &Path) -> Self {
        let header = new_header(cwd, None);
        let path = session_dir.join(crate::paths::session_file_name(
            &header.timestamp,
            &header.id,
        ));
        Self::new_at(header, path)
    }

    /// pi's `--session-id <id>`: the session with exactly this id in `session_dir`, or a new
    /// one with this id. `None` when the id is not valid
    /// (`^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$`).
    pub fn open_or_create_with_id(
        cwd: &Path,
        session_dir: &Path,
        id: &str,
    ) -> Option<Result<Self, SessionError>> {
        if !ids::is_valid_session_id(id) {
            return None;
        }
        let existing = list_session_files(session_dir)
            .into_iter()
            .find(|(path, _)| file::read_header(path).is_some_and(|h| h.id == id));
        if let Some((path, _)) = existing {
            return Some(Self::open(&path, cwd));
        }
        let mut header = new_header(cwd, None);
        header.id = id.to_owned();
        let path = session_dir.join(crate::paths::session_file_name(
            &header.timestamp,
            &header.id,
        ));
        Some(Ok(Self::new_at(header, path)))
    }

    /// A new session written to exactly `path` (pi's `--session <path>` to a missing file).
    pub fn create_at(path: &Path, cwd: &Path) -> Self {
        Self::new_at(new_header(cwd, None), path.to_path_buf())
    }

    fn new_at(header: SessionHeader, path: PathBuf) -> Self {
        let storage = Storage::File {
            writer: SessionWriter::new(path, None),
            persisted: false,
        };
        Self::from_parts(header, Vec::new(), storage)
    }

    /// A session kept only in memory (`--no-session`).
    pub fn in_memory(cwd: &Path) -> Self {
        Self::from_parts(new_header(cwd, None), Vec::new(), Storage::Memory)
    }

    /// Opens `path`: loads (and migrates) an existing file, gives an empty file a header, or
    /// starts a new session there when it does not exist. The leaf is the last entry.
    pub fn open(path: &Path, cwd: &Path) -> Result<Self, SessionError> {
        if !path.exists() {
            return Ok(Self::create_at(path, cwd));
        }
        let loaded = index::index_file(path)?;
        let mut writer = SessionWriter::new(path.to_path_buf(), loaded.repair);
        let header = if loaded.empty {
            let header = new_header(cwd, None);
            writer.append(&[header.to_json().to_string()])?;
            header
        } else {
            loaded.header
        };
        let storage = Storage::File {
            writer,
            persisted: true,
        };
        let mut manager = Self::from_slots(header, loaded.slots, storage, loaded.source);
        manager.warnings = loaded.warnings;
        Ok(manager)
    }

    /// Continues the most recently modified session in `dir` (for a custom dir: only sessions
    /// whose header `cwd` is `cwd`), or starts a new one.
    pub fn continue_recent(
        cwd: &Path,
        dir: &crate::paths::SessionDir,
    ) -> Result<Self, SessionError> {
        let cwd_text = cwd.to_string_lossy();
        // A subagent's session is never the one to continue: its parent is.
        let newest = list_session_files(&dir.path).into_iter().find(|(path, _)| {
            match file::read_header(path) {
                Some(h) => {
                    (!dir.custom || h.cwd == cwd_text) && !h.extra.contains_key(SUBAGENT_KEY)
                }
                None => !dir.custom,
            }
        });
        match newest {
            Some((path, _)) => Self::open(&path, cwd),
            None => Ok(Self::create(cwd, &dir.path)),
        }
    }

    /// pi's `forkFrom`: a new session in `target_dir` for `target_cwd` holding a copy of every
    /// entry of `source`, with `parentSession` pointing at it.
    pub fn fork_from(
        source: &Path,
        target_cwd: &Path,
        target_dir: &Path,
    ) -> Result<Self, SessionError> {
        let loaded = index::index_file(source)?;
        let parent = std::fs::canonicalize(source).unwrap_or_else(|_| source.to_path_buf());
        let header = new_header(target_cwd, Some(parent.to_string_lossy().into_owned()));
        let path = target_dir.join(crate::paths::session_file_name(
            &header.timestamp,
            &header.id,
        ));
        let storage = Storage::File {
            writer: SessionWriter::new(path, None),
            persisted: false,
        };
        let mut manager = Self::from_slots(header, loaded.slots, storage, loaded.source);
        manager.persist_buffer_if_ready()?;
        Ok(manager)
    }

    pub fn header(&self) -> &SessionHeader {
        &self.header
    }

    /// Records the session this one was started from (pi's `newSession({parentSession})`).
    /// Only for a session nothing was written to yet: the header is written with the first
    /// assistant message.
    pub fn with_parent_session(mut self, parent: Option<String>) -> Self {
        self.header.parent_session = parent;
        self
    }

    /// Marks a subagent's session: its header records the agent (`subagent`), so that
    /// continuing the most recent session (`-c`) passes over it. Only for a session nothing was
    /// written to yet.
    pub fn as_subagent(mut self, agent: &str) -> Self {
        self.header
            .extra
            .insert(SUBAGENT_KEY.to_owned(), Value::String(agent.to_owned()));
        self
    }

    pub fn session_id(&self) -> &str {
        &self.header.id
    }

    pub fn cwd(&self) -> &str {
        &self.header.cwd
    }

    /// The session file, or `None` for an in-memory session.
    pub fn session_file(&self) -> Option<&Path> {
        match &self.storage {
            Storage::Memory => None,
            Storage::File { writer, .. } => Some(writer.path()),
        }
    }

    /// Whether the file exists on disk yet (false until the first assistant message).
    pub fn is_persisted(&self) -> bool {
        matches!(
            self.storage,
            Storage::File {
                persisted: true,
                ..
            }
        )
    }

    /// Lines that could not be read when the file was opened.
    pub fn warnings(&self) -> &[LoadWarning] {
        &self.warnings
    }

    /// The number of entries.
    pub fn entry_count(&self) -> usize {
        self.slots.len()
    }

    /// Whether the session has no entries yet.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// All entries in file order (each parsed now if it was not yet, and kept).
    pub fn entries(&self) -> Vec<&SessionEntry> {
        self.entries_from(0)
    }

    /// The entries from position `start` (file order) on.
    pub fn entries_from(&self, start: usize) -> Vec<&SessionEntry> {
        let rest = self.slots.get(start..).unwrap_or(&[]);
        rest.iter().filter_map(|s| self.slot_entry(s)).collect()
    }

    /// The position of `id` in file order.
    pub fn position(&self, id: &str) -> Option<usize> {
        self.slots.position(id)
    }

    pub fn entry(&self, id: &str) -> Option<&SessionEntry> {
        self.slots
            .position(id)
            .and_then(|i| self.slot_entry(&self.slots[i]))
    }

    /// The entry of `slot`, parsed from the file and kept on first use.
    fn slot_entry<'a>(&'a self, slot: &'a Slot) -> Option<&'a SessionEntry> {
        if let Some(entry) = slot.entry.get() {
            return Some(entry);
        }
        let entry = index::materialise(self.source.as_deref()?, slot)?;
        let _ = slot.entry.set(Box::new(entry));
        slot.entry.get().map(|e| &**e)
    }

    /// Entries parsed already (every small entry type is).
    fn parsed_entries(&self) -> impl Iterator<Item = &SessionEntry> {
        self.slots
            .iter()
            .filter_map(|s| s.entry.get().map(|e| &**e))
    }

    /// Root → the leaf, as the index knows the entries (nothing is parsed).
    pub fn branch_heads(&self) -> Vec<EntryHead<'_>> {
        tree::branch(&self.slots, &self.slots, self.leaf.as_deref())
            .into_iter()
            .map(|s| EntryHead {
                id: &s.id,
                entry_type: &s.entry_type,
                assistant: s.assistant,
                role: s.role,
            })
            .collect()
    }

    /// The current leaf (`None` before the first entry or after `reset_leaf`).
    pub fn leaf_id(&self) -> Option<&str> {
        self.leaf.as_deref()
    }

    /// Root → `from` (default: the leaf).
    pub fn get_branch(&self, from: Option<&str>) -> Vec<&SessionEntry> {
        let from = from.or(self.leaf.as_deref());
        tree::branch(&self.slots, &self.slots, from)
            .into_iter()
            .filter_map(|s| self.slot_entry(s))
            .collect()
    }

    /// Calls `f` with each entry root → the leaf that `wanted` picks by its head, parsing the
    /// ones not parsed yet a few megabytes at a time without keeping them (for a pass over a
    /// long branch). Model messages are read as the context reads them: without the fields
    /// this version does not model.
    pub fn for_each_on_branch(
        &self,
        wanted: impl Fn(&EntryHead<'_>) -> bool,
        mut f: impl FnMut(&SessionEntry),
    ) {
        const CHUNK_BYTES: usize = 1 << 20;
        let path: Vec<&Slot> = tree::branch(&self.slots, &self.slots, self.leaf.as_deref())
            .into_iter()
            .filter(|s| {
                wanted(&EntryHead {
                    id: &s.id,
                    entry_type: &s.entry_type,
                    assistant: s.assistant,
                    role: s.role,
                })
            })
            .collect();
        let mut start = 0;
        while start < path.len() {
            let mut bytes = 0;
            let mut end = start;
            while end < path.len() && (end == start || bytes < CHUNK_BYTES) {
                bytes += path[end].span.map_or(0, |s| s.len as usize);
                end += 1;
            }
            for entry in index::materialise_context(self.source.as_deref(), &path[start..end]) {
                f(&entry);
            }
            start = end;
        }
    }

    pub fn tree(&self) -> SessionTree {
        let labels = tree::resolve_labels(self.parsed_entries());
        tree::build_tree(&self.slots, &self.slots, labels)
    }

    /// The current label of `id`.
    pub fn label_of(&self, id: &str) -> Option<String> {
        tree::resolve_labels(self.parsed_entries())
            .remove(id)
            .map(|l| l.label)
    }

    /// Context of the current branch: only the entries it needs are parsed (from the latest
    /// compaction's first kept entry on, the last assistant reply for the model, and the small
    /// entries already parsed), and nothing parsed for it is kept.
    /// The messages are the agent's own type, so they go to the agent as they are read.
    pub fn build_session_context(&self) -> SessionContext {
        let path = tree::branch(&self.slots, &self.slots, self.leaf.as_deref());
        branch_context::build(self.source.as_deref(), &path)
    }

    /// The thinking level and model the current branch last recorded, parsing at most one
    /// entry (the last assistant reply).
    pub fn branch_settings(&self) -> BranchSettings {
        let path = tree::branch(&self.slots, &self.slots, self.leaf.as_deref());
        let last_assistant = path.iter().rposition(|s| s.assistant);
        let needed: Vec<&Slot> = path
            .iter()
            .enumerate()
            .filter(|(i, s)| !s.is_lazy() || Some(*i) == last_assistant)
            .map(|(_, s)| *s)
            .collect();
        let entries = index::materialise_all(self.source.as_deref(), &needed);
        context::branch_settings(&entries.iter().collect::<Vec<_>>())
    }

    /// Moves the leaf to `id`; the next entry becomes its child.
    pub fn branch(&mut self, id: &str) -> Result<(), SessionError> {
        if !self.slots.contains(id) {
            return Err(SessionError::UnknownEntry(id.to_owned()));
        }
        self.leaf = Some(id.to_owned());
        Ok(())
    }

    /// Clears the leaf: the next entry is a new root (to re-edit the first message).
    pub fn reset_leaf(&mut self) {
        self.leaf = None;
    }

    /// Moves the leaf to `from` (`None` = before the first entry) and appends a
    /// `branch_summary` of the branch left behind.
    pub fn branch_with_summary(
        &mut self,
        from: Option<&str>,
        summary: impl Into<String>,
        details: Option<Value>,
        from_hook: Option<bool>,
        usage: Option<Usage>,
    ) -> Result<String, SessionError> {
        match from {
            Some(id) => self.branch(id)?,
            None => self.reset_leaf(),
        }
        self.append(EntryKind::BranchSummary(BranchSummaryEntry {
            from_id: from.unwrap_or("root").to_owned(),
            summary: summary.into(),
            details,
            usage,
            from_hook,
        }))
    }

    /// Appends a message. Summaries must use their own entry types.
    pub fn append_message(&mut self, message: AgentMessage) -> Result<String, SessionError> {
        if matches!(
            message.as_host(),
            Some(HostMessage::BranchSummary(_) | HostMessage::CompactionSummary(_))
        ) {
            return Err(SessionError::InvalidRole(message.role().to_owned()));
        }
        self.append(EntryKind::Message(message))
    }

    pub fn append_model_change(
        &mut self,
        provider: impl Into<String>,
        model_id: impl Into<String>,
    ) -> Result<String, SessionError> {
        self.append(EntryKind::ModelChange {
            provider: provider.into(),
            model_id: model_id.into(),
        })
    }

    pub fn append_thinking_level_change(
        &mut self,
        level: impl Into<String>,
    ) -> Result<String, SessionError> {
        self.append(EntryKind::ThinkingLevelChange {
            thinking_level: level.into(),
        })
    }

    /// Records the model and thinking level a run starts with, as pi 1.6 does: a new session
    /// gets a `model_change` then a `thinking_level_change`; a branch that recorded neither or
    /// something else gets the one that differs, and a branch without any
    /// `thinking_level_change` (an older session) gets one even when the level is `off`.
    pub fn record_start_settings(
        &mut self,
        provider: &str,
        model_id: &str,
        thinking_level: &str,
    ) -> Result<(), SessionError> {
        let recorded = self.branch_settings();
        let same_model = recorded
            .model
            .as_ref()
            .is_some_and(|m| m.provider == provider && m.model_id == model_id);
        if !same_model {
            self.append_model_change(provider, model_id)?;
        }
        if recorded.thinking_level.as_deref() != Some(thinking_level) {
            self.append_thinking_level_change(thinking_level)?;
        }
        Ok(())
    }

    pub fn append_compaction(
        &mut self,
        compaction: CompactionEntry,
    ) -> Result<String, SessionError> {
        self.append(EntryKind::Compaction(compaction))
    }

    /// Extension state (not in the model context).
    pub fn append_custom(
        &mut self,
        custom_type: impl Into<String>,
        data: Option<Value>,
    ) -> Result<String, SessionError> {
        self.append(EntryKind::Custom {
            custom_type: custom_type.into(),
            data,
        })
    }

    /// An extension message that enters the model context.
    pub fn append_custom_message(
        &mut self,
        custom_type: impl Into<String>,
        content: UserContent,
        display: bool,
        details: Option<Value>,
    ) -> Result<String, SessionError> {
        self.append(EntryKind::CustomMessage(CustomMessageEntry {
            custom_type: custom_type.into(),
            content,
            display,
            details,
        }))
    }

    /// Sets (or with `None`/empty, clears) the label of `target_id`.
    pub fn append_label(
        &mut self,
        target_id: &str,
        label: Option<String>,
    ) -> Result<String, SessionError> {
        if !self.slots.contains(target_id) {
            return Err(SessionError::UnknownEntry(target_id.to_owned()));
        }
        self.append(EntryKind::Label {
            target_id: target_id.to_owned(),
            label,
        })
    }

    /// Sets the session's display name (an empty name clears it).
    pub fn append_session_info(&mut self, name: Option<String>) -> Result<String, SessionError> {
        self.append(EntryKind::SessionInfo { name })
    }

    /// The session's display name (latest `session_info`; empty clears).
    pub fn session_name(&self) -> Option<String> {
        let named: Vec<&SessionEntry> = self.parsed_entries().collect();
        named.into_iter().rev().find_map(|e| match &e.kind {
            EntryKind::SessionInfo { name } => Some(name.clone().filter(|n| !n.is_empty())),
            _ => None,
        })?
    }

    /// Appends any entry as a child of the leaf and advances the leaf. The line is on disk
    /// (or buffered, before the first assistant message) when this returns.
    pub fn append(&mut self, kind: EntryKind) -> Result<String, SessionError> {
        let id = ids::new_entry_id(&|id| self.slots.contains(id));
        let entry = SessionEntry {
            id: id.clone(),
            parent_id: self.leaf.clone(),
            timestamp: ids::iso_now(),
            kind,
            extra: Map::new(),
            message_extra: Map::new(),
        };
        self.persist_new(&entry)?;
        self.slots.push(Slot::parsed(entry, None));
        self.leaf = Some(id.clone());
        Ok(id)
    }

    fn persist_new(&mut self, entry: &SessionEntry) -> Result<(), SessionError> {
        match &mut self.storage {
            Storage::Memory => Ok(()),
            Storage::File {
                writer,
                persisted: true,
            } => writer.append(&[entry.to_line()]),
            Storage::File { writer, persisted } => {
                // Only checked while buffering: the buffer is small.
                let ready = entry.is_assistant_message() || self.slots.iter().any(|s| s.assistant);
                if !ready {
                    return Ok(());
                }
                let mut lines = lines_of(&self.header, &self.slots, self.source.as_deref())?;
                lines.push(entry.to_line());
                writer.create(&lines)?;
                *persisted = true;
                Ok(())
            }
        }
    }

    /// Writes the buffered file now if it already holds an assistant message.
    fn persist_buffer_if_ready(&mut self) -> Result<(), SessionError> {
        let ready = self.slots.iter().any(|s| s.assistant);
        if let Storage::File { writer, persisted } = &mut self.storage
            && !*persisted
            && ready
        {
            let lines = lines_of(&self.header, &self.slots, self.source.as_deref())?;
            writer.create(&lines)?;
            *persisted = true;
        }
        Ok(())
    }

    /// pi's `createBranchedSession`: switches to a new session file holding only the path
    /// root → `leaf_id` (labels dropped from the path, the rest re-chained, then the labels of
    /// the kept entries re-added at the end), with `parentSession` = the current file. Returns
    /// the new file (written now only if it holds an assistant message).
    pub fn create_branched_session(
        &mut self,
        leaf_id: &str,
    ) -> Result<Option<PathBuf>, SessionError> {
        if !self.slots.contains(leaf_id) {
            return Err(SessionError::UnknownEntry(leaf_id.to_owned()));
        }
        let labels = tree::resolve_labels(self.parsed_entries());
        let mut kept: Vec<SessionEntry> = Vec::new();
        for entry in self.get_branch(Some(leaf_id)) {
            if matches!(entry.kind, EntryKind::Label { .. }) {
                continue;
            }
            let mut entry = entry.clone();
            entry.parent_id = kept.last().map(|e| e.id.clone());
            kept.push(entry);
        }
        let mut taken: std::collections::HashSet<String> =
            kept.iter().map(|e| e.id.clone()).collect();
        let now = ids::iso_now();
        let targets: Vec<String> = kept.iter().map(|e| e.id.clone()).collect();
        for target in targets {
            let Some(label) = labels.get(&target) else {
                continue;
            };
            let id = ids::new_entry_id_in(&taken);
            taken.insert(id.clone());
            kept.push(SessionEntry {
                id,
                parent_id: kept.last().map(|e| e.id.clone()),
                timestamp: now.clone(),
                kind: EntryKind::Label {
                    target_id: target,
                    label: Some(label.label.clone()),
                },
                extra: Map::new(),
                message_extra: Map::new(),
            });
        }
        let parent = self
            .session_file()
            .map(|p| p.to_string_lossy().into_owned());
        let cwd = PathBuf::from(&self.header.cwd);
        let header = new_header(&cwd, parent);
        let storage = match &self.storage {
            Storage::Memory => Storage::Memory,
            Storage::File { writer, .. } => {
                let dir = writer
                    .path()
                    .parent()
                    .map(Path::to_path_buf)
                    .unwrap_or_default();
                let path = dir.join(crate::paths::session_file_name(
                    &header.timestamp,
                    &header.id,
                ));
                Storage::File {
                    writer: SessionWriter::new(path, None),
                    persisted: false,
                }
            }
        };
        *self = Self::from_parts(header, kept, storage);
        self.persist_buffer_if_ready()?;
        Ok(self.session_file().map(Path::to_path_buf))
    }
}

/// The file's lines for `slots` after `header`: each entry read from a file as the very bytes
/// read, the others serialised.
fn lines_of(
    header: &SessionHeader,
    slots: &[Slot],
    source: Option<&File>,
) -> Result<Vec<String>, SessionError> {
    let mut lines = Vec::with_capacity(slots.len() + 2);
    lines.push(header.to_json().to_string());
    for slot in slots {
        let raw = match (slot.span, source) {
            (Some(span), Some(source)) => Some(index::read_line(source, span)),
            _ => None,
        };
        let line = match raw {
            Some(Ok(bytes)) => String::from_utf8_lossy(&bytes).into_owned(),
            Some(Err(source)) => {
                return Err(SessionError::Unreadable {
                    id: slot.id.to_string(),
                    source,
                });
            }
            None => match slot.entry.get() {
                Some(entry) => entry.to_line(),
                None => continue,
            },
        };
        lines.push(line);
    }
    Ok(lines)
}
