//! Chat Completions stream decoding: `data:` chunks of choice deltas, ended by `[DONE]`.

use super::excerpt;
use super::request::REASONING_FIELDS;
use crate::event::MessageBuilder;
use crate::protocol::{Decoder, StreamError};
use crate::sse::SseEvent;
use crate::types::{StopReason, Usage};
use serde_json::Value;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    Thinking,
}

#[derive(Default)]
pub(crate) struct CompletionsDecoder {
    /// The open text or thinking block, if any.
    current: Option<(Kind, usize)>,
    /// Tool-call stream index → content index.
    tools: BTreeMap<u64, usize>,
    finish_reason: Option<String>,
    done: bool,
}

impl Decoder for CompletionsDecoder {
    fn on_event(&mut self, event: &SseEvent, out: &mut MessageBuilder) -> Result<(), StreamError> {
        let data = event.data.trim();
        if self.done || data.is_empty() {
            return Ok(());
        }
        if data == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        let chunk: Value = serde_json::from_str(data)
            .map_err(|e| StreamError::Malformed(format!("{e} in chunk {}", excerpt(data))))?;
        if let Some(error) = chunk.get("error").filter(|e| !e.is_null()) {
            return Err(StreamError::Provider(error_text(error)));
        }
        out.start();
        self.read_identity(&chunk, out);
        let choice = first_choice(&chunk);
        // Some servers (Moonshot, older vLLM) put usage on the choice instead of the chunk.
        if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()).or_else(|| {
            choice
                .and_then(|c| c.get("usage"))
                .filter(|u| u.is_object())
        }) {
            out.message_mut().usage = parse_usage(usage);
        }
        let Some(choice) = choice else {
            return Ok(());
        };
        if let Some(delta) = choice.get("delta").filter(|d| d.is_object()) {
            self.on_delta(delta, out);
        }
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish_reason = Some(reason.to_owned());
            out.message_mut().raw_stop_reason = Some(reason.to_owned());
        }
        Ok(())
    }

    fn finish(&mut self, _out: &mut MessageBuilder) -> Result<StopReason, StreamError> {
        match self.finish_reason.as_deref() {
            None => Err(StreamError::Incomplete(
                "no finish_reason before the body ended".to_owned(),
            )),
            Some("length") => Ok(StopReason::Length),
            Some("tool_calls" | "function_call") => Ok(StopReason::ToolUse),
            Some("content_filter") => Err(StreamError::Provider(
                "The provider's content filter stopped the response (finish_reason: content_filter)"
                    .to_owned(),
            )),
            Some(_) => Ok(StopReason::Stop),
        }
    }
}

impl CompletionsDecoder {
    fn read_identity(&self, chunk: &Value, out: &mut MessageBuilder) {
        let message = out.message_mut();
        if message.response_id.is_none()
            && let Some(id) = chunk
                .get("id")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        {
            message.response_id = Some(id.to_owned());
        }
        if let Some(model) = chunk
            .get("model")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
        {
            message.response_model = Some(model.to_owned());
        }
    }

    fn on_delta(&mut self, delta: &Value, out: &mut MessageBuilder) {
        // The first non-empty reasoning field wins; servers send one of them.
        let reasoning = REASONING_FIELDS.iter().find_map(|field| {
            delta
                .get(*field)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(|s| (*field, s))
        });
        if let Some((field, text)) = reasoning {
            let index = self.open(Kind::Thinking, out);
            out.set_thinking_signature(index, field.to_owned());
            out.push_thinking(index, text);
        }
        if let Some(text) = delta
            .get("content")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
        {
            let index = self.open(Kind::Text, out);
            out.push_text(index, text);
        }
        if let Some(refusal) = delta
            .get("refusal")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
        {
            out.message_mut()
                .refusal
                .get_or_insert_with(String::new)
                .push_str(refusal);
        }
        if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
            for call in calls {
                self.on_tool_call(call, out);
            }
        }
    }

    /// The open block of `kind`, opening one (and closing anything else) when needed.
    fn open(&mut self, kind: Kind, out: &mut MessageBuilder) -> usize {
        if let Some((k, index)) = self.current
            && k == kind
        {
            return index;
        }
        out.end_all();
        let index = match kind {
            Kind::Text => out.start_text(),
            Kind::Thinking => out.start_thinking(false),
        };
        self.current = Some((kind, index));
        index
    }

    fn on_tool_call(&mut self, call: &Value, out: &mut MessageBuilder) {
        let key = call.get("index").and_then(Value::as_u64).unwrap_or(0);
        let id = call.get("id").and_then(Value::as_str).unwrap_or("");
        let function = call.get("function");
        let name = function
            .and_then(|f| f.get("name"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let index = match self.tools.get(&key) {
            Some(&index) => {
                // Late ids or names (rare) complete the call already started.
                if !id.is_empty() {
                    out.set_tool_call_id(index, id);
                }
                if !name.is_empty() {
                    out.set_tool_call_name(index, name);
                }
                index
            }
            None => {
                if let Some((_, open)) = self.current.take() {
                    out.end_block(open);
                }
                let index = out.start_tool_call(id, name);
                self.tools.insert(key, index);
                index
            }
        };
        if let Some(args) = function
            .and_then(|f| f.get("arguments"))
            .and_then(Value::as_str)
        {
            if out.is_open(index) {
                out.push_tool_args(index, args);
            } else {
                tracing::debug!(
                    index,
                    "tool-call arguments after the call was closed; ignored"
                );
            }
        }
    }
}

fn first_choice(chunk: &Value) -> Option<&Value> {
    let choices = chunk.get("choices")?.as_array()?;
    choices
        .iter()
        .find(|c| c.get("index").and_then(Value::as_u64) == Some(0))
        .or_else(|| choices.first().filter(|c| c.get("index").is_none()))
}

fn error_text(error: &Value) -> String {
    error
        .get("message")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or_else(|| error.as_str().map(str::to_owned))
        .unwrap_or_else(|| error.to_string())
}

/// Usage in pi's convention: `input` leaves out cache reads and writes.
fn parse_usage(usage: &Value) -> Usage {
    let n = |v: Option<&Value>| v.and_then(Value::as_u64).unwrap_or(0);
    let prompt_details = usage.get("prompt_tokens_details");
    let cache_read = n(prompt_details.and_then(|d| d.get("cached_tokens")));
    let cache_write = n(prompt_details.and_then(|d| d.get("cache_write_tokens")));
    let prompt = n(usage.get("prompt_tokens"));
    Usage {
        input: prompt.saturating_sub(cache_read + cache_write),
        output: n(usage.get("completion_tokens")),
        cache_read,
        cache_write,
        total_tokens: n(usage.get("total_tokens")),
        cost: Default::default(),
        reasoning: usage
            .get("completion_tokens_details")
            .and_then(|d| d.get("reasoning_tokens"))
            .and_then(Value::as_u64),
    }
}

#[cfg(test)]
mod tests {
    use crate::protocol::decode_chunks;
    use crate::providers::openai_completions::OpenAiCompletions;
    use crate::providers::openai_completions::compat::tests::model;
    use crate::types::{AssistantMessage, StopReason};

    fn decode(body: &str) -> AssistantMessage {
        let m = model("openai", "https://api.openai.com/v1");
        decode_chunks(&OpenAiCompletions, &m, [body.as_bytes()]).1
    }

    fn chunk(delta: &str, finish: &str) -> String {
        format!(
            "data: {{\"id\":\"c1\",\"model\":\"gpt-x\",\"choices\":[{{\"index\":0,\"delta\":{delta},\"finish_reason\":{finish}}}]}}\n\n"
        )
    }

    #[test]
    fn text_usage_and_identity() {
        let body = format!(
            "{}{}data: {{\"id\":\"c1\",\"choices\":[],\"usage\":{{\"prompt_tokens\":10,\"completion_tokens\":3,\"total_tokens\":13,\"prompt_tokens_details\":{{\"cached_tokens\":4}}}}}}\n\ndata: [DONE]\n\n",
            chunk(r#"{"content":"Hi"}"#, "null"),
            chunk(r#"{"content":" there"}"#, r#""stop""#)
        );
        let m = decode(&body);
        assert_eq!(m.text(), "Hi there");
        assert_eq!(m.stop_reason, StopReason::Stop);
        assert_eq!(m.raw_stop_reason.as_deref(), Some("stop"));
        assert_eq!(
            (m.usage.input, m.usage.cache_read, m.usage.output),
            (6, 4, 3)
        );
        assert_eq!(m.response_id.as_deref(), Some("c1"));
        assert_eq!(m.response_model.as_deref(), Some("gpt-x"));
    }

    #[test]
    fn truncated_stream_is_incomplete() {
        let m = decode(&chunk(r#"{"content":"Hi"}"#, "null"));
        assert_eq!(m.stop_reason, StopReason::Error);
        assert_eq!(m.text(), "Hi");
        assert!(
            m.error_message
                .unwrap_or_default()
                .contains("before the response was complete")
        );
    }

    #[test]
    fn malformed_json_is_reported() {
        let m = decode("data: {\"choices\": [oops\n\n");
        assert_eq!(m.stop_reason, StopReason::Error);
        let error = m.error_message.unwrap_or_default();
        assert!(error.starts_with("malformed response stream"), "{error}");
        assert!(error.contains("oops"), "{error}");
    }

    #[test]
    fn in_stream_error_keeps_partial_text() {
        let body = format!(
            "{}data: {{\"error\":{{\"message\":\"overloaded\",\"type\":\"server_error\"}}}}\n\n",
            chunk(r#"{"content":"par"}"#, "null")
        );
        let m = decode(&body);
        assert_eq!(m.stop_reason, StopReason::Error);
        assert_eq!(m.error_message.as_deref(), Some("overloaded"));
        assert_eq!(m.text(), "par");
    }

    #[test]
    fn content_filter_is_an_error() {
        let body = chunk(r#"{"content":"x"}"#, r#""content_filter""#) + "data: [DONE]\n\n";
        let m = decode(&body);
        assert_eq!(m.stop_reason, StopReason::Error);
        assert_eq!(m.raw_stop_reason.as_deref(), Some("content_filter"));
        assert!(
            m.error_message
                .unwrap_or_default()
                .contains("content filter")
        );
    }

    #[test]
    fn reasoning_text_and_tool_calls_switch_blocks() {
        let body = [
            chunk(r#"{"reasoning_content":"think"}"#, "null"),
            chunk(r#"{"content":"ok","tool_calls":null}"#, "null"),
            chunk(
                r#"{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"read","arguments":"{\"pa"}}]}"#,
                "null",
            ),
            chunk(r#"{"tool_calls":[{"index":0,"function":{"arguments":"th\":1}"}}]}"#, r#""tool_calls""#),
        ]
        .concat();
        let m = decode(&body);
        assert_eq!(m.stop_reason, StopReason::ToolUse);
        assert_eq!(m.content.len(), 3);
        let call = m.tool_calls().next().cloned().unwrap_or_default();
        assert_eq!((call.id.as_str(), call.name.as_str()), ("call_1", "read"));
        assert_eq!(call.arguments, serde_json::json!({"path": 1}));
    }
}
