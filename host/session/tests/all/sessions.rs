//! Session files: round trip, pi fixtures (v1 → v3), tree, fork/clone, repair, lookup.

// Test helpers fail loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use pi_ai::{
    AssistantBlock, AssistantMessage, StopReason, TextContent, ThinkingContent, ToolCall,
    ToolResultMessage, Usage, UserBlock, UserContent, UserMessage,
};
use pi_session::messages::{
    AgentMessage, BashExecutionMessage, CompactionSummaryMessage, CustomMessage, HostMessage,
    convert_to_llm,
};
use pi_session::paths;
use pi_session::session::{
    CompactionEntry, EntryKind, SessionEntry, SessionManager, find_session_by_id,
};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

pub fn user(text: &str) -> AgentMessage {
    AgentMessage::from(UserMessage::text(text))
}

pub fn assistant(text: &str) -> AgentMessage {
    AgentMessage::from(AssistantMessage {
        content: vec![AssistantBlock::Text(TextContent {
            text: text.into(),
            text_signature: None,
        })],
        api: "anthropic-messages".into(),
        provider: "anthropic".into(),
        model: "claude-sonnet-4-5".into(),
        usage: Usage {
            input: 10,
            output: 5,
            total_tokens: 15,
            ..Default::default()
        },
        stop_reason: StopReason::Stop,
        timestamp: pi_ai::now_ms(),
        ..Default::default()
    })
}

fn lines_of(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad line {l}: {e}")))
        .collect()
}

fn entries_json(s: &SessionManager) -> Vec<Value> {
    s.entries().into_iter().map(SessionEntry::to_json).collect()
}

/// Appends one entry of every type (and every message role) to `s`.
fn append_everything(s: &mut SessionManager) -> String {
    let first = s.append_message(user("hello")).unwrap();
    s.append_model_change("openai", "gpt-5").unwrap();
    s.append_thinking_level_change("high").unwrap();
    s.append_message(AgentMessage::from(AssistantMessage {
        content: vec![
            AssistantBlock::Thinking(ThinkingContent {
                thinking: "hmm".into(),
                thinking_signature: Some("sig".into()),
                redacted: None,
            }),
            AssistantBlock::ToolCall(ToolCall {
                id: "call_1".into(),
                name: "read".into(),
                arguments: json!({"path": "a.txt"}),
                thought_signature: None,
            }),
        ],
        api: "openai-responses".into(),
        provider: "openai".into(),
        model: "gpt-5".into(),
        stop_reason: StopReason::ToolUse,
        timestamp: 1_700_000_000_000,
        ..Default::default()
    }))
    .unwrap();
    s.append_message(AgentMessage::from(ToolResultMessage {
        tool_call_id: "call_1".into(),
        tool_name: "read".into(),
        content: vec![UserBlock::Text(TextContent {
            text: "contents".into(),
            text_signature: None,
        })],
        details: Some(json!({"lines": 1})),
        is_error: false,
        timestamp: 1_700_000_000_001,
        duration_ms: None,
    }))
    .unwrap();
    s.append_message(AgentMessage::from(BashExecutionMessage {
        command: "false".into(),
        output: String::new(),
        exit_code: Some(1),
        timestamp: 1_700_000_000_002,
        ..Default::default()
    }))
    .unwrap();
    s.append_message(AgentMessage::from(CustomMessage {
        custom_type: "note".into(),
        content: UserContent::Text("from an extension".into()),
        display: true,
        details: None,
        timestamp: 1_700_000_000_003,
    }))
    .unwrap();
    s.append_message(
        serde_json::from_value(json!({"role": "futureRole", "payload": [1, 2, 3], "timestamp": 5}))
            .unwrap(),
    )
    .unwrap();
    s.append_custom("state", Some(json!({"k": "v"}))).unwrap();
    s.append_custom_message(
        "hint",
        UserContent::Text("custom message".into()),
        false,
        None,
    )
    .unwrap();
    s.append_label(&first, Some("start".into())).unwrap();
    s.append_session_info(Some("my session".into())).unwrap();
    let kept = s.append_message(user("kept after compaction")).unwrap();
    s.append_message(assistant("ok")).unwrap();
    s.append_compaction(CompactionEntry {
        summary: "earlier work".into(),
        first_kept_entry_id: kept,
        tokens_before: 1234,
        details: Some(json!({"readFiles": ["a.txt"], "modifiedFiles": []})),
        usage: None,
        from_hook: None,
    })
    .unwrap();
    let leaf = s.append_message(user("after compaction")).unwrap();
    s.branch_with_summary(Some(&leaf), "explored something", None, None, None)
        .unwrap();
    s.append_message(assistant("done")).unwrap()
}

#[test]
fn round_trip_every_entry_type() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = SessionManager::create(Path::new("/work/proj"), dir.path());
    let leaf = append_everything(&mut s);
    let path = s.session_file().unwrap().to_path_buf();
    let context = s.build_session_context();

    let loaded = SessionManager::open(&path, Path::new("/work/proj")).unwrap();
    assert!(loaded.warnings().is_empty(), "{:?}", loaded.warnings());
    assert_eq!(loaded.leaf_id(), Some(leaf.as_str()));
    assert_eq!(entries_json(&loaded), entries_json(&s));
    assert_eq!(loaded.build_session_context(), context);
    assert_eq!(loaded.session_name().as_deref(), Some("my session"));

    // The context: compaction summary first, kept entries, later ones; settings from the path.
    assert_eq!(context.thinking_level, "high");
    assert_eq!(context.model.as_ref().unwrap().provider, "anthropic");
    let roles: Vec<&str> = context.messages.iter().map(AgentMessage::role).collect();
    assert_eq!(
        roles,
        [
            "compactionSummary",
            "user",
            "assistant",
            "user",
            "branchSummary",
            "assistant"
        ]
    );
    // Each line: type, id (8 hex), parentId, timestamp; header first.
    let lines = lines_of(&path);
    assert_eq!(lines[0]["type"], "session");
    assert_eq!(lines[0]["version"], 3);
    for line in &lines[1..] {
        let id = line["id"].as_str().unwrap();
        assert_eq!(id.len(), 8);
        assert!(id.chars().all(|c| c.is_ascii_hexdigit()));
        assert!(line.get("parentId").is_some());
        assert!(line["timestamp"].as_str().unwrap().ends_with('Z'));
    }
    let types: Vec<&str> = lines[1..]
        .iter()
        .map(|l| l["type"].as_str().unwrap())
        .collect();
    for t in [
        "message",
        "model_change",
        "thinking_level_change",
        "compaction",
        "branch_summary",
        "custom",
        "custom_message",
        "label",
        "session_info",
    ] {
        assert!(types.contains(&t), "missing {t}");
    }
    let file_name = path.file_name().unwrap().to_string_lossy().into_owned();
    assert!(file_name.ends_with(&format!("_{}.jsonl", s.session_id())));
}

#[test]
fn unknown_fields_and_types_are_written_back_unchanged() {
    let raw = [
        json!({"type":"future_thing","id":"0000000a","parentId":null,"timestamp":"2025-01-01T00:00:00.000Z","blob":{"x":[1,2]}}),
        json!({"type":"message","id":"0000000b","parentId":"0000000a","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"toolResult","toolCallId":"c","toolName":"t","content":[],"isError":false,"timestamp":1,"addedToolNames":["x"],"usage":{"input":1}}}),
        json!({"type":"compaction","id":"0000000c","parentId":"0000000b","timestamp":"2025-01-01T00:00:02.000Z","summary":"s","firstKeptEntryId":"0000000b","tokensBefore":3,"retainedTail":[]}),
        json!({"type":"message","id":"0000000d","parentId":"0000000c","timestamp":"2025-01-01T00:00:03.000Z","message":{"role":"hologram","anything":true}}),
        // pi 1.x's nested additions to usage and cost.
        json!({"type":"message","id":"0000000e","parentId":"0000000d","timestamp":"2025-01-01T00:00:04.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hi"}],"api":"anthropic-messages","provider":"anthropic","model":"m","usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":5,"cacheWrite1h":5,"totalTokens":8,"cost":{"input":0.0,"output":0.0,"cacheRead":0.0,"cacheWrite":0.0,"cacheWrite1h":0.5,"total":0.5}},"stopReason":"stop","timestamp":4}}),
    ];
    for value in raw {
        let entry = SessionEntry::from_json(value.clone()).unwrap();
        assert_eq!(entry.to_json(), value);
    }
}

fn copy_fixture(name: &str, dir: &Path) -> PathBuf {
    let src = crate::skills::fixture(name);
    let dst = dir.join(name);
    std::fs::copy(&src, &dst).unwrap_or_else(|e| panic!("{}: {e}", src.display()));
    dst
}

#[test]
fn fixture_before_compaction_migrates_and_rebuilds() {
    let dir = tempfile::tempdir().unwrap();
    let path = copy_fixture("before-compaction.jsonl", dir.path());
    let original: Vec<Value> = lines_of(&path);
    let s = SessionManager::open(&path, Path::new("/x")).unwrap();
    assert!(s.warnings().is_empty());
    assert_eq!(s.entries().len(), original.len() - 1);
    assert_eq!(s.header().version, Some(3));
    // Legacy header fields are kept.
    assert!(s.header().extra.contains_key("branchedFrom"));
    // Every message has a typed role (none fell back to raw JSON).
    assert!(
        s.entries()
            .into_iter()
            .filter_map(SessionEntry::message)
            .all(|m| !matches!(m.as_host(), Some(HostMessage::Unknown { .. })))
    );

    // The file was rewritten as v3 with a linear chain.
    let migrated = lines_of(&path);
    assert_eq!(migrated[0]["version"], 3);
    assert_eq!(migrated[1]["parentId"], Value::Null);
    for pair in migrated[1..].windows(2) {
        assert_eq!(pair[1]["parentId"], pair[0]["id"]);
    }
    // Compactions point at the entry at their old line index.
    for (line, old) in migrated.iter().zip(&original) {
        if let Some(index) = old.get("firstKeptEntryIndex").and_then(Value::as_u64) {
            assert_eq!(line["firstKeptEntryId"], migrated[index as usize]["id"]);
            assert!(line.get("firstKeptEntryIndex").is_none());
        }
    }

    let context = s.build_session_context();
    // Oracle computed independently from the raw fixture (latest compaction at line 628,
    // firstKeptEntryIndex 551): summary + kept + later message entries.
    assert_eq!(context.messages.len(), 446);
    let Some(HostMessage::CompactionSummary(summary)) = context.messages[0].as_host() else {
        panic!("first message is {:?}", context.messages[0].role());
    };
    let last_compaction = original
        .iter()
        .rev()
        .find(|l| l["type"] == "compaction")
        .unwrap();
    assert_eq!(
        summary.summary,
        last_compaction["summary"].as_str().unwrap()
    );
    assert_eq!(
        context.messages[1].timestamp(),
        original[551]["message"]["timestamp"].as_i64().unwrap()
    );
    assert_eq!(context.thinking_level, "off");
    assert_eq!(context.model.as_ref().unwrap().model_id, "claude-opus-4-5");
    let llm = convert_to_llm(&context.messages);
    assert!(!llm.is_empty());

    // Loading the migrated file again changes nothing.
    let before = std::fs::read(&path).unwrap();
    let again = SessionManager::open(&path, Path::new("/x")).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), before);
    assert_eq!(again.build_session_context(), context);
}

#[test]
fn fixture_large_session_loads() {
    let dir = tempfile::tempdir().unwrap();
    let path = copy_fixture("large-session.jsonl", dir.path());
    let s = SessionManager::open(&path, Path::new("/x")).unwrap();
    assert_eq!(s.entries().len(), 1018);
    let context = s.build_session_context();
    assert_eq!(context.messages.len(), 914);
    assert_eq!(
        context.model.as_ref().unwrap().model_id,
        "claude-sonnet-4-5"
    );
    // An empty assistant message without totalTokens still reads.
    assert!(context.messages[1].as_assistant().is_some());
}

#[test]
fn tree_with_three_branches() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = SessionManager::create(Path::new("/p"), dir.path());
    let root = s.append_message(user("question")).unwrap();
    let answer = s.append_message(assistant("answer")).unwrap();
    let mut leaves = Vec::new();
    for name in ["a", "b", "c"] {
        s.branch(&answer).unwrap();
        s.append_message(user(&format!("follow-up {name}")))
            .unwrap();
        leaves.push(
            s.append_message(assistant(&format!("reply {name}")))
                .unwrap(),
        );
    }
    let tree = s.tree();
    assert_eq!(tree.roots, vec![root.clone()]);
    assert_eq!(tree.children_of(&answer).len(), 3);
    assert_eq!(tree.leaves(), leaves);
    for (i, leaf) in leaves.iter().enumerate() {
        let branch = s.get_branch(Some(leaf));
        assert_eq!(branch.len(), 4);
        assert_eq!(branch[0].id, root);
        s.branch(leaf).unwrap();
        let ctx = s.build_session_context();
        let Some(last) = ctx.messages.last().unwrap().as_assistant() else {
            panic!()
        };
        assert_eq!(last.text(), format!("reply {}", ["a", "b", "c"][i]));
    }
    // Reloaded: same tree, leaf = last entry in file order.
    let path = s.session_file().unwrap().to_path_buf();
    let loaded = SessionManager::open(&path, Path::new("/p")).unwrap();
    assert_eq!(loaded.tree(), tree);
    assert_eq!(loaded.leaf_id(), leaves.last().map(String::as_str));

    // reset_leaf: the next entry is a new root.
    s.reset_leaf();
    let new_root = s.append_message(user("edited first message")).unwrap();
    assert_eq!(s.entry(&new_root).unwrap().parent_id, None);
    assert_eq!(s.tree().roots.len(), 2);
}

#[test]
fn fork_copies_every_entry_into_a_new_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = SessionManager::create(Path::new("/a"), &dir.path().join("a"));
    append_everything(&mut s);
    let source = s.session_file().unwrap().to_path_buf();
    let fork = SessionManager::fork_from(&source, Path::new("/b"), &dir.path().join("b")).unwrap();
    let fork_path = fork.session_file().unwrap().to_path_buf();
    assert_ne!(fork_path, source);
    assert_ne!(fork.session_id(), s.session_id());
    assert_eq!(fork.cwd(), "/b");
    let canonical = std::fs::canonicalize(&source).unwrap();
    assert_eq!(
        fork.header().parent_session.as_deref(),
        Some(canonical.to_str().unwrap())
    );
    let lines = lines_of(&fork_path);
    assert_eq!(lines[1..].to_vec(), lines_of(&source)[1..].to_vec());
    assert_eq!(fork.build_session_context(), s.build_session_context());
}

#[test]
fn clone_branch_keeps_only_the_path_and_its_labels() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = SessionManager::create(Path::new("/p"), dir.path());
    let q = s.append_message(user("q")).unwrap();
    let a = s.append_message(assistant("a")).unwrap();
    s.append_label(&q, Some("start".into())).unwrap();
    let x = s.append_message(user("x")).unwrap();
    s.append_message(assistant("x done")).unwrap();
    s.branch(&a).unwrap();
    s.append_message(user("y")).unwrap();
    let y_done = s.append_message(assistant("y done")).unwrap();
    s.append_label(&x, Some("other branch".into())).unwrap();
    let old_path = s.session_file().unwrap().to_path_buf();
    let old_context = {
        s.branch(&y_done).unwrap();
        s.build_session_context()
    };

    let new_path = s.create_branched_session(&y_done).unwrap().unwrap();
    assert_ne!(new_path, old_path);
    assert_eq!(
        s.header().parent_session.as_deref(),
        Some(old_path.to_str().unwrap())
    );
    let lines = lines_of(&new_path);
    let types: Vec<&str> = lines[1..]
        .iter()
        .map(|l| l["type"].as_str().unwrap())
        .collect();
    // q, a, y, y done, then q's label re-added; x's label is not on the path.
    assert_eq!(types, ["message", "message", "message", "message", "label"]);
    for pair in lines[1..].windows(2) {
        assert_eq!(pair[1]["parentId"], pair[0]["id"]);
    }
    assert_eq!(lines[5]["targetId"], q.as_str());
    assert_eq!(s.label_of(&q).as_deref(), Some("start"));
    assert_eq!(s.build_session_context().messages, old_context.messages);
}

#[test]
fn nothing_is_written_before_the_first_assistant_message() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = SessionManager::create(Path::new("/p"), dir.path());
    s.append_message(user("hi")).unwrap();
    s.append_thinking_level_change("low").unwrap();
    let path = s.session_file().unwrap().to_path_buf();
    assert!(!path.exists());
    assert!(!s.is_persisted());
    s.append_message(assistant("hello")).unwrap();
    assert_eq!(lines_of(&path).len(), 4);
    s.append_message(user("more")).unwrap();
    assert_eq!(lines_of(&path).len(), 5);

    let mut mem = SessionManager::in_memory(Path::new("/p"));
    mem.append_message(assistant("x")).unwrap();
    assert!(mem.session_file().is_none());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn summaries_cannot_be_appended_as_messages() {
    let mut s = SessionManager::in_memory(Path::new("/p"));
    let summary = AgentMessage::from(CompactionSummaryMessage::default());
    assert!(s.append_message(summary).is_err());
}

fn write_session(path: &Path, tail: &str) {
    let mut s = SessionManager::create_at(path, Path::new("/p"));
    s.append_message(user("one")).unwrap();
    s.append_message(assistant("two")).unwrap();
    let mut text = std::fs::read_to_string(path).unwrap();
    text.push_str(tail);
    std::fs::write(path, text).unwrap();
}

#[test]
fn truncated_last_line_is_reported_and_cut_on_next_append() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    write_session(
        &path,
        r#"{"type":"message","id":"abcd1234","parentId":null,"timest"#,
    );
    let mut s = SessionManager::open(&path, Path::new("/p")).unwrap();
    assert_eq!(s.warnings().len(), 1);
    assert_eq!(s.warnings()[0].line, 4);
    assert_eq!(s.entries().len(), 2);
    s.append_message(user("three")).unwrap();
    let lines = lines_of(&path);
    assert_eq!(lines.len(), 4);
    assert_eq!(
        SessionManager::open(&path, Path::new("/p"))
            .unwrap()
            .warnings(),
        &[]
    );
}

#[test]
fn complete_last_line_without_newline_gets_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    write_session(&path, "");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.trim_end()).unwrap();
    let mut s = SessionManager::open(&path, Path::new("/p")).unwrap();
    assert!(s.warnings().is_empty());
    s.append_message(user("three")).unwrap();
    let reloaded = SessionManager::open(&path, Path::new("/p")).unwrap();
    assert_eq!(reloaded.entries().len(), 3);
    assert!(reloaded.warnings().is_empty());
}

#[test]
fn unreadable_middle_line_is_reported_and_the_rest_loads() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    write_session(&path, "this is not json\n");
    let mut s = SessionManager::open(&path, Path::new("/p")).unwrap();
    s.append_message(user("after")).unwrap();
    let s = SessionManager::open(&path, Path::new("/p")).unwrap();
    assert_eq!(s.warnings().len(), 1);
    assert_eq!(s.warnings()[0].line, 4);
    assert_eq!(s.entries().len(), 3);
}

#[test]
fn non_session_and_empty_files() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"hello\":1}\n").unwrap();
    let err = SessionManager::open(&bad, Path::new("/p")).err().unwrap();
    assert!(err.to_string().contains("not a valid pi session"), "{err}");

    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let s = SessionManager::open(&empty, Path::new("/p")).unwrap();
    assert_eq!(lines_of(&empty)[0]["id"], s.session_id());
}

#[test]
fn continue_recent_and_find_by_id_prefix() {
    let root = tempfile::tempdir().unwrap();
    let agent = root.path();
    let cwd = Path::new("/home/u/proj");
    let dir = paths::resolve_session_dir(None, None, None, agent, cwd);
    assert!(dir.path.ends_with("sessions/--home-u-proj--"));
    let mut ids = Vec::new();
    for i in 0..3 {
        let mut s = SessionManager::create(cwd, &dir.path);
        s.append_message(assistant(&format!("session {i}")))
            .unwrap();
        ids.push(s.session_id().to_owned());
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let recent = SessionManager::continue_recent(cwd, &dir).unwrap();
    assert_eq!(recent.session_id(), ids[2]);

    let other = paths::default_session_dir(agent, Path::new("/elsewhere"));
    let mut s = SessionManager::create(Path::new("/elsewhere"), &other);
    s.append_message(assistant("far away")).unwrap();
    let far_id = s.session_id().to_owned();

    let found = find_session_by_id(&ids[1], &dir.path, &paths::sessions_root(agent)).unwrap();
    assert!(found.local);
    assert_eq!(found.id, ids[1]);
    let found = find_session_by_id(&far_id[..30], &dir.path, &paths::sessions_root(agent)).unwrap();
    assert!(!found.local);
    assert_eq!(found.cwd, "/elsewhere");
    assert!(find_session_by_id("zzzz", &dir.path, &paths::sessions_root(agent)).is_err());
}

#[test]
fn path_rules() {
    assert_eq!(
        paths::encode_cwd(Path::new("/home/u/proj")),
        "--home-u-proj--"
    );
    assert_eq!(paths::encode_cwd(Path::new(r"C:\x\y")), "--C--x-y--");
    assert_eq!(
        paths::session_file_name("2024-12-03T14:00:00.000Z", "abc"),
        "2024-12-03T14-00-00-000Z_abc.jsonl"
    );
    let agent = Path::new("/agent");
    let cwd = Path::new("/w");
    let pick = |cli, env, set| paths::resolve_session_dir(cli, env, set, agent, cwd).path;
    assert_eq!(
        pick(Some("/c"), Some("/e"), Some("/s")),
        PathBuf::from("/c")
    );
    assert_eq!(pick(None, Some("/e"), Some("/s")), PathBuf::from("/e"));
    assert_eq!(pick(None, None, Some("/s")), PathBuf::from("/s"));
    assert_eq!(
        pick(None, None, None),
        PathBuf::from("/agent/sessions/--w--")
    );
    assert_eq!(
        paths::agent_dir_from(Some("/custom/agent")),
        PathBuf::from("/custom/agent")
    );
    assert!(pi_session::session::is_session_path("./x"));
    assert!(pi_session::session::is_session_path("a.jsonl"));
    assert!(!pi_session::session::is_session_path("01a05ff0"));
}

#[test]
fn entry_kind_names_match_pi() {
    let kinds = [
        (
            EntryKind::ModelChange {
                provider: "p".into(),
                model_id: "m".into(),
            },
            "model_change",
        ),
        (
            EntryKind::ThinkingLevelChange {
                thinking_level: "off".into(),
            },
            "thinking_level_change",
        ),
        (EntryKind::SessionInfo { name: None }, "session_info"),
    ];
    for (kind, name) in kinds {
        assert_eq!(kind.type_name(), name);
    }
}

#[test]
fn message_with_unreadable_fields_is_kept_verbatim() {
    // A stop reason from a newer pi: the assistant message cannot be typed, so it is kept raw
    // (and out of the model context) instead of being lost.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let header = json!({"type":"session","version":3,"id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"});
    let odd = json!({"type":"message","id":"0000000a","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z",
        "message":{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","stopReason":"paused","timestamp":1}});
    std::fs::write(&path, format!("{header}\n{odd}\n")).unwrap();
    let s = SessionManager::open(&path, Path::new("/p")).unwrap();
    assert!(s.warnings().is_empty());
    assert!(matches!(
        s.entries()[0].message().and_then(AgentMessage::as_host),
        Some(HostMessage::Unknown { .. })
    ));
    assert_eq!(s.entries()[0].to_json(), odd);
    assert!(convert_to_llm(&s.build_session_context().messages).is_empty());
}

#[test]
fn custom_session_id_and_listing() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = Path::new("/p");
    assert!(SessionManager::open_or_create_with_id(cwd, dir.path(), "-bad").is_none());
    let mut s = SessionManager::open_or_create_with_id(cwd, dir.path(), "my-id.1")
        .unwrap()
        .unwrap();
    assert_eq!(s.session_id(), "my-id.1");
    s.append_message(user("first question")).unwrap();
    s.append_message(assistant("an answer")).unwrap();
    s.append_session_info(Some("named".into())).unwrap();
    let again = SessionManager::open_or_create_with_id(cwd, dir.path(), "my-id.1")
        .unwrap()
        .unwrap();
    assert_eq!(again.entries().len(), 3);

    let infos = pi_session::session::list_sessions(dir.path());
    assert_eq!(infos.len(), 1);
    let info = &infos[0];
    assert_eq!(info.id, "my-id.1");
    assert_eq!(info.name.as_deref(), Some("named"));
    assert_eq!(info.message_count, 2);
    assert_eq!(info.first_message, "first question");
    assert!(info.all_messages_text.contains("an answer"));
}

#[test]
fn pi_1x_context_edits_hide_failed_attempts_and_replace_content() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let mut s = SessionManager::create_at(&path, Path::new("/p"));
    let first = s.append_message(user("do it")).unwrap();
    let failed = s.append_message(assistant("half an answer")).unwrap();
    let _ = first;
    let head = |id: &str, parent: &str| json!({"id": id, "parentId": parent, "timestamp": "2026-01-01T00:00:00.000Z"});
    let mut hide = head("e0000001", &failed);
    hide["type"] = json!("context_edit");
    hide["targetId"] = json!(failed);
    hide["replacement"] = Value::Null;
    let mut retry = head("e0000002", "e0000001");
    retry["type"] = json!("message");
    retry["message"] = json!({"role": "assistant", "content": [{"type": "text", "text": "the answer"}],
        "api": "openai-completions", "provider": "p", "model": "m", "usage": {"input": 1, "output": 1,
        "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2, "cost": {"input": 0, "output": 0,
        "cacheRead": 0, "cacheWrite": 0, "total": 0}}, "stopReason": "stop", "timestamp": 2});
    let mut reword = head("e0000003", "e0000002");
    reword["type"] = json!("context_edit");
    reword["targetId"] = json!("e0000002");
    reword["replacement"] = json!({"content": "the short answer"});
    let mut text = std::fs::read_to_string(&path).unwrap();
    for line in [hide, retry, reword] {
        text.push_str(&format!("{line}\n"));
    }
    std::fs::write(&path, &text).unwrap();

    let s = SessionManager::open(&path, Path::new("/p")).unwrap();
    let context = s.build_session_context();
    let texts: Vec<String> = context
        .messages
        .iter()
        .map(|m| serde_json::to_value(m).unwrap()["content"].to_string())
        .collect();
    assert_eq!(texts.len(), 2, "{texts:?}");
    assert!(texts[0].contains("do it"), "{texts:?}");
    assert!(texts[1].contains("the short answer"), "{texts:?}");
    assert!(
        !texts.iter().any(|t| t.contains("half an answer")),
        "{texts:?}"
    );
    // The raw history is untouched.
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    assert_eq!(s.entries().len(), 5);
}
