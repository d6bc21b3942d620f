//! Entries held as byte ranges until asked for: a file pi 1.x wrote (entry types and fields
//! this version does not know) survives open → append → reopen byte for byte, and the tree,
//! fork, clone, export and the context over lazily held entries equal what the whole file
//! parsed up front gives.

use pi_session::export_html::render_entries;
use pi_session::session::{SessionEntry, SessionManager, build_session_context, file, tree};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::Path;

const STAMP: &str = "2026-03-01T10:00:00.000Z";

fn entry(kind: &str, id: &str, parent: Option<&str>, fields: Value) -> Value {
    let mut value = json!({"type": kind, "id": id, "parentId": parent, "timestamp": STAMP});
    if let (Value::Object(map), Value::Object(extra)) = (&mut value, fields) {
        map.extend(extra);
    }
    value
}

fn message(id: &str, parent: Option<&str>, message: Value) -> Value {
    entry("message", id, parent, json!({ "message": message }))
}

fn assistant(text: &str, model: &str) -> Value {
    json!({"role": "assistant", "content": [{"type": "text", "text": text}],
        "api": "openai-completions", "provider": "p", "model": model,
        "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
                  "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
        "stopReason": "stop", "timestamp": 2,
        // pi 1.x additions this version does not model.
        "thinkingLevel": "high", "providerThinkingLevel": "medium", "endTurn": true})
}

fn user(text: &str) -> Value {
    json!({"role": "user", "content": text, "timestamp": 1})
}

/// A session as pi 1.x writes it: a system message, `usage` and `context_edit` entries, a
/// compaction with `systemMessage`, a side branch, a label, and unknown fields everywhere.
/// Lines are written with spaces after the separators, which a re-serialisation would lose.
fn pi_1x_lines() -> Vec<String> {
    let values = vec![
        json!({"type": "session", "version": 3, "id": "0195f3c0-0000-7000-8000-00000000abcd",
               "timestamp": STAMP, "cwd": "/p", "futureHeaderField": [1, 2]}),
        message(
            "a0000001",
            None,
            json!({"role": "system", "content": "",
            "sections": {"preamble": "You are a coding assistant", "cwd": "<cwd>/p</cwd>"},
            "toolsAdded": [{"name": "read", "description": "Read", "parameters": {}}],
            "toolsRemoved": [], "timestamp": 0}),
        ),
        entry(
            "model_change",
            "a0000002",
            Some("a0000001"),
            json!({"provider": "p", "modelId": "m1"}),
        ),
        message("a0000003", Some("a0000002"), user("first question")),
        message(
            "a0000004",
            Some("a0000003"),
            assistant("first answer", "m1"),
        ),
        entry(
            "usage",
            "a0000005",
            Some("a0000004"),
            json!({"kind": "cache_warm", "provider": "p",
            "model": "m1", "usage": {"input": 5}, "note": "warm"}),
        ),
        message("a0000006", Some("a0000005"), user("second question")),
        message(
            "a0000007",
            Some("a0000006"),
            assistant("a failed attempt", "m1"),
        ),
        entry(
            "context_edit",
            "a0000008",
            Some("a0000007"),
            json!({"targetId": "a0000007", "replacement": null}),
        ),
        message(
            "a0000009",
            Some("a0000008"),
            assistant("the second answer", "m1"),
        ),
        entry(
            "compaction",
            "a0000010",
            Some("a0000009"),
            json!({"summary": "Asked two questions.",
            "firstKeptEntryId": "a0000006", "tokensBefore": 1234,
            "systemMessage": {"role": "system", "content": "checkpoint"}}),
        ),
        entry(
            "custom",
            "a0000011",
            Some("a0000010"),
            json!({"customType": "codemode-store",
            "data": {"k": [1, 2, 3]}, "futureField": "kept"}),
        ),
        message("a0000012", Some("a0000011"), user("third question")),
        entry(
            "context_edit",
            "a0000013",
            Some("a0000012"),
            json!({"targetId": "a0000012",
            "replacement": {"content": "third question, reworded"}}),
        ),
        message(
            "a0000014",
            Some("a0000013"),
            assistant("third answer", "m2"),
        ),
        // A side branch from the first answer, then a label on it.
        message("b0000001", Some("a0000004"), user("a side question")),
        message(
            "b0000002",
            Some("b0000001"),
            assistant("a side answer", "m1"),
        ),
        entry(
            "label",
            "b0000003",
            Some("b0000002"),
            json!({"targetId": "b0000001", "label": "side"}),
        ),
        // Back on the main branch: the last entry is the leaf.
        message("a0000015", Some("a0000014"), user("fourth question")),
        message(
            "a0000016",
            Some("a0000015"),
            assistant("fourth answer", "m2"),
        ),
    ];
    values
        .iter()
        .map(|v| {
            serde_json::to_string(v)
                .unwrap()
                .replace("\",\"", "\", \"")
                .replace("\":", "\": ")
        })
        .collect()
}

fn write_fixture(path: &Path) -> String {
    let mut text = pi_1x_lines().join("\n");
    text.push('\n');
    std::fs::write(path, &text).unwrap();
    text
}

#[test]
fn a_pi_1x_file_survives_open_append_reopen_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let original = write_fixture(&path);
    let mut s = SessionManager::open(&path, Path::new("/p")).unwrap();
    assert!(s.warnings().is_empty(), "{:?}", s.warnings());
    // Ask for some entries (the tree, the context), then append.
    let _ = s.tree();
    let _ = s.build_session_context();
    s.append_session_info(Some("named".into())).unwrap();
    drop(s);
    let after = std::fs::read_to_string(&path).unwrap();
    assert!(after.starts_with(&original), "the file's old lines changed");
    assert_eq!(after[original.len()..].lines().count(), 1);

    let s = SessionManager::open(&path, Path::new("/p")).unwrap();
    assert_eq!(s.session_name().as_deref(), Some("named"));
    let eager = file::load(&path).unwrap();
    let lazy: Vec<Value> = s.entries().iter().map(|e| e.to_json()).collect();
    let full: Vec<Value> = eager.entries.iter().map(SessionEntry::to_json).collect();
    assert_eq!(lazy, full);
}

#[test]
fn the_context_of_lazily_held_entries_equals_the_whole_file_parsed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    write_fixture(&path);
    let s = SessionManager::open(&path, Path::new("/p")).unwrap();
    let eager = file::load(&path).unwrap();
    let index: HashMap<String, usize> = eager
        .entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.id.clone(), i))
        .collect();
    let branch = tree::branch(&eager.entries, &index, Some("a0000016"));
    let expected = build_session_context(&branch);
    let context = s.build_session_context();
    assert_eq!(context, expected);
    // Compaction summary, the kept second question and answer, then what followed; the failed
    // attempt is hidden and the third question reworded.
    let texts: Vec<String> = context
        .messages
        .iter()
        .map(|m| serde_json::to_value(m).unwrap().to_string())
        .collect();
    assert_eq!(texts.len(), 7, "{texts:#?}");
    assert!(texts[0].contains("Asked two questions."), "{texts:#?}");
    assert!(texts[1].contains("second question"), "{texts:#?}");
    assert!(texts.iter().all(|t| !t.contains("a failed attempt")));
    assert!(texts.iter().any(|t| t.contains("third question, reworded")));
    let settings = s.branch_settings();
    assert_eq!(settings.model.map(|m| m.model_id).as_deref(), Some("m2"));
    assert_eq!(settings.thinking_level, None);
}

#[test]
fn tree_fork_clone_and_export_over_lazy_entries_equal_the_whole_file_parsed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let original = write_fixture(&path);
    let eager = file::load(&path).unwrap();
    let index: HashMap<String, usize> = eager
        .entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.id.clone(), i))
        .collect();

    // The tree view.
    let s = SessionManager::open(&path, Path::new("/p")).unwrap();
    let labels = tree::resolve_labels(&eager.entries);
    assert_eq!(s.tree(), tree::build_tree(&eager.entries, &index, labels));
    assert_eq!(s.label_of("b0000001").as_deref(), Some("side"));

    // Export renders the same page.
    let all: Vec<&SessionEntry> = eager.entries.iter().collect();
    assert_eq!(
        render_entries(s.header(), &s.entries()),
        render_entries(&eager.header, &all)
    );

    // Fork: the new file holds every entry line exactly as read.
    let forks = dir.path().join("forks");
    let forked = SessionManager::fork_from(&path, Path::new("/q"), &forks).unwrap();
    let forked_text = std::fs::read_to_string(forked.session_file().unwrap()).unwrap();
    let (_, entry_lines) = original.split_once('\n').unwrap();
    let (header, forked_entries) = forked_text.split_once('\n').unwrap();
    assert_eq!(forked_entries, entry_lines);
    assert!(header.contains("\"parentSession\""));

    // Clone of the side branch: the path without labels, re-chained, then its labels.
    let mut cloned = SessionManager::open(&path, Path::new("/p")).unwrap();
    let new_file = cloned.create_branched_session("b0000002").unwrap().unwrap();
    let reloaded = file::load(&new_file).unwrap();
    let ids: Vec<&str> = reloaded.entries.iter().map(|e| e.id.as_str()).collect();
    let expected: Vec<&str> = tree::branch(&eager.entries, &index, Some("b0000002"))
        .iter()
        .map(|e| e.id.as_str())
        .collect();
    assert_eq!(&ids[..expected.len()], &expected[..]);
    for (kept, source) in reloaded.entries.iter().zip(&expected) {
        assert_eq!(kept.kind, eager.entries[index[*source]].kind);
    }
    let label = reloaded.entries.last().unwrap();
    assert_eq!(
        label.to_json()["label"],
        json!("side"),
        "the kept entry's label is re-added"
    );
}

#[test]
fn a_corrupt_middle_line_and_a_cut_last_line_are_kept_reported_and_handled_as_before() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let mut lines = pi_1x_lines();
    lines.insert(
        6,
        "{\"type\": \"message\", \"id\": \"broken\", \"mess".to_owned(),
    );
    let mut text = lines.join("\n");
    text.push('\n');
    let cut = "{\"type\": \"message\", \"id\": \"cut\", \"parentId\": \"a0000016\", \"mes";
    text.push_str(cut);
    std::fs::write(&path, &text).unwrap();

    let mut s = SessionManager::open(&path, Path::new("/p")).unwrap();
    let warned: Vec<usize> = s.warnings().iter().map(|w| w.line).collect();
    assert_eq!(warned, vec![7, 22], "{:?}", s.warnings());
    assert!(s.warnings()[1].message.contains("incomplete last line"));
    assert_eq!(s.entry_count(), 19);
    assert_eq!(s.leaf_id(), Some("a0000016"));
    assert_eq!(s.build_session_context().messages.len(), 7);
    s.append_session_info(Some("after".into())).unwrap();
    drop(s);
    let after = std::fs::read_to_string(&path).unwrap();
    // The corrupt middle line stays; the cut fragment is replaced by the new line.
    let kept = &text[..text.len() - cut.len()];
    assert!(after.starts_with(kept));
    assert!(after.contains("\"id\": \"broken\""));
    assert!(!after.contains("\"id\": \"cut\""));
    let reopened = SessionManager::open(&path, Path::new("/p")).unwrap();
    assert_eq!(reopened.entry_count(), 20);
    assert_eq!(reopened.warnings().len(), 1);
}
