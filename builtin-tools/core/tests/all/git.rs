//! Git's exclude files besides the ignore files: the user's global excludes and the
//! `info/exclude` of a linked worktree's repository (kept in its common git directory). rg
//! and fd (the `ignore` crate) apply both; so must grep and find, natively and as components
//! (which get what lies outside the workspace from the host).
//!
//! What rg does here was checked with rg 13 on real repositories: the global patterns are
//! relative to its working directory and apply only inside a repository; a worktree's `.git`
//! file makes a repository root and its exclude is read from the common directory.

use crate::common::Ws;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Command;

fn put(path: PathBuf, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// `env` without the variables that point git at config files, and with a system config that
/// does not exist (under `home`): the global excludes then come from `home` only.
pub fn isolated_env(env: &[(String, String)], home: &Path) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = env
        .iter()
        .filter(|(k, _)| {
            !matches!(
                k.as_str(),
                "XDG_CONFIG_HOME" | "GIT_CONFIG_GLOBAL" | "GIT_CONFIG_SYSTEM"
            )
        })
        .cloned()
        .collect();
    let system = home.join("no-system-gitconfig");
    env.push((
        "GIT_CONFIG_SYSTEM".into(),
        system.to_string_lossy().into_owned(),
    ));
    env
}

/// Runs real git in `dir`, away from the user's and the system's git config.
pub fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@t.invalid"])
        .args(args)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?} failed");
}

/// A repository at `dir` with one commit (a worktree needs one) whose `info/exclude` is
/// `exclude`.
pub fn repo_with_exclude(dir: &Path, exclude: &str) {
    std::fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "-q"]);
    git(dir, &["commit", "-q", "--allow-empty", "-m", "init"]);
    put(dir.join(".git/info/exclude"), exclude);
}

/// A workspace at `rel` in a temp dir whose user home (for git's global excludes) is `home`
/// there, holding `excludes` as `~/.config/git/ignore`; and that home.
fn with_global_excludes(rel: &str, excludes: &str) -> (Ws, PathBuf) {
    let mut ws = Ws::nested(rel);
    let home = ws.dir.path().canonicalize().unwrap().join("home");
    put(home.join(".config/git/ignore"), excludes);
    ws.set_git_home(&home);
    (ws, home)
}

fn write_all(ws: &Ws, files: &[&str]) {
    for file in files {
        ws.write(file, "needle\n");
    }
}

#[test]
fn global_excludes_apply_inside_a_repository_relative_to_the_cwd() {
    let (ws, _home) = with_global_excludes("ws", "*.secret\n/top.txt\n");
    std::fs::create_dir_all(ws.path(".git")).unwrap();
    write_all(
        &ws,
        &[
            "a.txt",
            "b.secret",
            "top.txt",
            "sub/top.txt",
            "sub/c.secret",
        ],
    );
    assert_eq!(
        ws.ok("grep", json!({"pattern": "needle"})),
        "a.txt:1: needle\nsub/top.txt:1: needle"
    );
    assert_eq!(
        ws.ok("find", json!({"pattern": "*.{txt,secret}"})),
        "a.txt\nsub/top.txt"
    );
    // The workspace's own rules still beat them.
    ws.write(".gitignore", "!b.secret\n");
    assert_eq!(ws.ok("find", json!({"pattern": "*.secret"})), "b.secret");
}

#[test]
fn core_excludes_file_of_the_user_git_config_names_the_global_excludes() {
    let (ws, home) = with_global_excludes("ws", "*.ignored-by-default-file\n");
    put(
        home.join(".gitconfig"),
        "[core]\n\texcludesFile = ~/my-excludes\n",
    );
    put(home.join("my-excludes"), "*.mine\n");
    std::fs::create_dir_all(ws.path(".git")).unwrap();
    write_all(&ws, &["a.txt", "b.mine", "c.ignored-by-default-file"]);
    assert_eq!(
        ws.ok("grep", json!({"pattern": "needle"})),
        "a.txt:1: needle\nc.ignored-by-default-file:1: needle"
    );
}

#[test]
fn global_excludes_outside_a_repository_count_for_find_only() {
    // rg requires a repository for git's rules; pi runs fd with --no-require-git there.
    let (ws, _home) = with_global_excludes("ws", "*.secret\n");
    write_all(&ws, &["a.txt", "b.secret"]);
    assert_eq!(
        ws.ok("grep", json!({"pattern": "needle"})),
        "a.txt:1: needle\nb.secret:1: needle"
    );
    assert_eq!(ws.ok("find", json!({"pattern": "*"})), "a.txt");
}

/// `main` is a repository whose `info/exclude` ignores `/secret.txt`, `*.skip` and
/// `/sub/deep.txt`; `wt` a linked worktree of it; the workspace is `wt/<inner>`.
fn worktree_workspace(inner: &str) -> Ws {
    let rel = if inner.is_empty() {
        "wt".to_owned()
    } else {
        format!("wt/{inner}")
    };
    let ws = Ws::nested(&rel);
    let top = ws.dir.path().canonicalize().unwrap();
    // `git worktree add` wants the worktree's directory empty or absent.
    std::fs::remove_dir_all(top.join("wt")).unwrap();
    repo_with_exclude(&top.join("main"), "/secret.txt\n*.skip\n/sub/deep.txt\n");
    git(&top.join("main"), &["worktree", "add", "-q", "../wt"]);
    std::fs::create_dir_all(ws.root()).unwrap();
    ws
}

#[test]
fn a_worktree_workspace_applies_its_repository_exclude() {
    let ws = worktree_workspace("");
    write_all(
        &ws,
        &[
            "a.txt",
            "secret.txt",
            "b.skip",
            "sub/secret.txt",
            "sub/deep.txt",
        ],
    );
    assert_eq!(
        ws.ok("grep", json!({"pattern": "needle"})),
        "a.txt:1: needle\nsub/secret.txt:1: needle"
    );
    assert_eq!(
        ws.ok("find", json!({"pattern": "*.{txt,skip}"})),
        "a.txt\nsub/secret.txt"
    );
}

#[test]
fn a_workspace_inside_a_worktree_applies_its_repository_exclude() {
    let ws = worktree_workspace("sub");
    write_all(&ws, &["deep.txt", "keep.txt", "x.skip", "secret.txt"]);
    assert_eq!(
        ws.ok("grep", json!({"pattern": "needle"})),
        "keep.txt:1: needle\nsecret.txt:1: needle"
    );
    assert_eq!(
        ws.ok("find", json!({"pattern": "*.{txt,skip}"})),
        "keep.txt\nsecret.txt"
    );
}

#[test]
fn a_worktree_nested_in_the_workspace_applies_its_repository_exclude() {
    // The workspace is the main repository; `nested` a worktree of it. The anchored pattern
    // matches `only.txt` at the root of each, read from the same common directory.
    let ws = Ws::nested("main");
    repo_with_exclude(&ws.root(), "/only.txt\n");
    git(&ws.root(), &["worktree", "add", "-q", "nested"]);
    write_all(
        &ws,
        &[
            "only.txt",
            "other.txt",
            "nested/only.txt",
            "nested/other.txt",
        ],
    );
    assert_eq!(
        ws.ok("grep", json!({"pattern": "needle"})),
        "nested/other.txt:1: needle\nother.txt:1: needle"
    );
    assert_eq!(
        ws.ok("find", json!({"pattern": "*.txt"})),
        "nested/other.txt\nother.txt"
    );
}
