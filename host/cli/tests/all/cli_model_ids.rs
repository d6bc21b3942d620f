//! Model ids an extension shares with the user's own models, end to end through the `pi`
//! binary: pi-ext-host's test provider component offers `other/<id>` for every id in
//! `TEST_PROVIDER_CLAIMS` and sends what it is asked to a path of the mock LLM of its own
//! (`/ext/…`), so the mock's log shows every request, and every key, the extension received.
//! A bare `--model` / `--models` id is the user's model whenever one matches; `--api-key` never
//! reaches the extension's provider unless the user named it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::cli_extension_models::install_claiming_provider;
use super::cli_rpc::{RpcClient, ok};
use super::cli_support::*;
use pi_mock_llm::{Api, LoggedRequest, Turn};
use serde_json::json;
use std::process::{Command, Output, Stdio};

/// `pi args…` with the extension offering `other/<id>` for each of `claims`.
fn command(pi: &PiEnv, claims: &str, args: &[&str]) -> Command {
    let mut command = pi.command(args);
    command
        .env(
            "TEST_PROVIDER_BASE_URL",
            format!("{}/ext/v1", pi.mock.url()),
        )
        .env("TEST_PROVIDER_CLAIMS", claims);
    command
}

/// A print-mode run answered by the mock (whoever asks it).
fn ask(pi: &PiEnv, claims: &str, args: &[&str]) -> Output {
    pi.mock.push(Turn::text("answered"));
    let mut all = vec!["--no-tools", "--no-session"];
    all.extend_from_slice(args);
    all.extend(["-p", "hi"]);
    command(pi, claims, &all).output().unwrap()
}

/// What the extension's provider sent on (so what it received from pi).
fn extension_requests(pi: &PiEnv) -> Vec<LoggedRequest> {
    pi.mock
        .requests()
        .into_iter()
        .filter(|r| r.path.starts_with("/ext/"))
        .collect()
}

fn assert_no_secret_reached_the_extension(pi: &PiEnv, secret: &str) {
    for request in extension_requests(pi) {
        let seen = format!("{:?} {}", request.headers, request.body);
        assert!(!seen.contains(secret), "the extension got {secret}: {seen}");
    }
}

#[test]
fn a_bare_id_an_extension_also_offers_runs_on_the_users_model_and_keeps_the_key_home() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    install_claiming_provider(&pi);
    let claims = "other/mock-model";

    // The extension's model exists and would take the request when named: the control.
    let out = ask(
        &pi,
        claims,
        &["--model", "other/mock-model", "--api-key", "OWN-KEY"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("Model other/mock-model is served by extension wasmprov@1.2.3."),
        "{}",
        stderr(&out)
    );
    let named = extension_requests(&pi);
    assert_eq!(named.len(), 1);
    assert_eq!(named[0].header("authorization"), Some("Bearer OWN-KEY"));

    // A bare id: the user's mock/mock-model, with the key given for it.
    for args in [
        &["--model", "mock-model", "--api-key", "SECRET"][..],
        &["--model", "MOCK-MODEL:low", "--api-key", "SECRET"][..],
        &["--models", "mock-model", "--api-key", "SECRET"][..],
        &["--models", "*mock-model*", "--api-key", "SECRET"][..],
    ] {
        let out = ask(&pi, claims, args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        assert_eq!(stdout(&out), "answered\n");
        let err = stderr(&out);
        assert!(!err.contains("served by extension"), "{args:?}: {err}");
        let request = pi.mock.requests().pop().unwrap();
        assert_eq!(request.path, "/v1/chat/completions", "{args:?}");
        assert_eq!(request.body["model"], "mock-model");
        assert_eq!(request.header("authorization"), Some("Bearer SECRET"));
    }
    assert_eq!(extension_requests(&pi).len(), 1, "only the named run");
    assert_no_secret_reached_the_extension(&pi, "SECRET");
}

#[test]
fn a_bare_id_only_an_extension_offers_is_its_model_said_so_and_gets_no_unnamed_key() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    install_claiming_provider(&pi);
    let claims = "other/ext-only-model";
    // The extension's provider has a key of its own in models.json.
    let models = json!({"providers": {
        "mock": {"baseUrl": pi.mock.base_url(Api::OpenAiCompletions),
                 "api": "openai-completions", "apiKey": "mock-key",
                 "models": [{"id": "mock-model"}]},
        "other": {"apiKey": "other-key"}
    }});
    pi.write_agent_file("models.json", &models.to_string());

    // Allowed, and said on stderr.
    let out = ask(&pi, claims, &["--model", "ext-only-model"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "Model other/ext-only-model is served by extension wasmprov@1.2.3: \
             \"ext-only-model\" matches none of your own models (--model other/ext-only-model \
             names it)."
        ),
        "{}",
        stderr(&out)
    );
    let requests = extension_requests(&pi);
    assert_eq!(requests.len(), 1);
    assert_eq!(
        requests[0].header("authorization"),
        Some("Bearer other-key")
    );

    // With --api-key and the provider unnamed: refused before anything is sent.
    let before = pi.mock.requests().len();
    for args in [
        &["--model", "ext-only-model", "--api-key", "SECRET"][..],
        &["--models", "ext-only", "--api-key", "SECRET"][..],
    ] {
        let out = ask(&pi, claims, args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains(
                "--api-key is given only to a provider you name, and the model chosen, \
                 other/ext-only-model, is served by extension wasmprov@1.2.3. Pass --model \
                 other/ext-only-model (or --provider other) to give it the key"
            ),
            "{args:?}: {err}"
        );
    }
    assert_eq!(pi.mock.requests().len(), before, "nothing was sent");

    // Named, by --provider or provider/id, it gets the key.
    for (args, key) in [
        (
            &[
                "--provider",
                "other",
                "--model",
                "ext-only-model",
                "--api-key",
                "NAMED-1",
            ][..],
            "NAMED-1",
        ),
        (
            &["--model", "other/ext-only-model", "--api-key", "NAMED-2"][..],
            "NAMED-2",
        ),
    ] {
        let out = ask(&pi, claims, args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        let request = extension_requests(&pi).pop().unwrap();
        assert_eq!(
            request.header("authorization"),
            Some(format!("Bearer {key}").as_str())
        );
    }
    assert_no_secret_reached_the_extension(&pi, "SECRET");
}

#[test]
fn the_api_key_stays_with_its_provider_when_the_model_changes() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    install_claiming_provider(&pi);
    let models = json!({"providers": {
        "mock": {"baseUrl": pi.mock.base_url(Api::OpenAiCompletions),
                 "api": "openai-completions", "models": [{"id": "mock-model"}]},
        "other": {"apiKey": "other-key"}
    }});
    pi.write_agent_file("models.json", &models.to_string());
    let child = command(
        &pi,
        "other/ext-model",
        &[
            "--mode",
            "rpc",
            "--no-session",
            "--model",
            "mock/mock-model",
            "--api-key",
            "SECRET",
        ],
    )
    .stdin(Stdio::piped())
    .spawn()
    .unwrap();
    let mut rpc = RpcClient::from_child(child);
    pi.mock.push(Turn::text("from mock"));
    ok(&rpc.call(json!({"id": "p1", "type": "prompt", "message": "one"})));
    rpc.wait_event("agent_end");
    let first = pi.mock.requests().pop().unwrap();
    assert_eq!(first.header("authorization"), Some("Bearer SECRET"));

    ok(&rpc.call(
        json!({"id": "m", "type": "set_model", "provider": "other", "modelId": "ext-model"}),
    ));
    pi.mock.push(Turn::text("from the extension"));
    ok(&rpc.call(json!({"id": "p2", "type": "prompt", "message": "two"})));
    rpc.wait_event("agent_end");
    let requests = extension_requests(&pi);
    assert_eq!(requests.len(), 1);
    assert_eq!(
        requests[0].header("authorization"),
        Some("Bearer other-key")
    );
    assert_no_secret_reached_the_extension(&pi, "SECRET");
    drop(rpc.stdin.take());
    assert_eq!(rpc.child.wait().unwrap().code(), Some(0));
}

#[test]
fn two_user_providers_sharing_a_bare_id_resolve_as_pi_does() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    install_claiming_provider(&pi);
    let url = pi.mock.url();
    let models = json!({"providers": {
        "first": {"baseUrl": format!("{url}/first/v1"), "api": "openai-completions",
                  "models": [{"id": "shared-model"}]},
        "second": {"baseUrl": format!("{url}/second/v1"), "api": "openai-completions",
                   "models": [{"id": "shared-model"}]}
    }});
    pi.write_agent_file("models.json", &models.to_string());
    // pi's `--model`: the first listed with that id; a scope pattern: the first listed among
    // equal ids. The extension's `other/shared-model` is never taken.
    for args in [
        &["--model", "shared-model", "--api-key", "SECRET"][..],
        &["--models", "shared-model", "--api-key", "SECRET"][..],
    ] {
        let out = ask(&pi, "other/shared-model", args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        let request = pi.mock.requests().pop().unwrap();
        assert_eq!(request.path, "/first/v1/chat/completions", "{args:?}");
        assert_eq!(request.header("authorization"), Some("Bearer SECRET"));
    }
    // Named, the second is reached.
    let out = ask(
        &pi,
        "other/shared-model",
        &["--model", "second/shared-model", "--api-key", "K2"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let request = pi.mock.requests().pop().unwrap();
    assert_eq!(request.path, "/second/v1/chat/completions");
    assert!(extension_requests(&pi).is_empty());
}
