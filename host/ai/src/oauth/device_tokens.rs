//! Device-code sign-ins whose answer is an ordinary OAuth token pair, refreshed with a
//! standard `refresh_token` grant: xAI (Grok subscriptions; PKCE on top) and Kimi For Coding.

use super::device::DeviceFlow;
use super::pkce::Pkce;
use super::token::{self, Body};
use super::{LoginUi, OAuthError, endpoint};
use crate::auth_store::Credential;
use serde_json::{Map, Value};

/// One provider's device-code endpoints and client.
pub struct DeviceTokens {
    provider: &'static str,
    code_url: &'static str,
    token_url: &'static str,
    client_id: &'static str,
    scope: &'static str,
    pkce: bool,
}

pub const XAI: DeviceTokens = DeviceTokens {
    provider: "xai",
    code_url: "https://auth.x.ai/oauth2/device/code",
    token_url: "https://auth.x.ai/oauth2/token",
    client_id: "b1a00492-073a-47ea-816f-4c329264a828",
    scope: "openid profile email offline_access grok-cli:access api:access",
    pkce: true,
};

pub const KIMI: DeviceTokens = DeviceTokens {
    provider: "kimi-coding",
    code_url: "https://auth.kimi.com/api/oauth/device_authorization",
    token_url: "https://auth.kimi.com/api/oauth/token",
    client_id: "17e5f671-d194-4dfb-9706-5516cb48c098",
    scope: "",
    pkce: false,
};

impl DeviceTokens {
    pub async fn login(&self, ui: &dyn LoginUi) -> Result<Credential, OAuthError> {
        let pkce = self.pkce.then(Pkce::new);
        let token_url = endpoint(self.provider, self.token_url);
        let flow = DeviceFlow {
            provider: self.provider,
            code_url: endpoint(self.provider, self.code_url),
            token_url: token_url.clone(),
            client_id: self.client_id,
            scope: self.scope,
            pkce: pkce.as_ref(),
        };
        let json = flow.run(ui).await?;
        token::oauth_credential(self.provider, &token_url, &json, None, Map::new())
    }

    pub async fn refresh(
        &self,
        refresh: &str,
        extra: &Map<String, Value>,
    ) -> Result<Credential, OAuthError> {
        let url = endpoint(self.provider, self.token_url);
        let params = [
            ("grant_type", "refresh_token"),
            ("client_id", self.client_id),
            ("refresh_token", refresh),
        ];
        let json = token::post(self.provider, &url, Body::Form, &params).await?;
        token::oauth_credential(self.provider, &url, &json, Some(refresh), extra.clone())
    }
}
