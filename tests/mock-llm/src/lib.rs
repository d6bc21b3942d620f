//! A loopback LLM server for tests: a real HTTP/1.1 server on 127.0.0.1 speaking the streaming
//! wire formats of the four protocols pi uses, answering from a script and injecting faults.
//!
//! ```no_run
//! use pi_mock_llm::{Api, MockLlm, Reply, Turn};
//! let mock = MockLlm::start();
//! mock.push(Turn::text("Hello!").usage(12, 3, 0, 0).chunk(2));
//! mock.push(Reply::server_error(Api::AnthropicMessages, 529));
//! let model = mock.model(Api::AnthropicMessages); // a pi `Model` pointing at the mock
//! // ... run pi against `model`, then inspect `mock.requests()`.
//! ```
//!
//! Every request, whatever its route, takes the next reply from one FIFO queue, unless a keyed
//! queue ([`MockLlm::push_keyed`]) matches its system prompt or first user message. The protocol of
//! a scripted [`Turn`] is decided by the request's path. An empty queue answers 500
//! "mock: no scripted reply", so a test that sends more requests than it scripted fails loudly.
//! Each connection serves one request and is closed afterwards.
//!
//! [`oauth::MockOAuth`] is its sign-in counterpart: authorize, token, refresh and device-code
//! endpoints on loopback, and a browser stand-in ([`oauth::browse`]).
//! [`mcp_oauth::MockMcpOAuth`] is an OAuth-protected streamable-HTTP MCP server with its own
//! authorization server, for pi's MCP sign-in tests.

pub mod errors;
mod head;
mod http;
pub mod mcp_oauth;
pub mod oauth;
mod render;
mod reply;
mod server;
mod turn;

pub use reply::Reply;
pub use turn::{Block, Stop, Turn, TurnUsage};

use pi_ai::{Modality, Model, ModelCost};
use serde_json::Value;
use server::Shared;
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// The four wire protocols, by pi's `api` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Api {
    /// `anthropic-messages`: `POST /v1/messages`.
    AnthropicMessages,
    /// `openai-completions`: `POST /v1/chat/completions`.
    OpenAiCompletions,
    /// `openai-responses`: `POST /v1/responses`.
    OpenAiResponses,
    /// `google-generative-ai`: `POST /v1beta/models/{id}:streamGenerateContent?alt=sse`.
    GoogleGenerativeAi,
}

impl Api {
    pub const ALL: [Api; 4] = [
        Api::AnthropicMessages,
        Api::OpenAiCompletions,
        Api::OpenAiResponses,
        Api::GoogleGenerativeAi,
    ];

    /// pi's `api` value.
    pub fn as_str(self) -> &'static str {
        match self {
            Api::AnthropicMessages => "anthropic-messages",
            Api::OpenAiCompletions => "openai-completions",
            Api::OpenAiResponses => "openai-responses",
            Api::GoogleGenerativeAi => "google-generative-ai",
        }
    }

    pub fn parse(api: &str) -> Option<Api> {
        Api::ALL.into_iter().find(|a| a.as_str() == api)
    }

    /// The protocol a request path belongs to.
    pub fn from_path(path: &str) -> Option<Api> {
        if path.ends_with("/chat/completions") {
            Some(Api::OpenAiCompletions)
        } else if path.ends_with("/responses") {
            Some(Api::OpenAiResponses)
        } else if path.ends_with("/messages") {
            Some(Api::AnthropicMessages)
        } else if path.contains(":streamGenerateContent") || path.contains(":generateContent") {
            Some(Api::GoogleGenerativeAi)
        } else {
            None
        }
    }
}

impl std::fmt::Display for Api {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A request as the server received it.
#[derive(Debug, Clone, PartialEq)]
pub struct LoggedRequest {
    pub method: String,
    pub path: String,
    /// The query string without `?` (empty when none).
    pub query: String,
    /// Header names are lowercased.
    pub headers: BTreeMap<String, String>,
    /// The body parsed as JSON (a JSON string holding the text when it is not JSON; null when
    /// empty).
    pub body: Value,
    /// The protocol of the path, if it is one of the four.
    pub api: Option<Api>,
    /// The client closed the connection before the reply was complete (abort, timeout).
    pub client_went_away: bool,
    /// The reply was played to its end (or the client left): the request is over.
    pub answered: bool,
    /// When the request had been read in full (for latency measures).
    pub received: Instant,
    /// When the request was over (`answered` turned true).
    pub answered_at: Option<Instant>,
}

impl LoggedRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(&name.to_ascii_lowercase())
            .map(String::as_str)
    }
}

/// The running server. It stops (and closes every connection) when dropped.
pub struct MockLlm {
    addr: SocketAddr,
    shared: Arc<Shared>,
    shutdown: watch::Sender<bool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl MockLlm {
    /// Starts a server on 127.0.0.1 at a random port, on its own thread and tokio runtime, so it
    /// works from sync tests and from any runtime. Panics if it cannot (a test helper).
    pub fn start() -> MockLlm {
        match MockLlm::try_start() {
            Ok(mock) => mock,
            Err(err) => panic!("mock-llm: cannot start: {err}"),
        }
    }

    /// Like [`MockLlm::start`], returning the error instead of panicking.
    pub fn try_start() -> std::io::Result<MockLlm> {
        let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let shared = Arc::new(Shared::default());
        let (shutdown, shutdown_rx) = watch::channel(false);
        let thread_shared = shared.clone();
        let thread = std::thread::Builder::new()
            .name(format!("mock-llm-{}", addr.port()))
            .spawn(move || {
                runtime.block_on(async move {
                    // A listener that cannot be registered leaves the port unanswered: the test
                    // sees connection errors, which is loud enough.
                    if let Ok(listener) = tokio::net::TcpListener::from_std(listener) {
                        server::accept_loop(listener, thread_shared, shutdown_rx).await;
                    }
                });
                // Dropping the runtime here cancels every connection task.
            })?;
        Ok(MockLlm {
            addr,
            shared,
            shutdown,
            thread: Some(thread),
        })
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// The base URL a pi `Model` of `api` should use: Anthropic's client appends
    /// `/v1/messages`, OpenAI's `/chat/completions` or `/responses` to `…/v1`, Gemini's
    /// `/models/{id}:streamGenerateContent?alt=sse` to `…/v1beta`.
    pub fn base_url(&self, api: Api) -> String {
        match api {
            Api::AnthropicMessages => self.url(),
            Api::OpenAiCompletions | Api::OpenAiResponses => format!("{}/v1", self.url()),
            Api::GoogleGenerativeAi => format!("{}/v1beta", self.url()),
        }
    }

    /// A pi model pointing at the mock: provider `mock`, id `mock-model`, reasoning, text and
    /// image input, cost 3/15/0.3/3.75 $ per million tokens, 200 000 context, 32 000 output.
    pub fn model(&self, api: Api) -> Model {
        Model {
            id: "mock-model".into(),
            name: "Mock model".into(),
            api: api.as_str().into(),
            provider: "mock".into(),
            base_url: self.base_url(api),
            reasoning: true,
            input: vec![Modality::Text, Modality::Image],
            cost: ModelCost {
                input: 3.0,
                output: 15.0,
                cache_read: 0.3,
                cache_write: 3.75,
            },
            context_window: 200_000,
            max_tokens: 32_000,
            headers: None,
            compat: None,
        }
    }

    /// Queues a reply (a [`Turn`] converts into one).
    pub fn push(&self, reply: impl Into<Reply>) {
        self.shared.push(reply.into());
    }

    /// Queues a reply for the requests whose system prompt or first user message contains
    /// `key` (a child agent's own script); such a request takes from this queue before the
    /// main one, and falls back to the main one when this queue is empty.
    pub fn push_keyed(&self, key: &str, reply: impl Into<Reply>) {
        self.shared.push_keyed(key, reply.into());
    }

    /// Queues several replies in order.
    pub fn push_all(&self, replies: impl IntoIterator<Item = impl Into<Reply>>) {
        for reply in replies {
            self.push(reply);
        }
    }

    /// Replies still queued.
    pub fn pending(&self) -> usize {
        self.shared.pending()
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<LoggedRequest> {
        self.shared.requests()
    }

    /// Waits (asynchronously, polling) until `n` requests have arrived or `timeout` passes, and
    /// returns the log as it is then: check its length. Needs a tokio runtime.
    pub async fn wait_for_requests(&self, n: usize, timeout: Duration) -> Vec<LoggedRequest> {
        let deadline = Instant::now() + timeout;
        loop {
            let log = self.requests();
            if log.len() >= n || Instant::now() >= deadline {
                return log;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// Blocking form of [`MockLlm::wait_for_requests`], for sync tests.
    pub fn wait_for_requests_blocking(&self, n: usize, timeout: Duration) -> Vec<LoggedRequest> {
        self.shared.wait_blocking(n, timeout)
    }

    /// Waits until request number `index` (0-based) is marked `client_went_away`, or `timeout`
    /// passes. Returns whether it was.
    pub async fn wait_for_client_gone(&self, index: usize, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            let gone = self
                .requests()
                .get(index)
                .is_some_and(|r| r.client_went_away);
            if gone || Instant::now() >= deadline {
                return gone;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
}

impl MockLlm {
    /// [`wait_for_client_gone`](Self::wait_for_client_gone) for a test without a runtime.
    pub fn wait_for_client_gone_blocking(&self, index: usize, timeout: Duration) -> bool {
        self.shared.wait_gone_blocking(index, timeout)
    }
}

impl Drop for MockLlm {
    fn drop(&mut self) {
        let _ = self.shutdown.send(true);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
