//! `pi mcp serve` driven by the official MCP TypeScript SDK client (`@modelcontextprotocol/sdk`
//! in `target/mcp-tools`, through `host/cli/tests/mcp/serve-client.mjs`), as Claude Code or
//! codex would drive it: the installed example extension's tool listed and called, a path it
//! was not granted refused, the built-ins with `--builtin`, a cancelled call's process ended;
//! and the server's exits (stdin closed → 0, a bad flag → 1 with a message).

use super::cli_extension_examples::built_package;
use super::cli_support::*;
use pi_mock_llm::Api;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Where `.ci/run` installs the MCP SDK and servers.
fn mcp_tools() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/mcp-tools/node_modules")
}

/// Installs the C `checksum` example as its README says (a tool granted reading the workspace).
fn install_checksum(pi: &PiEnv) {
    let package = built_package(pi, pi_extension_examples::CHECKSUM, "checksum.wasm");
    let out = pi.run(&["ext", "install", package.to_str().unwrap(), "--yes"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
}

/// Runs the SDK client against `pi mcp serve <args>` in the workspace with `steps`; returns
/// what it printed (`server`, `instructions`, `results`, `stderr`).
fn drive(pi: &PiEnv, args: &[&str], steps: Value) -> Value {
    let mut serve_args = vec!["mcp", "serve"];
    serve_args.extend_from_slice(args);
    let plan = json!({
        "command": PI,
        "args": serve_args,
        "cwd": pi.cwd(),
        "env": {
            "PATH": std::env::var("PATH").unwrap_or_default(),
            "HOME": pi.root.path().join("home"),
            "PI_CODING_AGENT_DIR": pi.agent_dir(),
            (pi_app::local_servers::PORTS_ENV): "",
        },
        "steps": steps,
    });
    let sdk = mcp_tools().join("@modelcontextprotocol/sdk");
    assert!(
        sdk.is_dir(),
        "{} is missing: .ci/run installs it (npm install --prefix target/mcp-tools …)",
        sdk.display()
    );
    let plan_file = pi.root.path().join("plan.json");
    std::fs::write(&plan_file, plan.to_string()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/serve-client.mjs");
    let out = Command::new("node")
        .arg(script)
        .arg(&sdk)
        .arg(&plan_file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "client failed: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The text of a `tools/call` step's result, and whether it is an error result.
fn call_text(step: &Value) -> (String, bool) {
    let result = &step["result"];
    assert!(result.is_object(), "no result: {step}");
    let text = result["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n");
    (text, result["isError"] == true)
}

fn tool_names(listed: &Value) -> Vec<String> {
    listed
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn an_mcp_client_lists_and_calls_an_installed_extension_tool_and_sees_its_sandbox_refuse() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    std::fs::write(pi.cwd().join("check.txt"), "123456789").unwrap();
    let secret = pi.root.path().join("secret.txt");
    std::fs::write(&secret, "not for the client").unwrap();
    install_checksum(&pi);

    let seen = drive(
        &pi,
        &[],
        json!([
            {"list": true},
            {"call": "checksum", "arguments": {"paths": ["check.txt"], "sums": ["crc32"]}},
            {"call": "checksum", "arguments": {"paths": [secret]}},
            {"call": "checksum", "arguments": {"paths": "not a list"}},
        ]),
    );
    assert_eq!(seen["server"]["name"], "pi", "{seen}");
    let instructions = seen["instructions"].as_str().unwrap();
    assert!(
        instructions.starts_with("pi's tools served over MCP"),
        "{instructions}"
    );
    let listed = &seen["results"][0];
    assert_eq!(tool_names(listed), ["checksum"], "{listed}");
    let checksum = &listed[0];
    assert!(
        checksum["description"]
            .as_str()
            .unwrap()
            .contains("SHA-256"),
        "{checksum}"
    );
    assert_eq!(checksum["inputSchema"]["type"], "object");
    assert!(checksum["inputSchema"]["properties"]["paths"].is_object());

    let (text, is_error) = call_text(&seen["results"][1]);
    assert!(text.starts_with("check.txt: crc32=cbf43926"), "{text}");
    assert!(!is_error, "{text}");

    let (text, is_error) = call_text(&seen["results"][2]);
    assert_eq!(
        text.trim_end(),
        format!(
            "{}: error: outside the workspace ({}): only files in the workspace can be read",
            secret.display(),
            pi.cwd().display()
        )
    );
    assert!(is_error);

    // Arguments are validated against the schema as in a session, and fail as a tool error.
    let (text, is_error) = call_text(&seen["results"][3]);
    assert!(
        text.starts_with("Validation failed for tool \"checksum\""),
        "{text}"
    );
    assert!(is_error);
}

#[test]
fn with_builtin_the_built_in_tools_are_served_under_the_path_policy_and_a_call_can_be_cancelled() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    std::fs::write(pi.cwd().join("notes.txt"), "alpha\nbeta\n").unwrap();
    let outside = pi.root.path().join("outside.txt");
    install_checksum(&pi);
    let marker = "sleep 37.25";

    let seen = drive(
        &pi,
        &["--builtin"],
        json!([
            {"list": true},
            {"call": "read", "arguments": {"path": "notes.txt"}},
            {"call": "write", "arguments": {"path": outside, "content": "escaped"}},
            {"call": "bash", "arguments": {"command": format!("touch started && {marker}")},
             "abortAfterMs": 1500},
            {"waitGone": marker, "timeoutMs": 5000},
            {"call": "bash", "arguments": {"command": "echo still serving"}},
            {"call": "bash", "progress": true,
             "arguments": {"command": "for i in 1 2 3; do echo step$i; sleep 0.4; done"}},
        ]),
    );
    let names = tool_names(&seen["results"][0]);
    assert_eq!(
        names,
        [
            "read", "bash", "edit", "write", "grep", "find", "ls", "checksum"
        ],
        "{}",
        seen["results"][0]
    );
    assert!(
        seen["instructions"]
            .as_str()
            .unwrap()
            .contains("built-in tools")
    );

    let (text, is_error) = call_text(&seen["results"][1]);
    assert_eq!(text, "alpha\nbeta\n");
    assert!(!is_error);

    // The default path policy: reading anywhere, writing only in the workspace.
    let (text, is_error) = call_text(&seen["results"][2]);
    assert!(is_error, "{text}");
    assert!(text.contains("outside"), "{text}");
    assert!(!outside.exists());

    // The aborted call (notifications/cancelled) ended its command.
    let aborted = &seen["results"][3];
    assert!(aborted["error"].is_string(), "{aborted}");
    assert!(pi.cwd().join("started").exists(), "the command never ran");
    assert_eq!(seen["results"][4]["gone"], true, "{}", seen["results"][4]);
    let (text, is_error) = call_text(&seen["results"][5]);
    assert_eq!(text.trim(), "still serving");
    assert!(!is_error);

    // Partial output as progress notifications, in order, the last line as the message.
    let streamed = &seen["results"][6];
    let (text, _) = call_text(streamed);
    assert_eq!(text.trim(), "step1\nstep2\nstep3");
    let progress = streamed["progress"].as_array().unwrap();
    assert!(!progress.is_empty(), "{streamed}");
    let counts: Vec<f64> = progress
        .iter()
        .map(|p| p["progress"].as_f64().unwrap())
        .collect();
    assert!(counts.windows(2).all(|w| w[0] < w[1]), "{counts:?}");
    let messages: Vec<&str> = progress
        .iter()
        .map(|p| p["message"].as_str().unwrap())
        .collect();
    assert!(messages.contains(&"step1"), "{messages:?}");
}

/// Starts `pi mcp serve` with a piped stdin and stdout.
fn spawn_serve(pi: &PiEnv, args: &[&str]) -> std::process::Child {
    let mut all = vec!["mcp", "serve"];
    all.extend_from_slice(args);
    pi.command(&all).stdin(Stdio::piped()).spawn().unwrap()
}

/// Waits up to `limit` for `child` to exit; its code.
fn exit_within(child: &mut std::process::Child, limit: Duration) -> Option<i32> {
    let start = Instant::now();
    while start.elapsed() < limit {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    panic!("pi mcp serve still running after {limit:?}");
}

#[test]
fn the_server_exits_0_promptly_when_the_client_closes_stdin_and_writes_only_protocol() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    // Before `initialize`.
    let mut child = spawn_serve(&pi, &[]);
    drop(child.stdin.take());
    assert_eq!(exit_within(&mut child, Duration::from_secs(10)), Some(0));
    let mut leftover = String::new();
    std::io::Read::read_to_string(child.stdout.as_mut().unwrap(), &mut leftover).unwrap();
    assert_eq!(leftover, "");

    // After a session.
    let mut child = spawn_serve(&pi, &["--builtin"]);
    let mut stdin = child.stdin.take().unwrap();
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}});
    writeln!(stdin, "{initialize}").unwrap();
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    )
    .unwrap();
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    )
    .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(first["id"], 1, "{first}");
    assert_eq!(first["result"]["serverInfo"]["name"], "pi");
    let second: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(second["id"], 2, "{second}");
    assert_eq!(second["result"]["tools"].as_array().unwrap().len(), 7);
    drop(stdin);
    assert_eq!(exit_within(&mut child, Duration::from_secs(10)), Some(0));
    assert!(lines.next().is_none(), "more output after the answers");
    // What it did is in the log, not on stdout.
    let log = std::fs::read_to_string(pi.agent_dir().join("pi.log")).unwrap();
    assert!(log.contains("pi mcp serve: 7 tool(s)"), "{log}");
    assert!(log.contains("pi mcp serve: the client went away"), "{log}");
}

#[test]
fn cwd_sets_the_directory_the_tools_work_in() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let project = pi.root.path().join("project");
    std::fs::create_dir(&project).unwrap();
    std::fs::write(project.join("notes.txt"), "in the project").unwrap();
    let seen = drive(
        &pi,
        &["--builtin", "--cwd", project.to_str().unwrap()],
        json!([
            {"call": "read", "arguments": {"path": "notes.txt"}},
            {"call": "write", "arguments": {"path": "made.txt", "content": "here"}},
        ]),
    );
    let (text, is_error) = call_text(&seen["results"][0]);
    assert_eq!((text.as_str(), is_error), ("in the project", false));
    let (text, is_error) = call_text(&seen["results"][1]);
    assert!(!is_error, "{text}");
    assert_eq!(
        std::fs::read_to_string(project.join("made.txt")).unwrap(),
        "here"
    );
    assert!(!pi.cwd().join("made.txt").exists());
    let instructions = seen["instructions"].as_str().unwrap();
    assert!(
        instructions.contains(&format!("working in {}", project.display())),
        "{instructions}"
    );
}

#[test]
fn a_bad_argument_exits_1_with_a_message() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let out = pi.run(&["mcp", "serve", "--bogus"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("--bogus"), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");

    let missing = pi.root.path().join("missing");
    let out = pi.run(&["mcp", "serve", "--cwd", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("--cwd") && stderr(&out).contains("not a directory"),
        "{}",
        stderr(&out)
    );

    let out = pi.run(&["mcp", "serve", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("--builtin"), "{}", stdout(&out));
}

#[test]
fn a_package_placed_by_hand_is_served_with_no_capability_until_approved() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    std::fs::write(pi.cwd().join("check.txt"), "123456789").unwrap();
    let placed = pi.agent_dir().join("extensions/checksum");
    std::fs::create_dir_all(placed.parent().unwrap()).unwrap();
    std::fs::rename(
        built_package(&pi, pi_extension_examples::CHECKSUM, "checksum.wasm"),
        &placed,
    )
    .unwrap();
    let call =
        json!([{"call": "checksum", "arguments": {"paths": ["check.txt"], "sums": ["crc32"]}}]);

    let seen = drive(&pi, &[], call.clone());
    let (text, is_error) = call_text(&seen["results"][0]);
    assert!(is_error, "{text}");
    assert!(!text.contains("cbf43926"), "{text}");
    let warnings = seen["stderr"].as_str().unwrap();
    assert!(
        warnings.contains("runs with no capabilities") && warnings.contains("pi ext approve"),
        "{warnings}"
    );

    pi.approve(&placed);
    let seen = drive(&pi, &[], call);
    let (text, is_error) = call_text(&seen["results"][0]);
    assert!(text.starts_with("check.txt: crc32=cbf43926"), "{text}");
    assert!(!is_error);
}
