//! `pi auth` and credential resolution through the real binary: OAuth logins against a
//! loopback OAuth server (a browser stand-in follows the authorize redirect to pi's loopback
//! callback), refresh before use (window edges, failures, two processes at once), `check`
//! states, and a stored credential failing mid-run without the environment key being sent.

use crate::cli_support::{PiEnv, stderr, stdout};
use pi_mock_llm::oauth::{MockOAuth, RefreshReply, browse};
use pi_mock_llm::{Api, Turn};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const PROVIDERS: [&str; 6] = [
    "ANTHROPIC",
    "OPENAI_CODEX",
    "GITHUB_COPILOT",
    "OPENROUTER",
    "XAI",
    "KIMI_CODING",
];

/// `cmd` with every sign-in endpoint on `oauth`, any free callback port, and no browser.
fn with_oauth<'a>(cmd: &'a mut Command, oauth: &MockOAuth) -> &'a mut Command {
    for provider in PROVIDERS {
        cmd.env(format!("PI_OAUTH_BASE_URL_{provider}"), oauth.base_url());
    }
    cmd.env("PI_OAUTH_CALLBACK_PORT", "0")
        .env("PI_OAUTH_BROWSER", "none")
}

fn auth_json(pi: &PiEnv) -> Value {
    let text = std::fs::read_to_string(pi.agent_dir().join("auth.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn assert_private(pi: &PiEnv) {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(pi.agent_dir().join("auth.json"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
}

/// Stores an anthropic OAuth login expiring `minutes` from now (plus an unknown field).
fn store_anthropic(pi: &PiEnv, minutes: i64) {
    let expires = pi_ai::now_ms() + minutes * 60_000;
    let auth = json!({"anthropic": {"type": "oauth", "access": "sk-ant-oat01-old",
        "refresh": "refresh-old", "expires": expires, "note": "kept"}});
    pi.write_agent_file("auth.json", &auth.to_string());
}

/// The lines pi writes to stderr, as they come.
fn stderr_lines(child: &mut Child) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    let err = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// Waits for the first stderr line starting with `prefix`.
fn wait_line(lines: &mpsc::Receiver<String>, prefix: &str) -> String {
    loop {
        let line = lines
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("no line starting with {prefix}"));
        if line.starts_with(prefix) {
            return line;
        }
    }
}

fn finish(mut child: Child, lines: &mpsc::Receiver<String>) -> (i32, String) {
    let status = child.wait().unwrap();
    let rest: Vec<String> = lines.try_iter().collect();
    (status.code().unwrap_or(-1), rest.join("\n"))
}

#[test]
fn anthropic_login_through_the_loopback_callback_stores_a_private_oauth_credential() {
    let pi = PiEnv::empty();
    let oauth = MockOAuth::start();
    let mut cmd = pi.command(&["auth", "login", "anthropic", "--no-browser"]);
    // stdin stays open and silent, as a terminal nobody types in: the paste prompt must not
    // keep pi from finishing once the browser's callback arrived.
    let mut child = with_oauth(&mut cmd, &oauth)
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let _stdin = child.stdin.take();
    let lines = stderr_lines(&mut child);
    let url = wait_line(&lines, "http://127.0.0.1:");
    assert!(url.contains("/oauth/authorize?"), "{url}");
    assert!(url.contains("code_challenge_method=S256"), "{url}");
    let (status, page) = browse(&url).unwrap();
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("Signed in"), "{page}");
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        assert!(
            std::time::Instant::now() < deadline,
            "pi auth login did not exit after the callback"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let (code, rest) = finish(child, &lines);
    assert_eq!(code, 0, "{rest}");
    let stored = &auth_json(&pi)["anthropic"];
    assert_eq!(stored["type"], "oauth");
    assert_eq!(stored["access"], "sk-ant-oat01-access-2");
    assert_eq!(stored["refresh"], "refresh-2");
    assert!(stored["expires"].as_i64().unwrap() > pi_ai::now_ms());
    assert_private(&pi);
    let exchange = oauth
        .requests()
        .into_iter()
        .find(|r| r.path == "/v1/oauth/token")
        .unwrap();
    assert_eq!(exchange.params["grant_type"], "authorization_code");
    assert_eq!(
        exchange.params["client_id"],
        "9d1c250a-e61b-44d9-88ed-5944d1962f5e"
    );
    assert_eq!(exchange.headers["content-type"], "application/json");
}

#[test]
fn codex_login_takes_a_pasted_redirect_on_a_headless_machine() {
    let pi = PiEnv::empty();
    let oauth = MockOAuth::start();
    let mut cmd = pi.command(&["auth", "login", "openai-codex"]);
    let mut child = with_oauth(&mut cmd, &oauth)
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let lines = stderr_lines(&mut child);
    let url = wait_line(&lines, "http://127.0.0.1:");
    assert!(url.contains("originator=pi"), "{url}");
    // The browser ran elsewhere: its final address (the callback) is pasted, not visited.
    let redirect = pi_mock_llm::oauth::authorize_redirect(&url).unwrap();
    assert!(redirect.starts_with("http://localhost:"), "{redirect}");
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "{redirect}").unwrap();
    let (code, rest) = finish(child, &lines);
    assert_eq!(code, 0, "{rest}");
    let stored = &auth_json(&pi)["openai-codex"];
    assert_eq!(stored["type"], "oauth");
    assert!(
        stored["access"]
            .as_str()
            .unwrap()
            .starts_with("sk-ant-oat01-access-")
    );
    let exchange = oauth
        .requests()
        .into_iter()
        .find(|r| r.path == "/oauth/token")
        .unwrap();
    assert_eq!(
        exchange.headers["content-type"],
        "application/x-www-form-urlencoded"
    );
    assert_private(&pi);
}

#[test]
fn openrouter_login_mints_an_api_key() {
    let pi = PiEnv::empty();
    let oauth = MockOAuth::start();
    let mut cmd = pi.command(&["auth", "login", "openrouter", "--no-browser"]);
    let mut child = with_oauth(&mut cmd, &oauth).spawn().unwrap();
    let lines = stderr_lines(&mut child);
    let url = wait_line(&lines, "http://127.0.0.1:");
    assert!(url.contains("/auth?callback_url="), "{url}");
    assert_eq!(browse(&url).unwrap().0, 200);
    let (code, rest) = finish(child, &lines);
    assert_eq!(code, 0, "{rest}");
    assert_eq!(
        auth_json(&pi)["openrouter"],
        json!({"type": "api_key", "key": "sk-or-v1-minted"})
    );
    assert_private(&pi);
}

#[test]
fn copilot_device_login_on_an_enterprise_domain_exchanges_a_copilot_token() {
    let pi = PiEnv::empty();
    let oauth = MockOAuth::start();
    let args = [
        "auth",
        "login",
        "github-copilot",
        "--domain",
        "ghe.example.com",
    ];
    let mut cmd = pi.command(&args);
    let mut child = with_oauth(&mut cmd, &oauth).spawn().unwrap();
    let lines = stderr_lines(&mut child);
    let shown = wait_line(&lines, "Sign in to github-copilot: open");
    assert!(shown.contains("ABCD-1234"), "{shown}");
    let (code, rest) = finish(child, &lines);
    assert_eq!(code, 0, "{rest}");
    let stored = &auth_json(&pi)["github-copilot"];
    assert_eq!(stored["type"], "oauth");
    assert_eq!(stored["refresh"], "gho_mock-github-token");
    assert!(
        stored["access"]
            .as_str()
            .unwrap()
            .starts_with("copilot-token-")
    );
    assert_eq!(stored["enterpriseUrl"], "ghe.example.com");
    let paths: Vec<String> = oauth.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(
        paths,
        [
            "/login/device/code",
            "/login/oauth/access_token",
            "/login/oauth/access_token",
            "/copilot_internal/v2/token"
        ]
    );
    assert_private(&pi);
}

#[test]
fn api_key_login_logout_and_print_api_key() {
    let pi = PiEnv::empty();
    let out = pi.run_with_stdin(&["auth", "login", "groq", "--api-key"], "gsk-123\n");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        auth_json(&pi)["groq"],
        json!({"type": "api_key", "key": "gsk-123"})
    );
    assert_private(&pi);
    let out = pi.run(&["auth", "print-api-key", "--provider", "groq"]);
    assert_eq!(stdout(&out), "gsk-123\n");
    let out = pi.run(&["auth", "logout", "groq"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(auth_json(&pi), json!({}));
    let out = pi.run(&["auth", "logout", "groq"]);
    assert_eq!(out.status.code(), Some(1));
    let out = pi.run(&["auth", "print-api-key", "--provider", "groq"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("pi auth login groq"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("GROQ_API_KEY"), "{}", stderr(&out));
    let out = pi.run_with_stdin(&["auth", "login", "groq", "--api-key"], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no API key given"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn check_reports_ready_missing_expired_and_invalid_with_their_exit_codes() {
    let pi = PiEnv::empty();
    let now = pi_ai::now_ms();
    let auth = json!({
        "anthropic": {"type": "oauth", "access": "a", "refresh": "r", "expires": now + 3_600_000},
        "openai-codex": {"type": "oauth", "access": "a", "refresh": "r", "expires": now - 1},
        "groq": {"type": "api_key", "key": "gsk"},
        "openai": {"type": "mystery"}
    });
    pi.write_agent_file("auth.json", &auth.to_string());
    let check = |args: &[&str]| {
        let mut all = vec!["auth", "check", "--json"];
        all.extend_from_slice(args);
        let out = pi.run(&all);
        let json: Value = serde_json::from_str(&stdout(&out)).unwrap();
        (out.status.code(), json)
    };
    let (code, json) = check(&["anthropic", "groq"]);
    assert_eq!(code, Some(0), "{json}");
    assert_eq!(json["status"], "ready");
    assert_eq!(json["providers"][0]["type"], "oauth");
    assert_eq!(json["providers"][1]["type"], "api_key");
    let (code, json) = check(&["anthropic", "openai-codex", "mistral"]);
    assert_eq!(code, Some(1), "{json}");
    assert_eq!(json["providers"][1]["status"], "not ready");
    assert!(
        json["providers"][1]["message"]
            .as_str()
            .unwrap()
            .contains("expired")
    );
    assert_eq!(json["providers"][2]["status"], "not ready");
    assert_eq!(json["providers"][2]["source"], "none");
    assert!(
        json["providers"][2]["message"]
            .as_str()
            .unwrap()
            .contains("pi auth login mistral")
    );
    let (code, json) = check(&[]);
    assert_eq!(code, Some(2), "{json}");
    let providers: Vec<&str> = json["providers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["provider"].as_str().unwrap())
        .collect();
    assert_eq!(providers, ["anthropic", "openai-codex", "groq", "openai"]);
    assert_eq!(json["providers"][3]["status"], "invalid");
    // `status` is the same report.
    let out = pi.run(&["auth", "status", "groq"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).starts_with("groq: ready"), "{}", stdout(&out));
}

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

/// models.json pointing the `anthropic` provider at the mock LLM.
fn anthropic_on_mock(pi: &PiEnv) {
    let models = json!({"providers": {"anthropic": {
        "baseUrl": pi.mock.base_url(Api::AnthropicMessages),
        "api": "anthropic-messages",
        "models": [{"id": "mock-claude", "name": "Mock Claude", "contextWindow": 200000,
                    "maxTokens": 32000}]
    }}});
    pi.write_agent_file("models.json", &models.to_string());
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
fn print_mode_with_a_broken_stored_credential_names_pi_auth_login() {
    let pi = PiEnv::empty();
    anthropic_on_mock(&pi);
    pi.write_agent_file("auth.json", r#"{"anthropic": {"type": "mystery"}}"#);
    let out = pi.run(&[
        "-p",
        "--provider",
        "anthropic",
        "--model",
        "mock-claude",
        "hi",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("pi auth login anthropic"), "{err}");
    assert!(pi.mock.requests().is_empty());
}

#[test]
fn auth_help_lists_every_command() {
    let pi = PiEnv::empty();
    let out = pi.run(&["auth", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = stdout(&out);
    for command in [
        "login",
        "logout",
        "status",
        "check",
        "print-api-key",
        "print-bearer-token",
    ] {
        assert!(help.contains(command), "{command}: {help}");
    }
    let out = pi.run(&["auth", "print-bearer-token", "--help"]);
    assert!(stdout(&out).contains("--min-expiry"), "{}", stdout(&out));
    let out = pi.run(&[
        "auth",
        "print-bearer-token",
        "--provider",
        "x",
        "--min-expiry",
        "soon",
    ]);
    assert_eq!(out.status.code(), Some(2));
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
fn xai_and_kimi_device_logins_store_refreshable_oauth_credentials() {
    for (provider, code_path, token_path) in [
        ("xai", "/oauth2/device/code", "/oauth2/token"),
        (
            "kimi-coding",
            "/api/oauth/device_authorization",
            "/api/oauth/token",
        ),
    ] {
        let pi = PiEnv::empty();
        let oauth = MockOAuth::start();
        let mut cmd = pi.command(&["auth", "login", provider, "--no-browser"]);
        let mut child = with_oauth(&mut cmd, &oauth).spawn().unwrap();
        let lines = stderr_lines(&mut child);
        let shown = wait_line(&lines, &format!("Sign in to {provider}: open"));
        assert!(shown.contains("ABCD-1234"), "{shown}");
        let (code, rest) = finish(child, &lines);
        assert_eq!(code, 0, "{provider}: {rest}");
        let stored = &auth_json(&pi)[provider];
        assert_eq!(stored["type"], "oauth", "{provider}");
        assert_eq!(stored["refresh"], "device-refresh", "{provider}");
        assert_private(&pi);
        let requests = oauth.requests();
        assert_eq!(requests[0].path, code_path);
        assert_eq!(requests.last().unwrap().path, token_path);
        // xAI's device code is bound to a PKCE challenge; Kimi's is not.
        let pkce = requests[0].params.contains_key("code_challenge");
        assert_eq!(pkce, provider == "xai", "{provider}");

        // The stored login is refreshed with a refresh_token grant when it runs out.
        let mut auth = auth_json(&pi);
        auth[provider]["expires"] = json!(0);
        pi.write_agent_file("auth.json", &auth.to_string());
        let mut cmd = pi.command(&["auth", "print-bearer-token", "--provider", provider]);
        let out = with_oauth(&mut cmd, &oauth).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(
            stdout(&out).starts_with("sk-ant-oat01-refreshed-"),
            "{}",
            stdout(&out)
        );
        let refresh = &oauth.refresh_requests()[0];
        assert_eq!(refresh.path, token_path);
        assert_eq!(refresh.params["refresh_token"], "device-refresh");
    }
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
