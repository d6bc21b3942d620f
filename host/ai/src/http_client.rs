//! The HTTP clients every provider request and OAuth token request goes through, and the proxy
//! they use.
//!
//! pi's `httpProxy` setting stands for `HTTPS_PROXY`/`HTTP_PROXY`: when it is set, every request
//! goes through that proxy (hosts named in `NO_PROXY` excepted); when it is not, the
//! environment's `HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY` and `NO_PROXY` apply (reqwest's system
//! proxy). The proxy is chosen once at start-up ([`configure_proxy`]) and the clients are built
//! on first use, so a connection pool is shared by all the requests of a run.

use std::sync::RwLock;
use std::time::Duration;

/// A proxy URL that cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("httpProxy {url:?} is not a usable proxy URL: {reason}")]
pub struct ProxyError {
    pub url: String,
    pub reason: String,
}

/// How long one OAuth token request may take.
const TOKEN_TIMEOUT: Duration = Duration::from_secs(30);

/// What a client is for; each has its own timeouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Purpose {
    /// Provider requests: a connect timeout only, the stream's own deadlines do the rest.
    Stream,
    /// OAuth token requests: short, bounded as a whole.
    Token,
}

#[derive(Default)]
struct State {
    /// `None`: the environment's proxy variables.
    proxy: Option<reqwest::Proxy>,
    /// The configured proxy's URL without credentials, for error messages.
    shown: Option<String>,
    stream: Option<reqwest::Client>,
    token: Option<reqwest::Client>,
}

static STATE: RwLock<State> = RwLock::new(State {
    proxy: None,
    shown: None,
    stream: None,
    token: None,
});

/// Sends every later request through `proxy` (pi's `httpProxy`: `http://host:port`,
/// `https://…`, credentials in the URL allowed; a URL without a scheme is taken as `http://`),
/// or back to the environment's proxy variables with `None`.
pub fn configure_proxy(proxy: Option<&str>) -> Result<(), ProxyError> {
    let parsed = proxy.map(parse_proxy).transpose()?;
    let mut state = STATE
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    *state = match parsed {
        Some((proxy, shown)) => State {
            proxy: Some(proxy),
            shown: Some(shown),
            ..State::default()
        },
        None => State::default(),
    };
    Ok(())
}

/// " (through the proxy … of the setting httpProxy)" when one is configured: a connection
/// error then most likely concerns the proxy, not the provider the URL names.
pub(crate) fn proxy_note() -> String {
    let state = STATE
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    match &state.shown {
        Some(url) => format!(" (through the proxy {url} of the setting httpProxy)"),
        None => String::new(),
    }
}

/// The proxy, and its URL without credentials.
fn parse_proxy(raw: &str) -> Result<(reqwest::Proxy, String), ProxyError> {
    let invalid = |reason: String| ProxyError {
        url: raw.to_owned(),
        reason,
    };
    let trimmed = raw.trim();
    let with_scheme = if trimmed.contains("://") {
        trimmed.to_owned()
    } else {
        format!("http://{trimmed}")
    };
    let mut url = url::Url::parse(&with_scheme).map_err(|e| invalid(e.to_string()))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(invalid(format!(
            "the scheme must be http or https, not {}",
            url.scheme()
        )));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(invalid("it names no host".into()));
    }
    let proxy = reqwest::Proxy::all(url.as_str()).map_err(|e| invalid(e.to_string()))?;
    // Cannot fail: the URL has a host.
    let _ = url.set_username("");
    let _ = url.set_password(None);
    Ok((
        proxy.no_proxy(reqwest::NoProxy::from_env()),
        url.to_string(),
    ))
}

/// The shared client for `purpose` (a cheap handle onto one connection pool).
pub(crate) fn client(purpose: Purpose) -> reqwest::Client {
    {
        let state = STATE
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(client) = slot(&state, purpose) {
            return client.clone();
        }
    }
    let mut state = STATE
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(client) = slot(&state, purpose) {
        return client.clone();
    }
    let client = build(purpose, state.proxy.clone());
    match purpose {
        Purpose::Stream => state.stream = Some(client.clone()),
        Purpose::Token => state.token = Some(client.clone()),
    }
    client
}

fn slot(state: &State, purpose: Purpose) -> Option<&reqwest::Client> {
    match purpose {
        Purpose::Stream => state.stream.as_ref(),
        Purpose::Token => state.token.as_ref(),
    }
}

fn build(purpose: Purpose, proxy: Option<reqwest::Proxy>) -> reqwest::Client {
    let mut builder = match purpose {
        Purpose::Stream => reqwest::Client::builder().connect_timeout(Duration::from_secs(30)),
        Purpose::Token => reqwest::Client::builder().timeout(TOKEN_TIMEOUT),
    };
    if let Some(proxy) = proxy {
        builder = builder.proxy(proxy);
    }
    builder.build().unwrap_or_else(|error| {
        // Only a TLS back end that cannot start fails here; a plain client still works for
        // plain-HTTP endpoints and says why HTTPS fails on use.
        tracing::warn!(%error, "cannot build the HTTP client; using a default one");
        reqwest::Client::new()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proxy_urls_are_checked() {
        assert!(parse_proxy("http://127.0.0.1:8080").is_ok());
        assert!(parse_proxy("proxy.example.com:3128").is_ok());
        let (_, shown) = parse_proxy("https://user:pw@proxy.example.com").unwrap();
        assert_eq!(shown, "https://proxy.example.com/");
        let error = parse_proxy("socks5://127.0.0.1:1080").unwrap_err();
        assert!(error.to_string().contains("http or https"), "{error}");
        let error = parse_proxy("http://").unwrap_err();
        assert!(
            error.to_string().starts_with("httpProxy \"http://\""),
            "{error}"
        );
        assert!(parse_proxy("http://exa mple:80").is_err());
    }
}
