//! pi 1.6's recorded system prompt: the full message, patches, and replaying them.

use crate::sessions::user;
use pi_session::messages::{AgentMessage, DeclaredTool, HostMessage, SystemMessage};
use pi_session::system_message::{recorded_system, system_message_update};
use pi_session::system_prompt::{PromptSection, SystemPromptOptions, sections};
use serde_json::json;

fn prompt(cwd: &str) -> Vec<PromptSection> {
    let options = SystemPromptOptions::new(cwd, "/nonexistent-agent-dir");
    sections(&options, &Default::default())
}

fn tool(name: &str, description: &str) -> DeclaredTool {
    DeclaredTool {
        name: name.into(),
        description: description.into(),
        parameters: json!({"type": "object"}),
    }
}

fn system(message: SystemMessage) -> AgentMessage {
    AgentMessage::from(message)
}

#[test]
fn the_first_request_records_every_section_and_tool() {
    let sections = prompt("/p");
    let tools = [tool("read", "Read a file"), tool("bash", "Run a command")];
    let full = system_message_update(&[], &sections, &tools, 42).unwrap();
    let names: Vec<&str> = full.sections.0.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["preamble", "tools", "rules", "docs", "cwd"]);
    assert!(full.sections.0.iter().all(|(_, text)| text.is_some()));
    assert_eq!(full.tools_added, tools);
    assert!(full.tools_removed.is_empty());
    assert_eq!(full.timestamp, 42);
    // The stored form is pi 1.6's.
    let value = serde_json::to_value(system(full.clone())).unwrap();
    assert_eq!(value["role"], "system");
    assert_eq!(value["content"], "");
    assert_eq!(value["sections"]["cwd"], "Current working directory: /p");
    assert_eq!(value["toolsAdded"][1]["name"], "bash");
    assert!(value.get("toolsRemoved").is_none());

    // The same prompt and tools again: nothing to record.
    let history = [system(full), user("hi")];
    assert_eq!(system_message_update(&history, &sections, &tools, 43), None);
}

#[test]
fn a_change_of_tools_or_prompt_records_a_patch() {
    let tools = [tool("read", "Read a file"), tool("bash", "Run a command")];
    let first = system_message_update(&[], &prompt("/p"), &tools, 1).unwrap();
    let history = vec![system(first), user("hi")];

    // bash is gone, write is new, read's description changed.
    let now = [
        tool("read", "Read a file, fast"),
        tool("write", "Write a file"),
    ];
    let patch = system_message_update(&history, &prompt("/p"), &now, 2).unwrap();
    assert!(patch.sections.is_empty());
    let added: Vec<&str> = patch.tools_added.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(added, ["read", "write"]);
    let removed: Vec<&str> = patch
        .tools_removed
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(removed, ["bash"]);

    // A different working directory patches that one section only.
    let moved = system_message_update(&history, &prompt("/q"), &tools, 3).unwrap();
    assert_eq!(
        moved.sections.0,
        [(
            "cwd".to_owned(),
            Some("Current working directory: /q".to_owned())
        )]
    );
    assert!(moved.tools_added.is_empty() && moved.tools_removed.is_empty());

    // Replaying the full message and the patch gives the current tools in order.
    let mut replayed = history.clone();
    replayed.push(system(patch));
    let state = recorded_system(&replayed).unwrap();
    let names: Vec<&str> = state.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["read", "write"]);
    assert_eq!(state.tools[0].description, "Read a file, fast");
    assert_eq!(
        system_message_update(&replayed, &prompt("/p"), &now, 4),
        None
    );
}

#[test]
fn a_section_that_is_gone_is_patched_to_null() {
    let history = vec![system(SystemMessage {
        sections: pi_session::messages::PromptSections(vec![
            ("preamble".into(), Some("old".into())),
            ("addendum".into(), Some("extra".into())),
        ]),
        ..SystemMessage::default()
    })];
    let patch = system_message_update(&history, &prompt("/p"), &[], 5).unwrap();
    assert!(patch.sections.0.contains(&("addendum".to_owned(), None)));
    assert!(
        patch
            .sections
            .0
            .iter()
            .any(|(name, text)| name == "preamble" && text.is_some())
    );
}

/// An older session (no system message on its branch) gets the full message.
#[test]
fn an_older_conversation_without_one_gets_the_full_message() {
    let history = [user("from pi 0.73"), user("again")];
    let full = system_message_update(&history, &prompt("/p"), &[tool("read", "r")], 6).unwrap();
    assert_eq!(full.sections.0.len(), 5);
    assert_eq!(full.tools_added.len(), 1);
    assert!(matches!(
        system(full).as_host(),
        Some(HostMessage::System(_))
    ));
}

/// The recorded prompt is prompt state, not conversation: a compaction neither summarises it
/// nor cuts at it (pi 1.6 leaves it out the same way).
#[test]
fn compaction_leaves_the_recorded_prompt_out_of_its_summaries() {
    use pi_session::compaction::prepare_compaction;
    use pi_session::settings::CompactionSettings;
    let dir = tempfile::tempdir().unwrap();
    let mut s = pi_session::session::SessionManager::create(dir.path(), dir.path());
    let full = system_message_update(&[], &prompt("/p"), &[tool("read", "r")], 1).unwrap();
    s.append_message(system(full)).unwrap();
    for i in 0..4 {
        s.append_message(user(&"question ".repeat(200))).unwrap();
        s.append_message(crate::sessions::assistant(&format!("answer {i}")))
            .unwrap();
    }
    let path: Vec<_> = s.get_branch(None).into_iter().cloned().collect();
    let settings = CompactionSettings {
        enabled: true,
        reserve_tokens: 16_384,
        keep_recent_tokens: 1,
    };
    let prep = prepare_compaction(&path, &settings).unwrap();
    let summarised = prep
        .messages_to_summarize
        .iter()
        .chain(&prep.turn_prefix_messages);
    assert!(summarised.clone().count() > 0);
    assert!(summarised.clone().all(|m| m.role() != "system"));
}

/// A run's first exchange, past the threshold: only the cut-off turn is summarised (the
/// recorded prompt before it is not history to summarise).
#[test]
fn the_first_exchange_compacts_as_a_split_turn_only() {
    use pi_session::compaction::prepare_compaction;
    use pi_session::settings::CompactionSettings;
    let dir = tempfile::tempdir().unwrap();
    let mut s = pi_session::session::SessionManager::create(dir.path(), dir.path());
    s.record_start_settings("mock", "m", "off").unwrap();
    let full = system_message_update(&[], &prompt("/p"), &[tool("read", "r")], 1).unwrap();
    s.append_message(system(full)).unwrap();
    s.append_message(user("question")).unwrap();
    s.append_message(crate::sessions::assistant("answer"))
        .unwrap();
    let path: Vec<_> = s.get_branch(None).into_iter().cloned().collect();
    let settings = CompactionSettings {
        enabled: true,
        reserve_tokens: 16_384,
        keep_recent_tokens: 1,
    };
    let prep = prepare_compaction(&path, &settings).unwrap();
    let roles = |m: &[AgentMessage]| m.iter().map(|m| m.role().to_owned()).collect::<Vec<_>>();
    assert_eq!(roles(&prep.messages_to_summarize), Vec::<String>::new());
    assert_eq!(roles(&prep.turn_prefix_messages), ["user"]);
}
