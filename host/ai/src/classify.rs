//! Reading failed responses: did the request overflow the context window (→ compact), and is
//! the error transient (→ retry the turn)? Providers only tell us in prose, so both questions
//! are answered by matching the wording each provider is known to use.

use crate::types::{AssistantMessage, StopReason};
use regex::{Regex, RegexBuilder};
use std::sync::LazyLock;

/// Wording of context-window overflows, one entry per provider phrasing.
const OVERFLOW_PATTERNS: &[&str] = &[
    r"prompt is too long",                    // Anthropic
    r"request_too_large",                     // Anthropic (HTTP 413)
    r"input is too long for requested model", // Amazon Bedrock
    r"exceeds the context window",            // OpenAI
    r"exceeds (the )?(model's )?maximum context length( of \d+ tokens| \(\d+\))?", // LiteLLM & co.
    r"input token count.*exceeds the maximum", // Google Gemini
    r"maximum prompt length is \d+",          // xAI
    r"reduce the length of the messages",     // Groq
    r"maximum context length is \d+ tokens",  // OpenRouter
    r"exceeds (the )?maximum allowed input length of \d+ tokens", // Poolside
    r"input \(\d+ tokens\) is longer than the model's context length", // Together
    r"exceeds the limit of \d+",              // GitHub Copilot
    r"exceeds the available context size",    // llama.cpp
    r"greater than the context length",       // LM Studio
    r"context window exceeds limit",          // MiniMax
    r"exceeded model token limit",            // Kimi
    r"too large for model with \d+ maximum context length", // Mistral
    r"prompt has \d+ tokens, but the configured context size is \d+ tokens", // DS4
    r"model_context_window_exceeded",         // z.ai
    r"prompt too long; exceeded (max )?context length", // Ollama
    r"range of input length should be",       // DashScope / Qwen
    r"context[_ ]length[_ ]exceeded",         // generic
    r"too many tokens",                       // generic
    r"token limit exceeded",                  // generic
    r"^4(00|13)\s*(status code)?\s*\(no body\)", // Cerebras (empty 400/413)
];

/// Errors that mention limits but are not about the context window.
const NOT_OVERFLOW_PATTERNS: &[&str] = &[
    r"^(Throttling error|Service unavailable):",
    r"rate limit",
    r"too many requests",
];

/// Quota and billing failures: waiting will not fix them, so they are never retried.
const NON_RETRYABLE_PATTERNS: &[&str] = &[
    r"GoUsageLimitError",
    r"FreeUsageLimitError",
    r"Monthly usage limit reached",
    r"available balance",
    r"insufficient_quota",
    r"out of budget",
    r"quota exceeded",
    r"billing",
];

/// Transient failures: overload, rate limiting, server errors, dropped connections, timeouts,
/// streams cut short.
const RETRYABLE_PATTERNS: &[&str] = &[
    r"overloaded",
    r"rate.?limit",
    r"too many requests",
    r"429",
    r"500",
    r"502",
    r"503",
    r"504",
    r"524",
    r"service.?unavailable",
    r"server.?error",
    r"internal.?error",
    r"provider.?returned.?error",
    r"network.?error",
    r"connection.?error",
    r"connection.?refused",
    r"connection.?lost",
    r"other side closed",
    r"fetch failed",
    r"getaddrinfo",
    r"ENOTFOUND",
    r"EAI_AGAIN",
    r"upstream.?connect",
    r"reset before headers",
    r"socket hang up",
    r"socket connection was closed",
    r"timed? out",
    r"timeout",
    r"terminated",
    r"websocket.?closed",
    r"websocket.?error",
    r"ended without",
    r"stream ended before message_stop",
    r"stream ended before a terminal response event",
    r"http2 request did not get a response",
    r"retry delay",
    r"you can retry your request",
    r"try your request again",
    r"please retry your request",
    r"ResourceExhausted",
];

/// One case-insensitive regex matching any of `patterns`; `None` (matches nothing) only if a
/// constant pattern were invalid, which the tests rule out.
fn alternation(patterns: &[&str]) -> Option<Regex> {
    let joined = patterns
        .iter()
        .map(|p| format!("(?:{p})"))
        .collect::<Vec<_>>()
        .join("|");
    RegexBuilder::new(&joined)
        .case_insensitive(true)
        .build()
        .inspect_err(|e| tracing::error!("invalid classification pattern: {e}"))
        .ok()
}

static OVERFLOW: LazyLock<Option<Regex>> = LazyLock::new(|| alternation(OVERFLOW_PATTERNS));
static NOT_OVERFLOW: LazyLock<Option<Regex>> = LazyLock::new(|| alternation(NOT_OVERFLOW_PATTERNS));
static NON_RETRYABLE: LazyLock<Option<Regex>> =
    LazyLock::new(|| alternation(NON_RETRYABLE_PATTERNS));
static RETRYABLE: LazyLock<Option<Regex>> = LazyLock::new(|| alternation(RETRYABLE_PATTERNS));

fn matches(regex: &LazyLock<Option<Regex>>, text: &str) -> bool {
    regex.as_ref().is_some_and(|r| r.is_match(text))
}

/// Whether `message` shows that the request did not fit the model's context window.
///
/// 1. An error whose text matches a known overflow wording (and is not a rate-limit or
///    throttling message that happens to mention tokens).
/// 2. z.ai accepts oversized input silently: a normal stop whose input + cache reads exceed
///    `context_window`.
/// 3. Xiaomi answers an oversized prompt with an empty, length-truncated response: stop reason
///    `length`, no output, input + cache reads at 99 % of `context_window` or more.
pub fn is_context_overflow(message: &AssistantMessage, context_window: Option<u64>) -> bool {
    if message.stop_reason == StopReason::Error {
        let text = message.error_message.as_deref().unwrap_or_default();
        return !matches(&NOT_OVERFLOW, text) && matches(&OVERFLOW, text);
    }
    let Some(window) = context_window.filter(|w| *w > 0) else {
        return false;
    };
    let seen = message.usage.input + message.usage.cache_read;
    match message.stop_reason {
        StopReason::Stop => seen > window,
        StopReason::Length => message.usage.output == 0 && seen as f64 >= 0.99 * window as f64,
        _ => false,
    }
}

/// Whether an errored response is worth retrying: a transient failure, not a quota or billing
/// problem. Context overflow is the caller's separate check (it is handled by compaction).
pub fn is_retryable_error(message: &AssistantMessage) -> bool {
    if message.stop_reason != StopReason::Error {
        return false;
    }
    let Some(text) = message.error_message.as_deref().filter(|t| !t.is_empty()) else {
        return false;
    };
    !matches(&NON_RETRYABLE, text) && matches(&RETRYABLE, text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Usage;

    fn error(text: &str) -> AssistantMessage {
        AssistantMessage {
            stop_reason: StopReason::Error,
            error_message: Some(text.to_owned()),
            ..Default::default()
        }
    }

    /// Real provider wording, one row per overflow pattern (same order as the list).
    const OVERFLOW_ROWS: &[&str] = &[
        "400 Bad Request: prompt is too long: 213462 tokens > 200000 maximum (invalid_request_error)",
        "413 Payload Too Large: request_too_large",
        "ValidationException: Input is too long for requested model.",
        "Your input exceeds the context window of this model. Please adjust your input and try again.",
        "litellm.ContextWindowExceededError: This model's maximum context length is exceeded: exceeds the maximum context length of 8192 tokens",
        "The input token count (1196265) exceeds the maximum number of tokens allowed (1048575).",
        "This model's maximum prompt length is 131072 but the request contains 537812 tokens.",
        "Please reduce the length of the messages or completion.",
        "This endpoint's maximum context length is 200000 tokens. However, you requested about 256000 tokens.",
        "Request exceeds the maximum allowed input length of 128000 tokens",
        "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 32769. Given: input (40000 tokens) is longer than the model's context length",
        "prompt token count of 140000 exceeds the limit of 128000",
        "the request exceeds the available context size, try increasing it",
        "Trying to keep the first 9000 tokens when context the overflows. However, the model is loaded with context length of 8192 which is greater than the context length",
        "invalid params, context window exceeds limit (2013)",
        "Invalid request: Your request exceeded model token limit: 262144 (requested: 300000)",
        "Prompt contains 140000 tokens and 0 draft tokens, too large for model with 131072 maximum context length",
        "prompt has 70000 tokens, but the configured context size is 65536 tokens",
        "model_context_window_exceeded",
        "prompt too long; exceeded max context length by 1200 tokens",
        "Range of input length should be [1, 129024]",
        "context_length_exceeded",
        "Too many tokens in the request",
        "token limit exceeded for this request",
        "400 status code (no body)",
    ];

    #[test]
    fn every_overflow_pattern_matches_its_provider_wording() {
        assert_eq!(OVERFLOW_ROWS.len(), OVERFLOW_PATTERNS.len());
        for (pattern, row) in OVERFLOW_PATTERNS.iter().zip(OVERFLOW_ROWS) {
            let single = RegexBuilder::new(pattern)
                .case_insensitive(true)
                .build()
                .unwrap();
            assert!(
                single.is_match(row),
                "pattern {pattern:?} should match {row:?}"
            );
            assert!(is_context_overflow(&error(row), None), "{row}");
        }
    }

    #[test]
    fn overflow_variants_of_the_flexible_patterns() {
        for row in [
            "exceeds maximum context length (32768)",
            "input exceeds the model's maximum context length",
            "413 (no body)",
            "Context length exceeded",
            "prompt too long; exceeded context length",
            "Request exceeds maximum allowed input length of 32000 tokens",
        ] {
            assert!(is_context_overflow(&error(row), Some(1000)), "{row}");
        }
    }

    #[test]
    fn non_overflow_errors_are_not_overflow() {
        for row in [
            "429 Too Many Requests: rate limit reached for tokens per minute: too many tokens",
            "Throttling error: Too many tokens, please wait before trying again.",
            "Service unavailable: token limit exceeded on the shared pool",
            "Rate limit exceeded: too many tokens per minute",
            "You exceeded your current quota, please check your plan and billing details (insufficient_quota)",
            "Your credit balance is too low to access the Anthropic API.",
            "529 overloaded_error: Overloaded",
            "500 status code (no body)",
            "401 Unauthorized: invalid x-api-key",
        ] {
            assert!(!is_context_overflow(&error(row), Some(200_000)), "{row}");
        }
    }

    fn finished(reason: StopReason, input: u64, cache_read: u64, output: u64) -> AssistantMessage {
        AssistantMessage {
            stop_reason: reason,
            usage: Usage {
                input,
                cache_read,
                output,
                ..Default::default()
            },
            ..Default::default()
        }
    }

    #[test]
    fn silent_overflow_when_input_exceeds_the_window() {
        assert!(is_context_overflow(
            &finished(StopReason::Stop, 120_000, 20_000, 10),
            Some(128_000)
        ));
        assert!(!is_context_overflow(
            &finished(StopReason::Stop, 100_000, 28_000, 10),
            Some(128_000)
        ));
        assert!(!is_context_overflow(
            &finished(StopReason::Stop, 500_000, 0, 10),
            None
        ));
        assert!(!is_context_overflow(
            &finished(StopReason::ToolUse, 500_000, 0, 10),
            Some(128_000)
        ));
    }

    #[test]
    fn empty_length_stop_near_the_window_is_overflow() {
        let window = Some(100_000);
        assert!(is_context_overflow(
            &finished(StopReason::Length, 98_000, 1_000, 0),
            window
        ));
        assert!(!is_context_overflow(
            &finished(StopReason::Length, 98_000, 0, 0),
            window
        ));
        assert!(!is_context_overflow(
            &finished(StopReason::Length, 99_500, 0, 12),
            window
        ));
    }

    /// One row per retryable pattern, with the wording that produces it.
    const RETRYABLE_ROWS: &[&str] = &[
        "529 overloaded_error: Overloaded",
        "Rate limit reached for gpt-5 in organization org-x",
        "Too Many Requests",
        "429 status code (no body)",
        "500 Internal Server Error",
        "502 Bad Gateway",
        "503 upstream unavailable",
        "504 Gateway Timeout",
        "524 A timeout occurred",
        "Service Unavailable",
        "The server had an error while processing your request (server_error)",
        "INTERNAL: internal error encountered",
        "Provider returned error",
        "openai: Network error",
        "anthropic: connection error: error sending request",
        "connect ECONNREFUSED: Connection refused",
        "anthropic: connection lost while streaming: unexpected EOF",
        "other side closed",
        "TypeError: fetch failed",
        "getaddrinfo EAI_AGAIN api.openai.com",
        "getaddrinfo ENOTFOUND api.x.ai",
        "EAI_AGAIN",
        "upstream connect error or disconnect/reset before headers",
        "reset before headers. reset reason: overflow",
        "socket hang up",
        "The socket connection was closed unexpectedly",
        "openai: request timed out: no response headers after 600 s",
        "ETIMEDOUT: timeout",
        "terminated",
        "WebSocket closed 1006",
        "websocket error: connection reset",
        "stream ended without a final message",
        "stream ended before message_stop",
        "stream ended before a terminal response event",
        "http2 request did not get a response",
        "Server requested 3600s retry delay (max: 60s). 429 Too Many Requests",
        "An error occurred. You can retry your request.",
        "Something went wrong. Please try your request again.",
        "Temporary failure, please retry your request",
        "ResourceExhausted: the model is busy",
    ];

    #[test]
    fn every_retryable_pattern_matches_its_wording() {
        assert_eq!(RETRYABLE_ROWS.len(), RETRYABLE_PATTERNS.len());
        for (pattern, row) in RETRYABLE_PATTERNS.iter().zip(RETRYABLE_ROWS) {
            let single = RegexBuilder::new(pattern)
                .case_insensitive(true)
                .build()
                .unwrap();
            assert!(
                single.is_match(row),
                "pattern {pattern:?} should match {row:?}"
            );
            assert!(is_retryable_error(&error(row)), "{row}");
        }
    }

    #[test]
    fn quota_and_billing_errors_are_never_retried() {
        let rows = [
            "GoUsageLimitError: 429 usage limit",
            "FreeUsageLimitError (429)",
            "Monthly usage limit reached. 429",
            "503: your available balance is insufficient",
            "429 You exceeded your current quota (insufficient_quota)",
            "429: out of budget",
            "RESOURCE_EXHAUSTED 429: Quota exceeded for metric",
            "402: billing hard limit reached, server error",
        ];
        assert_eq!(rows.len(), NON_RETRYABLE_PATTERNS.len());
        for row in rows {
            assert!(!is_retryable_error(&error(row)), "{row}");
        }
    }

    #[test]
    fn other_errors_and_successes_are_not_retryable() {
        for row in [
            "malformed response stream: expected value at line 1 column 1",
            "401 Unauthorized: invalid api key",
            "",
        ] {
            assert!(!is_retryable_error(&error(row)), "{row:?}");
        }
        let mut ok = error("503 Service Unavailable");
        ok.stop_reason = StopReason::Stop;
        assert!(!is_retryable_error(&ok));
        let mut no_text = error("x");
        no_text.error_message = None;
        assert!(!is_retryable_error(&no_text));
    }
}
