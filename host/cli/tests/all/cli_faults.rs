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

#[test]
fn transient_errors_are_retried_by_the_session() {
    let pi = PiEnv::new(API);
    pi.settings(json!({"retry": {"enabled": true, "maxRetries": 2, "baseDelayMs": 10}}));
    pi.mock.push(Reply::server_error(API, 529));
    pi.mock.push(Turn::text("recovered"));
    let out = pi.run(&["--mode", "json", "try again"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let events: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert!(kinds.contains(&"auto_retry_start"), "{kinds:?}");
    assert!(kinds.contains(&"auto_retry_end"), "{kinds:?}");
    assert_eq!(pi.mock.requests().len(), 2);

    pi.mock.push(Reply::server_error(API, 529));
    pi.mock.push(Turn::text("recovered again"));
    let out = pi.run(&["-c", "-p", "once more"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "recovered again\n");
}

#[test]
fn sigint_during_a_tool_call_stops_it() {
    let pi = PiEnv::new(API);
    pi.mock
        .push(Turn::new().tool_call("c1", "bash", json!({"command": "sleep 30"})));
    let child = pi.spawn(&["-p", "run something slow"]);
    let requests = pi
        .mock
        .wait_for_requests_blocking(1, Duration::from_secs(20));
    assert_eq!(requests.len(), 1);
    std::thread::sleep(Duration::from_millis(300));
    let started = std::time::Instant::now();
    std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the sleep was killed"
    );
    assert_eq!(out.status.code(), Some(130), "stderr: {}", stderr(&out));
    let lines = pi.session_lines();
    assert_complete_session(&lines);
    let msgs = messages(&lines);
    let result = msgs.iter().find(|m| m["role"] == "toolResult").unwrap();
    assert_eq!(result["isError"], true, "{result}");
}

/// A context overflow in a session with history: pi compacts, retries once, prints the final
/// answer, exits 0, and the session file holds everything through that answer (the reference
/// pi exits 0 with empty output and a cut session here).
#[test]
fn recovered_overflow_prints_the_answer_and_keeps_the_session() {
    let pi = PiEnv::new(API);
    pi.settings(json!({"compaction": {"keepRecentTokens": 3}, "retry": {"enabled": false}}));
    pi.mock.push(Turn::text(
        "first answer, long enough to be worth summarising",
    ));
    let first = pi.run(&["-p", "first question"]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));

    pi.mock.push(Reply::context_overflow(API));
    pi.mock
        .push(Turn::text("## Goal\nsummary of the earlier work"));
    pi.mock.push(Turn::text("the final answer"));
    let out = pi.run(&["-c", "-p", "second question"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out).trim_end(), "the final answer");
    assert_eq!(
        pi.mock.requests().len(),
        4,
        "first, overflow, summary, retry"
    );

    let lines = pi.session_lines();
    assert_complete_session(&lines);
    assert_eq!(
        lines.iter().filter(|l| l["type"] == "compaction").count(),
        1,
        "one compaction entry"
    );
    let last = lines.last().unwrap();
    assert_eq!(last["type"], "message");
    assert_eq!(last["message"]["role"], "assistant");
    assert_eq!(last["message"]["content"][0]["text"], "the final answer");
    // The failed reply stays in the file for the record.
    assert!(
        messages(&lines).iter().any(|m| m["stopReason"] == "error"),
        "the overflow reply is kept in the file"
    );
}
