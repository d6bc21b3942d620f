//! pi 1.6's own RPC client (`RpcClient` from the reference package) drives our `pi --mode rpc`
//! through a whole session against the mock LLM: `tests/rpc-client/session.mjs` runs the
//! client's methods and checks pi 1.6's response and event fields; this test scripts the
//! model's replies and runs it. Its stdout is a short transcript (commands, event kinds).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::cli_support::*;
use super::pi_ref;
use pi_mock_llm::{Api, Reply, Turn};
use serde_json::json;
use std::path::Path;
use std::process::Command;

#[test]
fn pi_1_6_rpc_client_runs_a_whole_session() {
    let pi = PiEnv::new(Api::AnthropicMessages);
    // A small session must still have something to compact.
    pi.settings(json!({"compaction": {"keepRecentTokens": 1}}));
    let usage = |t: Turn| t.usage(120, 12, 0, 0);
    pi.mock.push_all([
        // 1. a tool call, then the answer
        Reply::turn(usage(Turn::new().tool_call(
            "call_1",
            "bash",
            json!({"command": "echo hi"}),
        ))),
        Reply::turn(usage(Turn::text("The tool said hi."))),
        // 2. a slow tool while the client steers and queues a follow-up
        Reply::turn(usage(Turn::new().tool_call(
            "call_2",
            "bash",
            json!({"command": "sleep 1"}),
        ))),
        Reply::turn(usage(Turn::text("Steered."))),
        Reply::turn(usage(Turn::text("Followed up."))),
        // 3. a request that hangs until the client aborts
        Reply::hang_after_headers(Turn::text("never"), 1),
        // 4. the compaction's summary, then a reply measured after it
        Reply::turn(usage(Turn::text("Summary of the session so far."))),
        Reply::turn(usage(Turn::text("Fresh context."))),
    ]);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/rpc-client");
    let out = Command::new(pi_ref::dir().join("node_modules/.bin/node"))
        .arg(dir.join("session.mjs"))
        .current_dir(pi.cwd())
        .env_clear()
        .env("PATH", pi_ref::path())
        .env("HOME", pi.root.path().join("home"))
        .env("PI_CODING_AGENT_DIR", pi.agent_dir())
        .env(pi_app::local_servers::PORTS_ENV, "")
        .env("PI_BIN", PI)
        .env("PI_CWD", pi.cwd())
        .env(
            "PI_RPC_CLIENT",
            pi_ref::dist().join("modes/rpc/rpc-client.js"),
        )
        .output()
        .unwrap();
    let transcript = stdout(&out);
    println!("{transcript}");
    assert!(
        out.status.success(),
        "pi 1.6's client failed:\n{transcript}\n{}",
        stderr(&out)
    );
    assert!(transcript.contains("all checks passed"), "{transcript}");
}
