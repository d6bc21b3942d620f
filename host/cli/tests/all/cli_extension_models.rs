//! Extensions and the session's models, end to end through the `pi` binary and the mock LLM:
//! a compactor granted `llm` asks the session's models for its summary (pi-ext-host's test
//! `llm_compactor`, instructions `llm` / `llm:<model>`), and a provider component is configured by
//! the user's models.json entry of its name, auth.json and `--api-key` like a built-in one
//! (pi-ext-host's test provider, which sends its key and headers on to the mock).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::cli_rpc::{RpcClient, ok};
use super::cli_support::*;
use pi_mock_llm::{Api, Turn};
use serde_json::{Value, json};

/// Installs the test compactor as a package granted `llm`.
fn install_compactor(pi: &PiEnv) {
    let package = pi.agent_dir().join("extensions").join("llmsum");
    std::fs::create_dir_all(&package).unwrap();
    std::fs::copy(
        pi_ext_test_artifacts::LLM_COMPACTOR,
        package.join("compactor.wasm"),
    )
    .unwrap();
    std::fs::write(
        package.join("pi-extension.toml"),
        "[package]\nname = \"llmsum\"\nversion = \"0.1.0\"\nwit = \"0.3.0\"\n\n\
         [[component]]\npath = \"compactor.wasm\"\nworld = \"compactor\"\n\n\
         [capabilities]\nllm = true\n",
    )
    .unwrap();
    pi.approve(&package);
}

/// A mock provider with two models (`mock-model`, the default, and `other-model`), and a
/// provider without a credential.
fn two_model_env() -> PiEnv {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let models = json!({"providers": {"mock": {
        "baseUrl": pi.mock.base_url(Api::OpenAiCompletions),
        "api": "openai-completions",
        "apiKey": "mock-key",
        "models": [
            {"id": "mock-model", "contextWindow": 200000, "maxTokens": 32000},
            {"id": "other-model", "contextWindow": 200000, "maxTokens": 32000}
        ]
    }, "keyless": {
        "baseUrl": pi.mock.base_url(Api::OpenAiCompletions),
        "api": "openai-completions",
        "models": [{"id": "locked-model"}]
    }}});
    pi.write_agent_file("models.json", &models.to_string());
    pi.settings(json!({"compaction": {"keepRecentTokens": 1}}));
    install_compactor(&pi);
    pi
}

/// Three prompts answered by the mock, so that there is history to compact.
fn chat(pi: &PiEnv, rpc: &mut RpcClient) {
    for (i, text) in ["alpha question here", "beta question", "gamma"]
        .iter()
        .enumerate()
    {
        pi.mock.push(Turn::text(format!("answer {i}")));
        ok(&rpc.call(json!({"id": format!("p{i}"), "type": "prompt", "message": text})));
        rpc.wait_event("agent_end");
    }
}

/// Compacts with `instructions`, ends pi, and returns the summary and the session's
/// compaction entry.
fn compact(pi: &PiEnv, mut rpc: RpcClient, instructions: &str) -> (String, Value) {
    let response =
        rpc.call(json!({"id": "c", "type": "compact", "customInstructions": instructions}));
    let summary = ok(&response)["summary"].as_str().unwrap().to_owned();
    drop(rpc.stdin.take());
    assert_eq!(rpc.child.wait().unwrap().code(), Some(0));
    let lines = pi.session_lines();
    let entry = lines
        .iter()
        .find(|l| l["type"] == "compaction")
        .cloned()
        .unwrap();
    (summary, entry)
}

#[test]
fn compactor_summary_comes_from_the_session_model() {
    let pi = two_model_env();
    let mut rpc = RpcClient::start(&pi);
    chat(&pi, &mut rpc);
    let before = pi.mock.requests().len();
    pi.mock
        .push(Turn::text("They talked about alpha, beta and gamma."));
    let (summary, entry) = compact(&pi, rpc, "llm");

    assert_eq!(
        summary,
        "model summary (mock-model): They talked about alpha, beta and gamma."
    );
    assert_eq!(entry["summary"], summary.as_str());
    assert_eq!(entry["fromHook"], true);
    let requests = pi.mock.requests();
    assert_eq!(requests.len(), before + 1, "one request for the compactor");
    let request = &requests[before];
    assert_eq!(request.body["model"], "mock-model", "the session's model");
    assert_eq!(request.header("authorization"), Some("Bearer mock-key"));
    let sent = request.body["messages"].to_string();
    assert!(
        sent.contains("You are the test compactor's summarizer."),
        "{sent}"
    );
    assert!(sent.contains("Summarize this conversation"), "{sent}");
    assert!(sent.contains("user: alpha question here"), "{sent}");
    assert!(sent.contains("assistant: answer 0"), "{sent}");
}

#[test]
fn compactor_names_a_model_like_the_command_line() {
    let pi = two_model_env();
    let mut rpc = RpcClient::start(&pi);
    chat(&pi, &mut rpc);
    let before = pi.mock.requests().len();
    pi.mock.push(Turn::text("Short."));
    // A bare id, resolved like `--model other-model`.
    let (summary, _) = compact(&pi, rpc, "llm:other-model");
    assert_eq!(summary, "model summary (other-model): Short.");
    let requests = pi.mock.requests();
    assert_eq!(requests.len(), before + 1);
    assert_eq!(requests[before].body["model"], "other-model");
}

#[test]
fn compactor_gets_the_error_of_an_unknown_model_and_pi_still_compacts() {
    let pi = two_model_env();
    let mut rpc = RpcClient::start(&pi);
    chat(&pi, &mut rpc);
    let before = pi.mock.requests().len();
    let (summary, entry) = compact(&pi, rpc, "llm:nowhere/no-such-model");
    assert_eq!(
        summary,
        "model unavailable: No model matches \"nowhere/no-such-model\". Run `pi --list-models` \
         to see the models you can use."
    );
    assert_eq!(entry["summary"], summary.as_str());
    assert_eq!(pi.mock.requests().len(), before, "nothing was sent");
}

#[test]
fn compactor_gets_the_error_of_a_missing_credential() {
    let pi = two_model_env();
    let mut rpc = RpcClient::start(&pi);
    chat(&pi, &mut rpc);
    let before = pi.mock.requests().len();
    let (summary, _) = compact(&pi, rpc, "llm:keyless/locked-model");
    assert_eq!(
        summary,
        "model unavailable: No API key found for keyless. Run `pi auth login keyless` (or /login keyless in interactive pi) or set an API key."
    );
    assert_eq!(pi.mock.requests().len(), before, "nothing was sent");
}

#[test]
fn compactor_without_the_llm_grant_loads_and_its_model_request_is_refused() {
    let pi = two_model_env();
    let manifest = pi.agent_dir().join("extensions/llmsum/pi-extension.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, text.replace("llm = true", "llm = false")).unwrap();
    let mut rpc = RpcClient::start(&pi);
    chat(&pi, &mut rpc);
    let before = pi.mock.requests().len();
    let (summary, entry) = compact(&pi, rpc, "llm");
    assert_eq!(
        summary,
        "model unavailable: capability `llm` was not granted to llmsum@0.1.0"
    );
    assert_eq!(entry["summary"], summary.as_str());
    assert_eq!(pi.mock.requests().len(), before, "nothing was sent");
}

/// Installs pi-ext-host's test provider (model `wasm-test/wasm-mini`: openai-completions over
/// wasi:http to the mock, sending its key as a bearer token and its headers as they are).
pub(super) fn install_provider(pi: &PiEnv) {
    let base = pi.mock.base_url(Api::OpenAiCompletions);
    let authority = base
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_owned();
    let package = pi.agent_dir().join("extensions").join("wasmprov");
    std::fs::create_dir_all(&package).unwrap();
    std::fs::copy(
        pi_ext_test_artifacts::PROVIDER,
        package.join("provider.wasm"),
    )
    .unwrap();
    let manifest = format!(
        "[package]\nname = \"wasmprov\"\nversion = \"1.2.3\"\nwit = \"0.3.0\"\n\n\
         [[component]]\npath = \"provider.wasm\"\nworld = \"provider\"\n\n\
         [capabilities]\nnetwork = [\"{authority}\"]\nenv = [\"TEST_PROVIDER_BASE_URL\"]\n"
    );
    std::fs::write(package.join("pi-extension.toml"), manifest).unwrap();
    pi.approve(&package);
}

/// The test provider, also allowed to read `TEST_PROVIDER_CLAIMS` (the models it claims),
/// approved again by its user for that.
pub(super) fn install_claiming_provider(pi: &PiEnv) {
    install_provider(pi);
    let manifest = pi.agent_dir().join("extensions/wasmprov/pi-extension.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(
        &manifest,
        text.replace(
            "env = [\"TEST_PROVIDER_BASE_URL\"]",
            "env = [\"TEST_PROVIDER_BASE_URL\", \"TEST_PROVIDER_CLAIMS\"]",
        ),
    )
    .unwrap();
    pi.approve(manifest.parent().unwrap());
}

/// models.json: the mock provider plus an entry configuring the extension's provider.
fn configure_provider(pi: &PiEnv, entry: Value) {
    let models = json!({"providers": {
        "mock": {
            "baseUrl": pi.mock.base_url(Api::OpenAiCompletions),
            "api": "openai-completions",
            "apiKey": "mock-key",
            "models": [{"id": "mock-model"}]
        },
        "wasm-test": entry
    }});
    pi.write_agent_file("models.json", &models.to_string());
}

/// One print-mode prompt through the extension's model; returns the request the mock got.
fn ask_provider(
    pi: &PiEnv,
    extra_args: &[&str],
    env: &[(&str, &str)],
) -> pi_mock_llm::LoggedRequest {
    pi.mock.push(Turn::text("Hello through the component."));
    let mut args = vec![
        "--model",
        "wasm-test/wasm-mini",
        "--no-tools",
        "--no-session",
    ];
    args.extend_from_slice(extra_args);
    args.extend(["-p", "Say hello"]);
    let mut command = pi.command(&args);
    command.env(
        "TEST_PROVIDER_BASE_URL",
        pi.mock.base_url(Api::OpenAiCompletions),
    );
    for (name, value) in env {
        command.env(name, value);
    }
    let out = command.output().unwrap();
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out), "Hello through the component.\n");
    pi.mock.requests().pop().unwrap()
}

#[test]
fn extension_provider_is_configured_by_models_json_like_a_built_in() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    install_provider(&pi);
    // A key from a command, headers literal and from the environment.
    configure_provider(
        &pi,
        json!({"apiKey": "!printf cmd-key",
               "headers": {"x-team": "blue", "x-from-env": "${WASM_HEADER}"}}),
    );
    let request = ask_provider(&pi, &[], &[("WASM_HEADER", "env-value")]);
    assert_eq!(request.body["model"], "wasm-mini");
    assert_eq!(request.header("authorization"), Some("Bearer cmd-key"));
    assert_eq!(request.header("x-team"), Some("blue"));
    assert_eq!(request.header("x-from-env"), Some("env-value"));

    // A key from an environment variable.
    configure_provider(&pi, json!({"apiKey": "$WASM_KEY"}));
    let request = ask_provider(&pi, &[], &[("WASM_KEY", "env-key")]);
    assert_eq!(request.header("authorization"), Some("Bearer env-key"));
    assert_eq!(request.header("x-team"), None);
}

#[test]
fn extension_provider_credentials_follow_pi_precedence() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    install_provider(&pi);
    configure_provider(
        &pi,
        json!({"apiKey": "models-json-key", "headers": {"x-team": "blue"}}),
    );
    let request = ask_provider(&pi, &[], &[]);
    assert_eq!(
        request.header("authorization"),
        Some("Bearer models-json-key")
    );

    // A stored credential (auth.json) wins over models.json…
    pi.write_agent_file(
        "auth.json",
        &json!({"wasm-test": {"type": "api_key", "key": "stored-key"}}).to_string(),
    );
    let request = ask_provider(&pi, &[], &[]);
    assert_eq!(request.header("authorization"), Some("Bearer stored-key"));
    assert_eq!(request.header("x-team"), Some("blue"));

    // …and `--api-key` over both.
    let request = ask_provider(&pi, &["--api-key", "sk-cli"], &[]);
    assert_eq!(request.header("authorization"), Some("Bearer sk-cli"));
    assert_eq!(request.header("x-team"), Some("blue"));
}

#[test]
fn extension_provider_without_any_credential_is_refused_at_start() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    install_provider(&pi);
    configure_provider(&pi, json!({"headers": {"x-team": "blue"}}));
    let out = pi
        .command(&["--model", "wasm-test/wasm-mini", "--no-session", "-p", "hi"])
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("wasm-test"), "{}", stderr(&out));
    assert!(pi.mock.requests().is_empty());
}

#[test]
fn a_provider_extension_cannot_take_over_another_providers_models_or_keys() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    install_claiming_provider(&pi);
    // The user's models: the built-in openai re-routed to the mock, and a models.json one.
    let base = pi.mock.base_url(Api::OpenAiCompletions);
    let models = json!({"providers": {
        "openai": {"baseUrl": base},
        "mine": {"baseUrl": base, "api": "openai-completions", "apiKey": "mine-key",
                 "models": [{"id": "local-model"}]}
    }});
    pi.write_agent_file("models.json", &models.to_string());
    pi.write_agent_file(
        "auth.json",
        &json!({"anthropic": {"type": "api_key", "key": "sk-ant-stored"}}).to_string(),
    );
    // Every request the component would send goes to this path of the mock.
    let stolen = format!("{}/stolen/v1", pi.mock.url());
    let claims = "openai/gpt-4o-mini,mine/local-model,anthropic/claude-sonnet-4-5";
    let run = |model: &str, extra: &[&str]| {
        pi.mock.push(Turn::text("served"));
        let mut args = vec!["--model", model, "--no-tools", "--no-session"];
        args.extend_from_slice(extra);
        args.extend(["-p", "hi"]);
        let mut command = pi.command(&args);
        command
            .env("TEST_PROVIDER_BASE_URL", &stolen)
            .env("TEST_PROVIDER_CLAIMS", claims)
            .env("OPENAI_API_KEY", "sk-openai-env");
        command.output().unwrap()
    };
    for (model, key, extra) in [
        ("openai/gpt-4o-mini", "sk-openai-env", &[][..]),
        ("openai/gpt-4o-mini", "sk-cli", &["--api-key", "sk-cli"][..]),
        ("mine/local-model", "mine-key", &[][..]),
    ] {
        let out = run(model, extra);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert_eq!(stdout(&out), "served\n");
        let err = stderr(&out);
        for claim in [
            "openai/gpt-4o-mini",
            "mine/local-model",
            "anthropic/claude-sonnet-4-5",
        ] {
            assert!(
                err.contains(&format!(
                    "extension \"wasmprov@1.2.3\": model {claim} refused"
                )),
                "{err}"
            );
        }
        // The user's endpoint served it with the user's key.
        let request = pi.mock.requests().pop().unwrap();
        assert!(!request.path.starts_with("/stolen/"), "{}", request.path);
        assert_eq!(
            request.header("authorization"),
            Some(format!("Bearer {key}").as_str())
        );
    }
    // Its own model still works.
    let out = run("wasm-test/wasm-mini", &["--api-key", "own-key"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("Model wasm-test/wasm-mini is served by extension wasmprov@1.2.3."),
        "{}",
        stderr(&out)
    );
    let requests = pi.mock.requests();
    let own = requests.last().unwrap();
    assert!(own.path.starts_with("/stolen/"), "{}", own.path);
    assert_eq!(own.header("authorization"), Some("Bearer own-key"));
    // Nothing else ever reached the component.
    let stolen_requests = requests
        .iter()
        .filter(|r| r.path.starts_with("/stolen/"))
        .count();
    assert_eq!(stolen_requests, 1);
}
