//! The recorded Chat Completions streams, normalized to the corpus shape.

use crate::corpus;
use pi_ai::AssistantMessage;
use serde_json::{Value, json};

/// Back to the provider's raw numbers: `input` includes cache reads and writes again.
fn normalize(m: &AssistantMessage) -> Value {
    let u = &m.usage;
    let usage = if u.input + u.output + u.cache_read + u.cache_write + u.total_tokens == 0 {
        Value::Null
    } else {
        json!({
            "input": u.input + u.cache_read + u.cache_write,
            "output": u.output,
            "cacheRead": u.cache_read,
            "cacheWrite": u.cache_write,
            "reasoning": u.reasoning.unwrap_or(0),
            "total": u.total_tokens,
        })
    };
    let tool_calls: Vec<Value> = m
        .tool_calls()
        .map(|c| json!({"id": c.id, "name": c.name, "arguments": c.arguments}))
        .collect();
    let mut out = json!({
        "text": corpus::joined_text(m),
        "thinking": corpus::joined_thinking(m, ""),
        "toolCalls": tool_calls,
        "stopReason": m.raw_stop_reason,
        "usage": usage,
        "error": m.error_message,
    });
    if let Some(refusal) = &m.refusal {
        out["refusal"] = json!(refusal);
    }
    out
}

#[test]
fn corpus_openai_completions() {
    corpus::run_corpus("openai-completions", normalize);
}
