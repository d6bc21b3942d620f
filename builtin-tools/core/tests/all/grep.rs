use crate::common::Ws;
use serde_json::json;

/// A git workspace with ignore rules at two levels and a hidden file.
fn tree() -> Ws {
    let ws = Ws::new();
    std::fs::create_dir_all(ws.path(".git")).unwrap();
    ws.write(".gitignore", "*.log\nbuild/\n");
    ws.write("a.txt", "before\nneedle one\nafter\n");
    ws.write(".hidden.txt", "needle hidden\n");
    ws.write("x.log", "needle ignored\n");
    ws.write("build/c.txt", "needle ignored\n");
    ws.write("sub/.gitignore", "secret.txt\n");
    ws.write("sub/b.txt", "no\nneedle two\n");
    ws.write("sub/secret.txt", "needle ignored\n");
    ws.write("sub/deeper/d.rs", "let needle = 1;\n");
    ws
}

#[test]
fn respects_nested_gitignore_and_searches_hidden() {
    let ws = tree();
    let text = ws.ok("grep", json!({"pattern": "needle"}));
    assert_eq!(
        text,
        ".hidden.txt:1: needle hidden\na.txt:2: needle one\nsub/b.txt:2: needle two\nsub/deeper/d.rs:1: let needle = 1;"
    );
}

#[test]
fn context_glob_case_and_literal() {
    let ws = tree();
    let text = ws.ok("grep", json!({"pattern": "needle one", "context": 1}));
    assert_eq!(text, "a.txt-1- before\na.txt:2: needle one\na.txt-3- after");
    let text = ws.ok("grep", json!({"pattern": "needle", "glob": "*.rs"}));
    assert_eq!(text, "sub/deeper/d.rs:1: let needle = 1;");
    assert_eq!(
        ws.ok("grep", json!({"pattern": "NEEDLE ONE"})),
        "No matches found"
    );
    assert_eq!(
        ws.ok("grep", json!({"pattern": "NEEDLE ONE", "ignoreCase": true})),
        "a.txt:2: needle one"
    );
    ws.write("re.txt", "a.b\naxb\n");
    assert_eq!(
        ws.ok(
            "grep",
            json!({"pattern": "a.b", "path": "re.txt", "literal": true})
        ),
        "re.txt:1: a.b"
    );
    assert_eq!(
        ws.ok("grep", json!({"pattern": "a.b", "path": "re.txt"})),
        "re.txt:1: a.b\nre.txt:2: axb"
    );
}

#[test]
fn searching_a_file_shows_its_name_and_subdir_paths_are_relative() {
    let ws = tree();
    assert_eq!(
        ws.ok("grep", json!({"pattern": "two", "path": "sub/b.txt"})),
        "b.txt:2: needle two"
    );
    assert_eq!(
        ws.ok("grep", json!({"pattern": "needle", "path": "sub/deeper"})),
        "d.rs:1: let needle = 1;"
    );
    let err = ws.err("grep", json!({"pattern": "x", "path": "missing"}));
    assert!(err.starts_with("Path not found: "), "{err}");
    assert!(!ws.err("grep", json!({"pattern": "("})).is_empty());
}

#[test]
fn binary_files_are_skipped() {
    let ws = Ws::new();
    ws.write("bin.dat", b"needle\0\x01\x02");
    ws.write("t.txt", "needle\n");
    assert_eq!(
        ws.ok("grep", json!({"pattern": "needle"})),
        "t.txt:1: needle"
    );
}

fn matches_file(ws: &Ws, n: usize) {
    let body: String = (0..n).map(|i| format!("hit {i}\n")).collect();
    ws.write("m.txt", body);
}

#[test]
fn match_limit_edges() {
    let ws = Ws::new();
    matches_file(&ws, 99);
    let text = ws.ok("grep", json!({"pattern": "hit"}));
    assert_eq!(text.lines().count(), 99);
    assert!(!text.contains("limit reached"));
    matches_file(&ws, 100);
    let text = ws.ok("grep", json!({"pattern": "hit"}));
    assert!(text.ends_with("m.txt:100: hit 99\n\n[100 matches limit reached. Use limit=200 for more, or refine pattern]"));
    matches_file(&ws, 150);
    let out = ws.run("grep", json!({"pattern": "hit"})).unwrap();
    assert_eq!(
        out.joined_text()
            .lines()
            .filter(|l| l.starts_with("m.txt:"))
            .count(),
        100
    );
    assert_eq!(out.details["matchLimitReached"], 100);
    let text = ws.ok("grep", json!({"pattern": "hit", "limit": 5}));
    assert!(
        text.ends_with("\n\n[5 matches limit reached. Use limit=10 for more, or refine pattern]")
    );
}

#[test]
fn long_lines_cut_at_500_chars() {
    let ws = Ws::new();
    ws.write(
        "l.txt",
        format!("{}\n{}\n", "k".repeat(500), "q".repeat(501)),
    );
    let text = ws.ok("grep", json!({"pattern": "k"}));
    assert_eq!(text, format!("l.txt:1: {}", "k".repeat(500)));
    let text = ws.ok("grep", json!({"pattern": "q"}));
    assert_eq!(
        text,
        format!(
            "l.txt:2: {}... [truncated]\n\n[Some lines truncated to 500 chars. Use read tool to see full lines]",
            "q".repeat(500)
        )
    );
}

#[test]
fn byte_limit_50kb() {
    let ws = Ws::new();
    let body: String = (0..300)
        .map(|i| format!("hit {i:03} {}\n", "w".repeat(400)))
        .collect();
    ws.write("w.txt", body);
    let out = ws
        .run("grep", json!({"pattern": "hit", "limit": 1000}))
        .unwrap();
    let text = out.joined_text();
    assert!(
        text.ends_with("\n\n[50.0KB limit reached]"),
        "{}",
        &text[text.len() - 60..]
    );
    let shown = text.split("\n\n[").next().unwrap();
    assert!(shown.len() <= 51200);
    assert_eq!(out.details["truncation"]["truncatedBy"], "bytes");
    // Lines past the cut are counted, not dropped, in the details.
    let full: Vec<String> = (0..300)
        .map(|i| format!("w.txt:{}: hit {i:03} {}", i + 1, "w".repeat(400)))
        .collect();
    assert_eq!(out.details["truncation"]["totalLines"], 300);
    assert_eq!(
        out.details["truncation"]["totalBytes"],
        full.join("\n").len()
    );
}

#[test]
fn outside_a_git_repo_gitignore_is_not_applied_like_rg() {
    // pi runs rg without --no-require-git: .gitignore only counts inside a repository.
    let ws = Ws::new();
    ws.write(".gitignore", "*.log\n");
    ws.write("x.log", "needle\n");
    ws.write(".ignore", "skip.txt\n");
    ws.write("skip.txt", "needle\n");
    assert_eq!(
        ws.ok("grep", json!({"pattern": "needle"})),
        "x.log:1: needle"
    );
}
