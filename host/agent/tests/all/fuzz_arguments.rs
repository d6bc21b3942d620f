//! Property tests of what the loop does with tool-call arguments: validation against a schema
//! (`validate_tool_arguments`) never panics on any arguments or schema and what it accepts it
//! accepts again; and arguments nested 100,000 deep, streamed through the real HTTP and decoder
//! path into the loop, end the run with an error message instead of a crash.

use crate::support::*;
use pi_agent::{AgentEvent, validate_tool_arguments};
use pi_ai::StopReason;
use pi_fuzz::Gen;
use pi_mock_llm::{Api, Reply};
use serde_json::{Value, json};

/// Schemas of the shapes real tools declare.
fn tool_schemas() -> Vec<Value> {
    vec![
        json!({"type": "object", "properties": {
            "path": {"type": "string", "minLength": 1},
            "offset": {"type": "integer", "minimum": 1},
            "limit": {"type": "number", "exclusiveMaximum": 1e6}},
            "required": ["path"], "additionalProperties": false}),
        json!({"type": "object", "properties": {
            "edits": {"type": "array", "minItems": 1, "items": {"type": "object",
                "properties": {"oldText": {"type": "string"}, "newText": {"type": "string"}},
                "required": ["oldText", "newText"]}}}}),
        json!({"type": "object", "properties": {
            "mode": {"enum": ["a", "b", 1, null]},
            "kind": {"const": {"x": [1.0]}},
            "value": {"anyOf": [{"type": "integer"}, {"type": "boolean"}]},
            "pick": {"oneOf": [{"type": "string", "pattern": "^[a-z]+$"}, {"type": "null"}]},
            "both": {"allOf": [{"type": ["number", "string"]}, {"maxLength": 3}]},
            "tuple": {"type": "array", "items": [{"type": "string"}, {"type": "boolean"}],
                "maxItems": 2}},
            "additionalProperties": {"type": "string"}}),
    ]
}

/// Keywords and values a schema mutation draws from.
fn schema_piece(g: &mut Gen) -> (String, Value) {
    let keys = [
        "type",
        "properties",
        "required",
        "items",
        "enum",
        "const",
        "anyOf",
        "oneOf",
        "allOf",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "pattern",
        "additionalProperties",
    ];
    let key = (*g.pick(&keys)).to_owned();
    let value = match g.below(5) {
        0 => json!(*g.pick(&[
            "string", "integer", "number", "boolean", "null", "object", "array"
        ])),
        1 => json!(*g.pick(&["(a|aa)*b", "[", "^\\d+$", "", "\\p{L}"])),
        2 => json!(g.u64()),
        3 => json!(f64::from_bits(g.u64()).to_string()),
        _ => g.json(2),
    };
    (key, value)
}

fn mutate_schema(g: &mut Gen, schema: &mut Value) {
    match schema {
        Value::Object(map) if !map.is_empty() && g.bool() => {
            let keys: Vec<String> = map.keys().cloned().collect();
            let key = g.pick(&keys).clone();
            if let Some(child) = map.get_mut(&key) {
                mutate_schema(g, child);
            }
        }
        Value::Object(map) => {
            let (key, value) = schema_piece(g);
            map.insert(key, value);
        }
        Value::Array(items) if !items.is_empty() => {
            let at = g.below(items.len() - 1);
            mutate_schema(g, &mut items[at]);
        }
        other => *other = schema_piece(g).1,
    }
}

#[test]
fn validation_never_panics_and_accepts_what_it_returned() {
    let schemas = tool_schemas();
    pi_fuzz::run("validate/arguments", 3000, |g| {
        let mut schema = g.pick(&schemas).clone();
        if g.bool() {
            mutate_schema(g, &mut schema);
        }
        let args = match g.below(2) {
            0 => Value::Object(g.json_object(3)),
            1 => g.json(3),
            _ => json!({"path": g.string(5), "offset": g.json(0), "edits": [g.json(1)],
                "mode": g.json(0), "tuple": [g.json(0), g.json(0), g.json(0)]}),
        };
        if let Ok(coerced) = validate_tool_arguments("t", &schema, &args) {
            // Coercion reaches a fixed point: its output validates, unchanged.
            let again = validate_tool_arguments("t", &schema, &coerced);
            assert_eq!(again.as_ref(), Ok(&coerced), "schema {schema}\nargs {args}");
        }
    });
}

/// An Anthropic stream whose one tool call has `{"a":` and 100,000 `[` as arguments, sent in
/// 1,000-byte `input_json_delta`s.
fn deep_tool_call_stream() -> String {
    let mut sse = String::from(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"mock\",\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n\
         event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"echo\",\"input\":{}}}\n\n",
    );
    let arguments = format!("{{\"a\":{}", "[".repeat(100_000));
    for piece in arguments.as_bytes().chunks(1000) {
        let piece = serde_json::to_string(std::str::from_utf8(piece).unwrap()).unwrap();
        sse.push_str(&format!(
            "event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"input_json_delta\",\"partial_json\":{piece}}}}}\n\n"
        ));
    }
    sse.push_str(
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n\
         event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":5}}\n\n\
         event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
    );
    sse
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_arguments_nested_100000_deep_end_the_run_with_an_error() {
    let rig = Rig::build(
        Api::AnthropicMessages,
        Default::default(),
        vec![echo_tool()],
    );
    rig.push(Reply::sse_bytes(deep_tool_call_stream(), 4096));
    rig.prompt("go").await;
    let events = rig.rec.events();
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, AgentEvent::ToolExecutionStart { .. })),
        "the tool must not run"
    );
    let last = rig.last_assistant();
    assert_eq!(last.stop_reason, StopReason::Error);
    let error = last.error_message.unwrap_or_default();
    assert!(error.contains("nest deeper than"), "{error}");
}
