//! What checkpoints cost: a command's snapshot in a git repository of 10,000 files / 200 MB
//! (nothing changed: one status check; one file changed), a tool's write of a 1 MB file, and
//! the disk the store takes after 100 calls that each change one 10 KB file.
//!
//! `cargo bench -p pi-session --bench checkpoints` (goals: ≤ 30 ms added per command, ≤ 2 ms
//! per 1 MB write). `PI_BENCH_FILES` changes the repository's size (files of 20 KB).

// A measuring program: failing loudly on a broken setup is what we want.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use pi_session::checkpoints::{Journal, Recorder, blobs::dir_size};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

const RUNS: usize = 21;

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "bench")
        .env("GIT_AUTHOR_EMAIL", "bench@example.com")
        .env("GIT_COMMITTER_NAME", "bench")
        .env("GIT_COMMITTER_EMAIL", "bench@example.com")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}");
}

/// A committed repository of `files` files of 20 KB in 100 directories.
fn repository(dir: &Path, files: usize) {
    for i in 0..files {
        let sub = dir.join(format!("src/d{}", i % 100));
        std::fs::create_dir_all(&sub).unwrap();
        let line = format!("file {i}: {}\n", "x".repeat(90));
        std::fs::write(
            sub.join(format!("f{i}.txt")),
            line.repeat(20_000 / line.len()),
        )
        .unwrap();
    }
    git(dir, &["init", "-q"]);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "init"]);
}

fn median(mut times: Vec<Duration>) -> f64 {
    times.sort();
    times[times.len() / 2].as_secs_f64() * 1000.0
}

fn timed(f: impl FnOnce()) -> Duration {
    let start = Instant::now();
    f();
    start.elapsed()
}

fn main() {
    let files: usize = std::env::var("PI_BENCH_FILES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let built = timed(|| repository(&work, files));
    println!(
        "repository: {files} files, {} MB (made in {:.1} s)",
        dir_size(&work.join("src")) / 1_000_000,
        built.as_secs_f64()
    );
    let session = tmp.path().join("sessions/s.jsonl");
    std::fs::create_dir_all(session.parent().unwrap()).unwrap();
    let recorder = Arc::new(Recorder::new(&work, Vec::new()));
    recorder.start(Some(&session), "first");
    let first = timed(|| recorder.before_command("bash"));
    println!(
        "first snapshot (private index seeded from the repository's): {:.1} ms",
        first.as_secs_f64() * 1000.0
    );

    commands(&recorder, &work, &session);
    writes(&recorder, &work, &session);
    let fresh = tmp.path().join("fresh");
    std::fs::create_dir_all(&fresh).unwrap();
    repository(&fresh, 1000);
    disk(&fresh, tmp.path());
}

/// A command's snapshot before it (on the call's path) and after it (in the background).
fn commands(recorder: &Arc<Recorder>, work: &Path, session: &Path) {
    let status: Vec<Duration> = (0..RUNS)
        .map(|_| {
            timed(|| {
                let out = Command::new("git")
                    .args(["status", "--porcelain"])
                    .current_dir(work)
                    .output()
                    .unwrap();
                assert!(out.status.success());
            })
        })
        .collect();
    let mut unchanged = Vec::new();
    let mut changed = Vec::new();
    let mut after = Vec::new();
    for i in 0..RUNS {
        recorder.start(Some(session), &format!("p{i}"));
        unchanged.push(timed(|| recorder.before_command("bash")));
        recorder.after_command("bash");
        after.push(timed(|| recorder.flush()));
        std::fs::write(
            work.join(format!("src/d1/f{}.txt", 100 + i)),
            format!("changed {i}\n"),
        )
        .unwrap();
        changed.push(timed(|| recorder.before_command("bash")));
    }
    println!(
        "`git status` on the repository (for scale): {:.1} ms",
        median(status)
    );
    println!(
        "before a command, nothing changed (status check): {:.1} ms",
        median(unchanged)
    );
    println!(
        "before a command, one file changed: {:.1} ms",
        median(changed)
    );
    println!(
        "after a command (background, off the call's path): {:.1} ms",
        median(after)
    );
}

/// A tool's write of a 1 MB file: what the checkpoint adds around the write itself (the state
/// before, content kept; the state after, hashed), over an existing file and for a new one.
fn writes(recorder: &Arc<Recorder>, work: &Path, session: &Path) {
    let content = "y".repeat(1024 * 1024);
    let mut existing = Vec::new();
    let mut created = Vec::new();
    let mut bare = Vec::new();
    for i in 0..RUNS {
        recorder.start(Some(session), &format!("w{i}"));
        let path = work.join("big.bin");
        std::fs::write(&path, format!("{i}{content}")).unwrap();
        bare.push(timed(|| {
            std::fs::write(&path, format!("{content}{i}")).unwrap()
        }));
        let before = timed(|| recorder.before_write(&path));
        std::fs::write(&path, format!("{i}{content}{i}")).unwrap();
        existing.push(before + timed(|| recorder.after_tool()));
        let new = work.join(format!("new-{i}.bin"));
        let before = timed(|| recorder.before_write(&new));
        std::fs::write(&new, &content).unwrap();
        created.push(before + timed(|| recorder.after_tool()));
    }
    println!("write of 1 MB itself (for scale): {:.2} ms", median(bare));
    println!(
        "added to a write of 1 MB over an existing file: {:.2} ms",
        median(existing)
    );
    println!(
        "added to a write of a new 1 MB file: {:.2} ms",
        median(created)
    );
}

/// Disk after 100 calls that each change one 10 KB file (of a fresh repository of 1000 files):
/// by a tool, then by a command.
fn disk(work: &Path, tmp: &Path) {
    let text = |i: usize| format!("{i:>10}\n").repeat(10_240 / 11);
    for (name, command) in [("tool writes", false), ("commands", true)] {
        let session = tmp.join(format!("sessions/{name}.jsonl"));
        let recorder = Arc::new(Recorder::new(work, Vec::new()));
        for i in 0..100 {
            recorder.start(Some(&session), &format!("{name}{i}"));
            let path = work.join(format!("src/d2/f{}.txt", 200 + i % 10));
            if command {
                recorder.before_command("bash");
                std::fs::write(&path, text(i)).unwrap();
                recorder.after_command("bash");
            } else {
                recorder.before_write(&path);
                std::fs::write(&path, text(i)).unwrap();
                recorder.after_tool();
            }
        }
        recorder.flush();
        let store = Journal::for_session(&session);
        println!(
            "disk after 100 {name} changing one 10 KB file each: {} KB",
            store.size() / 1024
        );
    }
}
