//! JSON shapes of events and messages (pi's `--mode json` output and session records).

use pi_agent::{AgentEvent, AgentMessage, HostMessage, ToolOutput};
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
    let Some(HostMessage::BashExecution(bash)) = message.as_host() else {
        panic!("expected a bash execution, got {message:?}")
    };
    assert_eq!(bash.command, "ls");
    assert_eq!(message.role(), "bashExecution");
    assert_eq!(message.timestamp(), 1_700_000_000_000);
    assert_eq!(serde_json::to_string(&message).unwrap(), text);

    let user: AgentMessage =
        serde_json::from_str(r#"{"role":"user","content":"hi","timestamp":3}"#).unwrap();
    assert_eq!(user.role(), "user");
    assert!(user.as_llm().is_some());
    assert_eq!(
        serde_json::to_value(&user).unwrap(),
        json!({"role": "user", "content": "hi", "timestamp": 3})
    );
}

/// Every host role reads into its variant and is written back as it was stored.
#[test]
fn every_host_role_round_trips_typed() {
    let stored = [
        r#"{"role":"bashExecution","command":"ls","output":"","exitCode":1,"cancelled":false,"truncated":true,"fullOutputPath":"/tmp/o","excludeFromContext":true,"timestamp":1}"#,
        r#"{"role":"custom","customType":"note","content":[{"type":"text","text":"hi"}],"display":true,"details":{"k":1},"timestamp":2}"#,
        r#"{"role":"branchSummary","summary":"went left","fromId":"abc","timestamp":3}"#,
        r#"{"role":"compactionSummary","summary":"earlier","tokensBefore":500,"timestamp":4}"#,
        r#"{"role":"system","content":"","sections":{"preamble":"You are pi.","tools":null},"toolsAdded":[{"name":"read","description":"Read a file","parameters":{"type":"object"}}],"toolsRemoved":[{"name":"bash"}],"timestamp":5}"#,
    ];
    for text in stored {
        let message: AgentMessage = serde_json::from_str(text).unwrap();
        let host = message.as_host().expect("a host message");
        assert!(
            !matches!(host, HostMessage::Unknown { .. }),
            "{text} read as unknown"
        );
        assert_eq!(serde_json::to_string(&message).unwrap(), text);
    }
    let system: AgentMessage = serde_json::from_str(stored[4]).unwrap();
    let Some(HostMessage::System(system)) = system.as_host() else {
        panic!("expected a system message")
    };
    assert_eq!(
        system.sections.0,
        vec![
            ("preamble".to_owned(), Some("You are pi.".to_owned())),
            ("tools".to_owned(), None)
        ]
    );
    assert_eq!(system.tools_added[0].name, "read");
    assert_eq!(system.tools_removed[0].name, "bash");
}

/// A role this version does not know, a known role whose fields do not fit, and a message
/// without a role all come back exactly as they were stored.
#[test]
fn unknown_host_messages_round_trip_unchanged() {
    let stored = [
        r#"{"role":"mystery","nested":{"b":[1,2,{"c":null}],"a":"x"},"timestamp":9,"after":true}"#,
        r#"{"role":"bashExecution","command":42,"timestamp":1}"#,
        r#"{"content":"x"}"#,
    ];
    for text in stored {
        let message: AgentMessage = serde_json::from_str(text).unwrap();
        let Some(HostMessage::Unknown { role, fields }) = message.as_host() else {
            panic!("{text} should be unknown, got {message:?}")
        };
        assert_eq!(role, message.role());
        assert!(!fields.contains_key("role"));
        assert_eq!(serde_json::to_string(&message).unwrap(), text);
    }
    let mystery: AgentMessage = serde_json::from_str(stored[0]).unwrap();
    assert_eq!((mystery.role(), mystery.timestamp()), ("mystery", 9));
}
