use crate::*;
use pi_agent::AgentTool;
use pi_ext_host::FsAccess;
use serde_json::json;
use std::sync::Mutex;

#[tokio::test]
async fn describe_lists_the_tools_with_their_schema() {
    let ws = Workspace::create();
    let component = component(
        pi_ext_test_artifacts::TOOL,
        World::Tool,
        ws.grant(),
        "test-tool",
    );
    let tools = host().describe(&component).expect("describe");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["echo", "read_file", "write_file", "probe"]);
    assert_eq!(tools[0].parameters.value(), &json!({"type": "object"}));
    assert_eq!(
        tools[0].prompt_snippet.as_deref(),
        Some("echo: Echoes its arguments.")
    );
}

#[tokio::test]
async fn a_tool_call_returns_content_and_details_through_agent_tool() {
    let ws = Workspace::create();
    let tool = test_tool(ws.grant(), "echo");
    assert_eq!(AgentTool::name(&tool), "echo");
    let updates = Arc::new(Mutex::new(Vec::new()));
    let sink = updates.clone();
    let output = tool
        .execute(
            "c1",
            json!({"progress": true, "n": 7}),
            CancellationToken::new(),
            Arc::new(move |u: ToolOutput| sink.lock().expect("lock").push(text(&u))),
        )
        .await
        .expect("echo");
    assert_eq!(text(&output), r#"{"progress":true,"n":7}"#);
    assert_eq!(output.details["cwd"], json!(ws.dir.to_string_lossy()));
    assert_eq!(*updates.lock().expect("lock"), ["working"]);
}

#[tokio::test]
async fn an_error_result_keeps_its_text_and_details() {
    let ws = Workspace::create();
    let tool = test_tool(ws.grant(), "echo");
    let err = run(&tool, json!({"fail": true}))
        .await
        .expect_err("is-error result");
    assert_eq!(err.message, r#"{"fail":true}"#);
    assert_eq!(err.details, Some(json!({"cwd": ws.dir.to_string_lossy()})));
    // Failures of the host itself have none (the error result gets pi's `{}`).
    let err = run(&test_tool(ws.grant(), "probe"), json!({"op": "nope"}))
        .await
        .expect_err("guest error");
    assert_eq!(err.details, None);
}

#[tokio::test]
async fn a_granted_workspace_is_readable_at_its_real_path() {
    let ws = Workspace::create();
    let grant = Grant {
        filesystem: FsAccess::Read,
        ..ws.grant()
    };
    let tool = test_tool(grant, "read_file");
    let absolute = ws.dir.join("hello.txt");
    let out = run(&tool, json!({"path": absolute}))
        .await
        .expect("absolute read");
    assert_eq!(text(&out), "hello from the workspace");
    let out = run(&tool, json!({"path": "hello.txt"}))
        .await
        .expect("relative read");
    assert_eq!(text(&out), "hello from the workspace");
}

#[tokio::test]
async fn a_write_grant_allows_writing_in_the_workspace() {
    let ws = Workspace::create();
    let grant = Grant {
        filesystem: FsAccess::Write,
        ..ws.grant()
    };
    let tool = test_tool(grant, "write_file");
    let target = ws.dir.join("sub/new.txt");
    run(&tool, json!({"path": target, "content": "made by wasm"}))
        .await
        .expect("write");
    assert_eq!(
        std::fs::read_to_string(&target).expect("written"),
        "made by wasm"
    );
}

#[tokio::test]
async fn the_same_component_under_its_read_only_grant_cannot_write() {
    let ws = Workspace::create();
    let grant = Grant {
        filesystem: FsAccess::Write,
        ..ws.grant()
    };
    let writer = component(pi_ext_test_artifacts::TOOL, World::Tool, grant, "test-tool");
    let reader = Arc::new(writer.with_grant(Arc::new(writer.grant.read_only())));
    assert_eq!(reader.grant.filesystem, FsAccess::Read);
    let description = host()
        .describe(&reader)
        .expect("describe")
        .into_iter()
        .find(|d| d.name == "write_file")
        .expect("write_file");
    let read_only = ComponentTool::new(Arc::clone(&reader), description.clone());
    let target = ws.dir.join("refused.txt");
    run(&read_only, json!({"path": target, "content": "no"}))
        .await
        .expect_err("a read-only grant refuses the write");
    assert!(!target.exists());
    let read = tool_of(
        pi_ext_test_artifacts::TOOL,
        reader.grant.as_ref().clone(),
        "read_file",
        "test-tool",
    );
    let out = run(&read, json!({"path": "hello.txt"}))
        .await
        .expect("read");
    assert_eq!(text(&out), "hello from the workspace");
    // The original keeps its grant.
    run(
        &ComponentTool::new(writer, description),
        json!({"path": target, "content": "yes"}),
    )
    .await
    .expect("write");
    assert_eq!(std::fs::read_to_string(&target).expect("written"), "yes");
}

#[tokio::test]
async fn a_guest_error_names_the_extension() {
    let ws = Workspace::create();
    let tool = test_tool(ws.grant(), "probe");
    let err = run(&tool, json!({"op": "no-such-op"}))
        .await
        .expect_err("error");
    assert_eq!(
        err.message,
        "extension test-tool@0.1.0: unknown op no-such-op"
    );
}

#[tokio::test]
async fn a_panic_is_a_trap_result_and_the_host_carries_on() {
    let ws = Workspace::create();
    let tool = test_tool(ws.grant(), "probe");
    let err = run(&tool, json!({"op": "panic"})).await.expect_err("trap");
    assert!(
        err.message.starts_with("extension test-tool@0.1.0: trap:"),
        "{}",
        err.message
    );
    let echo = test_tool(ws.grant(), "echo");
    assert!(run(&echo, json!({})).await.is_ok());
}

#[tokio::test]
async fn a_huge_result_is_truncated_to_the_limit() {
    let ws = Workspace::create();
    let mut grant = ws.grant();
    grant.limits.result_bytes = 1000;
    let tool = test_tool(grant, "probe");
    let out = run(&tool, json!({"op": "big-result"})).await.expect("big");
    let t = text(&out);
    assert!(t.starts_with(&"y".repeat(1000)));
    assert!(
        t.ends_with(&format!(
            "[output truncated: {} more bytes]",
            8 * 1024 * 1024 - 1000
        )),
        "{}",
        &t[1000..]
    );
}

#[tokio::test]
async fn abort_interrupts_a_running_call() {
    let ws = Workspace::create();
    let tool = test_tool(ws.grant(), "probe");
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        trigger.cancel();
    });
    let started = std::time::Instant::now();
    let err = tool
        .run("c", &json!({"op": "loop"}), cancel, None)
        .await
        .expect_err("aborted");
    assert_eq!(err.message, "extension test-tool@0.1.0: aborted");
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
}

#[tokio::test]
async fn a_granted_process_runs_and_streams_its_output() {
    let ws = Workspace::create();
    let grant = Grant {
        process: true,
        ..ws.grant()
    };
    let tool = tool_of(pi_ext_test_artifacts::SPAWNER, grant, "run", "spawner");
    let updates = Arc::new(Mutex::new(String::new()));
    let sink = updates.clone();
    let out = tool
        .run(
            "c",
            &json!({"program": "sh", "args": ["-c", "echo one; echo two >&2; pwd"]}),
            CancellationToken::new(),
            Some(Arc::new(move |u: ToolOutput| {
                sink.lock().expect("lock").push_str(&text(&u))
            })),
        )
        .await
        .expect("run");
    let t = text(&out);
    assert!(t.contains("one\n") && t.contains("two\n"), "{t}");
    assert!(
        t.contains(&ws.dir.to_string_lossy().to_string()),
        "runs in the workspace: {t}"
    );
    assert!(t.ends_with("exit=Some(0) timed_out=false"), "{t}");
    assert!(updates.lock().expect("lock").contains("one"));
}

/// Output lines alternating between the two streams: `o1`, `e1`, `o2`, `e2`, ...
const ALTERNATING: &str = "for i in $(seq 1 40); do echo o$i; echo e$i >&2; done";

fn alternating(count: usize) -> String {
    (1..=count).map(|i| format!("o{i}\ne{i}\n")).collect()
}

#[tokio::test]
async fn merged_output_keeps_the_order_of_both_streams() {
    let ws = Workspace::create();
    let grant = Grant {
        process: true,
        ..ws.grant()
    };
    let tool = tool_of(pi_ext_test_artifacts::SPAWNER, grant, "run", "spawner");
    let args = json!({"program": "sh", "args": ["-c", ALTERNATING], "merge_stderr": true});
    let out = text(&run(&tool, args).await.expect("run"));
    // One pipe: exactly the written order, and nothing arrives as stderr.
    let expected = format!(
        "{}stderr=\"\" exit=Some(0) timed_out=false",
        alternating(40)
    );
    assert_eq!(out, expected);
}

#[tokio::test]
async fn separate_streams_stay_apart_without_merging() {
    let ws = Workspace::create();
    let grant = Grant {
        process: true,
        ..ws.grant()
    };
    let tool = tool_of(pi_ext_test_artifacts::SPAWNER, grant, "run", "spawner");
    let args = json!({"program": "sh", "args": ["-c", ALTERNATING]});
    let out = text(&run(&tool, args).await.expect("run"));
    let (all, rest) = out.split_once("stderr=").expect("stderr part");
    let errors: String = (1..=40).map(|i| format!("e{i}\n")).collect();
    assert!(
        rest.starts_with(&format!("{errors:?} exit=Some(0)")),
        "stderr is its own stream: {rest}"
    );
    // Every line arrived once; their order across the two pipes is not defined.
    let mut lines: Vec<&str> = all.lines().collect();
    lines.sort_unstable();
    let expected = alternating(40);
    let mut expected: Vec<&str> = expected.lines().collect();
    expected.sort_unstable();
    assert_eq!(lines, expected);
}

#[tokio::test]
async fn a_process_timeout_kills_it() {
    let ws = Workspace::create();
    let grant = Grant {
        process: true,
        ..ws.grant()
    };
    let tool = tool_of(pi_ext_test_artifacts::SPAWNER, grant, "run", "spawner");
    let out = run(
        &tool,
        json!({"program": "sleep", "args": ["30"], "timeout_ms": 200}),
    )
    .await
    .expect("run");
    assert!(text(&out).ends_with("timed_out=true"), "{}", text(&out));
}
