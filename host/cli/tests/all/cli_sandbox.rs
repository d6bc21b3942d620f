//! `--sandbox` / `tools.sandbox` through the real binary: scripted `bash` calls run real
//! commands under Landlock. `TMPDIR` points into the test's own folder, so the system temp
//! dir the sandbox keeps writable is not the folder the "outside" probes write to.

use super::cli_support::*;
use pi_mock_llm::{Api, Turn};
use serde_json::json;
use std::path::PathBuf;
use std::process::Output;

/// Runs `pi -p` with `args` and a private `TMPDIR`, the mock answering the bash calls
/// `commands` (ids `c0`, `c1`, …) and then "done".
fn run_bash(pi: &PiEnv, args: &[&str], commands: &[&str]) -> Output {
    let tmp = pi.root.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let mut turn = Turn::new();
    for (i, command) in commands.iter().enumerate() {
        turn = turn.tool_call(format!("c{i}"), "bash", json!({"command": command}));
    }
    pi.mock.push_all([turn, Turn::text("done")]);
    let mut all = args.to_vec();
    all.extend(["-p", "run them"]);
    pi.command(&all).env("TMPDIR", &tmp).output().unwrap()
}

/// (text, isError) of each bash result, in call order.
fn bash_results(pi: &PiEnv) -> Vec<(String, bool)> {
    let lines = pi.session_lines();
    let results: Vec<_> = messages(&lines)
        .into_iter()
        .filter(|m| m["role"] == "toolResult")
        .cloned()
        .collect();
    (0..results.len())
        .map(|i| {
            let r = results
                .iter()
                .find(|r| r["toolCallId"] == format!("c{i}"))
                .unwrap();
            let text = r["content"][0]["text"].as_str().unwrap_or_default();
            (text.trim_end().to_owned(), r["isError"] == true)
        })
        .collect()
}

fn outside(pi: &PiEnv) -> PathBuf {
    let dir = pi.root.path().join("other");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn workspace_write_lets_commands_write_only_in_the_workspace_and_temp_dirs() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let other = outside(&pi);
    let out = run_bash(
        &pi,
        &["--sandbox", "workspace-write"],
        &[
            "touch inside.txt && echo made",
            "touch ../other/outside.txt",
            "touch \"$TMPDIR/scratch\" && echo scratch",
            "cat /etc/passwd >/dev/null && echo readable",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let results = bash_results(&pi);
    assert_eq!(results[0], ("made".to_owned(), false));
    let (text, error) = &results[1];
    assert!(*error && text.contains("Permission denied"), "{text}");
    assert_eq!(results[2], ("scratch".to_owned(), false));
    assert_eq!(results[3], ("readable".to_owned(), false));
    assert!(pi.cwd().join("inside.txt").exists());
    assert!(!other.join("outside.txt").exists());
}

#[test]
fn the_same_commands_write_anywhere_without_the_sandbox() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let other = outside(&pi);
    let out = run_bash(&pi, &[], &["touch ../other/outside.txt && echo made"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(bash_results(&pi)[0], ("made".to_owned(), false));
    assert!(other.join("outside.txt").exists());
}

#[test]
fn read_only_refuses_every_write_from_the_setting() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.settings(json!({"tools": {"sandbox": "read-only"}}));
    let out = run_bash(
        &pi,
        &[],
        &[
            "touch inside.txt",
            "echo quiet >/dev/null && ls -d . && echo listed",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let results = bash_results(&pi);
    assert!(
        results[0].1 && results[0].0.contains("Permission denied"),
        "{results:?}"
    );
    assert_eq!(results[1], (".\nlisted".to_owned(), false));
    assert!(!pi.cwd().join("inside.txt").exists());
}

#[test]
fn with_the_network_off_a_loopback_connect_fails_and_with_it_on_it_works() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let connect = format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected");
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.settings(json!({"tools": {"sandboxNetwork": false}}));
    let out = run_bash(&pi, &["--sandbox", "workspace-write"], &[&connect]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let (text, error) = &bash_results(&pi)[0];
    assert!(*error && text.contains("Permission denied"), "{text}");

    let pi = PiEnv::new(Api::OpenAiCompletions);
    let out = run_bash(&pi, &["--sandbox", "workspace-write"], &[&connect]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(bash_results(&pi)[0], ("connected".to_owned(), false));
}

#[test]
fn without_landlock_pi_refuses_to_start_rather_than_run_commands_unconfined() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let out = pi
        .command(&["--sandbox", "workspace-write", "-p", "hi"])
        .env("PI_SANDBOX_FORCE_UNAVAILABLE", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("--sandbox workspace-write needs Linux Landlock")
            && err.contains("--sandbox off"),
        "{err}"
    );
    assert!(pi.mock.requests().is_empty());
    // Off needs nothing.
    pi.mock.push(Turn::text("fine"));
    let out = pi
        .command(&["--sandbox", "off", "-p", "hi"])
        .env("PI_SANDBOX_FORCE_UNAVAILABLE", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
}

#[test]
fn an_invalid_sandbox_setting_or_flag_is_refused() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.settings(json!({"tools": {"sandbox": "strict"}}));
    let out = pi.run(&["-p", "hi"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("Invalid tools.sandbox \"strict\""),
        "{}",
        stderr(&out)
    );
    let out = pi.run(&["--sandbox", "strict", "-p", "hi"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(pi.mock.requests().is_empty());
}
