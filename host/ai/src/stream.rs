//! The unified entry point: `stream(model, context, options)` → an event stream that always
//! ends with exactly one `done` or `error` event, never panics and never hangs.

use crate::event::AssistantMessageEvent;
use crate::options::StreamOptions;
use crate::protocol::{HttpRequest, Protocol, ResponseReader};
use crate::retry::{self, Decision, Failure};
use crate::types::{AssistantMessage, Context, Model, StopReason};
use futures::Stream;
use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, OnceLock, RwLock};
use std::task::{Context as TaskContext, Poll};
use std::time::SystemTime;
use tokio::sync::mpsc;

/// The events of one response. Ends after the terminal `done`/`error` event.
pub struct AssistantMessageEventStream {
    rx: mpsc::UnboundedReceiver<AssistantMessageEvent>,
    /// Model identity, to build an error message if the producer vanished.
    fallback: AssistantMessage,
    finished: bool,
}

/// The sending half, for code that produces a stream (adapters, extension providers, tests).
#[derive(Clone)]
pub struct EventSender {
    tx: mpsc::UnboundedSender<AssistantMessageEvent>,
}

impl EventSender {
    /// Sends an event; a dropped receiver is not an error (nobody is listening any more).
    pub fn send(&self, event: AssistantMessageEvent) {
        let _ = self.tx.send(event);
    }

    pub fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }
}

impl AssistantMessageEventStream {
    /// A connected sender/stream pair for `model`.
    pub fn channel(model: &Model) -> (EventSender, Self) {
        let (tx, rx) = mpsc::unbounded_channel();
        (
            EventSender { tx },
            AssistantMessageEventStream {
                rx,
                fallback: AssistantMessage::empty_for(model),
                finished: false,
            },
        )
    }

    /// A stream holding only an error event (failure before the request was sent).
    pub fn failed(model: &Model, message: impl Into<String>) -> Self {
        let (tx, stream) = Self::channel(model);
        let mut error = AssistantMessage::empty_for(model);
        error.stop_reason = StopReason::Error;
        error.error_message = Some(message.into());
        tx.send(AssistantMessageEvent::Error {
            reason: StopReason::Error,
            error,
        });
        stream
    }

    /// The next event, or `None` after the terminal one.
    pub async fn next_event(&mut self) -> Option<AssistantMessageEvent> {
        if self.finished {
            return None;
        }
        match self.rx.recv().await {
            Some(event) => {
                self.finished = event.is_terminal();
                Some(event)
            }
            None => {
                self.finished = true;
                Some(self.vanished())
            }
        }
    }

    /// Drains the stream and returns the final message (success or error).
    pub async fn result(mut self) -> AssistantMessage {
        while let Some(event) = self.next_event().await {
            match event {
                AssistantMessageEvent::Done { message, .. } => return message,
                AssistantMessageEvent::Error { error, .. } => return error,
                _ => {}
            }
        }
        match self.vanished() {
            AssistantMessageEvent::Error { error, .. } => error,
            _ => AssistantMessage::default(),
        }
    }

    fn vanished(&self) -> AssistantMessageEvent {
        let mut error = self.fallback.clone();
        error.stop_reason = StopReason::Error;
        error.error_message = Some("the response stream ended without a result".to_owned());
        AssistantMessageEvent::Error {
            reason: StopReason::Error,
            error,
        }
    }
}

impl Stream for AssistantMessageEventStream {
    type Item = AssistantMessageEvent;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Option<Self::Item>> {
        if self.finished {
            return Poll::Ready(None);
        }
        match self.rx.poll_recv(cx) {
            Poll::Ready(Some(event)) => {
                self.finished = event.is_terminal();
                Poll::Ready(Some(event))
            }
            Poll::Ready(None) => {
                self.finished = true;
                Poll::Ready(Some(self.vanished()))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

/// Something that can answer model requests for one `api` value.
pub trait ApiProvider: Send + Sync {
    /// Starts a request. Must be called inside a tokio runtime.
    fn stream(
        &self,
        model: &Model,
        context: &Context,
        options: StreamOptions,
    ) -> AssistantMessageEventStream;
}

/// Runs an HTTP+SSE [`Protocol`] as an [`ApiProvider`].
pub struct HttpProvider<P: Protocol>(pub P);

impl<P: Protocol> ApiProvider for HttpProvider<P> {
    fn stream(
        &self,
        model: &Model,
        context: &Context,
        options: StreamOptions,
    ) -> AssistantMessageEventStream {
        let api_key = options
            .api_key
            .clone()
            .or_else(|| crate::auth::env_api_key(&model.provider));
        // Fit the history to this model (images, foreign thinking, tool-call ids) on a copy:
        // the caller's messages are what the session stores and must stay untouched.
        let context = Context {
            messages: crate::transform::transform_messages(&context.messages, model, &|id| {
                self.0.normalize_tool_call_id(id)
            }),
            ..context.clone()
        };
        let request = match self
            .0
            .build_request(model, &context, &options, api_key.as_deref())
        {
            Ok(request) => request,
            Err(message) => return AssistantMessageEventStream::failed(model, message),
        };
        let (tx, stream) = AssistantMessageEventStream::channel(model);
        let reader = ResponseReader::new(&self.0, model);
        let provider = model.provider.clone();
        tokio::spawn(run_request(request, reader, options, tx, provider));
        stream
    }
}

fn http_client() -> &'static reqwest::Client {
    static CLIENT: OnceLock<reqwest::Client> = OnceLock::new();
    CLIENT.get_or_init(|| {
        reqwest::Client::builder()
            .connect_timeout(std::time::Duration::from_secs(30))
            .build()
            .unwrap_or_else(|_| reqwest::Client::new())
    })
}

const ABORTED: &str = "Request was aborted";

/// Sends the request (with request-level retries), then streams the body through `reader`.
async fn run_request(
    request: HttpRequest,
    mut reader: ResponseReader,
    options: StreamOptions,
    tx: EventSender,
    provider: String,
) {
    let response = match establish(&request, &options, &provider).await {
        Ok(response) => response,
        Err((reason, message)) => {
            reader.fail(reason, message);
            forward(&mut reader, &tx);
            return;
        }
    };
    let mut body = response;
    loop {
        let chunk = tokio::select! {
            _ = options.cancel.cancelled() => {
                reader.fail(StopReason::Aborted, ABORTED.to_owned());
                break;
            }
            chunk = tokio::time::timeout(options.idle_timeout, body.chunk()) => chunk,
        };
        match chunk {
            Err(_) => {
                reader.fail(
                    StopReason::Error,
                    format!(
                        "{provider}: stream timed out: no data for {} s",
                        options.idle_timeout.as_secs_f64()
                    ),
                );
                break;
            }
            Ok(Err(err)) => {
                reader.fail(
                    StopReason::Error,
                    format!(
                        "{provider}: connection lost while streaming: {}",
                        error_chain(&err)
                    ),
                );
                break;
            }
            Ok(Ok(None)) => {
                reader.finish();
                break;
            }
            Ok(Ok(Some(bytes))) => {
                let failed = reader.feed(&bytes).is_err();
                forward(&mut reader, &tx);
                if failed {
                    reader.finish();
                    break;
                }
            }
        }
    }
    forward(&mut reader, &tx);
}

fn forward(reader: &mut ResponseReader, tx: &EventSender) {
    for event in reader.take_events() {
        tx.send(event);
    }
}

/// Sends until a 2xx response arrives, retrying as the options allow.
async fn establish(
    request: &HttpRequest,
    options: &StreamOptions,
    provider: &str,
) -> Result<reqwest::Response, (StopReason, String)> {
    let body = serde_json::to_vec(&request.body).map_err(|e| {
        (
            StopReason::Error,
            format!("could not encode the request: {e}"),
        )
    })?;
    let mut retry_index = 0;
    loop {
        let mut builder = http_client()
            .post(&request.url)
            .header("content-type", "application/json")
            .header("accept", "text/event-stream");
        for (name, value) in &request.headers {
            builder = builder.header(name, value);
        }
        let send = tokio::time::timeout(options.header_timeout, builder.body(body.clone()).send());
        let outcome = tokio::select! {
            _ = options.cancel.cancelled() => return Err((StopReason::Aborted, ABORTED.to_owned())),
            outcome = send => outcome,
        };
        let (status, headers, message) = match outcome {
            Err(_) => (
                None,
                None,
                format!(
                    "{provider}: request timed out: no response headers after {} s",
                    options.header_timeout.as_secs_f64()
                ),
            ),
            Ok(Err(err)) => (
                None,
                None,
                format!("{provider}: connection error: {}", error_chain(&err)),
            ),
            Ok(Ok(response)) if response.status().is_success() => return Ok(response),
            Ok(Ok(response)) => {
                let status = response.status();
                let headers = response.headers().clone();
                let text = tokio::select! {
                    _ = options.cancel.cancelled() => return Err((StopReason::Aborted, ABORTED.to_owned())),
                    text = tokio::time::timeout(options.idle_timeout, response.text()) => {
                        text.ok().and_then(Result::ok).unwrap_or_default()
                    }
                };
                (
                    Some(status.as_u16()),
                    Some(headers),
                    status_message(status, &text),
                )
            }
        };
        let failure = Failure {
            status,
            headers: headers.as_ref(),
        };
        let decision = retry::decide(
            retry_index,
            options.max_retries,
            options.max_retry_delay_ms,
            &failure,
            SystemTime::now(),
            fastrand::f64(),
        );
        match decision {
            Decision::GiveUp => return Err((StopReason::Error, message)),
            Decision::TooLong(prefix) => {
                return Err((StopReason::Error, format!("{prefix} {message}")));
            }
            Decision::Retry(delay) => {
                tracing::debug!(%provider, ?status, ?delay, attempt = retry_index + 1, "retrying request");
                tokio::select! {
                    _ = options.cancel.cancelled() => return Err((StopReason::Aborted, ABORTED.to_owned())),
                    _ = tokio::time::sleep(delay) => {}
                }
                retry_index += 1;
            }
        }
    }
}

/// `reqwest` errors hide the useful part (connection refused, reset…) in their sources.
fn error_chain(err: &(dyn std::error::Error + 'static)) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(inner) = source {
        let inner_text = inner.to_string();
        if !text.contains(&inner_text) {
            text.push_str(": ");
            text.push_str(&inner_text);
        }
        source = inner.source();
    }
    text
}

/// The error text for a non-2xx response: status, then the provider's own message.
pub fn status_message(status: reqwest::StatusCode, body: &str) -> String {
    let code = status.as_u16();
    let body = body.trim();
    if body.is_empty() {
        return format!("{code} status code (no body)");
    }
    let detail = provider_error_text(body).unwrap_or_else(|| truncate(body, 2000));
    match status.canonical_reason() {
        Some(reason) => format!("{code} {reason}: {detail}"),
        None => format!("{code}: {detail}"),
    }
}

/// Extracts `error.message` (OpenAI, Anthropic, Gemini) or `message` from a JSON error body.
pub fn provider_error_text(body: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(body).ok()?;
    let value = match &value {
        serde_json::Value::Array(items) => items.first()?.clone(),
        other => other.clone(),
    };
    let error = value.get("error").unwrap_or(&value);
    if let Some(text) = error.as_str() {
        return Some(text.to_owned());
    }
    let message = error.get("message").and_then(|m| m.as_str())?;
    let kind = error
        .get("type")
        .or_else(|| error.get("status"))
        .or_else(|| error.get("code"))
        .and_then(|t| t.as_str());
    Some(match kind {
        Some(kind) if !message.contains(kind) => format!("{message} ({kind})"),
        _ => message.to_owned(),
    })
}

fn truncate(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// Maps `api` values to providers. [`ApiRegistry::builtin`] holds the four HTTP protocols;
/// extensions register more.
#[derive(Default)]
pub struct ApiRegistry {
    providers: RwLock<HashMap<String, Arc<dyn ApiProvider>>>,
}

impl ApiRegistry {
    /// The four built-in protocols.
    pub fn builtin() -> Self {
        let registry = ApiRegistry::default();
        for provider in crate::providers::builtin() {
            registry.register(provider.0, provider.1);
        }
        registry
    }

    pub fn register(&self, api: &str, provider: Arc<dyn ApiProvider>) {
        if let Ok(mut map) = self.providers.write() {
            map.insert(api.to_owned(), provider);
        }
    }

    pub fn get(&self, api: &str) -> Option<Arc<dyn ApiProvider>> {
        self.providers.read().ok()?.get(api).cloned()
    }

    /// Streams through the provider registered for `model.api`.
    pub fn stream(
        &self,
        model: &Model,
        context: &Context,
        options: StreamOptions,
    ) -> AssistantMessageEventStream {
        match self.get(&model.api) {
            Some(provider) => provider.stream(model, context, options),
            None => AssistantMessageEventStream::failed(
                model,
                format!(
                    "no adapter for api \"{}\" (model {}/{})",
                    model.api, model.provider, model.id
                ),
            ),
        }
    }
}

/// The process-wide registry used by [`stream`].
pub fn registry() -> &'static ApiRegistry {
    static REGISTRY: OnceLock<ApiRegistry> = OnceLock::new();
    REGISTRY.get_or_init(ApiRegistry::builtin)
}

/// Streams one model response. Must be called inside a tokio runtime.
pub fn stream(
    model: &Model,
    context: &Context,
    options: StreamOptions,
) -> AssistantMessageEventStream {
    registry().stream(model, context, options)
}

/// Like [`stream`], returning only the final message.
pub async fn complete(
    model: &Model,
    context: &Context,
    options: StreamOptions,
) -> AssistantMessage {
    stream(model, context, options).result().await
}
