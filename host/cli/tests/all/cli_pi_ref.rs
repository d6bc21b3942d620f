//! Our pi and the reference pi 1.6 (`target/pi-ref`, see `pi_ref`) on the same mock LLM: a
//! session file ours wrote (tool calls, a compaction, pi 1.6's message fields) is continued
//! by pi 1.6 and read back by ours, and both print the same event fields in `--mode json`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::cli_rpc::{RpcClient, ok};
use super::cli_support::*;
use super::pi_ref;
use pi_mock_llm::{Api, Turn};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Output;

fn tool_turns(pi: &PiEnv, answer: &str) {
    pi.mock.push(
        Turn::new()
            .tool_call("call_1", "bash", json!({"command": "echo hi"}))
            .usage(100, 10, 0, 0),
    );
    pi.mock.push(Turn::text(answer).usage(130, 5, 0, 0));
}

/// The texts of every message the last request to the mock carried.
fn last_request_text(pi: &PiEnv) -> String {
    pi.mock.requests().last().unwrap().body.to_string()
}

#[test]
fn a_session_we_wrote_is_continued_by_pi_1_6_and_read_back() {
    let pi = PiEnv::new(Api::AnthropicMessages);
    pi.settings(json!({"compaction": {"keepRecentTokens": 1}}));
    let mut rpc = RpcClient::start(&pi);
    tool_turns(&pi, "The tool said hi.");
    ok(&rpc.call(json!({"id": "p1", "type": "prompt", "message": "run a tool"})));
    rpc.wait_event("agent_settled");
    pi.mock
        .push(Turn::text("Summary: a tool said hi.").usage(90, 9, 0, 0));
    let compact = rpc.call(json!({"id": "c1", "type": "compact"}));
    assert!(ok(&compact)["estimatedTokensAfter"].is_u64(), "{compact}");
    pi.mock
        .push(Turn::text("After the summary.").usage(60, 4, 0, 0));
    ok(&rpc.call(json!({"id": "p2", "type": "prompt", "message": "and now?"})));
    rpc.wait_event("agent_settled");
    let state = rpc.call(json!({"id": "s", "type": "get_state"}));
    let file = ok(&state)["sessionFile"].as_str().unwrap().to_owned();
    drop(rpc.stdin.take());
    assert!(rpc.child.wait().unwrap().success());

    // What ours wrote: pi 1.6's message fields and a compaction.
    let lines = read_jsonl(Path::new(&file));
    let messages: Vec<&Value> = lines.iter().filter_map(|l| l.get("message")).collect();
    let replies: Vec<&&Value> = messages
        .iter()
        .filter(|m| m["role"] == "assistant")
        .collect();
    assert!(
        replies.iter().all(|m| m["durationMs"].is_u64()),
        "{replies:?}"
    );
    assert!(replies.iter().all(|m| m["thinkingLevel"] == "medium"));
    assert!(
        messages
            .iter()
            .any(|m| m["role"] == "toolResult" && m["durationMs"].is_u64())
    );
    assert!(lines.iter().any(|l| l["type"] == "compaction"));

    // pi 1.6 opens and continues it.
    pi.mock
        .push(Turn::text("Continued by pi 1.6.").usage(70, 6, 0, 0));
    let out = pi_ref::run(
        &pi,
        &[
            "--mode",
            "json",
            "--session",
            &file,
            "-p",
            "continue please",
        ],
    );
    assert!(out.status.success(), "pi 1.6: {}", stderr(&out));
    assert!(
        stdout(&out).contains("Continued by pi 1.6."),
        "{}",
        stdout(&out)
    );
    let sent = last_request_text(&pi);
    assert!(sent.contains("Summary: a tool said hi."), "{sent}");
    assert!(sent.contains("After the summary."), "{sent}");

    // Ours reads the continued file back and goes on from pi 1.6's reply.
    pi.mock.push(Turn::text("Back in Rust."));
    let out = pi.run(&["--session", &file, "-p", "and back"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "Back in Rust.");
    let sent = last_request_text(&pi);
    assert!(sent.contains("Continued by pi 1.6."), "{sent}");
    assert!(sent.contains("continue please"), "{sent}");
    let lines = read_jsonl(Path::new(&file));
    assert!(
        lines
            .iter()
            .any(|l| l["message"]["content"][0]["text"] == "Back in Rust.")
    );
}

/// Every event type's field names, and those of its nested `assistantMessageEvent` (by its own
/// type) and `result`.
fn fields(stream: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in stream.lines() {
        let event: Value = serde_json::from_str(line).unwrap();
        let kind = event["type"].as_str().unwrap().to_owned();
        let mut add = |key: String, value: &Value| {
            if let Some(map) = value.as_object() {
                out.entry(key).or_default().extend(map.keys().cloned());
            }
        };
        add(kind.clone(), &event);
        let inner = &event["assistantMessageEvent"];
        if let Some(inner_kind) = inner["type"].as_str() {
            add(format!("{kind}.{inner_kind}"), inner);
        }
        add(format!("{kind}.result"), &event["result"]);
    }
    out
}

#[test]
fn json_mode_events_carry_the_fields_pi_1_6_prints() {
    let pi = PiEnv::new(Api::AnthropicMessages);
    tool_turns(&pi, "The tool said hi.");
    let ours_out = pi.run(&["--mode", "json", "--no-session", "run a tool"]);
    assert!(ours_out.status.success(), "{}", stderr(&ours_out));
    tool_turns(&pi, "The tool said hi.");
    let theirs_out = pi_ref::run(&pi, &["--mode", "json", "--no-session", "run a tool"]);
    assert!(
        theirs_out.status.success(),
        "pi 1.6: {}",
        stderr(&theirs_out)
    );
    let (mut ours, theirs) = (fields(&stdout(&ours_out)), fields(&stdout(&theirs_out)));
    // Our tools always report `details` (`{}` when there are none), where pi 1.6's bash leaves
    // an empty one out; a client reads both the same.
    if let Some(result) = ours.get_mut("tool_execution_end.result") {
        result.remove("details");
    }
    assert_eq!(ours, theirs);
    // The structured content itself: bash's object as pi 1.6 builds it, but for the time.
    let structured = |out: &Output| {
        let end = stdout(out)
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .find(|e| e["type"] == "tool_execution_end")
            .unwrap();
        let mut content = end["result"]["structuredContent"].clone();
        assert!(content["wall_time_seconds"].is_number(), "{content}");
        content["wall_time_seconds"] = json!("<s>");
        content
    };
    let content = structured(&ours_out);
    assert_eq!(content["output"], "hi\n", "{content}");
    assert_eq!(content, structured(&theirs_out));
}
