//! The one place where pi-agent's `AgentMessage {Llm, Host}` and the coding agent's message
//! union meet. Both serialize to pi's JSON, so the host roles cross over through serde; the
//! three model roles are moved across directly.

use pi_agent::AgentMessage as RuntimeMessage;
use pi_ai::Message;
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
        RuntimeMessage::Host(pi_agent::HostMessage::new(
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

pub fn all_into_runtime(messages: Vec<CodingMessage>) -> Vec<RuntimeMessage> {
    messages.into_iter().map(into_runtime).collect()
}

pub fn all_to_coding(messages: &[RuntimeMessage]) -> Vec<CodingMessage> {
    messages.iter().map(to_coding).collect()
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
