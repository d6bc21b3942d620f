//! The one place where pi-agent's `AgentMessage {Llm, Host}` and the coding agent's message
//! union meet. Both serialize to pi's JSON, so the host roles cross over through serde; the
//! three model roles are moved across directly.

use pi_agent::AgentMessage as RuntimeMessage;
use pi_ai::Message;
use pi_session::compaction::tokens::{Estimable, model_message_chars};
use pi_session::messages::{self, AgentMessage as CodingMessage};
use std::sync::Arc;

/// Runtime → coding agent.
pub fn to_coding(message: &RuntimeMessage) -> CodingMessage {
    match message {
        RuntimeMessage::Llm(m) => CodingMessage::from(Message::clone(m)),
        RuntimeMessage::Host(host) => match serde_json::to_value(host) {
            Ok(value) => CodingMessage::from_json(value).0,
            Err(_) => CodingMessage::Unknown(serde_json::Value::Null),
        },
    }
}

/// Coding agent → runtime.
pub fn to_runtime(message: &CodingMessage) -> RuntimeMessage {
    if let Some(llm) = message.as_llm() {
        return RuntimeMessage::from(llm);
    }
    let value = message.to_json(&serde_json::Map::new());
    serde_json::from_value(value).unwrap_or_else(|_| {
        RuntimeMessage::from(pi_agent::HostMessage::new(
            message.role().to_owned(),
            serde_json::Map::new(),
        ))
    })
}

/// Coding agent → runtime, moving the three model roles across (a resumed conversation is
/// not copied on its way into the agent).
pub fn into_runtime(message: CodingMessage) -> RuntimeMessage {
    match message {
        CodingMessage::User(m) => RuntimeMessage::from(m),
        CodingMessage::Assistant(m) => RuntimeMessage::from(m),
        CodingMessage::ToolResult(m) => RuntimeMessage::from(m),
        other => to_runtime(&other),
    }
}

/// A runtime message as the context estimate reads it: a model message where it is (the
/// history is not copied to be counted), a host message through the coding agent's union.
pub struct Estimated<'a>(pub &'a RuntimeMessage);

impl Estimable for Estimated<'_> {
    fn as_assistant(&self) -> Option<&pi_ai::AssistantMessage> {
        self.0.as_assistant()
    }

    fn compaction_summary_time(&self) -> Option<i64> {
        match self.0 {
            RuntimeMessage::Host(host) if host.role == "compactionSummary" => {
                to_coding(self.0).compaction_summary_time()
            }
            _ => None,
        }
    }

    fn estimate_tokens(&self) -> u64 {
        match self.0 {
            RuntimeMessage::Llm(message) => model_message_chars(message).div_ceil(4),
            RuntimeMessage::Host(_) => to_coding(self.0).estimate_tokens(),
        }
    }
}

/// The estimate's view of `messages`.
pub fn estimated(messages: &[RuntimeMessage]) -> Vec<Estimated<'_>> {
    messages.iter().map(Estimated).collect()
}

/// The `convert_to_llm` hook of the agent: the coding agent's conversion (bash executions,
/// extension messages and summaries become user messages).
pub fn convert_to_llm(messages: &[RuntimeMessage]) -> Vec<Arc<Message>> {
    // The model roles are shared, not copied; only host messages go through the coding
    // agent's union (a copy of the whole history per request was the cost otherwise).
    messages
        .iter()
        .filter_map(|message| match message {
            RuntimeMessage::Llm(llm) => Some(llm.clone()),
            RuntimeMessage::Host(_) => {
                messages::convert_to_llm(std::slice::from_ref(&to_coding(message)))
                    .pop()
                    .map(Arc::new)
            }
        })
        .collect()
}

/// Shown to the model where `images.blockImages` took an image out.
pub const BLOCKED_IMAGE: &str =
    "(image omitted: images are blocked by the images.blockImages setting)";

/// `messages` with every image of user messages and tool results replaced by a note
/// (`images.blockImages`): nothing of an image reaches any provider.
pub fn block_images(messages: Vec<Arc<Message>>) -> Vec<Arc<Message>> {
    use pi_ai::{TextContent, UserBlock, UserContent};
    let is_image = |block: &UserBlock| matches!(block, UserBlock::Image(_));
    let has_image = |message: &Message| match message {
        Message::User(user) => {
            matches!(&user.content, UserContent::Blocks(blocks) if blocks.iter().any(is_image))
        }
        Message::ToolResult(result) => result.content.iter().any(is_image),
        Message::Assistant(_) => false,
    };
    let strip = |blocks: Vec<UserBlock>| -> Vec<UserBlock> {
        blocks
            .into_iter()
            .map(|block| match block {
                UserBlock::Image(_) => UserBlock::Text(TextContent {
                    text: BLOCKED_IMAGE.to_owned(),
                    text_signature: None,
                }),
                text => text,
            })
            .collect()
    };
    // Only the messages that carry an image are copied; the rest stay shared.
    messages
        .into_iter()
        .map(|message| {
            if !has_image(&message) {
                return message;
            }
            Arc::new(match Arc::unwrap_or_clone(message) {
                Message::User(mut user) => {
                    if let UserContent::Blocks(blocks) = user.content {
                        user.content = UserContent::Blocks(strip(blocks));
                    }
                    Message::User(user)
                }
                Message::ToolResult(mut result) => {
                    result.content = strip(result.content);
                    Message::ToolResult(result)
                }
                assistant => assistant,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pi_session::compaction::estimate_context_tokens;
    use serde_json::json;

    fn history(summary_at: i64) -> Vec<CodingMessage> {
        let usage = json!({"input": 900, "output": 40, "cacheRead": 0, "cacheWrite": 0,
            "totalTokens": 940, "cost": {"input": 0, "output": 0, "cacheRead": 0,
            "cacheWrite": 0, "total": 0}});
        [
            json!({"role": "user", "content": "fix the bug in src/lib.rs", "timestamp": 1}),
            json!({"role": "assistant", "content": [{"type": "text", "text": "Reading it."},
                {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "src/lib.rs"}}],
                "api": "openai-completions", "provider": "p", "model": "m", "usage": usage,
                "stopReason": "toolUse", "timestamp": 2}),
            json!({"role": "toolResult", "toolCallId": "c1", "toolName": "read",
                "content": [{"type": "text", "text": "fn main() {}\n".repeat(40)},
                    {"type": "image", "mimeType": "image/png", "data": "AAAA"}],
                "isError": false, "timestamp": 3}),
            json!({"role": "compactionSummary", "summary": "Earlier: looked at the tests.",
                "tokensBefore": 5000, "timestamp": summary_at}),
            json!({"role": "bashExecution", "command": "cargo test", "output": "ok\n".repeat(30),
                "exitCode": 0, "cancelled": false, "truncated": false, "timestamp": 4}),
            json!({"role": "user", "content": [{"type": "text", "text": "and now the docs"}],
                "timestamp": 5}),
        ]
        .into_iter()
        .map(|value| CodingMessage::from_json(value).0)
        .collect()
    }

    #[test]
    fn shared_messages_are_estimated_as_the_coding_agents_copies_are() {
        // The usage counts (the summary is older), then a summary newer than the usage.
        for summary_at in [0, 10] {
            let coding = history(summary_at);
            let runtime: Vec<RuntimeMessage> = coding.iter().map(to_runtime).collect();
            let shared = estimate_context_tokens(&estimated(&runtime));
            assert_eq!(
                shared,
                estimate_context_tokens(&coding),
                "summary at {summary_at}"
            );
            assert_eq!(shared.last_usage_index.is_some(), summary_at == 0);
        }
    }
}
