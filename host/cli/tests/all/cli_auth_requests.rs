//! Credentials at request time through the real binary: OAuth refresh before use (window
//! edges, failure, refusal, timeout, cancel, two processes at once), a stored login failing
//! mid-run without the environment key being sent, and what subscription tokens need on the
//! wire (Claude Code tool names, the ChatGPT backend, Copilot's token exchange and headers).

use crate::cli_auth::{anthropic_on_mock, assert_private, auth_json, store_anthropic, with_oauth};
use crate::cli_support::{PiEnv, stderr, stdout};
use pi_mock_llm::oauth::{MockOAuth, RefreshReply};
use pi_mock_llm::{Api, Turn};
use serde_json::json;
use std::process::{Child, Command};
use std::time::Duration;

/// `pi auth print-bearer-token` with the anthropic login `minutes` from expiry.
fn bearer(pi: &PiEnv, oauth: &MockOAuth, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["auth", "print-bearer-token", "--provider", "anthropic"];
    args.extend_from_slice(extra);
    let mut cmd = pi.command(&args);
    with_oauth(&mut cmd, oauth).output().unwrap()
}

#[test]
fn six_minutes_left_is_used_as_is_and_four_minutes_left_is_refreshed_and_saved_first() {
    let pi = PiEnv::empty();
    let oauth = MockOAuth::start();
    store_anthropic(&pi, 6);
    let out = bearer(&pi, &oauth, &[]);
    assert_eq!(stdout(&out), "sk-ant-oat01-old\n", "{}", stderr(&out));
    assert!(oauth.requests().is_empty());
    // A longer --min-expiry widens the window.
    let out = bearer(&pi, &oauth, &["--min-expiry", "30m"]);
    assert_eq!(
        stdout(&out),
        "sk-ant-oat01-refreshed-1\n",
        "{}",
        stderr(&out)
    );

    store_anthropic(&pi, 4);
    let out = bearer(&pi, &oauth, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "sk-ant-oat01-refreshed-2\n");
    let refreshes = oauth.refresh_requests();
    assert_eq!(refreshes.len(), 2);
    assert_eq!(refreshes[1].params["refresh_token"], "refresh-old");
    let stored = &auth_json(&pi)["anthropic"];
    assert_eq!(stored["access"], "sk-ant-oat01-refreshed-2");
    assert_eq!(stored["refresh"], "refresh-2");
    assert_eq!(stored["note"], "kept");
    assert_private(&pi);
}

#[test]
fn a_failed_refresh_keeps_the_stored_login_and_says_so() {
    let pi = PiEnv::empty();
    let oauth = MockOAuth::start();
    store_anthropic(&pi, 1);
    let before = auth_json(&pi);
    oauth.set_refresh(RefreshReply::Status(503));
    let out = bearer(&pi, &oauth, &[]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("refreshing the OAuth login for \"anthropic\" failed"),
        "{err}"
    );
    assert!(err.contains("HTTP 503"), "{err}");
    assert!(err.contains("the stored login was kept"), "{err}");
    assert_eq!(auth_json(&pi), before);
    assert_eq!(stdout(&out), "");
}

#[test]
fn a_refused_refresh_token_says_log_in_again() {
    let pi = PiEnv::empty();
    let oauth = MockOAuth::start();
    store_anthropic(&pi, -60);
    let before = auth_json(&pi);
    oauth.set_refresh(RefreshReply::Status(400));
    let out = bearer(&pi, &oauth, &[]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("has expired"), "{err}");
    assert!(err.contains("invalid_grant"), "{err}");
    assert!(
        err.contains("log in again with `pi auth login anthropic`"),
        "{err}"
    );
    assert_eq!(auth_json(&pi), before);
}

#[test]
fn a_refresh_with_no_answer_times_out_after_fifteen_seconds() {
    let pi = PiEnv::empty();
    let oauth = MockOAuth::start();
    store_anthropic(&pi, 2);
    oauth.set_refresh(RefreshReply::Hang);
    let out = bearer(&pi, &oauth, &[]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("no answer within 15 s"), "{err}");
    assert_eq!(auth_json(&pi)["anthropic"]["access"], "sk-ant-oat01-old");
}

#[test]
fn two_processes_needing_a_refresh_at_once_refresh_once_and_both_use_the_new_token() {
    let pi = PiEnv::empty();
    anthropic_on_mock(&pi);
    let oauth = MockOAuth::start();
    store_anthropic(&pi, 4);
    // A slow refresh: the second process waits on the lock, then finds the new token.
    oauth.set_refresh(RefreshReply::Tokens {
        delay: Duration::from_millis(500),
    });
    pi.mock.push(Turn::text("one"));
    pi.mock.push(Turn::text("two"));
    let args = [
        "-p",
        "--provider",
        "anthropic",
        "--model",
        "mock-claude",
        "hi",
    ];
    let children: Vec<Child> = (0..2)
        .map(|_| {
            let mut cmd = pi.command(&args);
            with_oauth(&mut cmd, &oauth).spawn().unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    assert_eq!(oauth.refresh_requests().len(), 1);
    let requests = pi.mock.requests();
    assert_eq!(requests.len(), 2);
    for request in &requests {
        assert_eq!(
            request.header("authorization"),
            Some("Bearer sk-ant-oat01-refreshed-1")
        );
        assert_eq!(request.header("x-api-key"), None);
        assert_eq!(
            request.body["system"][0]["text"],
            "You are Claude Code, Anthropic's official CLI for Claude."
        );
    }
    assert_eq!(
        auth_json(&pi)["anthropic"]["access"],
        "sk-ant-oat01-refreshed-1"
    );
}

#[test]
fn a_stored_login_failing_on_the_second_turn_ends_the_run_and_never_sends_the_env_key() {
    let pi = PiEnv::empty();
    anthropic_on_mock(&pi);
    let oauth = MockOAuth::start();
    oauth.set_refresh(RefreshReply::Status(400));
    store_anthropic(&pi, 60);
    // Turn one's tool replaces the login with an expired one whose refresh is refused, as if
    // it had been revoked while the run went on.
    let auth_path = pi.agent_dir().join("auth.json");
    let expired = json!({"anthropic": {"type": "oauth", "access": "sk-ant-oat01-old",
        "refresh": "revoked", "expires": 0}});
    let command = format!("printf '%s' '{expired}' > '{}'", auth_path.display());
    pi.mock
        .push(Turn::new().tool_call("c1", "bash", json!({"command": command})));
    pi.mock.push(Turn::text("never reached"));
    let args = [
        "-p",
        "--provider",
        "anthropic",
        "--model",
        "mock-claude",
        "go",
    ];
    let mut cmd = pi.command(&args);
    let out = with_oauth(&mut cmd, &oauth)
        .env("ANTHROPIC_API_KEY", "sk-ant-env-key-must-not-be-sent")
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("pi auth login anthropic"), "{err}");
    let requests = pi.mock.requests();
    assert_eq!(requests.len(), 1, "the second turn must not be sent");
    for request in &requests {
        let headers = format!("{:?}", request.headers);
        assert!(!headers.contains("env-key-must-not-be-sent"), "{headers}");
    }
    assert_eq!(oauth.refresh_requests().len(), 1);
}

#[test]
fn a_codex_login_reaches_the_chatgpt_backend_with_its_account_header() {
    use base64::Engine;
    let pi = PiEnv::empty();
    let models = json!({"providers": {"openai-codex": {
        "baseUrl": pi.mock.url(),
        "api": "openai-codex-responses",
        "models": [{"id": "codex-mock", "name": "Codex mock", "reasoning": true,
                    "contextWindow": 272000, "maxTokens": 128000}]
    }}});
    pi.write_agent_file("models.json", &models.to_string());
    let claims = r#"{"https://api.openai.com/auth":{"chatgpt_account_id":"acct-42"}}"#;
    let payload = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(claims);
    let access = format!("eyJhbGciOiJub25lIn0.{payload}.sig");
    let auth = json!({"openai-codex": {"type": "oauth", "access": access, "refresh": "r",
        "expires": pi_ai::now_ms() + 3_600_000, "accountId": "acct-42"}});
    pi.write_agent_file("auth.json", &auth.to_string());
    pi.mock.push(Turn::text("from codex"));
    let out = pi.run(&[
        "-p",
        "--provider",
        "openai-codex",
        "--model",
        "codex-mock",
        "hi",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "from codex");
    let request = &pi.mock.requests()[0];
    assert_eq!(request.path, "/codex/responses");
    assert_eq!(request.header("chatgpt-account-id"), Some("acct-42"));
    assert_eq!(
        request.header("authorization"),
        Some(format!("Bearer {access}").as_str())
    );
    assert!(request.body["instructions"].as_str().unwrap().len() > 10);
    assert!(request.body.get("max_output_tokens").is_none());
}

#[test]
fn an_expired_copilot_token_is_exchanged_again_and_sent_with_the_copilot_headers() {
    let pi = PiEnv::empty();
    let oauth = MockOAuth::start();
    let models = json!({"providers": {"github-copilot": {
        "baseUrl": pi.mock.base_url(Api::OpenAiCompletions),
        "api": "openai-completions",
        "models": [{"id": "copilot-mock", "name": "Copilot mock", "contextWindow": 128000,
                    "maxTokens": 16000}]
    }}});
    pi.write_agent_file("models.json", &models.to_string());
    let auth = json!({"github-copilot": {"type": "oauth", "access": "copilot-token-old",
        "refresh": "gho_stored", "expires": pi_ai::now_ms() - 1000}});
    pi.write_agent_file("auth.json", &auth.to_string());
    pi.mock.push(Turn::text("from copilot"));
    let args = [
        "-p",
        "--provider",
        "github-copilot",
        "--model",
        "copilot-mock",
        "hi",
    ];
    let mut cmd = pi.command(&args);
    let out = with_oauth(&mut cmd, &oauth).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let exchanges = oauth.refresh_requests();
    assert_eq!(exchanges.len(), 1);
    assert_eq!(exchanges[0].headers["authorization"], "Bearer gho_stored");
    let request = &pi.mock.requests()[0];
    assert_eq!(
        request.header("authorization"),
        Some("Bearer copilot-token-1")
    );
    assert_eq!(
        request.header("copilot-integration-id"),
        Some("vscode-chat")
    );
    assert_eq!(request.header("x-initiator"), Some("user"));
    let stored = &auth_json(&pi)["github-copilot"];
    assert_eq!(stored["access"], "copilot-token-1");
    assert_eq!(stored["refresh"], "gho_stored");
}

#[test]
fn sigint_during_a_refresh_cancels_it_and_keeps_the_stored_login() {
    let pi = PiEnv::empty();
    anthropic_on_mock(&pi);
    let oauth = MockOAuth::start();
    oauth.set_refresh(RefreshReply::Hang);
    store_anthropic(&pi, 2);
    let before = auth_json(&pi);
    let args = [
        "-p",
        "--provider",
        "anthropic",
        "--model",
        "mock-claude",
        "hi",
    ];
    let mut cmd = pi.command(&args);
    let child = with_oauth(&mut cmd, &oauth).spawn().unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while oauth.refresh_requests().is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        oauth.refresh_requests().len(),
        1,
        "the refresh never started"
    );
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(
        err.contains("refreshing the OAuth login for \"anthropic\" was cancelled"),
        "{err}"
    );
    assert!(!err.contains("no answer within"), "{err}");
    assert_eq!(auth_json(&pi), before);
    assert!(pi.mock.requests().is_empty());
}

#[test]
fn a_subscription_answer_calling_claude_codes_read_runs_pis_read_tool() {
    let pi = PiEnv::empty();
    anthropic_on_mock(&pi);
    store_anthropic(&pi, 60);
    std::fs::write(pi.cwd().join("a.txt"), "alpha beta\n").unwrap();
    pi.mock
        .push(Turn::new().tool_call("toolu_1", "Read", json!({"path": "a.txt"})));
    pi.mock.push(Turn::text("read it"));
    let args = [
        "-p",
        "--provider",
        "anthropic",
        "--model",
        "mock-claude",
        "read a.txt",
    ];
    let out = pi.run(&args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "read it");
    let requests = pi.mock.requests();
    let tools: Vec<&str> = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(
        tools.contains(&"Read") && tools.contains(&"Bash"),
        "{tools:?}"
    );
    let second = requests[1].body["messages"].to_string();
    assert!(second.contains(r#""name":"Read""#), "{second}");
    assert!(
        second.contains("alpha beta"),
        "the read tool did not run: {second}"
    );
}

#[test]
fn a_401_or_403_with_a_valid_stored_login_forces_no_refresh() {
    for status in [401, 403] {
        let pi = PiEnv::empty();
        anthropic_on_mock(&pi);
        let oauth = MockOAuth::start();
        // An hour left: nothing to refresh before use, and a refusal does not force one.
        store_anthropic(&pi, 60);
        let body = r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#;
        pi.mock.push(pi_mock_llm::Reply::status(status, &[], body));
        let args = [
            "-p",
            "--provider",
            "anthropic",
            "--model",
            "mock-claude",
            "hi",
        ];
        let mut cmd = pi.command(&args);
        let out = with_oauth(&mut cmd, &oauth).output().unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{status}: {err}");
        assert!(err.contains(&status.to_string()), "{status}: {err}");
        assert_eq!(pi.mock.requests().len(), 1, "{status}: not retried");
        assert!(
            oauth.requests().is_empty(),
            "{status}: {:?}",
            oauth.requests()
        );
        assert_eq!(auth_json(&pi)["anthropic"]["access"], "sk-ant-oat01-old");
    }
}
