//! Renders a [`Turn`] as the SSE events each provider streams.

mod anthropic;
mod gemini;
mod openai_chat;
mod openai_responses;

use crate::Api;
use crate::turn::Turn;
use serde_json::Value;

/// One SSE event, ready to send (including its blank-line terminator).
pub type SseEvent = Vec<u8>;

/// The events of `turn` in `api`'s wire format, in order.
pub fn render(api: Api, turn: &Turn) -> Vec<SseEvent> {
    match api {
        Api::AnthropicMessages => anthropic::render(turn),
        Api::OpenAiCompletions => openai_chat::render(turn),
        Api::OpenAiResponses => openai_responses::render(turn),
        Api::GoogleGenerativeAi => gemini::render(turn),
    }
}

/// A stream of `api` with a `data:` line of broken JSON in the middle.
pub fn malformed(api: Api) -> Vec<SseEvent> {
    let mut events = render(
        api,
        &Turn::text("partial answer before the broken line").chunk(6),
    );
    let broken = match api {
        Api::AnthropicMessages => {
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"oops\n\n"
        }
        Api::OpenAiResponses => {
            "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"oops\n\n"
        }
        Api::OpenAiCompletions | Api::GoogleGenerativeAi => {
            "data: {\"choices\":[{\"delta\":{\"content\":\"oops\n\n"
        }
    };
    let at = events.len() / 2;
    events.insert(at, broken.as_bytes().to_vec());
    events
}

/// `event: NAME` (when given) and `data: JSON`, then a blank line.
pub(crate) fn sse(event: Option<&str>, data: &Value) -> SseEvent {
    let mut out = String::new();
    if let Some(name) = event {
        out.push_str("event: ");
        out.push_str(name);
        out.push('\n');
    }
    out.push_str("data: ");
    out.push_str(&data.to_string());
    out.push_str("\n\n");
    out.into_bytes()
}

/// A plain `data:` line with no JSON (`[DONE]`).
pub(crate) fn sse_raw(data: &str) -> SseEvent {
    format!("data: {data}\n\n").into_bytes()
}
