//! Token-endpoint requests (form or JSON bodies) and their answers as credentials.

use super::OAuthError;
use crate::auth_store::Credential;
use serde_json::{Map, Value};

/// How a token endpoint wants its parameters.
#[derive(Debug, Clone, Copy)]
pub enum Body {
    Form,
    Json,
}

fn client() -> reqwest::Client {
    crate::http_client::client(crate::http_client::Purpose::Token)
}

/// POSTs `params` to `url` and returns the JSON answer. A 400/401/403 answer is
/// [`OAuthError::Rejected`] (the grant is no good); other failures are `Http`.
pub async fn post(
    provider: &str,
    url: &str,
    body: Body,
    params: &[(&str, &str)],
) -> Result<Value, OAuthError> {
    let request = client().post(url).header("accept", "application/json");
    let request = match body {
        Body::Form => {
            let encoded = url::form_urlencoded::Serializer::new(String::new())
                .extend_pairs(params)
                .finish();
            request
                .header("content-type", "application/x-www-form-urlencoded")
                .body(encoded)
        }
        Body::Json => {
            let object: Map<String, Value> = params
                .iter()
                .map(|(k, v)| ((*k).to_owned(), Value::String((*v).to_owned())))
                .collect();
            request
                .header("content-type", "application/json")
                .body(Value::Object(object).to_string())
        }
    };
    send(provider, url, request).await
}

/// GETs `url` with `headers` and returns the JSON answer (errors as for [`post`]).
pub async fn get(provider: &str, url: &str, headers: &[(&str, &str)]) -> Result<Value, OAuthError> {
    let mut request = client().get(url).header("accept", "application/json");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    send(provider, url, request).await
}

async fn send(
    provider: &str,
    url: &str,
    request: reqwest::RequestBuilder,
) -> Result<Value, OAuthError> {
    let http_error = |message: String| OAuthError::Http {
        provider: provider.to_owned(),
        url: url.to_owned(),
        message,
    };
    let response = request
        .send()
        .await
        .map_err(|e| http_error(error_chain(&e)))?;
    let status = response.status();
    let text = response
        .text()
        .await
        .map_err(|e| http_error(error_chain(&e)))?;
    let json: Option<Value> = serde_json::from_str(&text).ok();
    if status.is_success() {
        return json.ok_or_else(|| OAuthError::BadResponse {
            provider: provider.to_owned(),
            url: url.to_owned(),
            message: format!("not JSON: {}", clip(&text)),
        });
    }
    let detail = json
        .as_ref()
        .and_then(error_text)
        .unwrap_or_else(|| clip(&text));
    if matches!(status.as_u16(), 400 | 401 | 403) {
        return Err(OAuthError::Rejected {
            provider: provider.to_owned(),
            message: format!("HTTP {}: {detail}", status.as_u16()),
        });
    }
    Err(http_error(format!("HTTP {}: {detail}", status.as_u16())))
}

/// `error` and `error_description` of an OAuth error answer.
pub fn error_text(json: &Value) -> Option<String> {
    let code = json.get("error").and_then(Value::as_str)?;
    Some(
        match json.get("error_description").and_then(Value::as_str) {
            Some(description) => format!("{code}: {description}"),
            None => code.to_owned(),
        },
    )
}

fn clip(text: &str) -> String {
    let text = text.trim();
    match text.char_indices().nth(200) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

fn error_chain(error: &dyn std::error::Error) -> String {
    let mut out = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        out.push_str(": ");
        out.push_str(&cause.to_string());
        source = cause.source();
    }
    out
}

/// A token answer (`access_token`, `refresh_token`, `expires_in`) as an OAuth credential.
/// A missing `refresh_token` keeps `previous_refresh` (servers that do not rotate it).
pub fn oauth_credential(
    provider: &str,
    url: &str,
    json: &Value,
    previous_refresh: Option<&str>,
    extra: Map<String, Value>,
) -> Result<Credential, OAuthError> {
    let bad = |message: &str| OAuthError::BadResponse {
        provider: provider.to_owned(),
        url: url.to_owned(),
        message: message.to_owned(),
    };
    let access = json
        .get("access_token")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("no access_token"))?;
    let refresh = json
        .get("refresh_token")
        .and_then(Value::as_str)
        .or(previous_refresh)
        .ok_or_else(|| bad("no refresh_token"))?;
    let expires_in = json
        .get("expires_in")
        .and_then(Value::as_i64)
        .ok_or_else(|| bad("no expires_in"))?;
    Ok(Credential::OAuth {
        access: access.to_owned(),
        refresh: refresh.to_owned(),
        expires: crate::types::now_ms().saturating_add(expires_in.saturating_mul(1000)),
        extra,
    })
}
