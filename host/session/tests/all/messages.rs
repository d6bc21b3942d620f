//! `convertToLlm` text formats.

// Test helpers fail loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use pi_ai::{ImageContent, Message, UserBlock, UserContent};
use pi_session::messages::{
    AgentMessage, BashExecutionMessage, BranchSummaryMessage, CompactionSummaryMessage,
    CustomMessage, convert_to_llm, from_json, to_json,
};

fn only_text(message: &Message) -> String {
    let Message::User(user) = message else {
        panic!("expected a user message, got {message:?}")
    };
    let blocks = user.content.to_blocks();
    assert_eq!(blocks.len(), 1);
    match &blocks[0] {
        UserBlock::Text(t) => t.text.clone(),
        other => panic!("{other:?}"),
    }
}

fn bash(output: &str, exit_code: Option<i64>) -> BashExecutionMessage {
    BashExecutionMessage {
        command: "make test".into(),
        output: output.into(),
        exit_code,
        timestamp: 7,
        ..Default::default()
    }
}

#[test]
fn bash_execution_formats() {
    let cases = vec![
        (bash("ok", Some(0)), "Ran `make test`\n```\nok\n```"),
        (bash("", None), "Ran `make test`\n(no output)"),
        (
            bash("boom", Some(2)),
            "Ran `make test`\n```\nboom\n```\n\nCommand exited with code 2",
        ),
        (
            BashExecutionMessage {
                cancelled: true,
                ..bash("part", Some(130))
            },
            "Ran `make test`\n```\npart\n```\n\n(command cancelled)",
        ),
        (
            BashExecutionMessage {
                truncated: true,
                full_output_path: Some("/tmp/out.txt".into()),
                ..bash("tail", Some(0))
            },
            "Ran `make test`\n```\ntail\n```\n\n[Output truncated. Full output: /tmp/out.txt]",
        ),
    ];
    for (message, expected) in cases {
        let llm = convert_to_llm(&[AgentMessage::from(message)]);
        assert_eq!(only_text(&llm[0]), expected);
    }
    let excluded = BashExecutionMessage {
        exclude_from_context: Some(true),
        ..bash("x", Some(0))
    };
    assert!(convert_to_llm(&[AgentMessage::from(excluded)]).is_empty());
}

#[test]
fn summaries_and_custom_messages() {
    let messages = vec![
        AgentMessage::from(CompactionSummaryMessage {
            summary: "S1".into(),
            tokens_before: 99,
            timestamp: 1,
        }),
        AgentMessage::from(BranchSummaryMessage {
            summary: "S2".into(),
            from_id: "abc".into(),
            timestamp: 2,
        }),
        AgentMessage::from(CustomMessage {
            custom_type: "x".into(),
            content: UserContent::Text("hello".into()),
            display: false,
            details: Some(serde_json::json!({"secret": 1})),
            timestamp: 3,
        }),
        AgentMessage::from(CustomMessage {
            custom_type: "img".into(),
            content: UserContent::Blocks(vec![UserBlock::Image(ImageContent {
                data: "AAAA".into(),
                mime_type: "image/png".into(),
            })]),
            display: true,
            details: None,
            timestamp: 4,
        }),
        serde_json::from_value(serde_json::json!({"role": "mystery"})).unwrap(),
    ];
    let before = messages.clone();
    let llm = convert_to_llm(&messages);
    assert_eq!(
        messages, before,
        "conversion must not change stored messages"
    );
    assert_eq!(llm.len(), 4);
    assert_eq!(
        only_text(&llm[0]),
        "The conversation history before this point was compacted into the following summary:\n\n<summary>\nS1\n</summary>"
    );
    assert_eq!(
        only_text(&llm[1]),
        "The following is a summary of a branch that this conversation came back from:\n\n<summary>\nS2</summary>"
    );
    assert_eq!(only_text(&llm[2]), "hello");
    let Message::User(image) = &*llm[3] else {
        panic!()
    };
    assert!(matches!(image.content.to_blocks()[0], UserBlock::Image(_)));
    assert_eq!(image.timestamp, 4);
}

#[test]
fn stored_message_json_round_trips() {
    let raw = serde_json::json!({
        "role": "assistant",
        "content": [{"type": "text", "text": "hi"}],
        "api": "a", "provider": "p", "model": "m",
        "usage": {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 3,
                  "cost": {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0, "total": 0.0}},
        "stopReason": "stop", "timestamp": 5, "diagnostics": {"note": "kept"}
    });
    let (message, extra) = from_json(raw.clone());
    assert!(message.as_assistant().is_some());
    assert_eq!(to_json(&message, &extra), raw);
}

/// The model's view shares the stored model messages (no copy of a long history per request)
/// and leaves out the recorded system prompt and roles this version does not know.
#[test]
fn conversion_shares_model_messages_and_drops_system_and_unknown_roles() {
    let user = AgentMessage::from(pi_ai::UserMessage::text("hi"));
    let system = AgentMessage::from(pi_session::messages::SystemMessage {
        content: String::new(),
        sections: pi_session::messages::PromptSections(vec![(
            "preamble".into(),
            Some("You are pi.".into()),
        )]),
        ..Default::default()
    });
    let unknown: AgentMessage =
        serde_json::from_value(serde_json::json!({"role": "mystery", "x": 1})).unwrap();
    let llm = convert_to_llm(&[system, user.clone(), unknown]);
    assert_eq!(llm.len(), 1);
    let AgentMessage::Llm(stored) = &user else {
        panic!("a user message is a model message")
    };
    assert!(std::sync::Arc::ptr_eq(stored, &llm[0]));
}

/// A stored system message goes through the session's reader and writer unchanged, with a
/// field a newer pi adds kept aside and written back.
#[test]
fn a_stored_system_message_round_trips_with_unknown_fields() {
    let raw = serde_json::json!({
        "role": "system", "content": "",
        "sections": {"preamble": "You are pi.", "skills": null},
        "toolsAdded": [{"name": "read", "description": "Read a file",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}],
        "timestamp": 9, "futureField": [1]
    });
    let (message, extra) = from_json(raw.clone());
    assert!(matches!(
        message.as_host(),
        Some(pi_session::messages::HostMessage::System(_))
    ));
    assert_eq!(extra.len(), 1);
    assert_eq!(to_json(&message, &extra), raw);
}

#[test]
fn pi_1x_assistant_fields_are_kept_through_the_session_and_written_back() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = std::path::Path::new("/tmp");
    let mut session = pi_session::session::SessionManager::create(cwd, dir.path());
    session
        .append_message(AgentMessage::from(pi_ai::UserMessage::text("hi")))
        .unwrap();
    let stored = serde_json::json!({
        "role": "assistant", "content": [], "api": "openai-responses", "provider": "openai",
        "model": "gpt-x", "usage": {"input": 1, "output": 0, "cacheRead": 0, "cacheWrite": 0,
        "totalTokens": 1, "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0,
        "total": 0}}, "stopReason": "deferred", "timestamp": 1,
        "diagnostics": {"warnings": ["slow upstream"]},
        "deferred": {"id": "resp_123", "pollAfterMs": 500},
        "endTurn": true
    });
    let (message, extra) = from_json(stored.clone());
    // Typed now, not carried aside as unknown fields.
    assert!(extra.is_empty(), "{extra:?}");
    let assistant = message
        .as_assistant()
        .expect("a deferred reply reads")
        .clone();
    assert_eq!(assistant.stop_reason, pi_ai::StopReason::Deferred);
    assert_eq!(assistant.end_turn, Some(true));
    assert_eq!(
        assistant.deferred.as_deref(),
        Some(&serde_json::json!({"id": "resp_123", "pollAfterMs": 500}))
    );
    session.append_message(message).unwrap();
    // Read back from the file: the agent's messages carry them, and writing them out again
    // gives the same fields.
    let file = session.session_file().unwrap().to_path_buf();
    let reopened = pi_session::session::SessionManager::open(&file, cwd).unwrap();
    let context = reopened.build_session_context();
    let back = context
        .messages
        .iter()
        .find_map(|m| m.as_assistant())
        .expect("the reply");
    assert_eq!(back.diagnostics, assistant.diagnostics);
    let written = to_json(&AgentMessage::from(back.clone()), &serde_json::Map::new());
    for field in ["diagnostics", "deferred", "endTurn", "stopReason"] {
        assert_eq!(written[field], stored[field], "{field}");
    }
}
