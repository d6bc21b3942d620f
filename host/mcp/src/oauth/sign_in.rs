//! Signing in to a server (`pi mcp login`): discovery, the client (configured, registered
//! before for this redirect URI, or registered now), PKCE, the authorization URL shown to the
//! user, the loopback callback or a pasted redirect URL, the `state` and `iss` checks, and the
//! code exchanged for tokens stored in `mcp-auth.json`.

use super::bearer::oauth_http;
use super::discovery::{Challenge, Discovered, discover};
use super::flow::{AuthorizationRequest, authorization_url, expires_at, register, token_request};
use super::{ClientRegistration, OAuthError, OAuthSettings, is_loopback, now_ms};
use crate::credentials::{ClientInformation, ServerCredentials};
use pi_ai::oauth::{Callback, LoginUi, Pkce, random_token};
use std::path::PathBuf;
use std::time::Duration;

/// The name pi registers as.
const CLIENT_NAME: &str = "pi";
/// The callback path when `callbackUrl` names none.
const CALLBACK_PATH: &str = "/callback";

/// Which server to sign in to, and how long to wait for the user.
#[derive(Debug, Clone)]
pub struct SignInOptions {
    pub server: String,
    pub url: String,
    pub settings: OAuthSettings,
    pub agent_dir: PathBuf,
    pub timeout: Duration,
}

/// Runs the sign-in and stores the tokens; `ui` shows the URL and reads a pasted redirect.
pub async fn sign_in(options: &SignInOptions, ui: &dyn LoginUi) -> Result<(), OAuthError> {
    let run = async {
        let http = oauth_http();
        let challenge = probe(&http, &options.url).await;
        let settings = &options.settings;
        let discovered = discover(
            &http,
            &options.url,
            &challenge,
            settings.auth_server_metadata_url.as_deref(),
        )
        .await?;
        let callback = bind_callback(settings).await?;
        let redirect_uri = callback.redirect_uri.clone();
        let store = ServerCredentials::new(&options.agent_dir, &options.server, &options.url);
        let scope = settings
            .scope
            .clone()
            .or(challenge.scope)
            .or(discovered.scopes_supported.clone());
        let client = client_for(
            &http,
            settings,
            &store,
            &discovered,
            &redirect_uri,
            scope.as_deref(),
        )
        .await?;
        let pkce = Pkce::new();
        let state = random_token();
        let url = authorization_url(
            &discovered.metadata,
            &AuthorizationRequest {
                client_id: &client.client_id,
                redirect_uri: &redirect_uri,
                challenge: &pkce.challenge,
                state: &state,
                scope: scope.as_deref(),
                resource: discovered.resource.as_deref(),
            },
        )?;
        store.update(|stored| {
            stored.code_verifier = Some(pkce.verifier.clone());
            stored.oauth_state = Some(state.clone());
        })?;
        ui.show_url(&url);
        let answer = callback.wait("mcp", ui).await?;
        if answer.state.as_deref() != Some(state.as_str()) {
            return Err(OAuthError::StateMismatch);
        }
        check_issuer(&discovered, answer.iss.as_deref())?;
        let params = vec![
            ("grant_type", "authorization_code".to_owned()),
            ("code", answer.code),
            ("code_verifier", pkce.verifier.clone()),
            ("redirect_uri", redirect_uri.clone()),
        ];
        let mut tokens = token_request(
            &http,
            &discovered.metadata,
            &client,
            discovered.resource.as_deref(),
            params,
        )
        .await?;
        // A response without `scope` grants the requested one (RFC 6749 §5.1).
        tokens.scope = tokens.scope.or(scope);
        let expiry = expires_at(&tokens, now_ms());
        store.update(|stored| {
            stored.tokens = Some(tokens);
            stored.tokens_expire_at = expiry;
            stored.code_verifier = None;
            stored.oauth_state = None;
        })?;
        Ok(())
    };
    tokio::time::timeout(options.timeout, run)
        .await
        .map_err(|_| OAuthError::TimedOut)?
}

/// The server's challenge to a request without a token (its `resource_metadata` and `scope`).
async fn probe(http: &reqwest::Client, url: &str) -> Challenge {
    let body = serde_json::json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {
            "protocolVersion": crate::client::offered_protocol_version().to_string(),
            "capabilities": {},
            "clientInfo": {"name": crate::CLIENT_NAME, "version": env!("CARGO_PKG_VERSION")}
        }
    });
    let response = http
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await;
    match response {
        Ok(response) if response.status() == reqwest::StatusCode::UNAUTHORIZED => response
            .headers()
            .get(reqwest::header::WWW_AUTHENTICATE)
            .and_then(|v| v.to_str().ok())
            .map(Challenge::parse)
            .unwrap_or_default(),
        _ => Challenge::default(),
    }
}

/// The loopback listener: `callbackUrl`'s host, port and path, else
/// `http://127.0.0.1:<callbackPort or any>/callback`.
async fn bind_callback(settings: &OAuthSettings) -> Result<Callback, OAuthError> {
    let (host, port, path) = match &settings.callback_url {
        Some(configured) => {
            let url = url::Url::parse(configured)
                .map_err(|e| OAuthError::Invalid(format!("invalid oauth.callbackUrl: {e}")))?;
            let host = url.host_str().unwrap_or_default().to_owned();
            if url.scheme() != "http" || !is_loopback(&host) {
                return Err(OAuthError::Invalid(
                    "oauth.callbackUrl must be an http URI on localhost, 127.0.0.1, or [::1]"
                        .into(),
                ));
            }
            let port = url.port().or(settings.callback_port).unwrap_or(0);
            (host, port, url.path().to_owned())
        }
        None => (
            "127.0.0.1".to_owned(),
            settings.callback_port.unwrap_or(0),
            CALLBACK_PATH.to_owned(),
        ),
    };
    let redirect_host = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_owned();
    // `localhost` is served on 127.0.0.1; browsers fall back to it.
    let bind_host = if redirect_host == "localhost" {
        "127.0.0.1"
    } else {
        &redirect_host
    };
    Ok(Callback::bind_at("mcp", bind_host, &redirect_host, port, &path).await?)
}

/// The client to sign in as: the configured one, the one registered before for this redirect
/// URI, or a new registration (stored).
async fn client_for(
    http: &reqwest::Client,
    settings: &OAuthSettings,
    store: &ServerCredentials,
    discovered: &Discovered,
    redirect_uri: &str,
    scope: Option<&str>,
) -> Result<ClientInformation, OAuthError> {
    if let Some(id) = &settings.client_id {
        return Ok(ClientInformation {
            client_id: id.clone(),
            client_secret: settings.client_secret.clone(),
            ..ClientInformation::default()
        });
    }
    if settings.client_registration == ClientRegistration::Cimd {
        return Err(OAuthError::Invalid(
            "oauth.clientRegistration \"cimd\" needs a Client ID Metadata Document, and this build publishes none; use \"dcr\" or set oauth.clientId".into(),
        ));
    }
    let stored = store.load()?.client_information;
    if let Some(client) = stored.filter(|c| c.redirect_uris.iter().any(|u| u == redirect_uri)) {
        return Ok(client);
    }
    let name = settings.client_name.as_deref().unwrap_or(CLIENT_NAME);
    let client = register(http, &discovered.metadata, name, redirect_uri, scope).await?;
    store.update(|stored| stored.client_information = Some(client.clone()))?;
    Ok(client)
}

/// RFC 9207: a code from another authorization server is never sent to this one.
fn check_issuer(discovered: &Discovered, iss: Option<&str>) -> Result<(), OAuthError> {
    let metadata = &discovered.metadata;
    let required = metadata.authorization_response_iss_parameter_supported == Some(true);
    if (iss.is_some() || required) && iss != Some(metadata.issuer.as_str()) {
        return Err(OAuthError::IssuerMismatch {
            expected: metadata.issuer.clone(),
            actual: iss.unwrap_or("nothing").to_owned(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oauth::discovery::AuthServerMetadata;

    fn discovered(iss_supported: Option<bool>) -> Discovered {
        Discovered {
            metadata: AuthServerMetadata {
                issuer: "https://as.example".into(),
                authorization_endpoint: "https://as.example/authorize".into(),
                token_endpoint: "https://as.example/token".into(),
                registration_endpoint: None,
                response_types_supported: vec!["code".into()],
                code_challenge_methods_supported: None,
                token_endpoint_auth_methods_supported: Vec::new(),
                authorization_response_iss_parameter_supported: iss_supported,
            },
            resource: None,
            scopes_supported: None,
        }
    }

    #[test]
    fn the_issuer_of_the_answer_must_be_the_authorization_server() {
        assert!(check_issuer(&discovered(None), None).is_ok());
        assert!(check_issuer(&discovered(None), Some("https://as.example")).is_ok());
        assert!(check_issuer(&discovered(None), Some("https://evil.example")).is_err());
        assert!(check_issuer(&discovered(Some(true)), None).is_err());
        assert!(check_issuer(&discovered(Some(true)), Some("https://as.example")).is_ok());
    }

    #[tokio::test]
    async fn the_callback_follows_callback_url_and_port() {
        let default = bind_callback(&OAuthSettings::default()).await.unwrap();
        assert!(
            default.redirect_uri.starts_with("http://127.0.0.1:")
                && default.redirect_uri.ends_with("/callback"),
            "{}",
            default.redirect_uri
        );
        let port = {
            let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            probe.local_addr().unwrap().port()
        };
        let configured = OAuthSettings {
            callback_url: Some("http://localhost/oauth/done".into()),
            callback_port: Some(port),
            ..OAuthSettings::default()
        };
        let callback = bind_callback(&configured).await.unwrap();
        assert_eq!(
            callback.redirect_uri,
            format!("http://localhost:{port}/oauth/done")
        );
        let remote = OAuthSettings {
            callback_url: Some("http://example.com/cb".into()),
            ..OAuthSettings::default()
        };
        assert!(bind_callback(&remote).await.is_err());
    }
}
