//! Live control of a running server (what `/mcp` does): the diff of changed definitions,
//! exposure, disabling (the process stops, the tools go), enabling again, reconnecting, and a
//! server added after start — against the tests' own SDK server (`tests/servers/pins-server.cjs`).

use crate::support::*;
use pi_mcp::{Exposure, ServerSpec, ServerState};
use std::path::Path;
use std::time::{Duration, Instant};

fn pins_server(name: &str, description: &str, marker: &str) -> ServerSpec {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/servers/pins-server.cjs");
    let node_path = node_modules().display().to_string();
    spec(
        name,
        stdio(
            "node",
            &[&script.display().to_string(), marker],
            &[
                ("NODE_PATH", node_path.as_str()),
                ("PIN_TOOL_DESCRIPTION", description),
            ],
        ),
        Duration::from_secs(10),
    )
}

/// Waits (at most 10 s) until `check` holds.
async fn eventually(what: &str, check: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !check() {
        assert!(Instant::now() < deadline, "{what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changed_definitions_show_both_sides() {
    let dir = tempfile::tempdir().unwrap();
    let marker = marker("diff");
    let first = start(vec![pins_server("pins", "Describes.", &marker)], dir.path());
    connected(&first, "pins").await;
    assert!(first.changed_definitions("pins").unwrap().is_empty());
    first.shutdown().await;

    let second = start(
        vec![pins_server("pins", "Exfiltrates.", &marker)],
        dir.path(),
    );
    connected(&second, "pins").await;
    let changed = second.changed_definitions("pins").unwrap();
    assert_eq!(changed.len(), 1, "{changed:?}");
    assert_eq!(changed[0].tool, "describe");
    let pinned = changed[0].pinned.as_ref().expect("the pinned side is kept");
    assert_eq!(pinned["description"], "Describes.");
    assert_eq!(changed[0].current["description"], "Exfiltrates.");
    assert!(changed[0].current["inputSchema"]["properties"]["what"].is_object());
    second.trust("pins").unwrap();
    assert!(second.changed_definitions("pins").unwrap().is_empty());
    assert!(second.changed_definitions("nope").is_err());
    second.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exposure_enable_disable_and_reconnect_apply_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let marker = marker("control");
    let manager = start(vec![pins_server("pins", "Describes.", &marker)], dir.path());
    connected(&manager, "pins").await;
    assert_eq!(
        tool(&manager, "mcp__pins__describe").exposure(),
        Exposure::Direct
    );

    manager.set_exposure("pins", Exposure::Hidden).unwrap();
    assert_eq!(
        tool(&manager, "mcp__pins__describe").exposure(),
        Exposure::Hidden
    );
    assert_eq!(manager.spec("pins").unwrap().exposure, Exposure::Hidden);

    assert_eq!(manager.set_enabled("pins", false), Ok(true));
    assert_eq!(manager.servers()[0].state, ServerState::Disabled);
    assert!(manager.tools().is_empty());
    eventually("the disabled server's process stops", || {
        processes_with(&marker).is_empty()
    })
    .await;
    assert!(manager.reconnect("pins").is_err(), "a disabled server");
    assert_eq!(manager.set_enabled("pins", false), Ok(false));

    assert_eq!(manager.set_enabled("pins", true), Ok(true));
    connected(&manager, "pins").await;
    // The exposure set before stays.
    assert_eq!(
        tool(&manager, "mcp__pins__describe").exposure(),
        Exposure::Hidden
    );
    let before = processes_with(&marker);
    assert_eq!(before.len(), 1, "{before:?}");

    manager.reconnect("pins").unwrap();
    connected(&manager, "pins").await;
    eventually("reconnecting starts a new process", || {
        let now = processes_with(&marker);
        now.len() == 1 && now != before
    })
    .await;
    assert!(manager.reconnect("nope").is_err());

    // A server off at start is listed disabled, and starts when enabled.
    let later = crate::support::marker("later");
    manager.add(pins_server("later", "Later.", &later), false);
    assert_eq!(manager.servers()[1].state, ServerState::Disabled);
    manager.set_enabled("later", true).unwrap();
    connected(&manager, "later").await;
    assert!(manager.tools().iter().any(|t| t.server() == "later"));
    manager.shutdown().await;
    eventually("shutdown stops every process", || {
        processes_with(&marker).is_empty() && processes_with(&later).is_empty()
    })
    .await;
}
