//! The same runs over each of the four wire protocols, plus a serialized event trace.

use crate::support::*;
use crate::tool_scheduling::{assert_parallel_results, three_call_turn, three_latch_tools};
use pi_agent::{AgentEvent, AgentOptions};
use pi_mock_llm::{Api, Turn};
use serde_json::{Value, json};

/// Event kinds with `message_update` runs written `message_update+` (the number of deltas is
/// the protocol's business).
fn shape(rig: &Rig) -> Vec<String> {
    rig.kinds()
        .into_iter()
        .map(|k| {
            if k.starts_with("message_update*") {
                "message_update+".to_owned()
            } else {
                k
            }
        })
        .collect()
}

#[tokio::test]
async fn one_tool_run_on_every_protocol() {
    for api in Api::ALL {
        let rig = Rig::build(api, AgentOptions::default(), vec![echo_tool()]);
        rig.push(
            Turn::text("Let me echo.")
                .tool_call("c1", "echo", json!({"x": 1}))
                .chunk(3),
        );
        rig.push(Turn::text("Echoed.").chunk(3));
        rig.prompt("go").await;
        assert_eq!(
            shape(&rig),
            strs(&[
                "agent_start",
                "turn_start",
                "message_start:user",
                "message_end:user",
                "message_start:assistant",
                "message_update+",
                "message_end:assistant",
                "tool_execution_start:c1",
                "tool_execution_end:c1",
                "message_start:toolResult",
                "message_end:toolResult",
                "turn_end",
                "turn_start",
                "message_start:assistant",
                "message_update+",
                "message_end:assistant",
                "turn_end",
                "agent_end",
            ]),
            "{api}"
        );
        assert_eq!(rig.mock.requests().len(), 2, "{api}");
        let answer = rig.last_assistant();
        assert_eq!(answer.text(), "Echoed.", "{api}");
        assert_eq!(answer.api, api.as_str());
    }
}

#[tokio::test]
async fn three_parallel_tools_on_every_protocol() {
    for api in Api::ALL {
        let rig = Rig::build(api, AgentOptions::default(), three_latch_tools());
        rig.push(three_call_turn());
        rig.push(Turn::text("all done"));
        rig.prompt("go").await;
        let kinds = shape(&rig);
        let from = kinds
            .iter()
            .position(|k| k == "tool_execution_start:c1")
            .unwrap();
        assert_eq!(
            kinds[from..from + 13],
            crate::tool_scheduling::three_parallel_tool_events()[..],
            "{api}"
        );
        assert_parallel_results(&rig.agent.messages());
    }
}

/// Serializes a three-tool run as pi's `--mode json` would print it (one event per line) into
/// `$CARGO_TARGET_TMPDIR/three_tool_trace.jsonl`, and checks every line's shape.
#[tokio::test]
async fn three_tool_run_serializes_to_pi_json_events() {
    let rig = Rig::new(three_latch_tools());
    rig.push(three_call_turn());
    rig.push(Turn::text("all done"));
    rig.prompt("go").await;
    let events = rig.rec.events();
    let mut lines = Vec::new();
    for event in &events {
        let value = serde_json::to_value(event).unwrap();
        assert_eq!(value["type"], event.kind());
        match event {
            AgentEvent::ToolExecutionEnd { .. } => {
                for key in ["toolCallId", "toolName", "result", "isError"] {
                    assert!(value.get(key).is_some(), "{key} missing in {value}");
                }
                assert!(value["result"]["content"].is_array());
            }
            AgentEvent::ToolExecutionStart { .. } => assert!(value["args"].is_object()),
            AgentEvent::MessageUpdate { .. } => {
                assert_eq!(value["message"]["role"], "assistant");
                assert!(value["assistantMessageEvent"]["type"].is_string());
            }
            AgentEvent::TurnEnd { .. } => assert!(value["toolResults"].is_array()),
            AgentEvent::AgentEnd { .. } => {
                let roles: Vec<&str> = value["messages"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|m| m["role"].as_str().unwrap())
                    .collect();
                assert_eq!(
                    roles,
                    [
                        "user",
                        "assistant",
                        "toolResult",
                        "toolResult",
                        "toolResult",
                        "assistant"
                    ]
                );
            }
            _ => {}
        }
        lines.push(serde_json::to_string(&value).unwrap());
    }
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("three_tool_trace.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let reread: Vec<Value> = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(reread.len(), events.len());
}
