//! Provider presets end to end: each provider's environment key alone makes its built-in models
//! available (`--list-models`), and a print-mode run with only that key starts on the model the
//! reference pi picks and sends the key in the header that provider's protocol expects.

use crate::cli_support::{PiEnv, stderr, stdout};
use pi_ai::auth::env_var_names;
use pi_ai::models::builtin_models;
use pi_ai::models::catalog::builtin_providers;
use pi_mock_llm::{LoggedRequest, Turn};
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;

/// Variables some endpoints need besides the key (they are not credentials).
const ENDPOINT_VARS: [(&str, &str); 2] = [
    ("CLOUDFLARE_ACCOUNT_ID", "acct-1"),
    ("CLOUDFLARE_GATEWAY_ID", "gw-1"),
];

/// The API-key variable of `provider` (its last: `ANTHROPIC_API_KEY` after the OAuth token).
fn key_var(provider: &str) -> &'static str {
    env_var_names(provider)
        .last()
        .unwrap_or_else(|| panic!("provider {provider} has no environment variable"))
}

#[test]
fn each_provider_key_alone_lists_that_providers_models() {
    let pi = PiEnv::empty();
    let providers = builtin_providers();
    assert!(providers.len() >= 35, "{providers:?}");
    for provider in providers {
        let var = key_var(provider);
        let mut cmd = pi.command(&["--list-models"]);
        cmd.env(var, "key-1").envs(ENDPOINT_VARS);
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{provider}: {}", stderr(&out));
        let text = stdout(&out);
        let listed: Vec<&str> = text
            .lines()
            .skip(1)
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        // Providers sharing the variable (moonshotai and moonshotai-cn…) are listed together.
        let sharing: BTreeSet<&str> = builtin_providers()
            .into_iter()
            .filter(|p| env_var_names(p).contains(&var))
            .collect();
        let expected = builtin_models()
            .iter()
            .filter(|m| sharing.contains(m.provider.as_str()))
            .count();
        assert_eq!(listed.len(), expected, "{provider} ({var}): {text}");
        assert!(listed.contains(&provider), "{provider}: {text}");
        assert!(listed.iter().all(|p| sharing.contains(p)), "{var}: {text}");
    }
}

#[test]
fn cloudflare_needs_its_account_id_before_its_models_are_offered() {
    let pi = PiEnv::empty();
    let mut cmd = pi.command(&["--list-models"]);
    cmd.env("CLOUDFLARE_API_KEY", "key-1");
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout(&out).starts_with("No models available"),
        "{}",
        stdout(&out)
    );
}

/// With only `var` set: the provider and model a `-p` run starts on (the reference pi's
/// `defaultModelPerProvider`, walked in its order among the available providers).
const DEFAULT_PER_KEY: [(&str, &str, &str); 37] = [
    ("ANT_LING_API_KEY", "ant-ling", "Ring-2.6-1T"),
    ("ANTHROPIC_API_KEY", "anthropic", "claude-opus-5-5"),
    ("AZURE_OPENAI_API_KEY", "azure", "gpt-6.2-sol"),
    ("BASETEN_API_KEY", "baseten", "zai-org/GLM-5.3"),
    ("CEREBRAS_API_KEY", "cerebras", "gpt-oss-120b"),
    (
        "CLOUDFLARE_API_KEY",
        "cloudflare-workers-ai",
        "@cf/moonshotai/kimi-k2.7-code",
    ),
    ("DEEPSEEK_API_KEY", "deepseek", "deepseek-v4-pro"),
    (
        "FIREWORKS_API_KEY",
        "fireworks",
        "accounts/fireworks/models/kimi-k3",
    ),
    ("COPILOT_GITHUB_TOKEN", "github-copilot", "gpt-6.1-sol"),
    ("GEMINI_API_KEY", "google", "gemini-4-argon"),
    ("GROQ_API_KEY", "groq", "openai/gpt-oss-120b"),
    ("HF_TOKEN", "huggingface", "moonshotai/Kimi-K2.7-Code"),
    ("KIMI_API_KEY", "kimi-coding", "kimi-for-coding"),
    ("META_API_KEY", "meta", "muse-spark-1.3"),
    ("MINIMAX_API_KEY", "minimax", "MiniMax-M3"),
    ("MINIMAX_CN_API_KEY", "minimax-cn", "MiniMax-M3"),
    ("MISTRAL_API_KEY", "mistral", "devstral-medium-latest"),
    ("MOONSHOT_API_KEY", "moonshotai", "kimi-k2.7-code"),
    (
        "NVIDIA_API_KEY",
        "nvidia",
        "nvidia/nemotron-3.5-super-vl-120b-a12b",
    ),
    ("OPENAI_API_KEY", "openai", "gpt-6.2-sol"),
    ("OPENCODE_API_KEY", "opencode", "kimi-k2.7-code"),
    (
        "OPENROUTER_API_KEY",
        "openrouter",
        "moonshotai/kimi-k2.7-code",
    ),
    ("QWEN_TOKEN_PLAN_API_KEY", "qwen-token-plan", "qwen3.8-max"),
    (
        "QWEN_TOKEN_PLAN_CN_API_KEY",
        "qwen-token-plan-cn",
        "qwen3.8-max",
    ),
    (
        "QWEN_TOKEN_PLAN_INDIVIDUAL_API_KEY",
        "qwen-token-plan-individual",
        "qwen3.8-max",
    ),
    (
        "QWEN_TOKEN_PLAN_INDIVIDUAL_CN_API_KEY",
        "qwen-token-plan-individual-cn",
        "qwen3.8-max",
    ),
    ("TOGETHER_API_KEY", "together", "moonshotai/Kimi-K3"),
    ("AI_GATEWAY_API_KEY", "vercel-ai-gateway", "zai/glm-5.3"),
    ("XAI_API_KEY", "xai", "grok-4.7"),
    ("XIAOMI_API_KEY", "xiaomi", "mimo-v2.6-pro"),
    (
        "XIAOMI_TOKEN_PLAN_AMS_API_KEY",
        "xiaomi-token-plan-ams",
        "mimo-v2.6-pro",
    ),
    (
        "XIAOMI_TOKEN_PLAN_CN_API_KEY",
        "xiaomi-token-plan-cn",
        "mimo-v2.6-pro",
    ),
    (
        "XIAOMI_TOKEN_PLAN_SGP_API_KEY",
        "xiaomi-token-plan-sgp",
        "mimo-v2.6-pro",
    ),
    ("ZAI_API_KEY", "zai", "glm-5.3"),
    ("ZAI_CODING_CN_API_KEY", "zai-coding-cn", "glm-5.3"),
    (
        "QWEN_TOKEN_PLAN_TEAM_API_KEY",
        "qwen-token-plan",
        "qwen3.8-max",
    ),
    (
        "QWEN_TOKEN_PLAN_TEAM_CN_API_KEY",
        "qwen-token-plan-cn",
        "qwen3.8-max",
    ),
];

/// The header a protocol carries the key in, and its value for `key`.
fn auth_header(api: &str, key: &str) -> (&'static str, String) {
    match api {
        "anthropic-messages" => ("x-api-key", key.to_owned()),
        "google-generative-ai" => ("x-goog-api-key", key.to_owned()),
        "azure-openai-responses" => ("api-key", key.to_owned()),
        _ => ("authorization", format!("Bearer {key}")),
    }
}

/// The model a request asked for: in the body, or in the path (Gemini).
fn requested_model(request: &LoggedRequest) -> String {
    match request.body["model"].as_str() {
        Some(model) => model.to_owned(),
        None => request
            .path
            .rsplit_once("/models/")
            .and_then(|(_, rest)| rest.split_once(':'))
            .map(|(model, _)| model.to_owned())
            .unwrap_or_default(),
    }
}

#[test]
fn each_provider_key_alone_starts_on_the_reference_default_with_the_right_auth_header() {
    let pi = PiEnv::empty();
    // Every built-in provider re-routed to the mock under its own path prefix, so a request
    // says which provider sent it.
    let mut providers = Map::new();
    for provider in builtin_providers() {
        let base = format!("{}/{provider}/v1", pi.mock.url());
        providers.insert(provider.to_owned(), json!({ "baseUrl": base }));
    }
    pi.write_agent_file(
        "models.json",
        &json!({ "providers": Value::Object(providers) }).to_string(),
    );
    let keyed: BTreeSet<&str> = builtin_providers().into_iter().map(key_var).collect();
    let tested: BTreeSet<&str> = DEFAULT_PER_KEY.iter().map(|(var, _, _)| *var).collect();
    assert!(
        keyed.is_subset(&tested),
        "untested: {keyed:?} vs {tested:?}"
    );
    for (var, provider, model_id) in DEFAULT_PER_KEY {
        let key = format!("key-{var}");
        pi.mock.push(Turn::text("ok"));
        let mut cmd = pi.command(&["--no-session", "-p", "hello"]);
        cmd.env(var, &key);
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{var}: {}", stderr(&out));
        assert_eq!(stdout(&out).trim(), "ok", "{var}");
        let requests = pi.mock.requests();
        let request = requests.last().unwrap();
        assert!(
            request.path.starts_with(&format!("/{provider}/v1/")),
            "{var}: {} is not {provider}'s",
            request.path
        );
        assert_eq!(requested_model(request), model_id, "{var}");
        let models = builtin_models();
        let api = models
            .iter()
            .find(|m| m.provider == provider && m.id == model_id)
            .map(|m| m.api.as_str())
            .unwrap();
        let (header, value) = auth_header(api, &key);
        assert_eq!(
            request.header(header),
            Some(value.as_str()),
            "{var} ({api})"
        );
        if header != "authorization" {
            assert_eq!(request.header("authorization"), None, "{var}");
        }
    }
}

#[test]
fn azure_builds_its_endpoint_from_the_resource_settings_and_maps_deployments() {
    let pi = PiEnv::empty();
    pi.mock.push(Turn::text("ok"));
    let mut cmd = pi.command(&["--no-session", "-p", "hello"]);
    cmd.env("AZURE_OPENAI_API_KEY", "az-key")
        .env(
            "AZURE_OPENAI_BASE_URL",
            format!("{}/openai/v1", pi.mock.url()),
        )
        .env("AZURE_OPENAI_API_VERSION", "2025-04-01-preview")
        .env("AZURE_OPENAI_DEPLOYMENT_NAME_MAP", "gpt-6.2-sol=team-gpt");
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let request = &pi.mock.requests()[0];
    assert_eq!(request.path, "/openai/v1/responses");
    assert_eq!(request.query, "api-version=2025-04-01-preview");
    assert_eq!(request.header("api-key"), Some("az-key"));
    assert_eq!(request.body["model"], "team-gpt");

    let mut cmd = pi.command(&["--no-session", "-p", "hello"]);
    cmd.env("AZURE_OPENAI_API_KEY", "az-key");
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("AZURE_OPENAI_RESOURCE_NAME"),
        "{}",
        stderr(&out)
    );
    assert_eq!(pi.mock.requests().len(), 1);
}
