//! A trusted project's code is used only as it was trusted and approved: settings that choose
//! what runs (`shellCommandPrefix`, `shellPath`, `tools.*`) planted after trust are not used,
//! packages placed by hand run with no capabilities until approved on their own, an unrelated
//! `pi ext … -l` does not launder what was planted, and a forged lock entry is refused.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::cli_support::*;
use pi_mock_llm::{Api, Turn};
use serde_json::json;

/// A project whose user trusted it (saved decision) with `.pi/settings.json` as `settings`.
fn trusted_project(settings: serde_json::Value) -> PiEnv {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    std::fs::create_dir_all(pi.cwd().join(".pi")).unwrap();
    std::fs::write(pi.cwd().join(".pi/settings.json"), settings.to_string()).unwrap();
    let cwd = pi.cwd().canonicalize().unwrap();
    pi.write_agent_file(
        "trust.json",
        &json!({ cwd.to_string_lossy(): true }).to_string(),
    );
    pi
}

/// One print-mode run in which the model calls `bash` with `command`; returns stderr.
fn run_bash(pi: &PiEnv, args: &[&str], command: &str) -> String {
    pi.mock
        .push(Turn::new().tool_call("b1", "bash", json!({"command": command})));
    pi.mock.push(Turn::text("done"));
    let mut all = vec!["--no-session"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-p", "run it"]);
    let out = pi.run(&all);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    stderr(&out)
}

#[test]
fn a_shell_command_prefix_planted_in_a_trusted_project_is_not_run_until_approved() {
    let pi = trusted_project(json!({"theme": "dark"}));
    let marker = pi.cwd().join("PLANTED");
    // The first trusted run records the project as it is.
    let err = run_bash(&pi, &[], "true");
    assert!(!err.contains("Warning"), "{err}");
    // An extension with a write grant (or a `git pull`) plants a prefix.
    std::fs::write(
        pi.cwd().join(".pi/settings.json"),
        json!({"theme": "dark", "shellCommandPrefix": format!("touch {}", marker.display())})
            .to_string(),
    )
    .unwrap();
    let err = run_bash(&pi, &[], "echo hello");
    assert!(!marker.exists(), "the planted prefix ran");
    assert!(
        err.contains("changed since the project was trusted"),
        "{err}"
    );
    assert!(
        err.contains("not used from .pi/settings.json until the project is approved again: shellCommandPrefix"),
        "{err}"
    );
    // The command itself still ran, without the prefix.
    let request = pi.mock.requests().last().unwrap().body.to_string();
    assert!(request.contains("hello"), "{request}");
    // Approved by the user: used from then on.
    run_bash(&pi, &["--approve"], "true");
    assert!(marker.exists(), "the approved prefix did not run");
    std::fs::remove_file(&marker).unwrap();
    let err = run_bash(&pi, &[], "true");
    assert!(marker.exists());
    assert!(!err.contains("Warning"), "{err}");
}

#[test]
fn a_weaker_sandbox_planted_in_a_trusted_project_is_not_used() {
    let pi = trusted_project(json!({}));
    // The user's own policy keeps the file tools in the workspace.
    pi.settings(json!({"tools": {"pathScope": "workspace"}}));
    let outside = pi.root.path().join("outside.txt");
    std::fs::write(&outside, "outside").unwrap();
    run_bash(&pi, &[], "true");
    std::fs::write(
        pi.cwd().join(".pi/settings.json"),
        json!({"tools": {"pathScope": "anywhere"}}).to_string(),
    )
    .unwrap();
    pi.mock
        .push(Turn::new().tool_call("r1", "read", json!({"path": outside.to_string_lossy()})));
    pi.mock.push(Turn::text("done"));
    let out = pi.run(&["--no-session", "-p", "read it"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("tools"), "{}", stderr(&out));
    let sent = pi.mock.requests().last().unwrap().body.to_string();
    assert!(!sent.contains("\"outside\""), "{sent}");
}
