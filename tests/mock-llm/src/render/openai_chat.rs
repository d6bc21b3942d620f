//! OpenAI Chat Completions: `chat.completion.chunk` deltas, a finish chunk, a usage chunk,
//! `[DONE]`.

use super::{SseEvent, sse, sse_raw};
use crate::turn::{Block, Stop, Turn};
use serde_json::{Value, json};

fn chunk(choices: Value, usage: Value) -> SseEvent {
    sse(
        None,
        &json!({
            "id": "chatcmpl-mock-1",
            "object": "chat.completion.chunk",
            "created": 1_700_000_000,
            "model": "mock-model",
            "system_fingerprint": "fp_mock",
            "choices": choices,
            "usage": usage,
        }),
    )
}

fn delta(delta: Value) -> SseEvent {
    chunk(
        json!([{"index": 0, "delta": delta, "logprobs": null, "finish_reason": null}]),
        Value::Null,
    )
}

pub fn render(turn: &Turn) -> Vec<SseEvent> {
    let mut out = vec![delta(
        json!({"role": "assistant", "content": "", "refusal": null}),
    )];
    let mut tool_index = 0;
    for block in turn.blocks() {
        match block {
            Block::Thinking { text, .. } => {
                for piece in turn.pieces(text) {
                    out.push(delta(json!({"content": null, "reasoning_content": piece})));
                }
            }
            Block::Text(text) => {
                for piece in turn.pieces(text) {
                    out.push(delta(json!({"content": piece})));
                }
            }
            Block::ToolCall {
                id,
                name,
                arguments,
            } => {
                out.push(delta(json!({"tool_calls": [{
                    "index": tool_index, "id": id, "type": "function",
                    "function": {"name": name, "arguments": ""}
                }]})));
                for piece in turn.pieces(&arguments.to_string()) {
                    out.push(delta(json!({"tool_calls": [{
                        "index": tool_index, "function": {"arguments": piece}
                    }]})));
                }
                tool_index += 1;
            }
        }
    }
    let finish = match turn.stop_reason() {
        Stop::End => "stop",
        Stop::Length => "length",
        Stop::ToolUse => "tool_calls",
    };
    out.push(chunk(
        json!([{"index": 0, "delta": {}, "logprobs": null, "finish_reason": finish}]),
        Value::Null,
    ));
    out.push(chunk(json!([]), usage(turn)));
    out.push(sse_raw("[DONE]"));
    out
}

/// OpenAI counts cached (and, for OpenRouter, cache-written) tokens inside `prompt_tokens`.
fn usage(turn: &Turn) -> Value {
    let u = turn.usage;
    let prompt = u.input + u.cache_read + u.cache_write;
    let mut details = json!({"cached_tokens": u.cache_read, "audio_tokens": 0});
    if u.cache_write > 0 {
        details["cache_write_tokens"] = json!(u.cache_write);
    }
    json!({
        "prompt_tokens": prompt,
        "completion_tokens": u.output,
        "total_tokens": prompt + u.output,
        "prompt_tokens_details": details,
        "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0}
    })
}
