//! Refreshing a stored OAuth login before use: under the store's lock, after re-reading it
//! (another pi process may have refreshed already), bounded by a timeout and the caller's
//! cancellation, and saved before the new token is handed out.

use super::{OAuthError, SignIn};
use crate::auth_error::AuthError;
use crate::auth_store::{AuthStorage, Credential};
use std::time::Duration;

/// How a stored OAuth login is kept valid while a key is resolved.
#[derive(Debug, Clone)]
pub struct ResolveOptions {
    /// Refresh when less than this remains; never less than
    /// [`REFRESH_WINDOW`] (`minOAuthValidityMs`).
    pub min_validity: Duration,
    /// Longest a refresh may take.
    pub refresh_timeout: Duration,
    /// Ends a refresh (or the wait for another process's) early.
    pub cancel: tokio_util::sync::CancellationToken,
}

impl Default for ResolveOptions {
    fn default() -> Self {
        ResolveOptions {
            min_validity: REFRESH_WINDOW,
            refresh_timeout: REFRESH_TIMEOUT,
            cancel: tokio_util::sync::CancellationToken::new(),
        }
    }
}

/// The least remaining validity a token is used with; closer to expiry it is refreshed.
pub const REFRESH_WINDOW: Duration = Duration::from_secs(5 * 60);
/// Longest a refresh request may take.
pub const REFRESH_TIMEOUT: Duration = Duration::from_secs(15);

/// Whether a token expiring at `expires` (ms) must be refreshed at `now` (ms).
pub fn needs_refresh(expires: i64, now: i64, options: &ResolveOptions) -> bool {
    let window = options.min_validity.max(REFRESH_WINDOW);
    let window_ms = i64::try_from(window.as_millis()).unwrap_or(i64::MAX);
    expires.saturating_sub(now) < window_ms
}

/// The access token of `provider`'s stored login, refreshed first when needed.
pub async fn refreshed_access(
    provider: &str,
    sign_in: SignIn,
    storage: &AuthStorage,
    options: &ResolveOptions,
    now: &(dyn Fn() -> i64 + Sync),
) -> Result<String, AuthError> {
    let mut update = tokio::select! {
        biased;
        _ = options.cancel.cancelled() => return Err(cancelled(provider)),
        update = storage.update() => update?,
    };
    let current = match update.get(provider)? {
        Some(credential @ Credential::OAuth { .. }) => credential,
        // Replaced by an API key meanwhile (a login in another process): that key is used.
        Some(Credential::ApiKey { key, .. }) => {
            return crate::config_value::resolve_config_value(&key)?.ok_or_else(|| {
                AuthError::EmptyStoredKey {
                    provider: provider.to_owned(),
                }
            });
        }
        None => {
            return Err(AuthError::OAuthExpired {
                provider: provider.to_owned(),
                reason: "the login was removed".to_owned(),
            });
        }
    };
    if let Credential::OAuth {
        access, expires, ..
    } = &current
        && !needs_refresh(*expires, now(), options)
    {
        tracing::debug!(provider, "using the token another process refreshed");
        return Ok(access.clone());
    }
    tracing::info!(provider, "refreshing the OAuth login");
    let refreshed = tokio::select! {
        biased;
        _ = options.cancel.cancelled() => return Err(cancelled(provider)),
        result = tokio::time::timeout(options.refresh_timeout, sign_in.refresh(&current)) => result,
    };
    let fresh = match refreshed {
        Err(_) => {
            return Err(AuthError::RefreshFailed {
                provider: provider.to_owned(),
                message: format!(
                    "no answer within {} s",
                    options.refresh_timeout.as_secs_f64()
                ),
            });
        }
        Ok(Err(error)) => return Err(refresh_error(provider, error)),
        Ok(Ok(fresh)) => fresh,
    };
    update.set(provider, &fresh)?;
    match fresh {
        Credential::OAuth { access, .. } => Ok(access),
        Credential::ApiKey { key, .. } => Ok(key),
    }
}

fn cancelled(provider: &str) -> AuthError {
    AuthError::RefreshCancelled {
        provider: provider.to_owned(),
    }
}

/// A refused refresh token means a new login; anything else may pass.
fn refresh_error(provider: &str, error: OAuthError) -> AuthError {
    match error {
        OAuthError::Rejected { message, .. } => AuthError::OAuthExpired {
            provider: provider.to_owned(),
            reason: format!("the refresh token was refused: {message}"),
        },
        other => AuthError::RefreshFailed {
            provider: provider.to_owned(),
            message: other.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_is_at_least_five_minutes_and_grows_with_min_validity() {
        let options = ResolveOptions::default();
        let minute = 60_000;
        assert!(!needs_refresh(6 * minute, 0, &options));
        assert!(needs_refresh(4 * minute, 0, &options));
        assert!(needs_refresh(-1, 0, &options));
        let longer = ResolveOptions {
            min_validity: Duration::from_secs(30 * 60),
            ..ResolveOptions::default()
        };
        assert!(needs_refresh(20 * minute, 0, &longer));
        assert!(!needs_refresh(31 * minute, 0, &longer));
        let shorter = ResolveOptions {
            min_validity: Duration::from_secs(60),
            ..ResolveOptions::default()
        };
        assert!(needs_refresh(4 * minute, 0, &shorter));
    }
}
