//! Responses stream decoding. Items are built from `response.output_item.added`, their deltas
//! and `response.output_item.done`; the final item of `output_item.done` is authoritative
//! (`response.completed.output` is not used: some servers send it empty or re-encrypted).

use super::wire;
use crate::event::MessageBuilder;
use crate::protocol::{Decoder, StreamError};
use crate::providers::excerpt;
use crate::providers::lenient;
use crate::sse::SseEvent;
use crate::types::{AssistantBlock, StopReason, Usage};
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ItemKind {
    Reasoning,
    Message,
    FunctionCall,
    Other,
}

#[derive(Debug)]
struct Item {
    id: String,
    output_index: Option<u64>,
    kind: ItemKind,
    /// Content index of the item's block, once it has one (message text starts lazily).
    block: Option<usize>,
    /// Summary part of the last reasoning delta, to separate parts with a blank line.
    summary_part: Option<u64>,
    /// Refusal text streamed for this item.
    refusal_streamed: bool,
}

#[derive(Debug)]
enum Terminal {
    Completed,
    Incomplete(String),
    Failed(String),
}

#[derive(Default)]
pub(crate) struct ResponsesDecoder {
    items: Vec<Item>,
    terminal: Option<Terminal>,
}

impl Decoder for ResponsesDecoder {
    fn on_event(&mut self, event: &SseEvent, out: &mut MessageBuilder) -> Result<(), StreamError> {
        let data = event.data.trim();
        if self.terminal.is_some() || data.is_empty() || data == "[DONE]" {
            return Ok(());
        }
        let malformed = |e: serde_json::Error| {
            StreamError::Malformed(format!("{e} in event {}", excerpt(data)))
        };
        // Deltas, the bulk of a stream, are read typed and borrowed; the few item and
        // response events are read as a `Value`.
        let mut slot = None;
        let head: wire::Event = lenient::parse(data, &mut slot).map_err(malformed)?;
        let kind = head.kind.get().unwrap_or(event.event.as_str());
        let whole = || serde_json::from_str::<Value>(data).map_err(malformed);
        match kind {
            "error" => return Err(StreamError::Provider(error_text(&whole()?))),
            "response.created" | "response.in_progress" => {
                out.start();
                read_response(whole()?.get("response"), out);
            }
            "response.output_item.added" => self.item_added(&whole()?, out),
            "response.output_item.done" => self.item_done(&whole()?, out),
            "response.reasoning_summary_text.delta" => self.summary_delta(&head, out),
            // Raw reasoning (gpt-oss behind vLLM, Ollama, LM Studio) streams like a summary.
            "response.reasoning_text.delta" => self.summary_delta(&head, out),
            "response.output_text.delta" => self.text_delta(&head, out),
            "response.refusal.delta" => self.refusal_delta(&head, out),
            "response.function_call_arguments.delta" => self.args_delta(&head, out),
            "response.completed" | "response.incomplete" | "response.failed" => {
                self.on_terminal(kind, whole()?.get("response"), out);
            }
            _ => {}
        }
        Ok(())
    }

    fn finish(&mut self, _out: &mut MessageBuilder) -> Result<StopReason, StreamError> {
        let status = match &self.terminal {
            None => {
                return Err(StreamError::Incomplete(
                    "no response.completed, response.incomplete or response.failed event".into(),
                ));
            }
            Some(Terminal::Completed) => return Ok(StopReason::Stop),
            Some(Terminal::Incomplete(reason)) if reason == "max_output_tokens" => {
                return Ok(StopReason::Length);
            }
            Some(Terminal::Incomplete(reason)) => format!("The response is incomplete: {reason}"),
            Some(Terminal::Failed(message)) => message.clone(),
        };
        Err(StreamError::Provider(status))
    }
}

impl ResponsesDecoder {
    fn find(&self, value: &Value) -> Option<usize> {
        let id = value
            .get("item_id")
            .or_else(|| value.get("item").and_then(|i| i.get("id")))
            .and_then(Value::as_str);
        self.position(id, value.get("output_index").and_then(Value::as_u64))
    }

    fn find_for(&self, event: &wire::Event) -> Option<usize> {
        self.position(event.item_id(), event.output_index.0)
    }

    /// The item with this id, else the one at this output index.
    fn position(&self, id: Option<&str>, output_index: Option<u64>) -> Option<usize> {
        self.items
            .iter()
            .position(|i| id.is_some_and(|id| !id.is_empty() && i.id == id))
            .or_else(|| {
                output_index.and_then(|o| self.items.iter().position(|i| i.output_index == Some(o)))
            })
    }

    fn item_added(&mut self, value: &Value, out: &mut MessageBuilder) {
        let Some(item) = value.get("item") else {
            return;
        };
        out.start();
        let kind = match item.get("type").and_then(Value::as_str) {
            Some("reasoning") => ItemKind::Reasoning,
            Some("message") => ItemKind::Message,
            Some("function_call") => ItemKind::FunctionCall,
            _ => ItemKind::Other,
        };
        let block = match kind {
            ItemKind::Reasoning => Some(out.start_thinking(false)),
            ItemKind::FunctionCall => {
                let index = out.start_tool_call(&call_id(item), str_field(item, "name"));
                out.push_tool_args(index, str_field(item, "arguments"));
                Some(index)
            }
            ItemKind::Message | ItemKind::Other => None,
        };
        self.items.push(Item {
            id: str_field(item, "id").to_owned(),
            output_index: value.get("output_index").and_then(Value::as_u64),
            kind,
            block,
            summary_part: None,
            refusal_streamed: false,
        });
    }

    fn item_done(&mut self, value: &Value, out: &mut MessageBuilder) {
        let Some(item) = value.get("item") else {
            return;
        };
        // A server may skip `output_item.added`: the done item then stands alone.
        let position = match self.find(value) {
            Some(p) => p,
            None => {
                self.item_added(value, out);
                self.items.len() - 1
            }
        };
        let state = &mut self.items[position];
        match state.kind {
            ItemKind::Reasoning => finish_reasoning(state, item, out),
            ItemKind::Message => finish_message(state, item, out),
            ItemKind::FunctionCall => finish_call(state, item, out),
            ItemKind::Other => {}
        }
    }

    fn summary_delta(&mut self, event: &wire::Event, out: &mut MessageBuilder) {
        let Some(state) = self.find_for(event).map(|p| &mut self.items[p]) else {
            return;
        };
        let (Some(index), ItemKind::Reasoning) = (state.block, state.kind) else {
            return;
        };
        if !out.is_open(index) {
            return;
        }
        let part = event
            .summary_index
            .or(event.content_index)
            .and_then(|i| i.0);
        if state.summary_part.is_some() && state.summary_part != part {
            out.push_thinking(index, "\n\n");
        }
        state.summary_part = part;
        out.push_thinking(index, event.delta.or_empty());
    }

    fn text_delta(&mut self, event: &wire::Event, out: &mut MessageBuilder) {
        let Some(state) = self.find_for(event).map(|p| &mut self.items[p]) else {
            return;
        };
        if state.kind != ItemKind::Message {
            return;
        }
        let index = *state.block.get_or_insert_with(|| out.start_text());
        if out.is_open(index) {
            out.push_text(index, event.delta.or_empty());
        }
    }

    fn refusal_delta(&mut self, event: &wire::Event, out: &mut MessageBuilder) {
        if let Some(p) = self.find_for(event) {
            self.items[p].refusal_streamed = true;
        }
        let delta = event.delta.or_empty();
        if !delta.is_empty() {
            out.message_mut()
                .refusal
                .get_or_insert_with(String::new)
                .push_str(delta);
        }
    }

    fn args_delta(&mut self, event: &wire::Event, out: &mut MessageBuilder) {
        let Some(state) = self.find_for(event).map(|p| &self.items[p]) else {
            return;
        };
        if let (Some(index), ItemKind::FunctionCall) = (state.block, state.kind)
            && out.is_open(index)
        {
            out.push_tool_args(index, event.delta.or_empty());
        }
    }

    fn on_terminal(&mut self, kind: &str, response: Option<&Value>, out: &mut MessageBuilder) {
        out.start();
        read_response(response, out);
        let status = response
            .and_then(|r| r.get("status"))
            .and_then(Value::as_str)
            .unwrap_or(match kind {
                "response.completed" => "completed",
                "response.incomplete" => "incomplete",
                _ => "failed",
            });
        out.message_mut().raw_stop_reason = Some(status.to_owned());
        if let Some(usage) = response
            .and_then(|r| r.get("usage"))
            .filter(|u| u.is_object())
        {
            out.message_mut().usage = parse_usage(usage);
        }
        self.terminal = Some(match status {
            "completed" => Terminal::Completed,
            "incomplete" => Terminal::Incomplete(
                response
                    .and_then(|r| r.pointer("/incomplete_details/reason"))
                    .and_then(Value::as_str)
                    .unwrap_or("unknown")
                    .to_owned(),
            ),
            _ => Terminal::Failed(
                response
                    .and_then(|r| r.get("error"))
                    .filter(|e| !e.is_null())
                    .map(error_text)
                    .unwrap_or_else(|| format!("The response ended with status {status}")),
            ),
        });
    }
}

fn finish_reasoning(state: &mut Item, item: &Value, out: &mut MessageBuilder) {
    let Some(index) = state.block else {
        return;
    };
    let texts = |key: &str| -> Vec<&str> {
        item.get(key)
            .and_then(Value::as_array)
            .map(|parts| parts.iter().map(|p| str_field(p, "text")).collect())
            .unwrap_or_default()
    };
    let summary = texts("summary");
    // Without a summary, raw reasoning text (open-weight servers) is the thinking.
    let full = if summary.is_empty() {
        texts("content").join("\n\n")
    } else {
        summary.join("\n\n")
    };
    let streamed = match out.message().content.get(index) {
        Some(AssistantBlock::Thinking(t)) => t.thinking.clone(),
        _ => String::new(),
    };
    if out.is_open(index) {
        push_rest(&streamed, &full, |rest| out.push_thinking(index, rest));
    }
    // The whole item is the signature: replaying it needs id, summary and encrypted content.
    out.set_thinking_signature(index, item.to_string());
    out.end_block(index);
}

fn finish_message(state: &mut Item, item: &Value, out: &mut MessageBuilder) {
    let parts = item
        .get("content")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let text: String = parts
        .iter()
        .filter(|p| p.get("type").and_then(Value::as_str) == Some("output_text"))
        .map(|p| str_field(p, "text"))
        .collect();
    if !state.refusal_streamed {
        for part in parts
            .iter()
            .filter(|p| p.get("type").and_then(Value::as_str) == Some("refusal"))
        {
            let refusal = str_field(part, "refusal");
            if !refusal.is_empty() {
                out.message_mut()
                    .refusal
                    .get_or_insert_with(String::new)
                    .push_str(refusal);
            }
        }
    }
    if state.block.is_none() && !text.is_empty() {
        state.block = Some(out.start_text());
    }
    let Some(index) = state.block else {
        return;
    };
    let streamed = match out.message().content.get(index) {
        Some(AssistantBlock::Text(t)) => t.text.clone(),
        _ => String::new(),
    };
    if out.is_open(index) {
        push_rest(&streamed, &text, |rest| out.push_text(index, rest));
    }
    if !state.id.is_empty() {
        out.set_text_signature(index, state.id.clone());
    }
    out.end_block(index);
}

fn finish_call(state: &mut Item, item: &Value, out: &mut MessageBuilder) {
    let Some(index) = state.block else {
        return;
    };
    let id = call_id(item);
    if id != "|" {
        out.set_tool_call_id(index, &id);
    }
    let name = str_field(item, "name");
    if !name.is_empty() {
        out.set_tool_call_name(index, name);
    }
    if let Some(args) = item.get("arguments").and_then(Value::as_str) {
        let streamed = out.tool_args(index).to_owned();
        if args.starts_with(&streamed) {
            push_rest(&streamed, args, |rest| out.push_tool_args(index, rest));
        } else {
            // The done event is authoritative; `toolcall_end` carries the corrected call.
            out.set_tool_args(index, args);
        }
    }
    out.end_block(index);
}

/// Streams the part of `full` not yet streamed. When the two disagree the streamed text stays:
/// events already sent cannot be taken back.
fn push_rest(streamed: &str, full: &str, mut push: impl FnMut(&str)) {
    match full.strip_prefix(streamed) {
        Some(rest) => push(rest),
        None => {
            tracing::debug!("final item text differs from the streamed deltas; kept the deltas")
        }
    }
}

/// pi's tool-call id for a function_call item: `{call_id}|{item_id}`.
fn call_id(item: &Value) -> String {
    format!("{}|{}", str_field(item, "call_id"), str_field(item, "id"))
}

fn str_field<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or("")
}

fn read_response(response: Option<&Value>, out: &mut MessageBuilder) {
    let Some(response) = response else {
        return;
    };
    let message = out.message_mut();
    if let Some(id) = response
        .get("id")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
    {
        message.response_id = Some(id.to_owned());
    }
    if let Some(model) = response
        .get("model")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
    {
        message.response_model = Some(model.to_owned());
    }
}

fn error_text(error: &Value) -> String {
    error
        .get("message")
        .and_then(Value::as_str)
        .or_else(|| error.pointer("/error/message").and_then(Value::as_str))
        .map(str::to_owned)
        .unwrap_or_else(|| error.to_string())
}

/// Usage in pi's convention: `input` leaves out the cached tokens.
fn parse_usage(usage: &Value) -> Usage {
    let n = |pointer: &str| usage.pointer(pointer).and_then(Value::as_u64);
    let cache_read = n("/input_tokens_details/cached_tokens").unwrap_or(0);
    Usage {
        input: n("/input_tokens").unwrap_or(0).saturating_sub(cache_read),
        output: n("/output_tokens").unwrap_or(0),
        cache_read,
        cache_write: 0,
        total_tokens: n("/total_tokens").unwrap_or(0),
        cost: Default::default(),
        reasoning: n("/output_tokens_details/reasoning_tokens"),
    }
}

#[cfg(test)]
mod tests {
    use crate::protocol::decode_chunks;
    use crate::providers::openai_completions::compat::tests::model;
    use crate::providers::openai_responses::OpenAiResponses;
    use crate::types::{AssistantMessage, StopReason};

    fn decode(body: &str) -> AssistantMessage {
        let mut m = model("openai", "https://api.openai.com/v1");
        m.api = "openai-responses".into();
        decode_chunks(&OpenAiResponses, &m, body.as_bytes().chunks(5)).1
    }

    fn ev(json: &str) -> String {
        format!("data: {json}\n\n")
    }

    fn text_prefix() -> String {
        [
            ev(r#"{"type":"response.created","response":{"id":"resp_1","model":"gpt-x","status":"in_progress"}}"#),
            ev(r#"{"type":"response.output_item.added","output_index":0,"item":{"type":"message","id":"msg_1","content":[]}}"#),
            ev(r#"{"type":"response.output_text.delta","output_index":0,"item_id":"msg_1","delta":"Hel"}"#),
        ]
        .concat()
    }

    #[test]
    fn text_item_gets_its_signature() {
        let body = text_prefix()
            + &ev(
                r#"{"type":"response.output_item.done","output_index":0,"item":{"type":"message","id":"msg_1","content":[{"type":"output_text","text":"Hello"}]}}"#,
            )
            + &ev(
                r#"{"type":"response.completed","response":{"id":"resp_1","status":"completed","usage":{"input_tokens":10,"input_tokens_details":{"cached_tokens":4},"output_tokens":2,"total_tokens":12}}}"#,
            );
        let m = decode(&body);
        assert_eq!(m.text(), "Hello", "done item completes the text");
        assert_eq!(m.stop_reason, StopReason::Stop);
        assert_eq!(
            (m.usage.input, m.usage.cache_read, m.usage.total_tokens),
            (6, 4, 12)
        );
        assert_eq!(m.response_id.as_deref(), Some("resp_1"));
        match &m.content[0] {
            crate::types::AssistantBlock::Text(t) => {
                assert_eq!(t.text_signature.as_deref(), Some("msg_1"))
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn truncated_stream_is_incomplete() {
        let m = decode(&text_prefix());
        assert_eq!(m.stop_reason, StopReason::Error);
        assert_eq!(m.text(), "Hel");
        assert!(
            m.error_message
                .unwrap_or_default()
                .contains("response.completed")
        );
    }

    #[test]
    fn malformed_json() {
        let m = decode(&(text_prefix() + "data: {\"type\": nope}\n\n"));
        assert_eq!(m.stop_reason, StopReason::Error);
        assert!(
            m.error_message
                .unwrap_or_default()
                .starts_with("malformed response stream")
        );
    }

    #[test]
    fn error_event_keeps_partial_text() {
        let m = decode(
            &(text_prefix() + &ev(r#"{"type":"error","code":"server_error","message":"boom"}"#)),
        );
        assert_eq!(m.stop_reason, StopReason::Error);
        assert_eq!(m.error_message.as_deref(), Some("boom"));
        assert_eq!(m.text(), "Hel");
    }

    #[test]
    fn incomplete_for_length_and_other_reasons() {
        let length = text_prefix()
            + &ev(
                r#"{"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"}}}"#,
            );
        let m = decode(&length);
        assert_eq!(m.stop_reason, StopReason::Length);
        assert_eq!(m.raw_stop_reason.as_deref(), Some("incomplete"));
        assert_eq!(m.text(), "Hel");
        let filtered = text_prefix()
            + &ev(
                r#"{"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"content_filter"}}}"#,
            );
        let m = decode(&filtered);
        assert_eq!(m.stop_reason, StopReason::Error);
        assert!(
            m.error_message
                .unwrap_or_default()
                .contains("content_filter")
        );
    }

    #[test]
    fn failed_response_reports_its_error() {
        let body = text_prefix()
            + &ev(
                r#"{"type":"response.failed","response":{"status":"failed","error":{"code":"x","message":"it broke"}}}"#,
            );
        let m = decode(&body);
        assert_eq!(m.stop_reason, StopReason::Error);
        assert_eq!(m.error_message.as_deref(), Some("it broke"));
        assert_eq!(m.raw_stop_reason.as_deref(), Some("failed"));
    }

    #[test]
    fn reasoning_parts_are_joined_and_the_item_is_the_signature() {
        let body = [
            ev(r#"{"type":"response.output_item.added","output_index":0,"item":{"type":"reasoning","id":"rs_1","summary":[]}}"#),
            ev(r#"{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","summary_index":0,"delta":"one"}"#),
            ev(r#"{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","summary_index":1,"delta":"two"}"#),
            ev(r#"{"type":"response.output_item.done","output_index":0,"item":{"type":"reasoning","id":"rs_1","encrypted_content":"E","summary":[{"type":"summary_text","text":"one"},{"type":"summary_text","text":"two"}]}}"#),
            ev(r#"{"type":"response.completed","response":{"status":"completed"}}"#),
        ]
        .concat();
        let m = decode(&body);
        match &m.content[..] {
            [crate::types::AssistantBlock::Thinking(t)] => {
                assert_eq!(t.thinking, "one\n\ntwo");
                let item: serde_json::Value =
                    serde_json::from_str(t.thinking_signature.as_deref().unwrap_or(""))
                        .unwrap_or_default();
                assert_eq!(item["id"], "rs_1");
                assert_eq!(item["encrypted_content"], "E");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn function_call_id_joins_call_and_item() {
        let body = [
            ev(r#"{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"read","arguments":""}}"#),
            ev(r#"{"type":"response.function_call_arguments.delta","output_index":0,"item_id":"fc_1","delta":"{\"a\":"}"#),
            ev(r#"{"type":"response.output_item.done","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"read","arguments":"{\"a\":1}"}}"#),
            ev(r#"{"type":"response.completed","response":{"status":"completed"}}"#),
        ]
        .concat();
        let m = decode(&body);
        assert_eq!(m.stop_reason, StopReason::ToolUse);
        let call = m.tool_calls().next().cloned().unwrap_or_default();
        assert_eq!(call.id, "call_1|fc_1");
        assert_eq!(call.arguments, serde_json::json!({"a": 1}));
    }
}
