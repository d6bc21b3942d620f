//! Servers that cannot be used: reported `Failed` with a reason, quickly, never blocking.

use crate::support::*;
use pi_mcp::{ServerState, TransportSpec};
use std::time::{Duration, Instant};

/// A stdio server answering `initialize` with a protocol version pi 1.6 does not accept.
const OLD_SERVER: &str = r#"require("readline").createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  if (message.method === "initialize") console.log(JSON.stringify({ jsonrpc: "2.0", id: message.id,
    result: { protocolVersion: "2023-01-01", capabilities: {}, serverInfo: { name: "old", version: "0" } } }));
});"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn servers_that_cannot_start_or_connect_fail_quickly() {
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let manager = start(
        vec![
            spec(
                "missing",
                stdio("/nonexistent/mcp-server", &[], &[]),
                Duration::from_secs(30),
            ),
            spec(
                "exits",
                stdio("node", &["-e", "process.exit(3)"], &[]),
                Duration::from_secs(30),
            ),
            spec(
                "old",
                stdio("node", &["-e", OLD_SERVER], &[]),
                Duration::from_secs(30),
            ),
            spec(
                "refused",
                TransportSpec::Http {
                    url: format!("http://127.0.0.1:{}/mcp", free_port()),
                    headers: Vec::new(),
                },
                Duration::from_secs(30),
            ),
        ],
        dir.path(),
    );
    // `start` returns at once, with every server connecting.
    assert!(started.elapsed() < Duration::from_millis(200));
    assert!(
        manager
            .servers()
            .iter()
            .all(|s| s.state == ServerState::Connecting)
    );
    let ServerState::Failed(missing) = settled(&manager, "missing").await else {
        panic!("missing: failed")
    };
    assert!(
        missing.contains("cannot start /nonexistent/mcp-server"),
        "{missing}"
    );
    let ServerState::Failed(exits) = settled(&manager, "exits").await else {
        panic!("exits: failed")
    };
    assert!(
        exits.contains("exited") || exits.contains("initialize"),
        "{exits}"
    );
    let ServerState::Failed(old) = settled(&manager, "old").await else {
        panic!("old: failed")
    };
    assert_eq!(
        old,
        "MCP server selected unsupported protocol version 2023-01-01"
    );
    let ServerState::Failed(refused) = settled(&manager, "refused").await else {
        panic!("refused: failed")
    };
    assert!(refused.contains("cannot connect"), "{refused}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert!(manager.tools().is_empty());
    assert!(manager.resource_tools().is_empty());
    let log = std::fs::read_to_string(dir.path().join("mcp.log")).unwrap();
    assert!(log.contains("[missing] failed: cannot start"), "{log}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_server_answering_401_needs_auth() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let mut buffer = vec![0u8; 65536];
            let _ = socket.read(&mut buffer).await;
            let _ = socket
                .write_all(b"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
                .await;
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let transport = TransportSpec::Http {
        url: format!("http://127.0.0.1:{port}/mcp"),
        headers: Vec::new(),
    };
    let manager = start(
        vec![spec("locked", transport, Duration::from_secs(10))],
        dir.path(),
    );
    assert_eq!(settled(&manager, "locked").await, ServerState::NeedsAuth);
    assert_eq!(ServerState::NeedsAuth.as_str(), "needs-auth");
}
