use crate::common::{Ws, lines};
use serde_json::json;

#[test]
fn reads_whole_small_file() {
    let ws = Ws::new();
    ws.write("a.txt", "one\ntwo\nthree\n");
    assert_eq!(ws.ok("read", json!({"path": "a.txt"})), "one\ntwo\nthree\n");
    let out = ws.run("read", json!({"path": "a.txt"})).unwrap();
    assert_eq!(out.details, json!({}));
}

/// The three newline shapes come back byte for byte, whole and in windows (what pi 1.6's
/// read returns for each).
#[test]
fn newline_shapes_come_back_byte_for_byte() {
    let ws = Ws::new();
    let shapes = [
        ("lf.txt", "alpha\nbeta\ngamma\n"),
        ("crlf.txt", "alpha\r\nbeta\r\ngamma\r\n"),
        ("none.txt", "alpha\nbeta\ngamma"),
    ];
    for (name, content) in shapes {
        ws.write(name, content);
        let text = ws.ok("read", json!({ "path": name }));
        assert_eq!(text.as_bytes(), content.as_bytes(), "{name}");
    }
    // A window up to the end keeps the final newline; the last line of each shape.
    assert_eq!(
        ws.ok("read", json!({"path": "lf.txt", "offset": 3})),
        "gamma\n"
    );
    assert_eq!(
        ws.ok("read", json!({"path": "crlf.txt", "offset": 3})),
        "gamma\r\n"
    );
    assert_eq!(
        ws.ok("read", json!({"path": "none.txt", "offset": 3})),
        "gamma"
    );
    // A window that stops early counts the empty line after the final newline.
    assert_eq!(
        ws.ok("read", json!({"path": "crlf.txt", "offset": 2, "limit": 1})),
        "beta\r\n\n[2 more lines in file. Use offset=3 to continue.]"
    );
    assert_eq!(
        ws.ok("read", json!({"path": "lf.txt", "limit": 3})),
        "alpha\nbeta\ngamma\n\n[1 more lines in file. Use offset=4 to continue.]"
    );
    assert_eq!(
        ws.ok("read", json!({"path": "lf.txt", "limit": 4})),
        "alpha\nbeta\ngamma\n"
    );
    let err = ws.err("read", json!({"path": "none.txt", "offset": 4}));
    assert_eq!(err, "Offset 4 is beyond end of file (3 lines total)");
    let err = ws.err("read", json!({"path": "lf.txt", "offset": 5}));
    assert_eq!(err, "Offset 5 is beyond end of file (4 lines total)");
}

#[test]
fn empty_file_and_lone_newline() {
    let ws = Ws::new();
    ws.write("empty.txt", "");
    assert_eq!(ws.ok("read", json!({"path": "empty.txt"})), "");
    let err = ws.err("read", json!({"path": "empty.txt", "offset": 2}));
    assert_eq!(err, "Offset 2 is beyond end of file (1 lines total)");
    ws.write("nl.txt", "\n");
    assert_eq!(ws.ok("read", json!({"path": "nl.txt"})), "\n");
    ws.write("blank.txt", "a\n\n\n");
    assert_eq!(ws.ok("read", json!({"path": "blank.txt"})), "a\n\n\n");
}

#[test]
fn line_limit_edges() {
    let ws = Ws::new();
    ws.write("at.txt", lines(2000, "l"));
    let text = ws.ok("read", json!({"path": "at.txt"}));
    assert!(
        text.ends_with("l1999\nl2000\n"),
        "no notice at exactly 2000 lines"
    );
    ws.write("over.txt", lines(2001, "l"));
    let text = ws.ok("read", json!({"path": "over.txt"}));
    assert!(
        text.ends_with("l2000\n\n[Showing lines 1-2000 of 2002. Use offset=2001 to continue.]")
    );
    let out = ws.run("read", json!({"path": "over.txt"})).unwrap();
    assert_eq!(out.details["truncation"]["truncatedBy"], "lines");
    let text = ws.ok("read", json!({"path": "over.txt", "offset": 2001}));
    assert_eq!(text, "l2001\n");
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
            "\n\n[Showing lines 1-51 of 101 (50.0KB limit). Use offset=52 to continue.]"
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
        "line3\nline4\n\n[7 more lines in file. Use offset=5 to continue.]"
    );
    let text = ws.ok("read", json!({"path": "ten.txt", "offset": 9, "limit": 5}));
    assert_eq!(text, "line9\nline10\n");
}

#[test]
fn offset_past_end_is_an_error() {
    let ws = Ws::new();
    ws.write("ten.txt", lines(10, "line"));
    // The empty line after the final newline is line 11, as in pi.
    assert_eq!(ws.ok("read", json!({"path": "ten.txt", "offset": 11})), "");
    let err = ws.err("read", json!({"path": "ten.txt", "offset": 12}));
    assert_eq!(err, "Offset 12 is beyond end of file (11 lines total)");
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
        "größe 🚀\r\nzweite\n"
    );
}
