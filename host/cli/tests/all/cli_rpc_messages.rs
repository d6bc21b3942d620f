//! `get_messages` in RPC mode, byte for byte: a resumed session holding every kind of message
//! (plain and block user content with an image, thinking, tool calls, usage with fractional
//! costs, tool results with details, host roles, a role pi does not know) answers with exactly
//! the line in `golden/rpc_get_messages.jsonl`.
//!
//! Regenerate with `PI_UPDATE_GOLDEN=1 cargo test -p pi-cli --test all cli_rpc_messages`, then
//! read the diff: the line is what every RPC client parses.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::cli_support::*;
use pi_mock_llm::Api;
use serde_json::{Value, json};
use std::path::PathBuf;

fn session_lines(cwd: &str) -> Vec<Value> {
    let message = |id: &str, parent: Option<&str>, message: Value| {
        json!({"type": "message", "id": id, "parentId": parent,
               "timestamp": "2026-01-01T00:00:01.000Z", "message": message})
    };
    let usage = json!({"input": 1200, "output": 34, "cacheRead": 7, "cacheWrite": 0,
                       "totalTokens": 1241,
                       "cost": {"input": 0.0036, "output": 0.00051, "cacheRead": 1.2e-7,
                                "cacheWrite": 0, "total": 0.0041101}});
    vec![
        json!({"type": "session", "version": 3, "id": "0195f3c0-0000-7000-8000-00000000a001",
               "timestamp": "2026-01-01T00:00:00.000Z", "cwd": cwd}),
        json!({"type": "model_change", "id": "e0", "parentId": null,
               "timestamp": "2026-01-01T00:00:00.500Z", "provider": "mock", "modelId": "mock-model"}),
        message(
            "e1",
            Some("e0"),
            json!({"role": "user", "content": "Fix \"a.rs\"\n\tplease — now ✓", "timestamp": 1_767_225_601_000i64}),
        ),
        message(
            "e2",
            Some("e1"),
            json!({"role": "assistant", "content": [
            {"type": "thinking", "thinking": "Look first.", "thinkingSignature": "reasoning_content"},
            {"type": "text", "text": "Reading it."},
            {"type": "toolCall", "id": "call_1", "name": "read", "arguments": {"path": "a.rs", "limit": 2.5, "flags": [true, null]}}
        ], "api": "openai-completions", "provider": "mock", "model": "mock-model", "usage": usage,
           "stopReason": "toolUse", "timestamp": 1_767_225_602_000i64}),
        ),
        message(
            "e3",
            Some("e2"),
            json!({"role": "toolResult", "toolCallId": "call_1", "toolName": "read",
            "content": [{"type": "text", "text": "fn a() {}\n"}, {"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"}],
            "details": {"lines": 1, "ratio": 0.333, "nested": {"z": 1, "a": [1, 2]}},
            "isError": false, "timestamp": 1_767_225_603_000i64}),
        ),
        message(
            "e4",
            Some("e3"),
            json!({"role": "bashExecution", "command": "ls -la", "output": "a.rs\nb.rs\n",
            "exitCode": 0, "cancelled": false, "truncated": false, "timestamp": 1_767_225_604_000i64}),
        ),
        message(
            "e5",
            Some("e4"),
            json!({"role": "custom", "customType": "note", "content": "remember this",
            "display": true, "details": {"k": "v"}, "timestamp": 1_767_225_605_000i64}),
        ),
        message(
            "e6",
            Some("e5"),
            json!({"role": "futureRole", "zeta": 1, "alpha": {"b": 2, "a": 1},
            "timestamp": 1_767_225_606_000i64}),
        ),
        message(
            "e7",
            Some("e6"),
            json!({"role": "user", "content": [
            {"type": "text", "text": "And this image?"},
            {"type": "image", "data": "aW1hZ2U=", "mimeType": "image/jpeg"}
        ], "timestamp": 1_767_225_607_000i64}),
        ),
        message(
            "e8",
            Some("e7"),
            json!({"role": "assistant", "content": [{"type": "text", "text": "Done."}],
            "api": "openai-completions", "provider": "mock", "model": "mock-model", "usage": usage,
            "stopReason": "stop", "timestamp": 1_767_225_608_000i64}),
        ),
    ]
}

fn golden_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/all/golden/rpc_get_messages.jsonl")
}

#[test]
fn get_messages_answers_with_the_golden_line() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.settings(json!({"defaultProvider": "mock", "defaultModel": "mock-model"}));
    let dir = pi_session::paths::default_session_dir(&pi.agent_dir(), &pi.cwd());
    std::fs::create_dir_all(&dir).unwrap();
    let lines: Vec<String> = session_lines(&pi.cwd().to_string_lossy())
        .iter()
        .map(Value::to_string)
        .collect();
    std::fs::write(
        dir.join("2026-01-01T00-00-00-000Z_golden.jsonl"),
        lines.join("\n") + "\n",
    )
    .unwrap();
    let output = pi.run_with_stdin(
        &["-c", "--mode", "rpc"],
        "{\"id\":\"m1\",\"type\":\"get_messages\"}\n",
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let out = stdout(&output);
    let line = out
        .lines()
        .find(|l| l.contains("\"id\":\"m1\""))
        .unwrap_or_else(|| panic!("no response in {out}"));
    let response: Value = serde_json::from_str(line).unwrap();
    assert_eq!(response["success"], true, "{line}");
    assert_eq!(
        response["data"]["messages"].as_array().map(Vec::len),
        Some(8)
    );
    let golden = golden_path();
    if std::env::var_os("PI_UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, format!("{line}\n")).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&golden).unwrap();
    assert_eq!(line, expected.trim_end_matches('\n'));
}
