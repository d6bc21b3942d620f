//! What a wire-protocol adapter provides, and the reader that runs one over a response body.

use crate::event::{AssistantMessageEvent, MessageBuilder};
use crate::options::StreamOptions;
use crate::sse::{SseEvent, SseParser};
use crate::types::{AssistantMessage, Context, Model, StopReason};
use bytes::Bytes;
use std::io::{self, Write};
use std::sync::Arc;

/// A request ready to send.
#[derive(Debug, Clone)]
pub struct HttpRequest {
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: RequestBody,
}

/// Writes a body's JSON.
pub(crate) type WriteFn = dyn Fn(&mut dyn Write) -> io::Result<()> + Send + Sync;

/// The JSON body of a request, of a known length: kept as bytes when small, else written from
/// the context each time it is sent (see `providers::body`).
#[derive(Clone)]
pub struct RequestBody {
    len: u64,
    source: Source,
}

#[derive(Clone)]
enum Source {
    Bytes(Bytes),
    Written(Arc<WriteFn>),
}

impl RequestBody {
    pub(crate) fn of_bytes(len: u64, bytes: Bytes) -> RequestBody {
        RequestBody {
            len,
            source: Source::Bytes(bytes),
        }
    }

    pub(crate) fn written(len: u64, write: Arc<WriteFn>) -> RequestBody {
        RequestBody {
            len,
            source: Source::Written(write),
        }
    }

    /// The body's length in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The whole body (written out when it is not kept).
    pub fn to_bytes(&self) -> io::Result<Bytes> {
        match &self.source {
            Source::Bytes(bytes) => Ok(bytes.clone()),
            Source::Written(write) => {
                let mut out = Vec::with_capacity(usize::try_from(self.len).unwrap_or(0));
                write(&mut out)?;
                Ok(out.into())
            }
        }
    }

    /// The kept bytes, or the writer that produces the body.
    pub(crate) fn kept(&self) -> Result<&Bytes, &Arc<WriteFn>> {
        match &self.source {
            Source::Bytes(bytes) => Ok(bytes),
            Source::Written(write) => Err(write),
        }
    }
}

impl std::fmt::Debug for RequestBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kept = matches!(self.source, Source::Bytes(_));
        f.debug_struct("RequestBody")
            .field("len", &self.len)
            .field("kept", &kept)
            .finish()
    }
}

/// Why a response stream could not be turned into a message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StreamError {
    /// The provider reported an error inside the stream.
    #[error("{0}")]
    Provider(String),
    /// The stream broke the protocol (bad JSON, unexpected event).
    #[error("malformed response stream: {0}")]
    Malformed(String),
    /// The body ended before the protocol's end-of-response event.
    #[error("stream ended before the response was complete ({0})")]
    Incomplete(String),
}

/// An HTTP+SSE wire protocol (`api` in pi's model records).
pub trait Protocol: Send + Sync + 'static {
    /// The `api` value this adapter serves.
    fn api(&self) -> &'static str;

    /// Assembles the native request. `api_key` is the resolved credential, if any.
    fn build_request(
        &self,
        model: &Model,
        context: &Context,
        options: &StreamOptions,
        api_key: Option<&str>,
    ) -> Result<HttpRequest, String>;

    /// A fresh decoder for one response.
    fn decoder(&self, model: &Model) -> Box<dyn Decoder>;

    /// The decoder for the answer to a request built from `context` with `api_key` (an
    /// adapter that renamed tools for the wire names them back). [`decoder`](Self::decoder)
    /// by default.
    fn request_decoder(
        &self,
        model: &Model,
        _context: &Context,
        _api_key: Option<&str>,
    ) -> Box<dyn Decoder> {
        self.decoder(model)
    }

    /// Rewrites a tool-call id into a form this protocol accepts (used by `transform_messages`
    /// on histories from other providers). Identity by default.
    fn normalize_tool_call_id(&self, id: &str) -> String {
        id.to_owned()
    }
}

/// Turns the SSE events of one response into builder calls.
pub trait Decoder: Send {
    fn on_event(&mut self, event: &SseEvent, out: &mut MessageBuilder) -> Result<(), StreamError>;

    /// The body ended. Returns the stop reason, or why the stream is incomplete.
    fn finish(&mut self, out: &mut MessageBuilder) -> Result<StopReason, StreamError>;
}

/// SSE parser + decoder + builder over one response body.
pub struct ResponseReader {
    sse: SseParser,
    decoder: Box<dyn Decoder>,
    builder: MessageBuilder,
    failed: Option<StreamError>,
    cost: crate::types::ModelCost,
}

impl ResponseReader {
    pub fn new(protocol: &dyn Protocol, model: &Model) -> Self {
        Self::with_decoder(protocol.decoder(model), model)
    }

    /// A reader feeding `decoder`.
    pub fn with_decoder(decoder: Box<dyn Decoder>, model: &Model) -> Self {
        ResponseReader {
            sse: SseParser::new(),
            decoder,
            builder: MessageBuilder::new(AssistantMessage::empty_for(model)),
            failed: None,
            cost: model.cost,
        }
    }

    /// Feeds body bytes. After an error the rest is ignored; [`Self::finish`] reports it.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<(), StreamError> {
        if let Some(err) = &self.failed {
            return Err(err.clone());
        }
        let mut run = runner(&mut self.decoder, &mut self.builder, &mut self.failed);
        self.sse.feed_ref(chunk, &mut run);
        drop(run);
        match &self.failed {
            Some(err) => Err(err.clone()),
            None => Ok(()),
        }
    }

    /// Events produced so far and not yet taken.
    pub fn take_events(&mut self) -> Vec<AssistantMessageEvent> {
        self.builder.take_events()
    }

    /// The partial message as it stands.
    pub fn message(&self) -> &AssistantMessage {
        self.builder.message()
    }

    /// The body ended normally: completes the message or turns it into an error message.
    pub fn finish(&mut self) -> AssistantMessage {
        if self.failed.is_none() {
            let mut run = runner(&mut self.decoder, &mut self.builder, &mut self.failed);
            self.sse.finish_ref(&mut run);
        }
        let outcome = match self.failed.take() {
            Some(err) => Err(err),
            None => self.decoder.finish(&mut self.builder),
        };
        self.builder.message_mut().usage.apply_cost(&self.cost);
        match outcome {
            Ok(reason) => self.builder.finish(reason),
            Err(err) => self.builder.fail(StopReason::Error, err.to_string()),
        }
    }

    /// Ends the message as failed (transport error, timeout, abort), keeping received content.
    pub fn fail(&mut self, reason: StopReason, message: String) -> AssistantMessage {
        self.builder.message_mut().usage.apply_cost(&self.cost);
        self.builder.fail(reason, message)
    }
}

/// Runs each SSE event through the decoder as the parser completes it, until one fails; the
/// events after a failure are dropped. Events are decoded as they complete, so the parser can
/// lend them instead of queueing owned copies.
fn runner<'r>(
    decoder: &'r mut Box<dyn Decoder>,
    builder: &'r mut MessageBuilder,
    failed: &'r mut Option<StreamError>,
) -> impl FnMut(&SseEvent) + 'r {
    move |event| {
        if failed.is_none()
            && let Err(err) = decoder.on_event(event, builder)
        {
            *failed = Some(err);
        }
    }
}

/// Decodes a whole body given as chunks; used by tests, benchmarks and replay.
pub fn decode_chunks<'a>(
    protocol: &dyn Protocol,
    model: &Model,
    chunks: impl IntoIterator<Item = &'a [u8]>,
) -> (Vec<AssistantMessageEvent>, AssistantMessage) {
    let mut reader = ResponseReader::new(protocol, model);
    let mut events = Vec::new();
    for chunk in chunks {
        let failed = reader.feed(chunk).is_err();
        events.extend(reader.take_events());
        if failed {
            break;
        }
    }
    let message = reader.finish();
    events.extend(reader.take_events());
    (events, message)
}
