//! `pi --mode json`: the session header line, then every event as a JSON line. Compared with
//! a golden file after replacing what changes between runs (ids, timestamps, durations, paths,
//! port): one in pi 1.6's form (the default), one in pi 0.73's (`--rpc-protocol 0.73`).
//! Regenerate with `PI_UPDATE_GOLDEN=1 cargo test -p pi-cli --test all cli_json`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::cli_support::*;
use pi_mock_llm::{Api, Turn};
use serde_json::Value;
use std::path::Path;

/// pi 0.73's form.
const GOLDEN_0_73: &str = "tests/all/golden/json_mode_text_turn.jsonl";
/// pi 1.6's form.
const GOLDEN_1_6: &str = "tests/all/golden/json_mode_text_turn_1_6.jsonl";

/// Replaces run-specific values with placeholders so the stream can be compared.
fn normalize(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                match key.as_str() {
                    "timestamp" => *v = Value::String("<timestamp>".into()),
                    "durationMs" => *v = Value::String("<ms>".into()),
                    "id" | "sessionId" if v.is_string() => *v = Value::String("<id>".into()),
                    "cwd" | "baseUrl" => *v = Value::String(format!("<{key}>")),
                    _ => normalize(v),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(normalize),
        _ => {}
    }
}

#[test]
fn json_mode_event_stream_matches_golden() {
    let lines = golden_run(&[], GOLDEN_1_6);
    let updates: Vec<&Value> = lines
        .iter()
        .filter(|l| l["type"] == "message_update")
        .collect();
    // pi 1.6: every delta comes with the cumulative usage so far.
    assert!(
        updates.iter().all(|u| u["usage"]["input"] == 20),
        "{updates:?}"
    );
    let end = lines.iter().rfind(|l| l["type"] == "message_end").unwrap();
    assert_eq!(end["message"]["thinkingLevel"], "medium");
    assert_eq!(end["message"]["durationMs"], "<ms>");
    let settled = lines
        .iter()
        .rfind(|l| l["type"] == "agent_settled")
        .unwrap();
    assert_eq!(settled["aborted"], false);
}

#[test]
fn json_mode_event_stream_in_pi_0_73_form_matches_golden() {
    let lines = golden_run(&["--rpc-protocol", "0.73"], GOLDEN_0_73);
    for line in &lines {
        assert!(line.get("usage").is_none(), "{line}");
        assert!(line.get("aborted").is_none(), "{line}");
        assert!(line["message"].get("durationMs").is_none(), "{line}");
        assert!(line["message"].get("thinkingLevel").is_none(), "{line}");
    }
}

/// Runs one text turn in JSON mode with `args`, compares the normalized stream with `golden`
/// and checks what holds in both forms; returns the normalized lines.
fn golden_run(args: &[&str], golden_path: &str) -> Vec<Value> {
    let pi = PiEnv::new(Api::AnthropicMessages);
    pi.mock.push(
        Turn::text("Hi there")
            .thinking("Greet back.")
            .usage(20, 7, 0, 0)
            .chunk(4),
    );
    let out = pi.run(&[&["--mode", "json"], args, &["hello"]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.ends_with('\n'));
    let mut lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();

    // The header is the session file's first line.
    let session = pi.session_lines();
    assert_eq!(lines[0], session[0]);
    assert_eq!(lines[0]["type"], "session");

    lines.iter_mut().for_each(normalize);
    let actual: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join(golden_path);
    if std::env::var_os("PI_UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, &actual).unwrap();
    }
    let expected = std::fs::read_to_string(&golden).unwrap();
    assert_eq!(
        actual, expected,
        "JSON mode stream differs from {golden_path}"
    );

    // Shape checks that hold whatever the golden says.
    let kinds: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
    assert_eq!(kinds.first(), Some(&"session"));
    assert_eq!(kinds[1], "agent_start");
    assert!(kinds.contains(&"message_update"));
    for update in lines.iter().filter(|l| l["type"] == "message_update") {
        assert!(update.get("message").is_none(), "delta-only wire form");
        assert!(update["assistantMessageEvent"].get("partial").is_none());
    }
    assert!(kinds.iter().rposition(|k| *k == "agent_end").is_some());
    lines
}
