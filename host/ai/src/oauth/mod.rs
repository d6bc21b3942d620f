//! OAuth sign-in and token refresh for the providers pi reaches by subscription.
//!
//! Two flow types: authorization code with PKCE and a loopback callback (with a
//! paste-the-redirect fallback for machines without a browser) for Anthropic, OpenAI Codex and
//! OpenRouter, and the device-code flow for GitHub Copilot, xAI and Kimi.
//! A flow returns a [`Credential`] for the caller to store; refresh turns a stored OAuth
//! credential into a new one (`refresh` runs it under the store's lock).
//!
//! Every endpoint can be moved for tests and enterprise proxies: `PI_OAUTH_BASE_URL_<PROVIDER>`
//! (the provider id upper-cased, `-` as `_`, e.g. `PI_OAUTH_BASE_URL_GITHUB_COPILOT`) replaces
//! the scheme and host of each of that provider's sign-in URLs, keeping their paths.
//! `PI_OAUTH_CALLBACK_PORT` moves the loopback callback (0: any free port).

mod browser;
mod callback;
mod code_flow;
mod copilot;
mod device;
mod device_tokens;
mod pkce;
pub(crate) mod refresh;
mod token;

use crate::auth_store::Credential;
use futures::future::BoxFuture;

pub use browser::open_browser;
pub use callback::{Answer, Callback, parse_pasted, query_params};
pub(crate) use code_flow::chatgpt_account_id;
pub use pkce::challenge as pkce_challenge;
pub use pkce::{Pkce, random_token};
pub use refresh::{REFRESH_TIMEOUT, REFRESH_WINDOW, ResolveOptions};

/// Why a sign-in or a refresh failed.
#[derive(Debug, thiserror::Error)]
pub enum OAuthError {
    /// The server refused the grant (a revoked or expired refresh token, a denied login):
    /// only a new login helps.
    #[error("{provider}: the sign-in server refused: {message}")]
    Rejected { provider: String, message: String },
    #[error("{provider}: request to {url} failed: {message}")]
    Http {
        provider: String,
        url: String,
        message: String,
    },
    #[error("{provider}: unexpected answer from {url}: {message}")]
    BadResponse {
        provider: String,
        url: String,
        message: String,
    },
    #[error("{provider}: cannot listen for the sign-in callback on {address}: {source}")]
    Callback {
        provider: String,
        address: String,
        source: std::io::Error,
    },
    #[error("{provider}: the sign-in answer does not belong to this login (state mismatch)")]
    StateMismatch { provider: String },
    #[error("{provider}: no authorization code in \"{input}\"")]
    NoCode { provider: String, input: String },
    #[error("{provider}: the device code expired before the login was approved")]
    DeviceCodeExpired { provider: String },
    #[error("{provider}: a stored credential of type api_key cannot be refreshed")]
    NotRefreshable { provider: String },
}

/// What a login shows the user and asks of them. The CLI prints to stderr and reads stdin;
/// the interactive UI draws dialogs.
pub trait LoginUi: Send + Sync {
    /// The authorization URL: always shown (the caller may also open a browser on it).
    fn show_url(&self, url: &str);
    /// The device-code flow's page and the code to type there.
    fn show_device_code(&self, verification_uri: &str, user_code: &str);
    /// A progress note ("waiting for the browser…").
    fn progress(&self, message: &str);
    /// One pasted line (the redirect URL or the code) for headless machines; `None` when
    /// there is no input to read, in which case only the callback can finish the login.
    fn read_line(&self) -> BoxFuture<'_, Option<String>>;
}

/// Choices a login takes besides the provider.
#[derive(Debug, Clone, Default)]
pub struct LoginOptions {
    /// GitHub Enterprise host for Copilot (`github.example.com`); `None` is github.com.
    pub enterprise_domain: Option<String>,
}

/// A provider pi can sign in to with OAuth.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignIn {
    /// Claude Pro/Max: authorization code + PKCE.
    Anthropic,
    /// ChatGPT Plus/Pro (Codex): authorization code + PKCE.
    OpenAiCodex,
    /// GitHub Copilot: device code, then a Copilot token exchange.
    GitHubCopilot,
    /// OpenRouter: authorization code + PKCE that mints an API key (stored as `api_key`).
    OpenRouter,
    /// xAI (Grok subscriptions): device code with PKCE.
    Xai,
    /// Kimi For Coding: device code.
    Kimi,
}

impl SignIn {
    pub const ALL: [SignIn; 6] = [
        SignIn::Anthropic,
        SignIn::OpenAiCodex,
        SignIn::GitHubCopilot,
        SignIn::OpenRouter,
        SignIn::Xai,
        SignIn::Kimi,
    ];

    /// The sign-in of provider id `provider`, if pi has one.
    pub fn for_provider(provider: &str) -> Option<SignIn> {
        SignIn::ALL.into_iter().find(|s| s.provider() == provider)
    }

    /// The provider id (the `auth.json` key).
    pub fn provider(self) -> &'static str {
        match self {
            SignIn::Anthropic => "anthropic",
            SignIn::OpenAiCodex => "openai-codex",
            SignIn::GitHubCopilot => "github-copilot",
            SignIn::OpenRouter => "openrouter",
            SignIn::Xai => "xai",
            SignIn::Kimi => "kimi-coding",
        }
    }

    /// What the user signs in with.
    pub fn description(self) -> &'static str {
        match self {
            SignIn::Anthropic => "Claude Pro/Max subscription (browser, PKCE)",
            SignIn::OpenAiCodex => "ChatGPT Plus/Pro subscription, Codex (browser, PKCE)",
            SignIn::GitHubCopilot => "GitHub Copilot (device code; --domain for Enterprise)",
            SignIn::OpenRouter => "OpenRouter account (browser; mints an API key)",
            SignIn::Xai => "xAI Grok subscription (device code)",
            SignIn::Kimi => "Kimi For Coding subscription (device code)",
        }
    }

    /// Whether the sign-in takes a pasted redirect (or code) when the browser's callback cannot
    /// reach pi: the authorization-code flows; a device code is typed on the provider's page.
    pub fn pastes(self) -> bool {
        matches!(
            self,
            SignIn::Anthropic | SignIn::OpenAiCodex | SignIn::OpenRouter
        )
    }

    /// Runs the login; the caller stores the credential.
    pub async fn login(
        self,
        ui: &dyn LoginUi,
        options: &LoginOptions,
    ) -> Result<Credential, OAuthError> {
        match self {
            SignIn::Anthropic => code_flow::ANTHROPIC.login(ui).await,
            SignIn::OpenAiCodex => code_flow::CODEX.login(ui).await,
            SignIn::OpenRouter => code_flow::OPENROUTER.login(ui).await,
            SignIn::GitHubCopilot => copilot::login(ui, options).await,
            SignIn::Xai => device_tokens::XAI.login(ui).await,
            SignIn::Kimi => device_tokens::KIMI.login(ui).await,
        }
    }

    /// A new credential from `credential`'s refresh token.
    pub async fn refresh(self, credential: &Credential) -> Result<Credential, OAuthError> {
        let Credential::OAuth { refresh, extra, .. } = credential else {
            return Err(OAuthError::NotRefreshable {
                provider: self.provider().to_owned(),
            });
        };
        match self {
            SignIn::Anthropic => code_flow::ANTHROPIC.refresh(refresh, extra).await,
            SignIn::OpenAiCodex => code_flow::CODEX.refresh(refresh, extra).await,
            SignIn::OpenRouter => code_flow::OPENROUTER.refresh(refresh, extra).await,
            SignIn::GitHubCopilot => copilot::refresh(refresh, extra).await,
            SignIn::Xai => device_tokens::XAI.refresh(refresh, extra).await,
            SignIn::Kimi => device_tokens::KIMI.refresh(refresh, extra).await,
        }
    }
}

/// `default` with its scheme and host replaced by `PI_OAUTH_BASE_URL_<PROVIDER>` when set.
pub(crate) fn endpoint(provider: &str, default: &str) -> String {
    let var = format!(
        "PI_OAUTH_BASE_URL_{}",
        provider.to_ascii_uppercase().replace('-', "_")
    );
    match std::env::var(var).ok().filter(|v| !v.trim().is_empty()) {
        Some(base) => {
            let path = default
                .split_once("://")
                .and_then(|(_, rest)| rest.find('/').map(|at| &rest[at..]))
                .unwrap_or("");
            format!("{}{path}", base.trim().trim_end_matches('/'))
        }
        None => default.to_owned(),
    }
}

/// The loopback callback port: the provider's registered one unless `PI_OAUTH_CALLBACK_PORT`
/// says otherwise.
pub(crate) fn callback_port(default: u16) -> u16 {
    std::env::var("PI_OAUTH_CALLBACK_PORT")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sign_in_is_found_by_its_provider_id() {
        for sign_in in SignIn::ALL {
            assert_eq!(SignIn::for_provider(sign_in.provider()), Some(sign_in));
        }
        assert_eq!(SignIn::for_provider("openai"), None);
    }
}
