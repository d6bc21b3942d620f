//! Credentials: the environment-variable table and the resolution of the key a request uses
//! (the store, its errors, the config-value syntax and OAuth options are re-exported here so
//! callers need one path).
//!
//! Resolution order: explicit key > stored credential > environment > models.json
//! `apiKey`. A stored credential owns its provider: when it is unusable the answer is an error,
//! never a quiet fallback to a different key from the environment.

pub use crate::auth_error::AuthError;
pub use crate::auth_store::{AuthStorage, AuthUpdate, Credential};
pub use crate::config_value::resolve_config_value;
pub use crate::oauth::ResolveOptions;
use std::collections::BTreeMap;

/// Environment variables that may hold `provider`'s API key, in lookup order.
pub fn env_var_names(provider: &str) -> &'static [&'static str] {
    match provider {
        "anthropic" => &["ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"],
        "openai" => &["OPENAI_API_KEY"],
        "google" => &["GEMINI_API_KEY"],
        "google-vertex" => &["GOOGLE_CLOUD_API_KEY"],
        "azure" | "azure-openai-responses" => &["AZURE_OPENAI_API_KEY"],
        "github-copilot" => &["COPILOT_GITHUB_TOKEN"],
        "xai" => &["XAI_API_KEY"],
        "groq" => &["GROQ_API_KEY"],
        "cerebras" => &["CEREBRAS_API_KEY"],
        "openrouter" => &["OPENROUTER_API_KEY"],
        "vercel-ai-gateway" => &["AI_GATEWAY_API_KEY"],
        "zai" => &["ZAI_API_KEY"],
        "zai-coding-cn" => &["ZAI_CODING_CN_API_KEY"],
        "mistral" => &["MISTRAL_API_KEY"],
        "minimax" => &["MINIMAX_API_KEY"],
        "minimax-cn" => &["MINIMAX_CN_API_KEY"],
        "moonshotai" | "moonshotai-cn" => &["MOONSHOT_API_KEY"],
        "huggingface" => &["HF_TOKEN"],
        "fireworks" => &["FIREWORKS_API_KEY"],
        "together" => &["TOGETHER_API_KEY"],
        "baseten" => &["BASETEN_API_KEY"],
        "opencode" | "opencode-go" => &["OPENCODE_API_KEY"],
        "kimi-coding" => &["KIMI_API_KEY"],
        "deepseek" => &["DEEPSEEK_API_KEY"],
        "nvidia" => &["NVIDIA_API_KEY"],
        "ant-ling" => &["ANT_LING_API_KEY"],
        "cloudflare-workers-ai" | "cloudflare-ai-gateway" => &["CLOUDFLARE_API_KEY"],
        "xiaomi" => &["XIAOMI_API_KEY"],
        "xiaomi-token-plan-cn" => &["XIAOMI_TOKEN_PLAN_CN_API_KEY"],
        "xiaomi-token-plan-ams" => &["XIAOMI_TOKEN_PLAN_AMS_API_KEY"],
        "xiaomi-token-plan-sgp" => &["XIAOMI_TOKEN_PLAN_SGP_API_KEY"],
        "qwen-token-plan" => &["QWEN_TOKEN_PLAN_TEAM_API_KEY", "QWEN_TOKEN_PLAN_API_KEY"],
        "qwen-token-plan-cn" => &[
            "QWEN_TOKEN_PLAN_TEAM_CN_API_KEY",
            "QWEN_TOKEN_PLAN_CN_API_KEY",
        ],
        "qwen-token-plan-individual" => &[
            "QWEN_TOKEN_PLAN_INDIVIDUAL_API_KEY",
            "QWEN_TOKEN_PLAN_API_KEY",
        ],
        "qwen-token-plan-individual-cn" => &[
            "QWEN_TOKEN_PLAN_INDIVIDUAL_CN_API_KEY",
            "QWEN_TOKEN_PLAN_CN_API_KEY",
        ],
        "meta" => &["META_API_KEY"],
        "radius" => &["RADIUS_API_KEY"],
        _ => &[],
    }
}

/// The first non-empty environment variable holding `provider`'s key.
pub fn env_api_key(provider: &str) -> Option<String> {
    env_var_names(provider)
        .iter()
        .filter_map(|name| std::env::var(name).ok())
        .find(|value| !value.trim().is_empty())
}

/// The API key (or OAuth access token) to use for `provider`, by pi's precedence:
/// `explicit` > stored credential > environment variable > models.json `apiKey`
/// (`models_json_key`, raw, resolved here with [`resolve_config_value`]).
///
/// The store is re-read first (another process may have logged in, out, or refreshed). A
/// stored OAuth login close to expiry is refreshed (see [`crate::oauth::refresh`]).
/// `Ok(None)` means no credential anywhere. A stored credential that cannot be used is an
/// error: it owns its provider, so the environment is not consulted behind the user's back.
pub async fn resolve_api_key(
    provider: &str,
    explicit: Option<&str>,
    storage: &AuthStorage,
    models_json_key: Option<&str>,
    options: &ResolveOptions,
) -> Result<Option<String>, AuthError> {
    storage.reload()?;
    resolve_with(
        provider,
        explicit,
        storage,
        &|| env_api_key(provider),
        models_json_key,
        options,
        &crate::types::now_ms,
    )
    .await
}

/// [`resolve_api_key`] with the environment and the clock passed in (tests cannot safely set
/// process environment variables).
async fn resolve_with(
    provider: &str,
    explicit: Option<&str>,
    storage: &AuthStorage,
    env_key: &(dyn Fn() -> Option<String> + Sync),
    models_json_key: Option<&str>,
    options: &ResolveOptions,
    now: &(dyn Fn() -> i64 + Sync),
) -> Result<Option<String>, AuthError> {
    if let Some(key) = explicit.map(str::trim).filter(|k| !k.is_empty()) {
        return Ok(Some(key.to_owned()));
    }
    if let Some(credential) = storage.get(provider)? {
        return stored_key(provider, &credential, storage, options, now)
            .await
            .map(Some);
    }
    if let Some(key) = env_key() {
        return Ok(Some(key));
    }
    match models_json_key {
        Some(raw) => resolve_config_value(raw),
        None => Ok(None),
    }
}

/// The key a stored credential yields now, refreshing an OAuth login when it is due.
async fn stored_key(
    provider: &str,
    credential: &Credential,
    storage: &AuthStorage,
    options: &ResolveOptions,
    now: &(dyn Fn() -> i64 + Sync),
) -> Result<String, AuthError> {
    match credential {
        Credential::ApiKey { key, .. } => {
            resolve_config_value(key)?.ok_or_else(|| AuthError::EmptyStoredKey {
                provider: provider.to_owned(),
            })
        }
        Credential::OAuth {
            access, expires, ..
        } => {
            let Some(sign_in) = crate::oauth::SignIn::for_provider(provider) else {
                return Err(AuthError::WrongType {
                    provider: provider.to_owned(),
                });
            };
            if !crate::oauth::refresh::needs_refresh(*expires, now(), options) {
                return Ok(access.clone());
            }
            crate::oauth::refresh::refreshed_access(provider, sign_in, storage, options, now).await
        }
    }
}

/// Request headers from three layers, later layers winning: the model's configured headers,
/// the headers authentication produced, then headers passed explicitly for this call.
/// Header names compare case-insensitively, so `authorization` replaces `Authorization`.
pub fn merge_headers(
    model_headers: Option<&BTreeMap<String, String>>,
    auth_headers: &BTreeMap<String, String>,
    explicit: &BTreeMap<String, String>,
) -> BTreeMap<String, String> {
    let layers = model_headers.into_iter().chain([auth_headers, explicit]);
    merge_header_layers(layers.flatten().map(|(k, v)| (k.clone(), v.clone())))
        .into_iter()
        .collect()
}

/// Applies headers in order; a later one replaces an earlier one of the same name, compared
/// without case (HTTP clients append duplicates rather than replace them).
pub fn merge_header_layers(
    headers: impl IntoIterator<Item = (String, String)>,
) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for (name, value) in headers {
        out.retain(|(existing, _)| !existing.eq_ignore_ascii_case(&name));
        out.push((name, value));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Map;

    fn oauth(expires: i64) -> Credential {
        Credential::OAuth {
            access: "access-token".into(),
            refresh: "refresh-token".into(),
            expires,
            extra: Map::new(),
        }
    }

    async fn resolve(
        provider: &str,
        explicit: Option<&str>,
        store: &AuthStorage,
        env: &(dyn Fn() -> Option<String> + Sync),
        models_json: Option<&str>,
        options: &ResolveOptions,
    ) -> Result<Option<String>, AuthError> {
        resolve_with(provider, explicit, store, env, models_json, options, &|| 0).await
    }

    #[tokio::test]
    async fn precedence_explicit_then_stored_then_env_then_models_json() {
        fn env() -> Option<String> {
            Some("from-env".to_owned())
        }
        fn no_env() -> Option<String> {
            None
        }
        let store = AuthStorage::in_memory();
        let o = ResolveOptions::default();
        let r = |explicit, env: &'static (dyn Fn() -> Option<String> + Sync), json| {
            let (store, o) = (&store, &o);
            async move {
                resolve("openai", explicit, store, env, json, o)
                    .await
                    .unwrap()
            }
        };
        assert_eq!(r(None, &no_env, None).await, None);
        assert_eq!(
            r(None, &no_env, Some("from-json")).await.as_deref(),
            Some("from-json")
        );
        assert_eq!(
            r(None, &env, Some("from-json")).await.as_deref(),
            Some("from-env")
        );
        store.set("openai", &Credential::api_key("stored")).unwrap();
        assert_eq!(
            r(None, &env, Some("from-json")).await.as_deref(),
            Some("stored")
        );
        assert_eq!(
            r(Some("explicit"), &env, Some("x")).await.as_deref(),
            Some("explicit")
        );
        assert_eq!(r(Some("  "), &env, None).await.as_deref(), Some("stored"));
    }

    #[tokio::test]
    async fn valid_oauth_yields_access_and_a_wrong_type_never_falls_back() {
        let store = AuthStorage::in_memory();
        let env = || Some("from-env".to_owned());
        let o = ResolveOptions::default();
        store.set("anthropic", &oauth(10 * 60_000)).unwrap();
        let ok = resolve("anthropic", None, &store, &env, None, &o)
            .await
            .unwrap();
        assert_eq!(ok.as_deref(), Some("access-token"));
        // No OAuth sign-in exists for openai: a stored OAuth login there is an error.
        store.set("openai", &oauth(10 * 60_000)).unwrap();
        let err = resolve("openai", None, &store, &env, Some("json"), &o)
            .await
            .unwrap_err();
        assert!(matches!(err, AuthError::WrongType { ref provider } if provider == "openai"));
        assert!(err.to_string().contains("pi auth login openai"), "{err}");
        // An explicit key still wins over the broken stored credential.
        let explicit = resolve("openai", Some("k"), &store, &env, None, &o)
            .await
            .unwrap();
        assert_eq!(explicit.as_deref(), Some("k"));
    }

    #[tokio::test]
    async fn a_cancelled_refresh_is_an_error_and_keeps_the_stored_login() {
        let store = AuthStorage::in_memory();
        store.set("anthropic", &oauth(60_000)).unwrap();
        let options = ResolveOptions::default();
        options.cancel.cancel();
        let env = || Some("from-env".to_owned());
        let err = resolve("anthropic", None, &store, &env, None, &options)
            .await
            .unwrap_err();
        assert!(matches!(err, AuthError::RefreshCancelled { .. }), "{err}");
        assert_eq!(store.get("anthropic").unwrap(), Some(oauth(60_000)));
    }

    #[tokio::test]
    async fn stored_key_that_resolves_to_nothing_is_an_error() {
        let store = AuthStorage::in_memory();
        store
            .set(
                "openai",
                &Credential::api_key("$PI_TEST_SURELY_UNSET_VAR_42"),
            )
            .unwrap();
        let env = || Some("from-env".to_owned());
        let o = ResolveOptions::default();
        let err = resolve("openai", None, &store, &env, None, &o)
            .await
            .unwrap_err();
        assert!(matches!(err, AuthError::EmptyStoredKey { .. }));
    }
}
