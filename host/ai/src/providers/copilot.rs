//! What a GitHub Copilot request needs besides its protocol: the API host the Copilot token
//! names (`proxy-ep=proxy.<host>` inside the token: `https://api.<host>`, which is how an
//! individual, business or enterprise plan is routed) and the editor-integration headers the
//! Copilot API requires. Applied by the HTTP layer to requests of provider `github-copilot`,
//! whichever protocol the model speaks.

use crate::types::{Context, Message, Model};
use std::collections::BTreeMap;

pub const PROVIDER: &str = "github-copilot";

/// The editor integration Copilot requests present.
const HEADERS: [(&str, &str); 5] = [
    ("User-Agent", "GitHubCopilotChat/0.35.0"),
    ("Editor-Version", "vscode/1.107.0"),
    ("Editor-Plugin-Version", "copilot-chat/0.35.0"),
    ("Copilot-Integration-Id", "vscode-chat"),
    ("Openai-Intent", "conversation-edits"),
];

/// `model` prepared for a Copilot request with `token`: the token's API host (unless the model
/// points somewhere other than Copilot, e.g. a proxy in models.json) and the Copilot headers
/// below the model's own.
pub fn prepare(model: &Model, context: &Context, token: Option<&str>) -> Model {
    let mut model = model.clone();
    if let Some(base) = token.and_then(api_base_url)
        && model.base_url.contains("githubcopilot.com")
    {
        model.base_url = base;
    }
    let mut headers: BTreeMap<String, String> = HEADERS
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    // Copilot bills a turn the user started differently from one an agent continued.
    let initiator = match context.messages.last().map(|m| &**m) {
        Some(Message::User(_)) | None => "user",
        Some(_) => "agent",
    };
    headers.insert("X-Initiator".to_owned(), initiator.to_owned());
    for (name, value) in model.headers.take().unwrap_or_default() {
        headers.retain(|existing, _| !existing.eq_ignore_ascii_case(&name));
        headers.insert(name, value);
    }
    model.headers = Some(headers);
    model
}

/// `https://api.<host>` from a token holding `proxy-ep=proxy.<host>`.
fn api_base_url(token: &str) -> Option<String> {
    let proxy = token
        .split(';')
        .find_map(|part| part.trim().strip_prefix("proxy-ep="))?;
    let host = proxy.strip_prefix("proxy.").unwrap_or(proxy);
    (!host.is_empty()).then(|| format!("https://api.{host}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{AssistantMessage, UserContent, UserMessage};

    fn model(base_url: &str) -> Model {
        Model {
            id: "gpt-4.1".into(),
            name: "GPT-4.1".into(),
            api: "openai-completions".into(),
            provider: PROVIDER.into(),
            base_url: base_url.into(),
            reasoning: false,
            input: vec![crate::types::Modality::Text],
            cost: Default::default(),
            context_window: 128_000,
            max_tokens: 16_384,
            headers: Some(BTreeMap::from([(
                "user-agent".to_owned(),
                "mine".to_owned(),
            )])),
            compat: None,
        }
    }

    #[test]
    fn the_token_routes_the_request_and_headers_are_added() {
        let token = "tid=1;exp=2;proxy-ep=proxy.business.githubcopilot.com;st=dotcom";
        let user = Message::User(UserMessage {
            content: UserContent::Text("hi".into()),
            timestamp: 0,
        });
        let context = Context {
            messages: vec![user].into_iter().map(std::sync::Arc::new).collect(),
            ..Context::default()
        };
        let prepared = prepare(
            &model("https://api.individual.githubcopilot.com"),
            &context,
            Some(token),
        );
        assert_eq!(prepared.base_url, "https://api.business.githubcopilot.com");
        let headers = prepared.headers.unwrap();
        assert_eq!(headers["Copilot-Integration-Id"], "vscode-chat");
        assert_eq!(headers["X-Initiator"], "user");
        // The model's own header wins over the default of the same name.
        assert_eq!(headers["user-agent"], "mine");
        assert!(!headers.contains_key("User-Agent"));

        let agent = Context {
            messages: vec![Message::from(AssistantMessage::empty_for(&model("x")))]
                .into_iter()
                .map(std::sync::Arc::new)
                .collect(),
            ..Context::default()
        };
        let proxied = prepare(&model("http://127.0.0.1:9/v1"), &agent, Some(token));
        assert_eq!(proxied.base_url, "http://127.0.0.1:9/v1");
        assert_eq!(proxied.headers.unwrap()["X-Initiator"], "agent");
    }

    #[test]
    fn tokens_without_a_proxy_endpoint_keep_the_base_url() {
        assert_eq!(api_base_url("opaque"), None);
        assert_eq!(
            api_base_url("a=b;proxy-ep=proxy.enterprise.githubcopilot.com").as_deref(),
            Some("https://api.enterprise.githubcopilot.com")
        );
    }
}
