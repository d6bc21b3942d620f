//! Compaction through the real binary (print-mode runs, then RPC `compact`) with the real file
//! tools: what the summary request asks (the conversation as text, tool results cut at 2,000
//! characters, the fixed section headings, the previous summary when updating) and what the
//! session file keeps (the `<read-files>` / `<modified-files>` lists, read − modified and
//! sorted, carried into the next compaction).

use super::cli_rpc::{RpcClient, ok};
use super::cli_support::*;
use pi_mock_llm::{Api, Turn};
use serde_json::{Value, json};

const HEADINGS: [&str; 9] = [
    "## Goal",
    "## Constraints & Preferences",
    "## Progress",
    "### Done",
    "### In Progress",
    "### Blocked",
    "## Key Decisions",
    "## Next Steps",
    "## Critical Context",
];

/// The text of the last message of a Chat Completions request (the summary prompt).
fn last_message_text(request: &Value) -> String {
    let content = &request["messages"].as_array().unwrap().last().unwrap()["content"];
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect(),
        other => panic!("unexpected content {other}"),
    }
}

fn headings(prompt: &str) -> Vec<&str> {
    prompt.lines().filter(|l| l.starts_with('#')).collect()
}

/// Runs one prompt in print mode, continuing the session, with the mock's replies in order.
/// (Print mode waits as long as the tools take: the first use of each tool compiles it.)
fn prompt(pi: &PiEnv, text: &str, replies: Vec<Turn>) {
    for reply in replies {
        pi.mock.push(reply);
    }
    let out = pi.run(&["-c", "-p", text]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// A prompt long enough (≈ 75 tokens) to be the kept part on its own, so no turn is split.
fn long_prompt(tag: &str) -> String {
    format!("{tag} {}", "z".repeat(300))
}

/// `compact` over RPC on the continued session; returns the summary.
fn compact(pi: &PiEnv, summary: &str) -> String {
    pi.mock.push(Turn::text(summary));
    let mut rpc = RpcClient::start_with(pi, &["-c"]);
    let response = rpc.call(json!({"id": "c", "type": "compact"}));
    let summary = ok(&response)["summary"].as_str().unwrap().to_owned();
    drop(rpc.stdin.take());
    assert_eq!(rpc.child.wait().unwrap().code(), Some(0));
    summary
}

#[test]
fn summaries_list_the_files_read_and_changed_and_get_the_conversation_as_text() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.settings(json!({"compaction": {"keepRecentTokens": 50}}));
    std::fs::write(pi.cwd().join("a.txt"), "alpha\n").unwrap();
    // 4,000 characters: 40 numbered lines of 100.
    let big: String = (0..40)
        .map(|i| format!("{i:04}{}\n", "y".repeat(95)))
        .collect();
    std::fs::write(pi.cwd().join("big.txt"), &big).unwrap();
    std::fs::write(pi.cwd().join("d.txt"), "delta\n").unwrap();

    // Read two files, edit one of them, write a new one.
    let edit = json!({"path": "a.txt", "edits": [{"oldText": "alpha", "newText": "beta"}]});
    let turns = vec![
        Turn::new()
            .tool_call("c1", "read", json!({"path": "a.txt"}))
            .tool_call("c2", "read", json!({"path": "big.txt"})),
        Turn::new().tool_call("c3", "edit", edit).tool_call(
            "c4",
            "write",
            json!({"path": "c.txt", "content": "gamma\n"}),
        ),
        Turn::text("done"),
    ];
    prompt(&pi, "look at the files", turns);
    assert_eq!(
        std::fs::read_to_string(pi.cwd().join("a.txt")).unwrap(),
        "beta\n"
    );
    prompt(&pi, &long_prompt("second"), vec![Turn::text("ok")]);
    let summary = compact(&pi, "## Goal\nFIRST");

    let requests = pi.mock.requests();
    let request = &requests.last().unwrap().body;
    assert!(request.get("tools").is_none(), "{request}");
    let text = last_message_text(request);
    assert!(
        text.starts_with(
            "<conversation>\n[User]: look at the files\n\n\
             [Assistant tool calls]: read(path=\"a.txt\"); read(path=\"big.txt\")\n\n\
             [Tool result]: alpha"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "[Assistant tool calls]: edit(path=\"a.txt\", edits=[{\"oldText\":\"alpha\",\
             \"newText\":\"beta\"}]); write(path=\"c.txt\", content=\"gamma\\n\")"
        ),
        "{text}"
    );
    // The long tool result: its first 2,000 characters and how many were left out.
    let lines = pi.session_lines();
    let result = messages(&lines)
        .into_iter()
        .find(|m| m["role"] == "toolResult" && m["toolCallId"] == "c2")
        .unwrap()["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(result.starts_with(&big[..2_000]));
    let cut = format!(
        "[Tool result]: {}\n\n[... {} more characters truncated]\n\n",
        &result[..2_000],
        result.chars().count() - 2_000
    );
    assert!(text.contains(&cut), "{text}");
    assert!(text.contains("[Assistant]: done"), "{text}");
    assert!(
        !text.contains("[User]: second"),
        "the kept prompt is not summarised"
    );
    assert_eq!(headings(&text), HEADINGS);
    assert!(!text.contains("<previous-summary>"));

    let lists = "<read-files>\nbig.txt\n</read-files>\n\n\
                 <modified-files>\na.txt\nc.txt\n</modified-files>";
    assert_eq!(summary, format!("## Goal\nFIRST\n\n{lists}"));
    let first = &pi.session_entries("compaction")[0];
    assert_eq!(first["summary"], summary);
    assert_eq!(
        first["details"],
        json!({"readFiles": ["big.txt"], "modifiedFiles": ["a.txt", "c.txt"]})
    );

    // More work, a second compaction: it updates the first summary, and its lists carry the
    // first one's.
    let turns = vec![
        Turn::new().tool_call("c5", "read", json!({"path": "d.txt"})),
        Turn::text("read d"),
    ];
    prompt(&pi, "and d", turns);
    prompt(&pi, &long_prompt("fourth"), vec![Turn::text("ok")]);
    let summary = compact(&pi, "## Goal\nSECOND");
    let requests = pi.mock.requests();
    let update = last_message_text(&requests.last().unwrap().body);
    assert!(
        update.contains(&format!(
            "</conversation>\n\n<previous-summary>\n## Goal\nFIRST\n\n{lists}\n</previous-summary>"
        )),
        "{update}"
    );
    assert!(update.contains("[User]: second"), "{update}");
    assert!(!update.contains("[User]: fourth"), "{update}");
    assert_eq!(
        headings(&update),
        [&["## Goal"][..], &HEADINGS[..]].concat()
    );
    assert_eq!(
        summary,
        "## Goal\nSECOND\n\n<read-files>\nbig.txt\nd.txt\n</read-files>\n\n\
         <modified-files>\na.txt\nc.txt\n</modified-files>"
    );
    assert_eq!(
        pi.session_entries("compaction")[1]["details"],
        json!({"readFiles": ["big.txt", "d.txt"], "modifiedFiles": ["a.txt", "c.txt"]})
    );
}

#[test]
fn json_mode_reports_a_retried_summary_and_no_appended_entries() {
    let pi = PiEnv::new(Api::AnthropicMessages);
    pi.settings(json!({"compaction": {"keepRecentTokens": 1}, "retry": {"baseDelayMs": 1}}));
    // Past the threshold of the 200,000-token window: a compaction after the run, whose summary
    // request (of the cut-off turn: there is no earlier history) fails transiently.
    pi.mock.push(Turn::text("answer").usage(190_000, 10, 0, 0));
    pi.mock.push(pi_mock_llm::Reply::server_error(
        Api::AnthropicMessages,
        529,
    ));
    pi.mock.push(Turn::text("## Original Request\nSUMMARY"));
    let out = pi.run(&["--mode", "json", "question"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lines: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let kinds: Vec<&str> = lines
        .iter()
        .filter_map(|l| l["type"].as_str())
        .filter(|t| t.starts_with("compaction") || t.starts_with("summarization"))
        .collect();
    assert_eq!(
        kinds,
        [
            "compaction_start",
            "summarization_retry_scheduled",
            "summarization_retry_attempt_start",
            "summarization_retry_finished",
            "compaction_end"
        ]
    );
    let start = lines
        .iter()
        .find(|l| l["type"] == "summarization_retry_attempt_start")
        .unwrap();
    assert_eq!(
        *start,
        json!({"type": "summarization_retry_attempt_start", "source": "compaction", "reason": "threshold"})
    );
    // pi reports `entry_appended` only for entries extensions append; pi's own messages and
    // compactions are reported by their own events.
    assert!(pi.session_lines().iter().any(|l| l["type"] == "compaction"));
    assert!(!lines.iter().any(|l| l["type"] == "entry_appended"));
}
