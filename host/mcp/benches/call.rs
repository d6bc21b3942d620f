//! An MCP tool call's overhead over the server's own time: server-everything's `echo` called
//! 200 times through pi-mcp, against the same request written as a raw JSON-RPC line over a
//! pipe to another instance of the server (median of each, printed).
//!
//! `cargo bench -p pi-mcp --bench call`; goal: overhead ≤ 2 ms. Needs `target/mcp-tools`
//! (`.ci/run` installs it).

// A measuring program: failing loudly on a broken setup is what we want.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../tests/all/support.rs"]
#[allow(dead_code)]
mod support;

use serde_json::json;
use std::time::{Duration, Instant};
use support::*;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const CALLS: usize = 200;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// Median round trip of `tools/call echo` written by hand over the server's stdio.
async fn raw_round_trip() -> Duration {
    let mut child = tokio::process::Command::new("node")
        .arg(everything_script())
        .arg("stdio")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut send = async |message: serde_json::Value| {
        stdin
            .write_all(format!("{message}\n").as_bytes())
            .await
            .unwrap();
    };
    send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}))
    .await;
    let _ = lines.next_line().await.unwrap();
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    let mut samples = Vec::with_capacity(CALLS);
    for id in 1..=CALLS {
        let started = Instant::now();
        send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"message": "bench"}}}))
        .await;
        // Skip notifications (list_changed, logging) until the answer.
        loop {
            let line = lines.next_line().await.unwrap().unwrap();
            let message: serde_json::Value = serde_json::from_str(&line).unwrap();
            if message["id"] == json!(id) {
                break;
            }
        }
        samples.push(started.elapsed());
    }
    median(samples)
}

fn main() {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
        .block_on(overhead());
}

async fn overhead() {
    let dir = tempfile::tempdir().unwrap();
    let manager = start(vec![everything_stdio(Duration::from_secs(30))], dir.path());
    connected(&manager, "everything").await;
    let echo = tool(&manager, "mcp__everything__echo");
    let mut samples = Vec::with_capacity(CALLS);
    for _ in 0..CALLS {
        let started = Instant::now();
        let output = call(echo.as_ref(), json!({"message": "bench"}))
            .await
            .unwrap();
        samples.push(started.elapsed());
        assert_eq!(text_of(&output), "Echo: bench");
    }
    let through_pi = median(samples);
    manager.shutdown().await;
    let raw = raw_round_trip().await;
    let overhead = through_pi.saturating_sub(raw);
    println!(
        "MCP echo, median of {CALLS}: through pi-mcp {through_pi:?}, raw JSON-RPC {raw:?}, \
         overhead {overhead:?} (goal ≤ 2 ms)"
    );
}
