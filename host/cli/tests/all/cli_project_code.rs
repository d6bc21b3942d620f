//! A trusted project's code is used only as it was trusted and approved: settings that choose
//! what runs (`shellCommandPrefix`, `shellPath`, `tools.*`) planted after trust are not used,
//! packages placed by hand run with no capabilities until approved on their own, an unrelated
//! `pi ext … -l` does not launder what was planted, and a forged lock entry is refused.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::cli_extensions::{extend_manifest, install};
use super::cli_protected::results;
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

/// A copy of the test tool in `dir/<name>` asking to see `PLANTED_SECRET`.
fn secret_reader(dir: &std::path::Path, name: &str) -> std::path::PathBuf {
    let package = install(dir, name);
    extend_manifest(&package, "[capabilities]\nenv = [\"PLANTED_SECRET\"]");
    package
}

/// One JSON-mode run whose model asks the tool for `PLANTED_SECRET`; returns stderr and what
/// the tool answered.
fn read_secret(pi: &PiEnv, args: &[&str]) -> (String, Option<(String, bool)>) {
    pi.mock.push(Turn::new().tool_call(
        "s1",
        "probe",
        json!({"op": "env", "name": "PLANTED_SECRET"}),
    ));
    pi.mock.push(Turn::text("done"));
    let mut all = vec!["--no-session", "--mode", "json"];
    all.extend_from_slice(args);
    all.push("go");
    let out = pi
        .command(&all)
        .env("PLANTED_SECRET", "s3cret")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let result = results(&stdout(&out)).into_iter().next();
    (stderr(&out), result)
}

fn ext(pi: &PiEnv, args: &[&str]) -> std::process::Output {
    let mut all = vec!["ext"];
    all.extend_from_slice(args);
    pi.run(&all)
}

#[test]
fn a_package_placed_by_hand_runs_with_no_capability_until_approved_on_its_own() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let planted = secret_reader(&pi.agent_dir().join("extensions"), "planted");
    let (err, result) = read_secret(&pi, &[]);
    let (text, error) = result.unwrap();
    assert!(error && text.contains("PLANTED_SECRET"), "{text}");
    assert!(!text.contains("s3cret"), "{text}");
    assert!(
        err.contains("Warning: extension \"planted\"")
            && err.contains("runs with no capabilities")
            && err.contains("read these environment variables: PLANTED_SECRET")
            && err.contains("pi ext approve"),
        "{err}"
    );
    // Without a terminal nothing is approved unless the flags say so.
    let out = ext(&pi, &["approve", "planted"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let shown = stderr(&out);
    assert!(shown.contains("planted 0.1.0"), "{shown}");
    assert!(shown.contains("tool.wasm"), "{shown}");
    assert!(shown.contains("PLANTED_SECRET"), "{shown}");
    assert!(shown.contains("Not approved: nobody was asked"), "{shown}");
    let out = ext(&pi, &["approve", "planted", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("Approved planted 0.1.0"),
        "{}",
        stdout(&out)
    );
    let (err, result) = read_secret(&pi, &[]);
    assert_eq!(result.unwrap(), ("s3cret".to_owned(), false));
    assert!(!err.contains("Warning"), "{err}");
    // A component swapped afterwards voids the approval.
    std::fs::write(
        planted.join("tool.wasm"),
        [std::fs::read(planted.join("tool.wasm")).unwrap(), vec![0]].concat(),
    )
    .unwrap();
    let (err, _) = read_secret(&pi, &[]);
    assert!(
        err.contains("its files changed since it was approved"),
        "{err}"
    );
}

#[test]
fn an_unrelated_local_install_does_not_launder_a_planted_package() {
    let pi = trusted_project(json!({}));
    // The trusted start records the project as it is.
    let (err, _) = read_secret(&pi, &[]);
    assert!(!err.contains("Warning"), "{err}");
    secret_reader(&pi.cwd().join(".pi/extensions"), "planted");
    let other = install(&pi.root.path().join("elsewhere"), "unrelated");
    let out = ext(&pi, &["install", &other.to_string_lossy(), "-l", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("had changed since it was trusted, before this command"),
        "{}",
        stderr(&out)
    );
    let (err, result) = read_secret(&pi, &[]);
    assert_eq!(result, Some(("Tool probe not found".to_owned(), true)));
    assert!(
        err.contains("changed since the project was trusted"),
        "{err}"
    );
    // Trusting the project as it is loads the planted package, with nothing granted.
    let (err, result) = read_secret(&pi, &["--approve"]);
    let (text, error) = result.unwrap();
    assert!(error && !text.contains("s3cret"), "{text}");
    assert!(err.contains("runs with no capabilities"), "{err}");
}

#[test]
fn a_forged_project_lock_entry_is_refused() {
    let pi = trusted_project(json!({}));
    let package = secret_reader(&pi.root.path().join("elsewhere"), "reader");
    // Installed honestly, granted only what the user chose.
    let out = ext(&pi, &["install", &package.to_string_lossy(), "-l", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let (_, result) = read_secret(&pi, &[]);
    assert_eq!(result.unwrap(), ("s3cret".to_owned(), false));
    // Something with a write grant rewrites the lock entry to grant more than was approved.
    let lock_path = pi.cwd().join(".pi/packages.lock.json");
    let mut lock: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&lock_path).unwrap()).unwrap();
    lock["packages"][0]["approved"]["process"] = json!(true);
    std::fs::write(&lock_path, lock.to_string()).unwrap();
    // Even once the project is trusted as it is now, the entry is not used.
    let (err, result) = read_secret(&pi, &["--approve"]);
    assert_eq!(result, Some(("Tool probe not found".to_owned(), true)));
    assert!(
        err.contains("Warning: package reader not loaded")
            && err.contains("is not one `pi ext install` made on this machine"),
        "{err}"
    );
}
