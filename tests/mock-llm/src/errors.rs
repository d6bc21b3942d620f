//! The JSON error bodies each provider really sends, so tests can check that pi surfaces the
//! provider's own words.

use crate::Api;
use serde_json::{Value, json};

/// The message of a 429 response.
pub fn rate_limit_message(api: Api) -> &'static str {
    match api {
        Api::AnthropicMessages => {
            "Number of request tokens has exceeded your per-minute rate limit (https://docs.claude.com/en/api/rate-limits); see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later."
        }
        Api::OpenAiCompletions | Api::OpenAiResponses => {
            "Rate limit reached for mock-model in organization org-mock on tokens per min (TPM): Limit 30000, Used 30000, Requested 1200. Please try again in 2.4s."
        }
        Api::GoogleGenerativeAi => "Resource has been exhausted (e.g. check quota).",
    }
}

/// The message of a 5xx response with `status`.
pub fn server_error_message(api: Api, status: u16) -> &'static str {
    match (api, status) {
        (Api::AnthropicMessages, 529) => "Overloaded",
        (Api::AnthropicMessages, _) => "Internal server error",
        (Api::OpenAiCompletions | Api::OpenAiResponses, 503 | 529) => {
            "The engine is currently overloaded, please try again later."
        }
        (Api::OpenAiCompletions | Api::OpenAiResponses, _) => {
            "The server had an error while processing your request. Sorry about that!"
        }
        (Api::GoogleGenerativeAi, 503 | 529) => "The model is overloaded. Please try again later.",
        (Api::GoogleGenerativeAi, _) => {
            "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting"
        }
    }
}

/// The message of the 400 a provider sends for a prompt longer than the context window.
pub fn context_overflow_message(api: Api) -> &'static str {
    match api {
        Api::AnthropicMessages => "prompt is too long: 213462 tokens > 200000 maximum",
        Api::OpenAiCompletions => {
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 213462 tokens. Please reduce the length of the messages."
        }
        Api::OpenAiResponses => {
            "Your input exceeds the context window of this model. Please adjust your input and try again."
        }
        Api::GoogleGenerativeAi => {
            "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."
        }
    }
}

/// The 429 body.
pub fn rate_limit_body(api: Api) -> Value {
    let message = rate_limit_message(api);
    match api {
        Api::AnthropicMessages => anthropic("rate_limit_error", message),
        Api::OpenAiCompletions | Api::OpenAiResponses => openai(
            message,
            "requests",
            json!("rate_limit_exceeded"),
            Value::Null,
        ),
        Api::GoogleGenerativeAi => google(429, "RESOURCE_EXHAUSTED", message),
    }
}

/// The body of a 5xx with `status` (500, 502, 503, 529…).
pub fn server_error_body(api: Api, status: u16) -> Value {
    let message = server_error_message(api, status);
    match api {
        Api::AnthropicMessages if status == 529 => anthropic("overloaded_error", message),
        Api::AnthropicMessages => anthropic("api_error", message),
        Api::OpenAiCompletions | Api::OpenAiResponses => {
            openai(message, "server_error", Value::Null, Value::Null)
        }
        Api::GoogleGenerativeAi if matches!(status, 503 | 529) => {
            google(503, "UNAVAILABLE", message)
        }
        Api::GoogleGenerativeAi => google(500, "INTERNAL", message),
    }
}

/// The 400 body for a too-long prompt.
pub fn context_overflow_body(api: Api) -> Value {
    let message = context_overflow_message(api);
    match api {
        Api::AnthropicMessages => anthropic("invalid_request_error", message),
        Api::OpenAiCompletions => openai(
            message,
            "invalid_request_error",
            json!("context_length_exceeded"),
            json!("messages"),
        ),
        Api::OpenAiResponses => openai(
            message,
            "invalid_request_error",
            json!("context_length_exceeded"),
            json!("input"),
        ),
        Api::GoogleGenerativeAi => google(400, "INVALID_ARGUMENT", message),
    }
}

fn anthropic(kind: &str, message: &str) -> Value {
    json!({
        "type": "error",
        "error": {"type": kind, "message": message},
        "request_id": "req_mock_1"
    })
}

fn openai(message: &str, kind: &str, code: Value, param: Value) -> Value {
    json!({"error": {"message": message, "type": kind, "param": param, "code": code}})
}

fn google(code: u16, status: &str, message: &str) -> Value {
    json!({"error": {"code": code, "message": message, "status": status}})
}
