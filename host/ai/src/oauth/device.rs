//! The device-code flow (RFC 8628): ask for a code, show it with its page, poll the token
//! endpoint until the user approves, declines or the code expires.

use super::pkce::Pkce;
use super::token::{self, Body};
use super::{LoginUi, OAuthError};
use serde_json::Value;
use std::time::Duration;

/// One provider's device-code endpoints.
pub struct DeviceFlow<'a> {
    pub provider: &'a str,
    pub code_url: String,
    pub token_url: String,
    pub client_id: &'a str,
    /// Empty: no `scope` parameter.
    pub scope: &'a str,
    /// PKCE on top of the device code (xAI wants the verifier with each poll).
    pub pkce: Option<&'a Pkce>,
}

impl DeviceFlow<'_> {
    /// The token answer once the user approved.
    pub async fn run(&self, ui: &dyn LoginUi) -> Result<Value, OAuthError> {
        let mut params = vec![("client_id", self.client_id)];
        if !self.scope.is_empty() {
            params.push(("scope", self.scope));
        }
        if let Some(pkce) = self.pkce {
            params.push(("code_challenge", pkce.challenge.as_str()));
            params.push(("code_challenge_method", "S256"));
        }
        let start = token::post(self.provider, &self.code_url, Body::Form, &params).await?;
        let field = |name: &str| start.get(name).and_then(Value::as_str);
        let (Some(device_code), Some(user_code)) = (field("device_code"), field("user_code"))
        else {
            return Err(OAuthError::BadResponse {
                provider: self.provider.to_owned(),
                url: self.code_url.clone(),
                message: "no device_code or user_code".to_owned(),
            });
        };
        let page = field("verification_uri_complete")
            .or(field("verification_uri"))
            .unwrap_or_default();
        ui.show_device_code(page, user_code);
        ui.progress("Waiting for the login to be approved…");
        let mut interval = start.get("interval").and_then(Value::as_u64).unwrap_or(5);
        let lifetime = start
            .get("expires_in")
            .and_then(Value::as_u64)
            .unwrap_or(900);
        let deadline = tokio::time::Instant::now() + Duration::from_secs(lifetime);
        loop {
            tokio::time::sleep(Duration::from_secs(interval)).await;
            if tokio::time::Instant::now() >= deadline {
                return Err(self.expired());
            }
            match self.poll(device_code).await? {
                Poll::Done(json) => return Ok(json),
                Poll::Pending => {}
                Poll::SlowDown => interval += 5,
            }
        }
    }

    async fn poll(&self, device_code: &str) -> Result<Poll, OAuthError> {
        let mut params = vec![
            ("client_id", self.client_id),
            ("device_code", device_code),
            ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
        ];
        if let Some(pkce) = self.pkce {
            params.push(("code_verifier", pkce.verifier.as_str()));
        }
        // Pending answers come as 400 from standard servers and as 200 from GitHub.
        let json = match token::post(self.provider, &self.token_url, Body::Form, &params).await {
            Ok(json) => json,
            Err(OAuthError::Rejected { message, .. })
                if message.contains("authorization_pending") =>
            {
                return Ok(Poll::Pending);
            }
            Err(OAuthError::Rejected { message, .. }) if message.contains("slow_down") => {
                return Ok(Poll::SlowDown);
            }
            Err(OAuthError::Rejected { message, .. }) if message.contains("expired_token") => {
                return Err(self.expired());
            }
            Err(other) => return Err(other),
        };
        if json.get("access_token").is_some() {
            return Ok(Poll::Done(json));
        }
        match json.get("error").and_then(Value::as_str) {
            Some("authorization_pending") => Ok(Poll::Pending),
            Some("slow_down") => Ok(Poll::SlowDown),
            Some("expired_token") => Err(self.expired()),
            _ => Err(OAuthError::Rejected {
                provider: self.provider.to_owned(),
                message: token::error_text(&json).unwrap_or_else(|| json.to_string()),
            }),
        }
    }

    fn expired(&self) -> OAuthError {
        OAuthError::DeviceCodeExpired {
            provider: self.provider.to_owned(),
        }
    }
}

enum Poll {
    Done(Value),
    Pending,
    SlowDown,
}
