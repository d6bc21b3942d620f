//! Permission modes that ask (`ask-writes`, `ask-all`), through the binary against the mock LLM:
//! print mode refuses what it cannot ask about, naming the mode and how to allow it; RPC carries
//! the approval dialog and its answers; the rules "for this session" and "for this project"
//! answer for the user later (the project's across processes, until `pi grants revoke`), and a
//! denial's reason reaches the model.

use super::cli_hooks::{bash_turns, run_ok, tool_message};
use super::cli_rpc::{RpcClient, ok};
use super::cli_support::*;
use pi_mock_llm::{Api, Turn};
use serde_json::{Value, json};

/// A workspace the user trusts (project rules are only kept for those).
fn trusted() -> PiEnv {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let cwd = pi.cwd();
    pi.write_agent_file(
        "trust.json",
        &json!({ cwd.to_string_lossy(): true }).to_string(),
    );
    pi
}

fn result_text(pi: &PiEnv, request: usize) -> String {
    tool_message(pi, request)["content"].to_string()
}

/// The newest tool result the model was sent.
fn last_result(pi: &PiEnv) -> String {
    let requests = pi.mock.requests();
    let messages = requests[requests.len() - 1].body["messages"].clone();
    let messages = messages.as_array().unwrap();
    let last = messages.iter().rev().find(|m| m["role"] == "tool");
    last.expect("a tool result")["content"].to_string()
}

#[test]
fn print_mode_refuses_what_must_ask_and_lets_read_only_calls_run() {
    let pi = trusted();
    bash_turns(&pi, "touch made-in-print");
    let out = run_ok(&pi, &["--permission-mode", "ask-writes", "-p", "go"]);
    assert!(!pi.cwd().join("made-in-print").exists(), "the call ran");
    let refusal = result_text(&pi, 1);
    assert!(refusal.contains("permission mode ask-writes"), "{refusal}");
    assert!(refusal.contains("--permission-mode auto"), "{refusal}");
    assert_eq!(stdout(&out).trim(), "done");

    // `ls` is read-only: ask-all lets it run; a tool that is not read-only asks (and is refused).
    std::fs::write(pi.cwd().join("seen.txt"), "x").unwrap();
    pi.mock
        .push(Turn::new().tool_call("c1", "ls", json!({ "path": "." })));
    pi.mock.push(Turn::text("listed"));
    let args = [
        "--tools",
        "read,bash,ls",
        "--permission-mode",
        "ask-all",
        "-p",
        "list",
    ];
    run_ok(&pi, &args);
    assert!(
        last_result(&pi).contains("seen.txt"),
        "{}",
        last_result(&pi)
    );
}

/// Prompts `message` with the model calling `bash` `command`; returns the approval request
/// the client got, if any, once answered with `choice` (and the run settled).
fn prompt_bash(rpc: &mut RpcClient, pi: &PiEnv, command: &str, choice: Option<&str>) -> Value {
    bash_turns(pi, command);
    let id = format!("p-{command}");
    ok(&rpc.call(json!({"id": id, "type": "prompt", "message": "go"})));
    let Some(choice) = choice else {
        rpc.wait_event("agent_settled");
        return Value::Null;
    };
    let asked = rpc.wait_for("the approval", |l| {
        l["type"] == "extension_ui_request" && l["method"] == "select"
    });
    assert_eq!(asked["approval"]["preview"]["command"], command, "{asked}");
    let answer = json!({"type": "extension_ui_response", "id": asked["id"], "value": choice});
    rpc.send_raw(&answer.to_string());
    asked
}

#[test]
fn rpc_answers_allow_once_for_the_session_or_the_project_or_deny_with_a_reason() {
    let pi = trusted();
    let mut rpc = RpcClient::start_with(&pi, &["--permission-mode", "ask-writes"]);
    let exists = |name: &str| pi.cwd().join(name).exists();

    // Once: it runs, and the same command asks again.
    prompt_bash(&mut rpc, &pi, "touch once", Some("Allow once"));
    rpc.wait_event("agent_settled");
    assert!(exists("once"));
    prompt_bash(&mut rpc, &pi, "touch once", Some("Allow once"));
    rpc.wait_event("agent_settled");

    // For the session: `touch s1` leaves the rule `touch s1`, which answers for `touch s1 s2`.
    prompt_bash(&mut rpc, &pi, "touch s1", Some("Allow for this session"));
    rpc.wait_event("agent_settled");
    let before = rpc.seen.len();
    prompt_bash(&mut rpc, &pi, "touch s1 s2", None);
    assert!(exists("s2"), "the session rule did not answer");
    let asked_again = rpc.seen[before..]
        .iter()
        .any(|l| l["type"] == "extension_ui_request" && l["method"] == "select");
    assert!(!asked_again, "asked although a session rule allows it");

    // Deny with a reason: the model reads it.
    prompt_bash(&mut rpc, &pi, "touch denied", Some("Deny"));
    let why = rpc.wait_for("the reason", |l| {
        l["type"] == "extension_ui_request" && l["method"] == "input"
    });
    let reason = json!({"type": "extension_ui_response", "id": why["id"], "value": "use mkdir"});
    rpc.send_raw(&reason.to_string());
    rpc.wait_event("agent_settled");
    assert!(!exists("denied"));
    let refusal = last_result(&pi);
    assert!(
        refusal.contains("Denied by the user: use mkdir"),
        "{refusal}"
    );

    // For the project: kept in `.pi/approvals.json`, it answers in the next process too.
    prompt_bash(
        &mut rpc,
        &pi,
        "touch p1",
        Some("Always allow for this project"),
    );
    rpc.wait_event("agent_settled");
    drop(rpc);
    bash_turns(&pi, "touch p1 later");
    run_ok(&pi, &["--permission-mode", "ask-writes", "-p", "go"]);
    assert!(
        exists("later"),
        "the project rule did not answer in a new process"
    );

    // Listed by `pi grants list`, and asked again once revoked.
    let listed = stdout(&run_ok(&pi, &["grants", "list"]));
    let line = listed
        .lines()
        .find(|l| l.contains("touch p1"))
        .unwrap_or_else(|| panic!("{listed}"));
    let id = line
        .split_whitespace()
        .find(|w| w.starts_with('p') && w[1..].chars().all(|c| c.is_ascii_digit()))
        .unwrap_or_else(|| panic!("no rule id in {line:?}"));
    run_ok(&pi, &["grants", "revoke", id]);
    bash_turns(&pi, "touch p1 revoked");
    run_ok(&pi, &["--permission-mode", "ask-writes", "-p", "go"]);
    assert!(!exists("revoked"), "a revoked rule still answered");
}

fn show(what: &str, screen: &str) {
    println!("--- {what} ---\n{}\n---", screen.trim_end());
}

#[test]
fn in_the_terminal_ui_the_approval_dialog_allows_remembers_and_denies() {
    use super::cli_tui_support::{REGULAR, Tmux};
    let pi = trusted();
    let tmux = Tmux::start(
        &pi,
        &[
            "--model",
            "mock/mock-model",
            "--tui-mode",
            REGULAR,
            "--permission-mode",
            "ask-writes",
        ],
    );
    tmux.wait_text("ask-writes");
    let exists = |name: &str| pi.cwd().join(name).exists();

    // Once: the dialog shows the command; Enter takes "Allow once".
    bash_turns(&pi, "touch first && touch second");
    tmux.submit("make two files");
    let asking = tmux.wait_text("Always allow for this project");
    show("the approval dialog", &asking);
    assert!(asking.contains("touch first && touch second"), "{asking}");
    assert!(
        asking.contains("Allow bash? (permission mode ask-writes)"),
        "{asking}"
    );
    tmux.keys(&["Enter"]);
    tmux.wait_for("the run to end", |_| exists("second"));
    tmux.wait_text("done");

    // For the session (key 2): the rule answers the next call, and says so.
    bash_turns(&pi, "touch s1");
    tmux.submit("again");
    tmux.wait_text("Always allow for this project");
    tmux.keys(&["2"]);
    tmux.wait_for("s1", |_| exists("s1"));
    bash_turns(&pi, "touch s1 s2");
    tmux.submit("once more");
    let allowed = tmux.wait_text("allowed by rule s1: touch s1");
    show("a rule answers", &allowed);
    tmux.wait_for("s2", |_| exists("s2"));

    // /grants shows the rule (and the packages' grants); revoked, the call asks again.
    tmux.submit("/grants");
    let grants = tmux.wait_text("Extension packages (granted at install):");
    show("/grants", &grants);
    assert!(
        grants.contains("s1    bash command     touch s1*"),
        "{grants}"
    );
    tmux.submit("/grants revoke s1");
    tmux.wait_text("Revoked s1 (session rule): touch s1*");
    bash_turns(&pi, "touch s1 s3");
    tmux.submit("and again");
    tmux.wait_text("Always allow for this project");
    tmux.keys(&["1"]);
    tmux.wait_for("s3", |_| exists("s3"));

    // Deny (key 4) with a reason the model reads.
    bash_turns(&pi, "rm -rf s1");
    tmux.submit("clean up");
    tmux.wait_text("Always allow for this project");
    press_until(&tmux, "4", "Tell the model why");
    tmux.type_text("keep it");
    tmux.keys(&["Enter"]);
    tmux.wait_text("Denied by the user: keep it");
    assert!(exists("s1"), "a denied rm ran");
    assert!(last_result(&pi).contains("Denied by the user: keep it"));

    // Always for the project (key 3): kept in `.pi/approvals.json`, it answers a new process.
    bash_turns(&pi, "touch p1");
    tmux.submit("project file");
    tmux.wait_text("Always allow for this project");
    tmux.keys(&["3"]);
    tmux.wait_for("p1", |_| exists("p1"));
    tmux.wait_text("done");
    tmux.exit();
    let kept = std::fs::read_to_string(pi.cwd().join(".pi/approvals.json")).unwrap();
    assert!(kept.contains("touch p1"), "{kept}");
    bash_turns(&pi, "touch p1 p2");
    run_ok(&pi, &["--permission-mode", "ask-writes", "-p", "go"]);
    assert!(
        exists("p2"),
        "the project rule did not answer in a new process"
    );
}

/// Presses `key` until `text` shows (at most three times, 5 s apart): on a loaded machine a key
/// sent the moment a dialog is drawn was seen lost once (CI).
fn press_until(tmux: &super::cli_tui_support::Tmux, key: &str, text: &str) {
    for _ in 0..3 {
        tmux.keys(&[key]);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while std::time::Instant::now() < deadline {
            if tmux.screen().contains(text) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
    tmux.wait_text(text);
}
