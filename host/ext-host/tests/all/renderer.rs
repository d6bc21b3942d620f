use crate::*;
use pi_ext_api::{MessageRenderer, RenderTarget, Span, Style};
use pi_ext_host::ComponentRenderer;
use serde_json::json;

fn renderer() -> ComponentRenderer {
    let ws = Workspace::create();
    let component = component(
        pi_ext_test_artifacts::RENDERER,
        World::Renderer,
        ws.grant(),
        "notes",
    );
    ComponentRenderer::load(component.get().expect("load")).expect("renderer")
}

fn plain(spans: &[Span]) -> String {
    spans.iter().map(|s| s.text.as_str()).collect()
}

#[test]
fn a_custom_message_renders_to_styled_wrapped_lines() {
    let renderer = renderer();
    assert_eq!(renderer.custom_types(), ["note", "sleepy"]);
    let payload = json!({"text": "abcdefghij"});
    let target = RenderTarget::CustomMessage {
        custom_type: "note",
        payload: &payload,
    };
    assert!(renderer.handles(&target));
    let lines = renderer.render(&target, 4).expect("render").expect("lines");
    let texts: Vec<String> = lines.iter().map(|l| plain(l)).collect();
    assert_eq!(texts, ["Note", "abcd", "efgh", "ij"]);
    assert_eq!(
        lines[0][0].style,
        Style {
            fg: Some("accent".into()),
            bold: true,
            ..Style::default()
        }
    );
}

#[test]
fn a_tool_result_renders_and_unknown_subjects_fall_back() {
    let renderer = renderer();
    let args = json!({"x": 1});
    let output = ToolOutput::text("done");
    let target = RenderTarget::ToolResult {
        tool_name: "echo",
        arguments: &args,
        content: &output.content,
        details: &output.details,
        is_error: true,
        expanded: false,
    };
    let lines = renderer
        .render(&target, 80)
        .expect("render")
        .expect("lines");
    assert_eq!(plain(&lines[0]), r#"echo {"x":1}"#);
    assert_eq!(plain(&lines[1]), "done");
    assert_eq!(lines[1][0].style.fg.as_deref(), Some("error"));

    let payload = json!({});
    let other = RenderTarget::CustomMessage {
        custom_type: "other",
        payload: &payload,
    };
    assert!(!renderer.handles(&other));
    assert_eq!(renderer.render(&other, 80).expect("render"), None);
}
