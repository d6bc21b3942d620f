use crate::common::{Ws, lines};
use serde_json::json;

#[test]
fn reads_whole_small_file() {
    let ws = Ws::new();
    ws.write("a.txt", "one\ntwo\nthree\n");
    assert_eq!(ws.ok("read", json!({"path": "a.txt"})), "one\ntwo\nthree");
    let out = ws.run("read", json!({"path": "a.txt"})).unwrap();
    assert_eq!(out.details, json!({}));
}

#[test]
fn line_limit_edges() {
    let ws = Ws::new();
    ws.write("at.txt", lines(2000, "l"));
    let text = ws.ok("read", json!({"path": "at.txt"}));
    assert!(text.ends_with("l2000"), "no notice at exactly 2000 lines");
    ws.write("over.txt", lines(2001, "l"));
    let text = ws.ok("read", json!({"path": "over.txt"}));
    assert!(
        text.ends_with("l2000\n\n[Showing lines 1-2000 of 2001. Use offset=2001 to continue.]")
    );
    let out = ws.run("read", json!({"path": "over.txt"})).unwrap();
    assert_eq!(out.details["truncation"]["truncatedBy"], "lines");
    let text = ws.ok("read", json!({"path": "over.txt", "offset": 2001}));
    assert_eq!(text, "l2001");
}

#[test]
fn byte_limit_edges() {
    let ws = Ws::new();
    let line = "x".repeat(1000);
    ws.write("big.txt", format!("{line}\n").repeat(100));
    let text = ws.ok("read", json!({"path": "big.txt"}));
    // 51 lines of 1000 bytes plus 50 newlines fit in 51200 bytes; a 52nd does not.
    assert!(
        text.ends_with(
            "\n\n[Showing lines 1-51 of 100 (50.0KB limit). Use offset=52 to continue.]"
        )
    );
    ws.write("exact.txt", "y".repeat(51200));
    assert_eq!(ws.ok("read", json!({"path": "exact.txt"})).len(), 51200);
}

#[test]
fn overlong_first_line_points_to_bash() {
    let ws = Ws::new();
    ws.write("long.txt", format!("short\n{}\nafter\n", "z".repeat(60000)));
    let text = ws.ok("read", json!({"path": "long.txt", "offset": 2}));
    assert_eq!(
        text,
        "[Line 2 is 58.6KB, exceeds 50.0KB limit. Use bash: sed -n '2p' long.txt | head -c 51200]"
    );
}

#[test]
fn offset_and_limit_window() {
    let ws = Ws::new();
    ws.write("ten.txt", lines(10, "line"));
    let text = ws.ok("read", json!({"path": "ten.txt", "offset": 3, "limit": 2}));
    assert_eq!(
        text,
        "line3\nline4\n\n[6 more lines in file. Use offset=5 to continue.]"
    );
    let text = ws.ok("read", json!({"path": "ten.txt", "offset": 9, "limit": 5}));
    assert_eq!(text, "line9\nline10");
}

#[test]
fn offset_past_end_is_an_error() {
    let ws = Ws::new();
    ws.write("ten.txt", lines(10, "line"));
    let err = ws.err("read", json!({"path": "ten.txt", "offset": 11}));
    assert_eq!(err, "Offset 11 is beyond end of file (10 lines total)");
}

#[test]
fn missing_file_and_binary_file_fail_clearly() {
    let ws = Ws::new();
    let err = ws.err("read", json!({"path": "nope.txt"}));
    assert!(
        err.starts_with("ENOENT: no such file or directory"),
        "{err}"
    );
    ws.write("blob.bin", [0u8, 1, 2, 3, 0, 255, 17]);
    let err = ws.err("read", json!({"path": "blob.bin"}));
    assert!(err.contains("binary file"), "{err}");
}

#[test]
fn unicode_text_is_read_intact() {
    let ws = Ws::new();
    ws.write("u.txt", "größe 🚀\r\nzweite\n");
    assert_eq!(
        ws.ok("read", json!({"path": "u.txt"})),
        "größe 🚀\r\nzweite"
    );
}
