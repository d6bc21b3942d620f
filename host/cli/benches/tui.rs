//! The interactive UI end to end, in a real pseudo-terminal (`script` from util-linux gives
//! `pi` one and hands back everything pi writes to it):
//! - launch to the first frame ready for input (the footer's context gauge drawn);
//! - CPU while the mock streams about 1,000 tokens a second (pi's user + system time over the
//!   stream's wall time, from /proc);
//! - peak RSS with a 5,000-message session open (`VmHWM`).
//!
//! `cargo bench -p pi-cli --bench tui`. The frame time with a 10,000-line transcript is pi-tui's
//! own bench (`cargo bench -p pi-tui --bench frame`). `PI_BENCH_RUNS` sets the launch runs
//! (default 20). `PI_BENCH_REFERENCE=<path to the TypeScript pi>` measures its launch the same
//! way in the same run (its footer's gauge reads `0.0%/…`, which holds the same marker).
//! Targets: launch ≤ 20 ms, CPU ≤ 10% of a core, RSS ≤ 60 MB.

// A measuring program: failing loudly on a broken setup is what we want.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/pty.rs"]
mod pty;
mod support;

use pi_mock_llm::{MockLlm, Turn};
use pty::{Session, peak_rss_kb};
use serde_json::json;
use std::path::Path;
use std::time::{Duration, Instant};
use support::Dirs;

const PI: &str = env!("CARGO_BIN_EXE_pi");

/// User + system CPU time of `pid` so far.
fn cpu_time(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // The fields after the command name, which may hold spaces, start after its `)`.
    let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    // Linux reports CPU time in clock ticks of 1/100 s (USER_HZ) on every architecture pi runs on.
    Duration::from_millis(ticks * 10)
}

/// The footer's context gauge: drawn once the first frame is ready for input.
const READY: &str = "0%";

fn launch(bin: &str, dirs: &Dirs, runs: usize) -> Vec<Duration> {
    let mut times: Vec<Duration> = (0..runs + 2)
        .map(|_| {
            let started = Instant::now();
            let mut session = Session::start(bin, dirs, &["--model", "mock/mock-model"]);
            session.wait_for(READY);
            let elapsed = started.elapsed();
            session.exit();
            elapsed
        })
        .skip(2)
        .collect();
    times.sort();
    times
}

/// The share of a core pi uses while the answer streams, the stream's wall time, and its rate
/// in tokens a second (at ~4 characters a token).
fn streaming_cpu(bin: &str, dirs: &Dirs, mock: &MockLlm) -> (f64, Duration, f64) {
    // The mock's 1 ms pauses take about 2 ms on this machine: 8-character chunks make about
    // 1,000 tokens a second (the rate is measured and printed).
    let words: String = (0..5000).map(|i| format!("w{:02} ", i % 100)).collect();
    let chars = words.len();
    mock.push_all([Turn::text(format!("{words} END-OF-STREAM"))
        .chunk(8)
        .delay_between_events(Duration::from_millis(1))]);
    let mut session = Session::start(bin, dirs, &["--model", "mock/mock-model", "--no-session"]);
    session.wait_for(READY);
    let pid = session.pi_pid();
    session.send(b"Stream please\r");
    session.wait_for("w00");
    let (cpu0, wall0) = (cpu_time(pid), Instant::now());
    session.wait_for("END-OF-STREAM");
    let (cpu, wall) = (cpu_time(pid) - cpu0, wall0.elapsed());
    session.exit();
    let rate = chars as f64 / 4.0 / wall.as_secs_f64();
    (cpu.as_secs_f64() / wall.as_secs_f64() * 100.0, wall, rate)
}

/// A session file of `messages` messages (half prompts, half answers of a few lines).
fn long_session(dir: &Path, cwd: &Path, messages: usize) -> std::path::PathBuf {
    let path = dir.join("long.jsonl");
    let mut out = String::new();
    let header = json!({"type": "session", "version": 3, "id": "bench-long",
        "timestamp": "2026-01-01T00:00:00.000Z", "cwd": cwd});
    out.push_str(&format!("{header}\n"));
    let mut parent = serde_json::Value::Null;
    for i in 0..messages {
        let id = format!("{i:08x}");
        let message = if i % 2 == 0 {
            json!({"role": "user", "content": format!("Question {i}: what does line {i} do?"),
                "timestamp": 0})
        } else {
            json!({"role": "assistant",
                "content": [{"type": "text", "text": format!(
                    "Line {i} reads the next token.\n\nIt keeps the position of the last newline \
                     so an error can point at its line and column.\n- first\n- second")}],
                "api": "openai-completions", "provider": "mock", "model": "mock-model",
                "usage": {"input": 10, "output": 20, "cacheRead": 0, "cacheWrite": 0,
                    "totalTokens": 30, "cost": {"input": 0, "output": 0, "cacheRead": 0,
                    "cacheWrite": 0, "total": 0}},
                "stopReason": "stop", "timestamp": 0})
        };
        let entry = json!({"type": "message", "id": id, "parentId": parent,
            "timestamp": "2026-01-01T00:00:00.000Z", "message": message});
        out.push_str(&format!("{entry}\n"));
        parent = json!(id);
    }
    std::fs::write(&path, out).unwrap();
    path
}

fn main() {
    let runs = support::runs(20);
    let mock = MockLlm::start();
    let dirs = Dirs::new(&mock);

    println!("pi: {PI}\n");
    println!("| measure | result | target |");
    println!("|---|---|---|");
    let reference = std::env::var("PI_BENCH_REFERENCE").ok();
    let bins = std::iter::once(("pi", PI)).chain(reference.as_deref().map(|r| ("reference pi", r)));
    let session = long_session(&dirs.home, &dirs.cwd, 5000);
    for (name, bin) in bins {
        let times = launch(bin, &dirs, runs);
        let median = times[times.len() / 2].as_secs_f64() * 1000.0;
        let p95 = times[(times.len() - 1) * 95 / 100].as_secs_f64() * 1000.0;
        println!(
            "| {name}: launch to the first frame ({runs} runs) | median {median:.1} ms, p95 {p95:.1} ms | ≤ 20 ms |"
        );
        let (cpu, wall, rate) = streaming_cpu(bin, &dirs, &mock);
        println!(
            "| {name}: CPU while streaming {rate:.0} tokens/s for {:.1} s | {cpu:.1}% of one core | ≤ 10% at 1,000 tokens/s |",
            wall.as_secs_f64()
        );
        let args = [
            "--model",
            "mock/mock-model",
            "--session",
            session.to_str().unwrap(),
        ];
        let mut open = Session::start(bin, &dirs, &args);
        open.wait_for(READY);
        let rss = peak_rss_kb(open.pi_pid());
        open.exit();
        println!(
            "| {name}: peak RSS, 5,000-message session open | {:.1} MB | ≤ 60 MB |",
            rss as f64 / 1024.0
        );
    }
    assert_eq!(mock.pending(), 0, "every scripted reply was used");
}
