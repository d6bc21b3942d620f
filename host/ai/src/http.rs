//! Running a wire [`Protocol`] over HTTP and SSE as an [`ApiProvider`].
//!
//! The history is fitted to the target model on a copy (none when it fits already), the request
//! body is serialised from it (kept as bytes when small, else written again into the connection
//! on each attempt: see `upload`), the request is sent with request-level retries (only until
//! response headers arrive), and the response body is decoded into events until it ends, stalls
//! past the idle timeout or is cancelled. Every failure becomes the stream's `error` event.

use crate::options::StreamOptions;
use crate::protocol::{HttpRequest, Protocol, ResponseReader};
use crate::retry::{self, Decision, Failure};
use crate::stream::{ApiProvider, AssistantMessageEventStream, EventSender};
use crate::types::{Context, Model, StopReason};
use std::sync::Arc;
use std::time::SystemTime;

/// Runs an HTTP+SSE [`Protocol`] as an [`ApiProvider`].
pub struct HttpProvider<P: Protocol>(pub P);

impl<P: Protocol> ApiProvider for HttpProvider<P> {
    fn stream(
        &self,
        model: &Model,
        context: &Context,
        options: StreamOptions,
    ) -> AssistantMessageEventStream {
        let model = &match crate::models::base_url::expand_from_env(&model.base_url) {
            Ok(base_url) => Model {
                base_url,
                ..model.clone()
            },
            Err(variable) => {
                let message = format!(
                    "the endpoint of provider \"{}\" needs the environment variable {variable}",
                    model.provider
                );
                return AssistantMessageEventStream::failed(model, message);
            }
        };
        let api_key = options
            .api_key
            .clone()
            .or_else(|| crate::auth::env_api_key(&model.provider));
        let copilot;
        let model = if model.provider == crate::providers::copilot::PROVIDER {
            copilot = crate::providers::copilot::prepare(model, context, api_key.as_deref());
            &copilot
        } else {
            model
        };
        // Fit the history to this model (images, foreign thinking, tool-call ids) on a copy:
        // the caller's messages are what the session stores and must stay untouched. A history
        // that is fit already (one model throughout, nothing failed or unanswered) is read as
        // it is.
        let fitted = (!crate::transform::is_fit(&context.messages, model)).then(|| Context {
            messages: crate::transform::transform_messages(&context.messages, model, &|id| {
                self.0.normalize_tool_call_id(id)
            }),
            system_prompt: context.system_prompt.clone(),
            tools: context.tools.clone(),
        });
        let context = fitted.as_ref().unwrap_or(context);
        let request = match self
            .0
            .build_request(model, context, &options, api_key.as_deref())
        {
            Ok(request) => request,
            Err(message) => return AssistantMessageEventStream::failed(model, message),
        };
        let decoder = self.0.request_decoder(model, context, api_key.as_deref());
        // A body written as it is sent holds its own share of the messages.
        drop(fitted);
        let (tx, stream) = AssistantMessageEventStream::channel(model);
        let reader = ResponseReader::with_decoder(decoder, model);
        let provider = model.provider.clone();
        tokio::spawn(run_request(request, reader, options, tx, provider));
        stream
    }
}

/// The built-in protocol adapters over HTTP, by `api` value.
pub(crate) fn builtin() -> Vec<(&'static str, Arc<dyn ApiProvider>)> {
    vec![
        (
            "anthropic-messages",
            Arc::new(HttpProvider(crate::providers::anthropic::AnthropicMessages)),
        ),
        (
            "openai-completions",
            Arc::new(HttpProvider(
                crate::providers::openai_completions::OpenAiCompletions,
            )),
        ),
        (
            "openai-responses",
            Arc::new(HttpProvider(
                crate::providers::openai_responses::OpenAiResponses,
            )),
        ),
        (
            "openai-codex-responses",
            Arc::new(HttpProvider(
                crate::providers::openai_codex::OpenAiCodexResponses,
            )),
        ),
        (
            "google-generative-ai",
            Arc::new(HttpProvider(crate::providers::google::GoogleGenerativeAi)),
        ),
        (
            "azure-openai-responses",
            Arc::new(HttpProvider(crate::providers::azure::AzureOpenAiResponses)),
        ),
    ]
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
    let mut retry_index = 0;
    loop {
        let mut builder = crate::http_client::client(crate::http_client::Purpose::Stream)
            .post(&request.url)
            .header("content-type", "application/json")
            .header("accept", "text/event-stream");
        for (name, value) in &request.headers {
            builder = builder.header(name, value);
        }
        let send = tokio::time::timeout(
            options.header_timeout,
            builder.body(crate::upload::send_body(&request.body)).send(),
        );
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
                format!(
                    "{provider}: connection error: {}{}",
                    error_chain(&err),
                    crate::http_client::proxy_note()
                ),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::AssistantMessageEvent;
    use crate::protocol::Decoder;
    use crate::types::{AssistantBlock, AssistantMessage, Message, Modality, ToolCall};
    use std::sync::{Arc, Mutex};

    /// A protocol that records the context it is asked to send, then declines to send it.
    struct Recorder(Arc<Mutex<Option<Context>>>);

    impl Protocol for Recorder {
        fn api(&self) -> &'static str {
            "anthropic-messages"
        }
        fn build_request(
            &self,
            _model: &Model,
            context: &Context,
            _options: &StreamOptions,
            _api_key: Option<&str>,
        ) -> Result<HttpRequest, String> {
            *self.0.lock().unwrap() = Some(context.clone());
            Err("recorded".into())
        }
        fn decoder(&self, _model: &Model) -> Box<dyn Decoder> {
            unreachable!("no request is sent")
        }
        fn normalize_tool_call_id(&self, id: &str) -> String {
            id.replace('|', "_")
        }
    }

    fn model(provider: &str, api: &str, id: &str) -> Model {
        Model {
            id: id.into(),
            name: id.into(),
            api: api.into(),
            provider: provider.into(),
            base_url: "http://localhost".into(),
            reasoning: true,
            input: vec![Modality::Text, Modality::Image],
            cost: Default::default(),
            context_window: 100_000,
            max_tokens: 1_000,
            headers: None,
            compat: None,
        }
    }

    fn call(id: &str) -> AssistantBlock {
        AssistantBlock::ToolCall(ToolCall {
            id: id.into(),
            name: "read".into(),
            arguments: serde_json::json!({"path": "a"}),
            thought_signature: None,
        })
    }

    /// Every event of `stream`, to the terminal one.
    async fn events(mut stream: AssistantMessageEventStream) -> Vec<AssistantMessageEvent> {
        let mut events = Vec::new();
        while let Some(event) = stream.next_event().await {
            events.push(event);
        }
        events
    }

    /// The one event of a stream that failed before it started: an error, never a `start`.
    fn only_error(events: &[AssistantMessageEvent]) -> String {
        match events {
            [AssistantMessageEvent::Error { reason, error }] => {
                assert_eq!(*reason, StopReason::Error);
                error.error_message.clone().unwrap_or_default()
            }
            other => panic!("expected one error event, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn a_stream_that_fails_before_it_starts_emits_an_error_without_a_start() {
        // No adapter for the model's api.
        let unknown = model("acme", "acme-api", "m1");
        let stream = crate::api_registry::ApiRegistry::builtin().stream(
            &unknown,
            &Context::default(),
            Default::default(),
        );
        let message = only_error(&events(stream).await);
        assert!(
            message.contains("no adapter for api \"acme-api\""),
            "{message}"
        );
        // A base URL naming a variable that is not set.
        let provider = HttpProvider(Recorder(Arc::default()));
        let mut unset = model("acme", "anthropic-messages", "m1");
        unset.base_url = "https://{PI_TEST_VARIABLE_NOBODY_SETS}/v1".into();
        let stream = provider.stream(&unset, &Context::default(), Default::default());
        let message = only_error(&events(stream).await);
        assert!(
            message.contains("PI_TEST_VARIABLE_NOBODY_SETS"),
            "{message}"
        );
        // A request that cannot be built.
        let plain = model("acme", "anthropic-messages", "m1");
        let stream = provider.stream(&plain, &Context::default(), Default::default());
        assert_eq!(only_error(&events(stream).await), "recorded");
    }

    #[test]
    fn http_provider_sends_the_transformed_history() {
        let seen = Arc::new(Mutex::new(None));
        let provider = HttpProvider(Recorder(seen.clone()));
        let gpt = model("openai", "openai-responses", "gpt-5");
        let claude = model("anthropic", "anthropic-messages", "claude-sonnet-4-5");
        let context = Context {
            system_prompt: Some("sys".into()),
            messages: vec![Message::from(AssistantMessage {
                content: vec![call("a|b")],
                stop_reason: StopReason::Stop,
                ..AssistantMessage::empty_for(&gpt)
            })]
            .into_iter()
            .map(std::sync::Arc::new)
            .collect(),
            tools: vec![],
        };
        let _ = provider.stream(&claude, &context, Default::default());
        let sent = seen.lock().unwrap().clone().unwrap();
        assert_eq!(sent.system_prompt.as_deref(), Some("sys"));
        let Message::Assistant(a) = &*sent.messages[0] else {
            panic!("{sent:?}")
        };
        assert_eq!(a.content, vec![call("a_b")]);
        // The orphaned call got its synthetic result; the caller's context is unchanged.
        assert!(matches!(&*sent.messages[1], Message::ToolResult(r) if r.tool_call_id == "a_b"));
        assert_eq!(context.messages.len(), 1);
    }
}
