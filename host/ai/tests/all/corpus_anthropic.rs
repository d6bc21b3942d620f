//! The Anthropic Messages corpus: our decoded message, mapped back to the corpus shape.

use crate::corpus;
use pi_ai::{AssistantBlock, AssistantMessage};
use serde_json::{Map, Value, json};

/// pi's message → the corpus's normalized shape (tests/fixtures/streams/README.md).
fn normalize(m: &AssistantMessage) -> Value {
    let mut out = Map::new();
    out.insert("text".into(), json!(corpus::joined_text(m)));
    out.insert("thinking".into(), json!(corpus::joined_thinking(m, "")));
    let thinking = || {
        m.content.iter().filter_map(|b| match b {
            AssistantBlock::Thinking(t) => Some(t),
            _ => None,
        })
    };
    // The signature of the last (non-redacted) thinking block that has one.
    if let Some(sig) = thinking()
        .filter(|t| t.redacted != Some(true))
        .filter_map(|t| t.thinking_signature.clone())
        .next_back()
    {
        out.insert("thinkingSignature".into(), json!(sig));
    }
    let redacted: Vec<Value> = thinking()
        .filter(|t| t.redacted == Some(true))
        .map(|t| json!(t.thinking_signature))
        .collect();
    if !redacted.is_empty() {
        out.insert("redactedThinking".into(), Value::Array(redacted));
    }
    let calls: Vec<Value> = m
        .tool_calls()
        .map(|c| json!({"id": c.id, "name": c.name, "arguments": c.arguments}))
        .collect();
    out.insert("toolCalls".into(), Value::Array(calls));
    out.insert("stopReason".into(), json!(m.raw_stop_reason));
    let u = &m.usage;
    // Anthropic's input already excludes the cache; the corpus has no total for Anthropic.
    out.insert(
        "usage".into(),
        json!({
            "input": u.input, "output": u.output, "cacheRead": u.cache_read,
            "cacheWrite": u.cache_write, "reasoning": u.reasoning, "total": null,
        }),
    );
    // `error` is the in-stream error event's text. A refusal also ends as an error in pi, but
    // it arrives as a stop reason, which the corpus reports under `stopReason` only.
    let error = match &m.raw_stop_reason {
        None => m.error_message.clone(),
        Some(_) => None,
    };
    out.insert("error".into(), json!(error));
    Value::Object(out)
}

#[test]
fn anthropic_messages_corpus() {
    corpus::run_corpus("anthropic-messages", normalize);
}
