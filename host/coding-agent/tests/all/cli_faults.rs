//! Every fault of the mock LLM server, through `pi -p`: the error goes to stderr, stdout stays
//! empty, the exit code is 1, and the session file is complete and records the failure.
//! Also SIGINT/SIGTERM during a stream: the run is aborted and the session stays intact.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::cli_support::*;
use pi_mock_llm::{Api, Reply, Turn, errors};
use serde_json::json;
use std::time::Duration;

const API: Api = Api::OpenAiCompletions;

fn fault_env() -> PiEnv {
    let pi = PiEnv::new(API);
    // No session-level retry and short timeouts: each fault ends the run at once.
    pi.settings(json!({
        "retry": {"enabled": false, "provider": {"timeoutMs": 400}},
        "httpIdleTimeoutMs": 400
    }));
    pi
}

/// Runs one faulty request; returns stderr after the shared checks.
fn run_fault(reply: Reply) -> String {
    let pi = fault_env();
    pi.mock.push(reply);
    let out = pi.run(&["-p", "do the thing"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "stderr: {err}");
    assert_eq!(stdout(&out), "");
    assert!(!err.trim().is_empty());

    let lines = pi.session_lines();
    assert_complete_session(&lines);
    let msgs = messages(&lines);
    assert_eq!(msgs.len(), 2, "user + failed assistant: {msgs:?}");
    assert_eq!(msgs[0]["role"], "user");
    assert_eq!(msgs[1]["role"], "assistant");
    assert_eq!(msgs[1]["stopReason"], "error");
    assert_eq!(msgs[1]["errorMessage"].as_str().unwrap(), err.trim_end());
    err
}

#[test]
fn rate_limited() {
    let err = run_fault(Reply::rate_limited(API, 1));
    assert!(err.contains(errors::rate_limit_message(API)), "{err}");
}

#[test]
fn server_errors() {
    for status in [500, 503, 529] {
        let err = run_fault(Reply::server_error(API, status));
        assert!(
            err.contains(errors::server_error_message(API, status)),
            "{err}"
        );
    }
}

#[test]
fn context_overflow() {
    // The session tries to recover (compact, retry once); with nothing to compact the
    // overflow stays the outcome.
    let err = run_fault(Reply::context_overflow(API));
    assert!(err.contains("maximum context length"), "{err}");
}

#[test]
fn dropped_mid_stream() {
    run_fault(Reply::drop_mid_stream(
        Turn::text("partial answer here").chunk(3),
        3,
    ));
}

#[test]
fn malformed_sse() {
    run_fault(Reply::malformed_sse(API));
}

#[test]
fn stall_before_headers() {
    let err = run_fault(Reply::stall_before_headers());
    assert!(err.to_lowercase().contains("time"), "{err}");
}

#[test]
fn hang_after_headers() {
    let err = run_fault(Reply::hang_after_headers(
        Turn::text("never finished").chunk(2),
        2,
    ));
    assert!(err.to_lowercase().contains("time"), "{err}");
}

fn signal_during_stream(signal: &str, code: i32) {
    let pi = PiEnv::new(API);
    pi.mock.push(Reply::hang_after_headers(
        Turn::text("streaming forever").chunk(2),
        3,
    ));
    let child = pi.spawn(&["-p", "long task"]);
    let requests = pi
        .mock
        .wait_for_requests_blocking(1, Duration::from_secs(20));
    assert_eq!(requests.len(), 1);
    // Give the client time to read the first events.
    std::thread::sleep(Duration::from_millis(200));
    let status = std::process::Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(code), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out), "");
    let lines = pi.session_lines();
    assert_complete_session(&lines);
    let msgs = messages(&lines);
    assert_eq!(msgs[0]["role"], "user");
    let last = msgs.last().unwrap();
    assert_eq!(last["role"], "assistant");
    assert_eq!(last["stopReason"], "aborted");
}

#[test]
fn sigint_aborts_and_keeps_the_session() {
    signal_during_stream("-INT", 130);
}

#[test]
fn sigterm_aborts_and_keeps_the_session() {
    signal_during_stream("-TERM", 143);
}
