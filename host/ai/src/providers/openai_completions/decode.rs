//! Chat Completions stream decoding: `data:` chunks of choice deltas, ended by `[DONE]`.

use super::wire;
use crate::event::MessageBuilder;
use crate::protocol::{Decoder, StreamError};
use crate::providers::excerpt;
use crate::providers::lenient::{self, Obj, Str, U64};
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
        let mut slot = None;
        let chunk: wire::Chunk = lenient::parse(data, &mut slot)
            .map_err(|e| StreamError::Malformed(format!("{e} in chunk {}", excerpt(data))))?;
        if chunk.error.is_some() {
            return Err(StreamError::Provider(error_text(data)));
        }
        out.start();
        self.read_identity(&chunk, out);
        let choice = first_choice(&chunk);
        // Some servers (Moonshot, older vLLM) put usage on the choice instead of the chunk.
        if let Some(usage) = chunk
            .usage
            .get()
            .or_else(|| choice.and_then(|c| c.usage.get()))
        {
            out.message_mut().usage = parse_usage(usage);
        }
        let Some(choice) = choice else {
            return Ok(());
        };
        if let Some(delta) = choice.delta.get() {
            self.on_delta(delta, out);
        }
        if let Some(reason) = choice.finish_reason.get() {
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
    fn read_identity(&self, chunk: &wire::Chunk, out: &mut MessageBuilder) {
        let message = out.message_mut();
        if message.response_id.is_none()
            && let Some(id) = chunk.id.non_empty()
        {
            message.response_id = Some(id.to_owned());
        }
        if let Some(model) = chunk.model.non_empty() {
            message.response_model = Some(model.to_owned());
        }
    }

    fn on_delta(&mut self, delta: &wire::Delta, out: &mut MessageBuilder) {
        // The first non-empty reasoning field wins; servers send one of them.
        let reasoning = delta
            .reasoning_fields()
            .into_iter()
            .find_map(|(field, text)| text.non_empty().map(|s| (field, s)));
        if let Some((field, text)) = reasoning {
            let index = self.open(Kind::Thinking, out);
            out.set_thinking_signature(index, field.to_owned());
            out.push_thinking(index, text);
        }
        if let Some(text) = delta.content.non_empty() {
            let index = self.open(Kind::Text, out);
            out.push_text(index, text);
        }
        if let Some(refusal) = delta.refusal.non_empty() {
            out.message_mut()
                .refusal
                .get_or_insert_with(String::new)
                .push_str(refusal);
        }
        for call in delta.tool_calls.items() {
            self.on_tool_call(call.get().unwrap_or(&Default::default()), out);
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

    fn on_tool_call(&mut self, call: &wire::ToolCall, out: &mut MessageBuilder) {
        let key = call.index.0.unwrap_or(0);
        let id = call.id.or_empty();
        let function = call.function.get();
        let name = function.map(|f| f.name.or_empty()).unwrap_or("");
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
        if let Some(args) = function.and_then(|f| f.arguments.get()) {
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

/// Choice 0: the one whose `index` is 0, else a first choice without an `index`.
fn first_choice<'c>(chunk: &'c wire::Chunk) -> Option<&'c wire::Choice<'c>> {
    const NONE: &wire::Choice = &wire::Choice {
        index: None,
        usage: Obj(None),
        delta: Obj(None),
        finish_reason: Str(None),
    };
    let choices = chunk.choices.0.as_deref()?;
    // A choice that is not an object has no fields, as `Value::get` sees it.
    let choice = |c: &'c Obj<wire::Choice<'c>>| c.get().unwrap_or(NONE);
    choices
        .iter()
        .map(choice)
        .find(|c| c.index.is_some_and(|i| i.0 == Some(0)))
        .or_else(|| choices.first().map(choice).filter(|c| c.index.is_none()))
}

/// The provider's error message. Errors are rare, so the line is read again as a `Value` here
/// rather than typed on every chunk.
fn error_text(data: &str) -> String {
    let chunk: Value = serde_json::from_str(data).unwrap_or_default();
    let error = chunk.get("error").unwrap_or(&Value::Null);
    error
        .get("message")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or_else(|| error.as_str().map(str::to_owned))
        .unwrap_or_else(|| error.to_string())
}

/// Usage in pi's convention: `input` leaves out cache reads and writes.
fn parse_usage(usage: &wire::Usage) -> Usage {
    let n = |v: U64| v.0.unwrap_or(0);
    let details = usage.prompt_tokens_details.get();
    let cache_read = n(details.map(|d| d.cached_tokens).unwrap_or_default());
    let cache_write = n(details.map(|d| d.cache_write_tokens).unwrap_or_default());
    let prompt = n(usage.prompt_tokens);
    Usage {
        input: prompt.saturating_sub(cache_read.saturating_add(cache_write)),
        output: n(usage.completion_tokens),
        cache_read,
        cache_write,
        total_tokens: n(usage.total_tokens),
        cost: Default::default(),
        reasoning: usage
            .completion_tokens_details
            .get()
            .and_then(|d| d.reasoning_tokens.0),
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
    fn wire_reasoning_fields_follow_the_request_list() {
        let delta = super::wire::Delta::default();
        let names = delta.reasoning_fields().map(|(name, _)| name);
        assert_eq!(
            names,
            crate::providers::openai_completions::request::REASONING_FIELDS
        );
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
