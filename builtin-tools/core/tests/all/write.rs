use crate::common::Ws;
use serde_json::json;

#[test]
fn creates_parents_and_reports_js_length() {
    let ws = Ws::new();
    let text = ws.ok(
        "write",
        json!({"path": "deep/er/f.txt", "content": "héllo😀"}),
    );
    // JS string length: 5 code units for "héllo" and 2 for the emoji.
    assert_eq!(text, "Successfully wrote 7 bytes to deep/er/f.txt");
    assert_eq!(ws.read("deep/er/f.txt"), "héllo😀");
}

#[test]
fn overwrites_existing_file() {
    let ws = Ws::new();
    ws.write("f.txt", "old content that is longer");
    ws.ok("write", json!({"path": "f.txt", "content": "new"}));
    assert_eq!(ws.read("f.txt"), "new");
    let text = ws.ok("write", json!({"path": "empty.txt", "content": ""}));
    assert_eq!(text, "Successfully wrote 0 bytes to empty.txt");
}
