//! Command hooks end to end: the real binary in print mode against the mock LLM, a shell
//! script from the settings blocking the model's `rm` by exit code 2 and by JSON (the file
//! stays, the model's next request carries the reason), a project's hook skipped unapproved,
//! `--no-command-hooks`, and an untrusted project's hooks ignored.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::cli_support::*;
use pi_mock_llm::{Api, Turn};
use serde_json::{Value, json};
use std::path::Path;

/// A script that blocks bash commands running `rm`: `how` is `exit2` or `json`. Each run
/// leaves `ran-<how>` beside it.
fn rm_guard(dir: &Path, how: &str) -> String {
    let answer = match how {
        "exit2" => "echo \"rm is not allowed ($how)\" >&2; exit 2",
        _ => r#"echo '{"decision": "block", "reason": "rm is not allowed (json)"}'; exit 0"#,
    };
    let path = dir.join(format!("guard-{how}.sh"));
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\nhow={how}\ntouch \"$(dirname \"$0\")/ran-{how}\"\ninput=$(cat)\ncase \"$input\" in\n  *'\"command\":\"rm '*) {answer} ;;\nesac\nexit 0\n"
        ),
    )
    .unwrap();
    format!("sh {}", path.display())
}

fn pre_tool_use(command: &str) -> Value {
    json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": command, "timeout": 20}]}]}})
}

/// A print-mode run in which the model asks for `bash rm victim.txt`; returns stderr.
fn run_rm(pi: &PiEnv, args: &[&str]) -> String {
    std::fs::write(pi.cwd().join("victim.txt"), "keep me").unwrap();
    pi.mock
        .push(Turn::new().tool_call("b1", "bash", json!({"command": "rm victim.txt"})));
    pi.mock.push(Turn::text("done"));
    let mut all = vec!["--no-session"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-p", "clean up"]);
    let out = pi.run(&all);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    stderr(&out)
}

/// The text of the model's second request (the one after the tool call).
fn second_request(pi: &PiEnv) -> String {
    let requests = pi.mock.requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    requests[1].body.to_string()
}

#[test]
fn a_global_hook_blocks_rm_by_exit_code_2_and_by_json() {
    for how in ["exit2", "json"] {
        let pi = PiEnv::new(Api::OpenAiCompletions);
        let hooks_dir = pi.root.path().join("hooks");
        std::fs::create_dir_all(&hooks_dir).unwrap();
        pi.settings(pre_tool_use(&rm_guard(&hooks_dir, how)));
        run_rm(&pi, &[]);
        assert!(pi.cwd().join("victim.txt").exists(), "{how}: rm ran");
        let request = second_request(&pi);
        assert!(
            request.contains(&format!("rm is not allowed ({how})")),
            "{how}: {request}"
        );
    }
}

#[test]
fn a_broken_hook_fails_open_unless_it_says_fail_closed() {
    for fail_closed in [false, true] {
        let pi = PiEnv::new(Api::OpenAiCompletions);
        let mut settings = pre_tool_use("/no/such/guard.sh");
        if fail_closed {
            settings["hooks"]["PreToolUse"][0]["hooks"][0]["failClosed"] = json!(true);
        }
        pi.settings(settings);
        let err = run_rm(&pi, &[]);
        assert!(err.contains("/no/such/guard.sh"), "{err}");
        // Failing open, the call ran; failing closed, it was blocked naming the hook.
        assert_eq!(pi.cwd().join("victim.txt").exists(), fail_closed, "{err}");
        let request = second_request(&pi);
        assert_eq!(request.contains("guard.sh"), fail_closed, "{request}");
    }
}

#[test]
fn no_command_hooks_turns_them_off() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let hooks_dir = pi.root.path().join("hooks");
    std::fs::create_dir_all(&hooks_dir).unwrap();
    pi.settings(pre_tool_use(&rm_guard(&hooks_dir, "exit2")));
    run_rm(&pi, &["--no-command-hooks"]);
    assert!(!hooks_dir.join("ran-exit2").exists(), "the hook ran");
    assert!(!second_request(&pi).contains("rm is not allowed"));
}

/// A project whose `.pi/settings.json` holds an `rm` guard, trusted or not.
fn guarded_project(trusted: bool) -> PiEnv {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let dot_pi = pi.cwd().join(".pi");
    std::fs::create_dir_all(&dot_pi).unwrap();
    let guard = rm_guard(&dot_pi, "exit2");
    std::fs::write(
        dot_pi.join("settings.json"),
        pre_tool_use(&guard).to_string(),
    )
    .unwrap();
    let cwd = pi.cwd().canonicalize().unwrap();
    pi.write_agent_file(
        "trust.json",
        &json!({ cwd.to_string_lossy(): trusted }).to_string(),
    );
    pi
}

#[test]
fn rpc_asks_before_a_project_hooks_first_run_and_remembers_the_answer() {
    let pi = guarded_project(true);
    std::fs::write(pi.cwd().join("victim.txt"), "keep me").unwrap();
    pi.mock
        .push(Turn::new().tool_call("b1", "bash", json!({"command": "rm victim.txt"})));
    pi.mock.push(Turn::text("done"));
    let mut rpc = super::cli_rpc::RpcClient::start_with(&pi, &["--no-session"]);
    super::cli_rpc::ok(&rpc.call(json!({"type": "prompt", "message": "clean up"})));
    let asked = rpc.wait_for("the approval", |l| {
        l["type"] == "extension_ui_request" && l["method"] == "confirm"
    });
    assert!(
        asked["message"]
            .as_str()
            .unwrap()
            .contains("guard-exit2.sh"),
        "{asked}"
    );
    rpc.send_raw(
        &json!({"type": "extension_ui_response", "id": asked["id"], "confirmed": true}).to_string(),
    );
    rpc.wait_event("agent_settled");
    assert!(
        pi.cwd().join("victim.txt").exists(),
        "the approved hook did not block rm"
    );
    assert!(pi.cwd().join(".pi/ran-exit2").exists());
    drop(rpc);
    // Approved once, it runs without asking in print mode too.
    std::fs::remove_file(pi.cwd().join(".pi/ran-exit2")).unwrap();
    run_rm(&pi, &[]);
    assert!(pi.cwd().join(".pi/ran-exit2").exists());
}

#[test]
fn a_project_hook_runs_only_in_a_trusted_project_once_approved() {
    let pi = guarded_project(true);
    let ran = pi.cwd().join(".pi/ran-exit2");
    let err = run_rm(&pi, &[]);
    assert!(err.contains("pi hooks approve"), "{err}");
    assert!(!ran.exists(), "the unapproved hook ran");

    let out = pi.run(&["hooks", "approve", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let before = pi.mock.requests().len();
    run_rm(&pi, &[]);
    assert!(ran.exists(), "the approved hook did not run");
    assert!(pi.cwd().join("victim.txt").exists(), "rm ran");
    let after_the_call = pi.mock.requests()[before + 1].body.to_string();
    assert!(
        after_the_call.contains("rm is not allowed"),
        "{after_the_call}"
    );

    let untrusted = guarded_project(false);
    let err = run_rm(&untrusted, &[]);
    assert!(!err.contains("guard"), "{err}");
    assert!(
        !untrusted.cwd().join(".pi/ran-exit2").exists(),
        "an untrusted project's hook ran"
    );
}
