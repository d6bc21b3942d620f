//! `pi hooks list` and `pi hooks approve`, and what start-up says of a project's command hooks
//! in print mode: skipped unapproved (and how to approve them), quiet with
//! `--no-command-hooks` or in an untrusted project.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::cli_support::*;
use pi_mock_llm::{Api, Turn};
use serde_json::{Value, json};

fn hook(event: &str, matcher: &str, command: &str) -> Value {
    json!({"hooks": {event: [{"matcher": matcher, "hooks": [{"type": "command", "command": command}]}]}})
}

/// A project with `.pi/settings.json` as `settings`, trusted by a saved decision when
/// `trusted`.
fn project(settings: Value, trusted: bool) -> PiEnv {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    std::fs::create_dir_all(pi.cwd().join(".pi")).unwrap();
    std::fs::write(pi.cwd().join(".pi/settings.json"), settings.to_string()).unwrap();
    let cwd = pi.cwd().canonicalize().unwrap();
    pi.write_agent_file(
        "trust.json",
        &json!({ cwd.to_string_lossy(): trusted }).to_string(),
    );
    pi
}

fn approvals(pi: &PiEnv) -> Option<Value> {
    let text = std::fs::read_to_string(pi.agent_dir().join("trust-hooks.json")).ok()?;
    serde_json::from_str(&text).ok()
}

#[test]
fn list_shows_every_hook_and_approve_records_the_projects_commands() {
    let pi = project(hook("PreToolUse", "Bash", "./check.sh"), true);
    let mut global = hook("PostToolUse", "", "cargo fmt");
    global["hooks"]["Notification"] = json!([{"hooks": [{"type": "command", "command": "x"}]}]);
    pi.settings(global);
    let out = pi.run(&["hooks", "list"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lines: Vec<String> = stdout(&out).lines().map(str::to_owned).collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(
        lines[0].starts_with("global")
            && lines[0].contains("PostToolUse")
            && lines[0].contains("cargo fmt")
            && lines[0].ends_with("[runs]"),
        "{lines:?}"
    );
    assert!(
        lines[1].starts_with("project")
            && lines[1].contains("Bash")
            && lines[1].ends_with("./check.sh  [not approved]"),
        "{lines:?}"
    );
    assert!(
        stderr(&out).contains("\"Notification\""),
        "{}",
        stderr(&out)
    );

    // Nobody to ask and no --yes: nothing approved, exit 2.
    let out = pi.run(&["hooks", "approve"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("./check.sh"), "{}", stderr(&out));
    assert!(stderr(&out).contains("unsandboxed"), "{}", stderr(&out));
    assert_eq!(approvals(&pi), None);

    let out = pi.run(&["hooks", "approve", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let cwd = pi.cwd().canonicalize().unwrap();
    assert_eq!(
        approvals(&pi).unwrap(),
        json!({ cwd.to_string_lossy(): ["./check.sh"] })
    );
    let out = pi.run(&["hooks", "list"]);
    assert!(
        stdout(&out).contains("./check.sh  [approved]"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn an_untrusted_projects_hooks_are_listed_as_ignored() {
    let pi = project(hook("PreToolUse", "", "./check.sh"), false);
    let out = pi.run(&["hooks", "list"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("./check.sh  [ignored: project not trusted]"),
        "{}",
        stdout(&out)
    );
}

/// One print-mode run answering "ok"; returns stderr.
fn print_run(pi: &PiEnv, args: &[&str]) -> String {
    pi.mock.push(Turn::text("ok"));
    let mut all = vec!["--no-session"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-p", "hi"]);
    let out = pi.run(&all);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    stderr(&out)
}

#[test]
fn print_mode_skips_unapproved_project_hooks_and_says_how_to_approve_them() {
    let pi = project(hook("PreToolUse", "Bash", "./check.sh"), true);
    let err = print_run(&pi, &[]);
    assert!(
        err.contains("not approved, so not run: PreToolUse `./check.sh`")
            && err.contains("pi hooks approve"),
        "{err}"
    );
    // Turned off: nothing to say.
    let err = print_run(&pi, &["--no-command-hooks"]);
    assert!(!err.contains("check.sh"), "{err}");
    // Approved: nothing skipped.
    let out = pi.run(&["hooks", "approve", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = print_run(&pi, &[]);
    assert!(!err.contains("not approved"), "{err}");
    // An untrusted project's hooks are not even considered.
    let untrusted = project(hook("PreToolUse", "Bash", "./check.sh"), false);
    let err = print_run(&untrusted, &[]);
    assert!(!err.contains("check.sh"), "{err}");
}
