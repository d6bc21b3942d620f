//! Finding a server's authorization server: the `WWW-Authenticate` challenge, RFC 9728
//! protected-resource metadata (from the challenge's `resource_metadata` or the well-known
//! URL), then RFC 8414 metadata (OAuth, then OpenID Connect well-known URLs) whose `issuer`
//! must be the authorization server it was looked up for. `authServerMetadataUrl` skips both.

use super::{OAuthError, secure_url};
use serde::Deserialize;
use serde_json::Value;

/// What a 401's `WWW-Authenticate: Bearer …` said.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Challenge {
    pub resource_metadata: Option<String>,
    pub scope: Option<String>,
    pub error: Option<String>,
}

impl Challenge {
    /// The parameters of a `Bearer` (or `DPoP`) challenge; nothing for another scheme.
    pub fn parse(header: &str) -> Challenge {
        let header = header.trim_start();
        let scheme = header.split_whitespace().next().unwrap_or_default();
        if !scheme.eq_ignore_ascii_case("bearer") && !scheme.eq_ignore_ascii_case("dpop") {
            return Challenge::default();
        }
        let params = &header[scheme.len()..];
        Challenge {
            resource_metadata: param(params, "resource_metadata"),
            scope: param(params, "scope"),
            error: param(params, "error"),
        }
    }
}

/// The value of `name=value` or `name="value"` in a challenge; empty counts as absent.
fn param(params: &str, name: &str) -> Option<String> {
    let mut rest = params;
    while let Some(at) = rest.to_ascii_lowercase().find(&format!("{name}=")) {
        let starts_word = at == 0 || rest[..at].ends_with([' ', ',', '\t']);
        let after = &rest[at + name.len() + 1..];
        if !starts_word {
            rest = after;
            continue;
        }
        let value = match after.strip_prefix('"') {
            Some(quoted) => quoted.split('"').next().unwrap_or_default(),
            None => after.split([',', ' ', '\t']).next().unwrap_or_default(),
        };
        return (!value.is_empty()).then(|| value.to_owned());
    }
    None
}

/// The parts of RFC 8414 metadata sign-in uses.
#[derive(Debug, Clone, Deserialize)]
pub struct AuthServerMetadata {
    pub issuer: String,
    pub authorization_endpoint: String,
    pub token_endpoint: String,
    #[serde(default)]
    pub registration_endpoint: Option<String>,
    #[serde(default)]
    pub response_types_supported: Vec<String>,
    #[serde(default)]
    pub code_challenge_methods_supported: Option<Vec<String>>,
    #[serde(default)]
    pub token_endpoint_auth_methods_supported: Vec<String>,
    #[serde(default)]
    pub authorization_response_iss_parameter_supported: Option<bool>,
}

/// What discovery found.
#[derive(Debug, Clone)]
pub struct Discovered {
    pub metadata: AuthServerMetadata,
    /// The `resource` to ask tokens for (RFC 8707), from the resource metadata.
    pub resource: Option<String>,
    /// The resource's `scopes_supported`, space-separated.
    pub scopes_supported: Option<String>,
}

/// Runs discovery for the server at `server_url`.
pub async fn discover(
    http: &reqwest::Client,
    server_url: &str,
    challenge: &Challenge,
    auth_server_metadata_url: Option<&str>,
) -> Result<Discovered, OAuthError> {
    let server = url::Url::parse(server_url)
        .map_err(|e| OAuthError::Invalid(format!("invalid server URL {server_url}: {e}")))?;
    let resource_metadata = resource_metadata(http, &server, challenge).await?;
    let resource = resource_metadata
        .as_ref()
        .and_then(|m| m.get("resource"))
        .and_then(Value::as_str)
        .map(|r| select_resource(&server, r))
        .transpose()?;
    let scopes_supported = resource_metadata
        .as_ref()
        .and_then(|m| m.get("scopes_supported"))
        .and_then(Value::as_array)
        .map(|s| {
            s.iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .filter(|s| !s.is_empty());
    let metadata = match auth_server_metadata_url {
        Some(url) => {
            secure_url(url)?;
            let value = get_json(http, url).await?.ok_or_else(|| {
                OAuthError::Invalid(format!("no authorization server metadata at {url}"))
            })?;
            parse_metadata(value, url)?
        }
        None => {
            let issuer = resource_metadata
                .as_ref()
                .and_then(|m| m.get("authorization_servers"))
                .and_then(Value::as_array)
                .and_then(|a| a.first())
                .and_then(Value::as_str)
                .map_or_else(|| server.origin().ascii_serialization(), str::to_owned);
            auth_server_metadata(http, &issuer).await?
        }
    };
    if !metadata
        .response_types_supported
        .iter()
        .any(|t| t == "code")
    {
        return Err(OAuthError::Invalid(
            "Authorization server does not support authorization codes".into(),
        ));
    }
    if let Some(methods) = &metadata.code_challenge_methods_supported
        && !methods.iter().any(|m| m == "S256")
    {
        return Err(OAuthError::Invalid(
            "Authorization server does not support PKCE S256".into(),
        ));
    }
    Ok(Discovered {
        metadata,
        resource,
        scopes_supported,
    })
}

/// RFC 9728 metadata: the challenge's URL, else `/.well-known/oauth-protected-resource<path>`,
/// then the root one. `None` when the server publishes none (discovery then tries the origin).
async fn resource_metadata(
    http: &reqwest::Client,
    server: &url::Url,
    challenge: &Challenge,
) -> Result<Option<Value>, OAuthError> {
    let path = server.path().trim_end_matches('/');
    let origin = server.origin().ascii_serialization();
    let candidates = match &challenge.resource_metadata {
        Some(url) => vec![url.clone()],
        None if path.is_empty() => vec![format!("{origin}/.well-known/oauth-protected-resource")],
        None => vec![
            format!("{origin}/.well-known/oauth-protected-resource{path}"),
            format!("{origin}/.well-known/oauth-protected-resource"),
        ],
    };
    for url in candidates {
        if let Some(value) = get_json(http, &url).await? {
            return Ok(Some(value));
        }
    }
    Ok(None)
}

/// RFC 8414 metadata of `issuer`, its `issuer` checked against it.
async fn auth_server_metadata(
    http: &reqwest::Client,
    issuer: &str,
) -> Result<AuthServerMetadata, OAuthError> {
    let parsed = url::Url::parse(issuer)
        .map_err(|e| OAuthError::Invalid(format!("invalid authorization server {issuer}: {e}")))?;
    let origin = parsed.origin().ascii_serialization();
    let path = parsed.path().trim_end_matches('/');
    let mut candidates = vec![
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{origin}/.well-known/openid-configuration{path}"),
    ];
    if !path.is_empty() {
        candidates.push(format!("{origin}{path}/.well-known/openid-configuration"));
    }
    for url in candidates {
        let Some(value) = get_json(http, &url).await? else {
            continue;
        };
        let metadata = parse_metadata(value, &url)?;
        if metadata.issuer.trim_end_matches('/') != issuer.trim_end_matches('/') {
            return Err(OAuthError::IssuerMismatch {
                expected: issuer.to_owned(),
                actual: metadata.issuer,
            });
        }
        return Ok(metadata);
    }
    Err(OAuthError::Invalid(format!(
        "no authorization server metadata found for {issuer}"
    )))
}

fn parse_metadata(value: Value, url: &str) -> Result<AuthServerMetadata, OAuthError> {
    let metadata: AuthServerMetadata = serde_json::from_value(value).map_err(|e| {
        OAuthError::Invalid(format!(
            "invalid authorization server metadata at {url}: {e}"
        ))
    })?;
    for endpoint in [&metadata.authorization_endpoint, &metadata.token_endpoint] {
        let scheme = url::Url::parse(endpoint).map(|u| u.scheme().to_owned());
        if !matches!(scheme.as_deref(), Ok("http" | "https")) {
            return Err(OAuthError::Invalid(format!("invalid endpoint {endpoint}")));
        }
    }
    Ok(metadata)
}

/// The metadata's `resource`, which must be the server's URL or a parent of it.
fn select_resource(server: &url::Url, resource: &str) -> Result<String, OAuthError> {
    let mismatch = || {
        OAuthError::Invalid(format!(
            "Protected resource {resource} does not match MCP server {server}"
        ))
    };
    let configured = url::Url::parse(resource).map_err(|_| mismatch())?;
    if configured.origin() != server.origin() {
        return Err(mismatch());
    }
    let with_slash = |p: &str| format!("{}/", p.trim_end_matches('/'));
    if !with_slash(server.path()).starts_with(&with_slash(configured.path())) {
        return Err(mismatch());
    }
    Ok(resource.to_owned())
}

/// GETs JSON; `None` for a 4xx or 502 (not published there), an error otherwise.
async fn get_json(http: &reqwest::Client, url: &str) -> Result<Option<Value>, OAuthError> {
    let response = http
        .get(url)
        .header("accept", "application/json")
        .header(
            "MCP-Protocol-Version",
            crate::client::offered_protocol_version().to_string(),
        )
        .send()
        .await
        .map_err(|e| OAuthError::http(url, e))?;
    let status = response.status();
    if status.is_client_error() || status.as_u16() == 502 {
        return Ok(None);
    }
    if !status.is_success() {
        return Err(OAuthError::http(url, format!("HTTP {status}")));
    }
    let bytes = response
        .bytes()
        .await
        .map_err(|e| OAuthError::http(url, e))?;
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| OAuthError::http(url, format!("invalid JSON: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenges_give_their_parameters() {
        let challenge = Challenge::parse(
            r#"Bearer realm="x", resource_metadata="https://s/.well-known/oauth-protected-resource/mcp", scope="a b", error=invalid_token"#,
        );
        assert_eq!(
            challenge.resource_metadata.as_deref(),
            Some("https://s/.well-known/oauth-protected-resource/mcp")
        );
        assert_eq!(challenge.scope.as_deref(), Some("a b"));
        assert_eq!(challenge.error.as_deref(), Some("invalid_token"));
        assert_eq!(Challenge::parse("Basic realm=x"), Challenge::default());
        assert_eq!(Challenge::parse(r#"Bearer scope="""#).scope, None);
    }

    #[test]
    fn the_resource_must_contain_the_server() {
        let server = url::Url::parse("https://s.example/mcp/v1").unwrap();
        assert!(select_resource(&server, "https://s.example/mcp").is_ok());
        assert!(select_resource(&server, "https://s.example/").is_ok());
        assert!(select_resource(&server, "https://s.example/other").is_err());
        assert!(select_resource(&server, "https://t.example/mcp").is_err());
    }
}
