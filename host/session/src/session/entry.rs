//! The session file's header and entries (pi's JSONL v3), with pi's field names.
//!
//! Every entry keeps the fields this version does not model in `extra`, and entry types we do
//! not know are kept whole, so a file round-trips unchanged.

use crate::messages::{self, AgentMessage};
use pi_ai::{Usage, UserContent};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The format version this crate writes.
pub const CURRENT_SESSION_VERSION: u64 = 3;

/// Line 1 of a session file.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionHeader {
    /// `None` in v1 files.
    pub version: Option<u64>,
    pub id: String,
    pub timestamp: String,
    pub cwd: String,
    /// The file this session was forked or cloned from.
    pub parent_session: Option<String>,
    /// Legacy or future header fields (`provider`, `modelId`, `branchedFrom`, …), kept as is.
    pub extra: Map<String, Value>,
}

impl SessionHeader {
    pub fn from_json(value: Value) -> Option<SessionHeader> {
        let Value::Object(mut map) = value else {
            return None;
        };
        if map.get("type").and_then(Value::as_str) != Some("session") {
            return None;
        }
        let id = map.get("id")?.as_str()?.to_owned();
        map.shift_remove("type");
        map.shift_remove("id");
        let take_str = |map: &mut Map<String, Value>, key: &str| match map.shift_remove(key) {
            Some(Value::String(s)) => Some(s),
            Some(other) => {
                map.insert(key.to_owned(), other);
                None
            }
            None => None,
        };
        let version = match map.shift_remove("version") {
            Some(v) => v.as_u64(),
            None => None,
        };
        let timestamp = take_str(&mut map, "timestamp").unwrap_or_default();
        let cwd = take_str(&mut map, "cwd").unwrap_or_default();
        let parent_session = take_str(&mut map, "parentSession");
        Some(SessionHeader {
            version,
            id,
            timestamp,
            cwd,
            parent_session,
            extra: map,
        })
    }

    pub fn to_json(&self) -> Value {
        let mut map = Map::new();
        map.insert("type".into(), "session".into());
        if let Some(v) = self.version {
            map.insert("version".into(), v.into());
        }
        map.insert("id".into(), self.id.clone().into());
        map.insert("timestamp".into(), self.timestamp.clone().into());
        map.insert("cwd".into(), self.cwd.clone().into());
        if let Some(parent) = &self.parent_session {
            map.insert("parentSession".into(), parent.clone().into());
        }
        for (k, v) in &self.extra {
            map.entry(k.clone()).or_insert_with(|| v.clone());
        }
        Value::Object(map)
    }
}

/// Files read and changed during the summarised work (`details` of summaries).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileOpsDetails {
    #[serde(default)]
    pub read_files: Vec<String>,
    #[serde(default)]
    pub modified_files: Vec<String>,
}

/// A `compaction` entry.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactionEntry {
    pub summary: String,
    #[serde(default)]
    pub first_kept_entry_id: String,
    #[serde(default)]
    pub tokens_before: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    /// Usage of the summarization call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_hook: Option<bool>,
}

/// A `branch_summary` entry.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BranchSummaryEntry {
    /// The entry branched from, or `"root"`.
    pub from_id: String,
    pub summary: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_hook: Option<bool>,
}

/// A `custom_message` entry: an extension message that enters the model context.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomMessageEntry {
    pub custom_type: String,
    pub content: UserContent,
    #[serde(default)]
    pub display: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

/// What an entry records.
#[derive(Debug, Clone, PartialEq)]
pub enum EntryKind {
    Message(AgentMessage),
    ModelChange {
        provider: String,
        model_id: String,
    },
    ThinkingLevelChange {
        thinking_level: String,
    },
    Compaction(CompactionEntry),
    BranchSummary(BranchSummaryEntry),
    /// Extension state; never in the model context.
    Custom {
        custom_type: String,
        data: Option<Value>,
    },
    CustomMessage(CustomMessageEntry),
    /// `label: None` (or empty) clears the label of `target_id`.
    Label {
        target_id: String,
        label: Option<String>,
    },
    SessionInfo {
        name: Option<String>,
    },
    /// An entry type this version does not know; all its fields are in `extra`.
    Unknown {
        entry_type: String,
    },
}

impl EntryKind {
    /// pi's `type` string.
    pub fn type_name(&self) -> &str {
        match self {
            EntryKind::Message(_) => "message",
            EntryKind::ModelChange { .. } => "model_change",
            EntryKind::ThinkingLevelChange { .. } => "thinking_level_change",
            EntryKind::Compaction(_) => "compaction",
            EntryKind::BranchSummary(_) => "branch_summary",
            EntryKind::Custom { .. } => "custom",
            EntryKind::CustomMessage(_) => "custom_message",
            EntryKind::Label { .. } => "label",
            EntryKind::SessionInfo { .. } => "session_info",
            EntryKind::Unknown { entry_type } => entry_type,
        }
    }
}

/// One line after the header.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionEntry {
    pub id: String,
    pub parent_id: Option<String>,
    /// ISO-8601 string, kept exactly as read.
    pub timestamp: String,
    pub kind: EntryKind,
    /// Entry fields this version does not model.
    pub extra: Map<String, Value>,
    /// For `message` entries: fields of the `message` object this version does not model.
    pub message_extra: Map<String, Value>,
}

/// Why a line could not be read as an entry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EntryError {
    #[error("not a JSON object")]
    NotAnObject,
    #[error("message needs the careful reader")]
    Retry,
    #[error("missing string field `{0}`")]
    Missing(&'static str),
    #[error("invalid `{entry_type}` entry: {message}")]
    Invalid { entry_type: String, message: String },
}

fn known_entry_fields(entry_type: &str) -> Option<&'static [&'static str]> {
    Some(match entry_type {
        "message" => &["message"],
        "model_change" => &["provider", "modelId"],
        "thinking_level_change" => &["thinkingLevel"],
        "compaction" => &[
            "summary",
            "firstKeptEntryId",
            "tokensBefore",
            "details",
            "usage",
            "fromHook",
        ],
        "branch_summary" => &["fromId", "summary", "details", "usage", "fromHook"],
        "custom" => &["customType", "data"],
        "custom_message" => &["customType", "content", "display", "details"],
        "label" => &["targetId", "label"],
        "session_info" => &["name"],
        _ => return None,
    })
}

fn take_string(map: &mut Map<String, Value>, key: &str) -> Option<String> {
    match map.shift_remove(key) {
        Some(Value::String(s)) => Some(s),
        Some(other) => {
            map.insert(key.to_owned(), other);
            None
        }
        None => None,
    }
}

impl SessionEntry {
    /// Reads one entry object.
    pub fn from_json(value: Value) -> Result<SessionEntry, EntryError> {
        Self::from_json_with(value, false)
    }

    /// Reads one entry object, moving strings out of it. `Err(EntryError::Retry)` when a
    /// message did not parse this way: read the line again with [`from_json`](Self::from_json)
    /// (which keeps such a message verbatim).
    pub fn from_json_owned(value: Value) -> Result<SessionEntry, EntryError> {
        Self::from_json_with(value, true)
    }

    fn from_json_with(value: Value, owned: bool) -> Result<SessionEntry, EntryError> {
        let Value::Object(mut map) = value else {
            return Err(EntryError::NotAnObject);
        };
        let entry_type = take_string(&mut map, "type").ok_or(EntryError::Missing("type"))?;
        let id = take_string(&mut map, "id").ok_or(EntryError::Missing("id"))?;
        let parent_id = match map.shift_remove("parentId") {
            Some(Value::String(s)) => Some(s),
            _ => None,
        };
        let timestamp = take_string(&mut map, "timestamp").unwrap_or_default();
        let Some(known) = known_entry_fields(&entry_type) else {
            return Ok(SessionEntry {
                id,
                parent_id,
                timestamp,
                kind: EntryKind::Unknown { entry_type },
                extra: map,
                message_extra: Map::new(),
            });
        };
        let mut fields = Map::new();
        for key in known {
            if let Some(v) = map.shift_remove(*key) {
                fields.insert((*key).to_owned(), v);
            }
        }
        let (kind, extra, message_extra) = parse_kind(&entry_type, fields, map, owned)?;
        Ok(SessionEntry {
            id,
            parent_id,
            timestamp,
            kind,
            extra,
            message_extra,
        })
    }

    /// The entry as pi writes it.
    pub fn to_json(&self) -> Value {
        let mut map = Map::new();
        map.insert("type".into(), self.kind.type_name().into());
        map.insert("id".into(), self.id.clone().into());
        map.insert(
            "parentId".into(),
            self.parent_id.clone().map_or(Value::Null, Value::String),
        );
        // A timestamp that was not a string is kept verbatim in `extra`: write it back as read,
        // or a rewrite of the file would lose it.
        let timestamp = match self.extra.get("timestamp") {
            Some(verbatim) if self.timestamp.is_empty() => verbatim.clone(),
            _ => self.timestamp.clone().into(),
        };
        map.insert("timestamp".into(), timestamp);
        match &self.kind {
            EntryKind::Message(message) => {
                map.insert(
                    "message".into(),
                    messages::to_json(message, &self.message_extra),
                );
            }
            EntryKind::ModelChange { provider, model_id } => {
                map.insert("provider".into(), provider.clone().into());
                map.insert("modelId".into(), model_id.clone().into());
            }
            EntryKind::ThinkingLevelChange { thinking_level } => {
                map.insert("thinkingLevel".into(), thinking_level.clone().into());
            }
            EntryKind::Compaction(c) => extend_with(&mut map, c),
            EntryKind::BranchSummary(b) => extend_with(&mut map, b),
            EntryKind::Custom { custom_type, data } => {
                map.insert("customType".into(), custom_type.clone().into());
                if let Some(data) = data {
                    map.insert("data".into(), data.clone());
                }
            }
            EntryKind::CustomMessage(c) => extend_with(&mut map, c),
            EntryKind::Label { target_id, label } => {
                map.insert("targetId".into(), target_id.clone().into());
                if let Some(label) = label {
                    map.insert("label".into(), label.clone().into());
                }
            }
            EntryKind::SessionInfo { name } => {
                if let Some(name) = name {
                    map.insert("name".into(), name.clone().into());
                }
            }
            EntryKind::Unknown { .. } => {}
        }
        for (k, v) in &self.extra {
            map.entry(k.clone()).or_insert_with(|| v.clone());
        }
        Value::Object(map)
    }

    /// The entry as one JSONL line (without the newline).
    pub fn to_line(&self) -> String {
        self.to_json().to_string()
    }

    /// The stored message, for `message` entries.
    pub fn message(&self) -> Option<&AgentMessage> {
        match &self.kind {
            EntryKind::Message(m) => Some(m),
            _ => None,
        }
    }

    pub fn is_assistant_message(&self) -> bool {
        matches!(&self.kind, EntryKind::Message(m) if m.as_assistant().is_some())
    }
}

fn extend_with<T: Serialize>(map: &mut Map<String, Value>, fields: &T) {
    if let Ok(Value::Object(fields)) = serde_json::to_value(fields) {
        map.extend(fields);
    }
}

fn invalid(entry_type: &str, err: impl std::fmt::Display) -> EntryError {
    EntryError::Invalid {
        entry_type: entry_type.to_owned(),
        message: err.to_string(),
    }
}

/// The kind, entry-level unknown fields, message-level unknown fields.
type ParsedKind = (EntryKind, Map<String, Value>, Map<String, Value>);

fn parse_kind(
    entry_type: &str,
    mut fields: Map<String, Value>,
    extra: Map<String, Value>,
    owned: bool,
) -> Result<ParsedKind, EntryError> {
    let kind = match entry_type {
        "message" => {
            let value = fields.shift_remove("message").unwrap_or(Value::Null);
            let (message, message_extra) = if owned {
                messages::from_json_owned(value).ok_or(EntryError::Retry)?
            } else {
                messages::from_json(value)
            };
            return Ok((EntryKind::Message(message), extra, message_extra));
        }
        "model_change" => EntryKind::ModelChange {
            provider: take_string(&mut fields, "provider").unwrap_or_default(),
            model_id: take_string(&mut fields, "modelId").unwrap_or_default(),
        },
        "thinking_level_change" => EntryKind::ThinkingLevelChange {
            thinking_level: take_string(&mut fields, "thinkingLevel").unwrap_or_default(),
        },
        "compaction" => EntryKind::Compaction(
            CompactionEntry::deserialize(Value::Object(fields))
                .map_err(|e| invalid(entry_type, e))?,
        ),
        "branch_summary" => EntryKind::BranchSummary(
            BranchSummaryEntry::deserialize(Value::Object(fields))
                .map_err(|e| invalid(entry_type, e))?,
        ),
        "custom" => EntryKind::Custom {
            custom_type: take_string(&mut fields, "customType").unwrap_or_default(),
            data: fields.shift_remove("data"),
        },
        "custom_message" => EntryKind::CustomMessage(
            CustomMessageEntry::deserialize(Value::Object(fields))
                .map_err(|e| invalid(entry_type, e))?,
        ),
        "label" => EntryKind::Label {
            target_id: take_string(&mut fields, "targetId").unwrap_or_default(),
            label: take_string(&mut fields, "label"),
        },
        _ => EntryKind::SessionInfo {
            name: take_string(&mut fields, "name"),
        },
    };
    Ok((kind, extra, Map::new()))
}
