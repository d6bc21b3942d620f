//! What MCP servers cost a run that does not wait for them: three stdio servers configured
//! with pi 1.6's default exposure (their tools found through `tool_search`), one of them slow
//! to answer `initialize` (3 s), against none, runs interleaved:
//! - launch to the interactive UI's first frame ready for input (in a pseudo-terminal);
//! - print mode, spawn to the first request the mock LLM receives, and to the exit (which
//!   stops the servers: stdin closed, then SIGTERM to their process groups).
//!
//! `cargo bench -p pi-cli --bench mcp`. Goal: the first frame and the first request unchanged
//! within noise. The servers are `tests/mcp/configurable-server.mjs` on the TypeScript SDK in
//! `target/mcp-tools` (installed by `.ci/run`). `PI_BENCH_RUNS` sets the runs (default 20).

// A measuring program: failing loudly on a broken setup is what we want.
#![allow(clippy::unwrap_used, clippy::expect_used)]

// The launch measure only: the RSS helpers stay unused here.
#[path = "support/pty.rs"]
#[allow(dead_code)]
mod pty;
mod support;

use pi_mock_llm::{MockLlm, Turn};
use pty::Session;
use serde_json::json;
use std::path::Path;
use std::time::{Duration, Instant};
use support::Dirs;

const PI: &str = env!("CARGO_BIN_EXE_pi");
const READY: &str = "0%";

/// Three servers, the third slow to start.
fn configure(dirs: &Dirs) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let script = root.join("tests/mcp/configurable-server.mjs");
    let modules = root.join("../../target/mcp-tools/node_modules");
    assert!(
        modules.exists(),
        "run .ci/run (or npm install into target/mcp-tools) first"
    );
    let server = |delay: u32| {
        json!({"command": "node", "args": [script],
               "env": {"MCP_NODE_MODULES": modules, "START_DELAY_MS": delay.to_string()}})
    };
    let config = json!({"mcpServers": {"one": server(0), "two": server(0), "slow": server(3000)}});
    std::fs::write(dirs.agent.join("mcp.json"), config.to_string()).unwrap();
}

/// Launch to the first frame.
fn first_frame(dirs: &Dirs) -> Duration {
    let started = Instant::now();
    let mut session = Session::start(PI, dirs, &["--model", "mock/mock-model"]);
    session.wait_for(READY);
    let elapsed = started.elapsed();
    session.exit();
    elapsed
}

/// Spawn to the first request, and to the exit, of a one-turn print run.
fn print_run(dirs: &Dirs, mock: &MockLlm) -> (Duration, Duration) {
    mock.push(Turn::text("ok"));
    let before = mock.requests().len();
    let mut cmd = std::process::Command::new(PI);
    dirs.apply(&mut cmd)
        .args(["--model", "mock/mock-model", "-p", "hi"]);
    let started = Instant::now();
    let mut child = cmd.spawn().unwrap();
    let mut first = None;
    loop {
        if first.is_none() && mock.requests().len() > before {
            first = Some(started.elapsed());
        }
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success());
            break;
        }
        std::thread::sleep(Duration::from_micros(500));
    }
    let exit = started.elapsed();
    (first.unwrap_or(exit), exit)
}

fn main() {
    let runs = support::runs(20);
    let mock = MockLlm::start();
    let plain = Dirs::new(&mock);
    let servers = Dirs::new(&mock);
    configure(&servers);
    let (mut frames, mut firsts, mut exits) =
        ([vec![], vec![]], [vec![], vec![]], [vec![], vec![]]);
    for round in 0..runs + 2 {
        for (i, dirs) in [&plain, &servers].into_iter().enumerate() {
            let frame = first_frame(dirs);
            let (first, exit) = print_run(dirs, &mock);
            if round >= 2 {
                frames[i].push(frame);
                firsts[i].push(first);
                exits[i].push(exit);
            }
        }
    }
    println!(
        "| measure ({runs} runs, interleaved, medians) | no servers | 3 servers, 1 slow | ratio |"
    );
    println!("|---|---|---|---|");
    for (name, [none, three]) in [
        ("launch to the first frame", frames),
        ("print mode: spawn to the first request", firsts),
        ("print mode: spawn to the exit", exits),
    ] {
        let (none, three) = (support::median_ms(none), support::median_ms(three));
        println!(
            "| {name} | {none:.1} ms | {three:.1} ms | {:.2}× |",
            three / none
        );
    }
    assert_eq!(mock.pending(), 0, "every scripted reply was used");
}
