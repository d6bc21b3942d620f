//! A pi provider for Ollama's native chat API (`POST /api/chat`), a protocol pi does not ship:
//! newline-delimited JSON objects, each carrying a piece of the answer, tool calls as whole
//! JSON objects, and the token counts on the last (`done: true`) line. Each piece is handed to
//! pi as it arrives, so `--mode json` and the UI stream it.
//!
//! The models are the ones the server has pulled (`GET /api/tags`, asked when pi loads the
//! package). The server is `OLLAMA_HOST` (Ollama's own variable: `host:port` or a URL) or
//! `http://127.0.0.1:11434`.

use pi_guest_sdk::{
    AssistantBlock, ContentBlock, LlmContext, Message, ModelInfo, Provider, StopReason,
    StreamEvent, StreamOptions, ToolCallStart, Usage, emit, host, http,
};
use serde_json::{Map, Value, json};

const DEFAULT_HOST: &str = "http://127.0.0.1:11434";
/// Ollama's tags do not say how large a model's window is; this is what it gives a model by
/// default when the model file does not say more.
const CONTEXT_WINDOW: u64 = 32_768;
const MAX_TOKENS: u64 = 8_192;

struct Ollama;

/// The server's base URL: `OLLAMA_HOST` with a scheme added when it has none.
fn base_url() -> String {
    let host = std::env::var("OLLAMA_HOST").unwrap_or_default();
    let host = host.trim().trim_end_matches('/');
    if host.is_empty() {
        DEFAULT_HOST.to_owned()
    } else if host.contains("://") {
        host.to_owned()
    } else {
        format!("http://{host}")
    }
}

fn model_info(id: &str, base_url: &str) -> ModelInfo {
    ModelInfo {
        id: id.to_owned(),
        name: id.to_owned(),
        api: "ollama-chat".to_owned(),
        provider: "ollama".to_owned(),
        base_url: base_url.to_owned(),
        reasoning: true,
        images: true,
        context_window: CONTEXT_WINDOW,
        max_tokens: MAX_TOKENS,
    }
}

/// The models the server has, by name (`qwen3:8b`); none when it cannot be reached.
fn pulled_models(base_url: &str) -> Result<Vec<ModelInfo>, String> {
    let mut response = http::get(&format!("{base_url}/api/tags"), &[])?;
    let body = response.read_all()?;
    if response.status != 200 {
        return Err(format!("/api/tags answered {}", response.status));
    }
    let tags: Value = serde_json::from_slice(&body).map_err(|e| format!("/api/tags: {e}"))?;
    Ok(tags["models"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["name"].as_str())
        .map(|name| model_info(name, base_url))
        .collect())
}

fn text_of(blocks: &[ContentBlock]) -> String {
    blocks
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text(t) => Some(t.as_str()),
            ContentBlock::Image(_) => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn images_of(blocks: &[ContentBlock]) -> Vec<Value> {
    blocks
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Image(image) => Some(Value::String(image.data.clone())),
            ContentBlock::Text(_) => None,
        })
        .collect()
}

/// One message as Ollama reads it.
fn wire_message(message: &Message) -> Value {
    match message {
        Message::User(blocks) => {
            let mut m = json!({"role": "user", "content": text_of(blocks)});
            let images = images_of(blocks);
            if !images.is_empty() {
                m["images"] = Value::Array(images);
            }
            m
        }
        Message::Assistant(a) => {
            let mut text = String::new();
            let mut calls = Vec::new();
            for block in &a.content {
                match block {
                    AssistantBlock::Text(t) => text.push_str(t),
                    AssistantBlock::ToolCall(c) => {
                        let arguments: Value =
                            serde_json::from_str(&c.arguments).unwrap_or(Value::Object(Map::new()));
                        calls.push(json!({"function": {"name": c.name, "arguments": arguments}}));
                    }
                    AssistantBlock::Thinking(_) => {}
                }
            }
            let mut m = json!({"role": "assistant", "content": text});
            if !calls.is_empty() {
                m["tool_calls"] = Value::Array(calls);
            }
            m
        }
        Message::ToolResult(r) => json!({
            "role": "tool",
            "tool_name": r.tool_name,
            "content": text_of(&r.content),
        }),
    }
}

fn request_body(model: &ModelInfo, context: &LlmContext, options: &StreamOptions) -> Value {
    let mut messages = Vec::new();
    if let Some(system) = &context.system_prompt {
        messages.push(json!({"role": "system", "content": system}));
    }
    messages.extend(context.messages.iter().map(wire_message));
    let tools: Vec<Value> = context
        .tools
        .iter()
        .map(|t| {
            let parameters: Value = serde_json::from_str(&t.parameters_schema)
                .unwrap_or_else(|_| json!({"type": "object"}));
            json!({"type": "function", "function": {
                "name": t.name, "description": t.description, "parameters": parameters}})
        })
        .collect();
    let mut body = json!({"model": model.id, "messages": messages, "stream": true});
    if !tools.is_empty() {
        body["tools"] = Value::Array(tools);
    }
    let mut sampling = Map::new();
    if let Some(max) = options.max_tokens {
        sampling.insert("num_predict".into(), json!(max));
    }
    if let Some(t) = options.temperature {
        sampling.insert("temperature".into(), json!(t));
    }
    if !sampling.is_empty() {
        body["options"] = Value::Object(sampling);
    }
    // Ollama's `think` is on or off; a model that cannot think rejects `true`, so it is sent
    // only when pi asks for reasoning.
    if options.reasoning.is_some() {
        body["think"] = json!(true);
    }
    body
}

/// The block being streamed, so that each one is closed before the next opens.
#[derive(PartialEq)]
enum Open {
    None,
    Text,
    Thinking,
}

struct Decoder {
    open: Open,
    calls: u32,
    stop: StopReason,
}

impl Decoder {
    fn close(&mut self) {
        match self.open {
            Open::Text => {
                emit(&StreamEvent::TextEnd);
            }
            Open::Thinking => {
                emit(&StreamEvent::ThinkingEnd);
            }
            Open::None => {}
        }
        self.open = Open::None;
    }

    /// Streams `delta` into a block of kind `kind`, opening it first. `false` when pi asked
    /// to stop.
    fn delta(&mut self, kind: Open, delta: &str) -> bool {
        if delta.is_empty() {
            return true;
        }
        if self.open != kind {
            self.close();
            emit(&match kind {
                Open::Thinking => StreamEvent::ThinkingStart,
                _ => StreamEvent::TextStart,
            });
            self.open = kind;
        }
        emit(&match self.open {
            Open::Thinking => StreamEvent::ThinkingDelta(delta.to_owned()),
            _ => StreamEvent::TextDelta(delta.to_owned()),
        })
    }

    /// One NDJSON line. `Ok(false)` when pi asked to stop.
    fn on_line(&mut self, line: &Value) -> Result<bool, String> {
        if let Some(error) = line["error"].as_str() {
            return Err(format!("ollama: {error}"));
        }
        let message = &line["message"];
        if let Some(thinking) = message["thinking"].as_str()
            && !self.delta(Open::Thinking, thinking)
        {
            return Ok(false);
        }
        if let Some(text) = message["content"].as_str()
            && !self.delta(Open::Text, text)
        {
            return Ok(false);
        }
        for call in message["tool_calls"].as_array().into_iter().flatten() {
            self.close();
            self.calls += 1;
            // Ollama sends each call whole and without an id.
            let id = call["id"]
                .as_str()
                .map_or_else(|| format!("ollama_call_{}", self.calls), str::to_owned);
            let function = &call["function"];
            emit(&StreamEvent::ToolCallStart(ToolCallStart {
                id,
                name: function["name"].as_str().unwrap_or_default().to_owned(),
            }));
            let arguments = match &function["arguments"] {
                Value::String(text) => text.clone(),
                Value::Null => "{}".to_owned(),
                other => other.to_string(),
            };
            emit(&StreamEvent::ToolCallDelta(arguments));
            emit(&StreamEvent::ToolCallEnd);
            self.stop = StopReason::ToolUse;
        }
        if line["done"].as_bool() == Some(true) {
            self.close();
            let count = |key: &str| line[key].as_u64().unwrap_or(0);
            emit(&StreamEvent::Usage(Usage {
                input: count("prompt_eval_count"),
                output: count("eval_count"),
                cache_read: 0,
                cache_write: 0,
            }));
            if line["done_reason"].as_str() == Some("length") {
                self.stop = StopReason::Length;
            }
        }
        Ok(true)
    }
}

impl Provider for Ollama {
    fn models() -> Vec<ModelInfo> {
        let base_url = base_url();
        pulled_models(&base_url).unwrap_or_else(|error| {
            host::log(
                host::LogLevel::Warn,
                &format!("no models from the Ollama server at {base_url}: {error}"),
            );
            Vec::new()
        })
    }

    fn stream(
        model: ModelInfo,
        context: LlmContext,
        options: StreamOptions,
    ) -> Result<StopReason, String> {
        let body = request_body(&model, &context, &options);
        let mut headers = vec![("content-type".to_owned(), "application/json".to_owned())];
        headers.extend(options.headers.iter().cloned());
        let url = format!("{}/api/chat", model.base_url.trim_end_matches('/'));
        let mut response = http::post(&url, &headers, body.to_string().as_bytes())?;
        if response.status != 200 {
            let text = String::from_utf8_lossy(&response.read_all()?).into_owned();
            let error = serde_json::from_str::<Value>(&text)
                .ok()
                .and_then(|v| v["error"].as_str().map(str::to_owned))
                .unwrap_or(text);
            return Err(format!("ollama answered {}: {error}", response.status));
        }
        let mut decoder = Decoder {
            open: Open::None,
            calls: 0,
            stop: StopReason::Stop,
        };
        let mut pending = Vec::new();
        while let Some(chunk) = response.read_chunk()? {
            pending.extend_from_slice(&chunk);
            while let Some(end) = pending.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = pending.drain(..=end).collect();
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                let value: Value = serde_json::from_slice(&line)
                    .map_err(|e| format!("ollama sent a line that is not JSON: {e}"))?;
                if !decoder.on_line(&value)? {
                    return Ok(StopReason::Aborted);
                }
            }
        }
        decoder.close();
        Ok(decoder.stop)
    }
}

pi_guest_sdk::export_provider!(Ollama);
