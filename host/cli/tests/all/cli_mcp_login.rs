//! `pi mcp login` end to end through the binary against the loopback OAuth-protected MCP
//! server of `pi-mock-llm`: `list` shows `needs sign-in`, the login prints the authorization
//! URL (the test plays the browser, or pastes the redirect URL on stdin), the tokens land in
//! `mcp-auth.json` (0600, keyed by server and URL), and `logout` removes them.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::cli_support::*;
use super::pi_ref;
use pi_mock_llm::mcp_oauth::MockMcpOAuth;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};

fn configured(mock: &MockMcpOAuth) -> PiEnv {
    let pi = PiEnv::empty();
    pi.write_agent_file(
        "mcp.json",
        &json!({"mcpServers": {"docs": {"url": mock.mcp_url()}}}).to_string(),
    );
    pi
}

/// Reads the login's stdout up to the authorization URL; the lines read and the URL.
fn authorization_url(child: &mut Child) -> (Vec<String>, String) {
    let mut lines = Vec::new();
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    loop {
        let mut line = String::new();
        assert!(
            reader.read_line(&mut line).unwrap() > 0,
            "no URL in {lines:?}"
        );
        let line = line.trim_end().to_owned();
        lines.push(line.clone());
        if line.starts_with("http://") {
            // The rest of stdout, for the final message.
            std::thread::spawn(move || {
                let mut rest = String::new();
                let _ = reader.read_to_string(&mut rest);
                rest
            });
            return (lines, line);
        }
    }
}

fn stored(pi: &PiEnv) -> Value {
    let text = std::fs::read_to_string(pi.agent_dir().join("mcp-auth.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn login_through_the_loopback_callback_then_list_and_logout() {
    let mock = MockMcpOAuth::start();
    let pi = configured(&mock);
    let out = pi.run(&["mcp", "list"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("docs: needs sign-in (codemode, global)"),
        "{text}"
    );
    assert!(text.contains("  sign in with: pi mcp login docs"), "{text}");

    let mut child = pi.spawn(&["mcp", "login", "docs", "--timeout", "60"]);
    let (lines, url) = authorization_url(&mut child);
    assert_eq!(lines[0], r#"Sign in to MCP server "docs" in your browser:"#);
    assert!(
        url.starts_with(&format!("{}/authorize?", mock.base_url())),
        "{url}"
    );
    assert!(url.contains("code_challenge_method=S256"), "{url}");
    assert!(
        url.contains("redirect_uri=http%3A%2F%2F127.0.0.1%3A"),
        "{url}"
    );
    let (status, page) = pi_mock_llm::oauth::browse(&url).unwrap();
    assert_eq!(status, 200, "{page}");
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    let key = format!("mcp__docs|{}", mock.mcp_url());
    let state = stored(&pi);
    assert!(state[&key]["tokens"]["access_token"].is_string(), "{state}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let meta = std::fs::metadata(pi.agent_dir().join("mcp-auth.json")).unwrap();
        assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    }

    let out = pi.run(&["mcp", "login", "docs"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out).trim(),
        r#"Already signed in to MCP server "docs" (1 tools)."#
    );
    let out = pi.run(&["mcp", "list"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains("docs: connected, 1 tool (codemode, global)"));

    let out = pi.run(&["mcp", "logout", "docs"]);
    assert_eq!(stdout(&out).trim(), r#"Signed out of MCP server "docs"."#);
    assert!(stored(&pi).get(&key).is_none());
}

#[test]
fn login_takes_a_pasted_redirect_url_and_gives_up_after_the_timeout() {
    let mock = MockMcpOAuth::start();
    let pi = configured(&mock);
    let mut child = pi
        .command(&["mcp", "login", "docs"])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let (_, url) = authorization_url(&mut child);
    // The browser ran elsewhere: the user pastes where it was sent.
    let redirect = pi_mock_llm::oauth::authorize_redirect(&url).unwrap();
    writeln!(child.stdin.take().unwrap(), "{redirect}").unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stored(&pi)[format!("mcp__docs|{}", mock.mcp_url())]["tokens"].is_object());

    let other = MockMcpOAuth::start();
    let pi = configured(&other);
    let out = pi.run(&["mcp", "login", "docs", "--timeout", "1"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out).trim(),
        r#"Sign-in to MCP server "docs" was cancelled or not completed within 1 seconds."#
    );
    let out = pi.run(&["mcp", "login", "docs", "--timeout", "0"]);
    assert_eq!(
        stderr(&out).trim(),
        "--timeout must be a positive number of seconds."
    );
}

/// The reference pi 1.6 with the same home and agent dir, stdout piped.
fn reference(pi: &PiEnv, args: &[&str]) -> Command {
    let mut command = Command::new(pi_ref::dir().join("node_modules/.bin/pi"));
    command
        .args(args)
        .current_dir(pi.cwd())
        .env_clear()
        .env("PATH", pi_ref::path())
        .env("HOME", pi.root.path().join("home"))
        .env("PI_CODING_AGENT_DIR", pi.agent_dir())
        .env("PI_OFFLINE", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// pi 1.6 signs in; this build connects with the state it stored and signs out of it. (The
/// other way round, pi 1.6 finds the `mcp-auth.json.lock` file this build's lock leaves behind
/// and reports the lock as held: see the report of this change.)
#[test]
fn tokens_stored_by_the_reference_pi_are_used_and_removed() {
    let mock = MockMcpOAuth::start();
    let pi = configured(&mock);
    let mut child = reference(&pi, &["mcp", "login", "docs", "--timeout", "60"])
        .spawn()
        .unwrap();
    let (_, url) = authorization_url(&mut child);
    let (status, page) = pi_mock_llm::oauth::browse(&url).unwrap();
    assert_eq!(status, 200, "{page}");
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let key = format!("mcp__docs|{}", mock.mcp_url());
    assert!(stored(&pi)[&key]["tokens"]["access_token"].is_string());

    let out = pi.run(&["mcp", "list"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains("docs: connected, 1 tool"));
    let out = pi.run(&["mcp", "logout", "docs"]);
    assert_eq!(stdout(&out).trim(), r#"Signed out of MCP server "docs"."#);
    assert!(stored(&pi).get(&key).is_none());
}

#[test]
fn slash_mcp_login_in_a_session_shows_the_url_and_connects_after_the_callback() {
    use super::cli_rpc::{RpcClient, ok};
    let mock = MockMcpOAuth::start();
    let pi = PiEnv::new(pi_mock_llm::Api::OpenAiCompletions);
    pi.write_agent_file(
        "mcp.json",
        &json!({"mcpServers": {"docs": {"url": mock.mcp_url(), "exposure": "direct"}}}).to_string(),
    );
    let mut rpc = RpcClient::start_with(&pi, &["--model", "mock/mock-model"]);
    let notice = |line: &Value, start: &str| {
        line["type"] == "extension_ui_request"
            && line["method"] == "notify"
            && line["message"]
                .as_str()
                .is_some_and(|m| m.starts_with(start))
    };
    rpc.send_raw(&json!({"id": "l", "type": "prompt", "message": "/mcp login"}).to_string());
    let shown = rpc.wait_for("the sign-in URL", |l| {
        notice(l, r#"Sign in to MCP server "docs" in your browser:"#)
    });
    let url = shown["message"]
        .as_str()
        .and_then(|m| m.lines().nth(1))
        .unwrap()
        .to_owned();
    assert!(
        url.starts_with(&format!("{}/authorize?", mock.base_url())),
        "{url}"
    );
    let (status, page) = pi_mock_llm::oauth::browse(&url).unwrap();
    assert_eq!(status, 200, "{page}");
    rpc.wait_for("the outcome", |l| {
        notice(l, r#"Signed in to MCP server "docs"."#)
    });
    let response = rpc.wait_for("the prompt's answer", |l| l["id"] == "l");
    assert_eq!(ok(&response)["disposition"], "handled");
    // The server is connected now: its tool is offered to the model.
    pi.mock.push(pi_mock_llm::Turn::text("ok"));
    let response = rpc.call(json!({"id": "p", "type": "prompt", "message": "hi"}));
    ok(&response);
    rpc.wait_event("agent_end");
    let offered = super::cli_extensions::offered(&pi, 0);
    assert!(
        offered.iter().any(|t| t.starts_with("mcp__docs__")),
        "{offered:?}"
    );
}

#[test]
fn in_the_terminal_ui_mcp_login_opens_the_browser_and_connects_after_the_callback() {
    use super::cli_tui_support::Tmux;
    use std::os::unix::fs::PermissionsExt;
    let mock = MockMcpOAuth::start();
    let pi = PiEnv::new(pi_mock_llm::Api::OpenAiCompletions);
    pi.write_agent_file(
        "mcp.json",
        &json!({"mcpServers": {"docs": {"url": mock.mcp_url(), "exposure": "direct"}}}).to_string(),
    );
    // The browser: a script that writes down the URL it was opened on.
    let opened = pi.root.path().join("opened.txt");
    let browser = pi.root.path().join("browser.sh");
    std::fs::write(
        &browser,
        format!("#!/bin/sh\necho \"$1\" > '{}'\n", opened.display()),
    )
    .unwrap();
    std::fs::set_permissions(&browser, std::fs::Permissions::from_mode(0o755)).unwrap();
    let tmux = Tmux::spawn(
        &pi,
        &format!(
            "PI_OAUTH_BROWSER='{}' '{PI}' --model mock/mock-model; echo \"[pi exited $?]\"; sleep 600",
            browser.display()
        ),
    );
    tmux.wait_text("mock/mock-model");
    tmux.submit("/mcp login");
    tmux.wait_for("the browser opened", |_| opened.exists());
    let url = std::fs::read_to_string(&opened).unwrap().trim().to_owned();
    assert!(
        url.starts_with(&format!("{}/authorize?", mock.base_url())),
        "{url}"
    );
    let (status, page) = pi_mock_llm::oauth::browse(&url).unwrap();
    assert_eq!(status, 200, "{page}");
    tmux.wait_text(r#"Signed in to MCP server "docs"."#);
    tmux.exit();
}
