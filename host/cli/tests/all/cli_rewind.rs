//! Rewind end to end: the real binary changes a workspace through every kind of tool (the
//! mock LLM scripts the calls), then `pi rewind` and the RPC commands put it back, checked by
//! hashing every file with its mode, and the user's git state checked untouched.

use super::cli_extensions::{extend_manifest, install};
use super::cli_rpc::{RpcClient, ok};
use super::cli_support::{PiEnv, read_jsonl, stderr, stdout};
use super::pi_ref;
use pi_mock_llm::{Api, Turn};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@t")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@t")
        // Our own `git status` must not refresh the index: the test checks nobody writes it.
        .env("GIT_OPTIONAL_LOCKS", "0")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", stderr(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Every file below `dir` but `.git`'s: its SHA-256 and permission bits.
fn hashes(dir: &Path) -> BTreeMap<String, (String, u32)> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, (String, u32)>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                if entry.file_name() != ".git" {
                    walk(root, &path, out);
                }
                continue;
            }
            let sha = hex(&Sha256::digest(std::fs::read(&path).unwrap()));
            let rel = path.strip_prefix(root).unwrap().display().to_string();
            out.insert(rel, (sha, meta.permissions().mode() & 0o7777));
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Everything of the user's git state a checkpoint could disturb.
fn git_state(dir: &Path) -> String {
    let index = std::fs::read(dir.join(".git/index")).unwrap();
    [
        git(dir, &["status", "--porcelain", "--untracked-files=all"]),
        git(dir, &["stash", "list"]),
        git(dir, &["ls-files", "--stage"]),
        git(dir, &["rev-parse", "HEAD"]),
        git(dir, &["for-each-ref"]),
        git(dir, &["count-objects", "-v"]),
        hex(&Sha256::digest(index)),
    ]
    .join("\n--\n")
}

/// A workspace: tracked files, an ignored one, an untracked one; committed in git when asked.
fn workspace(pi: &PiEnv, with_git: bool) {
    let work = pi.cwd();
    std::fs::create_dir_all(work.join("src")).unwrap();
    std::fs::write(work.join("src/a.txt"), "alpha\nbeta\n").unwrap();
    std::fs::write(work.join("b.txt"), "bee\n").unwrap();
    std::fs::write(work.join("c.txt"), "sea\n").unwrap();
    std::fs::write(work.join("run.sh"), "#!/bin/sh\necho run\n").unwrap();
    std::fs::set_permissions(work.join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(work.join(".gitignore"), "*.log\n").unwrap();
    std::fs::write(work.join("keep.log"), "old log\n").unwrap();
    if with_git {
        git(&work, &["init", "-q"]);
        git(&work, &["add", "-A"]);
        git(&work, &["commit", "-qm", "init"]);
        git(&work, &["stash", "list"]);
    }
    std::fs::write(work.join("notes.txt"), "untracked before\n").unwrap();
}

/// The test tool as a package granted write access to the workspace (`probe`'s `fs` op).
fn writer_extension(pi: &PiEnv) {
    let package = install(&pi.agent_dir().join("extensions"), "writer");
    extend_manifest(&package, "[capabilities]\nfilesystem = \"write\"");
    pi.approve(&package);
}

/// One turn per call, then "done".
fn script(pi: &PiEnv, calls: &[(&str, Value)]) {
    for (i, (name, args)) in calls.iter().enumerate() {
        pi.mock
            .push(Turn::new().tool_call(format!("c{i}"), *name, args.clone()));
    }
    pi.mock.push(Turn::text("done"));
}

/// The calls that change the workspace in every way the issue names.
fn every_change() -> Vec<(&'static str, Value)> {
    vec![
        (
            "write",
            json!({"path": "new.txt", "content": "created by write\n"}),
        ),
        (
            "edit",
            json!({"path": "src/a.txt", "oldText": "beta", "newText": "BETA"}),
        ),
        (
            "bash",
            json!({"command": "rm b.txt && mv c.txt d.txt && echo made > made.txt && chmod +x made.txt && chmod -x run.sh && echo bash > bash.log"}),
        ),
        (
            "probe",
            json!({"op": "fs", "action": "write", "path": "ext.txt", "content": "by a component\n"}),
        ),
        (
            "probe",
            json!({"op": "fs", "action": "write", "path": "keep.log", "content": "component log\n"}),
        ),
        (
            "probe",
            json!({"op": "fs", "action": "remove", "path": "notes.txt"}),
        ),
    ]
}

fn run_ok(pi: &PiEnv, args: &[&str]) -> String {
    let out = pi.run(args);
    assert_eq!(out.status.code(), Some(0), "pi {args:?}: {}", stderr(&out));
    stdout(&out)
}

/// The entry id `pi rewind --list` shows for the prompt `text`.
fn listed_id(pi: &PiEnv, text: &str) -> String {
    let list = run_ok(pi, &["rewind", "--list"]);
    list.lines()
        .find(|line| line.ends_with(text))
        .and_then(|line| line.split_whitespace().next())
        .unwrap_or_else(|| panic!("{text} not in {list}"))
        .to_owned()
}

#[test]
fn rewinding_a_run_puts_the_workspace_back_exactly_and_moves_the_conversation() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    workspace(&pi, true);
    writer_extension(&pi);
    let work = pi.cwd();
    pi.mock.push(Turn::text("hi"));
    run_ok(&pi, &["-p", "hello"]);
    let before = hashes(&work);
    let git_before = git_state(&work);

    script(&pi, &every_change());
    run_ok(&pi, &["-c", "-p", "change everything"]);
    let changed = hashes(&work);
    for path in ["new.txt", "d.txt", "made.txt", "ext.txt"] {
        assert!(changed.contains_key(path), "{path}: {changed:?}");
    }
    assert!(!changed.contains_key("b.txt") && !changed.contains_key("notes.txt"));
    // The run's entry says which prompt its records are (pi skips it).
    let lines = read_jsonl(&pi.session_files()[0]);
    let marker = lines.last().unwrap();
    assert_eq!(marker["customType"], "pi-checkpoint", "{marker}");

    let id = listed_id(&pi, "change everything");
    let out = run_ok(&pi, &["rewind", &id]);
    assert!(out.contains("Not covered:"), "{out}");
    let mut after = hashes(&work);
    // Documented: a file git ignores that a command wrote is not covered.
    assert_eq!(after.remove("bash.log").map(|(_, mode)| mode), Some(0o644));
    assert_eq!(after, before, "{out}");
    // Shown with --nocapture: the workspace before the run, after it, and after the rewind.
    for (name, files) in [
        ("before", &before),
        ("changed", &changed),
        ("rewound", &after),
    ] {
        println!("{name}:");
        for (path, (sha, mode)) in files {
            println!("  {mode:o} {} {path}", &sha[..16]);
        }
    }
    assert_eq!(git_state(&work), git_before);

    // The conversation moved as /tree would: the next prompt follows "hi".
    let lines = read_jsonl(&pi.session_files()[0]);
    let rewind = lines.last().unwrap();
    assert_eq!(rewind["customType"], "pi-rewind", "{rewind}");
    let hi = lines
        .iter()
        .find(|l| l["message"]["role"] == "assistant")
        .unwrap();
    assert_eq!(rewind["parentId"], hi["id"]);
    pi.mock.push(Turn::text("again"));
    run_ok(&pi, &["-c", "-p", "next"]);
    let sent = pi.mock.requests().last().unwrap().body["messages"].to_string();
    assert!(
        sent.contains("hello") && !sent.contains("change everything"),
        "{sent}"
    );

    // Rewinding the rewind brings the run's changes back.
    let rewind_id = rewind["id"].as_str().unwrap();
    run_ok(&pi, &["rewind", rewind_id, "--files-only"]);
    let mut again = hashes(&work);
    let mut expected = changed.clone();
    assert_eq!(again.remove("bash.log"), expected.remove("bash.log"));
    assert_eq!(again, expected);
    // The user's git state but its status (the files differ now) is still as it was.
    let but_status = |state: &str| state.split("\n--\n").skip(1).collect::<Vec<_>>().join("|");
    assert_eq!(but_status(&git_state(&work)), but_status(&git_before));
}

/// Sends a prompt and waits until its run settled.
fn prompt(rpc: &mut RpcClient, text: &str) {
    let done = rpc.call(json!({"id": text, "type": "prompt", "message": text}));
    ok(&done);
    rpc.wait_event("agent_settled");
}

#[test]
fn files_only_and_conversation_only_do_just_that_over_rpc() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    workspace(&pi, true);
    let work = pi.cwd();
    let mut rpc = RpcClient::start(&pi);
    pi.mock.push(Turn::text("hi"));
    prompt(&mut rpc, "hello");
    script(
        &pi,
        &[("write", json!({"path": "b.txt", "content": "changed\n"}))],
    );
    prompt(&mut rpc, "change b");
    let points = rpc.call(json!({"id": "p", "type": "get_rewind_points"}));
    let points = ok(&points)["points"].as_array().unwrap().clone();
    assert_eq!(points.len(), 2, "{points:?}");
    assert_eq!(points[1]["text"], "change b");
    assert_eq!(points[1]["kind"], "prompt");
    let id = points[1]["entryId"].as_str().unwrap().to_owned();
    let preview = rpc.call(json!({"id": "v", "type": "get_rewind_preview", "entryId": id}));
    assert_eq!(
        ok(&preview)["changes"],
        json!([{"path": "b.txt", "change": "modified"}]),
        "{preview}"
    );

    // Conversation only: the files stay, the editor text is the prompt's.
    let done =
        rpc.call(json!({"id": "r", "type": "rewind", "entryId": id, "restore": "conversation"}));
    assert_eq!(ok(&done)["editorText"], "change b", "{done}");
    assert_eq!(ok(&done)["restored"], json!([]));
    assert_eq!(
        std::fs::read_to_string(work.join("b.txt")).unwrap(),
        "changed\n"
    );
    // The system prompt's record, "hello" and "hi".
    let state = rpc.call(json!({"id": "m", "type": "get_messages"}));
    assert_eq!(
        ok(&state)["messages"].as_array().unwrap().len(),
        3,
        "{state}"
    );

    // Files only: the conversation stays where it is.
    let done = rpc.call(json!({"id": "r2", "type": "rewind", "entryId": id, "restore": "files"}));
    assert_eq!(
        ok(&done)["restored"],
        json!([{"path": "b.txt", "change": "modified"}]),
        "{done}"
    );
    assert_eq!(
        std::fs::read_to_string(work.join("b.txt")).unwrap(),
        "bee\n"
    );
    let state = rpc.call(json!({"id": "m2", "type": "get_messages"}));
    assert_eq!(
        ok(&state)["messages"].as_array().unwrap().len(),
        3,
        "{state}"
    );
}

#[test]
fn a_file_the_user_changed_since_is_asked_about_and_declining_keeps_it() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    workspace(&pi, true);
    let work = pi.cwd();
    script(
        &pi,
        &[
            ("write", json!({"path": "b.txt", "content": "tool\n"})),
            ("bash", json!({"command": "echo tool > c.txt"})),
        ],
    );
    run_ok(&pi, &["-p", "change"]);
    std::fs::write(work.join("b.txt"), "user\n").unwrap();
    std::fs::write(work.join("c.txt"), "user\n").unwrap();
    let id = listed_id(&pi, "change");
    // No terminal to ask on: the user's files are kept, and said so.
    let out = pi.run(&["rewind", &id, "--files-only"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("modified since: b.txt  (changed outside pi since)"),
        "{text}"
    );
    assert!(text.contains("Kept (changed outside pi): b.txt"), "{text}");
    assert!(stderr(&out).contains("pass --yes"), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(work.join("b.txt")).unwrap(),
        "user\n"
    );
    assert_eq!(
        std::fs::read_to_string(work.join("c.txt")).unwrap(),
        "user\n"
    );
    run_ok(&pi, &["rewind", &id, "--files-only", "--yes"]);
    assert_eq!(
        std::fs::read_to_string(work.join("b.txt")).unwrap(),
        "bee\n"
    );
    assert_eq!(
        std::fs::read_to_string(work.join("c.txt")).unwrap(),
        "sea\n"
    );
}

#[test]
fn outside_git_commands_are_reported_not_covered_and_tool_writes_are_restored() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    workspace(&pi, false);
    let work = pi.cwd();
    script(
        &pi,
        &[
            ("write", json!({"path": "b.txt", "content": "tool\n"})),
            ("bash", json!({"command": "echo made > made.txt"})),
        ],
    );
    run_ok(&pi, &["-p", "change"]);
    let id = listed_id(&pi, "change");
    let out = run_ok(&pi, &["rewind", &id]);
    assert!(
        out.contains("Not covered: `bash`: ") && out.contains("is not in a git work tree"),
        "{out}"
    );
    assert_eq!(
        std::fs::read_to_string(work.join("b.txt")).unwrap(),
        "bee\n"
    );
    assert!(work.join("made.txt").exists());
}

#[test]
fn a_session_with_checkpoint_and_rewind_entries_still_opens_in_the_reference_pi() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    workspace(&pi, true);
    pi.mock.push(Turn::text("hi"));
    run_ok(&pi, &["-p", "hello"]);
    script(
        &pi,
        &[("write", json!({"path": "b.txt", "content": "tool\n"}))],
    );
    run_ok(&pi, &["-c", "-p", "rewrite bee"]);
    let id = listed_id(&pi, "rewrite bee");
    run_ok(&pi, &["rewind", &id]);
    pi.mock.push(Turn::text("theirs"));
    let out = pi_ref::run(&pi, &["--model", "mock/mock-model", "-c", "-p", "from pi"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "theirs");
    let sent = pi.mock.requests().last().unwrap().body["messages"].to_string();
    assert!(sent.contains("hello") && sent.contains("from pi"), "{sent}");
    assert!(
        !sent.contains("rewrite bee") && !sent.contains("pi-rewind"),
        "{sent}"
    );
    // And ours reads what theirs appended.
    pi.mock.push(Turn::text("ours"));
    run_ok(&pi, &["-c", "-p", "back in ours"]);
    let sent = pi.mock.requests().last().unwrap().body["messages"].to_string();
    assert!(
        sent.contains("theirs") && sent.contains("back in ours"),
        "{sent}"
    );
}

#[test]
fn checkpoints_false_records_nothing_and_a_files_rewind_says_so() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    workspace(&pi, true);
    pi.settings(json!({"checkpoints": false}));
    script(
        &pi,
        &[("write", json!({"path": "b.txt", "content": "tool\n"}))],
    );
    run_ok(&pi, &["-p", "change"]);
    let session = pi.session_files()[0].clone();
    assert!(!pi_session::checkpoints::dir_for(&session).exists());
    assert!(read_jsonl(&session).iter().all(|l| l["type"] != "custom"));
    let id = listed_id(&pi, "change");
    let out = pi.run(&["rewind", &id]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("keeps no checkpoints"),
        "{}",
        stderr(&out)
    );
    run_ok(&pi, &["rewind", &id, "--conversation-only"]);
}

#[test]
fn tui_rewind_lists_the_prompts_shows_the_changes_and_offers_the_three_choices() {
    use super::cli_tui_support::{FULLSCREEN, pi_in_tmux};
    let pi = PiEnv::new(Api::OpenAiCompletions);
    workspace(&pi, true);
    pi.settings(json!({"doubleEscapeAction": "rewind"}));
    let work = pi.cwd();
    pi.mock.push(Turn::new().tool_call(
        "c1",
        "write",
        json!({"path": "b.txt", "content": "tool\n"}),
    ));
    pi.mock
        .push(Turn::new().tool_call("c2", "bash", json!({"command": "echo made > made.txt"})));
    pi.mock.push(Turn::text("Changed them."));
    let tmux = pi_in_tmux(&pi, FULLSCREEN);
    tmux.submit("change the files");
    tmux.wait_text("Changed them.");
    tmux.wait_for("idle", |s| !s.contains("Working…"));
    // The user edits one of them afterwards.
    std::fs::write(work.join("b.txt"), "mine\n").unwrap();

    tmux.submit("/rewind");
    let list = tmux.wait_text("Rewind to before which prompt?");
    assert!(list.contains("change the files"), "{list}");
    tmux.keys(&["Enter"]);
    let how = tmux.wait_text("Rewind what?");
    println!("{how}");
    for line in [
        "modified b.txt  (changed outside pi since)",
        "created  made.txt",
        "Restore files and conversation",
        "Files only",
        "Conversation only",
    ] {
        assert!(how.contains(line), "{line}: {how}");
    }
    tmux.keys(&["Enter"]);
    tmux.wait_text("overwrite?");
    // Keep them: the rest goes back.
    tmux.keys(&["Enter"]);
    let done = tmux.wait_text("Rewound: 1 file(s) put back.");
    assert!(done.contains("kept (changed outside pi): b.txt"), "{done}");
    assert!(!work.join("made.txt").exists());
    assert_eq!(
        std::fs::read_to_string(work.join("b.txt")).unwrap(),
        "mine\n"
    );
    // The prompt is back in the editor, the conversation before it.
    assert!(done.contains("change the files"), "{done}");

    // Esc twice (doubleEscapeAction: rewind) lists the rewind; choosing it undoes it.
    tmux.keys(&["C-u"]);
    tmux.keys(&["Escape"]);
    // Two separate presses (sent together, a terminal reads ESC ESC as Alt+Esc).
    tmux.wait_text("Esc again to rewind the files and the conversation");
    tmux.keys(&["Escape"]);
    let list = tmux.wait_text("Rewind to before which prompt?");
    assert!(
        list.contains("↶ undo the rewind to: change the files"),
        "{list}"
    );
    tmux.keys(&["Enter"]);
    tmux.wait_text("Rewind what?");
    tmux.keys(&["Down", "Enter"]);
    // Its notice is the first's without the kept file.
    tmux.wait_for("the second rewind", |s| {
        s.contains("Rewound: 1 file(s) put back.") && !s.contains("kept (changed outside pi)")
    });
    assert_eq!(
        std::fs::read_to_string(work.join("made.txt")).unwrap(),
        "made\n"
    );
    tmux.exit();
}
