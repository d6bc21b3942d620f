//! The streamable-HTTP client: rmcp's transport worker (session id, `MCP-Protocol-Version`,
//! resumption with `Last-Event-ID`, SSE streams) over the workspace's reqwest 0.12, through
//! rmcp's [`StreamableHttpClient`] trait, so the binary has one reqwest. Requests other than
//! `tools/call` answered 408, 429 or 5xx are sent again, twice at most. A 401 asks the
//! [`BearerSource`] for a fresh token once, then makes the server `NeedsAuth`.

use crate::spec::ServerSpec;
use futures::StreamExt;
use pi_agent::BoxFuture;
use reqwest::StatusCode;
use reqwest::header::{
    ACCEPT, CONTENT_TYPE, HeaderName, HeaderValue, RETRY_AFTER, WWW_AUTHENTICATE,
};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_client::{
    AuthRequiredError, HttpStatusError, SseError, StreamableHttpClient, StreamableHttpError,
    StreamableHttpPostResponse,
};
use sse_stream::{Sse, SseStream};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

const SESSION_ID: &str = "Mcp-Session-Id";
const LAST_EVENT_ID: &str = "Last-Event-ID";
const JSON: &str = "application/json";
const EVENT_STREAM: &str = "text/event-stream";
/// Retries of a request answered 408, 429 or 5xx (never for `tools/call`).
const RETRIES: u32 = 2;
/// The pause before the first retry; doubled for the second.
const RETRY_PAUSE: Duration = Duration::from_millis(250);

/// Where an HTTP server's bearer token comes from: the seam the OAuth work (tokens in
/// `<agentDir>/mcp-auth.json`) and `auth {provider}` plug into. The client asks [`token`]
/// before each request; after a 401 it calls [`refresh`] once and retries with the token it
/// returns, and when there is none the server becomes `NeedsAuth`.
///
/// [`token`]: BearerSource::token
/// [`refresh`]: BearerSource::refresh
pub trait BearerSource: Send + Sync {
    /// The current access token, if any.
    fn token(&self) -> Option<String>;
    /// Called before each request: a token about to expire is refreshed here (the default
    /// does nothing).
    fn prepare(&self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }
    /// A new token after the server refused the current one (refresh token, re-login), or
    /// `None` when the user has to log in again.
    fn refresh(&self) -> BoxFuture<'_, Option<String>>;
}

/// Where HTTP servers' tokens come from (OAuth, `auth {provider}`): see [`BearerSource`].
pub trait AuthProvider: Send + Sync {
    /// The token source of `server`, `None` for a server without authentication.
    fn bearer(&self, server: &ServerSpec) -> Option<Arc<dyn BearerSource>>;
}

/// Set once a server answered 401 with no usable token.
#[derive(Clone, Default)]
pub struct NeedsAuthFlag(Arc<AtomicBool>);

impl NeedsAuthFlag {
    pub fn get(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
    fn set(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// What failed below MCP.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error(transparent)]
    Request(#[from] reqwest::Error),
}

type Error = StreamableHttpError<HttpError>;

/// The reqwest client of one HTTP server, with its configured headers.
#[derive(Clone)]
pub struct HttpClient {
    http: reqwest::Client,
    headers: Arc<Vec<(HeaderName, HeaderValue)>>,
    bearer: Option<Arc<dyn BearerSource>>,
    needs_auth: NeedsAuthFlag,
}

impl HttpClient {
    /// A client sending `headers` (the server's `headers` in `mcp.json`) on every request.
    pub fn new(
        headers: &[(String, String)],
        bearer: Option<Arc<dyn BearerSource>>,
    ) -> Result<Self, String> {
        let headers = headers
            .iter()
            .map(|(name, value)| {
                let name = HeaderName::from_bytes(name.as_bytes())
                    .map_err(|e| format!("invalid header name {name:?}: {e}"))?;
                let value = HeaderValue::from_str(value)
                    .map_err(|e| format!("invalid value of header {name}: {e}"))?;
                Ok((name, value))
            })
            .collect::<Result<Vec<_>, String>>()?;
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(30))
            .build()
            .map_err(|e| format!("cannot build the HTTP client: {e}"))?;
        Ok(HttpClient {
            http,
            headers: Arc::new(headers),
            bearer,
            needs_auth: NeedsAuthFlag::default(),
        })
    }

    pub fn needs_auth_flag(&self) -> NeedsAuthFlag {
        self.needs_auth.clone()
    }

    /// The configured headers, the transport's (protocol version), the session and the token.
    fn request(
        &self,
        builder: reqwest::RequestBuilder,
        session: Option<&str>,
        token: Option<String>,
        custom: &HashMap<HeaderName, HeaderValue>,
    ) -> reqwest::RequestBuilder {
        let mut builder = builder;
        for (name, value) in self.headers.iter() {
            builder = builder.header(name, value);
        }
        for (name, value) in custom {
            builder = builder.header(name, value);
        }
        if let Some(session) = session {
            builder = builder.header(SESSION_ID, session);
        }
        let token = token.or_else(|| self.bearer.as_ref().and_then(|b| b.token()));
        if let Some(token) = token {
            builder = builder.bearer_auth(token);
        }
        builder
    }

    /// Sends a request built by `build` with the current token; a 401 refreshes the token once,
    /// and 408/429/5xx are retried `retries` times.
    async fn send(
        &self,
        retries: u32,
        auth_header: Option<String>,
        build: impl Fn(Option<String>) -> reqwest::RequestBuilder,
    ) -> Result<reqwest::Response, Error> {
        let mut token = auth_header;
        if token.is_none()
            && let Some(bearer) = &self.bearer
        {
            bearer.prepare().await;
        }
        let mut refreshed = false;
        let mut attempt = 0;
        loop {
            let response = build(token.clone())
                .send()
                .await
                .map_err(|e| StreamableHttpError::Client(e.into()))?;
            let status = response.status();
            if status == StatusCode::UNAUTHORIZED {
                if !refreshed && let Some(bearer) = &self.bearer {
                    refreshed = true;
                    if let Some(fresh) = bearer.refresh().await {
                        token = Some(fresh);
                        continue;
                    }
                }
                self.needs_auth.set();
                let challenge = header_text(&response, WWW_AUTHENTICATE).unwrap_or_default();
                return Err(StreamableHttpError::AuthRequired(AuthRequiredError::new(
                    challenge,
                )));
            }
            let retryable = status == StatusCode::REQUEST_TIMEOUT
                || status == StatusCode::TOO_MANY_REQUESTS
                || status.is_server_error();
            if retryable && attempt < retries {
                tokio::time::sleep(RETRY_PAUSE * 2u32.pow(attempt)).await;
                attempt += 1;
                continue;
            }
            return Ok(response);
        }
    }
}

fn header_text(response: &reqwest::Response, name: HeaderName) -> Option<String> {
    response
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

fn status_error(response: &reqwest::Response) -> Error {
    HttpStatusError::new(
        response.status().as_u16(),
        header_text(response, RETRY_AFTER),
    )
    .into()
}

fn media_type_is(response: &reqwest::Response, wanted: &str) -> bool {
    header_text(response, CONTENT_TYPE).is_some_and(|ct| {
        ct.split(';')
            .next()
            .is_some_and(|essence| essence.trim().eq_ignore_ascii_case(wanted))
    })
}

fn sse(response: reqwest::Response) -> futures::stream::BoxStream<'static, Result<Sse, SseError>> {
    SseStream::from_bytes_stream(response.bytes_stream()).boxed()
}

impl StreamableHttpClient for HttpClient {
    type Error = HttpError;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, Error> {
        let body = serde_json::to_value(&message)?;
        // A tool call may have had effects: never sent twice.
        let retries = if body.get("method").and_then(|m| m.as_str()) == Some("tools/call") {
            0
        } else {
            RETRIES
        };
        let awaits_nothing = body.get("method").is_none() || body.get("id").is_none();
        let body = serde_json::to_vec(&body)?;
        let session = session_id.as_deref();
        let response = self
            .send(retries, auth_header, |token| {
                let builder = self
                    .http
                    .post(uri.as_ref())
                    .header(ACCEPT, format!("{JSON}, {EVENT_STREAM}"))
                    .header(CONTENT_TYPE, JSON)
                    .body(body.clone());
                self.request(builder, session, token, &custom_headers)
            })
            .await?;
        let status = response.status();
        if status == StatusCode::ACCEPTED || status == StatusCode::NO_CONTENT {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        if status == StatusCode::NOT_FOUND && session.is_some() {
            return Err(StreamableHttpError::SessionExpired);
        }
        let new_session = header_text(&response, HeaderName::from_static("mcp-session-id"));
        if media_type_is(&response, EVENT_STREAM) && status.is_success() {
            return Ok(StreamableHttpPostResponse::Sse(sse(response), new_session));
        }
        let is_json = media_type_is(&response, JSON);
        if !is_json && !status.is_success() {
            return Err(status_error(&response));
        }
        let error = status_error(&response);
        let bytes = response
            .bytes()
            .await
            .map_err(|e| StreamableHttpError::Client(e.into()))?;
        if bytes.is_empty() && status.is_success() && awaits_nothing {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        if !is_json {
            return Err(StreamableHttpError::UnexpectedContentType(None));
        }
        // A failing status may still carry the JSON-RPC error, which says more than the code.
        match serde_json::from_slice(&bytes) {
            Ok(message) => Ok(StreamableHttpPostResponse::Json(message, new_session)),
            Err(_) if !status.is_success() => Err(error),
            Err(parse) => Err(parse.into()),
        }
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), Error> {
        let response = self
            .send(RETRIES, auth_header, |token| {
                let builder = self.http.delete(uri.as_ref());
                self.request(builder, Some(&session_id), token, &custom_headers)
            })
            .await?;
        if response.status() == StatusCode::METHOD_NOT_ALLOWED {
            return Err(StreamableHttpError::ServerDoesNotSupportDeleteSession);
        }
        if !response.status().is_success() {
            return Err(status_error(&response));
        }
        Ok(())
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<futures::stream::BoxStream<'static, Result<Sse, SseError>>, Error> {
        let response = self
            .send(RETRIES, auth_header, |token| {
                let mut builder = self.http.get(uri.as_ref()).header(ACCEPT, EVENT_STREAM);
                if let Some(id) = &last_event_id {
                    builder = builder.header(LAST_EVENT_ID, id);
                }
                self.request(builder, session_id.as_deref(), token, &custom_headers)
            })
            .await?;
        if response.status() == StatusCode::METHOD_NOT_ALLOWED {
            return Err(StreamableHttpError::ServerDoesNotSupportSse);
        }
        if !response.status().is_success() {
            return Err(status_error(&response));
        }
        if !media_type_is(&response, EVENT_STREAM) {
            return Err(StreamableHttpError::UnexpectedContentType(header_text(
                &response,
                CONTENT_TYPE,
            )));
        }
        Ok(sse(response))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A loopback server answering 503 to the first `failures` requests, then a JSON-RPC
    /// result; how many requests it saw.
    async fn flaky(failures: usize) -> (String, Arc<AtomicUsize>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        let seen = Arc::new(AtomicUsize::new(0));
        let count = seen.clone();
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let mut buffer = vec![0u8; 65536];
                let _ = socket.read(&mut buffer).await;
                let n = count.fetch_add(1, Ordering::SeqCst);
                let body = r#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
                let reply = if n < failures {
                    "HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nconnection: close\r\n\r\n".to_owned()
                } else {
                    format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                        body.len()
                    )
                };
                let _ = socket.write_all(reply.as_bytes()).await;
            }
        });
        (url, seen)
    }

    fn request(method: &str) -> ClientJsonRpcMessage {
        let params = if method == "tools/call" {
            serde_json::json!({"name": "t", "arguments": {}})
        } else {
            serde_json::json!({})
        };
        serde_json::from_value(
            serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}),
        )
        .unwrap()
    }

    async fn post(url: &str, method: &str) -> Result<StreamableHttpPostResponse, Error> {
        let client = HttpClient::new(&[], None).unwrap();
        client
            .post_message(url.into(), request(method), None, None, HashMap::new())
            .await
    }

    #[tokio::test]
    async fn server_errors_are_retried_twice_but_never_for_tool_calls() {
        let (url, seen) = flaky(2).await;
        let answer = post(&url, "tools/list").await.unwrap();
        assert!(matches!(answer, StreamableHttpPostResponse::Json(..)));
        assert_eq!(seen.load(Ordering::SeqCst), 3);

        let (url, seen) = flaky(3).await;
        let error = post(&url, "ping").await.err().unwrap();
        assert!(
            matches!(error, StreamableHttpError::HttpStatus(ref e) if e.status == 503),
            "{error}"
        );
        assert_eq!(seen.load(Ordering::SeqCst), 3);

        let (url, seen) = flaky(1).await;
        let error = post(&url, "tools/call").await.err().unwrap();
        assert!(
            matches!(error, StreamableHttpError::HttpStatus(_)),
            "{error}"
        );
        assert_eq!(seen.load(Ordering::SeqCst), 1);
    }

    /// Answers 401 unless the request carries `Bearer fresh`; the tokens it saw.
    async fn locked() -> (String, Arc<std::sync::Mutex<Vec<String>>>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let tokens = seen.clone();
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let mut buffer = vec![0u8; 65536];
                let n = socket.read(&mut buffer).await.unwrap_or(0);
                let head = String::from_utf8_lossy(&buffer[..n]).to_ascii_lowercase();
                let token = head
                    .lines()
                    .find_map(|l| l.strip_prefix("authorization: bearer "))
                    .unwrap_or("")
                    .trim()
                    .to_owned();
                let ok = token == "fresh";
                tokens.lock().unwrap().push(token);
                let body = r#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
                let reply = if ok {
                    format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                        body.len()
                    )
                } else {
                    "HTTP/1.1 401 Unauthorized\r\nwww-authenticate: Bearer realm=\"t\"\r\ncontent-length: 0\r\nconnection: close\r\n\r\n".to_owned()
                };
                let _ = socket.write_all(reply.as_bytes()).await;
            }
        });
        (url, seen)
    }

    struct Tokens {
        refreshed: Option<&'static str>,
    }

    impl BearerSource for Tokens {
        fn token(&self) -> Option<String> {
            Some("stale".to_owned())
        }
        fn refresh(&self) -> BoxFuture<'_, Option<String>> {
            Box::pin(async move { self.refreshed.map(str::to_owned) })
        }
    }

    #[tokio::test]
    async fn a_401_refreshes_the_token_once_then_needs_auth() {
        let (url, seen) = locked().await;
        let source = Arc::new(Tokens {
            refreshed: Some("fresh"),
        });
        let client = HttpClient::new(&[], Some(source)).unwrap();
        let answer = client
            .post_message(
                url.as_str().into(),
                request("ping"),
                None,
                None,
                HashMap::new(),
            )
            .await
            .unwrap();
        assert!(matches!(answer, StreamableHttpPostResponse::Json(..)));
        assert_eq!(*seen.lock().unwrap(), ["stale", "fresh"]);
        assert!(!client.needs_auth_flag().get());

        let (url, seen) = locked().await;
        let client = HttpClient::new(&[], Some(Arc::new(Tokens { refreshed: None }))).unwrap();
        let error = client
            .post_message(
                url.as_str().into(),
                request("ping"),
                None,
                None,
                HashMap::new(),
            )
            .await
            .err()
            .unwrap();
        assert!(
            matches!(error, StreamableHttpError::AuthRequired(ref e) if e.www_authenticate_header == "Bearer realm=\"t\""),
            "{error}"
        );
        assert_eq!(*seen.lock().unwrap(), ["stale"]);
        assert!(client.needs_auth_flag().get());
    }
}
