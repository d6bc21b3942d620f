//! The bearer tokens HTTP servers are sent: an OAuth server's stored access token (refreshed
//! before it expires and after a 401, once, under a lock file per server so two pi processes
//! never spend one refresh token twice), or, for `auth {provider}`, that provider's login token
//! from `auth.json`, resolved (and refreshed) as for model requests.

use super::discovery::{Challenge, discover};
use super::flow::{expires_at, token_request};
use super::{OAuthError, OAuthSettings, now_ms};
use crate::credentials::{ClientInformation, ServerCredentials};
use crate::http::{AuthProvider, BearerSource};
use crate::spec::{AuthSpec, ServerSpec, TransportSpec};
use pi_agent::BoxFuture;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Access tokens this close to expiry are refreshed before they are sent.
const REFRESH_SKEW_MS: i64 = 30_000;
/// Longest wait for another process's refresh.
const REFRESH_LOCK_WAIT: Duration = Duration::from_secs(25);
/// Longest a request to the authorization server may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(15);

/// The HTTP client for authorization servers.
pub(super) fn oauth_http() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(REQUEST_TIMEOUT)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap_or_default()
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Where the manager gets each server's tokens: `mcp-auth.json` for OAuth servers, `auth.json`
/// for `auth {provider}`.
pub struct DefaultAuth {
    agent_dir: PathBuf,
}

impl DefaultAuth {
    pub fn new(agent_dir: PathBuf) -> Self {
        DefaultAuth { agent_dir }
    }
}

impl AuthProvider for DefaultAuth {
    fn bearer(&self, server: &ServerSpec) -> Option<Arc<dyn BearerSource>> {
        let TransportSpec::Http { url, .. } = &server.transport else {
            return None;
        };
        match &server.auth {
            AuthSpec::OAuth(settings) => Some(Arc::new(OAuthBearer::new(
                &self.agent_dir,
                &server.name,
                url,
                OAuthSettings::from_value(settings),
            ))),
            AuthSpec::Provider(provider) => {
                let storage = pi_ai::AuthStorage::open(self.agent_dir.join("auth.json")).ok()?;
                Some(Arc::new(ProviderBearer::new(provider, storage)))
            }
            AuthSpec::None => None,
        }
    }
}

/// The stored OAuth tokens of one server.
pub struct OAuthBearer {
    url: String,
    settings: OAuthSettings,
    store: ServerCredentials,
    http: reqwest::Client,
    /// The token last handed out: a 401 refers to it.
    sent: Mutex<Option<String>>,
    /// One refresh at a time in this process.
    refreshing: tokio::sync::Mutex<()>,
}

impl OAuthBearer {
    pub fn new(
        agent_dir: &std::path::Path,
        server: &str,
        url: &str,
        settings: OAuthSettings,
    ) -> Self {
        OAuthBearer {
            url: url.to_owned(),
            settings,
            store: ServerCredentials::new(agent_dir, server, url),
            http: oauth_http(),
            sent: Mutex::new(None),
            refreshing: tokio::sync::Mutex::new(()),
        }
    }

    /// A new access token in place of `stale`: the stored one if another request or process
    /// replaced it meanwhile, else one from the refresh token. `None` when only a sign-in helps.
    async fn replace(&self, stale: Option<String>) -> Option<String> {
        let _one = self.refreshing.lock().await;
        let path = self.store.refresh_lock_path();
        let acquire =
            tokio::task::spawn_blocking(move || pi_ai::file_lock::FileLock::acquire(&path));
        let _held = match tokio::time::timeout(REFRESH_LOCK_WAIT, acquire).await {
            Ok(Ok(Ok(held))) => held,
            outcome => {
                tracing::warn!(url = %self.url, ?outcome, "no MCP token refresh: the refresh lock is busy");
                return None;
            }
        };
        let state = self.store.load().ok()?;
        let tokens = state.tokens?;
        if stale.as_deref() != Some(tokens.access_token.as_str()) {
            return Some(tokens.access_token);
        }
        let refresh_token = tokens.refresh_token.clone()?;
        let client = self.client(state.client_information)?;
        match self.refresh_with(&client, &refresh_token).await {
            Ok(mut fresh) => {
                fresh.refresh_token = fresh.refresh_token.or(Some(refresh_token));
                fresh.scope = fresh.scope.or(tokens.scope);
                let access = fresh.access_token.clone();
                let expiry = expires_at(&fresh, now_ms());
                let saved = self.store.update(|state| {
                    state.tokens = Some(fresh);
                    state.tokens_expire_at = expiry;
                });
                if let Err(error) = saved {
                    tracing::warn!(%error, "cannot store the refreshed MCP token");
                }
                Some(access)
            }
            Err(error) => {
                tracing::warn!(url = %self.url, %error, "MCP token refresh failed");
                if matches!(&error, OAuthError::Refused { code, .. } if code != "server_error") {
                    // A refused grant never works again: sign in anew.
                    let _ = self.store.update(|state| {
                        state.tokens = None;
                        state.tokens_expire_at = None;
                    });
                }
                None
            }
        }
    }

    /// The configured client, else the registered one.
    fn client(&self, stored: Option<ClientInformation>) -> Option<ClientInformation> {
        match &self.settings.client_id {
            Some(id) => Some(ClientInformation {
                client_id: id.clone(),
                client_secret: self.settings.client_secret.clone(),
                ..ClientInformation::default()
            }),
            None => stored,
        }
    }

    async fn refresh_with(
        &self,
        client: &ClientInformation,
        refresh_token: &str,
    ) -> Result<crate::credentials::Tokens, OAuthError> {
        let discovered = discover(
            &self.http,
            &self.url,
            &Challenge::default(),
            self.settings.auth_server_metadata_url.as_deref(),
        )
        .await?;
        let params = vec![
            ("grant_type", "refresh_token".to_owned()),
            ("refresh_token", refresh_token.to_owned()),
        ];
        token_request(
            &self.http,
            &discovered.metadata,
            client,
            discovered.resource.as_deref(),
            params,
        )
        .await
    }
}

impl BearerSource for OAuthBearer {
    fn token(&self) -> Option<String> {
        let token = self.store.load().ok()?.tokens?.access_token;
        *lock(&self.sent) = Some(token.clone());
        Some(token)
    }

    fn prepare(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            let Ok(state) = self.store.load() else { return };
            let Some(tokens) = state.tokens else { return };
            let expired = state
                .tokens_expire_at
                .is_some_and(|at| at - REFRESH_SKEW_MS <= now_ms());
            if expired && tokens.refresh_token.is_some() {
                // A failure falls through: the old token goes out and a 401 decides.
                let _ = self.replace(Some(tokens.access_token)).await;
            }
        })
    }

    fn refresh(&self) -> BoxFuture<'_, Option<String>> {
        Box::pin(async move {
            let stale = lock(&self.sent).clone();
            self.replace(stale).await
        })
    }
}

/// `auth {provider}`: the provider's login token, read before every request so the provider's
/// refreshes apply; MCP keeps no copy of its own.
pub struct ProviderBearer {
    provider: String,
    storage: pi_ai::AuthStorage,
    current: Mutex<Option<String>>,
}

impl ProviderBearer {
    pub fn new(provider: &str, storage: pi_ai::AuthStorage) -> Self {
        ProviderBearer {
            provider: provider.to_owned(),
            storage,
            current: Mutex::new(None),
        }
    }

    async fn resolve(&self) -> Option<String> {
        let options = pi_ai::ResolveOptions::default();
        let key = pi_ai::resolve_api_key(&self.provider, None, &self.storage, None, &options).await;
        let key = key.unwrap_or_else(|error| {
            tracing::warn!(provider = %self.provider, %error, "no login token for an MCP server");
            None
        });
        *lock(&self.current) = key.clone();
        key
    }
}

impl BearerSource for ProviderBearer {
    fn token(&self) -> Option<String> {
        lock(&self.current).clone()
    }

    fn prepare(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            self.resolve().await;
        })
    }

    /// The provider's token again: a new one (another process refreshed it) is retried, the
    /// same one means the user must sign in to the provider.
    fn refresh(&self) -> BoxFuture<'_, Option<String>> {
        Box::pin(async move {
            let before = self.token();
            self.resolve()
                .await
                .filter(|fresh| Some(fresh) != before.as_ref())
        })
    }
}
