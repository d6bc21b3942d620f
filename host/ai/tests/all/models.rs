//! The built-in catalog, models.json loading and errors, pattern resolution, thinking levels.

use pi_ai::models::catalog::{
    builtin_models, builtin_provider_defaults, builtin_providers, catalog_stamp, default_models,
    is_builtin_provider,
};
use pi_ai::models::{ModelRegistry, ModelsError, SUPPORTED_APIS};
use pi_ai::{AuthStorage, Credential, Modality, Model, ThinkingLevel};
use pi_ai::{clamp_thinking_level, supported_thinking_levels};
use serde_json::{Value, json};
use std::collections::HashSet;
use std::path::Path;

const PATH: &str = "/home/u/.pi/agent/models.json";

fn load(text: &str) -> Result<ModelRegistry, ModelsError> {
    ModelRegistry::from_models_json_str(text, Path::new(PATH))
}

#[test]
fn catalog_has_unique_ids_and_known_apis() {
    let models = builtin_models();
    assert!(models.len() > 100, "only {} models", models.len());
    let mut seen = HashSet::new();
    for model in &models {
        assert!(
            seen.insert((&model.provider, &model.id)),
            "duplicate {}/{}",
            model.provider,
            model.id
        );
        assert!(
            SUPPORTED_APIS.contains(&model.api.as_str()),
            "{}: {}",
            model.id,
            model.api
        );
        // Azure's endpoint comes from the environment (AZURE_OPENAI_RESOURCE_NAME…).
        assert!(
            model.base_url.starts_with("https://") || model.api == "azure-openai-responses",
            "{}",
            model.id
        );
        assert!(
            model.context_window > 0 && model.max_tokens > 0,
            "{}",
            model.id
        );
        assert!(model.input.contains(&Modality::Text), "{}", model.id);
        assert!(!model.name.is_empty());
    }
    let providers: HashSet<&str> = models.iter().map(|m| m.provider.as_str()).collect();
    for p in [
        "anthropic",
        "openai",
        "google",
        "xai",
        "groq",
        "cerebras",
        "mistral",
        "deepseek",
        "openrouter",
        "zai",
    ] {
        assert!(providers.contains(p), "no models for {p}");
    }
}

#[test]
fn catalog_is_stamped_and_its_defaults_name_catalog_models() {
    let (source, generated) = catalog_stamp();
    assert!(source.starts_with("@earendil-works/pi-ai@"), "{source}");
    let date: Vec<&str> = generated.split('-').collect();
    assert!(
        date.len() == 3 && date.iter().all(|p| p.parse::<u32>().is_ok()),
        "{generated}"
    );
    let registry = ModelRegistry::builtin();
    let defaults: Vec<(&str, &str)> = default_models().collect();
    assert_eq!(
        defaults[0].0, "amazon-bedrock",
        "the reference order is kept"
    );
    for provider in builtin_providers() {
        let (_, id) = defaults
            .iter()
            .find(|(p, _)| *p == provider)
            .unwrap_or_else(|| panic!("no default for {provider}"));
        assert!(registry.find(provider, id).is_some(), "{provider}/{id}");
    }
}

/// The compiled-in table against catalog.json read the way the catalog is written (provider
/// `api` and base URL unless a model names its own, costs as `[input, output, cacheRead,
/// cacheWrite]`): every model and every field, in order.
#[test]
fn catalog_table_matches_catalog_json() {
    let file: Value = serde_json::from_str(include_str!("../../src/models/catalog.json")).unwrap();
    let mut expected = Vec::new();
    for provider in file["providers"].as_array().unwrap() {
        for entry in provider["models"].as_array().unwrap() {
            let mut model = entry.as_object().unwrap().clone();
            for key in ["api", "baseUrl"] {
                if !model.contains_key(key) {
                    model.insert(key.to_owned(), provider[key].clone());
                }
            }
            model.insert("provider".to_owned(), provider["id"].clone());
            let [input, output, read, write] = [0, 1, 2, 3].map(|i| entry["cost"][i].clone());
            model.insert(
                "cost".to_owned(),
                json!({"input": input, "output": output, "cacheRead": read, "cacheWrite": write}),
            );
            expected.push(serde_json::from_value::<Model>(Value::Object(model)).unwrap());
        }
    }
    assert_eq!(builtin_models(), expected);
    let providers: Vec<&str> = file["providers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert_eq!(builtin_providers(), providers);
    for provider in file["providers"].as_array().unwrap() {
        let id = provider["id"].as_str().unwrap();
        assert_eq!(
            builtin_provider_defaults(id),
            Some((
                provider["api"].as_str().unwrap(),
                provider["baseUrl"].as_str().unwrap()
            ))
        );
    }
    let defaults: Vec<(&str, &str)> = file["defaults"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d[0].as_str().unwrap(), d[1].as_str().unwrap()))
        .collect();
    assert_eq!(default_models().collect::<Vec<_>>(), defaults);
    assert_eq!(
        catalog_stamp(),
        (
            file["source"].as_str().unwrap(),
            file["generated"].as_str().unwrap()
        )
    );
    assert!(!is_builtin_provider("no-such-provider"));
    assert_eq!(builtin_provider_defaults("no-such-provider"), None);
}

#[test]
fn catalog_spot_values() {
    let registry = ModelRegistry::builtin();
    let sonnet = registry.find("anthropic", "claude-sonnet-4-5").unwrap();
    assert_eq!(sonnet.api, "anthropic-messages");
    assert_eq!(sonnet.base_url, "https://api.anthropic.com");
    assert!(sonnet.reasoning);
    assert_eq!(sonnet.input, [Modality::Text, Modality::Image]);
    let c = sonnet.cost;
    assert_eq!(
        (c.input, c.output, c.cache_read, c.cache_write),
        (3.0, 15.0, 0.3, 3.75)
    );
    assert_eq!(
        (sonnet.context_window, sonnet.max_tokens),
        (200_000, 64_000)
    );

    for (provider, id, api, base) in [
        (
            "anthropic",
            "claude-opus-4-8",
            "anthropic-messages",
            "https://api.anthropic.com",
        ),
        (
            "anthropic",
            "claude-haiku-4-5",
            "anthropic-messages",
            "https://api.anthropic.com",
        ),
        (
            "openai",
            "gpt-5",
            "openai-responses",
            "https://api.openai.com/v1",
        ),
        (
            "openai",
            "gpt-4.1",
            "openai-responses",
            "https://api.openai.com/v1",
        ),
        (
            "openai",
            "o4-mini",
            "openai-responses",
            "https://api.openai.com/v1",
        ),
        (
            "google",
            "gemini-2.5-pro",
            "google-generative-ai",
            "https://generativelanguage.googleapis.com/v1beta",
        ),
        (
            "google",
            "gemini-2.5-flash-lite",
            "google-generative-ai",
            "https://generativelanguage.googleapis.com/v1beta",
        ),
        (
            "google",
            "gemini-3.1-pro-preview",
            "google-generative-ai",
            "https://generativelanguage.googleapis.com/v1beta",
        ),
        ("xai", "grok-4.7", "openai-responses", "https://api.x.ai/v1"),
        (
            "groq",
            "openai/gpt-oss-120b",
            "openai-completions",
            "https://api.groq.com/openai/v1",
        ),
        (
            "cerebras",
            "gpt-oss-120b",
            "openai-completions",
            "https://api.cerebras.ai/v1",
        ),
        (
            "mistral",
            "devstral-medium-latest",
            "openai-completions",
            "https://api.mistral.ai/v1",
        ),
        (
            "deepseek",
            "deepseek-v4-pro",
            "openai-completions",
            "https://api.deepseek.com",
        ),
        (
            "openrouter",
            "anthropic/claude-sonnet-4.5",
            "anthropic-messages",
            "https://openrouter.ai/api",
        ),
        (
            "openrouter",
            "moonshotai/kimi-k2.7-code",
            "openai-completions",
            "https://openrouter.ai/api/v1",
        ),
        (
            "zai",
            "glm-5.3",
            "openai-completions",
            "https://api.z.ai/api/coding/paas/v4",
        ),
    ] {
        let model = registry
            .find(provider, id)
            .unwrap_or_else(|| panic!("{provider}/{id} missing"));
        assert_eq!(
            (model.api.as_str(), model.base_url.as_str()),
            (api, base),
            "{provider}/{id}"
        );
    }
    let gpt5 = registry.find("openai", "gpt-5").unwrap();
    assert!(gpt5.reasoning);
    assert_eq!((gpt5.cost.input, gpt5.cost.output), (1.25, 10.0));
    assert_eq!((gpt5.context_window, gpt5.max_tokens), (400_000, 128_000));
    assert!(!registry.find("openai", "gpt-4o").unwrap().reasoning);
    // Mistral's Conversations models are reached through its Chat Completions endpoint.
    assert!(
        registry
            .all()
            .iter()
            .filter(|m| m.provider == "mistral")
            .all(|m| m.api == "openai-completions")
    );
}

#[test]
fn missing_models_json_is_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let registry = ModelRegistry::load(Some(&dir.path().join("models.json"))).unwrap();
    assert_eq!(registry.all().len(), builtin_models().len());
    assert_eq!(
        ModelRegistry::load(None).unwrap().all().len(),
        builtin_models().len()
    );
}

#[test]
fn custom_provider_models_get_pi_defaults() {
    let registry = load(
        r#"{"providers": {"ollama": {
            "baseUrl": "http://localhost:11434/v1", "api": "openai-completions", "apiKey": "ollama",
            "compat": {"supportsDeveloperRole": false, "maxTokensField": "max_tokens"},
            "models": [
              {"id": "qwen3-coder:30b"},
              {"id": "llava", "name": "LLaVA", "reasoning": true, "input": ["text", "image"],
               "contextWindow": 32768, "maxTokens": 4096, "cost": {"input": 1, "output": 2},
               "compat": {"supportsDeveloperRole": true, "supportsStore": false}}
            ]}}}"#,
    )
    .unwrap();
    let plain = registry.find("ollama", "qwen3-coder:30b").unwrap();
    assert_eq!(plain.name, "qwen3-coder:30b");
    assert_eq!(plain.api, "openai-completions");
    assert_eq!(plain.base_url, "http://localhost:11434/v1");
    assert!(!plain.reasoning);
    assert_eq!(plain.input, [Modality::Text]);
    assert_eq!((plain.context_window, plain.max_tokens), (128_000, 16_384));
    assert_eq!(
        plain.cost.input + plain.cost.output + plain.cost.cache_read + plain.cost.cache_write,
        0.0
    );
    assert_eq!(
        plain.compat.as_ref().unwrap().supports_developer_role,
        Some(false)
    );

    let llava = registry.find("ollama", "llava").unwrap();
    assert_eq!(llava.name, "LLaVA");
    assert!(llava.reasoning && llava.supports_images());
    assert_eq!((llava.context_window, llava.max_tokens), (32_768, 4_096));
    assert_eq!(
        (llava.cost.input, llava.cost.output, llava.cost.cache_read),
        (1.0, 2.0, 0.0)
    );
    // Model compat is merged over the provider's: its own keys win, the others are inherited.
    let compat = llava.compat.as_ref().unwrap();
    assert_eq!(compat.supports_developer_role, Some(true));
    assert_eq!(compat.supports_store, Some(false));
    assert_eq!(
        compat.max_tokens_field,
        Some(pi_ai::MaxTokensField::MaxTokens)
    );

    assert_eq!(registry.provider_api_key("ollama"), Some("ollama"));
    assert_eq!(registry.providers().last(), Some(&"ollama"));
}

#[test]
fn builtin_provider_with_only_base_url_reroutes_its_models() {
    let registry =
        load(r#"{"providers": {"anthropic": {"baseUrl": "https://proxy.example/anthropic"}}}"#)
            .unwrap();
    let anthropic: Vec<_> = registry
        .all()
        .into_iter()
        .filter(|m| m.provider == "anthropic")
        .collect();
    assert!(!anthropic.is_empty());
    assert!(
        anthropic
            .iter()
            .all(|m| m.base_url == "https://proxy.example/anthropic")
    );
    assert_eq!(
        registry.find("openai", "gpt-5").unwrap().base_url,
        "https://api.openai.com/v1"
    );
    assert_eq!(registry.all().len(), builtin_models().len());
}

#[test]
fn model_overrides_and_custom_models_on_builtin_providers() {
    let registry = load(
        r#"{"providers": {"openai": {
            "headers": {"X-Org": "acme"},
            "modelOverrides": {"gpt-5": {"name": "GPT-5 (team)", "maxTokens": 1000, "cost": {"input": 9}}},
            "models": [{"id": "gpt-5-internal"}, {"id": "gpt-4o", "name": "replaced"}]
        }}}"#,
    )
    .unwrap();
    let gpt5 = registry.find("openai", "gpt-5").unwrap();
    assert_eq!(gpt5.name, "GPT-5 (team)");
    assert_eq!(gpt5.max_tokens, 1000);
    assert_eq!((gpt5.cost.input, gpt5.cost.output), (9.0, 10.0));
    assert_eq!(gpt5.headers.as_ref().unwrap()["X-Org"], "acme");
    // A custom model on a built-in provider inherits its api and base URL.
    let internal = registry.find("openai", "gpt-5-internal").unwrap();
    assert_eq!(
        (internal.api.as_str(), internal.base_url.as_str()),
        ("openai-responses", "https://api.openai.com/v1")
    );
    // Same provider and id as a built-in: the custom one replaces it in place.
    assert_eq!(registry.find("openai", "gpt-4o").unwrap().name, "replaced");
    assert_eq!(
        registry
            .all()
            .iter()
            .filter(|m| m.id == "gpt-4o" && m.provider == "openai")
            .count(),
        1
    );
}

#[test]
fn a_custom_model_on_a_mixed_provider_gets_the_providers_main_protocol() {
    // OpenRouter's Anthropic models (sorted first) speak anthropic-messages; most speak
    // Chat Completions, and that is what a model added without an api gets.
    let registry =
        load(r#"{"providers": {"openrouter": {"models": [{"id": "vendor/new-model"}]}}}"#).unwrap();
    let added = registry.find("openrouter", "vendor/new-model").unwrap();
    assert_eq!(
        (added.api.as_str(), added.base_url.as_str()),
        ("openai-completions", "https://openrouter.ai/api/v1")
    );
}

#[test]
fn auth_header_and_header_values_are_resolved() {
    let registry = load(
        r#"{"providers": {"corp": {"baseUrl": "https://llm.corp/v1", "api": "openai-completions",
            "apiKey": "$$literal-key", "authHeader": true,
            "headers": {"X-Path": "${PATH}", "X-Missing": "$PI_TEST_SURELY_UNSET_VAR_42"},
            "models": [{"id": "m"}]}}}"#,
    )
    .unwrap();
    let headers = registry.find("corp", "m").unwrap().headers.clone().unwrap();
    assert_eq!(headers["Authorization"], "Bearer $literal-key");
    assert_eq!(headers["X-Path"], std::env::var("PATH").unwrap());
    assert!(!headers.contains_key("X-Missing"));
}

#[test]
fn syntax_errors_name_the_file_line_and_column() {
    let err = load("{\n  \"providers\": {\n    \"x\": {,}\n  }\n}").unwrap_err();
    let ModelsError::Syntax { line, column, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!((*line, *column), (3, 11));
    let text = err.to_string();
    assert!(
        text.starts_with(&format!("{PATH}:3:11: invalid JSON")),
        "{text}"
    );
}

#[test]
fn wrong_types_are_reported_with_position() {
    let err = load(
        "{\"providers\": {\"x\": {\"models\": [{\"id\": \"m\", \"contextWindow\": \"big\"}]}}}",
    )
    .unwrap_err();
    assert!(
        matches!(err, ModelsError::Invalid { line: 1, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains(PATH));
}

#[test]
fn unknown_api_names_the_provider_and_lists_supported_ones() {
    let err = load(r#"{"providers": {"local": {"baseUrl": "http://x", "api": "openai-chat", "models": [{"id": "m"}]}}}"#).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, ModelsError::UnknownApi { .. }), "{err:?}");
    assert!(
        text.contains("\"local\"") && text.contains("\"openai-chat\""),
        "{text}"
    );
    for api in SUPPORTED_APIS {
        assert!(text.contains(api), "{text}");
    }
    let err = load(r#"{"providers": {"local": {"baseUrl": "http://x", "api": "openai-completions", "models": [{"id": "m", "api": "bogus"}]}}}"#).unwrap_err();
    assert!(err.to_string().contains("model \"m\""), "{err}");
}

#[test]
fn missing_required_fields_say_which_provider_and_model() {
    let err = load(r#"{"providers": {"local": {"baseUrl": "http://x", "api": "openai-completions", "models": [{"id": "a"}, {"name": "no id"}]}}}"#).unwrap_err();
    assert!(
        matches!(&err, ModelsError::MissingModelId { provider, index: 1, .. } if provider == "local"),
        "{err:?}"
    );
    assert!(err.to_string().contains("model #1"), "{err}");

    let err =
        load(r#"{"providers": {"local": {"api": "openai-completions", "models": [{"id": "a"}]}}}"#)
            .unwrap_err();
    assert!(
        matches!(
            &err,
            ModelsError::MissingProviderField {
                field: "baseUrl",
                ..
            }
        ),
        "{err:?}"
    );

    let err = load(r#"{"providers": {"local": {"baseUrl": "http://x", "models": [{"id": "a"}]}}}"#)
        .unwrap_err();
    assert!(
        matches!(&err, ModelsError::MissingModelApi { model, .. } if model == "a"),
        "{err:?}"
    );

    let err =
        load(r#"{"providers": {"local": {"baseUrl": "http://x", "api": "openai-completions"}}}"#)
            .unwrap_err();
    assert!(matches!(&err, ModelsError::NoModels { .. }), "{err:?}");

    let err = load(r#"{"providers": {"local": {"baseUrl": "http://x", "api": "openai-completions", "models": [{"id": "a", "maxTokens": 0}]}}}"#).unwrap_err();
    assert!(
        matches!(
            &err,
            ModelsError::InvalidLimit {
                field: "maxTokens",
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn load_reads_the_file_from_disk() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("models.json");
    std::fs::write(&path, r#"{"providers": {"lm": {"baseUrl": "http://127.0.0.1:1234/v1", "api": "openai-completions", "models": [{"id": "local-model"}]}}}"#).unwrap();
    let registry = ModelRegistry::load(Some(&path)).unwrap();
    assert!(registry.find("lm", "local-model").is_some());
    std::fs::write(&path, "{").unwrap();
    let err = ModelRegistry::load(Some(&path)).unwrap_err();
    assert!(
        err.to_string().contains(&path.display().to_string()),
        "{err}"
    );
}

#[test]
fn available_models_need_a_credential() {
    let registry = load(
        r#"{"providers": {"keyed": {"baseUrl": "http://x", "api": "openai-completions", "apiKey": "k", "models": [{"id": "a"}]},
                          "bare": {"baseUrl": "http://y", "api": "openai-completions", "models": [{"id": "b"}]}}}"#,
    )
    .unwrap();
    let auth = AuthStorage::in_memory();
    auth.set("bare", &Credential::api_key("stored")).unwrap();
    let available: Vec<(String, String)> = registry
        .available(&auth)
        .into_iter()
        .map(|m| (m.provider, m.id))
        .collect();
    assert!(available.contains(&("keyed".to_owned(), "a".to_owned())));
    assert!(available.contains(&("bare".to_owned(), "b".to_owned())));
    // Built-in providers count only with a credential in the environment.
    for model in registry.available(&auth) {
        assert!(
            ["keyed", "bare"].contains(&model.provider.as_str())
                || pi_ai::auth::env_api_key(&model.provider).is_some(),
            "{} listed without a credential",
            model.provider
        );
    }
    let empty = AuthStorage::in_memory();
    assert!(
        !registry
            .available(&empty)
            .iter()
            .any(|m| m.provider == "bare")
    );
}

fn pattern(registry: &ModelRegistry, text: &str) -> Option<(String, Option<ThinkingLevel>)> {
    registry
        .find_by_pattern(text)
        .map(|(m, level)| (format!("{}/{}", m.provider, m.id), level))
}

#[test]
fn pattern_resolution_exact_partial_and_thinking_suffix() {
    let registry = load(
        r#"{"providers": {"router": {"baseUrl": "http://r", "api": "openai-completions", "models": [
            {"id": "vendor/model-x:free"}, {"id": "claude-sonnet-4-5", "name": "Proxy Sonnet"},
            {"id": "zeta-coder-3-20250101"}, {"id": "zeta-coder-2"}, {"id": "zeta-coder-1"}]}}}"#,
    )
    .unwrap();
    let some = |id: &str, level| Some((id.to_owned(), level));
    // Exact provider/id, case-insensitive.
    assert_eq!(
        pattern(&registry, "Anthropic/Claude-Sonnet-4-5"),
        some("anthropic/claude-sonnet-4-5", None)
    );
    // Exact bare id that only one provider has.
    assert_eq!(pattern(&registry, "grok-4.3"), some("xai/grok-4.3", None));
    // An id with a colon is tried whole before splitting.
    assert_eq!(
        pattern(&registry, "vendor/model-x:free"),
        some("router/vendor/model-x:free", None)
    );
    assert_eq!(
        pattern(&registry, "vendor/model-x:free:high"),
        some("router/vendor/model-x:free", Some(ThinkingLevel::High))
    );
    assert_eq!(
        pattern(&registry, "openai/gpt-5:minimal"),
        some("openai/gpt-5", Some(ThinkingLevel::Minimal))
    );
    // Substring: aliases beat dated ids; the highest id wins.
    assert_eq!(
        pattern(&registry, "zeta-coder"),
        some("router/zeta-coder-2", None)
    );
    assert_eq!(
        pattern(&registry, "haiku-4-5-2025:low"),
        some(
            "anthropic/claude-haiku-4-5-20251001",
            Some(ThinkingLevel::Low)
        )
    );
    // A name match counts too.
    assert_eq!(
        pattern(&registry, "proxy sonnet"),
        some("router/claude-sonnet-4-5", None)
    );
    // A suffix that is not a thinking level does not split.
    assert_eq!(pattern(&registry, "gpt-5:turbo"), None);
    assert_eq!(pattern(&registry, "no-such-model-anywhere"), None);
    assert_eq!(pattern(&registry, "   "), None);
}

#[test]
fn ambiguous_bare_id_falls_back_to_partial_matching() {
    // "claude-sonnet-4-5" is anthropic's, other built-in providers' and router's: no exact
    // match, then substring matching picks among the candidates, the first listed among equal
    // ids (pi sorts with a stable sort and takes the first).
    let registry = load(
        r#"{"providers": {"router": {"baseUrl": "http://r", "api": "openai-completions", "models": [{"id": "claude-sonnet-4-5"}]}}}"#,
    )
    .unwrap();
    let first = registry
        .models()
        .find(|m| m.id() == "claude-sonnet-4-5")
        .unwrap();
    let (model, _) = registry.find_by_pattern("claude-sonnet-4-5").unwrap();
    assert_eq!(model.id, "claude-sonnet-4-5");
    assert_eq!(model.provider, first.provider());
    assert_ne!(model.provider, "router");
}

#[test]
fn thinking_levels_follow_model_capabilities() {
    let registry = ModelRegistry::builtin();
    let reasoning = &registry.find("anthropic", "claude-sonnet-4-5").unwrap();
    let plain = &registry.find("openai", "gpt-4o").unwrap();
    assert_eq!(supported_thinking_levels(plain), [ThinkingLevel::Off]);
    assert_eq!(
        supported_thinking_levels(reasoning),
        [
            ThinkingLevel::Off,
            ThinkingLevel::Minimal,
            ThinkingLevel::Low,
            ThinkingLevel::Medium,
            ThinkingLevel::High
        ]
    );
    for level in ThinkingLevel::ALL {
        assert_eq!(clamp_thinking_level(plain, level), ThinkingLevel::Off);
    }
    assert_eq!(
        clamp_thinking_level(reasoning, ThinkingLevel::Medium),
        ThinkingLevel::Medium
    );
    assert_eq!(
        clamp_thinking_level(reasoning, ThinkingLevel::Xhigh),
        ThinkingLevel::High
    );
    assert_eq!(
        clamp_thinking_level(reasoning, ThinkingLevel::Max),
        ThinkingLevel::High
    );
    assert_eq!(
        clamp_thinking_level(reasoning, ThinkingLevel::Off),
        ThinkingLevel::Off
    );
}

#[test]
fn extension_providers_are_configured_by_their_models_json_entry() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("models.json");
    std::fs::write(
        &path,
        r#"{"providers": {"ext": {"apiKey": "k", "headers": {"x-team": "blue"},
            "modelOverrides": {"m1": {"name": "Renamed"}}}}}"#,
    )
    .unwrap();
    // Without the extension the entry has no models: an error, as before.
    assert!(matches!(
        ModelRegistry::load(Some(&path)),
        Err(ModelsError::NoModels { .. })
    ));
    let mut registry =
        ModelRegistry::load_with_providers(Some(&path), &["ext".to_owned()]).unwrap();
    assert_eq!(registry.provider_api_key("ext"), Some("k"));
    let served = pi_ai::Model {
        id: "m1".into(),
        name: "Model one".into(),
        api: "ext-api".into(),
        provider: "ext".into(),
        base_url: "https://ext.invalid".into(),
        reasoning: false,
        input: vec![Modality::Text],
        context_window: 1000,
        max_tokens: 100,
        cost: pi_ai::ModelCost::default(),
        headers: None,
        compat: None,
    };
    registry.add_models([served]);
    let model = registry.find("ext", "m1").unwrap();
    assert_eq!(model.name, "Renamed");
    let headers = model.headers.as_ref().unwrap();
    assert_eq!(headers.get("x-team").map(String::as_str), Some("blue"));
}
