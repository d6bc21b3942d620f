//! The Gemini corpus: our decoded message, mapped back to the corpus shape.

use crate::corpus;
use pi_ai::providers::google::is_generated_tool_call_id;
use pi_ai::{AssistantBlock, AssistantMessage};
use serde_json::{Map, Value, json};

/// pi's message → the corpus's normalized shape (tests/fixtures/streams/README.md).
fn normalize(m: &AssistantMessage) -> Value {
    let mut out = Map::new();
    out.insert("text".into(), json!(corpus::joined_text(m)));
    out.insert("thinking".into(), json!(corpus::joined_thinking(m, "")));
    // The first signature on a thought or text part; function-call signatures are separate.
    let signature = m.content.iter().find_map(|b| match b {
        AssistantBlock::Thinking(t) => t.thinking_signature.clone(),
        AssistantBlock::Text(t) => t.text_signature.clone(),
        AssistantBlock::ToolCall(_) => None,
    });
    if let Some(sig) = signature {
        out.insert("thinkingSignature".into(), json!(sig));
    }
    let response_id = m.response_id.as_deref();
    let calls: Vec<Value> = m
        .tool_calls()
        .map(|c| {
            // Ids the adapter made up for calls Gemini sent without one are `null` in the
            // corpus; they are recognised by their `{name}_{responseId}_{n}` form.
            let id = (!is_generated_tool_call_id(&c.id, &c.name, response_id)).then_some(&c.id);
            let mut call = json!({"id": id, "name": c.name, "arguments": c.arguments});
            if let Some(sig) = &c.thought_signature {
                call["thoughtSignature"] = json!(sig);
            }
            call
        })
        .collect();
    out.insert("toolCalls".into(), Value::Array(calls));
    out.insert("stopReason".into(), json!(m.raw_stop_reason));
    // Back to Gemini's raw counts: the prompt count includes the cache, the candidates count
    // leaves out the thoughts that pi adds to output.
    let u = &m.usage;
    out.insert(
        "usage".into(),
        json!({
            "input": u.input + u.cache_read,
            "output": u.output - u.reasoning.unwrap_or(0),
            "cacheRead": u.cache_read,
            "cacheWrite": null,
            "reasoning": u.reasoning,
            "total": u.total_tokens,
        }),
    );
    // `error` is an in-stream error chunk's text; a finishReason such as SAFETY also ends as
    // an error in pi, but the corpus reports it under `stopReason` only.
    let error = match &m.raw_stop_reason {
        None => m.error_message.clone(),
        Some(_) => None,
    };
    out.insert("error".into(), json!(error));
    Value::Object(out)
}

#[test]
fn google_generative_ai_corpus() {
    corpus::run_corpus("google-generative-ai", normalize);
}
