//! Subagents in the interactive UI, in a real terminal (tmux) against the mock LLM: a parallel
//! `subagent` call's three children drawn live, one row each, while they run; when they are
//! done, their answers under their rows, and Ctrl+O showing a child's own transcript; `/agents`
//! listing the definitions; the session opened again,
//! Ctrl+O reading the children's files.

use super::cli_support::*;
use super::cli_tui_support::*;
use pi_mock_llm::{Api, Reply, Turn};
use serde_json::json;
use std::time::Duration;

const AGENTS: [(&str, &str); 3] = [
    ("scout", "Scan the parser for number handling"),
    ("planner", "Plan the exponent fix"),
    ("reviewer", "Review the lexer tests"),
];

/// `<agentDir>/agents/<name>.md` in pi's `subagent` example's format.
fn write_agents(pi: &PiEnv) {
    std::fs::create_dir_all(pi.agent_dir().join("agents")).unwrap();
    for (name, _) in AGENTS {
        pi.write_agent_file(
            &format!("agents/{name}.md"),
            &format!(
                "---\nname: {name}\ndescription: The {name} of the tests\ntools: read, ls\n---\n\
                 You are the {name}.\n"
            ),
        );
    }
}

/// Each child first lists the directory, then answers; both replies wait, so the rows are
/// seen running.
fn script_children(pi: &PiEnv) {
    let wait = Duration::from_millis(2500);
    for (name, task) in AGENTS {
        let key = format!("Task: {task}");
        let listing = Turn::new().tool_call(format!("ls-{name}"), "ls", json!({"path": "."}));
        pi.mock.push_keyed(&key, Reply::from(listing).delay(wait));
        let answer = Turn::text(format!(
            "{name} found: line one\nline two\nline three\nline four"
        ));
        pi.mock.push_keyed(&key, Reply::from(answer).delay(wait));
    }
}

#[test]
fn tui_three_children_run_live_and_ctrl_o_shows_a_childs_transcript() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    write_agents(&pi);
    let tasks: Vec<_> = AGENTS
        .iter()
        .map(|(agent, task)| json!({"agent": agent, "task": task}))
        .collect();
    pi.mock
        .push(Turn::new().tool_call("sub-1", "subagent", json!({ "tasks": tasks })));
    script_children(&pi);
    pi.mock.push(Turn::text("All three reported back."));
    let tmux = pi_in_tmux(&pi, FULLSCREEN);
    tmux.submit("Investigate the parser with three agents");

    // All three rows at once, each with its task, none done yet.
    let running = tmux.wait_for("three running rows", |s| {
        AGENTS
            .iter()
            .all(|(name, task)| s.lines().any(|l| l.contains(&format!(" {name}  {task}"))))
            && !s.contains('✓')
    });
    println!(
        "--- three children running ---\n{}\n---",
        running.trim_end()
    );
    assert!(running.contains("subagent 3 tasks"), "{running}");

    let done = tmux.wait_text("All three reported back.");
    for (name, _) in AGENTS {
        assert!(done.contains(&format!("✓ {name}")), "{done}");
        assert!(done.contains(&format!("{name} found: line one")), "{done}");
    }
    assert!(
        !done.contains("line four"),
        "only the first 3 lines: {done}"
    );

    tmux.keys(&["C-o"]);
    let expanded = tmux.wait_text("→ ls .");
    println!("--- expanded ---\n{}\n---", expanded.trim_end());
    // Each child's transcript: its call, the call's result and its whole answer.
    assert_eq!(expanded.matches("→ ls .").count(), 3, "{expanded}");
    assert!(expanded.contains("(empty directory)"), "{expanded}");
    assert!(
        expanded.contains("      scout found: line one") && expanded.contains("      line four"),
        "{expanded}"
    );

    // `/agents` lists what the session found, with where each came from.
    tmux.keys(&["C-o"]);
    tmux.submit("/agents");
    let listed = tmux.wait_text("Agents (3):");
    for (name, _) in AGENTS {
        assert!(
            listed.contains(&format!("[user] The {name} of the tests")),
            "{listed}"
        );
    }
    assert!(listed.contains("agents/scout.md"), "{listed}");
    tmux.exit();
    drop(tmux);

    // Opened again later, the children were not seen live: Ctrl+O reads their session files.
    // (The parent's file is the one without a `parentSession`; the children's sit beside it.)
    let files = pi.session_files();
    assert_eq!(
        files.len(),
        4,
        "the parent's and three children's: {files:?}"
    );
    let parent = files
        .iter()
        .find(|f| read_jsonl(f)[0].get("parentSession").is_none())
        .expect("the parent's session file");
    let parent = parent.display().to_string();
    let tmux = Tmux::start(
        &pi,
        &[
            "--model",
            "mock/mock-model",
            "--tui-mode",
            FULLSCREEN,
            "--session",
            &parent,
        ],
    );
    tmux.wait_text("All three reported back.");
    tmux.keys(&["C-o"]);
    let resumed = tmux.wait_text("→ ls .");
    assert!(resumed.contains("      line four"), "{resumed}");
    assert!(!resumed.contains("session file gone"), "{resumed}");
    tmux.exit();
}
