//! Upgrades of old session files to v3, done on the raw JSON so every field survives.
//!
//! v1 → v2: entries get ids and a linear `parentId` chain in file order; a compaction's
//! `firstKeptEntryIndex` (an index into the lines, header = 0) becomes `firstKeptEntryId`.
//! v2 → v3: the message role `hookMessage` becomes `custom`.

use super::entry::CURRENT_SESSION_VERSION;
use super::ids::new_entry_id_in;
use serde_json::{Map, Value};
use std::collections::HashSet;

/// Migrates `header` and `entries` in place from `version` to v3. Returns whether anything
/// changed (the file must then be rewritten).
pub fn migrate(version: u64, header: &mut Map<String, Value>, entries: &mut [Value]) -> bool {
    if version >= CURRENT_SESSION_VERSION {
        return false;
    }
    if version < 2 {
        v1_to_v2(entries);
    }
    v2_to_v3(entries);
    header.insert("version".into(), CURRENT_SESSION_VERSION.into());
    true
}

fn v1_to_v2(entries: &mut [Value]) {
    let mut taken: HashSet<String> = entries
        .iter()
        .filter_map(|e| e.get("id").and_then(Value::as_str).map(str::to_owned))
        .collect();
    let mut ids = Vec::with_capacity(entries.len());
    let mut previous: Option<String> = None;
    for entry in entries.iter_mut() {
        let Value::Object(map) = entry else {
            ids.push(None);
            continue;
        };
        let id = match map.get("id").and_then(Value::as_str) {
            Some(id) => id.to_owned(),
            None => {
                let id = new_entry_id_in(&taken);
                taken.insert(id.clone());
                id
            }
        };
        // Keep pi's key order: type, id, parentId, timestamp, ….
        let mut ordered = Map::new();
        if let Some(t) = map.shift_remove("type") {
            ordered.insert("type".into(), t);
        }
        map.shift_remove("id");
        ordered.insert("id".into(), id.clone().into());
        let parent = map
            .shift_remove("parentId")
            .unwrap_or_else(|| previous.clone().map_or(Value::Null, Value::String));
        ordered.insert("parentId".into(), parent);
        ordered.append(map);
        *map = ordered;
        previous = Some(id.clone());
        ids.push(Some(id));
    }
    for entry in entries.iter_mut() {
        let Value::Object(map) = entry else { continue };
        if map.get("type").and_then(Value::as_str) != Some("compaction") {
            continue;
        }
        let Some(index) = map.shift_remove("firstKeptEntryIndex") else {
            continue;
        };
        // The index counts the header as line 0.
        let kept = index
            .as_u64()
            .and_then(|i| usize::try_from(i).ok())
            .and_then(|i| i.checked_sub(1))
            .and_then(|i| ids.get(i).cloned().flatten());
        if let Some(kept) = kept {
            map.insert("firstKeptEntryId".into(), kept.into());
        }
    }
}

fn v2_to_v3(entries: &mut [Value]) {
    for entry in entries.iter_mut() {
        if entry.get("type").and_then(Value::as_str) != Some("message") {
            continue;
        }
        let Some(message) = entry.get_mut("message").and_then(Value::as_object_mut) else {
            continue;
        };
        if message.get("role").and_then(Value::as_str) == Some("hookMessage") {
            message.insert("role".into(), "custom".into());
        }
    }
}
