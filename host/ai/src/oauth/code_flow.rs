//! Authorization code + PKCE with a loopback callback: Anthropic (Claude Pro/Max), OpenAI
//! Codex (ChatGPT) and OpenRouter (whose code is exchanged for an API key, not tokens).

use super::callback::Callback;
use super::pkce::{Pkce, random_token};
use super::token::{self, Body};
use super::{LoginUi, OAuthError, callback_port, endpoint};
use crate::auth_store::Credential;
use base64::Engine;
use serde_json::{Map, Value};

/// What the code is exchanged for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Grant {
    /// Access and refresh tokens (`Credential::OAuth`).
    Tokens,
    /// A long-lived API key (`Credential::ApiKey`): OpenRouter.
    ApiKey,
}

/// One provider's authorization-code flow.
pub struct CodeFlow {
    provider: &'static str,
    authorize_url: &'static str,
    token_url: &'static str,
    client_id: &'static str,
    scope: &'static str,
    port: u16,
    path: &'static str,
    body: Body,
    /// Authorization parameters this provider adds.
    extra: &'static [(&'static str, &'static str)],
    grant: Grant,
}

pub const ANTHROPIC: CodeFlow = CodeFlow {
    provider: "anthropic",
    authorize_url: "https://claude.ai/oauth/authorize",
    token_url: "https://platform.claude.com/v1/oauth/token",
    client_id: "9d1c250a-e61b-44d9-88ed-5944d1962f5e",
    scope: "org:create_api_key user:profile user:inference user:sessions:claude_code user:mcp_servers user:file_upload",
    port: 53692,
    path: "/callback",
    body: Body::Json,
    extra: &[("code", "true")],
    grant: Grant::Tokens,
};

pub const CODEX: CodeFlow = CodeFlow {
    provider: "openai-codex",
    authorize_url: "https://auth.openai.com/oauth/authorize",
    token_url: "https://auth.openai.com/oauth/token",
    client_id: "app_EMoamEEZ73f0CkXaXp7hrann",
    scope: "openid profile email offline_access",
    port: 1455,
    path: "/auth/callback",
    body: Body::Form,
    extra: &[
        ("id_token_add_organizations", "true"),
        ("codex_cli_simplified_flow", "true"),
        ("originator", "pi"),
    ],
    grant: Grant::Tokens,
};

pub const OPENROUTER: CodeFlow = CodeFlow {
    provider: "openrouter",
    authorize_url: "https://openrouter.ai/auth",
    token_url: "https://openrouter.ai/api/v1/auth/keys",
    client_id: "",
    scope: "",
    port: 53693,
    path: "/callback",
    body: Body::Json,
    extra: &[],
    grant: Grant::ApiKey,
};

impl CodeFlow {
    /// Shows the authorization URL, waits for the callback (or a paste), exchanges the code.
    pub async fn login(&self, ui: &dyn LoginUi) -> Result<Credential, OAuthError> {
        let pkce = Pkce::new();
        let state = random_token();
        let callback = Callback::bind(self.provider, callback_port(self.port), self.path).await?;
        let url = self.authorize_url(&callback.redirect_uri, &pkce, &state);
        let redirect_uri = callback.redirect_uri.clone();
        ui.show_url(&url);
        ui.progress("Waiting for the browser… (or paste the redirect URL here and press Enter)");
        let answer = callback.wait(self.provider, ui).await?;
        // OpenRouter's callback carries no state; the others must echo ours.
        if self.grant == Grant::Tokens && answer.state.as_deref() != Some(state.as_str()) {
            return Err(OAuthError::StateMismatch {
                provider: self.provider.to_owned(),
            });
        }
        self.exchange(&answer.code, &state, &redirect_uri, &pkce)
            .await
    }

    fn authorize_url(&self, redirect_uri: &str, pkce: &Pkce, state: &str) -> String {
        let mut query = url::form_urlencoded::Serializer::new(String::new());
        if self.grant == Grant::ApiKey {
            query.extend_pairs([
                ("callback_url", redirect_uri),
                ("code_challenge", &pkce.challenge),
                ("code_challenge_method", "S256"),
            ]);
        } else {
            query.extend_pairs([
                ("response_type", "code"),
                ("client_id", self.client_id),
                ("redirect_uri", redirect_uri),
                ("scope", self.scope),
                ("code_challenge", &pkce.challenge),
                ("code_challenge_method", "S256"),
                ("state", state),
            ]);
            query.extend_pairs(self.extra.iter().copied());
        }
        format!(
            "{}?{}",
            endpoint(self.provider, self.authorize_url),
            query.finish()
        )
    }

    async fn exchange(
        &self,
        code: &str,
        state: &str,
        redirect_uri: &str,
        pkce: &Pkce,
    ) -> Result<Credential, OAuthError> {
        let url = endpoint(self.provider, self.token_url);
        if self.grant == Grant::ApiKey {
            let params = [
                ("code", code),
                ("code_verifier", pkce.verifier.as_str()),
                ("code_challenge_method", "S256"),
            ];
            let json = token::post(self.provider, &url, self.body, &params).await?;
            return match json.get("key").and_then(Value::as_str) {
                Some(key) => Ok(Credential::api_key(key)),
                None => Err(OAuthError::BadResponse {
                    provider: self.provider.to_owned(),
                    url,
                    message: "no key in the answer".to_owned(),
                }),
            };
        }
        let mut params = vec![
            ("grant_type", "authorization_code"),
            ("client_id", self.client_id),
            ("code", code),
            ("redirect_uri", redirect_uri),
            ("code_verifier", pkce.verifier.as_str()),
        ];
        if matches!(self.body, Body::Json) {
            params.push(("state", state));
        }
        let json = token::post(self.provider, &url, self.body, &params).await?;
        self.credential(&url, &json, None)
    }

    /// A new credential from `refresh`; provider extras of the old one are carried over.
    pub async fn refresh(
        &self,
        refresh: &str,
        extra: &Map<String, Value>,
    ) -> Result<Credential, OAuthError> {
        if self.grant == Grant::ApiKey {
            return Err(OAuthError::NotRefreshable {
                provider: self.provider.to_owned(),
            });
        }
        let url = endpoint(self.provider, self.token_url);
        let params = [
            ("grant_type", "refresh_token"),
            ("client_id", self.client_id),
            ("refresh_token", refresh),
        ];
        let json = token::post(self.provider, &url, self.body, &params).await?;
        let mut credential = self.credential(&url, &json, Some(refresh))?;
        if let Credential::OAuth { extra: fresh, .. } = &mut credential {
            for (key, value) in extra {
                fresh.entry(key.clone()).or_insert_with(|| value.clone());
            }
        }
        Ok(credential)
    }

    fn credential(
        &self,
        url: &str,
        json: &Value,
        previous_refresh: Option<&str>,
    ) -> Result<Credential, OAuthError> {
        let mut extra = Map::new();
        if self.provider == CODEX.provider
            && let Some(account) = json
                .get("access_token")
                .and_then(Value::as_str)
                .and_then(chatgpt_account_id)
        {
            extra.insert("accountId".to_owned(), Value::String(account));
        }
        token::oauth_credential(self.provider, url, json, previous_refresh, extra)
    }
}

/// The ChatGPT account id in a Codex access token (a JWT): the ChatGPT backend wants it as a
/// header.
pub(crate) fn chatgpt_account_id(jwt: &str) -> Option<String> {
    let payload = jwt.split('.').nth(1)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .ok()?;
    let claims: Value = serde_json::from_slice(&bytes).ok()?;
    claims
        .get("https://api.openai.com/auth")?
        .get("chatgpt_account_id")?
        .as_str()
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn account_id_comes_from_the_jwt_claim() {
        let payload = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(r#"{"https://api.openai.com/auth":{"chatgpt_account_id":"acct-1"}}"#);
        assert_eq!(
            chatgpt_account_id(&format!("h.{payload}.sig")).as_deref(),
            Some("acct-1")
        );
        assert_eq!(chatgpt_account_id("not-a-jwt"), None);
    }
}
