//! OpenAI Responses: `response.created`, output items with their part and delta events,
//! `response.completed` (or `response.incomplete`) carrying the usage.

use super::{SseEvent, sse};
use crate::turn::{Block, Stop, Turn};
use serde_json::{Value, json};

/// Numbers the events as the real API does (`sequence_number`).
struct Out {
    events: Vec<SseEvent>,
    seq: u64,
}

impl Out {
    fn push(&mut self, kind: &str, mut data: Value) {
        data["type"] = json!(kind);
        data["sequence_number"] = json!(self.seq);
        self.seq += 1;
        self.events.push(sse(Some(kind), &data));
    }
}

fn response(status: &str, output: Value, usage: Value, incomplete: Value) -> Value {
    json!({
        "id": "resp_mock_1", "object": "response", "created_at": 1_700_000_000,
        "status": status, "error": null, "incomplete_details": incomplete,
        "model": "mock-model", "output": output, "usage": usage,
    })
}

pub fn render(turn: &Turn) -> Vec<SseEvent> {
    let mut out = Out {
        events: Vec::new(),
        seq: 0,
    };
    let empty = response("in_progress", json!([]), Value::Null, Value::Null);
    out.push("response.created", json!({"response": empty.clone()}));
    out.push("response.in_progress", json!({"response": empty}));
    let mut items = Vec::new();
    for (index, block) in turn.blocks().enumerate() {
        let item = match block {
            Block::Thinking { text, .. } => reasoning(turn, &mut out, index, text),
            Block::Text(text) => message(turn, &mut out, index, text),
            Block::ToolCall {
                id,
                name,
                arguments,
            } => function_call(turn, &mut out, index, id, name, &arguments.to_string()),
        };
        items.push(item);
    }
    let (kind, status, incomplete) = match turn.stop_reason() {
        Stop::Length => (
            "response.incomplete",
            "incomplete",
            json!({"reason": "max_output_tokens"}),
        ),
        Stop::End | Stop::ToolUse => ("response.completed", "completed", Value::Null),
    };
    let done = response(status, json!(items), usage(turn), incomplete);
    out.push(kind, json!({"response": done}));
    out.events
}

fn reasoning(turn: &Turn, out: &mut Out, index: usize, text: &str) -> Value {
    let id = format!("rs_mock_{index}");
    let encrypted = format!("enc_mock_{index}");
    let added =
        json!({"id": id, "type": "reasoning", "summary": [], "encrypted_content": encrypted});
    out.push(
        "response.output_item.added",
        json!({"output_index": index, "item": added}),
    );
    let part = |text: &str| json!({"type": "summary_text", "text": text});
    let at = json!({"item_id": id, "output_index": index, "summary_index": 0});
    let with = |extra: Value| merge(&at, extra);
    out.push(
        "response.reasoning_summary_part.added",
        with(json!({"part": part("")})),
    );
    for piece in turn.pieces(text) {
        out.push(
            "response.reasoning_summary_text.delta",
            with(json!({"delta": piece})),
        );
    }
    out.push(
        "response.reasoning_summary_text.done",
        with(json!({"text": text})),
    );
    out.push(
        "response.reasoning_summary_part.done",
        with(json!({"part": part(text)})),
    );
    let done = json!({
        "id": id, "type": "reasoning", "summary": [part(text)], "encrypted_content": encrypted
    });
    out.push(
        "response.output_item.done",
        json!({"output_index": index, "item": done.clone()}),
    );
    done
}

fn message(turn: &Turn, out: &mut Out, index: usize, text: &str) -> Value {
    let id = format!("msg_mock_{index}");
    let item = |status: &str, content: Value| json!({"id": id, "type": "message", "role": "assistant", "status": status, "content": content});
    let part = |text: &str| json!({"type": "output_text", "text": text, "annotations": []});
    out.push(
        "response.output_item.added",
        json!({"output_index": index, "item": item("in_progress", json!([]))}),
    );
    let at = json!({"item_id": id, "output_index": index, "content_index": 0});
    let with = |extra: Value| merge(&at, extra);
    out.push(
        "response.content_part.added",
        with(json!({"part": part("")})),
    );
    for piece in turn.pieces(text) {
        out.push(
            "response.output_text.delta",
            with(json!({"delta": piece, "logprobs": []})),
        );
    }
    out.push(
        "response.output_text.done",
        with(json!({"text": text, "logprobs": []})),
    );
    out.push(
        "response.content_part.done",
        with(json!({"part": part(text)})),
    );
    let done = item("completed", json!([part(text)]));
    out.push(
        "response.output_item.done",
        json!({"output_index": index, "item": done.clone()}),
    );
    done
}

fn function_call(
    turn: &Turn,
    out: &mut Out,
    index: usize,
    call_id: &str,
    name: &str,
    args: &str,
) -> Value {
    let id = format!("fc_mock_{index}");
    let item = |status: &str, arguments: &str| {
        json!({
            "id": id, "type": "function_call", "status": status,
            "call_id": call_id, "name": name, "arguments": arguments
        })
    };
    out.push(
        "response.output_item.added",
        json!({"output_index": index, "item": item("in_progress", "")}),
    );
    let at = json!({"item_id": id, "output_index": index});
    for piece in turn.pieces(args) {
        out.push(
            "response.function_call_arguments.delta",
            merge(&at, json!({"delta": piece})),
        );
    }
    out.push(
        "response.function_call_arguments.done",
        merge(&at, json!({"arguments": args})),
    );
    let done = item("completed", args);
    out.push(
        "response.output_item.done",
        json!({"output_index": index, "item": done.clone()}),
    );
    done
}

fn merge(base: &Value, extra: Value) -> Value {
    let mut merged = base.clone();
    if let (Some(target), Value::Object(fields)) = (merged.as_object_mut(), extra) {
        target.extend(fields);
    }
    merged
}

/// Responses counts cached tokens inside `input_tokens`.
fn usage(turn: &Turn) -> Value {
    let u = turn.usage;
    let input = u.input + u.cache_read + u.cache_write;
    json!({
        "input_tokens": input,
        "input_tokens_details": {"cached_tokens": u.cache_read},
        "output_tokens": u.output,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": input + u.output
    })
}
