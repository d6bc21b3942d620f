//! The `google-generative-ai` adapter (being written: requests fail with a clear message until then).

use crate::event::MessageBuilder;
use crate::options::StreamOptions;
use crate::protocol::{Decoder, HttpRequest, Protocol, StreamError};
use crate::sse::SseEvent;
use crate::types::{Context, Model, StopReason};

pub struct GoogleGenerativeAi;

impl Protocol for GoogleGenerativeAi {
    fn api(&self) -> &'static str {
        "google-generative-ai"
    }

    fn build_request(
        &self,
        _model: &Model,
        _context: &Context,
        _options: &StreamOptions,
        _api_key: Option<&str>,
    ) -> Result<HttpRequest, String> {
        Err("the google-generative-ai adapter is not available in this build".to_owned())
    }

    fn decoder(&self, _model: &Model) -> Box<dyn Decoder> {
        Box::new(Pending)
    }
}

struct Pending;

impl Decoder for Pending {
    fn on_event(
        &mut self,
        _event: &SseEvent,
        _out: &mut MessageBuilder,
    ) -> Result<(), StreamError> {
        Ok(())
    }

    fn finish(&mut self, _out: &mut MessageBuilder) -> Result<StopReason, StreamError> {
        Err(StreamError::Incomplete("adapter unavailable".to_owned()))
    }
}
