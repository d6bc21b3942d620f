use super::*;
use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::process::Command;
use std::sync::Arc;

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@t")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@t")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Every file below `dir` (not `.git`) with its content and mode.
fn hashes(dir: &Path) -> BTreeMap<String, (String, u32)> {
    let mut files = BTreeMap::new();
    for entry in ignore::WalkBuilder::new(dir)
        .standard_filters(false)
        .hidden(false)
        .build()
        .flatten()
    {
        let path = entry.path();
        if path.components().any(|c| c.as_os_str() == ".git") {
            continue;
        }
        let meta = std::fs::symlink_metadata(path).unwrap();
        if meta.is_file() {
            let bytes = std::fs::read(path).unwrap();
            let rel = path.strip_prefix(dir).unwrap().display().to_string();
            files.insert(
                rel,
                (
                    blobs::sha256_hex(&bytes),
                    meta.permissions().mode() & 0o7777,
                ),
            );
        }
    }
    files
}

/// The user's git state: status, stash, index, HEAD and refs.
fn git_state(dir: &Path) -> String {
    [
        git(dir, &["status", "--porcelain", "--untracked-files=all"]),
        git(dir, &["stash", "list"]),
        git(dir, &["ls-files", "-s"]),
        git(dir, &["rev-parse", "HEAD"]),
        git(dir, &["for-each-ref"]),
        git(dir, &["count-objects", "-v"]),
    ]
    .join("\n--\n")
}

struct Setup {
    _tmp: tempfile::TempDir,
    work: PathBuf,
    session: PathBuf,
    recorder: Arc<Recorder>,
}

fn setup(with_git: bool) -> Setup {
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("work");
    std::fs::create_dir_all(work.join("src")).unwrap();
    std::fs::write(work.join("src/a.txt"), "a1\n").unwrap();
    std::fs::write(work.join("b.txt"), "b1\n").unwrap();
    std::fs::write(work.join(".gitignore"), "*.log\n").unwrap();
    std::fs::write(work.join("keep.log"), "log1\n").unwrap();
    if with_git {
        git(&work, &["init", "-q"]);
        git(&work, &["add", "-A"]);
        git(&work, &["commit", "-qm", "init"]);
    }
    let sessions = tmp.path().join("sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    let session = sessions.join("s.jsonl");
    let recorder = Arc::new(Recorder::new(&work, Vec::new()));
    Setup {
        _tmp: tmp,
        work,
        session,
        recorder,
    }
}

fn tool_write(recorder: &Recorder, path: &Path, text: &str) {
    recorder.before_write(path);
    std::fs::write(path, text).unwrap();
    recorder.after_tool();
}

fn command(recorder: &Arc<Recorder>, work: &Path, script: &str) {
    recorder.before_command("bash");
    let status = Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(work)
        .status()
        .unwrap();
    assert!(status.success());
    recorder.after_tool();
    recorder.after_command("bash");
}

#[test]
fn a_rewind_puts_back_tool_writes_and_command_changes_and_leaves_git_alone() {
    let s = setup(true);
    let (work, r) = (&s.work, &s.recorder);
    let before = hashes(work);
    let git_before = git_state(work);
    r.start(Some(&s.session), "p1");
    tool_write(r, &work.join("src/a.txt"), "a2\n");
    tool_write(r, &work.join("new.txt"), "new\n");
    tool_write(r, &work.join("keep.log"), "log2\n");
    command(
        r,
        work,
        "rm b.txt && mv src/a.txt src/moved.txt && echo u > untracked.txt && chmod +x untracked.txt && echo x > other.log",
    );
    assert!(r.finish_run().is_some());

    let plan = r.plan("p1").unwrap();
    let mut kinds: Vec<_> = plan
        .changes
        .iter()
        .map(|c| {
            (
                c.path.strip_prefix(work).unwrap().display().to_string(),
                c.change,
                c.changed_outside,
            )
        })
        .collect();
    kinds.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        kinds,
        vec![
            ("b.txt".to_owned(), ChangeKind::Deleted, false),
            ("keep.log".to_owned(), ChangeKind::Modified, false),
            ("new.txt".to_owned(), ChangeKind::Created, false),
            ("src/a.txt".to_owned(), ChangeKind::Deleted, false),
            ("src/moved.txt".to_owned(), ChangeKind::Created, false),
            ("untracked.txt".to_owned(), ChangeKind::Created, false),
        ]
    );
    assert!(
        plan.not_covered.iter().any(|l| l.contains("git ignores")),
        "{:?}",
        plan.not_covered
    );
    let after_run = hashes(work);
    let git_after_run = git_state(work);
    let done = r.rewind(&plan, "rw1", false).unwrap();
    assert!(done.failed.is_empty(), "{:?}", done.failed);
    let mut now = hashes(work);
    // Documented: a file git ignores that a command wrote is not covered.
    assert_eq!(now.remove("other.log").map(|(_, m)| m), Some(0o644));
    assert_eq!(now, before);
    assert_eq!(git_state(work), git_before);

    // The rewind itself is a checkpoint: going back to it undoes it.
    let undo = r.plan("rw1").unwrap();
    let done = r.rewind(&undo, "rw2", false).unwrap();
    assert!(done.failed.is_empty(), "{:?}", done.failed);
    assert_eq!(hashes(work), after_run);
    assert_eq!(git_state(work), git_after_run);
}

#[test]
fn a_file_changed_outside_pi_is_reported_and_kept_unless_overwritten() {
    let s = setup(true);
    let (work, r) = (&s.work, &s.recorder);
    r.start(Some(&s.session), "p1");
    tool_write(r, &work.join("b.txt"), "b2\n");
    command(r, work, "echo c2 > src/a.txt");
    r.flush();
    // The user edits both afterwards.
    std::fs::write(work.join("b.txt"), "user\n").unwrap();
    std::fs::write(work.join("src/a.txt"), "user\n").unwrap();
    let plan = r.plan("p1").unwrap();
    let outside: Vec<_> = plan
        .changed_outside()
        .map(|p| p.strip_prefix(work).unwrap().to_path_buf())
        .collect();
    assert_eq!(
        outside,
        vec![PathBuf::from("b.txt"), PathBuf::from("src/a.txt")]
    );
    let done = r.rewind(&plan, "rw", false).unwrap();
    assert_eq!(done.kept.len(), 2);
    assert_eq!(
        std::fs::read_to_string(work.join("b.txt")).unwrap(),
        "user\n"
    );
    let plan = r.plan("p1").unwrap();
    r.rewind(&plan, "rw2", true).unwrap();
    assert_eq!(std::fs::read_to_string(work.join("b.txt")).unwrap(), "b1\n");
    assert_eq!(
        std::fs::read_to_string(work.join("src/a.txt")).unwrap(),
        "a1\n"
    );
}

#[test]
fn outside_git_commands_are_not_covered_and_tool_writes_still_are() {
    let s = setup(false);
    let (work, r) = (&s.work, &s.recorder);
    r.start(Some(&s.session), "p1");
    tool_write(r, &work.join("b.txt"), "b2\n");
    command(r, work, "echo c > c.txt");
    let plan = r.plan("p1").unwrap();
    assert!(
        plan.not_covered
            .iter()
            .any(|l| l.contains("not in a git work tree")),
        "{:?}",
        plan.not_covered
    );
    r.rewind(&plan, "rw", false).unwrap();
    assert_eq!(std::fs::read_to_string(work.join("b.txt")).unwrap(), "b1\n");
    assert!(work.join("c.txt").exists());
}

#[test]
fn an_unchanged_work_tree_adds_no_tree_record_within_a_prompt() {
    let s = setup(true);
    let (work, r) = (&s.work, &s.recorder);
    r.start(Some(&s.session), "p1");
    command(r, work, "true");
    command(r, work, "true");
    r.flush();
    let records = Journal::for_session(&s.session).records().unwrap();
    let trees = records
        .iter()
        .filter(|r| matches!(r, Record::Tree { .. }))
        .count();
    assert_eq!(trees, 1, "{records:?}");
}

#[test]
fn a_preview_between_prompts_leaves_the_next_snapshot_true_to_the_work_tree() {
    let s = setup(true);
    let (work, r) = (&s.work, &s.recorder);
    r.start(Some(&s.session), "p1");
    command(r, work, "echo a2 > src/a.txt");
    r.flush();
    // The user edits a file, then looks at what a rewind would do, and goes on.
    std::fs::write(work.join("b.txt"), "user\n").unwrap();
    assert!(!r.plan("p1").unwrap().changes.is_empty());
    r.start(Some(&s.session), "p2");
    command(r, work, "true");
    // Nothing changed since the second prompt began.
    let plan = r.plan("p2").unwrap();
    assert!(plan.changes.is_empty(), "{:?}", plan.changes);
}
