//! The authorization server's endpoints: dynamic client registration (RFC 7591), the
//! authorization URL (PKCE S256, RFC 8707 `resource`), and the token endpoint (code exchange
//! and refresh) with the client authentication the server supports.

use super::discovery::AuthServerMetadata;
use super::{OAuthError, secure_url};
use crate::credentials::{ClientInformation, Tokens};
use serde_json::{Value, json};

/// Registers pi as a public client for `redirect_uri`.
pub async fn register(
    http: &reqwest::Client,
    metadata: &AuthServerMetadata,
    client_name: &str,
    redirect_uri: &str,
    scope: Option<&str>,
) -> Result<ClientInformation, OAuthError> {
    let Some(endpoint) = &metadata.registration_endpoint else {
        return Err(OAuthError::Invalid(
            "Authorization server does not support dynamic client registration".into(),
        ));
    };
    secure_url(endpoint)?;
    let mut body = json!({
        "client_name": client_name,
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
        // A loopback redirect: a native application (OpenID Connect refuses http for `web`).
        "application_type": "native",
    });
    if let Some(scope) = scope {
        body["scope"] = json!(scope);
    }
    let response = http
        .post(endpoint)
        .header("accept", "application/json")
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .map_err(|e| OAuthError::http(endpoint, e))?;
    let status = response.status();
    let text = response
        .text()
        .await
        .map_err(|e| OAuthError::http(endpoint, e))?;
    if !status.is_success() {
        return Err(OAuthError::Invalid(format!(
            "Dynamic client registration failed: HTTP {status}: {text}"
        )));
    }
    let client: ClientInformation = serde_json::from_str(&text)
        .map_err(|e| OAuthError::Invalid(format!("invalid client registration response: {e}")))?;
    if client.client_id.is_empty() {
        return Err(OAuthError::Invalid("Invalid client_id".into()));
    }
    Ok(client)
}

/// What the authorization request asks for.
pub struct AuthorizationRequest<'a> {
    pub client_id: &'a str,
    pub redirect_uri: &'a str,
    pub challenge: &'a str,
    pub state: &'a str,
    pub scope: Option<&'a str>,
    pub resource: Option<&'a str>,
}

/// The URL the user opens to sign in.
pub fn authorization_url(
    metadata: &AuthServerMetadata,
    request: &AuthorizationRequest<'_>,
) -> Result<String, OAuthError> {
    let mut url = url::Url::parse(&metadata.authorization_endpoint).map_err(|e| {
        OAuthError::Invalid(format!(
            "invalid authorization endpoint {}: {e}",
            metadata.authorization_endpoint
        ))
    })?;
    {
        let mut query = url.query_pairs_mut();
        query
            .append_pair("response_type", "code")
            .append_pair("client_id", request.client_id)
            .append_pair("code_challenge", request.challenge)
            .append_pair("code_challenge_method", "S256")
            .append_pair("redirect_uri", request.redirect_uri)
            .append_pair("state", request.state);
        if let Some(scope) = request.scope {
            query.append_pair("scope", scope);
            if scope.split_whitespace().any(|s| s == "offline_access") {
                query.append_pair("prompt", "consent");
            }
        }
        if let Some(resource) = request.resource {
            query.append_pair("resource", resource);
        }
    }
    Ok(url.to_string())
}

/// How the client proves itself at the token endpoint: the registration's method when the
/// server supports it, else basic or post with a secret, else none.
fn client_auth(client: &ClientInformation, supported: &[String]) -> &'static str {
    let hinted = client
        .other
        .get("token_endpoint_auth_method")
        .and_then(Value::as_str);
    let allowed = |m: &str| supported.is_empty() || supported.iter().any(|s| s == m);
    if let Some(method) = hinted
        && allowed(method)
    {
        for known in ["client_secret_basic", "client_secret_post", "none"] {
            if method == known && (known == "none" || client.client_secret.is_some()) {
                return known;
            }
        }
    }
    match &client.client_secret {
        Some(_) if supported.is_empty() || allowed("client_secret_basic") => "client_secret_basic",
        Some(_) => "client_secret_post",
        None => "none",
    }
}

/// A token request with `params`; an OAuth error in the body wins over the status.
pub async fn token_request(
    http: &reqwest::Client,
    metadata: &AuthServerMetadata,
    client: &ClientInformation,
    resource: Option<&str>,
    mut params: Vec<(&str, String)>,
) -> Result<Tokens, OAuthError> {
    let endpoint = secure_url(&metadata.token_endpoint)?.to_string();
    if let Some(resource) = resource {
        params.push(("resource", resource.to_owned()));
    }
    let mut request = http.post(&endpoint).header("accept", "application/json");
    match client_auth(client, &metadata.token_endpoint_auth_methods_supported) {
        "client_secret_basic" => {
            request = request.basic_auth(&client.client_id, client.client_secret.as_deref());
        }
        method => {
            params.push(("client_id", client.client_id.clone()));
            if method == "client_secret_post"
                && let Some(secret) = &client.client_secret
            {
                params.push(("client_secret", secret.clone()));
            }
        }
    }
    let body = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(params.iter().map(|(k, v)| (*k, v.as_str())))
        .finish();
    let response = request
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await
        .map_err(|e| OAuthError::http(&endpoint, e))?;
    let status = response.status();
    let text = response
        .text()
        .await
        .map_err(|e| OAuthError::http(&endpoint, e))?;
    let value: Option<Value> = serde_json::from_str(&text).ok();
    if let Some(code) = value
        .as_ref()
        .and_then(|v| v.get("error"))
        .and_then(Value::as_str)
    {
        let description = value
            .as_ref()
            .and_then(|v| v.get("error_description"))
            .and_then(Value::as_str)
            .unwrap_or(code);
        return Err(OAuthError::Refused {
            code: code.to_owned(),
            description: description.to_owned(),
        });
    }
    if !status.is_success() {
        return Err(OAuthError::Refused {
            code: "server_error".into(),
            description: format!("HTTP {status}: {text}"),
        });
    }
    let tokens: Tokens = value
        .and_then(|v| serde_json::from_value(v).ok())
        .filter(|t: &Tokens| !t.access_token.is_empty())
        .ok_or_else(|| OAuthError::Invalid(format!("invalid token response from {endpoint}")))?;
    Ok(tokens)
}

/// When `tokens` expire, in ms since the epoch (`None` when the server did not say).
pub fn expires_at(tokens: &Tokens, now_ms: i64) -> Option<i64> {
    tokens
        .expires_in
        .filter(|s| s.is_finite())
        .map(|seconds| now_ms.saturating_add((seconds * 1000.0) as i64))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(secret: Option<&str>) -> ClientInformation {
        ClientInformation {
            client_id: "c".into(),
            client_secret: secret.map(str::to_owned),
            ..ClientInformation::default()
        }
    }

    #[test]
    fn client_authentication_follows_the_secret_and_the_server() {
        assert_eq!(client_auth(&client(None), &[]), "none");
        assert_eq!(client_auth(&client(Some("s")), &[]), "client_secret_basic");
        let post = vec!["client_secret_post".to_owned()];
        assert_eq!(client_auth(&client(Some("s")), &post), "client_secret_post");
    }
}
