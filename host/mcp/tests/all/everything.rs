//! server-everything, the reference MCP server, over stdio and over streamable HTTP: the same
//! checks on both transports.

use crate::support::*;
use pi_agent::AgentTool;
use pi_ai::UserBlock;
use pi_mcp::{McpManager, PinState, ServerState, TransportSpec};
use serde_json::json;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// The tool timeout of these servers: shorter than the long-running calls below, which only
/// finish because each progress notification restarts it.
const TIMEOUT: Duration = Duration::from_millis(1500);

async fn tools_are_named_as_pi_names_them(manager: &McpManager) {
    let names: Vec<String> = manager
        .tools()
        .iter()
        .map(|t| t.name().to_owned())
        .collect();
    for expected in [
        "mcp__everything__echo",
        "mcp__everything__get_tiny_image",
        "mcp__everything__trigger_long_running_operation",
        "mcp__everything__get_structured_content",
    ] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} in {names:?}"
        );
    }
    let echo = tool(manager, "mcp__everything__echo");
    assert_eq!(echo.server(), "everything");
    assert_eq!(echo.remote_name(), "echo");
    assert_eq!(echo.pin(), PinState::Pinned);
    assert_eq!(echo.annotations().read_only_hint, Some(true));
    assert_eq!(echo.annotations().destructive_hint, Some(false));
    assert_eq!(echo.annotations().idempotent_hint, Some(true));
    assert_eq!(echo.annotations().open_world_hint, Some(false));
    assert!(echo.parameters().value()["properties"]["message"].is_object());
    let status = &manager.servers()[0];
    assert!(status.tools >= 10, "{status:?}");
    assert!(status.resources);
    assert!(status.changed_tools.is_empty());
}

async fn calls_return_text_images_and_structured_content(manager: &McpManager) {
    let echo = tool(manager, "mcp__everything__echo");
    let output = call(echo.as_ref(), json!({"message": "hello"}))
        .await
        .unwrap();
    assert_eq!(text_of(&output), "Echo: hello");
    assert_eq!(
        output.details,
        json!({"server": "everything", "tool": "echo"})
    );

    let image = tool(manager, "mcp__everything__get_tiny_image");
    let output = call(image.as_ref(), json!({})).await.unwrap();
    let UserBlock::Image(picture) = &output.content[1] else {
        panic!("an image block: {:?}", output.content)
    };
    assert_eq!(picture.mime_type, "image/png");
    assert!(picture.data.len() > 100);

    let structured = tool(manager, "mcp__everything__get_structured_content");
    let output = call(structured.as_ref(), json!({"location": "New York"}))
        .await
        .unwrap();
    let kept = output.structured_content.expect("the result kept");
    assert!(kept["structuredContent"].is_object(), "{kept}");
}

async fn a_tool_error_is_an_error_result(manager: &McpManager) {
    let echo = tool(manager, "mcp__everything__echo");
    let error = call(echo.as_ref(), json!({"message": 42}))
        .await
        .unwrap_err();
    assert!(!error.message.is_empty());
    let kept = error.structured_content.expect("the result kept");
    assert_eq!(kept["isError"], true);
}

async fn progress_restarts_the_timeout(manager: &McpManager) {
    let long = tool(manager, "mcp__everything__trigger_long_running_operation");
    let (update, seen) = recorded_updates();
    let started = Instant::now();
    // 3 s in 6 steps: a progress notification every 0.5 s, the timeout 1.5 s.
    let output = long
        .execute(
            "c",
            json!({"duration": 3, "steps": 6}),
            CancellationToken::new(),
            update,
        )
        .await
        .unwrap();
    assert!(started.elapsed() >= Duration::from_secs(3));
    assert!(
        text_of(&output).contains("Long running operation completed"),
        "{}",
        text_of(&output)
    );
    let seen = seen.lock().unwrap().clone();
    assert!(seen.len() >= 5, "{seen:?}");
    assert_eq!(seen[0], "Progress 1/6");
    // Without progress in between, the same timeout ends the call.
    let error = call(long.as_ref(), json!({"duration": 3, "steps": 1}))
        .await
        .unwrap_err();
    assert!(
        error.message.contains("timed out after 1500 ms"),
        "{}",
        error.message
    );
}

async fn a_cancelled_call_returns_at_once(manager: &McpManager) {
    let long = tool(manager, "mcp__everything__trigger_long_running_operation");
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        trigger.cancel();
    });
    let started = Instant::now();
    let error = long
        .execute(
            "c",
            json!({"duration": 20, "steps": 40}),
            cancel,
            no_updates(),
        )
        .await
        .unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    assert!(error.message.contains("cancelled"), "{}", error.message);
    // The connection is still good.
    let echo = tool(manager, "mcp__everything__echo");
    assert_eq!(
        text_of(&call(echo.as_ref(), json!({"message": "x"})).await.unwrap()),
        "Echo: x"
    );
}

async fn resources_are_listed_and_read(manager: &McpManager) {
    let tools = manager.resource_tools();
    let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    assert_eq!(
        names,
        [
            "list_mcp_resources",
            "list_mcp_resource_templates",
            "read_mcp_resource"
        ]
    );
    let listed = call(tools[0].as_ref(), json!({})).await.unwrap();
    let payload = listed.structured_content.expect("payload");
    let resources = payload["resources"].as_array().expect("resources");
    assert!(!resources.is_empty(), "{payload}");
    assert_eq!(resources[0]["server"], "everything");
    let text_resource = resources
        .iter()
        .find(|r| {
            r["mimeType"]
                .as_str()
                .is_some_and(|m| m.starts_with("text/"))
        })
        .expect("a text resource");
    let uri = text_resource["uri"].as_str().unwrap();
    let read = call(
        tools[2].as_ref(),
        json!({"server": "everything", "uri": uri}),
    )
    .await
    .unwrap();
    assert!(!text_of(&read).is_empty());
    let kept = read.structured_content.expect("contents");
    assert_eq!(kept["uri"], uri);
    assert_eq!(kept["contents"][0]["uri"], uri);
    let templates = call(tools[1].as_ref(), json!({"server": "everything"}))
        .await
        .unwrap();
    let payload = templates.structured_content.expect("payload");
    assert_eq!(payload["server"], "everything");
    assert!(payload["resourceTemplates"].is_array(), "{payload}");
    let unknown = call(tools[2].as_ref(), json!({"server": "nope", "uri": uri}))
        .await
        .unwrap_err();
    assert!(
        unknown.message.starts_with(
            "MCP server \"nope\" has no resources. Servers with resources: everything"
        )
    );
}

async fn exercise(manager: &McpManager) {
    connected(manager, "everything").await;
    tools_are_named_as_pi_names_them(manager).await;
    calls_return_text_images_and_structured_content(manager).await;
    a_tool_error_is_an_error_result(manager).await;
    progress_restarts_the_timeout(manager).await;
    a_cancelled_call_returns_at_once(manager).await;
    resources_are_listed_and_read(manager).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_over_stdio() {
    let dir = tempfile::tempdir().unwrap();
    let manager = start(vec![everything_stdio(TIMEOUT)], dir.path());
    exercise(&manager).await;
    manager.shutdown().await;
    assert!(matches!(
        manager.servers()[0].state,
        ServerState::Connected | ServerState::Failed(_)
    ));
    let log = std::fs::read_to_string(dir.path().join("mcp.log")).unwrap();
    assert!(
        log.contains("[everything] connecting (stdio:node "),
        "{log}"
    );
    assert!(
        log.contains("[everything] connected (protocol 2025-11-25"),
        "{log}"
    );
    assert!(log.contains("[everything] stopped"), "{log}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_over_streamable_http() {
    let (_server, url) = everything_http().await;
    let dir = tempfile::tempdir().unwrap();
    let transport = TransportSpec::Http {
        url,
        headers: vec![("X-Test".to_owned(), "pi".to_owned())],
    };
    let manager = start(vec![spec("everything", transport, TIMEOUT)], dir.path());
    exercise(&manager).await;
    manager.shutdown().await;
}
