//! The recorded Responses streams, normalized to the corpus shape.

use crate::corpus;
use pi_ai::{AssistantBlock, AssistantMessage, StopReason};
use serde_json::{Value, json};

/// The `encrypted_content` of the last reasoning item that has one (the thinking signature is
/// the whole item as JSON).
fn encrypted_content(m: &AssistantMessage) -> Option<String> {
    m.content
        .iter()
        .filter_map(|b| match b {
            AssistantBlock::Thinking(t) => t.thinking_signature.as_deref(),
            _ => None,
        })
        .filter_map(|s| serde_json::from_str::<Value>(s).ok())
        .filter_map(|item| item.get("encrypted_content")?.as_str().map(str::to_owned))
        .next_back()
}

fn incomplete_reason(m: &AssistantMessage) -> Option<String> {
    if m.raw_stop_reason.as_deref() != Some("incomplete") {
        return None;
    }
    if m.stop_reason == StopReason::Length {
        return Some("max_output_tokens".into());
    }
    let error = m.error_message.as_deref()?;
    error.rsplit_once(": ").map(|(_, reason)| reason.to_owned())
}

fn normalize(m: &AssistantMessage) -> Value {
    let u = &m.usage;
    let usage = if u.input + u.output + u.cache_read + u.total_tokens == 0 {
        Value::Null
    } else {
        json!({
            "input": u.input + u.cache_read,
            "output": u.output,
            "cacheRead": u.cache_read,
            "cacheWrite": Value::Null,
            "reasoning": u.reasoning.unwrap_or(0),
            "total": u.total_tokens,
        })
    };
    let tool_calls: Vec<Value> = m
        .tool_calls()
        .map(|c| {
            let (id, item) = c.id.split_once('|').unwrap_or((c.id.as_str(), ""));
            json!({"id": id, "name": c.name, "arguments": c.arguments, "itemId": item})
        })
        .collect();
    let thinking: Vec<&str> = m
        .content
        .iter()
        .filter_map(|b| match b {
            AssistantBlock::Thinking(t) if !t.thinking.is_empty() => Some(t.thinking.as_str()),
            _ => None,
        })
        .collect();
    let mut out = json!({
        "text": corpus::joined_text(m),
        "thinking": thinking.join("\n\n"),
        "toolCalls": tool_calls,
        "stopReason": m.raw_stop_reason,
        "usage": usage,
        "error": if m.stop_reason == StopReason::Error { json!(m.error_message) } else { Value::Null },
    });
    if let Some(signature) = encrypted_content(m) {
        out["thinkingSignature"] = json!(signature);
    }
    if let Some(refusal) = &m.refusal {
        out["refusal"] = json!(refusal);
    }
    if let Some(reason) = incomplete_reason(m) {
        out["incompleteReason"] = json!(reason);
    }
    out
}

#[test]
fn corpus_openai_responses() {
    corpus::run_corpus("openai-responses", normalize);
}
