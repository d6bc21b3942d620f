//! GitHub Copilot: a GitHub device-code login (github.com or an Enterprise host), then the
//! exchange of the GitHub token for a short-lived Copilot token. The stored credential keeps
//! the GitHub token as `refresh` and the Copilot token as `access`; a refresh is a new
//! exchange.

use super::device::DeviceFlow;
use super::token;
use super::{LoginOptions, LoginUi, OAuthError, endpoint};
use crate::auth_store::Credential;
use serde_json::{Map, Value};

const PROVIDER: &str = "github-copilot";
const CLIENT_ID: &str = "Iv1.b507a08c87ecfe98";
const SCOPE: &str = "read:user";
/// The Copilot token endpoint wants to know which editor integration asks.
const EXCHANGE_HEADERS: [(&str, &str); 4] = [
    ("user-agent", "GitHubCopilotChat/0.35.0"),
    ("editor-version", "vscode/1.107.0"),
    ("editor-plugin-version", "copilot-chat/0.35.0"),
    ("copilot-integration-id", "vscode-chat"),
];

/// The GitHub host: `github.com` or the Enterprise domain (scheme and path dropped).
fn domain(enterprise: Option<&str>) -> String {
    let raw = enterprise.map(str::trim).filter(|d| !d.is_empty());
    let host = raw.map_or("github.com", |d| {
        let d = d.split_once("://").map_or(d, |(_, rest)| rest);
        d.split('/').next().unwrap_or(d)
    });
    host.to_owned()
}

pub async fn login(ui: &dyn LoginUi, options: &LoginOptions) -> Result<Credential, OAuthError> {
    let domain = domain(options.enterprise_domain.as_deref());
    let flow = DeviceFlow {
        provider: PROVIDER,
        code_url: endpoint(PROVIDER, &format!("https://{domain}/login/device/code")),
        token_url: endpoint(
            PROVIDER,
            &format!("https://{domain}/login/oauth/access_token"),
        ),
        client_id: CLIENT_ID,
        scope: SCOPE,
        pkce: None,
    };
    let json = flow.run(ui).await?;
    let github_token = json
        .get("access_token")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let mut extra = Map::new();
    if domain != "github.com" {
        extra.insert("enterpriseUrl".to_owned(), Value::String(domain));
    }
    exchange(github_token, extra).await
}

pub async fn refresh(
    github_token: &str,
    extra: &Map<String, Value>,
) -> Result<Credential, OAuthError> {
    exchange(github_token, extra.clone()).await
}

/// Trades the GitHub token for a Copilot token (`token`, `expires_at` in seconds).
async fn exchange(github_token: &str, extra: Map<String, Value>) -> Result<Credential, OAuthError> {
    let domain = domain(extra.get("enterpriseUrl").and_then(Value::as_str));
    let url = endpoint(
        PROVIDER,
        &format!("https://api.{domain}/copilot_internal/v2/token"),
    );
    let authorization = format!("Bearer {github_token}");
    let mut headers = vec![("authorization", authorization.as_str())];
    headers.extend(EXCHANGE_HEADERS);
    let json = token::get(PROVIDER, &url, &headers).await?;
    let (Some(access), Some(expires_at)) = (
        json.get("token").and_then(Value::as_str),
        json.get("expires_at").and_then(Value::as_i64),
    ) else {
        return Err(OAuthError::BadResponse {
            provider: PROVIDER.to_owned(),
            url,
            message: "no token or expires_at".to_owned(),
        });
    };
    Ok(Credential::OAuth {
        access: access.to_owned(),
        refresh: github_token.to_owned(),
        expires: expires_at.saturating_mul(1000),
        extra,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enterprise_domains_are_reduced_to_their_host() {
        assert_eq!(domain(None), "github.com");
        assert_eq!(domain(Some(" ")), "github.com");
        assert_eq!(domain(Some("https://ghe.example.com/")), "ghe.example.com");
        assert_eq!(domain(Some("ghe.example.com")), "ghe.example.com");
    }
}
