//! The built-in model catalog: `catalog.json`, compiled into the binary and parsed once on first
//! use. The data is plain pi `Model` records so it can be refreshed by regenerating one file.

use crate::types::Model;
use std::sync::LazyLock;

/// The `api` values the built-in adapters speak (and that models.json may name).
pub const SUPPORTED_APIS: [&str; 5] = [
    "anthropic-messages",
    "openai-completions",
    "openai-responses",
    "openai-codex-responses",
    "google-generative-ai",
];

const CATALOG_JSON: &str = include_str!("catalog.json");

static CATALOG: LazyLock<Result<Vec<Model>, String>> = LazyLock::new(|| {
    serde_json::from_str::<Vec<Model>>(CATALOG_JSON)
        .map_err(|e| format!("built-in model catalog is invalid: {e}"))
});

/// Every built-in model. Empty (with an error logged) if the compiled-in data were broken, which
/// the test suite rules out; a broken catalog must not take the whole program down.
pub fn builtin_models() -> &'static [Model] {
    match &*CATALOG {
        Ok(models) => models,
        Err(message) => {
            tracing::error!("{message}");
            &[]
        }
    }
}

/// Why the compiled-in catalog failed to parse, if it did (for tests and diagnostics).
pub fn catalog_error() -> Option<&'static str> {
    CATALOG.as_ref().err().map(String::as_str)
}

/// The built-in providers, in catalog order, without duplicates.
pub fn builtin_providers() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for model in builtin_models() {
        if !out.contains(&model.provider.as_str()) {
            out.push(model.provider.as_str());
        }
    }
    out
}

/// The `api` and base URL a built-in provider's models use (from its first model), so a
/// models.json entry for a built-in provider can add models without repeating them.
pub fn builtin_provider_defaults(provider: &str) -> Option<(&'static str, &'static str)> {
    builtin_models()
        .iter()
        .find(|m| m.provider == provider)
        .map(|m| (m.api.as_str(), m.base_url.as_str()))
}

/// Whether `provider` has built-in models.
pub fn is_builtin_provider(provider: &str) -> bool {
    builtin_models().iter().any(|m| m.provider == provider)
}
