//! What each example hook answers, and what it asks of the host.

use super::hook_host::*;
use pi_extension_examples::{NOTIFY, PERMISSION_GATE, PROTECTED_PATHS, TODO_HOOK, TODO_TOOL};
use serde_json::json;

#[test]
fn the_permission_gate_asks_before_dangerous_bash_commands_only() {
    let mut gate = Running::new(PERMISSION_GATE.component, &[]);
    let info = gate.describe();
    assert_eq!(info.events, vec![EventKind::ToolCall]);
    assert!(info.commands.is_empty());
    for command in [
        "rm -rf build",
        "cd x && sudo make install",
        "git push --force origin main",
        "git push -f",
        "chmod 777 run.sh",
    ] {
        match gate.tool_call("bash", json!({"command": command})) {
            ToolCallAnswer::Ask(question) => {
                assert!(question.contains(command), "{command}: {question}")
            }
            other => panic!("{command}: {other:?}"),
        }
    }
    for command in [
        "ls -la",
        "echo 'rm -rf /'",
        "git push origin main",
        "rm file",
    ] {
        let answer = gate.tool_call("bash", json!({"command": command}));
        assert!(
            matches!(answer, ToolCallAnswer::Allow),
            "{command}: {answer:?}"
        );
    }
    let answer = gate.tool_call("write", json!({"path": "x", "content": "rm -rf /"}));
    assert!(matches!(answer, ToolCallAnswer::Allow), "{answer:?}");
    assert!(gate.store.data().ui.is_empty());
}

#[test]
fn protected_paths_blocks_writes_and_edits_of_the_configured_patterns() {
    let mut hook = Running::new(PROTECTED_PATHS.component, &[]);
    let info = hook.describe();
    assert_eq!(info.events, vec![EventKind::ToolCall]);
    for (tool, path) in [
        ("write", ".env"),
        ("edit", "app/.env.production"),
        ("write", "/work/.git/config"),
        ("edit", "certs/server.pem"),
        ("write", "Cargo.lock"),
        ("write", "web/package-lock.json"),
        ("edit", "src/../.env"),
    ] {
        match hook.tool_call(tool, json!({"path": path, "content": "x"})) {
            ToolCallAnswer::Block(reason) => {
                assert!(reason.contains(path), "{reason}");
                assert!(reason.contains("protected-paths"), "{reason}");
            }
            other => panic!("{tool} {path}: {other:?}"),
        }
    }
    for (tool, input) in [
        ("write", json!({"path": "src/main.rs", "content": "x"})),
        (
            "edit",
            json!({"path": "Cargo.toml", "oldText": "a", "newText": "b"}),
        ),
        ("read", json!({"path": ".env"})),
        ("bash", json!({"command": "cat .env"})),
        ("write", json!({"content": "no path"})),
    ] {
        let answer = hook.tool_call(tool, input.clone());
        assert!(
            matches!(answer, ToolCallAnswer::Allow),
            "{tool} {input}: {answer:?}"
        );
    }
}

/// The `agent-end` event of a run that took `duration_ms`.
fn agent_end(duration_ms: u64) -> AgentEndEvent {
    AgentEndEvent {
        duration_ms,
        last_message: None,
    }
}

#[test]
fn notify_draws_attention_only_after_a_long_run() {
    let mut notify = Running::new(NOTIFY.component, &[]);
    let info = notify.describe();
    assert_eq!(info.events, vec![EventKind::AgentEnd]);
    let guest = notify.hook.pi_extension_hook_guest();
    guest
        .call_on_agent_end(&mut notify.store, &agent_end(9_000))
        .unwrap();
    assert!(
        notify.store.data().ui.is_empty(),
        "{:?}",
        notify.store.data().ui
    );
    guest
        .call_on_agent_end(&mut notify.store, &agent_end(12_000))
        .unwrap();
    assert_eq!(
        notify.store.data().ui,
        ["attention: pi: The agent finished (12 s)"]
    );

    let mut quick = Running::new(NOTIFY.component, &[("NOTIFY_AFTER_SECONDS", "2")]);
    let guest = quick.hook.pi_extension_hook_guest();
    guest
        .call_on_agent_end(&mut quick.store, &agent_end(3_000))
        .unwrap();
    assert_eq!(
        quick.store.data().ui,
        ["attention: pi: The agent finished (3 s)"]
    );
}

#[test]
fn the_todo_hook_shows_the_stored_list_in_the_footer_and_with_slash_todos() {
    let mut todos = Running::new(TODO_HOOK.component, &[]);
    let info = todos.describe();
    assert_eq!(
        info.events,
        vec![EventKind::SessionStart, EventKind::TurnEnd]
    );
    assert_eq!(info.commands.len(), 1);
    assert_eq!(info.commands[0].name, "todos");

    let guest = todos.hook.pi_extension_hook_guest();
    let resume = SessionStart {
        reason: SessionStartReason::Resume,
        session_id: "s".into(),
        cwd: "/work".into(),
    };
    // Nothing stored yet: the status is cleared.
    guest
        .call_on_session_start(&mut todos.store, &resume)
        .unwrap();
    assert_eq!(todos.store.data().ui, ["status todo: "]);

    // The tool stored two lists; the newest counts.
    let older = json!({"items": [{"id": 1, "text": "a", "done": false}]});
    let newer = json!({"items": [
        {"id": 1, "text": "write the tests", "done": true},
        {"id": 2, "text": "ship", "done": false},
        {"id": 3, "text": "tell them", "done": false}
    ]});
    for list in [older, newer] {
        let entry = ("todo".to_owned(), list.to_string());
        todos.store.data_mut().entries.push(entry);
    }
    todos.store.data_mut().ui.clear();
    guest
        .call_on_session_start(&mut todos.store, &resume)
        .unwrap();
    assert_eq!(todos.store.data().ui, ["status todo: 2 open"]);

    todos.store.data_mut().ui.clear();
    let ran = guest
        .call_run_command(&mut todos.store, "todos", "")
        .unwrap();
    assert_eq!(ran, Ok(()));
    assert_eq!(
        todos.store.data().ui,
        [
            "notify: [x] 1. write the tests\n[ ] 2. ship\n[ ] 3. tell them",
            "status todo: 2 open"
        ]
    );
    let other = guest
        .call_run_command(&mut todos.store, "nope", "")
        .unwrap();
    assert!(other.is_err());
}

#[test]
fn the_todo_tool_stores_the_list_and_the_hook_finds_it_again() {
    let mut tool = RunningTool::new(TODO_TOOL.component);
    let added = tool.call("todo", json!({"action": "add", "text": "write the tests"}));
    assert_eq!(added.unwrap(), "Added 1.\n[ ] 1. write the tests");
    tool.call("todo", json!({"action": "add", "text": "ship"}))
        .unwrap();
    let done = tool.call("todo", json!({"action": "done", "id": 1}));
    assert_eq!(
        done.unwrap(),
        "Done 1.\n[x] 1. write the tests\n[ ] 2. ship"
    );
    assert_eq!(
        tool.call("todo", json!({"action": "done", "id": 7})),
        Err("there is no item 7".to_owned())
    );
    assert!(tool.call("todo", json!({"action": "add"})).is_err());
    let listed = tool.call("todo", json!({"action": "list"}));
    assert_eq!(listed.unwrap(), "[x] 1. write the tests\n[ ] 2. ship");
    let recorded = tool.store.data();
    assert_eq!(
        recorded.ui,
        [
            "status todo: 1 open",
            "status todo: 2 open",
            "status todo: 1 open"
        ]
    );
    // One whole list per change, in the session under `todo`.
    assert_eq!(recorded.entries.len(), 3);
    assert!(recorded.entries.iter().all(|(t, _)| t == "todo"));

    // A resumed session: the hook reads what the tool stored.
    let entries = recorded.entries.clone();
    let mut hook = Running::new(TODO_HOOK.component, &[]);
    hook.store.data_mut().entries = entries;
    let resume = SessionStart {
        reason: SessionStartReason::Resume,
        session_id: "s".into(),
        cwd: "/work".into(),
    };
    let guest = hook.hook.pi_extension_hook_guest();
    guest
        .call_on_session_start(&mut hook.store, &resume)
        .unwrap();
    assert_eq!(hook.store.data().ui, ["status todo: 1 open"]);
}
