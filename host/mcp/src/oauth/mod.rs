//! OAuth for streamable-HTTP servers, as pi 1.6 signs in to them: discovery (RFC 9728 resource
//! metadata, RFC 8414 authorization-server metadata with the issuer checked), the client's
//! identity (a configured `clientId`, or dynamic registration as `pi`, RFC 7591), PKCE S256, a
//! loopback callback or a pasted redirect URL, and the `iss` check (RFC 9207).
//!
//! Connections never start a browser flow: they send the stored access token, refresh it when
//! it expires or is refused, and otherwise leave the server `needs-auth` until `pi mcp login`
//! runs [`sign_in`]. The state lives in `<agentDir>/mcp-auth.json` ([`crate::credentials`]).

mod bearer;
mod discovery;
mod flow;
mod sign_in;

pub use bearer::{DefaultAuth, OAuthBearer, ProviderBearer};
pub use discovery::Challenge;
pub use sign_in::{SignInOptions, sign_in};

use serde_json::Value;

/// The `oauth {…}` block of a server in `mcp.json` (already validated by the config).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OAuthSettings {
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
    pub callback_port: Option<u16>,
    pub callback_url: Option<String>,
    pub scope: Option<String>,
    pub client_name: Option<String>,
    pub client_registration: ClientRegistration,
    pub auth_server_metadata_url: Option<String>,
}

/// `oauth.clientRegistration`: how a client without a configured `clientId` identifies itself.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ClientRegistration {
    /// pi 1.6 offers its Client ID Metadata Document when the server supports one; this build
    /// has no document of its own, so `auto` registers (as pi does for rebranded builds).
    #[default]
    Auto,
    /// A Client ID Metadata Document only: refused, as this build publishes none.
    Cimd,
    /// Dynamic client registration (RFC 7591).
    Dcr,
}

impl OAuthSettings {
    /// The settings of an `oauth` block (`Value::Null` or `{}` for none).
    pub fn from_value(value: &Value) -> Self {
        let text = |key: &str| {
            value
                .get(key)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
        };
        let client_registration = match text("clientRegistration").as_deref() {
            Some("cimd") => ClientRegistration::Cimd,
            Some("dcr") => ClientRegistration::Dcr,
            _ => ClientRegistration::Auto,
        };
        OAuthSettings {
            client_id: text("clientId"),
            client_secret: text("clientSecret"),
            callback_port: value
                .get("callbackPort")
                .and_then(Value::as_u64)
                .and_then(|p| u16::try_from(p).ok()),
            callback_url: text("callbackUrl"),
            scope: text("scope"),
            client_name: text("clientName"),
            client_registration,
            auth_server_metadata_url: text("authServerMetadataUrl"),
        }
    }
}

/// Why discovery, registration, sign-in or a refresh failed.
#[derive(Debug, thiserror::Error)]
pub enum OAuthError {
    #[error("request to {url} failed: {message}")]
    Http { url: String, message: String },
    /// The server answered with an OAuth error (`invalid_grant`, `invalid_client`, …).
    #[error("{code}: {description}")]
    Refused { code: String, description: String },
    #[error("{0}")]
    Invalid(String),
    #[error("authorization server issuer mismatch: expected {expected}, got {actual}")]
    IssuerMismatch { expected: String, actual: String },
    #[error("the sign-in answer does not belong to this sign-in (state mismatch)")]
    StateMismatch,
    #[error("cannot store the credentials: {0}")]
    Store(#[from] std::io::Error),
    #[error(transparent)]
    Callback(#[from] pi_ai::oauth::OAuthError),
    #[error("the sign-in was not completed in time")]
    TimedOut,
}

impl OAuthError {
    fn http(url: &str, error: impl std::fmt::Display) -> Self {
        OAuthError::Http {
            url: url.to_owned(),
            message: error.to_string(),
        }
    }
}

/// Whether `host` is a loopback name (`localhost`, `127.0.0.1`, `::1`).
fn is_loopback(host: &str) -> bool {
    matches!(
        host.trim_start_matches('[').trim_end_matches(']'),
        "localhost" | "127.0.0.1" | "::1"
    )
}

/// `url` parsed, refused unless https or loopback http (tokens and codes never go in clear).
fn secure_url(url: &str) -> Result<url::Url, OAuthError> {
    let parsed = url::Url::parse(url)
        .map_err(|e| OAuthError::Invalid(format!("invalid OAuth endpoint {url}: {e}")))?;
    let loopback = parsed.host_str().is_some_and(is_loopback);
    match parsed.scheme() {
        "https" => Ok(parsed),
        "http" if loopback => Ok(parsed),
        _ => Err(OAuthError::Invalid(format!(
            "OAuth endpoint {url} must use https (or http on loopback)"
        ))),
    }
}

/// Milliseconds since the epoch.
fn now_ms() -> i64 {
    pi_ai::now_ms()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn settings_read_the_oauth_block() {
        let settings = OAuthSettings::from_value(&json!({
            "clientId": "id", "callbackPort": 8123, "scope": "a b",
            "clientRegistration": "dcr", "authServerMetadataUrl": "https://as/.well-known/x"
        }));
        assert_eq!(settings.client_id.as_deref(), Some("id"));
        assert_eq!(settings.callback_port, Some(8123));
        assert_eq!(settings.client_registration, ClientRegistration::Dcr);
        assert_eq!(
            OAuthSettings::from_value(&Value::Null),
            OAuthSettings::default()
        );
    }

    #[test]
    fn endpoints_must_be_https_or_loopback() {
        assert!(secure_url("https://as.example/token").is_ok());
        assert!(secure_url("http://127.0.0.1:9/token").is_ok());
        assert!(secure_url("http://[::1]:9/token").is_ok());
        assert!(secure_url("http://as.example/token").is_err());
        assert!(secure_url("file:///etc/passwd").is_err());
    }
}
