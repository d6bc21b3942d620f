//! Ignore files above the workspace, between it and its git repository root: rg and fd
//! respect them, so grep and find must too (natively the walker reads them; a component gets
//! them from the host).

use crate::common::Ws;
use serde_json::json;
use std::path::{Path, PathBuf};

fn put(path: PathBuf, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// `repo/lib/ws` is the workspace; `repo` holds `.git` and ignores `*.log`, `lib` re-includes
/// `keep.log` and ignores `*.tmp`, the workspace itself ignores `*.out`.
fn repo_workspace() -> (Ws, PathBuf) {
    let ws = Ws::nested("repo/lib/ws");
    let repo = ws.root().join("../..");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    put(repo.join(".gitignore"), "*.log\n/lib/ws/anchored.txt\n");
    put(repo.join("lib/.ignore"), "*.tmp\n!keep.log\n");
    ws.write(".gitignore", "*.out\n");
    for file in [
        "a.txt",
        "b.log",
        "keep.log",
        "c.tmp",
        "d.out",
        "anchored.txt",
        "sub/anchored.txt",
        "sub/e.log",
    ] {
        ws.write(file, "needle\n");
    }
    (ws, repo)
}

#[test]
fn grep_respects_ignore_files_up_to_the_repository_root() {
    let (ws, _repo) = repo_workspace();
    assert_eq!(
        ws.ok("grep", json!({"pattern": "needle"})),
        "a.txt:1: needle\nkeep.log:1: needle\nsub/anchored.txt:1: needle"
    );
    // A path the ancestors ignore is still searched when given explicitly, as rg does.
    assert_eq!(
        ws.ok("grep", json!({"pattern": "needle", "path": "b.log"})),
        "b.log:1: needle"
    );
}

#[test]
fn find_respects_ignore_files_up_to_the_repository_root() {
    let (ws, _repo) = repo_workspace();
    assert_eq!(
        ws.ok("find", json!({"pattern": "*.{txt,log,tmp,out}"})),
        "a.txt\nkeep.log\nsub/anchored.txt"
    );
}

#[test]
fn grep_ignores_gitignore_files_above_the_repository_root() {
    // (fd runs with --no-require-git and natively reads them all the way up; the components
    // get the files up to the repository root only.)
    let (ws, repo) = repo_workspace();
    let above: &Path = &repo.join("..");
    put(above.join(".gitignore"), "a.txt\n");
    assert!(
        ws.ok("grep", json!({"pattern": "needle"}))
            .contains("a.txt")
    );
}

#[test]
fn a_workspace_pattern_re_includes_what_an_ancestor_ignores() {
    // git and rg: for `.gitignore` rules the nearest directory with a matching rule decides,
    // so the workspace's `!b.log` beats the repository root's `*.log`.
    let (ws, _repo) = repo_workspace();
    ws.write(".gitignore", "*.out\n!b.log\n");
    assert_eq!(
        ws.ok("grep", json!({"pattern": "needle"})),
        "a.txt:1: needle\nb.log:1: needle\nkeep.log:1: needle\nsub/anchored.txt:1: needle"
    );
    assert_eq!(
        ws.ok("find", json!({"pattern": "*.log"})),
        "b.log\nkeep.log"
    );
}
