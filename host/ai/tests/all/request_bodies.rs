//! The exact bytes of the request bodies the adapters build, against goldens: one context that
//! takes every branch of the conversions (each block kind, signatures from each provider,
//! failed and foreign turns, runs of tool results with images, generated Gemini call ids),
//! sent through every protocol and the compat and login variations that change the body.
//!
//! Regenerate with `PI_UPDATE_GOLDEN=1 cargo test -p pi-ai --test all request_bodies`, then
//! read the diff: a changed golden is a changed request every server receives.

// The fixtures' helpers build values that are valid by construction.
#![allow(clippy::unwrap_used)]

use pi_ai::{
    AssistantBlock, AssistantMessage, Compat, Context, ImageContent, Message, Modality, Model,
    Schema, StopReason, StreamOptions, TextContent, ThinkingContent, ThinkingFormat, ThinkingLevel,
    Tool, ToolCall, ToolResultMessage, UserBlock, UserContent, UserMessage,
};
use serde_json::json;
use std::path::PathBuf;

const MODEL_ID: &str = "golden-model";

fn text(t: &str) -> TextContent {
    TextContent {
        text: t.into(),
        text_signature: None,
    }
}

fn image(data: &str) -> UserBlock {
    UserBlock::Image(ImageContent {
        data: data.into(),
        mime_type: "image/png".into(),
    })
}

fn thinking(thinking: &str, signature: Option<&str>, redacted: Option<bool>) -> AssistantBlock {
    AssistantBlock::Thinking(ThinkingContent {
        thinking: thinking.into(),
        thinking_signature: signature.map(str::to_owned),
        redacted,
    })
}

fn call(id: &str, name: &str, arguments: serde_json::Value, sig: Option<&str>) -> AssistantBlock {
    AssistantBlock::ToolCall(ToolCall {
        id: id.into(),
        name: name.into(),
        arguments,
        thought_signature: sig.map(str::to_owned),
    })
}

fn result(id: &str, name: &str, content: Vec<UserBlock>, is_error: bool) -> Message {
    Message::ToolResult(ToolResultMessage {
        tool_call_id: id.into(),
        tool_name: name.into(),
        content,
        details: None,
        is_error,
        timestamp: 0,
        duration_ms: None,
    })
}

fn assistant(provider: &str, content: Vec<AssistantBlock>, stop: StopReason) -> Message {
    Message::from(AssistantMessage {
        provider: provider.into(),
        model: MODEL_ID.into(),
        content,
        stop_reason: stop,
        response_id: Some("resp-7".into()),
        ..Default::default()
    })
}

fn user(content: UserContent) -> Message {
    Message::User(UserMessage {
        content,
        timestamp: 0,
    })
}

/// The assistant turn every protocol reads its own parts of.
fn rich_turn(provider: &str) -> Message {
    let reasoning =
        json!({"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "enc=="});
    let mut signed = text("Reading \"both\"\n\tfiles.");
    signed.text_signature = Some("msg_1".into());
    let mut record = text("Then this.");
    record.text_signature = Some(r#"{"v":1,"id":"msg_2","phase":"final"}"#.into());
    assistant(
        provider,
        vec![
            thinking("let me look", Some("sig-anthropic"), None),
            thinking("", Some("opaque-redacted"), Some(true)),
            thinking("unsigned thought", None, None),
            thinking("summarised", Some(&reasoning.to_string()), None),
            thinking("from a completions server", Some("reasoning_content"), None),
            AssistantBlock::Text(signed),
            AssistantBlock::Text(text("")),
            AssistantBlock::Text(record),
            call(
                "call_1|fc_1",
                "read",
                json!({"path": "a.rs", "n": 1.5}),
                None,
            ),
            call(
                "toolu_2",
                "bash",
                json!("not an object"),
                Some("gemini-sig"),
            ),
            call("read_resp-7_1", "read", json!({"path": "b.rs"}), None),
        ],
        StopReason::ToolUse,
    )
}

/// A history through `provider` (the provider of the assistant turns that count as "same
/// model").
fn context(provider: &str) -> Context {
    let schema = Schema::from_text(
        r#"{"type": "object",  "properties": {"path": {"type":"string"}}, "required": ["path"]}"#
            .to_owned(),
    )
    .unwrap();
    Context {
        system_prompt: Some("You are pi.\nBe \u{e9}xact.".into()),
        tools: vec![
            Tool {
                name: "read".into(),
                description: "Read a file".into(),
                parameters: schema,
                constrained_sampling: None,
            },
            Tool {
                name: "bash".into(),
                description: "Run a command".into(),
                parameters:
                    json!({"type": "object", "properties": {"command": {"type": "string"}}}).into(),
                // Carried as `strict` where the protocol has it (OpenAI's two), else dropped.
                constrained_sampling: Some(true),
            },
        ],
        messages: vec![
            user(UserContent::Text("Hello there".into())),
            user(UserContent::Blocks(vec![
                UserBlock::Text(text("What is in these?")),
                UserBlock::Text(text("  ")),
                image("aGVsbG8="),
            ])),
            rich_turn(provider),
            result(
                "call_1|fc_1",
                "read",
                vec![UserBlock::Text(text("fn a() {}")), image("aW1n")],
                false,
            ),
            result(
                "toolu_2",
                "bash",
                vec![UserBlock::Text(text("exit 1"))],
                true,
            ),
            result("read_resp-7_1", "read", vec![image("b25seQ==")], false),
            user(UserContent::Text("And now?".into())),
            assistant(
                provider,
                vec![AssistantBlock::Text(text("half an answer"))],
                StopReason::Error,
            ),
            assistant(
                "someone-else",
                vec![
                    thinking("elsewhere", Some("other-sig"), None),
                    AssistantBlock::Text(text("From another model.")),
                ],
                StopReason::Stop,
            ),
            user(UserContent::Blocks(vec![UserBlock::Text(text("Last."))])),
        ]
        .into_iter()
        .map(std::sync::Arc::new)
        .collect(),
    }
}

fn model(api: &str, provider: &str, base_url: &str, reasoning: bool) -> Model {
    Model {
        id: MODEL_ID.into(),
        name: "Golden".into(),
        api: api.into(),
        provider: provider.into(),
        base_url: base_url.into(),
        reasoning,
        input: vec![Modality::Text, Modality::Image],
        cost: Default::default(),
        context_window: 200_000,
        max_tokens: 64_000,
        headers: None,
        compat: None,
    }
}

fn thinking_options() -> StreamOptions {
    StreamOptions {
        reasoning: Some(ThinkingLevel::High),
        temperature: Some(0.3),
        max_tokens: Some(4000),
        session_id: Some("session-1".into()),
        ..StreamOptions::default()
    }
}

fn plain_options() -> StreamOptions {
    StreamOptions {
        temperature: Some(0.7),
        ..StreamOptions::default()
    }
}

/// A ChatGPT login token whose claims name an account.
fn codex_token() -> String {
    use base64::Engine as _;
    let claims = r#"{"https://api.openai.com/auth":{"chatgpt_account_id":"acct-1"}}"#;
    let payload = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(claims);
    format!("h.{payload}.s")
}

struct Case {
    name: &'static str,
    model: Model,
    options: StreamOptions,
    key: Option<String>,
}

fn case(name: &'static str, model: Model, options: StreamOptions, key: Option<&str>) -> Case {
    Case {
        name,
        model,
        options,
        key: key.map(str::to_owned),
    }
}

fn completions(provider: &str, base_url: &str, compat: Option<Compat>) -> Model {
    Model {
        compat,
        ..model("openai-completions", provider, base_url, true)
    }
}

fn cases() -> Vec<Case> {
    let anthropic = || {
        model(
            "anthropic-messages",
            "anthropic",
            "https://api.anthropic.com",
            true,
        )
    };
    let responses = |reasoning| {
        model(
            "openai-responses",
            "openai",
            "https://api.openai.com/v1",
            reasoning,
        )
    };
    let google = || {
        model(
            "google-generative-ai",
            "google",
            "https://generativelanguage.googleapis.com/v1beta",
            true,
        )
    };
    let format = |f: ThinkingFormat| {
        Some(Compat {
            thinking_format: Some(f),
            requires_assistant_after_tool_result: Some(true),
            requires_tool_result_name: Some(true),
            ..Compat::default()
        })
    };
    let mut text_only = completions("llama", "http://127.0.0.1:8080/v1", None);
    text_only.input = vec![Modality::Text];
    text_only.reasoning = false;
    vec![
        case(
            "anthropic",
            anthropic(),
            plain_options(),
            Some("sk-ant-api-1"),
        ),
        case(
            "anthropic-thinking",
            anthropic(),
            thinking_options(),
            Some("sk-ant-api-1"),
        ),
        case(
            "anthropic-oauth",
            anthropic(),
            plain_options(),
            Some("sk-ant-oat01-abc"),
        ),
        case(
            "completions-openai",
            completions("openai", "https://api.openai.com/v1", None),
            thinking_options(),
            Some("k"),
        ),
        case(
            "completions-openrouter",
            completions("openrouter", "https://openrouter.ai/api/v1", None),
            thinking_options(),
            Some("k"),
        ),
        case(
            "completions-deepseek",
            completions("deepseek", "https://api.deepseek.com", None),
            thinking_options(),
            Some("k"),
        ),
        case(
            "completions-mistral",
            completions("mistral", "https://api.mistral.ai/v1", None),
            plain_options(),
            Some("k"),
        ),
        case(
            "completions-zai",
            completions(
                "zai",
                "https://api.z.ai/api/paas/v4",
                format(ThinkingFormat::Zai),
            ),
            plain_options(),
            Some("k"),
        ),
        case(
            "completions-qwen",
            completions(
                "qwen",
                "https://dashscope.aliyuncs.com/v1",
                format(ThinkingFormat::Qwen),
            ),
            thinking_options(),
            Some("k"),
        ),
        case(
            "completions-chat-template",
            completions(
                "vllm",
                "http://127.0.0.1:8000/v1",
                format(ThinkingFormat::ChatTemplate),
            ),
            thinking_options(),
            None,
        ),
        case("completions-text-only", text_only, plain_options(), None),
        case("responses", responses(false), plain_options(), Some("k")),
        case(
            "responses-reasoning",
            responses(true),
            thinking_options(),
            Some("k"),
        ),
        case(
            "codex",
            model(
                "openai-codex-responses",
                "openai",
                "https://chatgpt.com/backend-api",
                true,
            ),
            thinking_options(),
            Some(&codex_token()),
        ),
        case(
            "codex-plain",
            model(
                "openai-codex-responses",
                "openai",
                "https://chatgpt.com/backend-api",
                false,
            ),
            plain_options(),
            Some(&codex_token()),
        ),
        case(
            "azure",
            model(
                "azure-openai-responses",
                "openai",
                "https://golden.openai.azure.com/openai/v1",
                true,
            ),
            thinking_options(),
            Some("k"),
        ),
        case("google", google(), plain_options(), Some("k")),
        case("google-thinking", google(), thinking_options(), Some("k")),
    ]
}

fn golden_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/all/golden/requests")
        .join(format!("{name}.json"))
}

#[test]
fn request_bodies_match_their_goldens_byte_for_byte() {
    let update = std::env::var_os("PI_UPDATE_GOLDEN").is_some();
    let mut failures = Vec::new();
    for case in cases() {
        let protocol = pi_ai::providers::protocol(&case.model.api).unwrap();
        let request = protocol
            .build_request(
                &case.model,
                &context(&case.model.provider),
                &case.options,
                case.key.as_deref(),
            )
            .unwrap_or_else(|e| panic!("{}: {e}", case.name));
        let built = request.body.to_bytes().unwrap();
        let path = golden_path(case.name);
        if update {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &built).unwrap();
            continue;
        }
        let golden = std::fs::read(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (run with PI_UPDATE_GOLDEN=1)", path.display()));
        if golden != built {
            let at = golden
                .iter()
                .zip(built.iter())
                .position(|(a, b)| a != b)
                .unwrap_or(golden.len().min(built.len()));
            let from = at.saturating_sub(60);
            failures.push(format!(
                "{}: differs at byte {at}:\n  golden: {}\n  built:  {}",
                case.name,
                String::from_utf8_lossy(&golden[from..(at + 60).min(golden.len())]),
                String::from_utf8_lossy(&built[from..(at + 60).min(built.len())]),
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
