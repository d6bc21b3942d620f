//! OAuth against the loopback OAuth-protected MCP server of `pi-mock-llm`: the first connection
//! needs sign-in, the sign-in runs through the loopback callback (the test plays the browser),
//! expired tokens are refreshed once, a revoked refresh token makes the server `needs-auth`
//! again, and `auth {provider}` sends the provider's login token.

use crate::support::*;
use pi_ai::oauth::LoginUi;
use pi_mcp::credentials::{ServerCredentials, credentials_path};
use pi_mcp::oauth::{OAuthSettings, SignInOptions, sign_in};
use pi_mcp::{AuthSpec, ServerSpec, ServerState, TransportSpec};
use pi_mock_llm::mcp_oauth::MockMcpOAuth;
use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;

fn oauth_server(mock: &MockMcpOAuth) -> ServerSpec {
    let mut server = spec(
        "docs",
        TransportSpec::Http {
            url: mock.mcp_url(),
            headers: Vec::new(),
        },
        Duration::from_secs(10),
    );
    server.auth = AuthSpec::OAuth(json!({}));
    server
}

/// The browser: follows the authorization URL to pi's loopback callback.
struct Browser;

impl LoginUi for Browser {
    fn show_url(&self, url: &str) {
        let url = url.to_owned();
        std::thread::spawn(move || {
            let (status, body) = pi_mock_llm::oauth::browse(&url).unwrap();
            assert_eq!(status, 200, "{body}");
        });
    }
    fn show_device_code(&self, _: &str, _: &str) {}
    fn progress(&self, _: &str) {}
    fn read_line(&self) -> pi_agent::BoxFuture<'_, Option<String>> {
        Box::pin(async { None })
    }
}

async fn sign_in_to(mock: &MockMcpOAuth, dir: &Path) {
    let options = SignInOptions {
        server: "docs".into(),
        url: mock.mcp_url(),
        settings: OAuthSettings::default(),
        agent_dir: dir.to_owned(),
        timeout: Duration::from_secs(30),
    };
    sign_in(&options, &Browser).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn first_connection_needs_sign_in_then_the_loopback_sign_in_lists_the_tools() {
    let mock = MockMcpOAuth::start();
    let dir = tempfile::tempdir().unwrap();
    let before = start(vec![oauth_server(&mock)], dir.path());
    assert_eq!(settled(&before, "docs").await, ServerState::NeedsAuth);
    before.shutdown().await;

    sign_in_to(&mock, dir.path()).await;
    assert_eq!(mock.count("/register", None), 1);
    let file = credentials_path(dir.path());
    let stored: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let key = format!("mcp__docs|{}", mock.mcp_url());
    assert_eq!(
        stored.as_object().unwrap().keys().collect::<Vec<_>>(),
        [&key]
    );
    let state = &stored[&key];
    assert_eq!(state["serverUrl"], mock.mcp_url());
    assert!(
        state["tokens"]["access_token"]
            .as_str()
            .unwrap()
            .starts_with("access-")
    );
    assert!(state["tokens"]["refresh_token"].is_string());
    assert_eq!(state["clientInformation"]["client_id"], "client-1");
    assert!(state.get("codeVerifier").is_none());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    let after = start(vec![oauth_server(&mock)], dir.path());
    connected(&after, "docs").await;
    let whoami = tool(&after, "mcp__docs__whoami");
    let output = call(whoami.as_ref(), json!({})).await.unwrap();
    assert_eq!(text_of(&output), "signed in");
    after.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expired_tokens_are_refreshed_once_and_the_call_works() {
    let mock = MockMcpOAuth::start();
    let dir = tempfile::tempdir().unwrap();
    sign_in_to(&mock, dir.path()).await;
    let manager = start(vec![oauth_server(&mock)], dir.path());
    connected(&manager, "docs").await;
    assert_eq!(mock.count("/token", Some("refresh_token")), 0);

    // The server forgets the token: the call's 401 refreshes it, once.
    mock.expire_access_tokens();
    let whoami = tool(&manager, "mcp__docs__whoami");
    let output = call(whoami.as_ref(), json!({})).await.unwrap();
    assert_eq!(text_of(&output), "signed in");
    assert_eq!(mock.count("/token", Some("refresh_token")), 1);

    // The stored token is past its expiry: refreshed before the request, without a 401.
    let store = ServerCredentials::new(dir.path(), "docs", &mock.mcp_url());
    store
        .update(|state| state.tokens_expire_at = Some(pi_ai::now_ms() - 1000))
        .unwrap();
    let sent_before = mock.mcp_tokens().len();
    let output = call(whoami.as_ref(), json!({})).await.unwrap();
    assert_eq!(text_of(&output), "signed in");
    assert_eq!(mock.count("/token", Some("refresh_token")), 2);
    let fresh = store.load().unwrap().tokens.unwrap().access_token;
    assert_eq!(mock.mcp_tokens()[sent_before..], [fresh]);
    manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revoked_refresh_token_makes_the_server_need_sign_in() {
    let mock = MockMcpOAuth::start();
    let dir = tempfile::tempdir().unwrap();
    sign_in_to(&mock, dir.path()).await;
    mock.expire_access_tokens();
    mock.revoke_refresh_tokens();
    let manager = start(vec![oauth_server(&mock)], dir.path());
    assert_eq!(settled(&manager, "docs").await, ServerState::NeedsAuth);
    assert_eq!(mock.count("/token", Some("refresh_token")), 1);
    let store = ServerCredentials::new(dir.path(), "docs", &mock.mcp_url());
    let state = store.load().unwrap();
    assert!(state.tokens.is_none(), "the refused grant is forgotten");
    assert!(
        state.client_information.is_some(),
        "the client stays registered"
    );
    manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auth_provider_sends_the_providers_login_token() {
    let mock = MockMcpOAuth::start();
    let dir = tempfile::tempdir().unwrap();
    let far = pi_ai::now_ms() + 3_600_000;
    std::fs::write(
        dir.path().join("auth.json"),
        json!({"anthropic": {"type": "oauth", "access": "sk-ant-oat01-login",
                             "refresh": "r", "expires": far}})
        .to_string(),
    )
    .unwrap();
    mock.accept_token("sk-ant-oat01-login");
    let mut server = oauth_server(&mock);
    server.auth = AuthSpec::Provider("anthropic".into());
    let manager = start(vec![server], dir.path());
    connected(&manager, "docs").await;
    let tokens = mock.mcp_tokens();
    assert!(!tokens.is_empty());
    assert!(
        tokens.iter().all(|t| t == "sk-ant-oat01-login"),
        "{tokens:?}"
    );
    assert!(!credentials_path(dir.path()).exists(), "MCP keeps no copy");
    manager.shutdown().await;
}
