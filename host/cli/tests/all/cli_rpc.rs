//! `pi --mode rpc` end to end: a scripted client drives a session over stdin/stdout.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::cli_support::*;
use pi_mock_llm::{Api, Reply, Turn};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

pub(super) struct RpcClient {
    pub(super) child: Child,
    pub(super) stdin: Option<ChildStdin>,
    lines: Receiver<Value>,
    /// Everything read so far, in order.
    pub(super) seen: Vec<Value>,
}

impl RpcClient {
    pub(super) fn start(pi: &PiEnv) -> RpcClient {
        RpcClient::start_with(pi, &[])
    }

    /// RPC mode with more arguments (`-c` to continue the last session).
    pub(super) fn start_with(pi: &PiEnv, args: &[&str]) -> RpcClient {
        RpcClient::from_child(pi.spawn_piped(&[&["--mode", "rpc"], args].concat()))
    }

    /// A client of a pi the test started itself in RPC mode, stdin and stdout piped (e.g.
    /// with more environment variables than `PiEnv::command` sets).
    pub(super) fn from_child(mut child: Child) -> RpcClient {
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let line = line.unwrap();
                let value: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
                if tx.send(value).is_err() {
                    break;
                }
            }
        });
        RpcClient {
            child,
            stdin,
            lines,
            seen: Vec::new(),
        }
    }

    pub(super) fn send_raw(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// Reads until a line matches `pred`; returns it.
    pub(super) fn wait_for(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self
                .lines
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("timed out waiting for {what}; seen {:#?}", self.seen));
            self.seen.push(line.clone());
            if pred(&line) {
                return line;
            }
        }
    }

    /// Sends a command and returns its response.
    pub(super) fn call(&mut self, command: Value) -> Value {
        let id = command["id"].clone();
        self.send_raw(&command.to_string());
        self.wait_for("response", |l| l["type"] == "response" && l["id"] == id)
    }

    pub(super) fn wait_event(&mut self, kind: &str) -> Value {
        self.wait_for(kind, |l| l["type"] == kind)
    }
}

pub(super) fn ok(response: &Value) -> &Value {
    assert_eq!(response["success"], true, "{response}");
    &response["data"]
}

#[test]
fn rpc_session_prompt_steer_abort_state_compact_fork() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    // Keep almost nothing verbatim so a manual compaction has something to summarise.
    pi.settings(json!({"compaction": {"keepRecentTokens": 1}}));
    let mut rpc = RpcClient::start(&pi);

    let state = rpc.call(json!({"id": "s1", "type": "get_state"}));
    assert_eq!(state["command"], "get_state");
    let data = ok(&state);
    assert_eq!(data["isStreaming"], false);
    assert_eq!(data["model"]["id"], "mock-model");
    assert_eq!(data["thinkingLevel"], "medium");
    assert_eq!(data["messageCount"], 0);

    // A plain prompt: response first, then the run's events.
    pi.mock.push(Turn::text("first answer"));
    let response = rpc.call(json!({"id": "p1", "type": "prompt", "message": "first question"}));
    ok(&response);
    rpc.wait_event("agent_end");
    let text = rpc.call(json!({"id": "t1", "type": "get_last_assistant_text"}));
    assert_eq!(ok(&text)["text"], "first answer");

    // Steering while streaming: delivered before the next request of the same run.
    pi.mock.push(
        Turn::text("slow answer in many pieces")
            .chunk(2)
            .delay_between_events(Duration::from_millis(30)),
    );
    pi.mock.push(Turn::text("steered answer"));
    ok(&rpc.call(json!({"id": "p2", "type": "prompt", "message": "second question"})));
    rpc.wait_event("message_update");
    let busy = rpc.call(json!({"id": "p3", "type": "prompt", "message": "no behaviour"}));
    assert_eq!(busy["success"], false, "{busy}");
    ok(&rpc.call(json!({"id": "st", "type": "steer", "message": "please steer"})));
    // Written before the response: the queue with the new message.
    let queued = rpc
        .seen
        .iter()
        .rev()
        .find(|l| l["type"] == "queue_update")
        .cloned()
        .unwrap();
    assert_eq!(queued["steering"], json!(["please steer"]));
    assert_eq!(queued["followUp"], json!([]));
    let delivered = rpc.wait_event("queue_update");
    assert_eq!(delivered["steering"], json!([]));
    rpc.wait_event("agent_end");
    let requests = pi.mock.requests();
    assert_eq!(requests.len(), 3);
    let sent = requests[2].body["messages"].to_string();
    assert!(sent.contains("please steer"), "{sent}");
    let text = rpc.call(json!({"id": "t2", "type": "get_last_assistant_text"}));
    assert_eq!(ok(&text)["text"], "steered answer");

    // Abort a stream that never ends.
    pi.mock.push(Reply::hang_after_headers(
        Turn::text("never ends").chunk(2),
        3,
    ));
    ok(&rpc.call(json!({"id": "p4", "type": "prompt", "message": "hang please"})));
    rpc.wait_event("message_update");
    ok(&rpc.call(json!({"id": "a1", "type": "abort"})));
    // `abort` answers once the run has ended, so its agent_end came first.
    let end = rpc
        .seen
        .iter()
        .rev()
        .find(|l| l["type"] == "agent_end")
        .cloned()
        .unwrap();
    let last = end["messages"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["stopReason"], "aborted");
    let state = rpc.call(json!({"id": "s2", "type": "get_state"}));
    assert_eq!(ok(&state)["isStreaming"], false);
    let file_before = ok(&state)["sessionFile"].as_str().unwrap().to_owned();

    // Manual compaction: the mock writes the summary (and the split turn's prefix summary).
    let before = pi.mock.requests().len();
    pi.mock
        .push(Turn::text("## Goal\nSummary of the work so far."));
    pi.mock.push(Turn::text("Prefix of the cut turn."));
    let compact = rpc.call(json!({"id": "c1", "type": "compact",
                                  "customInstructions": "keep the questions"}));
    assert_eq!(compact["command"], "compact");
    let result = ok(&compact);
    assert!(
        result["summary"]
            .as_str()
            .unwrap()
            .contains("Summary of the work"),
        "{result}"
    );
    assert!(rpc.seen.iter().any(|l| l["type"] == "compaction_start"));
    assert!(rpc.seen.iter().any(|l| l["type"] == "compaction_end"));
    let summaries: String = pi.mock.requests()[before..]
        .iter()
        .map(|r| r.body.to_string())
        .collect();
    assert!(summaries.contains("keep the questions"));

    // Fork from the second user message: a new session file with the history before it.
    let forks = rpc.call(json!({"id": "f0", "type": "get_fork_messages"}));
    let messages = ok(&forks)["messages"].as_array().unwrap().clone();
    assert_eq!(messages.len(), 4, "{messages:?}");
    assert_eq!(messages[2]["text"], "please steer");
    assert_eq!(messages[1]["text"], "second question");
    let entry_id = messages[1]["entryId"].as_str().unwrap();
    let fork = rpc.call(json!({"id": "f1", "type": "fork", "entryId": entry_id}));
    assert_eq!(ok(&fork)["text"], "second question");
    let state = rpc.call(json!({"id": "s3", "type": "get_state"}));
    let data = ok(&state);
    assert_ne!(data["sessionFile"].as_str().unwrap(), file_before);
    // pi 1.6's count: the recorded system prompt, the first question and its answer.
    assert_eq!(
        data["messageCount"], 3,
        "system + first question + first answer"
    );

    // Bad input never kills the process.
    rpc.send_raw("{this is not json");
    let parse = rpc.wait_for("parse error", |l| l["command"] == "parse");
    assert_eq!(parse["success"], false);
    let unknown = rpc.call(json!({"id": "u1", "type": "dance"}));
    assert_eq!(unknown["success"], false);
    assert_eq!(unknown["error"], "Unknown command: dance");
    let invalid = rpc.call(json!({"id": "u2", "type": "set_model"}));
    assert_eq!(invalid["success"], false);
    ok(&rpc.call(json!({"id": "s4", "type": "get_state"})));

    // End of input ends the process cleanly.
    drop(rpc.stdin.take());
    let status = rpc.child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    let original = read_jsonl(std::path::Path::new(&file_before));
    assert_complete_session(&original);
    assert_eq!(messages_of(&original), 8, "3 prompts + 1 steer, 4 answers");
    assert_eq!(system_messages(&original).len(), 1, "the recorded prompt");
}

fn messages_of(lines: &[Value]) -> usize {
    messages(lines).len()
}

#[test]
fn rpc_model_and_thinking_commands() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let mut rpc = RpcClient::start(&pi);
    let levels = rpc.call(json!({"id": 1, "type": "get_available_thinking_levels"}));
    assert_eq!(
        ok(&levels)["levels"],
        json!(["off", "minimal", "low", "medium", "high"])
    );
    ok(&rpc.call(json!({"id": 2, "type": "set_thinking_level", "level": "max"})));
    let state = rpc.call(json!({"id": 3, "type": "get_state"}));
    assert_eq!(ok(&state)["thinkingLevel"], "high", "clamped");
    let bad = rpc.call(json!({"id": 4, "type": "set_thinking_level", "level": "loud"}));
    assert_eq!(bad["success"], false);
    let models = rpc.call(json!({"id": 5, "type": "get_available_models"}));
    assert_eq!(ok(&models)["models"][0]["id"], "mock-model");
    let set = rpc
        .call(json!({"id": 6, "type": "set_model", "provider": "mock", "modelId": "mock-model"}));
    assert_eq!(ok(&set)["id"], "mock-model");
    let missing =
        rpc.call(json!({"id": 7, "type": "set_model", "provider": "mock", "modelId": "nope"}));
    assert_eq!(missing["success"], false);
    ok(&rpc.call(json!({"id": 8, "type": "set_session_name", "name": "My run"})));
    // pi's `session_info_changed`, written before the response.
    let changed = rpc
        .seen
        .iter()
        .find(|l| l["type"] == "session_info_changed")
        .cloned();
    assert_eq!(
        changed,
        Some(json!({"type": "session_info_changed", "name": "My run"}))
    );
    let state = rpc.call(json!({"id": 9, "type": "get_state"}));
    assert_eq!(ok(&state)["sessionName"], "My run");
    drop(rpc.stdin.take());
    assert_eq!(rpc.child.wait().unwrap().code(), Some(0));
}

#[test]
fn rpc_new_session_records_parent_session() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let mut rpc = RpcClient::start(&pi);
    pi.mock.push(Turn::text("first answer"));
    ok(&rpc.call(json!({"id": 1, "type": "prompt", "message": "first"})));
    rpc.wait_event("agent_end");
    let state = rpc.call(json!({"id": 2, "type": "get_state"}));
    let parent = ok(&state)["sessionFile"].as_str().unwrap().to_owned();

    let created = rpc.call(json!({"id": 3, "type": "new_session", "parentSession": parent}));
    assert_eq!(ok(&created)["cancelled"], false);
    pi.mock.push(Turn::text("second answer"));
    ok(&rpc.call(json!({"id": 4, "type": "prompt", "message": "second"})));
    rpc.wait_event("agent_end");
    let state = rpc.call(json!({"id": 5, "type": "get_state"}));
    let child = ok(&state)["sessionFile"].as_str().unwrap().to_owned();
    assert_ne!(child, parent);
    assert_eq!(
        ok(&state)["messageCount"],
        3,
        "the new session starts empty: its recorded system prompt, one exchange"
    );

    // Without parentSession the header has none.
    ok(&rpc.call(json!({"id": 6, "type": "new_session"})));
    pi.mock.push(Turn::text("third answer"));
    ok(&rpc.call(json!({"id": 7, "type": "prompt", "message": "third"})));
    rpc.wait_event("agent_end");
    let state = rpc.call(json!({"id": 8, "type": "get_state"}));
    let orphan = ok(&state)["sessionFile"].as_str().unwrap().to_owned();
    drop(rpc.stdin.take());
    assert_eq!(rpc.child.wait().unwrap().code(), Some(0));

    let header = read_jsonl(std::path::Path::new(&child))[0].clone();
    assert_eq!(header["type"], "session");
    assert_eq!(header["parentSession"], parent.as_str(), "{header}");
    let header = read_jsonl(std::path::Path::new(&orphan))[0].clone();
    assert!(header.get("parentSession").is_none(), "{header}");
    let header = read_jsonl(std::path::Path::new(&parent))[0].clone();
    assert!(header.get("parentSession").is_none(), "{header}");
}

#[test]
fn rpc_auto_compaction_and_retry_switches_persist_in_settings() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    // A key this version does not know, and a sibling of the changed one, must survive.
    pi.settings(json!({"someFutureKey": {"x": 1}, "compaction": {"keepRecentTokens": 1234}}));
    let settings_file = pi.agent_dir().join("settings.json");
    let read_settings = || {
        serde_json::from_str::<Value>(&std::fs::read_to_string(&settings_file).unwrap()).unwrap()
    };

    let mut rpc = RpcClient::start(&pi);
    let state = rpc.call(json!({"id": 1, "type": "get_state"}));
    assert_eq!(ok(&state)["autoCompactionEnabled"], true);
    ok(&rpc.call(json!({"id": 2, "type": "set_auto_compaction", "enabled": false})));
    ok(&rpc.call(json!({"id": 3, "type": "set_auto_retry", "enabled": false})));
    // Saved as soon as the command is answered, while the process still runs.
    let saved = read_settings();
    assert_eq!(saved["compaction"]["enabled"], false, "{saved}");
    assert_eq!(saved["compaction"]["keepRecentTokens"], 1234, "{saved}");
    assert_eq!(saved["retry"]["enabled"], false, "{saved}");
    assert_eq!(saved["someFutureKey"], json!({"x": 1}));
    let state = rpc.call(json!({"id": 4, "type": "get_state"}));
    assert_eq!(ok(&state)["autoCompactionEnabled"], false);
    drop(rpc.stdin.take());
    assert_eq!(rpc.child.wait().unwrap().code(), Some(0));

    // A later run starts with them off, and turning compaction back on is saved too.
    let mut rpc = RpcClient::start(&pi);
    let state = rpc.call(json!({"id": 1, "type": "get_state"}));
    assert_eq!(ok(&state)["autoCompactionEnabled"], false);
    ok(&rpc.call(json!({"id": 2, "type": "set_auto_compaction", "enabled": true})));
    drop(rpc.stdin.take());
    assert_eq!(rpc.child.wait().unwrap().code(), Some(0));
    let saved = read_settings();
    assert_eq!(saved["compaction"]["enabled"], true, "{saved}");
    assert_eq!(saved["retry"]["enabled"], false, "{saved}");
}

#[test]
fn rpc_queue_modes_apply_at_once_and_persist_in_settings() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.settings(json!({"followUpMode": "all", "later": true}));
    let settings_file = pi.agent_dir().join("settings.json");
    let mut rpc = RpcClient::start(&pi);
    let state = rpc.call(json!({"id": 1, "type": "get_state"}));
    assert_eq!(ok(&state)["steeringMode"], "one-at-a-time");
    assert_eq!(ok(&state)["followUpMode"], "all");
    ok(&rpc.call(json!({"id": 2, "type": "set_steering_mode", "mode": "all"})));
    ok(&rpc.call(json!({"id": 3, "type": "set_follow_up_mode", "mode": "one-at-a-time"})));
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(&settings_file).unwrap()).unwrap();
    assert_eq!(
        saved,
        json!({"followUpMode": "one-at-a-time", "later": true, "steeringMode": "all"})
    );
    let state = rpc.call(json!({"id": 4, "type": "get_state"}));
    assert_eq!(ok(&state)["steeringMode"], "all");
    assert_eq!(ok(&state)["followUpMode"], "one-at-a-time");
    drop(rpc.stdin.take());
    assert_eq!(rpc.child.wait().unwrap().code(), Some(0));

    let mut rpc = RpcClient::start(&pi);
    let state = rpc.call(json!({"id": 1, "type": "get_state"}));
    assert_eq!(ok(&state)["steeringMode"], "all");
    drop(rpc.stdin.take());
    assert_eq!(rpc.child.wait().unwrap().code(), Some(0));
}

#[test]
fn rpc_long_bash_and_compaction_leave_the_input_open_and_can_be_aborted() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.settings(json!({"compaction": {"keepRecentTokens": 1}}));
    let mut rpc = RpcClient::start(&pi);

    // A bash command that would run 60 s: queries are answered meanwhile and `abort_bash`,
    // sent right behind it, ends it.
    let started = Instant::now();
    rpc.send_raw(&json!({"id": "b1", "type": "bash", "command": "sleep 60"}).to_string());
    ok(&rpc.call(json!({"id": "ab", "type": "abort_bash"})));
    let bash = rpc.wait_for("bash response", |l| l["id"] == "b1");
    assert_eq!(ok(&bash)["cancelled"], true, "{bash}");
    assert!(started.elapsed() < Duration::from_secs(15));
    // The slot is free again: a second command runs to its end.
    let again = rpc.call(json!({"id": "b2", "type": "bash", "command": "echo again"}));
    assert_eq!(ok(&again)["output"], "again\n");

    // A compaction whose summary request never completes: `get_state` is answered while it
    // runs, `abort` ends it with an error response, and the session can still be used.
    pi.mock.push(Turn::text("an answer to compact"));
    ok(&rpc.call(json!({"id": "p1", "type": "prompt", "message": "a question"})));
    rpc.wait_event("agent_end");
    pi.mock.push(Reply::stall_before_headers());
    rpc.send_raw(&json!({"id": "c1", "type": "compact"}).to_string());
    rpc.wait_event("compaction_start");
    let state = rpc.call(json!({"id": "s1", "type": "get_state"}));
    assert_eq!(ok(&state)["isCompacting"], true, "{state}");
    ok(&rpc.call(json!({"id": "a1", "type": "abort"})));
    let compact = rpc.wait_for("compact response", |l| l["id"] == "c1");
    assert_eq!(compact["success"], false, "{compact}");
    let state = rpc.call(json!({"id": "s2", "type": "get_state"}));
    assert_eq!(ok(&state)["isCompacting"], false, "{state}");
    // Nothing was compacted: the two bash runs, the recorded system prompt, the question and
    // its answer.
    assert_eq!(ok(&state)["messageCount"], 5);
}

#[test]
fn rpc_bash_streams_its_output_and_every_command_is_answered_before_exit() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let mut rpc = RpcClient::start(&pi);
    let done =
        rpc.call(json!({"id": "b", "type": "bash", "command": "echo one; sleep 0.2; echo two"}));
    assert_eq!(ok(&done)["output"], "one\ntwo\n", "{done}");
    let streamed: String = rpc
        .seen
        .iter()
        .filter(|l| l["type"] == "bash_execution_update")
        .filter_map(|l| l["delta"].as_str())
        .collect();
    assert_eq!(streamed, "one\ntwo\n", "{:#?}", rpc.seen);
    assert_eq!(ok(&done)["truncated"], false);
    // A noisy command: the tail, as the bash tool keeps it, and the whole output in a file.
    let noisy = rpc.call(json!({"id": "n", "type": "bash", "command": "seq 1 100000"}));
    let data = ok(&noisy);
    assert_eq!(data["truncated"], true, "{noisy}");
    let output = data["output"].as_str().unwrap();
    assert!(output.lines().count() <= 2000 && output.len() <= 50 * 1024);
    assert!(
        output.trim_end().ends_with("\n100000"),
        "{}",
        &output[output.len() - 20..]
    );
    let full = std::fs::read_to_string(data["fullOutputPath"].as_str().unwrap()).unwrap();
    assert_eq!(full.lines().count(), 100_000);
    // A bash command still running when stdin closes is cancelled, and still answered.
    rpc.send_raw(&json!({"id": "late", "type": "bash", "command": "sleep 30"}).to_string());
    drop(rpc.stdin.take());
    let late = rpc.wait_for("late response", |l| l["id"] == "late");
    assert_eq!(ok(&late)["cancelled"], true, "{late}");
    assert_eq!(rpc.child.wait().unwrap().code(), Some(0));
}

#[test]
fn rpc_clear_queue_returns_the_queued_texts_and_nothing_is_delivered() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.mock
        .push(Turn::new().tool_call("c1", "bash", json!({"command": "sleep 1"})));
    pi.mock.push(Turn::text("finished without the queued ones"));
    let mut rpc = RpcClient::start(&pi);
    ok(&rpc.call(json!({"id": 1, "type": "prompt", "message": "work"})));
    rpc.wait_event("tool_execution_start");
    ok(&rpc.call(json!({"id": 2, "type": "steer", "message": "steer me"})));
    ok(&rpc.call(json!({"id": 3, "type": "follow_up", "message": "later"})));
    let cleared = rpc.call(json!({"id": 4, "type": "clear_queue"}));
    assert_eq!(
        ok(&cleared),
        &json!({"steering": ["steer me"], "followUp": ["later"]})
    );
    rpc.wait_event("agent_settled");
    let requests = pi.mock.requests();
    assert_eq!(requests.len(), 2, "no request for the cleared messages");
    assert!(!requests[1].body.to_string().contains("steer me"));
    drop(rpc.stdin.take());
    assert_eq!(rpc.child.wait().unwrap().code(), Some(0));
}

#[test]
fn rpc_bash_updates_carry_the_command_id_and_whole_characters() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    // One ASCII byte, then two-byte characters: reads of any even size cut one in two.
    let text = format!("a{}", "é".repeat(20_000));
    std::fs::write(pi.cwd().join("accents.txt"), &text).unwrap();
    let mut rpc = RpcClient::start(&pi);
    let done = rpc.call(json!({"id": "accents", "type": "bash", "command": "cat accents.txt"}));
    assert_eq!(ok(&done)["output"].as_str().map(str::len), Some(text.len()));
    let updates: Vec<&Value> = rpc
        .seen
        .iter()
        .filter(|l| l["type"] == "bash_execution_update")
        .collect();
    assert!(updates.len() > 1, "{updates:?}");
    assert!(updates.iter().all(|u| u["id"] == "accents"), "{updates:?}");
    let streamed: String = updates.iter().filter_map(|u| u["delta"].as_str()).collect();
    assert!(!streamed.contains('\u{FFFD}'), "a character was cut in two");
    assert_eq!(streamed, text);
}

/// pi 1.6's order for a delivered steering message: `turn_start`, then the `queue_update`
/// that no longer holds it, then its `message_start`.
#[test]
fn rpc_a_delivered_steer_reports_its_queue_before_its_message_start() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let mut rpc = RpcClient::start(&pi);
    pi.mock.push(
        Turn::text("slow answer in many pieces")
            .chunk(2)
            .delay_between_events(Duration::from_millis(30)),
    );
    pi.mock.push(Turn::text("steered answer"));
    ok(&rpc.call(json!({"id": "p", "type": "prompt", "message": "question"})));
    rpc.wait_event("message_update");
    ok(&rpc.call(json!({"id": "st", "type": "steer", "message": "please steer"})));
    rpc.wait_event("agent_end");

    let kinds: Vec<String> = rpc
        .seen
        .iter()
        .map(|l| l["type"].as_str().unwrap_or_default().to_owned())
        .collect();
    let start = rpc
        .seen
        .iter()
        .position(|l| {
            l["type"] == "message_start"
                && l["message"]["role"] == "user"
                && l["message"]["content"].to_string().contains("please steer")
        })
        .unwrap_or_else(|| panic!("no message_start of the steer: {kinds:?}"));
    assert_eq!(
        kinds[start - 2..=start],
        ["turn_start", "queue_update", "message_start"],
        "{kinds:?}"
    );
    let delivered = &rpc.seen[start - 1];
    assert_eq!(delivered["steering"], json!([]), "{delivered}");
    assert_eq!(delivered["followUp"], json!([]), "{delivered}");
    let queued = rpc.seen[..start - 1]
        .iter()
        .rfind(|l| l["type"] == "queue_update")
        .unwrap_or_else(|| panic!("the steer was never reported queued: {kinds:?}"));
    assert_eq!(queued["steering"], json!(["please steer"]), "{queued}");
}

#[test]
fn dispositions_are_pi_1_6_s_and_absent_in_the_pi_0_73_protocol() {
    for (args, disposition) in [
        (&[][..], Some("started")),
        (&["--rpc-protocol", "0.73"][..], None),
    ] {
        let pi = PiEnv::new(Api::OpenAiCompletions);
        pi.mock.push(
            Turn::text("slow answer in many pieces")
                .chunk(2)
                .delay_between_events(Duration::from_millis(30)),
        );
        let mut rpc = RpcClient::start_with(&pi, args);
        let started = rpc.call(json!({"id": "p", "type": "prompt", "message": "q"}));
        rpc.wait_event("message_update");
        let steer = rpc.call(json!({"id": "s", "type": "steer", "message": "more"}));
        let follow = rpc.call(json!({"id": "f", "type": "follow_up", "message": "then"}));
        let queued = rpc.call(json!({"id": "q", "type": "prompt", "message": "later",
                                     "streamingBehavior": "followUp"}));
        let expect = |response: &Value, value: Option<&str>| match value {
            Some(value) => assert_eq!(ok(response)["disposition"], value, "{response}"),
            None => assert!(response.get("data").is_none(), "{response}"),
        };
        expect(&started, disposition);
        let queued_form = disposition.map(|_| "queued");
        for response in [&steer, &follow, &queued] {
            expect(response, queued_form);
        }
        ok(&rpc.call(json!({"id": "c", "type": "clear_queue"})));
        ok(&rpc.call(json!({"id": "a", "type": "abort"})));
        // The run may have ended before the abort: its settle event may be read already.
        let seen = rpc
            .seen
            .iter()
            .find(|l| l["type"] == "agent_settled")
            .cloned();
        let settled = seen.unwrap_or_else(|| rpc.wait_event("agent_settled"));
        assert_eq!(
            settled.get("aborted").is_some(),
            disposition.is_some(),
            "{settled}"
        );
    }
}
