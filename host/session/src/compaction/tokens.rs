//! Token accounting for compaction: a character-based estimate per message, the
//! context total `T = U + ΣE`, and the strict threshold `T > W − R`.
//!
//! Lengths are counted in UTF-16 code units, as pi (JavaScript) counts them, so the estimate
//! matches pi's for non-ASCII text too.

use crate::messages::{AgentMessage, HostMessage};
use crate::settings::CompactionSettings;
use pi_ai::{AssistantBlock, AssistantMessage, Message, StopReason, UserBlock, UserContent};

/// Characters an image counts as (≈ 1,200 tokens).
pub const IMAGE_CHARS: u64 = 4_800;

fn len(text: &str) -> u64 {
    text.encode_utf16().count() as u64
}

fn user_blocks_chars(blocks: &[UserBlock]) -> u64 {
    blocks
        .iter()
        .map(|b| match b {
            UserBlock::Text(t) => len(&t.text),
            UserBlock::Image(_) => IMAGE_CHARS,
        })
        .sum()
}

fn user_content_chars(content: &UserContent) -> u64 {
    match content {
        UserContent::Text(text) => len(text),
        UserContent::Blocks(blocks) => user_blocks_chars(blocks),
    }
}

fn assistant_chars(message: &AssistantMessage) -> u64 {
    message
        .content
        .iter()
        .map(|b| match b {
            AssistantBlock::Text(t) => len(&t.text),
            AssistantBlock::Thinking(t) => len(&t.thinking),
            AssistantBlock::ToolCall(call) => {
                let args = serde_json::to_string(&call.arguments).unwrap_or_default();
                len(&call.name) + len(&args)
            }
        })
        .sum()
}

/// Characters counted for one message (text, thinking, tool names + argument JSON, images).
pub fn message_chars(message: &AgentMessage) -> u64 {
    match message {
        AgentMessage::Llm(llm) => model_message_chars(llm),
        AgentMessage::Host(host) => match &**host {
            HostMessage::BashExecution(b) => len(&b.command) + len(&b.output),
            HostMessage::Custom(c) => user_content_chars(&c.content),
            HostMessage::BranchSummary(b) => len(&b.summary),
            HostMessage::CompactionSummary(c) => len(&c.summary),
            HostMessage::System(_) | HostMessage::Unknown { .. } => 0,
        },
    }
}

/// [`message_chars`] of a model message.
fn model_message_chars(message: &Message) -> u64 {
    match message {
        Message::User(m) => user_content_chars(&m.content),
        Message::Assistant(m) => assistant_chars(m),
        Message::ToolResult(m) => user_blocks_chars(&m.content),
    }
}

/// The time of the compaction summary `message` is, if it is one.
fn compaction_summary_time(message: &AgentMessage) -> Option<i64> {
    match message.as_host()? {
        HostMessage::CompactionSummary(c) => Some(c.timestamp),
        _ => None,
    }
}

/// `E(message) = ceil(chars / 4)`.
pub fn estimate_tokens(message: &AgentMessage) -> u64 {
    message_chars(message).div_ceil(4)
}

/// The provider-reported context size of a response: `totalTokens`, else the sum of the parts.
pub fn usage_tokens(message: &AssistantMessage) -> u64 {
    message.usage.context_tokens()
}

/// Whether a response's usage may stand for the context size: not an error, not aborted, not
/// all zeros.
pub fn has_valid_usage(message: &AssistantMessage) -> bool {
    !matches!(message.stop_reason, StopReason::Error | StopReason::Aborted)
        && usage_tokens(message) > 0
}

/// The context total and how it was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextEstimate {
    /// `T`.
    pub tokens: u64,
    /// `U` (0 when no usage was valid).
    pub usage_tokens: u64,
    /// `ΣE` of the messages after the usage source (or of all messages).
    pub trailing_tokens: u64,
    /// Index of the assistant message `U` came from.
    pub last_usage_index: Option<usize>,
}

/// The newest timestamp of a summary that replaced history: usage reported before it was
/// measured on a context that no longer exists.
fn stale_before(messages: &[AgentMessage]) -> Option<i64> {
    messages.iter().filter_map(compaction_summary_time).max()
}

/// `T = U + ΣE` over the messages after the newest valid usage; `ΣE` over all messages when
/// there is none. Usage older than the newest compaction summary in the list is ignored.
pub fn estimate_context_tokens(messages: &[AgentMessage]) -> ContextEstimate {
    let stale = stale_before(messages);
    let source = messages.iter().enumerate().rev().find_map(|(i, m)| {
        m.as_assistant()
            .filter(|a| has_valid_usage(a) && stale.is_none_or(|ts| a.timestamp > ts))
            .map(|a| (i, usage_tokens(a)))
    });
    let (start, usage, index) = match source {
        Some((i, u)) => (i + 1, u, Some(i)),
        None => (0, 0, None),
    };
    let trailing: u64 = messages[start..].iter().map(estimate_tokens).sum();
    ContextEstimate {
        tokens: usage + trailing,
        usage_tokens: usage,
        trailing_tokens: trailing,
        last_usage_index: index,
    }
}

/// The automatic trigger: enabled and strictly `T > W − R`.
pub fn should_compact(tokens: u64, context_window: u64, settings: &CompactionSettings) -> bool {
    settings.enabled && tokens > context_window.saturating_sub(settings.reserve_tokens)
}
