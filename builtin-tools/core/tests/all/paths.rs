use crate::common::{Ws, exists};
use pi_builtin_tools::{PathPolicy, PathScope};
use serde_json::json;

/// A workspace at `<tmp>/ws` with a sibling folder `<tmp>/other` holding `notes.txt`.
fn with_sibling() -> (Ws, std::path::PathBuf) {
    let ws = Ws::nested("ws");
    let other = ws.root().parent().unwrap().join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("notes.txt"), "sibling notes").unwrap();
    (ws, other)
}

#[test]
fn reading_tools_read_siblings_and_home_paths_by_default() {
    let (mut ws, other) = with_sibling();
    let sibling = other.join("notes.txt").display().to_string();
    assert_eq!(ws.ok("read", json!({"path": sibling})), "sibling notes");
    assert_eq!(
        ws.ok("read", json!({"path": "../other/notes.txt"})),
        "sibling notes"
    );
    ws.set_home(ws.root().parent().unwrap());
    assert_eq!(
        ws.ok("read", json!({"path": "~/other/notes.txt"})),
        "sibling notes"
    );
    assert!(
        ws.ok("ls", json!({"path": "~/other"}))
            .contains("notes.txt")
    );
    let dir = other.display().to_string();
    assert!(
        ws.ok("find", json!({"pattern": "*.txt", "path": dir}))
            .contains("notes.txt")
    );
    assert!(
        ws.ok("grep", json!({"pattern": "sibling", "path": dir}))
            .contains("sibling notes")
    );
}

#[test]
fn workspace_scope_refuses_reads_outside_and_names_the_setting() {
    let (mut ws, other) = with_sibling();
    ws.set_home(ws.root().parent().unwrap());
    ws.set_policy(PathPolicy {
        scope: PathScope::Workspace,
        ..PathPolicy::default()
    });
    let dir = other.display().to_string();
    let cases = [
        ("read", json!({"path": "../other/notes.txt"})),
        ("read", json!({"path": "~/other/notes.txt"})),
        ("read", json!({"path": "/etc/passwd"})),
        ("grep", json!({"pattern": "x", "path": dir})),
        ("find", json!({"pattern": "*", "path": ".."})),
        ("ls", json!({"path": "/"})),
    ];
    for (tool, args) in cases {
        let err = ws.err(tool, args.clone());
        assert!(
            err.contains("outside the workspace") && err.contains("tools.pathScope"),
            "{tool} {args}: {err}"
        );
    }
    ws.write("in.txt", "inside");
    assert_eq!(ws.ok("read", json!({"path": "in.txt"})), "inside");
}

#[test]
fn writes_outside_the_writable_roots_are_refused_and_say_how_to_allow_them() {
    let (mut ws, other) = with_sibling();
    let target = other.join("new.txt");
    let cases = [
        (
            "write",
            json!({"path": target.display().to_string(), "content": "x"}),
        ),
        (
            "write",
            json!({"path": "a/../../escape.txt", "content": "x"}),
        ),
        (
            "edit",
            json!({"path": "../other/notes.txt", "edits": [{"oldText": "sibling", "newText": "b"}]}),
        ),
    ];
    for (tool, args) in &cases {
        let err = ws.err(tool, args.clone());
        assert!(
            err.contains("--add-dir") && err.contains("tools.writableRoots"),
            "{tool} {args}: {err}"
        );
    }
    assert!(!exists(&target));
    assert!(!exists(&ws.root().parent().unwrap().join("escape.txt")));
    assert_eq!(
        std::fs::read_to_string(other.join("notes.txt")).unwrap(),
        "sibling notes"
    );
    // A writable root (what --add-dir and tools.writableRoots add) allows it.
    ws.set_policy(PathPolicy {
        writable_roots: vec![other.clone()],
        ..PathPolicy::default()
    });
    ws.ok("write", cases[0].1.clone());
    ws.ok("edit", cases[2].1.clone());
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "x");
    assert_eq!(
        std::fs::read_to_string(other.join("notes.txt")).unwrap(),
        "b notes"
    );
}

#[test]
fn anywhere_scope_writes_outside_the_workspace() {
    let (mut ws, other) = with_sibling();
    ws.set_policy(PathPolicy {
        scope: PathScope::Anywhere,
        ..PathPolicy::default()
    });
    let target = other.join("deep/new.txt");
    ws.ok(
        "write",
        json!({"path": target.display().to_string(), "content": "far"}),
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "far");
}

#[test]
fn bash_saved_output_is_readable_under_the_narrowest_scope() {
    let mut ws = Ws::new();
    ws.set_policy(PathPolicy {
        scope: PathScope::Workspace,
        ..PathPolicy::default()
    });
    let out = ws.run("bash", json!({"command": "seq 1 100000"})).unwrap();
    let path = out.details["fullOutputPath"].as_str().unwrap().to_string();
    assert!(
        !std::path::Path::new(&path).starts_with(ws.root()),
        "{path}"
    );
    let text = ws.ok("read", json!({"path": path, "offset": 99999}));
    assert!(text.starts_with("99999\n100000"), "{text}");
}

#[test]
fn inside_paths_with_dots_at_sign_and_absolute_work() {
    let ws = Ws::new();
    ws.write("d/f.txt", "hi");
    assert_eq!(ws.ok("read", json!({"path": "@d/../d/./f.txt"})), "hi");
    let abs = ws.path("d/f.txt").display().to_string();
    assert_eq!(ws.ok("read", json!({"path": abs})), "hi");
}
