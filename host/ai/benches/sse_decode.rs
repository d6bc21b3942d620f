//! SSE decoding + event assembly throughput per protocol (`cargo bench -p pi-ai --bench sse_decode`).
//!
//! Each protocol gets a synthetic ~16 MB response in its real wire format (thousands of small
//! text deltas, then a tool call whose arguments arrive in many fragments), fed in 16 KiB pieces
//! as a socket would deliver it. Prints MB/s and events/s; the target is ≥ 100 MB/s on one core.

use pi_ai::protocol::decode_chunks;
use pi_ai::{Modality, Model, ModelCost, StopReason};
use std::fmt::Write;
use std::time::Instant;

const TEXT_DELTAS: usize = 120_000;
const ARG_DELTAS: usize = 20_000;
const PIECE: usize = 16 * 1024;

fn model(api: &str) -> Model {
    Model {
        id: "bench".into(),
        name: "bench".into(),
        api: api.into(),
        provider: "bench".into(),
        base_url: "http://127.0.0.1:9".into(),
        reasoning: false,
        input: vec![Modality::Text],
        cost: ModelCost::default(),
        context_window: 200_000,
        max_tokens: 32_000,
        headers: None,
        compat: None,
    }
}

/// A text fragment of typical token size, with JSON-escaped characters now and then.
fn fragment(i: usize) -> String {
    match i % 8 {
        0 => " the quick".into(),
        1 => " brown fox".into(),
        2 => " \\\"jumps\\\"".into(),
        3 => " over\\n".into(),
        4 => " the lazy".into(),
        5 => " dög, ".into(),
        6 => "and then".into(),
        _ => format!(" {i}"),
    }
}

fn arg_fragment(i: usize) -> &'static str {
    if i == 0 {
        "{\"content\": \""
    } else if i == ARG_DELTAS - 1 {
        "end\"}"
    } else {
        "line of code\\n"
    }
}

/// Escapes an argument fragment once more: it travels as a JSON string inside JSON.
fn nested(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

fn anthropic() -> String {
    let mut s = String::new();
    s.push_str("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"bench\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\n");
    s.push_str("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n");
    for i in 0..TEXT_DELTAS {
        let _ = write!(
            s,
            "event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"text_delta\",\"text\":\"{}\"}}}}\n\n",
            fragment(i)
        );
    }
    s.push_str(
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
    );
    s.push_str("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"write\",\"input\":{}}}\n\n");
    for i in 0..ARG_DELTAS {
        let _ = write!(
            s,
            "event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{{\"type\":\"input_json_delta\",\"partial_json\":\"{}\"}}}}\n\n",
            nested(arg_fragment(i))
        );
    }
    s.push_str(
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n",
    );
    s.push_str("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":500}}\n\n");
    s.push_str("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    s
}

fn openai_completions() -> String {
    let mut s = String::new();
    let head = "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":0,\"model\":\"bench\",\"choices\":[{\"index\":0,";
    for i in 0..TEXT_DELTAS {
        let _ = write!(
            s,
            "data: {head}\"delta\":{{\"content\":\"{}\"}},\"finish_reason\":null}}]}}\n\n",
            fragment(i)
        );
    }
    for i in 0..ARG_DELTAS {
        let call = if i == 0 {
            "\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"write\",\"arguments\":"
        } else {
            "\"function\":{\"arguments\":"
        };
        let _ = write!(
            s,
            "data: {head}\"delta\":{{\"tool_calls\":[{{\"index\":0,{call}\"{}\"}}}}]}},\"finish_reason\":null}}]}}\n\n",
            nested(arg_fragment(i))
        );
    }
    let _ = write!(
        s,
        "data: {head}\"delta\":{{}},\"finish_reason\":\"tool_calls\"}}]}}\n\n"
    );
    s.push_str("data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":0,\"model\":\"bench\",\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":500,\"total_tokens\":510}}\n\ndata: [DONE]\n\n");
    s
}

fn openai_responses() -> String {
    let mut s = String::new();
    s.push_str("event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"in_progress\",\"model\":\"bench\",\"output\":[]}}\n\n");
    s.push_str("event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"sequence_number\":1,\"output_index\":0,\"item\":{\"id\":\"msg_1\",\"type\":\"message\",\"status\":\"in_progress\",\"role\":\"assistant\",\"content\":[]}}\n\n");
    s.push_str("event: response.content_part.added\ndata: {\"type\":\"response.content_part.added\",\"sequence_number\":2,\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"part\":{\"type\":\"output_text\",\"text\":\"\",\"annotations\":[]}}\n\n");
    let mut text = String::new();
    for i in 0..TEXT_DELTAS {
        let f = fragment(i);
        text.push_str(&f);
        let _ = write!(
            s,
            "event: response.output_text.delta\ndata: {{\"type\":\"response.output_text.delta\",\"sequence_number\":{},\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"delta\":\"{f}\"}}\n\n",
            i + 3
        );
    }
    let _ = write!(
        s,
        "event: response.output_item.done\ndata: {{\"type\":\"response.output_item.done\",\"sequence_number\":0,\"output_index\":0,\"item\":{{\"id\":\"msg_1\",\"type\":\"message\",\"status\":\"completed\",\"role\":\"assistant\",\"content\":[{{\"type\":\"output_text\",\"text\":\"{text}\",\"annotations\":[]}}]}}}}\n\n"
    );
    s.push_str("event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"sequence_number\":0,\"output_index\":1,\"item\":{\"id\":\"fc_1\",\"type\":\"function_call\",\"status\":\"in_progress\",\"call_id\":\"call_1\",\"name\":\"write\",\"arguments\":\"\"}}\n\n");
    for i in 0..ARG_DELTAS {
        let _ = write!(
            s,
            "event: response.function_call_arguments.delta\ndata: {{\"type\":\"response.function_call_arguments.delta\",\"sequence_number\":0,\"item_id\":\"fc_1\",\"output_index\":1,\"delta\":\"{}\"}}\n\n",
            nested(arg_fragment(i))
        );
    }
    s.push_str("event: response.completed\ndata: {\"type\":\"response.completed\",\"sequence_number\":0,\"response\":{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"completed\",\"model\":\"bench\",\"output\":[],\"usage\":{\"input_tokens\":10,\"input_tokens_details\":{\"cached_tokens\":0},\"output_tokens\":500,\"output_tokens_details\":{\"reasoning_tokens\":0},\"total_tokens\":510}}}\n\n");
    s
}

fn google() -> String {
    let mut s = String::new();
    for i in 0..TEXT_DELTAS {
        let _ = write!(
            s,
            "data: {{\"candidates\": [{{\"content\": {{\"parts\": [{{\"text\": \"{}\"}}],\"role\": \"model\"}},\"index\": 0}}],\"modelVersion\": \"bench\",\"responseId\": \"r1\"}}\r\n\r\n",
            fragment(i)
        );
    }
    let mut args = String::new();
    for i in 1..ARG_DELTAS - 1 {
        let _ = i;
        args.push_str("line of code\\n");
    }
    let _ = write!(
        s,
        "data: {{\"candidates\": [{{\"content\": {{\"parts\": [{{\"functionCall\": {{\"name\": \"write\",\"args\": {{\"content\": \"{args}end\"}}}}}}],\"role\": \"model\"}},\"finishReason\": \"STOP\",\"index\": 0}}],\"usageMetadata\": {{\"promptTokenCount\": 10,\"candidatesTokenCount\": 500,\"totalTokenCount\": 510}},\"modelVersion\": \"bench\",\"responseId\": \"r1\"}}\r\n\r\n"
    );
    s
}

type Generator = fn() -> String;

fn main() {
    let cases: [(&str, Generator); 4] = [
        ("anthropic-messages", anthropic),
        ("openai-completions", openai_completions),
        ("openai-responses", openai_responses),
        ("google-generative-ai", google),
    ];
    println!("| protocol | body MB | events | MB/s | events/s |");
    println!("|---|---|---|---|---|");
    for (api, make) in cases {
        let Some(protocol) = pi_ai::providers::protocol(api) else {
            eprintln!("no adapter for {api}");
            continue;
        };
        let body = make();
        let model = model(api);
        // Warm up once, then take the best of five runs (the machine is noisy).
        let (events, message) =
            decode_chunks(protocol.as_ref(), &model, body.as_bytes().chunks(PIECE));
        if message.stop_reason == StopReason::Error {
            eprintln!("{api}: decode failed: {:?}", message.error_message);
            continue;
        }
        let mut best = f64::MAX;
        for _ in 0..5 {
            let start = Instant::now();
            let (events, _) =
                decode_chunks(protocol.as_ref(), &model, body.as_bytes().chunks(PIECE));
            std::hint::black_box(events);
            best = best.min(start.elapsed().as_secs_f64());
        }
        let mb = body.len() as f64 / 1e6;
        println!(
            "| {api} | {mb:.1} | {} | {:.0} | {:.2} M |",
            events.len(),
            mb / best,
            events.len() as f64 / best / 1e6
        );
    }
}
