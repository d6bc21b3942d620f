//! Anthropic Messages: `message_start`, content blocks, `message_delta`, `message_stop`.

use super::{SseEvent, sse};
use crate::turn::{Block, Stop, Turn};
use serde_json::{Value, json};

pub fn render(turn: &Turn) -> Vec<SseEvent> {
    let u = turn.usage;
    let mut out = vec![sse(
        Some("message_start"),
        &json!({
            "type": "message_start",
            "message": {
                "id": "msg_mock_1", "type": "message", "role": "assistant",
                "model": "mock-model", "content": [],
                "stop_reason": null, "stop_sequence": null,
                "usage": {
                    "input_tokens": u.input,
                    "cache_creation_input_tokens": u.cache_write,
                    "cache_read_input_tokens": u.cache_read,
                    "output_tokens": 1,
                    "service_tier": "standard"
                }
            }
        }),
    )];
    for (index, block) in turn.blocks().enumerate() {
        render_block(turn, index, block, &mut out);
        if index == 0 {
            out.push(sse(Some("ping"), &json!({"type": "ping"})));
        }
    }
    let stop = match turn.stop_reason() {
        Stop::End => "end_turn",
        Stop::Length => "max_tokens",
        Stop::ToolUse => "tool_use",
    };
    out.push(sse(
        Some("message_delta"),
        &json!({
            "type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": null},
            "usage": {
                "input_tokens": u.input,
                "cache_creation_input_tokens": u.cache_write,
                "cache_read_input_tokens": u.cache_read,
                "output_tokens": u.output
            }
        }),
    ));
    out.push(sse(Some("message_stop"), &json!({"type": "message_stop"})));
    out
}

fn render_block(turn: &Turn, index: usize, block: &Block, out: &mut Vec<SseEvent>) {
    let delta = |delta: Value| {
        sse(
            Some("content_block_delta"),
            &json!({"type": "content_block_delta", "index": index, "delta": delta}),
        )
    };
    let start = match block {
        Block::Thinking { .. } => json!({"type": "thinking", "thinking": "", "signature": ""}),
        Block::Text(_) => json!({"type": "text", "text": ""}),
        Block::ToolCall { id, name, .. } => {
            json!({"type": "tool_use", "id": id, "name": name, "input": {}})
        }
    };
    out.push(sse(
        Some("content_block_start"),
        &json!({"type": "content_block_start", "index": index, "content_block": start}),
    ));
    match block {
        Block::Thinking { text, signature } => {
            for piece in turn.pieces(text) {
                out.push(delta(json!({"type": "thinking_delta", "thinking": piece})));
            }
            out.push(delta(
                json!({"type": "signature_delta", "signature": signature}),
            ));
        }
        Block::Text(text) => {
            for piece in turn.pieces(text) {
                out.push(delta(json!({"type": "text_delta", "text": piece})));
            }
        }
        Block::ToolCall { arguments, .. } => {
            out.push(delta(
                json!({"type": "input_json_delta", "partial_json": ""}),
            ));
            for piece in turn.pieces(&arguments.to_string()) {
                out.push(delta(
                    json!({"type": "input_json_delta", "partial_json": piece}),
                ));
            }
        }
    }
    out.push(sse(
        Some("content_block_stop"),
        &json!({"type": "content_block_stop", "index": index}),
    ));
}
