//! Hook components end to end: the `pi` binary against the mock LLM with the test components
//! `hook-probe` and `hook-second` installed as packages. Each event reaches the hook with its
//! payload and each answer has its effect, seen from outside: the file system (did the tool
//! run, with which input), the mock's requests (what the model saw), the session file, and
//! the RPC stream (commands, dialogs).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::cli_rpc::{RpcClient, ok};
use super::cli_support::*;
use pi_mock_llm::{Api, Turn};
use serde_json::{Value, json};
use std::path::PathBuf;

/// Installs a hook component as package `name` in the global extensions dir and approves it
/// with what its manifest asks (`capabilities`, plus any other tables in `extra`).
fn install_hook(pi: &PiEnv, name: &str, wasm: &str, extra: &str) -> PathBuf {
    let package = pi.agent_dir().join("extensions").join(name);
    std::fs::create_dir_all(&package).unwrap();
    std::fs::copy(wasm, package.join("hook.wasm")).unwrap();
    let manifest = format!(
        "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nwit = \"0.3.0\"\n\n\
         [[component]]\npath = \"hook.wasm\"\nworld = \"hook\"\n\n{extra}"
    );
    std::fs::write(package.join("pi-extension.toml"), manifest).unwrap();
    pi.approve(&package);
    package
}

const GRANTS: &str = "[capabilities]\nui = true\nsession = true\n";

fn probe(pi: &PiEnv) -> PathBuf {
    install_hook(pi, "hook-probe", pi_ext_test_artifacts::HOOK_PROBE, GRANTS)
}

/// The model calls `bash` with `command`, then answers "done".
pub(super) fn bash_turns(pi: &PiEnv, command: &str) {
    pi.mock
        .push(Turn::new().tool_call("c1", "bash", json!({ "command": command })));
    pi.mock.push(Turn::text("done"));
}

/// The messages of request `i` as the model saw them, as JSON text.
fn request_text(pi: &PiEnv, i: usize) -> String {
    pi.mock.requests()[i].body["messages"].to_string()
}

/// The tool result message of request `i` (OpenAI completions: `role: tool`).
pub(super) fn tool_message(pi: &PiEnv, i: usize) -> Value {
    pi.mock.requests()[i].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .cloned()
        .expect("a tool result in the request")
}

pub(super) fn run_ok(pi: &PiEnv, args: &[&str]) -> std::process::Output {
    let out = pi.run(args);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    out
}

#[test]
fn a_block_stops_the_call_and_the_model_is_told_why() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    probe(&pi);
    bash_turns(&pi, "touch blocked-hook-block");
    run_ok(&pi, &["-p", "make the file"]);
    assert!(
        !pi.cwd().join("blocked-hook-block").exists(),
        "the tool ran"
    );
    let result = tool_message(&pi, 1).to_string();
    assert!(result.contains("probe blocked it"), "{result}");
    assert!(result.contains("hook-probe@0.1.0"), "{result}");
}

#[test]
fn a_rewrite_runs_the_tool_with_the_new_input() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    probe(&pi);
    bash_turns(&pi, "touch made-hook-rewrite");
    run_ok(&pi, &["-p", "make the file"]);
    assert!(pi.cwd().join("made-hook-rewritten").exists());
    assert!(!pi.cwd().join("made-hook-rewrite").exists());
}

#[test]
fn a_replaced_result_is_what_the_model_sees() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    probe(&pi);
    bash_turns(&pi, "echo hook-replace");
    run_ok(&pi, &["-p", "echo it"]);
    let result = tool_message(&pi, 1);
    assert!(
        result["content"].to_string().contains("HOOK-REPLACED"),
        "{result}"
    );
    assert!(
        !result["content"].to_string().contains("hook-replace\\n"),
        "{result}"
    );
}

#[test]
fn input_hooks_transform_a_prompt_or_handle_it() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    probe(&pi);
    pi.mock.push(Turn::text("ok"));
    run_ok(&pi, &["-p", "hook:transform what the user meant"]);
    let sent = request_text(&pi, 0);
    assert!(sent.contains("what the user meant"), "{sent}");
    assert!(!sent.contains("hook:transform"), "{sent}");

    run_ok(&pi, &["-p", "hook:handled by the hook"]);
    assert_eq!(
        pi.mock.requests().len(),
        1,
        "a handled prompt made a request"
    );
}

#[test]
fn before_agent_start_changes_the_system_prompt_for_that_run_and_adds_a_message() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    probe(&pi);
    pi.mock.push(Turn::text("ok"));
    pi.mock.push(Turn::text("ok again"));
    run_ok(&pi, &["-p", "hook:system hook:message go"]);
    run_ok(&pi, &["-c", "-p", "plain prompt"]);
    let requests = pi.mock.requests();
    let system = |i: usize| requests[i].body["messages"][0].to_string();
    assert!(system(0).contains("HOOK-SYSTEM-ADDITION"), "{}", system(0));
    assert!(!system(1).contains("HOOK-SYSTEM-ADDITION"), "{}", system(1));
    assert!(request_text(&pi, 0).contains("HOOK-MESSAGE"));
    let custom = pi.session_entries("custom_message");
    assert!(
        custom.iter().any(|e| e["customType"] == "probe"),
        "{custom:?}"
    );
    // The `host` import gives hooks the session's id, as it gives tools.
    let id = pi.session_lines()[0]["id"].clone();
    let starts: Vec<Value> = pi
        .session_entries("custom")
        .into_iter()
        .filter(|e| e["customType"] == "probe-start")
        .collect();
    assert_eq!(starts.len(), 2, "{starts:?}");
    assert!(
        starts.iter().all(|e| e["data"]["host_session"] == id),
        "{starts:?}"
    );
}

#[test]
fn a_context_change_is_for_that_request_only() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    probe(&pi);
    pi.mock.push(Turn::text("ok"));
    run_ok(&pi, &["-p", "please hook:context"]);
    let sent = request_text(&pi, 0);
    assert!(sent.contains("HOOK-CONTEXT-CHANGED"), "{sent}");
    assert!(!sent.contains("please hook:context"), "{sent}");
    let saved = messages(&pi.session_lines())
        .into_iter()
        .find(|m| m["role"] == "user")
        .cloned()
        .unwrap();
    assert!(saved.to_string().contains("please hook:context"), "{saved}");
}

#[test]
fn hooks_run_in_load_order_the_first_block_wins_and_rewrites_chain() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    probe(&pi);
    install_hook(
        &pi,
        "z-second",
        pi_ext_test_artifacts::HOOK_SECOND,
        "[capabilities]\nsession = true\n",
    );
    bash_turns(&pi, "touch chain-hook-rewrite");
    run_ok(&pi, &["-p", "chain"]);
    assert!(pi.cwd().join("chain-hook-rewritten-twice").exists());
    let second = pi.session_entries("custom");
    assert!(
        second.iter().any(|e| e["customType"] == "second-called"),
        "the second hook was not asked: {second:?}"
    );

    let pi = PiEnv::new(Api::OpenAiCompletions);
    probe(&pi);
    install_hook(
        &pi,
        "z-second",
        pi_ext_test_artifacts::HOOK_SECOND,
        "[capabilities]\nsession = true\n",
    );
    bash_turns(&pi, "touch never-hook-block");
    run_ok(&pi, &["-p", "block"]);
    assert!(!pi.cwd().join("never-hook-block").exists());
    let second: Vec<Value> = pi
        .session_entries("custom")
        .into_iter()
        .filter(|e| e["customType"] == "second-called")
        .collect();
    assert!(second.is_empty(), "the second hook was asked: {second:?}");
}

#[test]
fn failing_hooks_allow_with_one_notice_unless_they_fail_closed() {
    for (command, limits) in [
        ("touch trap-hook-trap", ""),
        ("touch hang-hook-hang", "[limits]\ntimeout-ms = 700\n"),
        ("touch garbage-hook-garbage", ""),
    ] {
        let pi = PiEnv::new(Api::OpenAiCompletions);
        install_hook(
            &pi,
            "hook-probe",
            pi_ext_test_artifacts::HOOK_PROBE,
            &format!("{GRANTS}\n{limits}"),
        );
        bash_turns(&pi, command);
        let out = run_ok(&pi, &["-p", "go"]);
        let file = command.trim_start_matches("touch ");
        assert!(
            pi.cwd().join(file).exists(),
            "{command}: the tool did not run"
        );
        let err = stderr(&out);
        assert!(err.contains("hook-probe"), "{command}: {err}");
        // Reported once, however many times the hook is asked.
        assert_eq!(err.matches("hook failed").count(), 1, "{command}: {err}");
    }

    let pi = PiEnv::new(Api::OpenAiCompletions);
    install_hook(
        &pi,
        "hook-probe",
        pi_ext_test_artifacts::HOOK_PROBE,
        &format!("{GRANTS}\n[hook]\nfail = \"closed\"\n"),
    );
    bash_turns(&pi, "touch closed-hook-trap");
    run_ok(&pi, &["-p", "go"]);
    assert!(!pi.cwd().join("closed-hook-trap").exists());
    let result = tool_message(&pi, 1).to_string();
    assert!(result.contains("fails closed"), "{result}");
}

#[test]
fn an_ask_without_anyone_to_answer_blocks_in_print_mode() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    probe(&pi);
    bash_turns(&pi, "touch asked-hook-ask");
    run_ok(&pi, &["-p", "go"]);
    assert!(!pi.cwd().join("asked-hook-ask").exists());
    assert!(
        tool_message(&pi, 1)
            .to_string()
            .contains("no one answered yes")
    );
}

#[test]
fn a_hook_without_the_session_grant_is_refused_by_name() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    install_hook(
        &pi,
        "hook-probe",
        pi_ext_test_artifacts::HOOK_PROBE,
        "[capabilities]\nui = true\n",
    );
    let out = run_ok(&pi, &["-p", "/probe send hello"]);
    let err = stderr(&out);
    assert!(
        err.contains("capability `session` was not granted to hook-probe"),
        "{err}"
    );
    assert!(pi.mock.requests().is_empty());
}

#[test]
fn rpc_lists_runs_and_answers_hook_commands_and_dialogs() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    probe(&pi);
    let mut rpc = RpcClient::start(&pi);

    let commands = rpc.call(json!({"id": "c", "type": "get_commands"}));
    let listed = ok(&commands)["commands"].as_array().unwrap().clone();
    let probe = listed
        .iter()
        .find(|c| c["name"] == "probe")
        .expect("listed");
    assert_eq!(probe["source"], "extension");

    // An `input` hook that handles the prompt: answered `handled`, and no request is made.
    let handled = rpc.call(json!({"id": "h", "type": "prompt", "message": "hook:handled"}));
    assert_eq!(ok(&handled)["disposition"], "handled");
    assert!(pi.mock.requests().is_empty());

    let response = rpc.call(json!({"id": "p1", "type": "prompt", "message": "/probe hello"}));
    assert_eq!(ok(&response)["disposition"], "handled");
    let notice = rpc.wait_for("the notice", |l| {
        l["type"] == "extension_ui_request" && l["method"] == "notify"
    });
    assert_eq!(notice["message"], "probe: hello");

    for (answer, said) in [
        (json!({"confirmed": true}), "yes"),
        (json!({"confirmed": false}), "no"),
    ] {
        ok(&rpc.call(json!({"id": "p2", "type": "prompt", "message": "/probe confirm"})));
        let asked = rpc.wait_for("the dialog", |l| {
            l["type"] == "extension_ui_request" && l["method"] == "confirm"
        });
        assert_eq!(asked["title"], "Probe");
        let mut reply = json!({"type": "extension_ui_response", "id": asked["id"]});
        reply
            .as_object_mut()
            .unwrap()
            .extend(answer.as_object().unwrap().clone());
        rpc.send_raw(&reply.to_string());
        let expected = format!("probe confirmed: {said}");
        rpc.wait_for(&expected, |l| {
            l["method"] == "notify" && l["message"] == expected.as_str()
        });
    }

    // A tool call a hook asks about runs only after a yes.
    bash_turns(&pi, "touch yes-hook-ask");
    ok(&rpc.call(json!({"id": "p3", "type": "prompt", "message": "go"})));
    let asked = rpc.wait_for("the ask", |l| {
        l["type"] == "extension_ui_request" && l["method"] == "select"
    });
    assert_eq!(asked["approval"]["tool"], "bash", "{asked}");
    rpc.send_raw(
        &json!({"type": "extension_ui_response", "id": asked["id"], "value": "Allow once"})
            .to_string(),
    );
    rpc.wait_event("agent_end");
    assert!(pi.cwd().join("yes-hook-ask").exists());
}

#[test]
fn a_hook_cancels_compaction() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.settings(json!({"compaction": {"keepRecentTokens": 1}}));
    probe(&pi);
    let mut rpc = RpcClient::start(&pi);
    for (i, text) in ["one", "two"].into_iter().enumerate() {
        pi.mock.push(Turn::text("answer"));
        ok(&rpc.call(json!({"id": format!("p{i}"), "type": "prompt", "message": text})));
        rpc.wait_event("agent_settled");
    }
    ok(&rpc.call(json!({"id": "n", "type": "prompt", "message": "/probe nocompact"})));
    // The command runs beside the RPC loop: wait for its entry.
    let recorded = (0..100).any(|i| {
        let entries = rpc.call(json!({"id": format!("e{i}"), "type": "get_entries"}));
        let found = ok(&entries).to_string().contains("probe-nocompact");
        if !found {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        found
    });
    assert!(recorded, "the command's entry was not written");
    let compact = rpc.call(json!({"id": "c", "type": "compact"}));
    assert_eq!(compact["success"], false, "{compact}");
    assert!(
        compact["error"]
            .as_str()
            .unwrap()
            .contains("probe keeps the context"),
        "{compact}"
    );
}

#[test]
fn a_command_another_package_already_serves_is_refused_with_a_warning() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    probe(&pi);
    install_hook(
        &pi,
        "probe-again",
        pi_ext_test_artifacts::HOOK_PROBE,
        GRANTS,
    );
    let out = run_ok(&pi, &["-p", "/probe hello"]);
    let err = stderr(&out);
    assert!(
        err.contains(
            "probe-again@0.1.0: command /probe is refused: hook-probe@0.1.0 already has it"
        ),
        "{err}"
    );
    // The first package keeps it.
    assert!(err.contains("hook-probe@0.1.0: probe: hello"), "{err}");
    assert!(!err.contains("probe-again@0.1.0: probe: hello"), "{err}");
}
