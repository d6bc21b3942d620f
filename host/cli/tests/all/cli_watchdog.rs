//! Extension calls that would hold their thread forever, through the `pi` binary: a tool that
//! sleeps ten minutes, one that opens a FIFO in the workspace, a provider whose server accepts
//! and never answers, a tool component whose `describe` sleeps. Each ends at its package's
//! deadline (`[limits] timeout-ms`) with an error naming the extension, and SIGINT / SIGTERM
//! end pi promptly (2 s, the bound) with the session intact and no panic.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::cli_support::*;
use pi_mock_llm::{Api, Turn};
use serde_json::{Value, json};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Far above the shortened deadlines: the machine may be loaded.
const BOUND: Duration = Duration::from_secs(20);
/// The bound for a signal to end pi.
const SIGNAL_BOUND: Duration = Duration::from_secs(2);

/// Installs `wasm` as package `name` (a tool component reading the workspace) in the global
/// extensions dir, with `limits` appended to its manifest.
fn install(pi: &PiEnv, name: &str, wasm: &str, world: &str, extra: &str) -> PathBuf {
    let package = pi.agent_dir().join("extensions").join(name);
    std::fs::create_dir_all(&package).unwrap();
    std::fs::copy(wasm, package.join("c.wasm")).unwrap();
    let manifest = format!(
        "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nwit = \"0.3.0\"\n\n\
         [[component]]\npath = \"c.wasm\"\nworld = \"{world}\"\n\n{extra}"
    );
    std::fs::write(package.join("pi-extension.toml"), manifest).unwrap();
    pi.approve(&package);
    package
}

fn install_tool(pi: &PiEnv, limits: &str) {
    let extra = format!("[capabilities]\nfilesystem = \"read\"\n\n{limits}");
    install(pi, "hostile", pi_ext_test_artifacts::TOOL, "tool", &extra);
}

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

/// The tool result of the session's only tool call.
fn tool_result(pi: &PiEnv) -> Value {
    let lines = pi.session_lines();
    assert_complete_session(&lines);
    messages(&lines)
        .into_iter()
        .find(|m| m["role"] == "toolResult")
        .cloned()
        .expect("a tool result")
}

fn result_text(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// Runs `pi -p` on a prompt whose model calls `probe` with `op`, then answers "done".
fn probe_run(pi: &PiEnv, op: &str) -> (std::process::Output, Duration) {
    pi.mock
        .push(Turn::new().tool_call("c1", "probe", json!({"op": op})));
    pi.mock.push(Turn::text("done"));
    let started = Instant::now();
    let out = pi.run(&["-p", "probe it"]);
    (out, started.elapsed())
}

#[test]
fn a_sleeping_tool_ends_at_its_deadline_and_the_run_goes_on() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    install_tool(&pi, "[limits]\ntimeout-ms = 1500\n");
    let (out, took) = probe_run(&pi, "sleep");
    assert!(took < BOUND, "took {took:?}");
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out), "done\n");
    let result = tool_result(&pi);
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(
        result_text(&result),
        "extension hostile@0.1.0: deadline of 1.5s exceeded; the call was interrupted"
    );
}

#[test]
fn a_fifo_in_the_workspace_does_not_hang_a_tool() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    install_tool(&pi, "[limits]\ntimeout-ms = 5000\n");
    mkfifo(&pi.cwd().join("pipe"));
    let (out, took) = probe_run(&pi, "fifo");
    assert!(took < BOUND, "took {took:?}");
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let result = tool_result(&pi);
    assert_eq!(result["isError"], true, "{result}");
    let text = result_text(&result);
    assert!(
        text.starts_with("extension hostile@0.1.0: cannot open pipe:"),
        "{text}"
    );
}

#[test]
fn a_describe_that_sleeps_does_not_hang_start_up() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    install(
        &pi,
        "slowdesc",
        pi_ext_test_artifacts::SLOW_DESCRIBE,
        "tool",
        "[limits]\ntimeout-ms = 1000\n",
    );
    pi.mock.push(Turn::text("started anyway"));
    let started = Instant::now();
    let out = pi.run(&["-p", "hello"]);
    assert!(started.elapsed() < BOUND, "took {:?}", started.elapsed());
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out), "started anyway\n");
    let err = stderr(&out);
    assert!(
        err.contains("slowdesc")
            && err.contains("deadline of 1s exceeded; the call was interrupted"),
        "{err}"
    );
}

/// A signal while start-up waits on a sleeping `describe()` (pi's default 30 s deadline):
/// nothing is written yet, and pi ends at once by the signal's own action, which a shell
/// reports as 143 / 130.
fn signal_during_a_sleeping_describe(signal: &str, number: i32) {
    use std::os::unix::process::ExitStatusExt;
    let pi = PiEnv::new(Api::OpenAiCompletions);
    install(
        &pi,
        "slowdesc",
        pi_ext_test_artifacts::SLOW_DESCRIBE,
        "tool",
        "",
    );
    let child = pi.spawn(&["-p", "hello"]);
    std::thread::sleep(Duration::from_millis(700));
    let (out, took) = signal_after(child, signal);
    let err = stderr(&out);
    assert!(
        took < SIGNAL_BOUND,
        "pi took {took:?} to exit; stderr: {err}"
    );
    let code = out
        .status
        .code()
        .unwrap_or_else(|| 128 + out.status.signal().unwrap_or(0));
    assert_eq!(code, 128 + number, "{:?}; stderr: {err}", out.status);
    assert!(!err.to_lowercase().contains("panic"), "{err}");
    assert!(pi.session_files().is_empty(), "nothing half-written");
}

#[test]
fn sigterm_during_a_sleeping_describe_at_start_up_ends_pi() {
    signal_during_a_sleeping_describe("-TERM", 15);
}

#[test]
fn sigint_during_a_sleeping_describe_at_start_up_ends_pi() {
    signal_during_a_sleeping_describe("-INT", 2);
}

/// A loopback server that accepts connections and holds them without a word; the receiver
/// hears of each connection.
fn silent_server() -> (String, std::sync::mpsc::Receiver<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
            let _ = tx.send(());
        }
    });
    (addr, rx)
}

/// The test provider as package `silentprov`, pointed at a server that never answers; pi runs
/// its model.
fn install_silent_provider(pi: &PiEnv, addr: &str, limits: &str) -> Vec<String> {
    let extra = format!(
        "[capabilities]\nnetwork = [\"{addr}\"]\nenv = [\"TEST_PROVIDER_BASE_URL\"]\n\n{limits}"
    );
    install(
        pi,
        "silentprov",
        pi_ext_test_artifacts::PROVIDER,
        "provider",
        &extra,
    );
    let models = json!({"providers": {
        "mock": {
            "baseUrl": pi.mock.base_url(Api::OpenAiCompletions),
            "api": "openai-completions",
            "apiKey": "mock-key",
            "models": [{"id": "mock-model"}]
        },
        "wasm-test": {"apiKey": "wasm-key"}
    }});
    pi.write_agent_file("models.json", &models.to_string());
    vec![
        "--model".into(),
        "wasm-test/wasm-mini".into(),
        "--no-tools".into(),
    ]
}

fn provider_command(pi: &PiEnv, addr: &str, args: &[String]) -> std::process::Command {
    let mut all: Vec<&str> = args.iter().map(String::as_str).collect();
    all.extend(["-p", "hello"]);
    let mut command = pi.command(&all);
    command.env("TEST_PROVIDER_BASE_URL", format!("http://{addr}/v1"));
    command
}

#[test]
fn a_provider_whose_server_never_answers_ends_at_its_deadline() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let (addr, _connected) = silent_server();
    let args = install_silent_provider(&pi, &addr, "[limits]\ntimeout-ms = 1500\n");
    pi.settings(json!({"retry": {"enabled": false}}));
    let started = Instant::now();
    let out = provider_command(&pi, &addr, &args).output().unwrap();
    assert!(started.elapsed() < BOUND, "took {:?}", started.elapsed());
    assert_eq!(out.status.code(), Some(1), "stderr: {}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("extension silentprov@0.1.0: deadline of 1.5s exceeded"),
        "{err}"
    );
    assert!(!err.contains("panic"), "{err}");
}

/// Waits until the session file holds the model's tool call: the tool runs right after.
fn wait_for_tool_call(pi: &PiEnv) {
    let started = Instant::now();
    while started.elapsed() < BOUND {
        let written = pi
            .session_files()
            .iter()
            .any(|f| std::fs::read_to_string(f).is_ok_and(|text| text.contains("\"toolCall\"")));
        if written {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("the tool call never reached the session file");
}

/// Sends `signal` to `child` once the hostile call had time to start; returns the output
/// and how long pi took to exit after the signal.
fn signal_after(child: std::process::Child, signal: &str) -> (std::process::Output, Duration) {
    std::thread::sleep(Duration::from_millis(300));
    let sent = Instant::now();
    let status = std::process::Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    (out, sent.elapsed())
}

fn assert_ended_by_signal(out: &std::process::Output, took: Duration, code: i32) {
    let err = stderr(out);
    eprintln!("pi exited {took:?} after the signal");
    assert!(
        took < SIGNAL_BOUND,
        "pi took {took:?} to exit; stderr: {err}"
    );
    assert_eq!(out.status.code(), Some(code), "stderr: {err}");
    assert!(!err.to_lowercase().contains("panic"), "{err}");
}

fn signal_during_sleeping_tool(signal: &str, code: i32) {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    // pi's default deadline (30 s): only the signal can end the call in time.
    install_tool(&pi, "");
    pi.mock
        .push(Turn::new().tool_call("c1", "probe", json!({"op": "sleep"})));
    let child = pi.spawn(&["-p", "probe it"]);
    wait_for_tool_call(&pi);
    let (out, took) = signal_after(child, signal);
    assert_ended_by_signal(&out, took, code);
    let result = tool_result(&pi);
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(result_text(&result), "extension hostile@0.1.0: aborted");
}

#[test]
fn sigterm_during_a_sleeping_extension_tool_ends_pi() {
    signal_during_sleeping_tool("-TERM", 143);
}

#[test]
fn sigint_during_a_sleeping_extension_tool_ends_pi() {
    signal_during_sleeping_tool("-INT", 130);
}

fn signal_during_silent_provider(signal: &str, code: i32) {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let (addr, connected) = silent_server();
    let args = install_silent_provider(&pi, &addr, "");
    let child = provider_command(&pi, &addr, &args).spawn().unwrap();
    connected
        .recv_timeout(Duration::from_secs(20))
        .expect("the provider connects");
    let (out, took) = signal_after(child, signal);
    assert_ended_by_signal(&out, took, code);
    let lines = pi.session_lines();
    assert_complete_session(&lines);
    let msgs = messages(&lines);
    assert_eq!(msgs[0]["role"], "user");
    let last = msgs.last().unwrap();
    assert_eq!(last["role"], "assistant", "{last}");
    assert_eq!(last["stopReason"], "aborted", "{last}");
}

#[test]
fn sigterm_while_a_provider_waits_on_a_silent_server_ends_pi() {
    signal_during_silent_provider("-TERM", 143);
}

#[test]
fn sigint_while_a_provider_waits_on_a_silent_server_ends_pi() {
    signal_during_silent_provider("-INT", 130);
}
