//! JSON shapes of events and messages (pi's `--mode json` output and session records).

use pi_agent::{AgentEvent, AgentMessage, ToolOutput};
use pi_ai::{AssistantMessage, AssistantMessageEvent, ToolResultMessage};
use serde_json::json;
use std::sync::Arc;

#[test]
fn tool_execution_end_shape() {
    let event = AgentEvent::ToolExecutionEnd {
        tool_call_id: "c1".into(),
        tool_name: "read".into(),
        result: ToolOutput::text("hi"),
        is_error: false,
        duration_ms: Some(12),
    };
    assert_eq!(
        serde_json::to_value(&event).unwrap(),
        json!({
            "type": "tool_execution_end",
            "toolCallId": "c1",
            "toolName": "read",
            "result": {"content": [{"type": "text", "text": "hi"}], "details": {}},
            "isError": false,
            "durationMs": 12
        })
    );
}

#[test]
fn turn_end_and_update_shapes() {
    let result = ToolResultMessage {
        tool_call_id: "c1".into(),
        tool_name: "read".into(),
        content: vec![],
        details: None,
        is_error: true,
        timestamp: 5,
        duration_ms: None,
    };
    let assistant = AssistantMessage {
        api: "a".into(),
        provider: "p".into(),
        model: "m".into(),
        timestamp: 7,
        ..Default::default()
    };
    let event = AgentEvent::TurnEnd {
        message: assistant.clone().into(),
        tool_results: vec![result],
    };
    let value = serde_json::to_value(&event).unwrap();
    assert_eq!(value["type"], "turn_end");
    assert_eq!(value["message"]["role"], "assistant");
    assert_eq!(value["toolResults"][0]["role"], "toolResult");
    assert_eq!(value["toolResults"][0]["toolCallId"], "c1");
    assert_eq!(value["toolResults"][0]["isError"], true);

    let update = AgentEvent::MessageUpdate {
        message: Arc::new(assistant),
        assistant_message_event: AssistantMessageEvent::TextDelta {
            content_index: 0,
            delta: "x".into(),
        },
    };
    let value = serde_json::to_value(&update).unwrap();
    assert_eq!(value["type"], "message_update");
    assert_eq!(value["message"]["role"], "assistant");
    assert_eq!(value["message"]["stopReason"], "stop");
    assert_eq!(
        value["assistantMessageEvent"],
        json!({"type": "text_delta", "contentIndex": 0, "delta": "x"})
    );
    assert_eq!(
        serde_json::to_value(AgentEvent::AgentStart).unwrap(),
        json!({"type": "agent_start"})
    );
}

#[test]
fn host_messages_round_trip_flat() {
    let text = r#"{"role":"bashExecution","command":"ls","output":"a\n","exitCode":0,"cancelled":false,"truncated":false,"timestamp":1700000000000}"#;
    let message: AgentMessage = serde_json::from_str(text).unwrap();
    let AgentMessage::Host(host) = &message else {
        panic!("expected a host message")
    };
    assert_eq!(host.role, "bashExecution");
    assert_eq!(host.timestamp, 1_700_000_000_000);
    assert_eq!(serde_json::to_string(&message).unwrap(), text);

    let user: AgentMessage =
        serde_json::from_str(r#"{"role":"user","content":"hi","timestamp":3}"#).unwrap();
    assert_eq!(user.role(), "user");
    assert!(user.as_llm().is_some());
    assert_eq!(
        serde_json::to_value(&user).unwrap(),
        json!({"role": "user", "content": "hi", "timestamp": 3})
    );
    assert!(serde_json::from_str::<AgentMessage>(r#"{"content":"x"}"#).is_err());
}
