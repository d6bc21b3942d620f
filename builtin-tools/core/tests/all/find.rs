use crate::common::Ws;
use serde_json::json;

/// No `.git` here: fd is run with --no-require-git, so .gitignore files apply anyway.
fn tree() -> Ws {
    let ws = Ws::new();
    ws.write(".gitignore", "*.log\ntarget/\n");
    ws.write("a.txt", "");
    ws.write("x.log", "");
    ws.write("target/t.txt", "");
    ws.write(".hidden/h.txt", "");
    ws.write(".git/config.txt", "");
    ws.write("src/.gitignore", "gen.txt\n");
    ws.write("src/lib.txt", "");
    ws.write("src/gen.txt", "");
    ws.write("src/deep/Main.TXT", "");
    ws
}

#[test]
fn glob_on_names_respects_nested_gitignore() {
    let ws = tree();
    let text = ws.ok("find", json!({"pattern": "*.txt"}));
    assert_eq!(text, ".hidden/h.txt\na.txt\nsrc/deep/Main.TXT\nsrc/lib.txt");
}

#[test]
fn glob_with_slash_matches_paths_and_dirs_get_a_slash() {
    let ws = tree();
    assert_eq!(
        ws.ok("find", json!({"pattern": "src/**/*.txt"})),
        "src/deep/Main.TXT\nsrc/lib.txt"
    );
    assert_eq!(ws.ok("find", json!({"pattern": "de*"})), "src/deep/");
    assert_eq!(
        ws.ok("find", json!({"pattern": "*.txt", "path": "src"})),
        "deep/Main.TXT\nlib.txt"
    );
    assert_eq!(
        ws.ok("find", json!({"pattern": "*.TXT"})),
        "src/deep/Main.TXT"
    );
    assert_eq!(
        ws.ok("find", json!({"pattern": "*.none"})),
        "No files found matching pattern"
    );
    let err = ws.err("find", json!({"pattern": "*", "path": "nope"}));
    assert!(err.starts_with("Path not found: "), "{err}");
}

#[test]
fn result_limit_edges() {
    let ws = Ws::new();
    for i in 0..1001 {
        ws.write(&format!("f/{i:04}.rs"), "");
    }
    let out = ws.run("find", json!({"pattern": "*.rs"})).unwrap();
    let text = out.joined_text();
    assert_eq!(text.lines().filter(|l| l.ends_with(".rs")).count(), 1000);
    assert!(
        text.ends_with(
            "\n\n[1000 results limit reached. Use limit=2000 for more, or refine pattern]"
        )
    );
    assert_eq!(out.details["resultLimitReached"], 1000);
    std::fs::remove_file(ws.path("f/0000.rs")).unwrap();
    std::fs::remove_file(ws.path("f/0001.rs")).unwrap();
    let text = ws.ok("find", json!({"pattern": "*.rs"}));
    assert_eq!(text.lines().count(), 999);
    assert!(!text.contains("limit reached"));
}

#[test]
fn byte_limit_50kb() {
    let ws = Ws::new();
    for i in 0..600 {
        ws.write(&format!("{i:04}-{}.md", "n".repeat(120)), "");
    }
    let text = ws.ok("find", json!({"pattern": "*.md"}));
    assert!(text.ends_with("\n\n[50.0KB limit reached]"));
    assert!(text.split("\n\n[").next().unwrap().len() <= 51200);
}

#[cfg(unix)]
#[test]
fn symlinks_are_listed_but_not_followed() {
    let ws = Ws::new();
    ws.write("real/x.txt", "needle\n");
    std::os::unix::fs::symlink(ws.path("real"), ws.path("link")).unwrap();
    std::os::unix::fs::symlink(ws.path("real/x.txt"), ws.path("y.txt")).unwrap();
    assert_eq!(
        ws.ok("find", json!({"pattern": "*.txt"})),
        "real/x.txt\ny.txt"
    );
    // The link to a directory is an entry of its own, without a trailing slash.
    assert_eq!(
        ws.ok("find", json!({"pattern": "*"})),
        "link\nreal/\nreal/x.txt\ny.txt"
    );
    // grep searches neither the linked directory nor the linked file (rg without -L).
    assert_eq!(
        ws.ok("grep", json!({"pattern": "needle"})),
        "real/x.txt:1: needle"
    );
}

#[cfg(unix)]
#[test]
fn names_that_are_not_utf8_are_walked_and_shown_lossily() {
    use std::os::unix::ffi::OsStrExt;
    let ws = Ws::new();
    let odd_dir = ws.root().join(std::ffi::OsStr::from_bytes(b"d\xff"));
    std::fs::create_dir(&odd_dir).unwrap();
    std::fs::write(odd_dir.join("x.txt"), "needle\n").unwrap();
    let odd_file = ws.root().join(std::ffi::OsStr::from_bytes(b"f\xfe.txt"));
    std::fs::write(odd_file, "needle\n").unwrap();
    assert_eq!(
        ws.ok("find", json!({"pattern": "*.txt"})),
        "d\u{FFFD}/x.txt\nf\u{FFFD}.txt"
    );
    assert_eq!(
        ws.ok("grep", json!({"pattern": "needle"})),
        "d\u{FFFD}/x.txt:1: needle\nf\u{FFFD}.txt:1: needle"
    );
}

#[cfg(unix)]
#[test]
fn a_linked_ignore_file_is_followed() {
    let ws = Ws::new();
    ws.write("rules", "*.log\n");
    std::os::unix::fs::symlink("rules", ws.path(".ignore")).unwrap();
    ws.write("a.log", "needle\n");
    ws.write("b.txt", "needle\n");
    assert_eq!(
        ws.ok("find", json!({"pattern": "*"})),
        ".ignore\nb.txt\nrules"
    );
    assert_eq!(
        ws.ok("grep", json!({"pattern": "needle"})),
        "b.txt:1: needle"
    );
}
