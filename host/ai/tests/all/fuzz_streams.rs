//! Property tests of the stream decoding path: the SSE parser and the four protocol decoders
//! (through `decode_chunks`, the path a real response takes). Inputs are arbitrary bytes and
//! near-valid mutations of the recorded corpus, byte-level and JSON-level. Properties: no
//! panic; the event grammar holds (one terminal event, last; blocks opened and closed once;
//! replaying the events rebuilds the message); cutting the body differently changes nothing.
//! Plus the regression for argument JSON nested 100,000 deep on every protocol.

// Test helpers fail loudly: a broken fixture is a failed test.
#![allow(clippy::unwrap_used)]

use crate::corpus::{self, check_events};
use pi_ai::protocol::decode_chunks;
use pi_ai::sse::{SseEvent, SseParser};
use pi_ai::{AssistantMessage, StopReason};
use pi_fuzz::Gen;
use serde_json::Value;

const APIS: [&str; 4] = [
    "anthropic-messages",
    "openai-completions",
    "openai-responses",
    "google-generative-ai",
];

/// Tokens of the SSE framing and of the protocols' payloads.
const STREAM_TOKENS: &[&str] = &[
    "\n\n",
    "data: ",
    "event: ",
    ": ping\n",
    "[DONE]",
    "\"type\":",
    "\"index\":",
    "99999999999",
    "-1",
    "null",
    "{}",
    "[]",
    "\"\"",
    "content_block_delta",
    "tool_use",
    "input_json_delta",
    "response.output_item.done",
    "function_call",
    "tool_calls",
    "functionCall",
    "finish_reason",
];

fn sse_events(bytes: &[u8], chunks: &[&[u8]]) -> Vec<SseEvent> {
    let mut parser = SseParser::new();
    let mut out = Vec::new();
    for chunk in chunks {
        parser.feed(chunk, &mut |e| out.push(e));
    }
    parser.finish(&mut |e| out.push(e));
    assert!(chunks.concat() == bytes);
    out
}

#[test]
fn sse_chunking_never_changes_the_events() {
    let seeds: Vec<Vec<u8>> = APIS
        .iter()
        .flat_map(|api| corpus::cases(api))
        .map(|c| c.sse)
        .collect();
    pi_fuzz::run("sse/chunking", 800, |g| {
        let bytes = match g.below(2) {
            0 => g.bytes(200),
            1 => g.string_with(60, STREAM_TOKENS).into_bytes(),
            _ => {
                let seed = g.pick(&seeds).clone();
                g.mutate_bytes(&seed)
            }
        };
        let whole = sse_events(&bytes, &[&bytes]);
        let split = sse_events(&bytes, &g.chunks(&bytes));
        assert_eq!(whole, split);
    });
}

/// A corpus case mutated: bytes, text, or one event's JSON payload.
fn mutant(g: &mut Gen, seed: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(seed).into_owned();
    match g.below(3) {
        0 => g.mutate_bytes(seed),
        1 => g.mutate(&text, STREAM_TOKENS).into_bytes(),
        _ => mutate_payload(g, &text).into_bytes(),
    }
}

/// Replaces one `data:` line's JSON with a structurally mutated copy (a field dropped, a
/// value of another type, a number at the edge of its range, a string grown).
fn mutate_payload(g: &mut Gen, text: &str) -> String {
    let lines: Vec<&str> = text.split('\n').collect();
    let data: Vec<usize> = (0..lines.len())
        .filter(|i| lines[*i].starts_with("data: {"))
        .collect();
    if data.is_empty() {
        return text.to_owned();
    }
    let at = *g.pick(&data);
    let Ok(mut value) = serde_json::from_str::<Value>(&lines[at]["data: ".len()..]) else {
        return text.to_owned();
    };
    for _ in 0..=g.below(2) {
        mutate_value(g, &mut value);
    }
    let mut out: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
    out[at] = format!("data: {value}");
    out.join("\n")
}

fn mutate_value(g: &mut Gen, value: &mut Value) {
    match value {
        Value::Object(map) if !map.is_empty() && g.below(3) > 0 => {
            let keys: Vec<String> = map.keys().cloned().collect();
            let key = g.pick(&keys).clone();
            if g.one_in(4) {
                map.remove(&key);
            } else if let Some(child) = map.get_mut(&key) {
                mutate_value(g, child);
            }
        }
        Value::Array(items) if !items.is_empty() && g.below(3) > 0 => {
            let at = g.below(items.len() - 1);
            mutate_value(g, &mut items[at]);
        }
        Value::String(s) if g.bool() => {
            let grown = g.mutate(s, STREAM_TOKENS);
            *s = grown;
        }
        _ => {
            *value = match g.below(5) {
                0 => Value::from(u64::MAX),
                1 => Value::from(-1),
                2 => Value::Null,
                3 => Value::String(g.string(6)),
                _ => g.json(2),
            };
        }
    }
}

fn same_outcome(a: &AssistantMessage, b: &AssistantMessage) -> bool {
    (&a.content, &a.usage, &a.stop_reason, &a.error_message)
        == (&b.content, &b.usage, &b.stop_reason, &b.error_message)
}

#[test]
fn decoders_survive_mutated_and_arbitrary_streams() {
    for api in APIS {
        let protocol = pi_ai::providers::protocol(api).unwrap();
        let model = corpus::test_model(api);
        let seeds: Vec<Vec<u8>> = corpus::cases(api).into_iter().map(|c| c.sse).collect();
        pi_fuzz::run(&format!("decode/{api}"), 500, |g| {
            let bytes = if g.one_in(10) {
                g.string_with(80, STREAM_TOKENS).into_bytes()
            } else {
                let seed = g.pick(&seeds).clone();
                mutant(g, &seed)
            };
            let (events, whole) = decode_chunks(protocol.as_ref(), &model, [bytes.as_slice()]);
            check_events(api, &events, &whole);
            let (events, split) = decode_chunks(protocol.as_ref(), &model, g.chunks(&bytes));
            check_events(api, &events, &split);
            assert!(
                same_outcome(&whole, &split),
                "{api}: chunking changed the message"
            );
        });
    }
}

/// `{"a":` then 100,000 `[`, streamed in 1,000-byte deltas: the shape a hostile or broken
/// server would send. Must end as a clean failure, never a crash.
fn deep_arguments() -> Vec<String> {
    let mut text = String::from("{\"a\":");
    text.push_str(&"[".repeat(100_000));
    text.as_bytes()
        .chunks(1000)
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect()
}

/// `head`, one `frame` per delta (given the delta as a JSON string literal), then `tail`.
fn framed(head: &str, deltas: &[String], frame: impl Fn(&str) -> String, tail: &str) -> String {
    let mut sse = head.to_owned();
    for delta in deltas {
        sse.push_str(&frame(&serde_json::to_string(delta).unwrap()));
    }
    sse.push_str(tail);
    sse
}

fn anthropic_stream(deltas: &[String]) -> String {
    framed(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"test\",\"stop_reason\":null,\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n\
         event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"write\",\"input\":{}}}\n\n",
        deltas,
        |delta| {
            format!(
                "event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"input_json_delta\",\"partial_json\":{delta}}}}}\n\n"
            )
        },
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n\
         event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":5}}\n\n\
         event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
    )
}

fn completions_stream(deltas: &[String]) -> String {
    framed(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"write\",\"arguments\":\"\"}}]}}]}\n\n",
        deltas,
        |delta| {
            format!(
                "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":0,\"function\":{{\"arguments\":{delta}}}}}]}}}}]}}\n\n"
            )
        },
        "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n",
    )
}

fn responses_stream(deltas: &[String]) -> String {
    let whole = serde_json::to_string(&deltas.concat()).unwrap();
    let tail = format!(
        "event: response.output_item.done\ndata: {{\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":{{\"type\":\"function_call\",\"id\":\"fc_1\",\"call_id\":\"call_1\",\"name\":\"write\",\"arguments\":{whole}}}}}\n\n\
         event: response.completed\ndata: {{\"type\":\"response.completed\",\"response\":{{\"status\":\"completed\",\"usage\":{{\"input_tokens\":1,\"output_tokens\":1,\"total_tokens\":2}}}}}}\n\n"
    );
    framed(
        "event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"output_index\":0,\"item\":{\"type\":\"function_call\",\"id\":\"fc_1\",\"call_id\":\"call_1\",\"name\":\"write\",\"arguments\":\"\"}}\n\n",
        deltas,
        |delta| {
            format!(
                "event: response.function_call_arguments.delta\ndata: {{\"type\":\"response.function_call_arguments.delta\",\"output_index\":0,\"item_id\":\"fc_1\",\"delta\":{delta}}}\n\n"
            )
        },
        &tail,
    )
}

/// Google sends a call's arguments as one JSON object inside the event.
fn google_stream() -> String {
    let args = format!("{{\"a\":{}{}}}", "[".repeat(100_000), "]".repeat(100_000));
    format!(
        "data: {{\"candidates\":[{{\"content\":{{\"parts\":[{{\"functionCall\":{{\"name\":\"write\",\"args\":{args}}}}}],\"role\":\"model\"}},\"finishReason\":\"STOP\",\"index\":0}}]}}\n\n"
    )
}

#[test]
fn arguments_nested_100000_deep_fail_cleanly_on_every_protocol() {
    let deltas = deep_arguments();
    let streams = [
        ("anthropic-messages", anthropic_stream(&deltas)),
        ("openai-completions", completions_stream(&deltas)),
        ("openai-responses", responses_stream(&deltas)),
        ("google-generative-ai", google_stream()),
    ];
    for (api, sse) in streams {
        let protocol = pi_ai::providers::protocol(api).unwrap();
        let model = corpus::test_model(api);
        for piece in [sse.len(), 4096] {
            let (events, message) =
                decode_chunks(protocol.as_ref(), &model, sse.as_bytes().chunks(piece));
            check_events(api, &events, &message);
            assert_eq!(message.stop_reason, StopReason::Error, "{api}");
            let error = message.error_message.clone().unwrap_or_default();
            assert!(!error.is_empty(), "{api}");
            if api != "google-generative-ai" {
                assert!(error.contains("nest deeper than"), "{api}: {error}");
            }
        }
    }
}

/// Found by `decoders_survive_mutated_and_arbitrary_streams`: an Anthropic stream that sends
/// more `text_delta`s for a block after its `content_block_stop` produced delta events for a
/// closed block (and changed the text after its `text_end`).
#[test]
fn deltas_after_a_block_closed_are_dropped() {
    let sse = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m1\",\"model\":\"test\",\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n\
        event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n\
        event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"kept\"}}\n\n\
        event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n\
        event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\" late\"}}\n\n\
        event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":2}}\n\n\
        event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
    let api = "anthropic-messages";
    let protocol = pi_ai::providers::protocol(api).unwrap();
    let (events, message) = decode_chunks(
        protocol.as_ref(),
        &corpus::test_model(api),
        [sse.as_bytes()],
    );
    check_events(api, &events, &message);
    assert_eq!(message.text(), "kept");
}

/// Found by `decoders_survive_mutated_and_arbitrary_streams`: token counts near `u64::MAX`
/// overflowed the usage sums (a panic in debug builds, a wrapped total in release).
#[test]
fn token_counts_at_u64_max_saturate() {
    let max = u64::MAX;
    let streams = [
        (
            "google-generative-ai",
            format!(
                "data: {{\"candidates\":[{{\"content\":{{\"parts\":[{{\"text\":\"hi\"}}],\"role\":\"model\"}},\"finishReason\":\"STOP\",\"index\":0}}],\"usageMetadata\":{{\"promptTokenCount\":{max},\"candidatesTokenCount\":{max},\"thoughtsTokenCount\":{max}}}}}\n\n"
            ),
        ),
        (
            "anthropic-messages",
            format!(
                "event: message_start\ndata: {{\"type\":\"message_start\",\"message\":{{\"id\":\"m1\",\"usage\":{{\"input_tokens\":{max},\"output_tokens\":{max},\"cache_read_input_tokens\":{max},\"cache_creation_input_tokens\":{max}}}}}}}\n\n\
                 event: message_delta\ndata: {{\"type\":\"message_delta\",\"delta\":{{\"stop_reason\":\"end_turn\"}}}}\n\n\
                 event: message_stop\ndata: {{\"type\":\"message_stop\"}}\n\n"
            ),
        ),
        (
            "openai-completions",
            format!(
                "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"hi\"}},\"finish_reason\":\"stop\"}}],\"usage\":{{\"prompt_tokens\":{max},\"completion_tokens\":{max},\"prompt_tokens_details\":{{\"cached_tokens\":{max},\"cache_write_tokens\":{max}}}}}}}\n\ndata: [DONE]\n\n"
            ),
        ),
    ];
    for (api, sse) in streams {
        let protocol = pi_ai::providers::protocol(api).unwrap();
        let (events, message) = decode_chunks(
            protocol.as_ref(),
            &corpus::test_model(api),
            [sse.as_bytes()],
        );
        check_events(api, &events, &message);
        assert_eq!(message.usage.total_tokens, u64::MAX, "{api}");
    }
}

/// Found by `decoders_survive_mutated_and_arbitrary_streams` (a longer run): a Responses
/// stream that repeats a reasoning item's `output_item.done` changed the block's signature
/// after its `thinking_end` went out, so the events and the final message disagreed.
#[test]
fn a_repeated_item_done_does_not_change_a_closed_block() {
    let added = r#"{"type":"response.output_item.added","output_index":0,"item":{"type":"reasoning","id":"rs_1","summary":[]}}"#;
    let delta = r#"{"type":"response.reasoning_summary_text.delta","output_index":0,"item_id":"rs_1","summary_index":0,"delta":"think"}"#;
    let done = |content: &str| {
        format!(
            r#"{{"type":"response.output_item.done","output_index":0,"item":{{"type":"reasoning","id":"rs_1","summary":[{{"type":"summary_text","text":"think"}}],"encrypted_content":"{content}"}}}}"#
        )
    };
    let completed = r#"{"type":"response.completed","response":{"status":"completed","usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2}}}"#;
    let sse: String = [
        added.to_owned(),
        delta.to_owned(),
        done("first"),
        done("second"),
        completed.to_owned(),
    ]
    .iter()
    .map(|data| format!("data: {data}\n\n"))
    .collect();
    let api = "openai-responses";
    let protocol = pi_ai::providers::protocol(api).unwrap();
    let (events, message) = decode_chunks(
        protocol.as_ref(),
        &corpus::test_model(api),
        [sse.as_bytes()],
    );
    check_events(api, &events, &message);
    assert_eq!(
        message.stop_reason,
        StopReason::Stop,
        "{:?}",
        message.error_message
    );
}
