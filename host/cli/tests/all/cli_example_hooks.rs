//! The hook packages of `extensions/` installed with `pi ext install --yes` and exercised
//! through the binary against the mock LLM: `permission-gate` (asks before `rm -rf`; blocks
//! where no one can answer), `protected-paths` (blocks writes of `.env`), `todo` (a tool and a
//! hook sharing the list in the session file: `/todos`, the footer status, restored on resume)
//! and `notify` (asks for the user's attention after a long run).

use super::cli_extension_examples::built_package;
use super::cli_rpc::{RpcClient, ok};
use super::cli_support::*;
use super::cli_tui_support::{REGULAR, pi_in_tmux};
use pi_mock_llm::{Api, Turn};
use serde_json::{Value, json};
use std::path::PathBuf;

fn install(pi: &PiEnv, package: PathBuf) {
    let out = pi.run(&["ext", "install", package.to_str().unwrap(), "--yes"]);
    assert_eq!(out.status.code(), Some(0), "install: {}", stderr(&out));
}

fn run_ok(pi: &PiEnv, args: &[&str]) -> std::process::Output {
    let out = pi.run(args);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    out
}

/// The text of the tool result the model got in request `i`.
fn tool_result(pi: &PiEnv, i: usize) -> String {
    pi.mock.requests()[i].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

fn call(pi: &PiEnv, tool: &str, arguments: Value) {
    pi.mock.push(Turn::new().tool_call("c1", tool, arguments));
    pi.mock.push(Turn::text("done"));
}

#[test]
fn the_permission_gate_blocks_rm_rf_without_a_ui_and_runs_it_after_a_yes() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let package = built_package(
        &pi,
        pi_extension_examples::PERMISSION_GATE,
        "permission-gate.wasm",
    );
    install(&pi, package);
    let victim = pi.cwd().join("victim");
    std::fs::create_dir_all(&victim).unwrap();

    call(&pi, "bash", json!({"command": "rm -rf victim"}));
    run_ok(&pi, &["-p", "clean up"]);
    assert!(victim.exists(), "rm -rf ran without a yes");
    assert!(
        tool_result(&pi, 1).contains("Blocked"),
        "{}",
        tool_result(&pi, 1)
    );

    // A harmless command runs without a question.
    call(&pi, "bash", json!({"command": "touch harmless"}));
    run_ok(&pi, &["-p", "touch it"]);
    assert!(pi.cwd().join("harmless").exists());

    // In RPC mode the gate's question reaches the client; a yes lets it run.
    let mut rpc = RpcClient::start(&pi);
    call(&pi, "bash", json!({"command": "rm -rf victim"}));
    ok(&rpc.call(json!({"id": "p", "type": "prompt", "message": "clean up"})));
    // The approval dialog: a select with the approval choices and what the call would do.
    let asked = rpc.wait_for("the gate's question", |l| {
        l["type"] == "extension_ui_request" && l["method"] == "select"
    });
    assert_eq!(asked["approval"]["tool"], "bash", "{asked}");
    assert_eq!(
        asked["approval"]["preview"],
        json!({"kind": "command", "command": "rm -rf victim"})
    );
    assert!(
        asked["title"]
            .as_str()
            .unwrap()
            .starts_with("permission-gate@0.1.0 asks")
    );
    let yes = json!({"type": "extension_ui_response", "id": asked["id"], "value": "Allow once"});
    rpc.send_raw(&yes.to_string());
    rpc.wait_event("agent_settled");
    assert!(!victim.exists(), "the confirmed rm -rf did not run");
}

#[test]
fn protected_paths_blocks_writing_a_dotenv_and_lets_other_files_through() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let package = built_package(
        &pi,
        pi_extension_examples::PROTECTED_PATHS,
        "protected-paths.wasm",
    );
    std::fs::copy(
        std::path::Path::new(pi_extension_examples::PROTECTED_PATHS.dir)
            .join("protected-paths.conf"),
        package.join("protected-paths.conf"),
    )
    .unwrap();
    install(&pi, package);

    call(
        &pi,
        "write",
        json!({"path": ".env", "content": "SECRET=1\n"}),
    );
    run_ok(&pi, &["-p", "write the env"]);
    assert!(!pi.cwd().join(".env").exists(), "the .env was written");
    assert!(
        tool_result(&pi, 1).contains("protected-paths"),
        "{}",
        tool_result(&pi, 1)
    );

    call(
        &pi,
        "write",
        json!({"path": "notes.txt", "content": "fine\n"}),
    );
    run_ok(&pi, &["-p", "write notes"]);
    assert_eq!(
        std::fs::read_to_string(pi.cwd().join("notes.txt")).unwrap(),
        "fine\n"
    );
}

/// The todo package: both components in one package dir.
fn todo_package(pi: &PiEnv) -> PathBuf {
    let package = built_package(pi, pi_extension_examples::TODO_TOOL, "todo-tool.wasm");
    std::fs::copy(
        pi_extension_examples::TODO_HOOK.component,
        package.join("todo-hook.wasm"),
    )
    .unwrap();
    package
}

#[test]
fn the_install_prompt_names_the_ui_and_session_capabilities() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let package = todo_package(&pi);
    // No terminal to ask on and no --yes: the request is shown, nothing installed.
    let out = pi.run(&["ext", "install", package.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("ui: show notices and ask you questions"),
        "{err}"
    );
    assert!(
        err.contains("session: add messages to the conversation"),
        "{err}"
    );
}

#[test]
fn todo_keeps_its_list_in_the_session_and_shows_it_with_slash_todos_and_in_the_footer() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    install(&pi, todo_package(&pi));

    let mut rpc = RpcClient::start(&pi);
    call(
        &pi,
        "todo",
        json!({"action": "add", "text": "write the tests"}),
    );
    ok(&rpc.call(json!({"id": "p", "type": "prompt", "message": "plan"})));
    rpc.wait_event("agent_settled");
    // After the turn the hook puts the count in the footer.
    let is_status = |l: &Value| l["method"] == "setStatus" && l["statusText"] == "1 open";
    let status = match rpc.seen.iter().find(|l| is_status(l)).cloned() {
        Some(line) => line,
        None => rpc.wait_for("the footer status", is_status),
    };
    assert_eq!(status["statusKey"], "todo");
    let response = rpc.call(json!({"id": "t", "type": "prompt", "message": "/todos"}));
    assert_eq!(ok(&response)["disposition"], "handled");
    let listed = rpc.wait_for("the list", |l| l["method"] == "notify");
    assert!(
        listed["message"]
            .as_str()
            .unwrap()
            .contains("write the tests"),
        "{listed}"
    );
    drop(rpc.stdin.take());
    rpc.child.wait().unwrap();

    // Resumed, the session start shows the stored list again.
    let mut resumed = RpcClient::start_with(&pi, &["-c"]);
    let response = resumed.call(json!({"id": "t", "type": "prompt", "message": "/todos"}));
    ok(&response);
    let listed = resumed.wait_for("the resumed list", |l| l["method"] == "notify");
    assert!(
        listed["message"]
            .as_str()
            .unwrap()
            .contains("write the tests"),
        "{listed}"
    );
    let entries = pi.session_entries("custom");
    assert!(
        entries.iter().any(|e| e["customType"] == "todo"),
        "{entries:?}"
    );
}

#[test]
fn notify_asks_for_attention_after_a_run_longer_than_its_threshold() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    install(
        &pi,
        built_package(&pi, pi_extension_examples::NOTIFY, "notify.wasm"),
    );
    pi.mock.push(Turn::text("ok"));
    let out = pi
        .command(&["-p", "quick"])
        .env("NOTIFY_AFTER_SECONDS", "0")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("notify@0.1.0: pi: The agent finished"),
        "{}",
        stderr(&out)
    );

    pi.mock.push(Turn::text("ok"));
    let out = run_ok(&pi, &["-p", "quick"]);
    assert!(
        !stderr(&out).contains("The agent finished"),
        "{}",
        stderr(&out)
    );
}

/// The screens of these tests, printed for `--nocapture` readers (what the user sees).
fn show(what: &str, screen: &str) {
    println!("--- {what} ---\n{}\n---", screen.trim_end());
}

#[test]
fn in_the_terminal_ui_the_gate_asks_and_slash_todos_lists_the_todos() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    install(
        &pi,
        built_package(
            &pi,
            pi_extension_examples::PERMISSION_GATE,
            "permission-gate.wasm",
        ),
    );
    install(&pi, todo_package(&pi));
    let victim = pi.cwd().join("victim");
    std::fs::create_dir_all(&victim).unwrap();
    let tmux = pi_in_tmux(&pi, REGULAR);

    call(&pi, "bash", json!({"command": "rm -rf victim"}));
    tmux.submit("clean up");
    let asking = tmux.wait_text("permission-gate@0.1.0 asks");
    show("the permission gate asks", &asking);
    assert!(asking.contains("rm -rf victim"), "{asking}");
    assert!(victim.exists());
    // The first choice, "Allow once", is the one Enter takes.
    assert!(asking.contains("Allow once"), "{asking}");
    tmux.keys(&["Enter"]);
    tmux.wait_for("the run to end", |_| !victim.exists());
    tmux.wait_text("done");

    call(
        &pi,
        "todo",
        json!({"action": "add", "text": "write the tests"}),
    );
    tmux.submit("plan it");
    tmux.wait_text("1 open");
    tmux.submit("/todos");
    // The list once more, now as the command's notice under the tool's result.
    let listed = tmux.wait_for("the /todos notice", |screen| {
        screen.matches("[ ] 1. write the tests").count() >= 2
    });
    show("/todos", &listed);
    // Offered after `/` and listed by /help, with the package that serves it.
    tmux.type_text("/tod");
    tmux.wait_text("Show the todo list of this session (todo@0.1.0)");
    tmux.keys(&["C-u"]);
    tmux.submit("/help");
    let help = tmux.wait_text("/todos");
    assert!(help.contains("(todo@0.1.0)"), "{help}");
    tmux.exit();
}
