//! `pi auth` through the real binary: OAuth logins against a loopback OAuth server (a browser
//! stand-in follows the authorize redirect to pi's loopback callback), API-key logins,
//! `check` states, help and error texts. The helpers here serve `cli_auth_requests` too.

use crate::cli_support::{PiEnv, stderr, stdout};
use pi_mock_llm::Api;
use pi_mock_llm::oauth::{MockOAuth, browse};
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
pub(crate) fn with_oauth<'a>(cmd: &'a mut Command, oauth: &MockOAuth) -> &'a mut Command {
    for provider in PROVIDERS {
        cmd.env(format!("PI_OAUTH_BASE_URL_{provider}"), oauth.base_url());
    }
    cmd.env("PI_OAUTH_CALLBACK_PORT", "0")
        .env("PI_OAUTH_BROWSER", "none")
}

pub(crate) fn auth_json(pi: &PiEnv) -> Value {
    let text = std::fs::read_to_string(pi.agent_dir().join("auth.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

pub(crate) fn assert_private(pi: &PiEnv) {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(pi.agent_dir().join("auth.json"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
}

/// Stores an anthropic OAuth login expiring `minutes` from now (plus an unknown field).
pub(crate) fn store_anthropic(pi: &PiEnv, minutes: i64) {
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

/// models.json pointing the `anthropic` provider at the mock LLM.
pub(crate) fn anthropic_on_mock(pi: &PiEnv) {
    let models = json!({"providers": {"anthropic": {
        "baseUrl": pi.mock.base_url(Api::AnthropicMessages),
        "api": "anthropic-messages",
        "models": [{"id": "mock-claude", "name": "Mock Claude", "contextWindow": 200000,
                    "maxTokens": 32000}]
    }}});
    pi.write_agent_file("models.json", &models.to_string());
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
fn openrouter_login_opens_the_browser_and_mints_an_api_key() {
    use std::os::unix::fs::PermissionsExt;
    let pi = PiEnv::empty();
    let oauth = MockOAuth::start();
    // The "browser" records the URL it was asked to open.
    let opened = pi.root.path().join("opened.txt");
    let browser = pi.root.path().join("browser.sh");
    let script = format!("#!/bin/sh\nprintf '%s' \"$1\" > '{}'\n", opened.display());
    std::fs::write(&browser, script).unwrap();
    std::fs::set_permissions(&browser, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut cmd = pi.command(&["auth", "login", "openrouter"]);
    let mut child = with_oauth(&mut cmd, &oauth)
        .env("PI_OAUTH_BROWSER", &browser)
        .spawn()
        .unwrap();
    let lines = stderr_lines(&mut child);
    let url = wait_line(&lines, "http://127.0.0.1:");
    assert!(url.contains("/auth?callback_url="), "{url}");
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let read = || std::fs::read_to_string(&opened).unwrap_or_default();
    while read().len() < url.len() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(read(), url);
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
    let out = pi.run(&["auth", "status", "--json"]);
    let (code, json): (_, Value) = (
        out.status.code(),
        serde_json::from_str(&stdout(&out)).unwrap(),
    );
    assert_eq!(code, Some(2), "{json}");
    let providers: Vec<&str> = json["providers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["provider"].as_str().unwrap())
        .collect();
    assert_eq!(providers, ["anthropic", "openai-codex", "groq", "openai"]);
    assert_eq!(json["providers"][3]["status"], "invalid");
    // `status` is the same report as `check` with positional providers.
    let out = pi.run(&["auth", "status", "groq"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).starts_with("groq: ready"), "{}", stdout(&out));
}

#[test]
fn print_and_json_modes_with_a_broken_stored_credential_name_pi_auth_login() {
    let pi = PiEnv::empty();
    anthropic_on_mock(&pi);
    pi.write_agent_file("auth.json", r#"{"anthropic": {"type": "mystery"}}"#);
    for mode in ["text", "json"] {
        let args = [
            "--mode",
            mode,
            "-p",
            "--provider",
            "anthropic",
            "--model",
            "mock-claude",
            "hi",
        ];
        let out = pi.run(&args);
        assert_eq!(out.status.code(), Some(1), "{mode}");
        let err = stderr(&out);
        assert!(err.contains("pi auth login anthropic"), "{mode}: {err}");
    }
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
    // A malformed auth command exits 1, as in pi 1.6.
    let out = pi.run(&[
        "auth",
        "print-bearer-token",
        "--provider",
        "x",
        "--min-expiry",
        "soon",
    ]);
    assert_eq!(out.status.code(), Some(1));
}

/// Every entry under `Arguments:` and `Options:` of a long help text has its description.
fn assert_documented(what: &str, help: &str) {
    let lines: Vec<&str> = help.lines().collect();
    assert!(
        lines
            .first()
            .is_some_and(|l| l.split_whitespace().count() > 3),
        "{what}: no description first: {help}"
    );
    for (i, line) in lines.iter().enumerate() {
        let entry = line.trim_start();
        let indent = line.len() - entry.len();
        if !(2..=6).contains(&indent) || !entry.starts_with(['-', '<', '[']) {
            continue;
        }
        // Short help puts the description after the entry, long help on the next line.
        let beside = entry
            .split_once("  ")
            .is_some_and(|(_, d)| !d.trim().is_empty());
        let next = lines.get(i + 1).copied().unwrap_or_default();
        let below = next.starts_with("          ") && !next.trim().is_empty();
        assert!(
            beside || below,
            "{what}: `{entry}` has no description: {help}"
        );
    }
}

#[test]
fn every_auth_and_package_command_has_a_real_help_text() {
    let pi = PiEnv::empty();
    let commands: &[&[&str]] = &[
        &["auth", "login"],
        &["auth", "logout"],
        &["auth", "status"],
        &["auth", "check"],
        &["auth", "print-api-key"],
        &["auth", "print-bearer-token"],
        &["ext", "install"],
        &["ext", "remove"],
        &["ext", "update"],
        &["ext", "approve"],
        &["ext", "list"],
        &["ext", "info"],
        &["ext", "publish"],
        &["ext", "new"],
        &["install"],
        &["remove"],
        &["uninstall"],
        &["update"],
        &["list"],
    ];
    for command in commands {
        let mut args = command.to_vec();
        args.push("--help");
        let out = pi.run(&args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        assert_documented(&command.join(" "), &stdout(&out));
    }
    let check = stdout(&pi.run(&["auth", "check", "--help"]));
    assert!(!check.contains("Same as status"), "{check}");
    for flag in [
        "--provider",
        "--model",
        "--json",
        "--credentials",
        "--no-refresh",
    ] {
        assert!(check.contains(flag), "{flag}: {check}");
    }
    assert!(check.contains("not_ready"), "{check}");
    // `pi auth` alone is its help, as in pi 1.6.
    let out = pi.run(&["auth"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("print-bearer-token"),
        "{}",
        stdout(&out)
    );
    for top in ["auth", "ext"] {
        let help = stdout(&pi.run(&[top, "--help"]));
        assert!(help.contains("Examples:"), "{top}: {help}");
    }
}

/// `pi auth check` with `--env` set, its exit code, stdout and stderr.
fn check16(pi: &PiEnv, env: &[(&str, &str)], args: &[&str]) -> (Option<i32>, String, String) {
    let mut all = vec!["auth", "check"];
    all.extend_from_slice(args);
    let mut cmd = pi.command(&all);
    cmd.envs(env.iter().copied());
    let out = cmd.output().unwrap();
    (out.status.code(), stdout(&out), stderr(&out))
}

#[test]
fn check_speaks_pi_16s_flags_json_and_exit_codes() {
    let pi = PiEnv::empty();
    let none: &[(&str, &str)] = &[];
    let (code, out, _) = check16(&pi, none, &["--provider", "anthropic", "--json"]);
    assert_eq!(
        (code, out.as_str()),
        (
            Some(1),
            "{\"status\":\"not_ready\",\"provider\":\"anthropic\",\"reason\":\"credentials_not_configured\"}\n"
        )
    );
    let (code, out, _) = check16(&pi, none, &["--provider", "anthropic"]);
    assert_eq!((code, out.as_str()), (Some(1), "not_ready\n"));
    let (code, out, _) = check16(&pi, none, &["--provider", "nosuch", "--json"]);
    assert_eq!(code, Some(1));
    assert!(out.contains("\"reason\":\"provider_not_found\""), "{out}");

    // An environment key; --credentials prints it, alone or in the JSON.
    let key = [("ANTHROPIC_API_KEY", "sk-env")];
    let (code, out, _) = check16(&pi, &key, &["--provider", "anthropic", "--json"]);
    assert_eq!(
        (code, out.as_str()),
        (
            Some(0),
            "{\"status\":\"ready\",\"provider\":\"anthropic\",\"authType\":\"api_key\"}\n"
        )
    );
    let (code, out, _) = check16(&pi, &key, &["--provider", "anthropic", "--credentials"]);
    assert_eq!((code, out.as_str()), (Some(0), "sk-env\n"));
    let args = ["--provider", "anthropic", "--json", "--credentials"];
    let (_, out, _) = check16(&pi, &key, &args);
    let json: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["credentials"], "sk-env");

    // Stored credentials; the last --provider counts.
    let auth = json!({
        "groq": {"type": "api_key", "key": "gsk"},
        "mistral": {"type": "api_key", "key": "!false"},
        "anthropic": {"type": "oauth", "access": "old-token", "refresh": "r", "expires": 1}
    });
    pi.write_agent_file("auth.json", &auth.to_string());
    let (code, out, _) = check16(&pi, none, &["--provider", "x", "--provider", "groq"]);
    assert_eq!((code, out.as_str()), (Some(0), "ready\n"));
    // A key command printing nothing: not ready, unless --no-refresh only looks at the file.
    let (code, out, _) = check16(&pi, none, &["--provider", "mistral"]);
    assert_eq!((code, out.as_str()), (Some(1), "not_ready\n"));
    let (code, out, _) = check16(&pi, none, &["--provider", "mistral", "--no-refresh"]);
    assert_eq!((code, out.as_str()), (Some(0), "ready\n"));
    // An expired login: as stored with --no-refresh.
    let args = [
        "--provider",
        "anthropic",
        "--json",
        "--no-refresh",
        "--credentials",
    ];
    let (code, out, _) = check16(&pi, none, &args);
    assert_eq!(code, Some(0), "{out}");
    let json: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["authType"], "oauth");
    assert_eq!(json["credentials"], "old-token");

    // A broken auth.json is invalid (exit 2); the older positional form still reports.
    pi.write_agent_file("auth.json", "not json");
    let (code, out, _) = check16(&pi, none, &["--provider", "groq", "--json"]);
    assert_eq!(code, Some(2));
    assert!(out.contains("\"reason\":\"invalid_state\""), "{out}");
    pi.write_agent_file("auth.json", &auth.to_string());
    let (code, out, _) = check16(&pi, none, &["groq"]);
    assert_eq!(code, Some(0));
    assert!(out.starts_with("groq: ready"), "{out}");

    // Usage: no provider exits 2 as pi 1.6 does; a malformed command exits 1.
    let (code, _, err) = check16(&pi, none, &["--json"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("Auth checks require --provider <provider> or --model <model>"),
        "{err}"
    );
    let (code, _, _) = check16(&pi, none, &["--provider", "groq", "--frob"]);
    assert_eq!(code, Some(1));
    let (code, _, _) = check16(&pi, none, &["groq", "--credentials"]);
    assert_eq!(code, Some(1));
}

/// Without --no-refresh an expired login is refreshed first, as a request would.
#[test]
fn check_refreshes_an_expired_login_unless_told_not_to() {
    let pi = PiEnv::empty();
    let oauth = MockOAuth::start();
    store_anthropic(&pi, -60);
    let run = |extra: &[&str]| {
        let mut args = vec!["auth", "check", "--provider", "anthropic", "--credentials"];
        args.extend_from_slice(extra);
        let mut cmd = pi.command(&args);
        with_oauth(&mut cmd, &oauth).output().unwrap()
    };
    let out = run(&["--no-refresh"]);
    assert_eq!(stdout(&out), "sk-ant-oat01-old\n", "{}", stderr(&out));
    assert!(oauth.refresh_requests().is_empty());
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "sk-ant-oat01-refreshed-1\n");
    assert_eq!(
        auth_json(&pi)["anthropic"]["access"],
        "sk-ant-oat01-refreshed-1"
    );
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
