//! `httpProxy` and the proxy environment variables: provider requests (and OAuth refreshes) go
//! through a real HTTP proxy on loopback (absolute-form requests, as a client sends plain-HTTP
//! requests to a proxy), which forwards them to the mock servers and records each one.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::cli_support::*;
use pi_mock_llm::{Api, Turn};
use serde_json::json;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A forwarding proxy on its own runtime; `requests` are the request lines it was sent.
struct Proxy {
    url: String,
    seen: Arc<Mutex<Vec<String>>>,
    _runtime: tokio::runtime::Runtime,
}

impl Proxy {
    fn start() -> Proxy {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let listener = runtime.block_on(TcpListener::bind("127.0.0.1:0")).unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        runtime.spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                tokio::spawn(forward(client, Arc::clone(&log)));
            }
        });
        Proxy {
            url,
            seen,
            _runtime: runtime,
        }
    }

    fn requests(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }
}

/// Reads the request head, sends it on to the origin in origin form, then relays both ways.
async fn forward(mut client: TcpStream, log: Arc<Mutex<Vec<String>>>) {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if client.read(&mut byte).await.unwrap_or(0) == 0 {
            return;
        }
        head.push(byte[0]);
    }
    let head = String::from_utf8(head).unwrap();
    let (line, rest) = head.split_once("\r\n").unwrap();
    log.lock().unwrap().push(line.to_owned());
    let mut parts = line.split(' ');
    let (method, target, version) = (
        parts.next().unwrap(),
        parts.next().unwrap(),
        parts.next().unwrap(),
    );
    let Some(after_scheme) = target.strip_prefix("http://") else {
        let _ = client
            .write_all(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n")
            .await;
        return;
    };
    let (authority, path) = match after_scheme.find('/') {
        Some(at) => after_scheme.split_at(at),
        None => (after_scheme, "/"),
    };
    let mut origin = TcpStream::connect(authority).await.unwrap();
    origin
        .write_all(format!("{method} {path} {version}\r\n{rest}").as_bytes())
        .await
        .unwrap();
    let _ = tokio::io::copy_bidirectional(&mut client, &mut origin).await;
}

/// The request lines that reached the proxy for the mock.
fn to_the_mock(proxy: &Proxy, pi: &PiEnv) -> Vec<String> {
    let origin = format!("POST http://127.0.0.1:{}/", pi.mock.port());
    proxy
        .requests()
        .into_iter()
        .filter(|line| line.starts_with(&origin))
        .collect()
}

#[test]
fn http_proxy_setting_sends_provider_requests_through_the_proxy() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let proxy = Proxy::start();
    pi.settings(json!({"httpProxy": proxy.url}));
    // As in pi, the setting is HTTP_PROXY and HTTPS_PROXY for the commands pi runs, too.
    let command = "echo \"[$HTTP_PROXY|$HTTPS_PROXY]\"";
    pi.mock
        .push(Turn::new().tool_call("c1", "bash", json!({"command": command})));
    pi.mock.push(Turn::text("through the proxy"));
    let out = pi.run(&["-p", "hello"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "through the proxy\n");
    assert_eq!(to_the_mock(&proxy, &pi).len(), 2, "{:?}", proxy.requests());
    let requests = pi.mock.requests();
    assert_eq!(requests.len(), 2);
    let sent = requests[1].body["messages"].to_string();
    assert!(sent.contains(&format!("[{0}|{0}]", proxy.url)), "{sent}");
}

#[test]
fn proxy_environment_variables_are_honoured_and_no_proxy_bypasses_them() {
    let pi = PiEnv::new(Api::AnthropicMessages);
    let proxy = Proxy::start();
    pi.mock.push(Turn::text("via HTTP_PROXY"));
    let out = pi
        .command(&["-p", "hello"])
        .env("HTTP_PROXY", &proxy.url)
        .output()
        .unwrap();
    assert_eq!(stdout(&out), "via HTTP_PROXY\n", "{}", stderr(&out));
    assert_eq!(to_the_mock(&proxy, &pi).len(), 1, "{:?}", proxy.requests());

    // NO_PROXY names the mock's host: the request goes straight to it, also with the setting.
    pi.settings(json!({"httpProxy": proxy.url}));
    pi.mock.push(Turn::text("direct"));
    let out = pi
        .command(&["-p", "hello"])
        .env("NO_PROXY", "127.0.0.1")
        .output()
        .unwrap();
    assert_eq!(stdout(&out), "direct\n", "{}", stderr(&out));
    assert_eq!(to_the_mock(&proxy, &pi).len(), 1, "{:?}", proxy.requests());
    assert_eq!(pi.mock.requests().len(), 2);
}

#[test]
fn a_bad_http_proxy_is_a_clear_error_and_exit_1() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.settings(json!({"httpProxy": "socks5://127.0.0.1:1080"}));
    let out = pi.run(&["-p", "hello"]);
    assert_eq!(out.status.code(), Some(1));
    let settings = pi.agent_dir().join("settings.json");
    assert!(
        stderr(&out).contains(&format!(
            "httpProxy \"socks5://127.0.0.1:1080\" is not a usable proxy URL: the scheme must be \
             http or https, not socks5 (in {})",
            settings.display()
        )),
        "{}",
        stderr(&out)
    );
    assert!(pi.mock.requests().is_empty());

    // A well-formed proxy that is not there: the request fails, naming the proxy.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    pi.settings(json!({"httpProxy": url, "retry": {"enabled": false}}));
    let out = pi.run(&["-p", "hello"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(&format!(
            "(through the proxy {url}/ of the setting httpProxy)"
        )),
        "{}",
        stderr(&out)
    );
    assert!(pi.mock.requests().is_empty());
}

#[test]
fn oauth_refreshes_go_through_the_proxy_too() {
    use super::cli_auth::{store_anthropic, with_oauth};
    let pi = PiEnv::empty();
    let proxy = Proxy::start();
    let oauth = pi_mock_llm::oauth::MockOAuth::start();
    pi.settings(json!({"httpProxy": proxy.url}));
    store_anthropic(&pi, 1);
    let mut cmd = pi.command(&["auth", "print-bearer-token", "--provider", "anthropic"]);
    let out = with_oauth(&mut cmd, &oauth).output().unwrap();
    assert_eq!(
        stdout(&out),
        "sk-ant-oat01-refreshed-1\n",
        "{}",
        stderr(&out)
    );
    assert_eq!(oauth.refresh_requests().len(), 1);
    let origin = format!("POST {}", oauth.base_url().trim_end_matches('/'));
    assert!(
        proxy
            .requests()
            .iter()
            .any(|line| line.starts_with(&origin)),
        "{origin}: {:?}",
        proxy.requests()
    );
}
