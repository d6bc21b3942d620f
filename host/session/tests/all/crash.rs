//! Crash safety: a child process appending entries is killed with SIGKILL at random moments.
//! Every file must still load, and every entry the child acknowledged (it prints the id after
//! the append returned) must be there.
//!
//! The child is this test binary itself, re-run on `crash_child_process` with an environment
//! variable naming the session file.

// Test helpers fail loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::sessions::assistant;
use pi_session::session::SessionManager;
use std::collections::HashSet;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

const CHILD_ENV: &str = "PI_CRASH_TEST_SESSION_FILE";
const ROUNDS: usize = 60;
const FILES: usize = 6;
/// Past this size the child only writes small entries, so reloads stay quick in debug builds.
const BIG_ENTRY_BUDGET: u64 = 3 << 20;

/// The child side: appends until killed. Without the environment variable it does nothing.
#[test]
fn crash_child_process() {
    let Ok(path) = std::env::var(CHILD_ENV) else {
        return;
    };
    let path = PathBuf::from(path);
    let mut session = SessionManager::open(&path, Path::new("/crash")).unwrap();
    let mut out = std::io::stdout().lock();
    let seed: String = std::iter::repeat_with(fastrand::alphanumeric)
        .take(64 << 10)
        .collect();
    let pool = seed.repeat(16);
    loop {
        let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        // Big entries span many pages, so a kill can land in the middle of their write.
        let big = size < BIG_ENTRY_BUDGET && fastrand::u8(..) < 24;
        let len = if big {
            fastrand::usize(128 << 10..768 << 10)
        } else {
            fastrand::usize(20..2000)
        };
        let start = fastrand::usize(..pool.len() - len);
        let id = session
            .append_message(assistant(&pool[start..start + len]))
            .unwrap();
        writeln!(out, "ACK {id}").unwrap();
        out.flush().unwrap();
    }
}

fn run_child_and_kill(path: &Path) -> Vec<String> {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "crash::crash_child_process",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, path)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .filter_map(|l| l.strip_prefix("ACK ").map(str::to_owned))
            .collect::<Vec<_>>()
    });
    std::thread::sleep(Duration::from_millis(fastrand::u64(20..150)));
    child.kill().unwrap(); // SIGKILL on Unix
    child.wait().unwrap();
    reader.join().unwrap()
}

#[test]
fn appends_survive_sigkill() {
    if std::env::var(CHILD_ENV).is_ok() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<PathBuf> = (0..FILES)
        .map(|i| dir.path().join(format!("crash-{i}.jsonl")))
        .collect();
    let mut acked: Vec<HashSet<String>> = vec![HashSet::new(); FILES];
    let mut total_acks = 0;
    let mut repaired = 0;
    for round in 0..ROUNDS {
        let file = round % FILES;
        let ids = run_child_and_kill(&files[file]);
        total_acks += ids.len();
        acked[file].extend(ids);
        if !files[file].exists() {
            assert!(acked[file].is_empty());
            continue;
        }
        let session = SessionManager::open(&files[file], Path::new("/crash"))
            .unwrap_or_else(|e| panic!("round {round}: {e}"));
        if !session.warnings().is_empty() {
            repaired += 1;
        }
        let present: HashSet<&str> = session.entries().iter().map(|e| e.id.as_str()).collect();
        for id in &acked[file] {
            assert!(
                present.contains(id.as_str()),
                "round {round}: acked entry {id} lost"
            );
        }
    }
    assert!(
        total_acks >= ROUNDS,
        "the child barely ran: {total_acks} acks"
    );
    // After one more append through our writer, every file is valid JSONL from end to end.
    for path in files.iter().filter(|p| p.exists()) {
        let mut session = SessionManager::open(path, Path::new("/crash")).unwrap();
        session.append_message(assistant("final")).unwrap();
        let text = std::fs::read_to_string(path).unwrap();
        assert!(text.ends_with('\n'));
        for (n, line) in text.lines().enumerate() {
            serde_json::from_str::<serde_json::Value>(line)
                .unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), n + 1));
        }
    }
    eprintln!(
        "crash test: {ROUNDS} kills, {total_acks} acked entries, {repaired} loads with a cut line"
    );
}
