//! The compact index of a session file: one [`Slot`] per entry with its id, parent, time, type
//! and the byte range of its line, built in one pass over the file.
//!
//! Messages, `custom` state and entry types this version does not know (the bulk of a long
//! session) stay byte ranges: they are parsed when something asks for them (the context of the
//! current branch, the tree view, a fork, an export) and written back as the very bytes read,
//! so they round-trip unchanged. The other entry types are small and are parsed at once, which
//! also reports every invalid one at load, as a full parse would.

use super::SessionError;
use super::entry::{EntryKind, SessionEntry};
use super::file::{self, LineInfo, LineOutcome, LoadWarning, Repair, Start};
use crate::messages::AgentMessage;
use serde::Deserialize;
use serde_json::Map;
use std::borrow::Cow;
use std::fs::File;
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// Where an entry's line is in the source file.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Span {
    pub offset: u64,
    pub len: u32,
    /// 1-based line number, for messages.
    pub line: u32,
}

impl Span {
    /// The span of a line; `None` past 4 GB for one line or 4 billion lines, which the index
    /// then holds parsed instead.
    fn of(offset: u64, len: usize, line: usize) -> Option<Span> {
        Some(Span {
            offset,
            len: u32::try_from(len).ok()?,
            line: u32::try_from(line).ok()?,
        })
    }
}

/// One entry of the index. Its strings are boxed at their length and known entry types are
/// not allocated at all: a long session has one slot per line.
#[derive(Debug)]
pub(crate) struct Slot {
    pub id: Box<str>,
    pub parent_id: Option<Box<str>>,
    pub timestamp: Box<str>,
    pub entry_type: Cow<'static, str>,
    /// A `message` entry whose role is `assistant`.
    pub assistant: bool,
    /// The role of a `message` entry, when it is one of the three model roles.
    pub role: Option<&'static str>,
    /// The line in the source file; `None` for an entry made in this process.
    pub span: Option<Span>,
    /// The parsed entry, once something needed it (always set for small entry types and for
    /// entries made in this process).
    pub entry: OnceLock<Box<SessionEntry>>,
}

impl Slot {
    /// A slot holding `entry` itself.
    pub fn parsed(entry: SessionEntry, span: Option<Span>) -> Slot {
        let slot = Slot {
            id: entry.id.as_str().into(),
            parent_id: entry.parent_id.as_deref().map(Box::from),
            timestamp: entry.timestamp.as_str().into(),
            entry_type: type_name(entry.kind.type_name()),
            assistant: entry.is_assistant_message(),
            role: entry.message().map(AgentMessage::role).and_then(model_role),
            span,
            entry: OnceLock::new(),
        };
        let _ = slot.entry.set(Box::new(entry));
        slot
    }

    /// Whether this slot's entry is parsed only when asked.
    pub fn is_lazy(&self) -> bool {
        is_lazy_type(&self.entry_type)
    }
}

/// The entry types this version knows, held without an allocation.
const KNOWN_TYPES: [&str; 9] = [
    "message",
    "custom",
    "model_change",
    "thinking_level_change",
    "compaction",
    "branch_summary",
    "custom_message",
    "label",
    "session_info",
];

fn type_name(entry_type: &str) -> Cow<'static, str> {
    match KNOWN_TYPES.into_iter().find(|known| *known == entry_type) {
        Some(known) => Cow::Borrowed(known),
        None => Cow::Owned(entry_type.to_owned()),
    }
}

fn model_role(role: &str) -> Option<&'static str> {
    ["user", "assistant", "toolResult"]
        .into_iter()
        .find(|r| *r == role)
}

/// Entry types kept as byte ranges: messages, extension state and types this version does not
/// know. Their reading never fails once the line's head is read, so keeping them unparsed
/// loses no load warning.
fn is_lazy_type(entry_type: &str) -> bool {
    matches!(entry_type, "message" | "custom")
        || !matches!(
            entry_type,
            "model_change"
                | "thinking_level_change"
                | "compaction"
                | "branch_summary"
                | "custom_message"
                | "label"
                | "session_info"
        )
}

/// The fields of a line the index keeps; everything else is skipped unread.
#[derive(Deserialize)]
struct Head<'a> {
    #[serde(rename = "type", borrow)]
    entry_type: Cow<'a, str>,
    #[serde(borrow)]
    id: Cow<'a, str>,
    #[serde(rename = "parentId", default, borrow)]
    parent_id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    message: Option<MessageHead<'a>>,
}

#[derive(Deserialize)]
struct MessageHead<'a> {
    #[serde(default, borrow)]
    role: Option<Cow<'a, str>>,
}

/// What one line gave the index.
struct IndexedLine {
    slot: Option<Slot>,
    warning: Option<LoadWarning>,
    repair: Option<Repair>,
}

/// Reads the head of a line; a line the head does not fit (not an object, a field of an odd
/// type, a duplicate key, a small entry type) is parsed whole instead, exactly as a full load
/// parses it.
fn index_line(text: &[u8], line: LineInfo) -> IndexedLine {
    let span = Span::of(line.start, text.len(), line.number);
    let head = std::str::from_utf8(text)
        .ok()
        .filter(|_| span.is_some())
        .and_then(|s| serde_json::from_str::<Head>(s).ok())
        .filter(|head| is_lazy_type(&head.entry_type));
    // Strings the head skips are not checked for lone surrogates (`\uD800`), which a full
    // parse rejects: a line with a `\u` escape is parsed whole once to decide, then dropped.
    if head.is_some() && memchr::memmem::find(text, b"\\u").is_some() {
        let outcome = file::parse_entry_line(text, line);
        if outcome.entry.is_none() {
            return IndexedLine {
                slot: None,
                warning: outcome.warning,
                repair: outcome.repair,
            };
        }
    }
    if let Some(head) = head {
        let role = match head.message {
            Some(message) if head.entry_type == "message" => {
                message.role.as_deref().and_then(model_role)
            }
            _ => None,
        };
        return IndexedLine {
            slot: Some(Slot {
                assistant: role == Some("assistant"),
                role,
                id: head.id.into(),
                parent_id: head.parent_id.map(Box::from),
                timestamp: head.timestamp.map(Box::from).unwrap_or_default(),
                entry_type: type_name(&head.entry_type),
                span,
                entry: OnceLock::new(),
            }),
            warning: None,
            repair: (!line.complete).then_some(Repair::AddNewline),
        };
    }
    let LineOutcome {
        entry,
        warning,
        repair,
    } = file::parse_entry_line(text, line);
    IndexedLine {
        slot: entry.map(|e| Slot::parsed(e, span)),
        warning,
        repair,
    }
}

/// A session file as indexed.
pub(crate) struct IndexedFile {
    pub header: super::entry::SessionHeader,
    pub slots: Vec<Slot>,
    pub warnings: Vec<LoadWarning>,
    pub repair: Option<Repair>,
    pub empty: bool,
    /// The open file the lazy slots' spans point into.
    pub source: Option<Arc<File>>,
}

/// Indexes `path`. A v1/v2 file is loaded whole and migrated instead (such files are old and
/// small, and the migration rewrites them).
pub(crate) fn index_file(path: &Path) -> Result<IndexedFile, SessionError> {
    let io_err = file::io_error(path);
    let Start {
        mut lines,
        header,
        mut warnings,
        mut repair,
    } = file::read_start(path)?;
    let Some(header) = header else {
        return Ok(IndexedFile {
            header: file::empty_header(),
            slots: Vec::new(),
            warnings,
            repair,
            empty: true,
            source: None,
        });
    };
    if header.version.unwrap_or(1) < super::entry::CURRENT_SESSION_VERSION {
        drop(lines);
        let loaded = file::load(path)?;
        return Ok(IndexedFile {
            header: loaded.header,
            slots: loaded
                .entries
                .into_iter()
                .map(|e| Slot::parsed(e, None))
                .collect(),
            warnings: loaded.warnings,
            repair: loaded.repair,
            empty: false,
            source: None,
        });
    }
    let outcomes = file::parse_lines_parallel(&mut lines, index_line).map_err(&io_err)?;
    let mut slots = Vec::with_capacity(outcomes.len());
    for outcome in outcomes {
        slots.extend(outcome.slot);
        warnings.extend(outcome.warning);
        repair = outcome.repair.or(repair);
    }
    for w in &warnings {
        tracing::warn!(file = %path.display(), "{w}");
    }
    let source = File::open(path).map_err(&io_err)?;
    Ok(IndexedFile {
        header,
        slots,
        warnings,
        repair,
        empty: false,
        source: Some(Arc::new(source)),
    })
}

/// Reads `len` bytes at `offset`.
fn read_at(file: &File, offset: u64, len: usize) -> std::io::Result<Vec<u8>> {
    let mut buf = vec![0; len];
    #[cfg(unix)]
    std::os::unix::fs::FileExt::read_exact_at(file, &mut buf, offset)?;
    #[cfg(windows)]
    {
        let mut done = 0;
        while done < len {
            let n = std::os::windows::fs::FileExt::seek_read(
                file,
                &mut buf[done..],
                offset + done as u64,
            )?;
            if n == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            done += n;
        }
    }
    Ok(buf)
}

/// The raw line of a slot read from `source` (without its newline).
pub(crate) fn read_line(source: &File, span: Span) -> std::io::Result<Vec<u8>> {
    read_at(source, span.offset, span.len as usize)
}

/// Parses the line of `slot` from `source`. `None` (logged) when the file no longer holds that
/// entry there: it was rewritten behind this process's back.
pub(crate) fn materialise(source: &File, slot: &Slot) -> Option<SessionEntry> {
    let span = slot.span?;
    let text = match read_line(source, span) {
        Ok(text) => text,
        Err(err) => {
            tracing::warn!(
                line = span.line,
                "cannot read session entry {}: {err}",
                slot.id
            );
            return None;
        }
    };
    let info = LineInfo {
        number: span.line as usize,
        start: span.offset,
        complete: true,
    };
    let entry = file::parse_entry_line(&text, info).entry;
    match entry {
        Some(entry) if *entry.id == *slot.id => Some(entry),
        _ => {
            tracing::warn!(
                line = span.line,
                "session entry {} changed on disk since it was opened",
                slot.id
            );
            None
        }
    }
}

/// The entry of `slot` as the context needs it. A model message is read straight into its type
/// from the line: the context needs only the message, and a lazy entry is written back from its
/// bytes, so the unknown fields a full read keeps are not needed (that read goes through a JSON
/// tree and costs about twice as much). Any line this read does not take is read in full.
pub(crate) fn materialise_for_context(source: &File, slot: &Slot) -> Option<SessionEntry> {
    if let (Some(role), Some(span), None) = (slot.role, slot.span, slot.entry.get())
        && slot.entry_type == "message"
        && let Ok(text) = read_line(source, span)
        && let Some(message) = super::message_line::message_of_line(&text, role, &slot.id)
    {
        return Some(SessionEntry {
            id: slot.id.to_string(),
            parent_id: slot.parent_id.as_deref().map(str::to_owned),
            timestamp: slot.timestamp.to_string(),
            kind: EntryKind::Message(message),
            extra: Map::new(),
            message_extra: Map::new(),
        });
    }
    materialise(source, slot)
}

/// Parses the entries of `slots` (cached ones are cloned) on worker threads, in order.
pub(crate) fn materialise_all(source: Option<&File>, slots: &[&Slot]) -> Vec<SessionEntry> {
    par_filter_map(slots, |slot| cached_or(source, slot, materialise))
}

/// [`materialise_all`] for the context ([`materialise_for_context`]).
pub(crate) fn materialise_context(source: Option<&File>, slots: &[&Slot]) -> Vec<SessionEntry> {
    par_filter_map(slots, |slot| {
        cached_or(source, slot, materialise_for_context)
    })
}

fn cached_or(
    source: Option<&File>,
    slot: &Slot,
    read: fn(&File, &Slot) -> Option<SessionEntry>,
) -> Option<SessionEntry> {
    match slot.entry.get() {
        Some(entry) => Some((**entry).clone()),
        None => read(source?, slot),
    }
}

/// `f` of each of `items` on worker threads (a short list on this one), in order.
pub(crate) fn par_filter_map<I: Sync, T: Send>(
    items: &[I],
    f: impl Fn(&I) -> Option<T> + Sync,
) -> Vec<T> {
    let workers = std::thread::available_parallelism()
        .map(usize::from)
        .unwrap_or(1)
        .clamp(1, 4);
    if workers == 1 || items.len() < 64 {
        return items.iter().filter_map(f).collect();
    }
    let chunk = items.len().div_ceil(workers);
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    let mut out = Vec::with_capacity(part.len());
                    out.extend(part.iter().filter_map(f));
                    out
                })
            })
            .collect();
        // The first part grows to hold the others (a large buffer grows in place), so the
        // results are not all held twice while they are joined.
        let mut parts = handles.into_iter().map(|h| h.join().unwrap_or_default());
        let mut out = parts.next().unwrap_or_default();
        for mut part in parts {
            out.append(&mut part);
        }
        out
    })
}
