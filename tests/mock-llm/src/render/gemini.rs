//! Gemini `streamGenerateContent?alt=sse`: `data:` GenerateContentResponse chunks; the last one
//! carries `finishReason` and `usageMetadata`.

use super::{SseEvent, sse};
use crate::turn::{Block, Stop, Turn};
use serde_json::{Value, json};

fn chunk(parts: Vec<Value>, finish: Option<&str>, usage: Option<Value>) -> SseEvent {
    let mut candidate = json!({"content": {"role": "model", "parts": parts}, "index": 0});
    if let Some(reason) = finish {
        candidate["finishReason"] = json!(reason);
    }
    let mut data = json!({
        "candidates": [candidate],
        "modelVersion": "mock-model",
        "responseId": "mock-response-1",
    });
    if let Some(usage) = usage {
        data["usageMetadata"] = usage;
    }
    sse(None, &data)
}

pub fn render(turn: &Turn) -> Vec<SseEvent> {
    let mut parts: Vec<Value> = Vec::new();
    for block in turn.blocks() {
        match block {
            Block::Thinking { text, .. } => {
                for piece in turn.pieces(text) {
                    parts.push(json!({"text": piece, "thought": true}));
                }
            }
            Block::Text(text) => {
                for piece in turn.pieces(text) {
                    parts.push(json!({"text": piece}));
                }
            }
            Block::ToolCall {
                id,
                name,
                arguments,
            } => {
                parts.push(json!({"functionCall": {"id": id, "name": name, "args": arguments}}));
            }
        }
    }
    // Gemini puts the finish reason and the final usage on the last content chunk.
    let last = parts.pop().unwrap_or_else(|| json!({"text": ""}));
    let mut out: Vec<SseEvent> = parts
        .into_iter()
        .map(|p| chunk(vec![p], None, None))
        .collect();
    let finish = match turn.stop_reason() {
        Stop::Length => "MAX_TOKENS",
        Stop::End | Stop::ToolUse => "STOP",
    };
    out.push(chunk(vec![last], Some(finish), Some(usage(turn))));
    out
}

/// Gemini counts cached tokens inside `promptTokenCount`.
fn usage(turn: &Turn) -> Value {
    let u = turn.usage;
    let prompt = u.input + u.cache_read + u.cache_write;
    let mut usage = json!({
        "promptTokenCount": prompt,
        "candidatesTokenCount": u.output,
        "totalTokenCount": prompt + u.output,
    });
    if u.cache_read > 0 {
        usage["cachedContentTokenCount"] = json!(u.cache_read);
    }
    usage
}
