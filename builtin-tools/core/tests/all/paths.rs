use crate::common::{Ws, exists};
use serde_json::json;

#[test]
fn every_tool_refuses_paths_outside_the_workspace() {
    let ws = Ws::new();
    let outside = ws.root().parent().unwrap().join("pi-outside-probe.txt");
    let cases = [
        ("read", json!({"path": "../etc/passwd"})),
        ("read", json!({"path": "/etc/passwd"})),
        (
            "write",
            json!({"path": outside.display().to_string(), "content": "x"}),
        ),
        (
            "write",
            json!({"path": "a/../../escape.txt", "content": "x"}),
        ),
        (
            "edit",
            json!({"path": "../x.txt", "edits": [{"oldText": "a", "newText": "b"}]}),
        ),
        ("grep", json!({"pattern": "root", "path": "/etc"})),
        ("find", json!({"pattern": "*", "path": ".."})),
        ("ls", json!({"path": "/"})),
        ("ls", json!({"path": "~"})),
    ];
    for (tool, args) in cases {
        let err = ws.err(tool, args.clone());
        assert!(
            err.contains("outside the workspace"),
            "{tool} {args}: {err}"
        );
    }
    assert!(!exists(&outside));
    assert!(!exists(&ws.root().parent().unwrap().join("escape.txt")));
}

#[test]
fn inside_paths_with_dots_at_sign_and_absolute_work() {
    let ws = Ws::new();
    ws.write("d/f.txt", "hi");
    assert_eq!(ws.ok("read", json!({"path": "@d/../d/./f.txt"})), "hi");
    let abs = ws.path("d/f.txt").display().to_string();
    assert_eq!(ws.ok("read", json!({"path": abs})), "hi");
}
