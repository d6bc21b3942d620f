//! Gemini `streamGenerateContent` SSE chunks → [`MessageBuilder`] calls.
//!
//! Each chunk is a whole `GenerateContentResponse` holding the next parts of candidate 0.
//! Consecutive parts of the same kind (text, or thought text) continue one block; a function
//! call arrives whole and is a block of its own.

use super::generated_tool_call_id;
use super::wire;
use crate::event::MessageBuilder;
use crate::protocol::{Decoder, StreamError};
use crate::providers::excerpt;
use crate::providers::lenient;
use crate::sse::SseEvent;
use crate::types::StopReason;
use serde_json::Value;
use serde_json::value::RawValue;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    Text,
    Thinking,
}

/// Decodes one Gemini response.
#[derive(Debug, Default)]
pub struct GoogleDecoder {
    /// The text or thinking block that the next part of the same kind continues.
    current: Option<(usize, Open)>,
    tool_calls: usize,
    finish_reason: Option<String>,
    finish_message: Option<String>,
    /// `promptFeedback.blockReason`: the prompt was refused before any candidate.
    block_reason: Option<String>,
}

impl Decoder for GoogleDecoder {
    fn on_event(&mut self, event: &SseEvent, out: &mut MessageBuilder) -> Result<(), StreamError> {
        let data = event.data.trim();
        if data.is_empty() || data == "[DONE]" {
            return Ok(());
        }
        let mut slot = None;
        let json: wire::Chunk = lenient::parse(data, &mut slot).map_err(|err| {
            StreamError::Malformed(format!("invalid JSON ({err}) in: {}", excerpt(data)))
        })?;
        if json.error.is_some() {
            return Err(StreamError::Provider(error_text(data)));
        }
        out.start();
        self.identity(&json, out);
        if let Some(usage) = &json.usage_metadata {
            write_usage(usage.get().unwrap_or(&Default::default()), out);
        }
        if let Some(reason) = json
            .prompt_feedback
            .get()
            .and_then(|f| f.block_reason.get())
        {
            self.block_reason = Some(reason.to_owned());
        }
        if let Some(candidate) = json.candidates.0.as_ref().and_then(|c| c.get()) {
            self.candidate(candidate, out);
        }
        Ok(())
    }

    fn finish(&mut self, out: &mut MessageBuilder) -> Result<StopReason, StreamError> {
        match self.finish_reason.as_deref() {
            Some("STOP") => Ok(StopReason::Stop),
            Some("MAX_TOKENS") => Ok(StopReason::Length),
            Some(other) => {
                let mut text = format!("Gemini stopped the response: {other}");
                if let Some(detail) = &self.finish_message {
                    text.push_str(&format!(" ({detail})"));
                }
                Err(StreamError::Provider(text))
            }
            None => match &self.block_reason {
                Some(reason) => {
                    out.message_mut().raw_stop_reason = Some(reason.clone());
                    Err(StreamError::Provider(format!(
                        "Gemini blocked the prompt: {reason}"
                    )))
                }
                None => Err(StreamError::Incomplete(
                    "no finishReason arrived".to_owned(),
                )),
            },
        }
    }
}

impl GoogleDecoder {
    fn identity(&self, json: &wire::Chunk, out: &mut MessageBuilder) {
        let m = out.message_mut();
        if m.response_id.is_none() {
            m.response_id = json.response_id.get().map(str::to_owned);
        }
        if let Some(version) = json.model_version.get() {
            m.response_model = Some(version.to_owned());
        }
    }

    fn candidate(&mut self, candidate: &wire::Candidate, out: &mut MessageBuilder) {
        let parts = candidate
            .content
            .get()
            .map(|c| c.parts.items())
            .unwrap_or_default();
        for part in parts {
            if let Some(part) = part.get() {
                self.part(part, out);
            }
        }
        if let Some(reason) = candidate.finish_reason.get() {
            self.finish_reason = Some(reason.to_owned());
            out.message_mut().raw_stop_reason = Some(reason.to_owned());
            self.finish_message = candidate.finish_message.get().map(str::to_owned);
        }
    }

    fn part(&mut self, part: &wire::Part, out: &mut MessageBuilder) {
        let signature = part.thought_signature.non_empty().map(str::to_owned);
        if let Some(call) = &part.function_call {
            self.function_call(call.get().unwrap_or(&Default::default()), signature, out);
            return;
        }
        // executableCode, codeExecutionResult, inlineData…: nothing pi keeps.
        let Some(text) = part.text.get() else {
            return;
        };
        let kind = if part.thought.0 == Some(true) {
            Open::Thinking
        } else {
            Open::Text
        };
        // An empty unsigned part (Gemini sends some after a function call) adds nothing.
        if text.is_empty() && signature.is_none() {
            return;
        }
        let index = self.block_for(kind, out);
        match kind {
            Open::Text => {
                out.push_text(index, text);
                if let Some(sig) = signature {
                    out.set_text_signature(index, sig);
                }
            }
            Open::Thinking => {
                out.push_thinking(index, text);
                if let Some(sig) = signature {
                    out.set_thinking_signature(index, sig);
                }
            }
        }
    }

    /// The open block of `kind`, or a new one (closing the block of the other kind).
    fn block_for(&mut self, kind: Open, out: &mut MessageBuilder) -> usize {
        if let Some((index, open)) = self.current {
            if open == kind {
                return index;
            }
            out.end_block(index);
        }
        let index = match kind {
            Open::Text => out.start_text(),
            Open::Thinking => out.start_thinking(false),
        };
        self.current = Some((index, kind));
        index
    }

    fn function_call(
        &mut self,
        call: &wire::FunctionCall,
        signature: Option<String>,
        out: &mut MessageBuilder,
    ) {
        if let Some((index, _)) = self.current.take() {
            out.end_block(index);
        }
        self.tool_calls += 1;
        let name = call.name.or_empty();
        let id = match call.id.non_empty() {
            Some(id) => id.to_owned(),
            None => {
                let response_id = out.message().response_id.as_deref();
                generated_tool_call_id(name, response_id, self.tool_calls)
            }
        };
        let index = out.start_tool_call(&id, name);
        // The provider's own text (key order, number spelling) is what gets parsed at the end.
        let args = match call.args.as_deref().map(RawValue::get) {
            Some(args) if args.starts_with('{') => args,
            _ => "{}",
        };
        out.push_tool_args(index, args);
        if let Some(sig) = signature {
            out.set_thought_signature(index, sig);
        }
        out.end_block(index);
    }
}

/// Gemini's counts are cumulative, so each chunk's metadata replaces the last. pi counts the
/// cache apart from `input` and thoughts as output.
fn write_usage(meta: &wire::UsageMetadata, out: &mut MessageBuilder) {
    let prompt = meta.prompt_token_count.0.unwrap_or(0);
    let cached = meta.cached_content_token_count.0.unwrap_or(0);
    let candidates = meta.candidates_token_count.0.unwrap_or(0);
    let thoughts = meta.thoughts_token_count.0;
    let usage = &mut out.message_mut().usage;
    usage.cache_read = cached;
    usage.cache_write = 0;
    usage.input = prompt.saturating_sub(cached);
    // Counts are the server's: sums saturate rather than overflow.
    usage.output = candidates.saturating_add(thoughts.unwrap_or(0));
    usage.reasoning = thoughts;
    usage.total_tokens = meta
        .total_token_count
        .0
        .unwrap_or(prompt.saturating_add(usage.output));
}

/// The provider's `message`, or the error object itself if it has none. Errors are rare, so
/// the line is read again as a `Value` here rather than typed on every chunk.
fn error_text(data: &str) -> String {
    let json: Value = serde_json::from_str(data).unwrap_or_default();
    let error = json.get("error").unwrap_or(&Value::Null);
    error
        .get("message")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .unwrap_or_else(|| excerpt(&error.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::decode_chunks;
    use crate::providers::google::{GoogleGenerativeAi, is_generated_tool_call_id};
    use crate::types::{AssistantBlock, AssistantMessage};
    use serde_json::json;

    fn decode(chunks: &[Value]) -> AssistantMessage {
        let body: String = chunks
            .iter()
            .map(|c| format!("data: {c}\r\n\r\n"))
            .collect();
        decode_raw(&body)
    }

    fn decode_raw(body: &str) -> AssistantMessage {
        let model = super::super::tests::model();
        decode_chunks(&GoogleGenerativeAi, &model, body.as_bytes().chunks(3)).1
    }

    fn text_chunk(text: &str) -> Value {
        json!({"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}}],
               "responseId": "r1", "modelVersion": "gemini-x",
               "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 2}})
    }

    #[test]
    fn truncated_stream_is_incomplete() {
        let message = decode(&[text_chunk("Hel"), text_chunk("lo")]);
        assert_eq!(message.stop_reason, StopReason::Error);
        assert_eq!(message.text(), "Hello");
        let error = message.error_message.clone().unwrap_or_default();
        assert!(error.contains("no finishReason"), "{error}");
    }

    #[test]
    fn malformed_json_is_reported() {
        let body = format!(
            "data: {}\r\n\r\ndata: {{\"candidates\": [\r\n\r\n",
            text_chunk("Hi")
        );
        let message = decode_raw(&body);
        assert_eq!(message.stop_reason, StopReason::Error);
        let error = message.error_message.clone().unwrap_or_default();
        assert!(error.starts_with("malformed response stream"), "{error}");
        assert!(error.contains("{\"candidates\": ["), "{error}");
        assert_eq!(message.text(), "Hi");
    }

    #[test]
    fn in_stream_error_keeps_partial_text() {
        let error = json!({"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}});
        let message = decode(&[text_chunk("Partial"), error]);
        assert_eq!(message.stop_reason, StopReason::Error);
        assert_eq!(
            message.error_message.as_deref(),
            Some("The model is overloaded.")
        );
        assert_eq!(message.text(), "Partial");
        assert_eq!(message.response_id.as_deref(), Some("r1"));
        assert_eq!(message.response_model.as_deref(), Some("gemini-x"));
    }

    #[test]
    fn safety_finish_is_an_error_naming_the_reason() {
        let stop = json!({"candidates": [{"content": {"parts": []}, "finishReason": "SAFETY"}]});
        let message = decode(&[text_chunk("I can"), stop]);
        assert_eq!(message.stop_reason, StopReason::Error);
        assert_eq!(message.raw_stop_reason.as_deref(), Some("SAFETY"));
        let error = message.error_message.clone().unwrap_or_default();
        assert!(error.contains("SAFETY"), "{error}");
        assert_eq!(message.text(), "I can");
    }

    #[test]
    fn thoughts_calls_signatures_and_usage() {
        let chunk = json!({
            "responseId": "r9",
            "candidates": [{"content": {"parts": [
                {"text": "thinking…", "thought": true},
                {"text": " more", "thought": true, "thoughtSignature": "ts1"},
                {"text": "Answer"},
                {"functionCall": {"name": "read", "args": {"path": "a"}}, "thoughtSignature": "fs1"},
                {"functionCall": {"name": "read", "args": {"path": "b"}, "id": "call_7"}},
            ]}, "finishReason": "STOP"}],
            "usageMetadata": {"promptTokenCount": 100, "cachedContentTokenCount": 40,
                              "candidatesTokenCount": 5, "thoughtsTokenCount": 7, "totalTokenCount": 112},
        });
        let message = decode(&[chunk]);
        assert_eq!(message.stop_reason, StopReason::ToolUse);
        match &message.content[0] {
            AssistantBlock::Thinking(t) => {
                assert_eq!(t.thinking, "thinking… more");
                assert_eq!(t.thinking_signature.as_deref(), Some("ts1"));
            }
            other => panic!("expected thinking, got {other:?}"),
        }
        let calls: Vec<_> = message.tool_calls().collect();
        assert_eq!(calls.len(), 2);
        assert!(is_generated_tool_call_id(&calls[0].id, "read", Some("r9")));
        assert_eq!(calls[0].thought_signature.as_deref(), Some("fs1"));
        assert_eq!(calls[0].arguments, json!({"path": "a"}));
        assert_eq!(calls[1].id, "call_7");
        let u = message.usage;
        assert_eq!(
            (u.input, u.cache_read, u.output, u.reasoning, u.total_tokens),
            (60, 40, 12, Some(7), 112)
        );
    }
}
