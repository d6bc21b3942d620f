//! pi 1.6's `pi auth check --provider <p> [--model <m>] [--json] [--credentials]
//! [--no-refresh]`: whether one provider's credential is ready, for scripts.
//!
//! The answer is one line on stdout (`ready`, `not_ready` or `invalid`, or the credential
//! itself with `--credentials`), or with `--json` pi 1.6's object `{status, provider,
//! authType | reason, credentials?}`; the exit code is 0, 1 or 2. As in pi 1.6 the credential
//! is resolved the way a request would resolve it (a `!command` key is run, an expired OAuth
//! login refreshed) unless `--no-refresh` asks to only look at what is stored.

use pi_ai::{AuthStorage, Credential, ModelRegistry, ResolveOptions};
use serde::Serialize;
use std::path::Path;

/// What `check` was asked: the parsed flags of the pi 1.6 form.
#[derive(Debug, Default)]
pub(super) struct CheckRequest {
    pub provider: Option<String>,
    pub model: Option<String>,
    pub json: bool,
    pub credentials: bool,
    pub no_refresh: bool,
}

/// The three answers, with pi 1.6's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
enum Status {
    Ready,
    NotReady,
    Invalid,
}

/// Why a provider is not ready, or invalid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
enum Reason {
    /// Neither pi nor models.json knows the provider.
    ProviderNotFound,
    /// No credential is stored, set in the environment or in models.json (or it resolves
    /// to nothing).
    CredentialsNotConfigured,
    /// auth.json or models.json cannot be read, the model cannot be resolved, or an OAuth
    /// refresh failed.
    InvalidState,
}

/// The kind of the credential a ready provider has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
enum AuthType {
    ApiKey,
    Oauth,
}

/// pi 1.6's check result (field order as pi 1.6 writes it).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Report {
    status: Status,
    provider: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    auth_type: Option<AuthType>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<Reason>,
    #[serde(skip_serializing_if = "Option::is_none")]
    credentials: Option<String>,
}

impl Report {
    fn ready(provider: &str, auth_type: AuthType, credential: String) -> Report {
        Report {
            status: Status::Ready,
            provider: provider.to_owned(),
            auth_type: Some(auth_type),
            reason: None,
            credentials: Some(credential),
        }
    }

    fn not(status: Status, provider: &str, reason: Reason) -> Report {
        Report {
            status,
            provider: provider.to_owned(),
            auth_type: None,
            reason: Some(reason),
            credentials: None,
        }
    }

    fn exit_code(&self) -> i32 {
        match self.status {
            Status::Ready => 0,
            Status::NotReady => 1,
            Status::Invalid => 2,
        }
    }
}

/// Runs the check, prints its answer and returns the exit code.
pub(super) async fn run(request: &CheckRequest, agent_dir: &Path) -> i32 {
    let provider = request.provider.as_deref().map(str::trim);
    let model = request.model.as_deref().map(str::trim);
    let (provider, model) = (
        provider.filter(|p| !p.is_empty()),
        model.filter(|m| !m.is_empty()),
    );
    if provider.is_none() && model.is_none() {
        eprintln!("Error: Auth checks require --provider <provider> or --model <model>");
        eprintln!("(`pi auth status` reports every stored credential.)");
        return 2;
    }
    let mut report = check(provider, model, agent_dir, !request.no_refresh).await;
    if !request.credentials {
        report.credentials = None;
    }
    let line = if request.json {
        serde_json::to_string(&report).unwrap_or_default()
    } else {
        match (&report.status, &report.credentials) {
            (Status::Ready, Some(credential)) => credential.clone(),
            _ => status_word(report.status).to_owned(),
        }
    };
    println!("{line}");
    report.exit_code()
}

fn status_word(status: Status) -> &'static str {
    match status {
        Status::Ready => "ready",
        Status::NotReady => "not_ready",
        Status::Invalid => "invalid",
    }
}

/// The provider's state; `credentials` holds the credential when it is ready.
async fn check(
    provider: Option<&str>,
    model: Option<&str>,
    agent_dir: &Path,
    refresh: bool,
) -> Report {
    let asked = provider.or(model).unwrap_or_default();
    let Ok(registry) =
        ModelRegistry::load_with_providers(Some(&agent_dir.join("models.json")), &[])
    else {
        return Report::not(Status::Invalid, asked, Reason::InvalidState);
    };
    let provider = match (provider, model) {
        (Some(provider), _) => provider.to_owned(),
        (None, Some(model)) => match registry.find_by_pattern(model) {
            Some((found, _)) => found.provider.clone(),
            None => return Report::not(Status::Invalid, model, Reason::InvalidState),
        },
        (None, None) => return Report::not(Status::Invalid, asked, Reason::InvalidState),
    };
    if !registry.providers().contains(&provider.as_str()) {
        return Report::not(Status::NotReady, &provider, Reason::ProviderNotFound);
    }
    let Ok(storage) = AuthStorage::open(agent_dir.join("auth.json")) else {
        return Report::not(Status::Invalid, &provider, Reason::InvalidState);
    };
    let models_key = registry.provider_api_key(&provider);
    // pi 1.6 passes over a stored entry it cannot read, as if there were none.
    match storage.get(&provider).ok().flatten() {
        Some(stored) => check_stored(&provider, stored, &storage, models_key, refresh).await,
        None => check_unstored(&provider, models_key, refresh),
    }
}

/// A provider with a credential in auth.json: it owns the provider.
async fn check_stored(
    provider: &str,
    stored: Credential,
    storage: &AuthStorage,
    models_key: Option<&str>,
    refresh: bool,
) -> Report {
    let (auth_type, raw) = match stored {
        Credential::ApiKey { key, .. } => (AuthType::ApiKey, key),
        Credential::OAuth { access, .. } => (AuthType::Oauth, access),
    };
    if !refresh {
        return Report::ready(provider, auth_type, raw);
    }
    let options = ResolveOptions::default();
    match pi_ai::resolve_api_key(provider, None, storage, models_key, &options).await {
        Ok(Some(key)) => Report::ready(provider, auth_type, key),
        Ok(None) => Report::not(Status::NotReady, provider, Reason::CredentialsNotConfigured),
        // A key command that fails leaves the provider without a key; an OAuth login that
        // cannot be refreshed is a broken state.
        Err(_) if auth_type == AuthType::ApiKey => {
            Report::not(Status::NotReady, provider, Reason::CredentialsNotConfigured)
        }
        Err(_) => Report::not(Status::Invalid, provider, Reason::InvalidState),
    }
}

/// A provider with nothing in auth.json: its environment variable, then models.json's key.
fn check_unstored(provider: &str, models_key: Option<&str>, refresh: bool) -> Report {
    if let Some(key) = pi_ai::auth::env_api_key(provider) {
        return Report::ready(provider, AuthType::ApiKey, key);
    }
    let key = match models_key {
        Some(raw) if !refresh => Some(raw.to_owned()),
        Some(raw) => pi_ai::auth::resolve_config_value(raw).ok().flatten(),
        None => None,
    };
    match key {
        Some(key) => Report::ready(provider, AuthType::ApiKey, key),
        None => Report::not(Status::NotReady, provider, Reason::CredentialsNotConfigured),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_serialise_in_pi_16s_shape() {
        let ready = Report::ready("anthropic", AuthType::Oauth, "tok".into());
        assert_eq!(
            serde_json::to_string(&ready).unwrap(),
            r#"{"status":"ready","provider":"anthropic","authType":"oauth","credentials":"tok"}"#
        );
        let missing = Report::not(Status::NotReady, "x", Reason::ProviderNotFound);
        assert_eq!(
            serde_json::to_string(&missing).unwrap(),
            r#"{"status":"not_ready","provider":"x","reason":"provider_not_found"}"#
        );
        assert_eq!(missing.exit_code(), 1);
        let broken = Report::not(Status::Invalid, "x", Reason::InvalidState);
        assert_eq!(broken.exit_code(), 2);
        assert_eq!(status_word(Status::NotReady), "not_ready");
    }
}
