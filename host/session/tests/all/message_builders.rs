//! Messages of a given size in tokens, for compaction tests here and in pi-app's suite.

use pi_ai::{
    AssistantBlock, AssistantMessage, StopReason, TextContent, Usage, UserContent, UserMessage,
};
use pi_session::messages::AgentMessage;

/// `n` tokens of text (4 characters each).
pub fn chars(tokens: u64) -> String {
    "abcd".repeat(tokens as usize)
}

pub fn user_n(tokens: u64) -> AgentMessage {
    AgentMessage::from(UserMessage {
        content: UserContent::Text(chars(tokens)),
        timestamp: 1,
    })
}

pub fn assistant_n(tokens: u64, usage_total: u64, timestamp: i64) -> AgentMessage {
    AgentMessage::from(AssistantMessage {
        content: vec![AssistantBlock::Text(TextContent {
            text: chars(tokens),
            text_signature: None,
        })],
        api: "anthropic-messages".into(),
        provider: "mock".into(),
        model: "mock-model".into(),
        usage: Usage {
            total_tokens: usage_total,
            ..Usage::default()
        },
        stop_reason: StopReason::Stop,
        timestamp,
        ..AssistantMessage::default()
    })
}
