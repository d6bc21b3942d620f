//! The file tools' path policy through the real binary: scripted tool calls in print mode read
//! outside the workspace by default, are refused under `tools.pathScope: "workspace"` with a
//! message naming the setting, write only inside the writable roots (`--add-dir` adds one),
//! and can always read skills and bash's saved output.

use super::cli_support::*;
use pi_mock_llm::{Api, Turn};
use serde_json::{Value, json};
use std::path::PathBuf;

/// The tool results of the only session, by call id: (text, isError).
fn results(pi: &PiEnv) -> Vec<(String, String, bool)> {
    let lines = pi.session_lines();
    messages(&lines)
        .into_iter()
        .filter(|m| m["role"] == "toolResult")
        .map(|m| {
            (
                m["toolCallId"].as_str().unwrap().to_owned(),
                m["content"][0]["text"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                m["isError"] == true,
            )
        })
        .collect()
}

fn result(pi: &PiEnv, id: &str) -> (String, bool) {
    let all = results(pi);
    let (_, text, error) = all.iter().find(|(i, _, _)| i == id).unwrap();
    (text.clone(), *error)
}

/// A file in the fake home (`~/notes.txt`) and one in a sibling of the workspace.
fn outside_files(pi: &PiEnv) -> PathBuf {
    std::fs::write(pi.root.path().join("home/notes.txt"), "home notes").unwrap();
    let sibling = pi.root.path().join("other");
    std::fs::create_dir_all(&sibling).unwrap();
    std::fs::write(sibling.join("s.txt"), "sibling text").unwrap();
    sibling
}

fn run_ok(pi: &PiEnv, args: &[&str]) {
    let out = pi.run(args);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
}

#[test]
fn read_reaches_home_and_sibling_paths_by_default() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let sibling = outside_files(&pi);
    let abs = sibling.join("s.txt").display().to_string();
    pi.mock.push_all([
        Turn::new()
            .tool_call("home", "read", json!({"path": "~/notes.txt"}))
            .tool_call("abs", "read", json!({"path": abs})),
        Turn::text("done"),
    ]);
    run_ok(&pi, &["-p", "read them"]);
    assert_eq!(result(&pi, "home"), ("home notes".to_owned(), false));
    assert_eq!(result(&pi, "abs"), ("sibling text".to_owned(), false));
}

#[test]
fn workspace_scope_refuses_reads_outside_with_a_message_naming_the_setting() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    outside_files(&pi);
    pi.settings(json!({"tools": {"pathScope": "workspace"}}));
    std::fs::write(pi.cwd().join("in.txt"), "inside").unwrap();
    pi.mock.push_all([
        Turn::new()
            .tool_call("home", "read", json!({"path": "~/notes.txt"}))
            .tool_call("up", "read", json!({"path": "../other/s.txt"}))
            .tool_call("in", "read", json!({"path": "in.txt"})),
        Turn::text("done"),
    ]);
    run_ok(&pi, &["-p", "read them"]);
    for id in ["home", "up"] {
        let (text, error) = result(&pi, id);
        assert!(error, "{id}: {text}");
        assert!(text.contains("tools.pathScope"), "{id}: {text}");
    }
    assert_eq!(result(&pi, "in"), ("inside".to_owned(), false));
}

#[test]
fn an_invalid_path_scope_stops_start_up() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.settings(json!({"tools": {"pathScope": "everywhere"}}));
    let out = pi.run(&["-p", "hi"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("Invalid tools.pathScope \"everywhere\""),
        "{}",
        stderr(&out)
    );
    assert!(pi.mock.requests().is_empty());
}

#[test]
fn a_user_skill_outside_the_project_is_read_even_under_workspace_scope() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.settings(json!({"tools": {"pathScope": "workspace"}}));
    let skill_dir = pi.agent_dir().join("skills/greet");
    std::fs::create_dir_all(&skill_dir).unwrap();
    let skill = skill_dir.join("SKILL.md");
    std::fs::write(
        &skill,
        "---\nname: greet\ndescription: Greets people warmly.\n---\nSay hello twice.\n",
    )
    .unwrap();
    let location = skill.display().to_string();
    pi.mock.push_all([
        Turn::new().tool_call("skill", "read", json!({"path": location})),
        Turn::text("done"),
    ]);
    run_ok(&pi, &["-p", "greet me"]);
    let requests = pi.mock.requests();
    let system = requests[0].body["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains(&location), "skill listed by path: {system}");
    let (text, error) = result(&pi, "skill");
    assert!(!error && text.contains("Say hello twice."), "{text}");
}

#[test]
fn write_outside_the_writable_roots_is_refused_and_add_dir_allows_it() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let sibling = outside_files(&pi);
    let target = sibling.join("new.txt");
    let call = json!({"path": target.display().to_string(), "content": "written"});
    pi.mock.push_all([
        Turn::new().tool_call("w", "write", call.clone()),
        Turn::text("done"),
    ]);
    run_ok(&pi, &["--no-session", "-p", "write it"]);
    let refused = &pi.mock.requests()[1].body;
    let text = tool_text(refused);
    assert!(
        text.contains("--add-dir") && text.contains("tools.writableRoots"),
        "{text}"
    );
    assert!(!target.exists());

    pi.mock.push_all([
        Turn::new().tool_call("w", "write", call),
        Turn::text("done"),
    ]);
    run_ok(&pi, &["--add-dir", "../other", "-p", "write it"]);
    assert!(!result(&pi, "w").1);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "written");
}

#[test]
fn an_add_dir_that_is_not_a_directory_stops_start_up() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let out = pi.run(&["--add-dir", "missing", "-p", "hi"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("--add-dir missing:") && stderr(&out).contains("not a directory"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn bash_saved_output_is_readable_under_workspace_scope() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.settings(json!({"tools": {"pathScope": "workspace"}}));
    let tmp = pi.root.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    pi.mock.push_all([
        Turn::new().tool_call("big", "bash", json!({"command": "seq 1 100000"})),
        Turn::text("done"),
    ]);
    let out = pi
        .command(&["-p", "count"])
        .env("TMPDIR", &tmp)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let lines = pi.session_lines();
    let saved = messages(&lines)
        .into_iter()
        .find(|m| m["role"] == "toolResult")
        .and_then(|m| m["details"]["fullOutputPath"].as_str())
        .unwrap()
        .to_owned();
    assert!(saved.starts_with(tmp.to_str().unwrap()), "{saved}");

    // The model reads the file the truncation notice named, in a second run.
    pi.mock.push_all([
        Turn::new().tool_call("back", "read", json!({"path": saved, "offset": 99999})),
        Turn::text("done"),
    ]);
    let out = pi
        .command(&["--no-session", "-p", "read it"])
        .env("TMPDIR", &tmp)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let text = tool_text(&pi.mock.requests()[3].body);
    assert!(text.starts_with("99999\n100000"), "{text}");
}

/// The text of the last tool result a request carries (OpenAI completions shape).
fn tool_text(body: &Value) -> String {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "tool")
        .map(|m| match &m["content"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .unwrap_or_default()
}
