//! Plan mode (`--permission-mode plan`, the setting `permissionMode`, RPC's
//! `set_permission_mode`) through the real binary: the mock tries every way to change
//! something — `write`, `edit`, `bash` writing a file and connecting to a loopback server, an
//! extension tool with a write grant writing — and afterwards the workspace is byte-identical,
//! the server saw no connection, and every refusal reached the model as an error result.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::cli_extensions::{extend_manifest, install, offered};
use super::cli_rpc::{RpcClient, ok};
use super::cli_support::*;
use pi_mock_llm::{Api, Turn};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Output;

/// Every file below `dir` (relative path) with the SHA-256 of its bytes.
fn hashes(dir: &Path) -> BTreeMap<PathBuf, String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let digest = Sha256::digest(std::fs::read(&path).unwrap());
                let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
                out.insert(path.strip_prefix(root).unwrap().to_path_buf(), hex);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// A workspace with a few files; the test tool component (`write_file`, …) and the spawner
/// (`run`, through the host's `process` import) as packages granted writes and processes.
fn workspace(pi: &PiEnv) -> [PathBuf; 2] {
    std::fs::write(pi.cwd().join("a.txt"), "original text\n").unwrap();
    std::fs::create_dir_all(pi.cwd().join("src")).unwrap();
    std::fs::write(pi.cwd().join("src/lib.rs"), "pub fn f() {}\n").unwrap();
    let package = install(&pi.root.path().join("packages"), "writer");
    let grant = "[capabilities]\nfilesystem = \"write\"\nprocess = true";
    extend_manifest(&package, grant);
    let spawner = pi.root.path().join("packages/spawner");
    std::fs::create_dir_all(&spawner).unwrap();
    std::fs::copy(pi_ext_test_artifacts::SPAWNER, spawner.join("spawner.wasm")).unwrap();
    std::fs::write(
        spawner.join("pi-extension.toml"),
        format!(
            "[package]\nname = \"spawner\"\nversion = \"0.1.0\"\nwit = \"0.3.0\"\n\n\
             [[component]]\npath = \"spawner.wasm\"\nworld = \"tool\"\n\n{grant}\n"
        ),
    )
    .unwrap();
    [package, spawner]
}

/// Runs `pi -p` in plan mode with the package, the mock making `calls` (ids `c0`, `c1`, …)
/// in one turn, then answering "planned".
fn run_plan(
    pi: &PiEnv,
    packages: &[PathBuf],
    calls: &[(&str, Value)],
    force_no_landlock: bool,
) -> Output {
    let mut turn = Turn::new();
    for (i, (tool, args)) in calls.iter().enumerate() {
        turn = turn.tool_call(format!("c{i}"), *tool, args.clone());
    }
    pi.mock.push_all([turn, Turn::text("planned")]);
    let tmp = pi.root.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let mut args = vec!["--permission-mode".to_owned(), "plan".to_owned()];
    for package in packages {
        args.extend(["-e".to_owned(), package.to_string_lossy().into_owned()]);
    }
    args.extend(["-p".to_owned(), "try it".to_owned()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut cmd = pi.command(&args);
    cmd.env("TMPDIR", &tmp);
    if force_no_landlock {
        cmd.env("PI_SANDBOX_FORCE_UNAVAILABLE", "1");
    }
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    out
}

/// (text, isError) of the result of call `c{i}` for each call, from the session file.
fn results(pi: &PiEnv, calls: usize) -> Vec<(String, bool)> {
    let lines = pi.session_lines();
    let stored: Vec<Value> = messages(&lines)
        .into_iter()
        .filter(|m| m["role"] == "toolResult")
        .cloned()
        .collect();
    (0..calls)
        .map(|i| {
            let r = stored
                .iter()
                .find(|r| r["toolCallId"] == format!("c{i}"))
                .unwrap_or_else(|| panic!("no result for c{i}: {stored:?}"));
            let text = r["content"][0]["text"].as_str().unwrap_or_default();
            (text.trim_end().to_owned(), r["isError"] == true)
        })
        .collect()
}

/// The text the model got back for call `id` in request `i`.
fn sent_result(pi: &PiEnv, i: usize, id: &str) -> String {
    let request = &pi.mock.requests()[i];
    let messages = request.body["messages"].as_array().unwrap();
    messages
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == id)
        .unwrap_or_else(|| panic!("no result for {id} in {messages:?}"))["content"]
        .to_string()
}

fn system_prompt(pi: &PiEnv, i: usize) -> String {
    pi.mock.requests()[i].body["messages"][0]["content"].to_string()
}

fn landlock_available() -> bool {
    pi_ext_host::ShellSandbox::read_only_offline()
        .check()
        .is_ok()
}

#[test]
fn in_plan_mode_nothing_changes_the_workspace_or_reaches_the_network() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let packages = workspace(&pi);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let target = pi.cwd().join("ext.txt");
    let calls = [
        ("write", json!({"path": "new.txt", "content": "x"})),
        (
            "edit",
            json!({"path": "a.txt", "edits": [{"oldText": "original", "newText": "changed"}]}),
        ),
        ("bash", json!({"command": "echo x > f"})),
        (
            "bash",
            json!({"command": format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected")}),
        ),
        (
            "write_file",
            json!({"path": target.to_string_lossy(), "content": "x"}),
        ),
        (
            "run",
            json!({"program": "touch", "args": [pi.cwd().join("spawned.txt").to_string_lossy()]}),
        ),
    ];
    let before = hashes(&pi.cwd());
    run_plan(&pi, &packages, &calls, false);
    let after = hashes(&pi.cwd());
    eprintln!("workspace before: {before:#?}\nworkspace after: {after:#?}");
    assert_eq!(before, after, "the workspace changed");
    assert!(
        listener.accept().is_err(),
        "the loopback server saw a connection"
    );

    // Offered: no write, no edit; the extension's tools are there; the prompt says so.
    let tools = offered(&pi, 0);
    assert!(
        !tools.iter().any(|t| t == "write" || t == "edit"),
        "{tools:?}"
    );
    for name in ["read", "bash", "write_file", "echo"] {
        assert!(tools.iter().any(|t| t == name), "{name} in {tools:?}");
    }
    let prompt = system_prompt(&pi, 0);
    assert!(prompt.contains("You are in plan mode."), "{prompt}");
    assert!(!prompt.contains("- write:"), "{prompt}");

    // Every call was refused, and the model saw each refusal in its next request.
    let results = results(&pi, calls.len());
    eprintln!("results: {results:#?}");
    // The spawner reports a command's exit as a result; the others fail.
    let (spawned, others) = results.split_last().unwrap();
    for (i, (text, error)) in others.iter().enumerate() {
        assert!(*error, "c{i} was not refused: {text}");
        let sent = sent_result(&pi, 1, &format!("c{i}"));
        let first_line = text.lines().next().unwrap_or_default();
        assert!(
            sent.contains(&first_line.replace('"', "\\\"")),
            "c{i}: {sent} vs {text}"
        );
    }
    assert!(results[0].0.contains("write"), "{:?}", results[0]);
    assert!(results[1].0.contains("edit"), "{:?}", results[1]);
    if landlock_available() {
        assert!(
            results[2].0.contains("Permission denied"),
            "{:?}",
            results[2]
        );
        assert!(!results[3].0.contains("connected"), "{:?}", results[3]);
    } else {
        for result in &results[2..4] {
            assert!(
                result
                    .0
                    .contains("plan mode runs commands only under Linux Landlock")
            );
        }
    }
    assert!(results[4].0.contains("cannot write"), "{:?}", results[4]);
    let sent = sent_result(&pi, 1, "c5");
    if landlock_available() {
        assert!(spawned.0.contains("Permission denied") && spawned.0.contains("exit=Some(1)"));
    } else {
        assert!(spawned.1 && spawned.0.contains("Landlock"), "{spawned:?}");
    }
    assert!(sent.contains(spawned.0.lines().next().unwrap()), "{sent}");
    assert_eq!(pi.mock.requests().len(), 2);
}

#[test]
fn without_landlock_plan_mode_refuses_every_command_and_runs_none() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let packages = workspace(&pi);
    let marker = pi.root.path().join("ran");
    let calls = [
        (
            "bash",
            json!({"command": format!("touch {}", marker.display())}),
        ),
        (
            "run",
            json!({"program": "touch", "args": [format!("{}-ext", marker.display())]}),
        ),
        ("read", json!({"path": "a.txt"})),
    ];
    let before = hashes(&pi.cwd());
    run_plan(&pi, &packages, &calls, true);
    assert_eq!(before, hashes(&pi.cwd()));
    assert!(!marker.exists(), "the command ran");
    assert!(
        !pi.root.path().join("ran-ext").exists(),
        "the extension's command ran"
    );
    // bash is still offered, and says why it refuses.
    assert!(offered(&pi, 0).iter().any(|t| t == "bash"));
    let results = results(&pi, calls.len());
    let (text, error) = &results[0];
    assert!(*error, "{text}");
    assert!(
        text.contains("plan mode runs commands only under Linux Landlock")
            && text.contains("PI_SANDBOX_FORCE_UNAVAILABLE=1")
            && text.contains("not run"),
        "{text}"
    );
    assert!(sent_result(&pi, 1, "c0").contains("plan mode runs commands only"));
    // The extension's process is refused too; reading still works.
    assert!(
        results[1].1
            && results[1]
                .0
                .contains("plan mode runs commands only under Linux Landlock")
            && results[1].0.contains("leave plan mode")
            && !results[1].0.contains("--sandbox off")
            && !results[1].0.contains("exit="),
        "{:?}",
        results[1]
    );
    assert_eq!(results[2], ("original text".to_owned(), false));
}

/// The tools offered by one `-p` run with `args`.
fn tools_with(pi: &PiEnv, args: &[&str]) -> Vec<String> {
    let before = pi.mock.requests().len();
    pi.mock.push(Turn::text("ok"));
    let mut all = args.to_vec();
    all.extend(["--no-session", "-p", "hi"]);
    let out = pi.run(&all);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    offered(pi, before)
}

fn writes(tools: &[String]) -> bool {
    tools.iter().any(|t| t == "write") && tools.iter().any(|t| t == "edit")
}

#[test]
fn the_flag_and_the_setting_choose_the_mode_and_bad_values_stop_start_up() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    assert!(writes(&tools_with(&pi, &[])), "auto by default");
    assert!(!writes(&tools_with(&pi, &["--permission-mode", "plan"])));
    pi.settings(json!({"permissionMode": "plan"}));
    assert!(!writes(&tools_with(&pi, &[])));
    // The flag wins.
    assert!(writes(&tools_with(&pi, &["--permission-mode", "auto"])));
    assert!(writes(&tools_with(
        &pi,
        &["--permission-mode", "ask-writes"]
    )));

    // A project's setting counts only when the project is trusted.
    pi.settings(json!({}));
    std::fs::create_dir_all(pi.cwd().join(".pi")).unwrap();
    std::fs::write(
        pi.cwd().join(".pi/settings.json"),
        json!({"permissionMode": "plan"}).to_string(),
    )
    .unwrap();
    assert!(writes(&tools_with(&pi, &["--no-approve"])));
    assert!(!writes(&tools_with(&pi, &["--approve"])));
    std::fs::remove_dir_all(pi.cwd().join(".pi")).unwrap();

    let requests = pi.mock.requests().len();
    pi.settings(json!({"permissionMode": "careful"}));
    let out = pi.run(&["-p", "hi"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("Invalid permissionMode \"careful\" in settings"),
        "{}",
        stderr(&out)
    );
    let out = pi.run(&["--permission-mode", "careful", "-p", "hi"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("ask-writes"), "{}", stderr(&out));
    assert_eq!(pi.mock.requests().len(), requests, "nothing was sent");
}

#[test]
fn rpc_set_permission_mode_switches_the_tools_of_the_next_turn() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let mut rpc = RpcClient::start(&pi);
    let state = rpc.call(json!({"id": 1, "type": "get_state"}));
    assert_eq!(ok(&state)["permissionMode"], "auto");

    let set = rpc.call(json!({"id": 2, "type": "set_permission_mode", "mode": "plan"}));
    assert_eq!(set["command"], "set_permission_mode");
    ok(&set);
    let state = rpc.call(json!({"id": 3, "type": "get_state"}));
    assert_eq!(ok(&state)["permissionMode"], "plan");
    pi.mock.push(Turn::text("a plan"));
    ok(&rpc.call(json!({"id": 4, "type": "prompt", "message": "plan it"})));
    rpc.wait_event("agent_end");
    assert!(!writes(&offered(&pi, 0)));
    assert!(system_prompt(&pi, 0).contains("You are in plan mode."));

    // Between modes other than plan the tools stay.
    ok(&rpc.call(json!({"id": 5, "type": "set_permission_mode", "mode": "auto"})));
    ok(&rpc.call(json!({"id": 6, "type": "set_permission_mode", "mode": "ask-all"})));
    pi.mock.push(Turn::text("done"));
    ok(&rpc.call(json!({"id": 7, "type": "prompt", "message": "now do it"})));
    rpc.wait_event("agent_end");
    assert!(writes(&offered(&pi, 1)));
    assert!(!system_prompt(&pi, 1).contains("plan mode"));
    let state = rpc.call(json!({"id": 8, "type": "get_state"}));
    assert_eq!(ok(&state)["permissionMode"], "ask-all");

    let bad = rpc.call(json!({"id": 9, "type": "set_permission_mode", "mode": "yolo"}));
    assert_eq!(bad["success"], false, "{bad}");
    assert!(bad["error"].as_str().unwrap().contains("yolo"), "{bad}");
    drop(rpc.stdin.take());
    assert_eq!(rpc.child.wait().unwrap().code(), Some(0));
}

#[test]
fn a_hook_granted_writes_writes_in_auto_mode_and_is_read_only_in_plan_mode() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let package = pi.root.path().join("hook-probe");
    std::fs::create_dir_all(&package).unwrap();
    std::fs::copy(pi_ext_test_artifacts::HOOK_PROBE, package.join("hook.wasm")).unwrap();
    let manifest = "[package]\nname = \"hook-probe\"\nversion = \"0.1.0\"\nwit = \"0.3.0\"\n\n\
                    [[component]]\npath = \"hook.wasm\"\nworld = \"hook\"\n\n\
                    [capabilities]\nfilesystem = \"write\"\n";
    std::fs::write(package.join("pi-extension.toml"), manifest).unwrap();
    pi.approve(&package);
    let written = pi.cwd().join("hook-wrote.txt");
    // `read` is offered in both modes; the probe answers its call after trying to write.
    let call = [("read", json!({"path": "hook-write"}))];
    let before = hashes(&pi.cwd());
    run_plan(&pi, std::slice::from_ref(&package), &call, false);
    let (text, error) = &results(&pi, 1)[0];
    assert!(text.contains("hook write refused"), "{text}");
    assert!(*error, "{text}");
    assert!(!written.exists());
    assert_eq!(hashes(&pi.cwd()), before);

    // The same hook with the same grant, outside plan mode, writes.
    pi.mock.push_all([
        Turn::new().tool_call("c0", "read", json!({"path": "hook-write"})),
        Turn::text("done"),
    ]);
    let package_arg = package.to_string_lossy().into_owned();
    let out = pi.run(&["--no-session", "-e", &package_arg, "-p", "try it"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(&written).unwrap(),
        "written by the hook"
    );
}
