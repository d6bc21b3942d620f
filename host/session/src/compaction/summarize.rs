//! Summary generation: serialize the conversation to text, send one separate
//! request per summary (no tools, the summarizer system prompt, an output cap), check the
//! answer, merge split-turn summaries, append the file lists. Transient failures are retried
//! with the session's retry policy.

use super::cut_point::CompactionPreparation;
use super::file_ops::{append_file_lists, details_value};
use super::prompts;
use crate::messages::{AgentMessage, convert_to_llm};
use crate::retry::{RetryPolicy, Sleeper, sleep_or_cancel};
use pi_agent::StreamFn;
use pi_ai::{
    AssistantBlock, Context, Message, Model, StopReason, StreamOptions, ThinkingLevel, Usage,
    UserBlock, UserContent, UserMessage, is_context_overflow, is_retryable_error,
};
use serde_json::Value;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// Tool results longer than this are cut in the serialized conversation.
pub const TOOL_RESULT_MAX_CHARS: usize = 2_000;

/// Why a summary could not be produced. Nothing is saved in any of these cases.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SummaryError {
    #[error("{0}")]
    Failed(String),
    #[error("Compaction cancelled")]
    Cancelled,
    #[error("{0}: the summary hit its output limit before it was complete")]
    Truncated(String),
    #[error("{0}: the model asked for a tool call instead of writing a summary")]
    ToolCall(String),
}

/// A transient summary failure that will be retried (for `summarization_retry_scheduled`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SummaryRetry {
    pub attempt: u32,
    pub max_attempts: u32,
    pub delay_ms: u64,
    pub error_message: String,
}

/// How a request's retries went, as they happen: a retry is scheduled (before its wait), a
/// retried attempt starts (after the wait), and once the request has been retried at all, it
/// is finished (answered, failed or cancelled).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RetryNotice {
    Scheduled(SummaryRetry),
    AttemptStart,
    Finished,
}

/// How summary requests are sent: the current model, its key, the stream function the agent
/// uses, cancellation and the retry policy.
#[derive(Clone)]
pub struct SummaryRequester {
    pub model: Model,
    pub api_key: Option<String>,
    pub thinking_level: ThinkingLevel,
    pub stream_fn: StreamFn,
    pub cancel: CancellationToken,
    pub retry: RetryPolicy,
    pub sleeper: Arc<dyn Sleeper>,
    pub on_retry: Arc<dyn Fn(RetryNotice) + Send + Sync>,
}

/// A produced summary.
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryOutput {
    pub summary: String,
    pub details: Value,
    pub usage: Usage,
}

/// Output cap of a history summary: `min(floor(0.8·R), model.maxTokens)`.
pub fn history_max_tokens(reserve_tokens: u64, model: &Model) -> u64 {
    cap(reserve_tokens * 8 / 10, model)
}

/// Output cap of a split turn's first-part summary: `min(floor(0.5·R), model.maxTokens)`.
pub fn turn_prefix_max_tokens(reserve_tokens: u64, model: &Model) -> u64 {
    cap(reserve_tokens / 2, model)
}

fn cap(limit: u64, model: &Model) -> u64 {
    if model.max_tokens > 0 {
        limit.min(model.max_tokens)
    } else {
        limit
    }
}

fn user_text(content: &UserContent) -> String {
    match content {
        UserContent::Text(text) => text.clone(),
        UserContent::Blocks(blocks) => text_of(blocks),
    }
}

fn text_of(blocks: &[UserBlock]) -> String {
    blocks
        .iter()
        .filter_map(|b| match b {
            UserBlock::Text(t) => Some(t.text.as_str()),
            UserBlock::Image(_) => None,
        })
        .collect::<Vec<_>>()
        .join("")
}

/// The first [`TOOL_RESULT_MAX_CHARS`] characters of a tool result and how many were left out.
/// Characters are UTF-16 code units, as pi (JavaScript) counts them; a character that would
/// straddle the limit is left out whole.
fn truncate_result(text: &str) -> String {
    let total = text.encode_utf16().count();
    if total <= TOOL_RESULT_MAX_CHARS {
        return text.to_owned();
    }
    let mut units = 0;
    let end = text
        .char_indices()
        .find_map(|(at, c)| {
            units += c.len_utf16();
            (units > TOOL_RESULT_MAX_CHARS).then_some(at)
        })
        .unwrap_or(text.len());
    format!(
        "{}\n\n[... {} more characters truncated]",
        &text[..end],
        total - TOOL_RESULT_MAX_CHARS
    )
}

fn tool_call_text(name: &str, arguments: &Value) -> String {
    let args = match arguments {
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(", "),
        other => other.to_string(),
    };
    format!("{name}({args})")
}

/// The conversation as plain text: `[User]:`, `[Assistant thinking]:`, `[Assistant]:`,
/// `[Assistant tool calls]:`, `[Tool result]:` blocks separated by blank lines.
pub fn serialize_conversation(messages: &[Arc<Message>]) -> String {
    let mut parts = Vec::new();
    for message in messages {
        match &**message {
            Message::User(m) => {
                let text = user_text(&m.content);
                if !text.is_empty() {
                    parts.push(format!("[User]: {text}"));
                }
            }
            Message::Assistant(m) => {
                let mut thinking = Vec::new();
                let mut text = Vec::new();
                let mut calls = Vec::new();
                for block in &m.content {
                    match block {
                        AssistantBlock::Thinking(t) => thinking.push(t.thinking.as_str()),
                        AssistantBlock::Text(t) => text.push(t.text.as_str()),
                        AssistantBlock::ToolCall(c) => {
                            calls.push(tool_call_text(&c.name, &c.arguments))
                        }
                    }
                }
                if !thinking.is_empty() {
                    parts.push(format!("[Assistant thinking]: {}", thinking.join("\n")));
                }
                if !text.is_empty() {
                    parts.push(format!("[Assistant]: {}", text.join("\n")));
                }
                if !calls.is_empty() {
                    parts.push(format!("[Assistant tool calls]: {}", calls.join("; ")));
                }
            }
            Message::ToolResult(m) => {
                let text = text_of(&m.content);
                if !text.is_empty() {
                    parts.push(format!("[Tool result]: {}", truncate_result(&text)));
                }
            }
        }
    }
    parts.join("\n\n")
}

/// Serializes coding-agent messages (host roles converted first, as for the model).
pub fn serialize_messages(messages: &[AgentMessage]) -> String {
    serialize_conversation(&convert_to_llm(messages))
}

pub(crate) fn add_usage(total: &mut Usage, more: &Usage) {
    total.input += more.input;
    total.output += more.output;
    total.cache_read += more.cache_read;
    total.cache_write += more.cache_write;
    total.total_tokens += more.total_tokens;
    total.cost.input += more.cost.input;
    total.cost.output += more.cost.output;
    total.cost.cache_read += more.cost.cache_read;
    total.cost.cache_write += more.cost.cache_write;
    total.cost.total += more.cost.total;
}

impl SummaryRequester {
    /// One summary request with retries of transient failures. `label` names it in errors
    /// ("Summarization failed: …").
    pub async fn request(
        &self,
        prompt: String,
        max_tokens: u64,
        label: &str,
    ) -> Result<(String, Usage), SummaryError> {
        let context = Context {
            system_prompt: Some(prompts::SUMMARIZATION_SYSTEM_PROMPT.to_owned()),
            messages: vec![std::sync::Arc::new(Message::User(UserMessage {
                content: UserContent::Text(prompt),
                timestamp: pi_ai::now_ms(),
            }))],
            tools: Vec::new(),
        };
        let message = self.send(&context, Some(max_tokens)).await?;
        match message.stop_reason {
            StopReason::Error => {
                let error = message.error_message.clone().unwrap_or_default();
                return Err(SummaryError::Failed(format!("{label} failed: {error}")));
            }
            StopReason::Length => return Err(SummaryError::Truncated(label.to_owned())),
            StopReason::ToolUse => return Err(SummaryError::ToolCall(label.to_owned())),
            StopReason::Deferred => {
                return Err(SummaryError::Failed(format!(
                    "{label} failed: the provider deferred the answer"
                )));
            }
            StopReason::Stop | StopReason::Aborted => {}
        }
        if message.tool_calls().next().is_some() {
            return Err(SummaryError::ToolCall(label.to_owned()));
        }
        Ok((message.text(), message.usage))
    }

    /// Sends `context` to the model, retrying transient failures by the session's policy.
    /// The answer may still be an error (not transient, or out of retries); an abort is
    /// `Cancelled`. Also serves extensions' model requests (`llm.complete`).
    pub async fn send(
        &self,
        context: &Context,
        max_tokens: Option<u64>,
    ) -> Result<pi_ai::AssistantMessage, SummaryError> {
        let mut retried = false;
        let outcome = self.send_attempts(context, max_tokens, &mut retried).await;
        if retried {
            (self.on_retry)(RetryNotice::Finished);
        }
        outcome
    }

    async fn send_attempts(
        &self,
        context: &Context,
        max_tokens: Option<u64>,
        retried: &mut bool,
    ) -> Result<pi_ai::AssistantMessage, SummaryError> {
        let mut attempt = 0u32;
        loop {
            if self.cancel.is_cancelled() {
                return Err(SummaryError::Cancelled);
            }
            let options = StreamOptions {
                max_tokens,
                api_key: self.api_key.clone(),
                cancel: self.cancel.child_token(),
                reasoning: Some(self.thinking_level)
                    .filter(|l| self.model.reasoning && *l != ThinkingLevel::Off),
                ..StreamOptions::default()
            };
            let message = (self.stream_fn)(&self.model, context, options)
                .result()
                .await;
            match message.stop_reason {
                StopReason::Aborted => return Err(SummaryError::Cancelled),
                StopReason::Error => {
                    let transient = is_retryable_error(&message)
                        && !is_context_overflow(&message, Some(self.model.context_window));
                    if !(transient && self.retry.enabled && attempt < self.retry.max_retries) {
                        return Ok(message);
                    }
                    attempt += 1;
                    *retried = true;
                    let delay = self.retry.delay(attempt);
                    (self.on_retry)(RetryNotice::Scheduled(SummaryRetry {
                        attempt,
                        max_attempts: self.retry.max_retries,
                        delay_ms: delay.as_millis() as u64,
                        error_message: message.error_message.clone().unwrap_or_default(),
                    }));
                    if !sleep_or_cancel(self.sleeper.as_ref(), delay, &self.cancel).await {
                        return Err(SummaryError::Cancelled);
                    }
                    (self.on_retry)(RetryNotice::AttemptStart);
                }
                _ => return Ok(message),
            }
        }
    }
}

/// pi's `compact()`: the history summary (updated from the previous one when there is one), the
/// first-part summary of a split turn, merged, with the file lists appended.
pub async fn summarize_preparation(
    prep: &CompactionPreparation,
    requester: &SummaryRequester,
    focus: Option<&str>,
) -> Result<SummaryOutput, SummaryError> {
    let reserve = prep.settings.reserve_tokens;
    let mut usage = Usage::default();
    let history = if prep.messages_to_summarize.is_empty() {
        prep.previous_summary
            .clone()
            .unwrap_or_else(|| prompts::NO_PRIOR_HISTORY.to_owned())
    } else {
        let conversation = serialize_messages(&prep.messages_to_summarize);
        let prompt =
            prompts::history_prompt(&conversation, prep.previous_summary.as_deref(), focus);
        let max = history_max_tokens(reserve, &requester.model);
        let (text, u) = requester.request(prompt, max, "Summarization").await?;
        add_usage(&mut usage, &u);
        text
    };
    let summary = if prep.is_split_turn && !prep.turn_prefix_messages.is_empty() {
        let conversation = serialize_messages(&prep.turn_prefix_messages);
        let prompt = prompts::turn_prefix_prompt(&conversation);
        let max = turn_prefix_max_tokens(reserve, &requester.model);
        let (prefix, u) = requester
            .request(prompt, max, "Turn prefix summarization")
            .await?;
        add_usage(&mut usage, &u);
        prompts::merge_split_turn(&history, &prefix)
    } else {
        history
    };
    let details = prep.file_ops.details();
    Ok(SummaryOutput {
        summary: append_file_lists(&summary, &details),
        details: details_value(&details),
        usage,
    })
}
