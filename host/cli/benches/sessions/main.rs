//! Long sessions on the user's path: the release `pi` binary resuming generated session files
//! of 1, 10, 50 (and 200) MB in four shapes (one branch; eight branches; compacted; images and
//! big tool results), four ways each:
//! - load: `pi -c --mode rpc`, one `get_session_stats`, end of input;
//! - continue: `pi -c -p "Continue."` against the mock LLM, with a model whose window holds the
//!   whole context (so the request carries all of it);
//! - messages: `pi -c --mode rpc`, one `get_messages`;
//! - UI: `pi -c` in a pseudo-terminal of 100×30, to the first frame ready for input (the
//!   footer's context gauge drawn); its peak RSS is `VmHWM` at that point.
//!
//! Prints the median wall time and the peak RSS (`wait4`'s rusage of the pi process, as
//! `/usr/bin/time -f %M` reports it) per size, shape and action, so growth with the file is
//! visible.
//!
//! `cargo bench -p pi-cli --bench sessions`. `PI_BENCH_SIZES=1,10,50,200` picks the sizes in
//! MB (default 1,10,50: the 200 MB files take a while to write and to run), `PI_BENCH_RUNS` the
//! runs per case (default 3), `PI_BENCH_SHAPES=branch,media` a subset of the shapes,
//! `PI_BENCH_ACTIONS=load,continue,messages,ui` a subset of the actions.
//! `PI_BENCH_BASELINE=<another pi build>` and `PI_BENCH_REFERENCE=<path to the TypeScript pi>`
//! run those on the same files in the same run.
//! Targets: load ≤ 4 ms per MB with peak RSS ≤ 1.5× the file (one branch); continue with peak
//! RSS ≤ 2× the request body plus the index.

// A measuring program: failing loudly on a broken setup is what we want.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod generate;
#[path = "../support/pty.rs"]
mod pty;
#[path = "../support/mod.rs"]
mod support;

use generate::Shape;
use pi_mock_llm::{MockLlm, Turn};
use serde_json::json;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::time::Duration;
use support::Dirs;

const PI: &str = env!("CARGO_BIN_EXE_pi");

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    Load,
    Continue,
    Messages,
    Ui,
}

impl Action {
    const ALL: [Action; 4] = [Action::Load, Action::Continue, Action::Messages, Action::Ui];

    fn key(self) -> &'static str {
        match self {
            Action::Load => "load",
            Action::Continue => "continue",
            Action::Messages => "messages",
            Action::Ui => "ui",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Action::Load => "load (get_session_stats)",
            Action::Continue => "continue (-p)",
            Action::Messages => "get_messages",
            Action::Ui => "open in the UI (-c)",
        }
    }
}

/// One measured run: wall time, peak RSS in KB, and what pi wrote to stdout (bytes).
struct Run {
    wall: Duration,
    peak_kb: u64,
    stdout_bytes: usize,
}

/// Runs under `time`, which reports the peak RSS of its child from `wait4`: the bench's own
/// peak cannot leak into it (a child spawned by this process directly inherits the spawner's
/// high-water mark at `exec`, and this process holds the mock's logged request bodies).
const TIME: &str = "/usr/bin/time";

fn run(bin: &str, dirs: &Dirs, mock: &MockLlm, action: Action) -> Run {
    if action == Action::Ui {
        return open_in_ui(bin, dirs);
    }
    let mut cmd = Command::new(TIME);
    cmd.args(["-f", "%M", bin]);
    dirs.apply(&mut cmd).stdout(Stdio::piped());
    let rpc = match action {
        Action::Load => Some("get_session_stats"),
        Action::Messages => Some("get_messages"),
        Action::Continue | Action::Ui => None,
    };
    match rpc {
        Some(_) => cmd.args(["-c", "--mode", "rpc"]).stdin(Stdio::piped()),
        None => {
            mock.push(Turn::text("Carrying on.").usage(1000, 10, 0, 0));
            cmd.args(["-c", "-p", "Continue."])
        }
    };
    let started = std::time::Instant::now();
    let mut child = cmd.spawn().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut stdout_bytes = 0;
    if let Some(command) = rpc {
        let mut stdin = child.stdin.take().unwrap();
        writeln!(stdin, "{}", json!({"id": "bench", "type": command})).unwrap();
        // Read up to the response, then close stdin: pi ends at the end of its input.
        let mut line = Vec::new();
        loop {
            line.clear();
            let n = stdout.read_until(b'\n', &mut line).unwrap();
            assert!(n > 0, "pi ended before answering {command}");
            stdout_bytes += n;
            let marker = b"\"id\":\"bench\"";
            if line.windows(marker.len()).any(|w| w == marker) {
                break;
            }
        }
        drop(stdin);
    }
    let mut rest = Vec::new();
    stdout.read_to_end(&mut rest).unwrap();
    stdout_bytes += rest.len();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    let wall = started.elapsed();
    assert!(
        status.success(),
        "{} failed ({status}): {stderr}",
        action.name()
    );
    let peak_kb = stderr
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .expect("`time -f %M` prints the peak RSS");
    Run {
        wall,
        peak_kb,
        stdout_bytes,
    }
}

/// The footer's context gauge (`0%` here, the window being huge; the reference pi draws
/// `0.0%/…`): drawn once the first frame is ready for input.
const READY: &str = "0%";

/// `pi -c` in a pseudo-terminal until its first frame is drawn, then Ctrl+D.
fn open_in_ui(bin: &str, dirs: &Dirs) -> Run {
    let started = std::time::Instant::now();
    let mut ui = pty::Session::start(bin, dirs, &["-c"]);
    ui.wait_for(READY);
    let wall = started.elapsed();
    let peak_kb = pty::peak_rss_kb(ui.pi_pid());
    ui.exit();
    Run {
        wall,
        peak_kb,
        stdout_bytes: 0,
    }
}

fn env_list(name: &str, default: &str) -> Vec<String> {
    std::env::var(name)
        .unwrap_or_else(|_| default.to_owned())
        .split(',')
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

/// The members of `all` that `variable` names by key (all of them when it is unset).
fn picked<T: Copy>(variable: &str, all: &[T], key: fn(T) -> &'static str) -> Vec<T> {
    match std::env::var(variable) {
        Err(_) => all.to_vec(),
        Ok(_) => {
            let wanted = env_list(variable, "");
            all.iter()
                .copied()
                .filter(|t| wanted.iter().any(|w| key(*t) == w))
                .collect()
        }
    }
}

/// A model whose window holds every generated session, with images.
fn big_window_models(dirs: &Dirs, mock: &MockLlm) {
    let models = json!({"providers": {"mock": {
        "baseUrl": mock.base_url(pi_mock_llm::Api::OpenAiCompletions),
        "api": "openai-completions", "apiKey": "bench",
        "models": [{"id": "mock-model", "contextWindow": 1_000_000_000u64, "maxTokens": 16384,
                    "input": ["text", "image"]}]
    }}});
    std::fs::write(dirs.agent.join("models.json"), models.to_string()).unwrap();
    let settings = json!({"defaultProvider": "mock", "defaultModel": "mock-model"});
    std::fs::write(dirs.agent.join("settings.json"), settings.to_string()).unwrap();
}

fn median(mut walls: Vec<Duration>) -> Duration {
    walls.sort();
    walls[walls.len() / 2]
}

/// The bins to measure: ours, another build when `PI_BENCH_BASELINE` names one, and the
/// reference pi when `PI_BENCH_REFERENCE` names it.
fn binaries() -> Vec<(&'static str, String)> {
    let mut bins = vec![("pi", PI.to_owned())];
    if let Ok(baseline) = std::env::var("PI_BENCH_BASELINE") {
        bins.push(("baseline", baseline));
    }
    match std::env::var("PI_BENCH_REFERENCE") {
        Ok(reference) => bins.push(("reference", reference)),
        Err(_) => println!("reference pi: not installed (set PI_BENCH_REFERENCE to compare)"),
    }
    bins
}

fn main() {
    let sizes: Vec<u64> = env_list("PI_BENCH_SIZES", "1,10,50")
        .iter()
        .map(|s| s.parse().expect("PI_BENCH_SIZES: numbers of MB"))
        .collect();
    let runs = support::runs(3);
    let bins = binaries();
    println!("pi: {PI}\nruns per case: {runs} (median time, highest peak RSS)\n");
    println!("| shape | file | action | binary | time | ms/MB | peak RSS | RSS ÷ file | stdout |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for shape in picked("PI_BENCH_SHAPES", &Shape::ALL, Shape::key) {
        for &mb in &sizes {
            let mock = MockLlm::start();
            let dirs = Dirs::new(&mock);
            big_window_models(&dirs, &mock);
            let dir = pi_session::paths::default_session_dir(&dirs.agent, &dirs.cwd);
            std::fs::create_dir_all(&dir).unwrap();
            let path = dir.join("2026-01-01T00-00-00-000Z_bench.jsonl");
            generate::write_session(&path, &dirs.cwd, mb, shape);
            let file_mb = std::fs::metadata(&path).unwrap().len() as f64 / 1048576.0;
            for action in picked("PI_BENCH_ACTIONS", &Action::ALL, Action::key) {
                for (label, bin) in &bins {
                    let measured: Vec<Run> =
                        (0..runs).map(|_| run(bin, &dirs, &mock, action)).collect();
                    let peak_kb = measured.iter().map(|r| r.peak_kb).max().unwrap_or(0);
                    let out = measured.last().map_or(0, |r| r.stdout_bytes);
                    let wall = median(measured.into_iter().map(|r| r.wall).collect());
                    let ms = wall.as_secs_f64() * 1000.0;
                    let rss_mb = peak_kb as f64 / 1024.0;
                    println!(
                        "| {} | {file_mb:.1} MB | {} | {label} | {ms:.0} ms | {:.1} | {rss_mb:.1} MB | {:.2}× | {:.1} MB |",
                        shape.name(),
                        action.name(),
                        ms / file_mb,
                        rss_mb / file_mb,
                        out as f64 / 1048576.0
                    );
                }
            }
            if let Some(request) = mock.requests().last() {
                let body = request.body.to_string().len() as f64 / 1048576.0;
                println!(
                    "| {} | {file_mb:.1} MB | (last request body) | | | | {body:.1} MB | | |",
                    shape.name()
                );
            }
        }
    }
}
