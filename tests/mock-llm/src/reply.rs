//! What the server answers to one request: a scripted turn, raw bytes, an error status or a
//! transport fault.

use crate::render::SseEvent;
use crate::turn::Turn;
use crate::{Api, errors};
use serde_json::Value;
use std::time::Duration;

/// One scripted answer. Build one with the constructors below, adjust it with
/// [`Reply::header`] / [`Reply::delay`], and queue it with `MockLlm::push`.
#[derive(Debug, Clone)]
pub struct Reply {
    pub(crate) kind: ReplyKind,
    pub(crate) delay: Duration,
    pub(crate) headers: Vec<(String, String)>,
}

#[derive(Debug, Clone)]
pub(crate) enum ReplyKind {
    /// A turn rendered in the protocol of the route it arrives on.
    Turn(Turn),
    /// Pre-rendered events of a given protocol (used for malformed streams).
    Events(Vec<SseEvent>),
    /// Raw body bytes, sent in pieces of `piece` bytes.
    Bytes { bytes: Vec<u8>, piece: usize },
    /// A complete non-streaming response.
    Status { code: u16, body: Vec<u8> },
    /// Headers and the first `after` events, then the socket is closed without the chunked
    /// terminator.
    DropMidStream { turn: Turn, after: usize },
    /// Read the request and never answer.
    StallBeforeHeaders,
    /// Headers and the first `after` events, then silence with the socket open.
    HangAfterHeaders { turn: Turn, after: usize },
}

impl From<Turn> for Reply {
    fn from(turn: Turn) -> Self {
        Reply::turn(turn)
    }
}

impl Reply {
    fn new(kind: ReplyKind) -> Self {
        Reply {
            kind,
            delay: Duration::ZERO,
            headers: Vec::new(),
        }
    }

    /// A 200 `text/event-stream` answer rendering `turn` in the protocol of the request's route.
    pub fn turn(turn: Turn) -> Self {
        Reply::new(ReplyKind::Turn(turn))
    }

    /// A 200 `text/event-stream` answer whose body is exactly `bytes` (e.g. a recorded `.sse`
    /// file), written in pieces of `piece_size` bytes (0: all at once), each flushed on its own.
    pub fn sse_bytes(bytes: impl Into<Vec<u8>>, piece_size: usize) -> Self {
        Reply::new(ReplyKind::Bytes {
            bytes: bytes.into(),
            piece: piece_size,
        })
    }

    /// Any complete response: status `code`, extra `headers`, and `body` (sent with
    /// `content-type: application/json` unless `headers` say otherwise).
    pub fn status(code: u16, headers: &[(&str, &str)], body: impl Into<Vec<u8>>) -> Self {
        let mut reply = Reply::new(ReplyKind::Status {
            code,
            body: body.into(),
        });
        for (name, value) in headers {
            reply = reply.header(name, value);
        }
        reply
    }

    /// A response with status `code` and a JSON body.
    pub fn json(code: u16, body: &Value) -> Self {
        Reply::status(code, &[], body.to_string())
    }

    /// 429 with the provider's rate-limit error body and `retry-after: <secs>`.
    pub fn rate_limited(api: Api, retry_after_secs: u64) -> Self {
        Reply::json(429, &errors::rate_limit_body(api))
            .header("retry-after", &retry_after_secs.to_string())
    }

    /// A 5xx (`status`: 500, 502, 503, 529…) with the provider's error body (Anthropic 529 is
    /// `overloaded_error` "Overloaded", OpenAI `server_error`, Gemini `UNAVAILABLE`/`INTERNAL`).
    pub fn server_error(api: Api, status: u16) -> Self {
        Reply::json(status, &errors::server_error_body(api, status))
    }

    /// 400 with the body the provider sends when the prompt exceeds the context window.
    pub fn context_overflow(api: Api) -> Self {
        Reply::json(400, &errors::context_overflow_body(api))
    }

    /// Streams the first `after_events` SSE events of `turn`, then closes the socket without
    /// the chunked terminator (a connection lost mid-stream).
    pub fn drop_mid_stream(turn: Turn, after_events: usize) -> Self {
        Reply::new(ReplyKind::DropMidStream {
            turn,
            after: after_events,
        })
    }

    /// A stream of `api` that has a `data:` line of broken JSON in the middle.
    pub fn malformed_sse(api: Api) -> Self {
        Reply::new(ReplyKind::Events(crate::render::malformed(api)))
    }

    /// Reads the request and never answers (until the client leaves or the mock stops).
    pub fn stall_before_headers() -> Self {
        Reply::new(ReplyKind::StallBeforeHeaders)
    }

    /// Sends the headers and the first `after_events` events of `turn`, then nothing, keeping
    /// the socket open (until the client leaves or the mock stops).
    pub fn hang_after_headers(turn: Turn, after_events: usize) -> Self {
        Reply::new(ReplyKind::HangAfterHeaders {
            turn,
            after: after_events,
        })
    }

    /// Adds a response header (e.g. `retry-after-ms`, `x-should-retry`). A header named like one
    /// the server sets by default (`content-type`) replaces it.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers
            .push((name.to_ascii_lowercase(), value.to_owned()));
        self
    }

    /// Waits this long after reading the request before sending anything. Default: no wait.
    pub fn delay(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
}
