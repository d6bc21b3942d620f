//! The `openai-codex-responses` adapter: the ChatGPT backend a ChatGPT Plus/Pro (Codex) login
//! reaches (`POST {base}/codex/responses`, SSE). It speaks the Responses format with the
//! backend's own rules: the system prompt goes in `instructions`, no output-token limit or
//! temperature is accepted, and the account id from the token's claims goes in a header.

use super::openai_responses::{OpenAiResponses, ResponsesBody, Setting, request_body};
use crate::options::StreamOptions;
use crate::protocol::{Decoder, HttpRequest, Protocol};
use crate::types::{Context, Model};

pub struct OpenAiCodexResponses;

impl Protocol for OpenAiCodexResponses {
    fn api(&self) -> &'static str {
        "openai-codex-responses"
    }

    fn build_request(
        &self,
        model: &Model,
        context: &Context,
        options: &StreamOptions,
        api_key: Option<&str>,
    ) -> Result<HttpRequest, String> {
        let key = api_key.filter(|k| !k.is_empty()).ok_or_else(|| {
            format!(
                "{}: the ChatGPT backend needs a ChatGPT login: run `pi auth login openai-codex`",
                model.provider
            )
        })?;
        let mut own = vec![
            ("authorization".to_owned(), format!("Bearer {key}")),
            (
                "openai-beta".to_owned(),
                "responses=experimental".to_owned(),
            ),
            ("originator".to_owned(), "pi".to_owned()),
            ("accept".to_owned(), "text/event-stream".to_owned()),
        ];
        if let Some(account) = crate::oauth::chatgpt_account_id(key) {
            own.push(("chatgpt-account-id".to_owned(), account));
        }
        Ok(HttpRequest {
            url: super::endpoint(&model.base_url, "codex/responses"),
            headers: super::request_headers(model, own, options),
            body: super::body(model, context, options, |model, context, options, out| {
                serde_json::to_writer(out, &codex_body(model, context, options))
            })?,
        })
    }

    fn decoder(&self, model: &Model) -> Box<dyn Decoder> {
        OpenAiResponses.decoder(model)
    }

    fn normalize_tool_call_id(&self, id: &str) -> String {
        OpenAiResponses.normalize_tool_call_id(id)
    }
}

/// The Responses body reshaped for the ChatGPT backend.
fn codex_body<'a>(
    model: &'a Model,
    context: &'a Context,
    options: &'a StreamOptions,
) -> ResponsesBody<'a> {
    let mut body = request_body(model, context, options);
    body.without_system_prompt();
    body.remove("max_output_tokens");
    body.remove("temperature");
    let instructions = context.system_prompt.as_deref().unwrap_or_default();
    body.push("instructions", Setting::Text(instructions));
    body.push("tool_choice", Setting::Text("auto"));
    body.push("parallel_tool_calls", Setting::Bool(true));
    body
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine;
    use serde_json::Value;

    fn model() -> Model {
        Model {
            id: "gpt-5.1-codex".into(),
            name: "GPT-5.1 Codex".into(),
            api: "openai-codex-responses".into(),
            provider: "openai-codex".into(),
            base_url: "https://chatgpt.com/backend-api/".into(),
            reasoning: true,
            input: vec![crate::types::Modality::Text],
            cost: Default::default(),
            context_window: 272_000,
            max_tokens: 128_000,
            headers: None,
            compat: None,
        }
    }

    #[test]
    fn request_carries_instructions_and_the_account_header() {
        let claims = r#"{"https://api.openai.com/auth":{"chatgpt_account_id":"acct-9"}}"#;
        let payload = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(claims);
        let token = format!("h.{payload}.s");
        let context = Context {
            system_prompt: Some("You are pi.".into()),
            ..Context::default()
        };
        let options = StreamOptions {
            temperature: Some(0.5),
            ..StreamOptions::default()
        };
        let req = OpenAiCodexResponses
            .build_request(&model(), &context, &options, Some(&token))
            .unwrap();
        assert_eq!(req.url, "https://chatgpt.com/backend-api/codex/responses");
        let header = |name: &str| {
            req.headers
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.as_str())
        };
        assert_eq!(header("chatgpt-account-id"), Some("acct-9"));
        assert_eq!(
            header("authorization"),
            Some(format!("Bearer {token}").as_str())
        );
        let body: Value = serde_json::from_slice(&req.body.to_bytes().unwrap()).unwrap();
        assert_eq!(body["instructions"], "You are pi.");
        assert_eq!(body["store"], false);
        assert!(body.get("max_output_tokens").is_none());
        assert!(body.get("temperature").is_none());
        let roles: Vec<&Value> = body["input"]
            .as_array()
            .unwrap()
            .iter()
            .map(|item| &item["role"])
            .collect();
        assert!(!roles.iter().any(|r| *r == "developer" || *r == "system"));
    }

    #[test]
    fn no_login_is_an_error_naming_pi_auth_login() {
        let err = OpenAiCodexResponses
            .build_request(
                &model(),
                &Context::default(),
                &StreamOptions::default(),
                None,
            )
            .unwrap_err();
        assert!(err.contains("pi auth login openai-codex"), "{err}");
    }
}
