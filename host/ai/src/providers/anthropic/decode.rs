//! Anthropic Messages SSE events → [`MessageBuilder`] calls.

use super::wire;
use crate::event::MessageBuilder;
use crate::protocol::{Decoder, StreamError};
use crate::providers::excerpt;
use crate::providers::lenient;
use crate::sse::SseEvent;
use crate::types::StopReason;
use serde_json::Value;
use serde_json::value::RawValue;

/// Usage as Anthropic reports it; `message_delta` overwrites the `message_start` values.
#[derive(Debug, Default)]
struct RawUsage {
    input: u64,
    output: u64,
    cache_read: u64,
    cache_write: u64,
    thinking: Option<u64>,
}

impl RawUsage {
    /// Takes every field present and not null in `usage`.
    fn update(&mut self, usage: &wire::Usage) {
        let fields = [
            (usage.input_tokens, &mut self.input),
            (usage.output_tokens, &mut self.output),
            (usage.cache_read_input_tokens, &mut self.cache_read),
            (usage.cache_creation_input_tokens, &mut self.cache_write),
        ];
        for (value, slot) in fields {
            if let Some(v) = value.0 {
                *slot = v;
            }
        }
        if let Some(v) = usage
            .output_tokens_details
            .get()
            .and_then(|d| d.thinking_tokens.0)
        {
            self.thinking = Some(v);
        }
    }

    /// Anthropic's `input_tokens` already leaves out cached tokens, as pi counts.
    fn write_to(&self, out: &mut MessageBuilder) {
        let usage = &mut out.message_mut().usage;
        usage.input = self.input;
        usage.output = self.output;
        usage.cache_read = self.cache_read;
        usage.cache_write = self.cache_write;
        usage.reasoning = self.thinking;
        usage.total_tokens = usage.parts_total();
    }
}

/// Decodes one Anthropic response.
#[derive(Debug, Default)]
pub struct AnthropicDecoder {
    /// Anthropic block index → builder content index, for blocks we keep. A response has a
    /// handful of blocks, so a list beats hashing on every delta.
    blocks: Vec<(u64, usize)>,
    usage: RawUsage,
    stop_reason: Option<String>,
    /// Why the model stopped, in its words (`stop_details.explanation`), for refusals.
    stop_explanation: Option<String>,
    message_stopped: bool,
    /// The request's tool names, when tool calls come back under other casing (Claude Code's,
    /// for subscription tokens): a call is named after the tool it matches.
    tool_names: Vec<String>,
}

impl AnthropicDecoder {
    /// A decoder that names tool calls back after `tool_names` (case-insensitive match).
    pub fn with_tool_names(tool_names: Vec<String>) -> Self {
        AnthropicDecoder {
            tool_names,
            ..AnthropicDecoder::default()
        }
    }

    fn tool_name<'a>(&'a self, name: &'a str) -> &'a str {
        self.tool_names
            .iter()
            .find(|t| t.eq_ignore_ascii_case(name))
            .map_or(name, String::as_str)
    }
}

impl Decoder for AnthropicDecoder {
    fn on_event(&mut self, event: &SseEvent, out: &mut MessageBuilder) -> Result<(), StreamError> {
        let data = event.data.trim();
        // OpenRouter's gateway appends `data: [DONE]` after message_stop.
        if data == "[DONE]" || data.is_empty() {
            return Ok(());
        }
        let mut slot = None;
        let json: wire::Event = lenient::parse(data, &mut slot).map_err(|err| {
            StreamError::Malformed(format!("invalid JSON ({err}) in: {}", excerpt(data)))
        })?;
        match json.kind.get().unwrap_or(event.event.as_str()) {
            "message_start" => self.message_start(&json, out),
            "content_block_start" => self.block_start(&json, out),
            "content_block_delta" => self.block_delta(&json, out),
            "content_block_stop" => {
                if let Some(index) = self.block_index(&json) {
                    out.end_block(index);
                }
            }
            "message_delta" => self.message_delta(&json, out),
            "message_stop" => self.message_stopped = true,
            "error" => return Err(StreamError::Provider(error_text(data))),
            other => tracing::trace!(event = other, "ignoring Anthropic event"),
        }
        Ok(())
    }

    fn finish(&mut self, out: &mut MessageBuilder) -> Result<StopReason, StreamError> {
        let Some(raw) = self.stop_reason.as_deref() else {
            let what = if out.has_started() {
                "no message_stop event"
            } else {
                "no message_start or message_stop event"
            };
            return Err(StreamError::Incomplete(what.to_owned()));
        };
        if !self.message_stopped {
            tracing::debug!("Anthropic stream ended after message_delta without message_stop");
        }
        map_stop_reason(raw, self.stop_explanation.as_deref())
    }
}

impl AnthropicDecoder {
    fn message_start(&mut self, json: &wire::Event, out: &mut MessageBuilder) {
        let message = json.message.get();
        let id = message.and_then(|m| m.id.get()).map(str::to_owned);
        let model = message.and_then(|m| m.model.get()).map(str::to_owned);
        let m = out.message_mut();
        m.response_id = id.or(m.response_id.take());
        m.response_model = model.or(m.response_model.take());
        if let Some(usage) = message.and_then(|m| m.usage.get()) {
            self.usage.update(usage);
            self.usage.write_to(out);
        }
        out.start();
    }

    fn block_start(&mut self, json: &wire::Event, out: &mut MessageBuilder) {
        let Some(anthropic_index) = json.index.0 else {
            return;
        };
        let empty = wire::Block::default();
        let block = json.content_block.get().map_or(&empty, Box::as_ref);
        let index = match block.kind.or_empty() {
            "text" => {
                let index = out.start_text();
                out.push_text(index, block.text.or_empty());
                index
            }
            "thinking" => {
                let index = out.start_thinking(false);
                out.push_thinking(index, block.thinking.or_empty());
                if let Some(signature) = block.signature.non_empty() {
                    out.set_thinking_signature(index, signature.to_owned());
                }
                index
            }
            "redacted_thinking" => {
                // The encrypted payload is what must be sent back; it lives in the signature.
                let index = out.start_thinking(true);
                out.set_thinking_signature(index, block.data.or_empty().to_owned());
                index
            }
            "tool_use" => {
                let name = self.tool_name(block.name.or_empty());
                let index = out.start_tool_call(block.id.or_empty(), name);
                // Streaming sends `input: {}` and the real input as deltas; a non-empty input
                // here means a server that sends it whole.
                if let Some(input) = block.input.as_deref().filter(|v| is_nonempty_object(v)) {
                    out.push_tool_args(index, input.get());
                }
                index
            }
            // server_tool_use, web_search_tool_result…: run by Anthropic, not by pi.
            other => {
                tracing::trace!(block = other, "ignoring Anthropic content block");
                return;
            }
        };
        match self.blocks.iter_mut().find(|(a, _)| *a == anthropic_index) {
            Some(entry) => entry.1 = index,
            None => self.blocks.push((anthropic_index, index)),
        }
    }

    fn block_index(&self, json: &wire::Event) -> Option<usize> {
        let anthropic_index = json.index.0?;
        self.blocks
            .iter()
            .find(|(a, _)| *a == anthropic_index)
            .map(|(_, index)| *index)
    }

    fn block_delta(&mut self, json: &wire::Event, out: &mut MessageBuilder) {
        let Some(index) = self.block_index(json) else {
            return;
        };
        let Some(delta) = json.delta.get() else {
            tracing::trace!(delta = "", "ignoring Anthropic delta");
            return;
        };
        match delta.kind.or_empty() {
            "text_delta" => out.push_text(index, delta.text.or_empty()),
            "thinking_delta" => out.push_thinking(index, delta.thinking.or_empty()),
            "signature_delta" => {
                out.set_thinking_signature(index, delta.signature.or_empty().to_owned())
            }
            "input_json_delta" => out.push_tool_args(index, delta.partial_json.or_empty()),
            // citations_delta and future kinds carry nothing pi keeps.
            other => tracing::trace!(delta = other, "ignoring Anthropic delta"),
        }
    }

    fn message_delta(&mut self, json: &wire::Event, out: &mut MessageBuilder) {
        if let Some(delta) = json.delta.get() {
            if let Some(reason) = delta.stop_reason.get() {
                self.stop_reason = Some(reason.to_owned());
                out.message_mut().raw_stop_reason = Some(reason.to_owned());
            }
            if let Some(explanation) = delta.stop_details.get().and_then(|d| d.explanation.get()) {
                self.stop_explanation = Some(explanation.to_owned());
            }
        }
        if let Some(usage) = json.usage.get() {
            self.usage.update(usage);
            self.usage.write_to(out);
        }
    }
}

/// Whether a raw JSON value is an object with at least one member.
fn is_nonempty_object(value: &RawValue) -> bool {
    value
        .get()
        .strip_prefix('{')
        .is_some_and(|rest| !rest.trim_start().starts_with('}'))
}

/// Maps Anthropic's `stop_reason`; a refusal ends the turn as an error.
fn map_stop_reason(raw: &str, explanation: Option<&str>) -> Result<StopReason, StreamError> {
    match raw {
        "end_turn" | "stop_sequence" | "pause_turn" => Ok(StopReason::Stop),
        "max_tokens" | "model_context_window_exceeded" => Ok(StopReason::Length),
        "tool_use" => Ok(StopReason::ToolUse),
        "refusal" => Err(StreamError::Provider(match explanation {
            Some(why) => format!("The model refused to respond: {why}"),
            None => "The model refused to respond (stop reason: refusal)".to_owned(),
        })),
        other => Err(StreamError::Provider(format!(
            "Unhandled Anthropic stop reason: {other}"
        ))),
    }
}

/// The provider's message of an `error` event, or the event itself if it has none. Errors are
/// rare, so the line is read again as a `Value` here rather than typed on every event.
fn error_text(data: &str) -> String {
    let json: Value = serde_json::from_str(data).unwrap_or_default();
    json.pointer("/error/message")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .unwrap_or_else(|| excerpt(&json.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::AssistantMessageEvent;
    use crate::protocol::decode_chunks;
    use crate::providers::anthropic::AnthropicMessages;
    use crate::types::{AssistantBlock, AssistantMessage};

    fn decode(body: &str) -> (Vec<AssistantMessageEvent>, AssistantMessage) {
        let model = super::super::tests::model();
        decode_chunks(&AnthropicMessages, &model, body.as_bytes().chunks(5))
    }

    fn event(name: &str, data: &str) -> String {
        format!("event: {name}\ndata: {data}\n\n")
    }

    fn text_stream_start() -> String {
        [
            event(
                "message_start",
                r#"{"type":"message_start","message":{"id":"msg_1","model":"claude-x","usage":{"input_tokens":10,"output_tokens":1}}}"#,
            ),
            event(
                "content_block_start",
                r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
            ),
            event(
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}"#,
            ),
        ]
        .concat()
    }

    #[test]
    fn truncated_stream_is_incomplete() {
        let (_, message) = decode(&text_stream_start());
        assert_eq!(message.stop_reason, StopReason::Error);
        assert_eq!(message.text(), "Hello");
        let error = message.error_message.clone().unwrap_or_default();
        assert!(error.contains("message_stop"), "{error}");
        assert!(
            error.contains("before the response was complete"),
            "{error}"
        );
    }

    #[test]
    fn message_delta_with_stop_reason_completes_without_message_stop() {
        let body = text_stream_start()
            + &event(
                "message_delta",
                r#"{"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"output_tokens":9}}"#,
            );
        let (events, message) = decode(&body);
        assert_eq!(message.stop_reason, StopReason::Length);
        assert_eq!(message.raw_stop_reason.as_deref(), Some("max_tokens"));
        assert_eq!(message.text(), "Hello");
        assert!(matches!(
            events.last(),
            Some(AssistantMessageEvent::Done { .. })
        ));
    }

    #[test]
    fn malformed_json_is_reported_with_excerpt() {
        let body = text_stream_start()
            + &event(
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"#,
            );
        let (events, message) = decode(&body);
        assert_eq!(message.stop_reason, StopReason::Error);
        let error = message.error_message.clone().unwrap_or_default();
        assert!(error.starts_with("malformed response stream"), "{error}");
        assert!(
            error.contains(r#"{"type":"content_block_delta""#),
            "{error}"
        );
        assert!(matches!(
            events.last(),
            Some(AssistantMessageEvent::Error { .. })
        ));
    }

    #[test]
    fn in_stream_error_keeps_partial_text() {
        let body = text_stream_start()
            + &event(
                "error",
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
            );
        let (_, message) = decode(&body);
        assert_eq!(message.stop_reason, StopReason::Error);
        assert_eq!(message.error_message.as_deref(), Some("Overloaded"));
        assert_eq!(message.text(), "Hello");
        assert_eq!(message.response_id.as_deref(), Some("msg_1"));
        assert_eq!(message.response_model.as_deref(), Some("claude-x"));
    }

    #[test]
    fn refusal_is_an_error_naming_the_refusal() {
        let body = text_stream_start()
            + &event(
                "content_block_stop",
                r#"{"type":"content_block_stop","index":0}"#,
            )
            + &event(
                "message_delta",
                r#"{"type":"message_delta","delta":{"stop_reason":"refusal","stop_details":{"type":"refusal","explanation":"Policy."}},"usage":{"output_tokens":3}}"#,
            )
            + &event("message_stop", r#"{"type":"message_stop"}"#);
        let (_, message) = decode(&body);
        assert_eq!(message.stop_reason, StopReason::Error);
        assert_eq!(message.raw_stop_reason.as_deref(), Some("refusal"));
        let error = message.error_message.clone().unwrap_or_default();
        assert!(
            error.contains("refused") && error.contains("Policy."),
            "{error}"
        );
        assert_eq!(message.usage.output, 3);
    }

    #[test]
    fn done_after_message_stop_and_server_tools_are_tolerated() {
        let body = [
            event(
                "message_start",
                r#"{"type":"message_start","message":{"id":"msg_2","usage":{"input_tokens":5,"cache_read_input_tokens":7,"output_tokens":1}}}"#,
            ),
            event(
                "content_block_start",
                r#"{"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}}}"#,
            ),
            event(
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"q\":1}"}}"#,
            ),
            event("content_block_stop", r#"{"type":"content_block_stop","index":0}"#),
            event(
                "content_block_start",
                r#"{"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"opaque"}}"#,
            ),
            event("content_block_stop", r#"{"type":"content_block_stop","index":1}"#),
            event(
                "content_block_start",
                r#"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_9","name":"read","input":{}}}"#,
            ),
            event(
                "content_block_delta",
                r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"path\":\"a\"}"}}"#,
            ),
            event("content_block_stop", r#"{"type":"content_block_stop","index":2}"#),
            event(
                "message_delta",
                r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":20,"input_tokens":null}}"#,
            ),
            event("message_stop", r#"{"type":"message_stop"}"#),
            event("data", "[DONE]"),
        ]
        .concat();
        let (_, message) = decode(&body);
        assert_eq!(message.stop_reason, StopReason::ToolUse);
        assert_eq!(message.content.len(), 2);
        match &message.content[0] {
            AssistantBlock::Thinking(t) => {
                assert_eq!(t.redacted, Some(true));
                assert_eq!(t.thinking_signature.as_deref(), Some("opaque"));
            }
            other => panic!("expected redacted thinking, got {other:?}"),
        }
        let calls: Vec<_> = message.tool_calls().collect();
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].id, "toolu_9");
        assert_eq!(calls[0].arguments, serde_json::json!({"path": "a"}));
        assert_eq!(
            (
                message.usage.input,
                message.usage.cache_read,
                message.usage.output
            ),
            (5, 7, 20)
        );
        assert_eq!(message.usage.total_tokens, 32);
    }
}
