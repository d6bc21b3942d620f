use crate::common::Ws;
use serde_json::json;

#[test]
fn sorted_case_insensitively_with_dotfiles_and_dir_slash() {
    let ws = Ws::new();
    ws.write("b.txt", "");
    ws.write("A.txt", "");
    ws.write(".env", "");
    ws.write("Dir/x", "");
    ws.write("c/y", "");
    assert_eq!(ws.ok("ls", json!({})), ".env\nA.txt\nb.txt\nc/\nDir/");
    assert_eq!(ws.ok("ls", json!({"path": "Dir"})), "x");
}

#[test]
fn empty_missing_and_not_a_directory() {
    let ws = Ws::new();
    std::fs::create_dir(ws.path("empty")).unwrap();
    assert_eq!(ws.ok("ls", json!({"path": "empty"})), "(empty directory)");
    let err = ws.err("ls", json!({"path": "nope"}));
    assert_eq!(
        err,
        format!("Path not found: {}", ws.path("nope").display())
    );
    ws.write("file", "");
    let err = ws.err("ls", json!({"path": "file"}));
    assert_eq!(
        err,
        format!("Not a directory: {}", ws.path("file").display())
    );
}

#[test]
fn entry_limit_edges() {
    let ws = Ws::new();
    for i in 0..500 {
        ws.write(&format!("e{i:03}"), "");
    }
    let text = ws.ok("ls", json!({}));
    assert_eq!(text.lines().count(), 500);
    assert!(!text.contains("limit reached"));
    ws.write("e500", "");
    let out = ws.run("ls", json!({})).unwrap();
    let text = out.joined_text();
    assert!(text.ends_with("e499\n\n[500 entries limit reached. Use limit=1000 for more]"));
    assert_eq!(out.details["entryLimitReached"], 500);
    let text = ws.ok("ls", json!({"limit": 3}));
    assert_eq!(
        text,
        "e000\ne001\ne002\n\n[3 entries limit reached. Use limit=6 for more]"
    );
}

#[test]
fn byte_limit_50kb() {
    let ws = Ws::new();
    for i in 0..450 {
        ws.write(&format!("{i:03}{}", "m".repeat(150)), "");
    }
    let out = ws.run("ls", json!({})).unwrap();
    let text = out.joined_text();
    assert!(text.ends_with("\n\n[50.0KB limit reached]"));
    assert_eq!(out.details["truncation"]["truncated"], true);
}
