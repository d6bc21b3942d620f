//! The `anthropic-messages` adapter: Anthropic's Messages API (`POST /v1/messages`, SSE).
//!
//! `request` turns pi's context into the native body, `decode` turns the event stream back into
//! builder calls. This file holds what ties them to HTTP: URL, headers, id rules.

mod decode;
mod request;
mod wire;

use crate::options::StreamOptions;
use crate::protocol::{Decoder, HttpRequest, Protocol};
use crate::types::{Context, Model};

pub use decode::AnthropicDecoder;

/// The API version every request pins.
const ANTHROPIC_VERSION: &str = "2023-06-01";
/// OAuth tokens (Claude Pro/Max) start with this and go in `authorization`, not `x-api-key`.
const OAUTH_TOKEN_PREFIX: &str = "sk-ant-oat";
/// A Claude Pro/Max token is accepted for requests that present themselves as Claude Code:
/// these betas, this client identity, and [`request::OAUTH_IDENTITY`] as the system prompt's
/// first block.
const OAUTH_BETA: &str = "claude-code-20250219,oauth-2025-04-20";
const OAUTH_USER_AGENT: &str = "claude-cli/2.1.75";

pub struct AnthropicMessages;

impl Protocol for AnthropicMessages {
    fn api(&self) -> &'static str {
        "anthropic-messages"
    }

    fn build_request(
        &self,
        model: &Model,
        context: &Context,
        options: &StreamOptions,
        api_key: Option<&str>,
    ) -> Result<HttpRequest, String> {
        let oauth = api_key.is_some_and(is_oauth_token);
        Ok(HttpRequest {
            url: super::endpoint(&model.base_url, "v1/messages"),
            headers: headers(model, options, api_key),
            body: super::body(
                model,
                context,
                options,
                move |model, context, options, out| {
                    serde_json::to_writer(out, &request::build_body(model, context, options, oauth))
                },
            )?,
        })
    }

    fn decoder(&self, _model: &Model) -> Box<dyn Decoder> {
        Box::new(AnthropicDecoder::default())
    }

    /// A subscription token's tool calls come back in Claude Code's casing.
    fn request_decoder(
        &self,
        _model: &Model,
        context: &Context,
        api_key: Option<&str>,
    ) -> Box<dyn Decoder> {
        if api_key.is_some_and(is_oauth_token) {
            let names = context.tools.iter().map(|t| t.name.clone()).collect();
            Box::new(AnthropicDecoder::with_tool_names(names))
        } else {
            Box::new(AnthropicDecoder::default())
        }
    }

    /// Anthropic accepts ids matching `^[a-zA-Z0-9_-]+$` of at most 64 characters.
    fn normalize_tool_call_id(&self, id: &str) -> String {
        super::sanitize_tool_call_id(id)
    }
}

fn is_oauth_token(key: &str) -> bool {
    key.starts_with(OAUTH_TOKEN_PREFIX)
}

/// `header.payload.signature`, base64url parts, as OAuth access tokens are.
fn is_jwt(key: &str) -> bool {
    key.starts_with("eyJ") && key.split('.').count() == 3
}

fn headers(model: &Model, options: &StreamOptions, api_key: Option<&str>) -> Vec<(String, String)> {
    let mut own = Vec::new();
    match api_key.filter(|k| !k.is_empty()) {
        Some(key) if is_oauth_token(key) => {
            own.push(("authorization".to_owned(), format!("Bearer {key}")));
            own.push(("anthropic-beta".to_owned(), OAUTH_BETA.to_owned()));
            own.push(("user-agent".to_owned(), OAUTH_USER_AGENT.to_owned()));
            own.push(("x-app".to_owned(), "cli".to_owned()));
        }
        // Other services' OAuth logins on this protocol (Kimi For Coding) are JWTs and go as
        // a plain bearer token.
        Some(key) if is_jwt(key) => {
            own.push(("authorization".to_owned(), format!("Bearer {key}")));
        }
        Some(key) => own.push(("x-api-key".to_owned(), key.to_owned())),
        None => {} // a local server that needs no key
    }
    own.push(("anthropic-version".to_owned(), ANTHROPIC_VERSION.to_owned()));
    super::request_headers(model, own, options)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Modality;
    use std::collections::BTreeMap;

    pub(super) fn model() -> Model {
        Model {
            id: "claude-test".into(),
            name: "Claude test".into(),
            api: "anthropic-messages".into(),
            provider: "anthropic".into(),
            base_url: "https://api.anthropic.com/".into(),
            reasoning: true,
            input: vec![Modality::Text, Modality::Image],
            cost: Default::default(),
            context_window: 200_000,
            max_tokens: 64_000,
            headers: None,
            compat: None,
        }
    }

    fn header<'a>(req: &'a HttpRequest, name: &str) -> Option<&'a str> {
        let mut found = req
            .headers
            .iter()
            .filter(|(k, _)| k.eq_ignore_ascii_case(name));
        let first = found.next().map(|(_, v)| v.as_str());
        assert!(found.next().is_none(), "header {name} sent twice");
        first
    }

    fn build(options: &StreamOptions, key: Option<&str>) -> HttpRequest {
        AnthropicMessages
            .build_request(&model(), &Context::default(), options, key)
            .unwrap()
    }

    #[test]
    fn url_strips_trailing_slash() {
        let req = build(&StreamOptions::default(), Some("sk-ant-api-1"));
        assert_eq!(req.url, "https://api.anthropic.com/v1/messages");
    }

    #[test]
    fn api_key_goes_in_x_api_key() {
        let req = build(&StreamOptions::default(), Some("sk-ant-api-1"));
        assert_eq!(header(&req, "x-api-key"), Some("sk-ant-api-1"));
        assert_eq!(header(&req, "anthropic-version"), Some("2023-06-01"));
        assert_eq!(header(&req, "authorization"), None);
        assert_eq!(header(&req, "anthropic-beta"), None);
    }

    #[test]
    fn oauth_token_goes_in_bearer_with_beta() {
        let req = build(&StreamOptions::default(), Some("sk-ant-oat01-abc"));
        assert_eq!(
            header(&req, "authorization"),
            Some("Bearer sk-ant-oat01-abc")
        );
        assert_eq!(
            header(&req, "anthropic-beta"),
            Some("claude-code-20250219,oauth-2025-04-20")
        );
        assert_eq!(header(&req, "x-app"), Some("cli"));
        assert_eq!(header(&req, "x-api-key"), None);
    }

    #[test]
    fn oauth_requests_open_the_system_prompt_with_the_claude_code_identity() {
        let context = Context {
            system_prompt: Some("You are pi.".into()),
            ..Context::default()
        };
        let system = |key| {
            let req = AnthropicMessages
                .build_request(&model(), &context, &StreamOptions::default(), Some(key))
                .unwrap();
            let body: serde_json::Value =
                serde_json::from_slice(&req.body.to_bytes().unwrap()).unwrap();
            body["system"].clone()
        };
        let oauth = system("sk-ant-oat01-abc");
        assert_eq!(oauth[0]["text"], request::OAUTH_IDENTITY);
        assert_eq!(oauth[1]["text"], "You are pi.");
        let api = system("sk-ant-api-1");
        assert_eq!(api.as_array().map(Vec::len), Some(1));
        assert_eq!(api[0]["text"], "You are pi.");
    }

    #[test]
    fn oauth_requests_name_tools_as_claude_code_does_and_the_answer_names_them_back() {
        use crate::types::{AssistantBlock, AssistantMessage, Message, Tool, ToolCall};
        let tool = |name: &str| Tool {
            name: name.into(),
            description: String::new(),
            parameters: serde_json::json!({"type": "object"}).into(),
            constrained_sampling: None,
        };
        let mut earlier = AssistantMessage::empty_for(&model());
        earlier.content = vec![AssistantBlock::ToolCall(ToolCall {
            id: "toolu_1".into(),
            name: "read".into(),
            arguments: serde_json::json!({}),
            thought_signature: None,
        })];
        let context = Context {
            tools: vec![tool("read"), tool("bash"), tool("find")],
            messages: vec![Message::from(earlier)]
                .into_iter()
                .map(std::sync::Arc::new)
                .collect(),
            ..Context::default()
        };
        let body = |key| {
            let req = AnthropicMessages
                .build_request(&model(), &context, &StreamOptions::default(), Some(key))
                .unwrap();
            serde_json::from_slice::<serde_json::Value>(&req.body.to_bytes().unwrap()).unwrap()
        };
        let oauth = body("sk-ant-oat01-abc");
        let names: Vec<&str> = oauth["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["Read", "Bash", "find"]);
        assert_eq!(oauth["messages"][0]["content"][0]["name"], "Read");
        assert_eq!(body("sk-ant-api-1")["tools"][0]["name"], "read");

        let sse = concat!(
            "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n",
            "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_2\",\"name\":\"Bash\",\"input\":{}}}\n\n",
            "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
            "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":2}}\n\n",
            "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
        );
        let decoder =
            AnthropicMessages.request_decoder(&model(), &context, Some("sk-ant-oat01-abc"));
        let mut reader = crate::protocol::ResponseReader::with_decoder(decoder, &model());
        reader.feed(sse.as_bytes()).unwrap();
        let message = reader.finish();
        let AssistantBlock::ToolCall(call) = &message.content[0] else {
            panic!("expected a tool call: {message:?}");
        };
        assert_eq!(call.name, "bash");
    }

    #[test]
    fn a_jwt_login_goes_in_bearer_without_the_claude_code_betas() {
        let req = build(
            &StreamOptions::default(),
            Some("eyJhbGciOi.eyJzdWIiOi.c2ln"),
        );
        assert_eq!(
            header(&req, "authorization"),
            Some("Bearer eyJhbGciOi.eyJzdWIiOi.c2ln")
        );
        assert_eq!(header(&req, "anthropic-beta"), None);
        assert_eq!(header(&req, "x-api-key"), None);
    }

    #[test]
    fn no_key_sends_no_auth_header() {
        let req = build(&StreamOptions::default(), None);
        assert_eq!(header(&req, "x-api-key"), None);
        assert_eq!(header(&req, "authorization"), None);
        assert_eq!(header(&req, "anthropic-version"), Some("2023-06-01"));
    }

    #[test]
    fn explicit_headers_win_over_model_and_adapter() {
        let mut m = model();
        m.headers = Some(BTreeMap::from([
            ("X-Api-Key".to_owned(), "from-model".to_owned()),
            ("x-team".to_owned(), "model-team".to_owned()),
        ]));
        let mut options = StreamOptions::default();
        options
            .headers
            .insert("Anthropic-Version".into(), "2099-01-01".into());
        let req = AnthropicMessages
            .build_request(&m, &Context::default(), &options, Some("sk-ant-api-1"))
            .unwrap();
        // The adapter's key replaces the model's header; the caller's version replaces ours.
        assert_eq!(header(&req, "x-api-key"), Some("sk-ant-api-1"));
        assert_eq!(header(&req, "x-team"), Some("model-team"));
        assert_eq!(header(&req, "anthropic-version"), Some("2099-01-01"));
    }

    #[test]
    fn tool_call_ids_are_normalized() {
        let p = AnthropicMessages;
        assert_eq!(p.normalize_tool_call_id("call_abc-1"), "call_abc-1");
        assert_eq!(p.normalize_tool_call_id("fc|item.1:é"), "fc_item_1__");
        let long = "x".repeat(100);
        assert_eq!(p.normalize_tool_call_id(&long).len(), 64);
    }
}
