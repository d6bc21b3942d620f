//! Shared helpers of the HTTP tests: a context with a system prompt and a tool, options with a
//! key and short timeouts, and a collector that never hangs.

use pi_ai::{
    AssistantMessage, AssistantMessageEvent, AssistantMessageEventStream, Context, Message,
    StreamOptions, Tool, UserMessage,
};
use pi_mock_llm::{Api, MockLlm};
use serde_json::{Value, json};
use std::time::Duration;

pub const SYSTEM_PROMPT: &str = "You are the mock test assistant. Answer briefly.";

pub fn context() -> Context {
    Context {
        system_prompt: Some(SYSTEM_PROMPT.to_owned()),
        messages: vec![Message::User(UserMessage::text("List the files, please."))]
            .into_iter()
            .map(std::sync::Arc::new)
            .collect(),
        tools: vec![Tool {
            name: "read_file".into(),
            description: "Reads a file from the workspace.".into(),
            parameters: json!({
                "type": "object",
                "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
                "required": ["path"]
            })
            .into(),
            constrained_sampling: None,
        }],
    }
}

/// A key (the mock accepts any) and timeouts short enough that a broken test fails fast.
pub fn options() -> StreamOptions {
    StreamOptions {
        api_key: Some("mock-key".into()),
        header_timeout: Duration::from_secs(20),
        idle_timeout: Duration::from_secs(20),
        ..StreamOptions::default()
    }
}

/// Drains `stream`; panics if it does not end within 30 s.
pub async fn collect(
    mut stream: AssistantMessageEventStream,
) -> (Vec<AssistantMessageEvent>, AssistantMessage) {
    let mut events = Vec::new();
    let drained = tokio::time::timeout(Duration::from_secs(30), async {
        while let Some(event) = stream.next_event().await {
            events.push(event);
        }
    })
    .await;
    assert!(
        drained.is_ok(),
        "the stream hung; events so far: {events:?}"
    );
    let last = match events.last() {
        Some(AssistantMessageEvent::Done { message, .. }) => message.clone(),
        Some(AssistantMessageEvent::Error { error, .. }) => error.clone(),
        other => panic!("stream ended with {other:?}"),
    };
    (events, last)
}

/// One request of `api` against `mock`: events and final message.
pub async fn run(
    mock: &MockLlm,
    api: Api,
    options: StreamOptions,
) -> (Vec<AssistantMessageEvent>, AssistantMessage) {
    collect(pi_ai::stream(&mock.model(api), &context(), options)).await
}

/// The event types in order, with runs of the same delta type collapsed into one.
pub fn event_kinds(events: &[AssistantMessageEvent]) -> Vec<String> {
    let mut kinds: Vec<String> = Vec::new();
    for event in events {
        let kind = serde_json::to_value(event)
            .ok()
            .and_then(|v| v["type"].as_str().map(str::to_owned))
            .unwrap_or_default();
        if kind.ends_with("_delta") && kinds.last() == Some(&kind) {
            continue;
        }
        kinds.push(kind);
    }
    kinds
}

/// Whether `needle` occurs in any string inside `value`.
pub fn contains_text(value: &Value, needle: &str) -> bool {
    match value {
        Value::String(s) => s.contains(needle),
        Value::Array(items) => items.iter().any(|v| contains_text(v, needle)),
        Value::Object(map) => map.values().any(|v| contains_text(v, needle)),
        _ => false,
    }
}

/// The protocols every HTTP test runs through.
pub const APIS: [Api; 4] = Api::ALL;
