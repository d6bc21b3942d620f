//! Per-request options (pi's `SimpleStreamOptions`).

use crate::types::ThinkingLevel;
use std::collections::BTreeMap;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Settings for one model request. `Default` gives pi's defaults: no retries, no reasoning.
#[derive(Debug, Clone)]
pub struct StreamOptions {
    /// Output limit for this request; `None` lets the adapter pick (the model's `maxTokens`).
    pub max_tokens: Option<u64>,
    pub temperature: Option<f64>,
    /// Requested reasoning effort; `None` or `Off` asks for no reasoning.
    pub reasoning: Option<ThinkingLevel>,
    /// An explicit key; wins over stored credentials and the environment.
    pub api_key: Option<String>,
    /// Extra headers; they override the model's and the adapter's defaults.
    pub headers: BTreeMap<String, String>,
    /// Session id, sent where a provider uses one for prompt caching or affinity.
    pub session_id: Option<String>,
    /// Cancels the request, the retry wait and the stream.
    pub cancel: CancellationToken,
    /// Request-level retries while establishing the request (default 0).
    pub max_retries: u32,
    /// Longest server-requested retry delay to honour; longer fails at once. 0 = no cap.
    /// Default 60 000.
    pub max_retry_delay_ms: u64,
    /// Longest wait for the response headers (default 10 minutes).
    pub header_timeout: Duration,
    /// Longest silence between two body chunks once streaming (default 5 minutes).
    pub idle_timeout: Duration,
}

impl Default for StreamOptions {
    fn default() -> Self {
        StreamOptions {
            max_tokens: None,
            temperature: None,
            reasoning: None,
            api_key: None,
            headers: BTreeMap::new(),
            session_id: None,
            cancel: CancellationToken::new(),
            max_retries: 0,
            max_retry_delay_ms: 60_000,
            header_timeout: Duration::from_secs(600),
            idle_timeout: Duration::from_secs(300),
        }
    }
}

impl StreamOptions {
    /// The effective reasoning level: `None` when off or unset.
    pub fn reasoning_level(&self) -> Option<ThinkingLevel> {
        self.reasoning.filter(|l| *l != ThinkingLevel::Off)
    }
}
