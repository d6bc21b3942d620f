//! Components built against the 0.1.0 WIT (the `v010_*` test components, straight from
//! wit-bindgen on the host's snapshot) load and run under the 0.3.0 host, through its 0.1.0
//! module; a manifest naming the wrong version is refused with what to write instead.

use crate::*;
use pi_agent::AgentTool;
use pi_ext_api::{MessageRenderer, RenderTarget};
use pi_ext_host::{Cause, ComponentRenderer, FsAccess};
use serde_json::json;
use std::sync::Mutex;

const OLD: WitVersion = WitVersion::V0_1_0;

fn legacy_tool(grant: Grant) -> ComponentTool {
    let component = component_of(
        pi_ext_test_artifacts::V010_TOOL,
        (World::Tool, OLD),
        grant,
        "legacy",
    );
    let descriptions = host().describe(&component).expect("describe");
    assert_eq!(descriptions.len(), 1);
    ComponentTool::new(component, descriptions[0].clone())
}

#[tokio::test]
async fn a_0_1_0_tool_is_described_and_its_calls_reach_the_host() {
    let ws = Workspace::create();
    let mut grant = ws.grant();
    grant.filesystem = FsAccess::Read;
    let tool = legacy_tool(grant);
    assert_eq!(AgentTool::name(&tool), "legacy");
    assert_eq!(
        AgentTool::description(&tool),
        "A tool built against pi:extension@0.1.0."
    );

    let updates = Arc::new(Mutex::new(Vec::new()));
    let sink = updates.clone();
    let output = tool
        .execute(
            "c1",
            json!({"op": "echo"}),
            CancellationToken::new(),
            Arc::new(move |u: ToolOutput| sink.lock().expect("lock").push(text(&u))),
        )
        .await
        .expect("echo");
    assert_eq!(text(&output), r#"0.1.0 says: {"op":"echo"}"#);
    assert_eq!(*updates.lock().expect("lock"), ["echoing"]);

    let cwd = run(&tool, json!({"op": "cwd"})).await.expect("cwd");
    assert_eq!(text(&cwd), ws.dir.to_string_lossy());
    let listed = run(&tool, json!({"op": "list"})).await.expect("list");
    assert_eq!(text(&listed), "hello.txt,sub");
}

#[tokio::test]
async fn a_0_1_0_tool_gets_the_refusal_of_a_capability_it_was_not_granted() {
    let ws = Workspace::create();
    let tool = legacy_tool(ws.grant());
    let err = run(&tool, json!({"op": "spawn"}))
        .await
        .expect_err("refused");
    assert_eq!(
        err.message,
        "extension legacy@0.1.0: capability `process` was not granted to legacy@0.1.0"
    );
    let mut granted = ws.grant();
    granted.process = true;
    let tool = legacy_tool(granted);
    let out = run(&tool, json!({"op": "spawn"})).await.expect("spawned");
    assert_eq!(text(&out), "exit Some(0)");
}

#[test]
fn a_0_1_0_renderer_draws_messages_and_tool_results() {
    let ws = Workspace::create();
    let component = component_of(
        pi_ext_test_artifacts::V010_RENDERER,
        (World::Renderer, OLD),
        ws.grant(),
        "legacy-renderer",
    );
    let renderer = ComponentRenderer::load(component.get().expect("load")).expect("renderer");
    assert_eq!(renderer.custom_types(), ["legacy-note"]);
    assert_eq!(renderer.tool_names(), ["legacy"]);
    let payload = json!("hi");
    let message = RenderTarget::CustomMessage {
        custom_type: "legacy-note",
        payload: &payload,
    };
    let lines = renderer
        .render(&message, 80)
        .expect("render")
        .expect("lines");
    assert_eq!(lines[0][0].text, r#"0.1.0: "hi""#);
    let args = json!({});
    let output = ToolOutput::text("done");
    let result = RenderTarget::ToolResult {
        tool_name: "legacy",
        arguments: &args,
        content: &output.content,
        details: &output.details,
        is_error: false,
        expanded: false,
    };
    let lines = renderer.render(&result, 9).expect("render").expect("lines");
    assert_eq!(lines[0][0].text, "0.1.0: do");
}

fn load_error(path: &str, world: World, wit: WitVersion) -> Cause {
    let ws = Workspace::create();
    let component = component_of(path, (world, wit), ws.grant(), "mislabelled");
    component.get().err().expect("refused").cause
}

#[test]
fn a_component_of_another_wit_version_than_its_manifest_says_is_refused() {
    let old_as_new = load_error(
        pi_ext_test_artifacts::V010_TOOL,
        World::Tool,
        WitVersion::V0_2_0,
    );
    assert_eq!(
        old_as_new.to_string(),
        format!(
            "component {} was built against pi:extension@0.1.0 (it uses \
             `pi:extension/tool-guest@0.1.0`), but its manifest says wit = \"0.2.0\": set \
             `wit = \"0.1.0\"` in pi-extension.toml",
            pi_ext_test_artifacts::V010_TOOL
        )
    );
    let new_as_old = load_error(pi_ext_test_artifacts::TOOL, World::Tool, OLD);
    assert!(
        matches!(&new_as_old, Cause::WitMismatch { declared, interface, .. }
            if *declared == OLD && interface == "pi:extension/tool-guest@0.3.0"),
        "{new_as_old}"
    );
    // Another world in the right version is still a world mismatch.
    let renderer_as_tool = load_error(pi_ext_test_artifacts::V010_RENDERER, World::Tool, OLD);
    assert!(
        renderer_as_tool.to_string().contains(
            "does not implement world `tool`: it does not export \
             `pi:extension/tool-guest@0.1.0` (it exports: pi:extension/renderer-guest@0.1.0)"
        ),
        "{renderer_as_tool}"
    );
}

#[test]
fn a_component_without_a_manifest_is_recognised_with_its_version() {
    let engine = pi_ext_host::engine::compiler().expect("compiler");
    let world_of = |path: &str| {
        let bytes = std::fs::read(path).expect("wasm");
        pi_ext_host::component::world_of(engine, &bytes).expect("a pi world")
    };
    assert_eq!(
        world_of(pi_ext_test_artifacts::V010_TOOL),
        (World::Tool, OLD)
    );
    assert_eq!(
        world_of(pi_ext_test_artifacts::V010_RENDERER),
        (World::Renderer, OLD)
    );
    assert_eq!(
        world_of(pi_ext_test_artifacts::V020_TOOL),
        (World::Tool, WitVersion::V0_2_0)
    );
    assert_eq!(
        world_of(pi_ext_test_artifacts::TOOL),
        (World::Tool, WitVersion::V0_3_0)
    );
    assert_eq!(
        world_of(pi_ext_test_artifacts::HOOK_PROBE),
        (World::Hook, WitVersion::V0_3_0)
    );
}

#[tokio::test]
async fn a_0_2_0_tool_is_described_and_its_calls_reach_the_host() {
    let ws = Workspace::create();
    let mut grant = ws.grant();
    grant.filesystem = FsAccess::Read;
    let component = component_of(
        pi_ext_test_artifacts::V020_TOOL,
        (World::Tool, WitVersion::V0_2_0),
        grant,
        "older",
    );
    let descriptions = host().describe(&component).expect("describe");
    assert_eq!(descriptions.len(), 1);
    assert_eq!(
        descriptions[0].description,
        "A tool built against pi:extension@0.2.0."
    );
    let tool = ComponentTool::new(component, descriptions[0].clone());
    let output = run(&tool, json!({"op": "echo"})).await.expect("echo");
    assert_eq!(text(&output), r#"0.2.0 says: {"op":"echo"}"#);
    let cwd = run(&tool, json!({"op": "cwd"})).await.expect("cwd");
    assert_eq!(text(&cwd), ws.dir.to_string_lossy());
    let listed = run(&tool, json!({"op": "list"})).await.expect("list");
    assert_eq!(text(&listed), "hello.txt,sub");
    let err = run(&tool, json!({"op": "spawn"}))
        .await
        .expect_err("refused");
    assert_eq!(
        err.message,
        "extension older@0.1.0: capability `process` was not granted to older@0.1.0"
    );
}

#[test]
fn a_0_2_0_tool_under_a_0_3_0_manifest_is_told_which_wit_to_write() {
    let cause = load_error(
        pi_ext_test_artifacts::V020_TOOL,
        World::Tool,
        WitVersion::V0_3_0,
    );
    assert!(
        cause
            .to_string()
            .contains("set `wit = \"0.2.0\"` in pi-extension.toml"),
        "{cause}"
    );
}
