//! The `pi` binary end to end: `pi --version`, print mode with one text turn, print mode with a
//! 10-tool-call task (also with 5 hook packages installed: five tool-call gates, and five
//! copies of the test component `hook-probe`, which subscribes to every event; and in the
//! permission mode `ask-writes` with rules that allow each of its calls), each against
//! the in-process mock LLM server. Prints median / p95 wall
//! time and the peak RSS of the pi process (through `/usr/bin/time -f %M` when installed).
//!
//! `cargo bench -p pi-cli --bench cli` (builds `pi` in release); `scripts/release.sh` runs it
//! on the release build (`--profile dist`, hot functions linked first).
//! Targets: `--version` ≤ 3 ms, 1 turn ≤ 30 ms, 10 tool calls ≤ 150 ms, peak RSS ≤ 15 MB.
//! `PI_BENCH_RUNS` changes the number of runs per case (default 30). `PI_BENCH_WRAP` runs the
//! peak-RSS runs under another program instead of `time` (e.g. valgrind, as
//! `scripts/release.sh` does). `PI_BENCH_BASELINE=<path to another pi>` measures that binary in
//! the same run, its runs interleaved with this one's, and prints the ratio: on a noisy machine
//! only a comparison inside one run means anything.

// A measuring program: failing loudly on a broken setup is what we want.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use pi_mock_llm::{MockLlm, Turn};
use serde_json::json;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};
use support::Dirs;

const PI: &str = env!("CARGO_BIN_EXE_pi");
/// The arguments of the 10-tool-call runs.
const TEN_TOOLS_ARGS: [&str; 4] = [
    "--tools",
    "read,bash,edit,write,grep,find,ls",
    "-p",
    "Do it",
];
const TIME: &str = "/usr/bin/time";

struct Case {
    name: &'static str,
    args: Vec<String>,
    /// Replies to queue before each run.
    script: fn() -> Vec<Turn>,
    target_ms: f64,
    /// Which packages are installed.
    hooks: Hooks,
}

#[derive(Clone, Copy, PartialEq)]
enum Hooks {
    None,
    /// Five copies of the test hook `hook-probe`, which subscribes to every event (the worst
    /// case: each is asked at every prompt, request, tool call, result and turn).
    Probes,
    /// Five copies of `extensions/permission-gate`, asked at tool calls only (the usual case).
    Gates,
}

/// Installs `wasm` as five approved hook packages in `dirs`' agent dir.
fn install_hooks(dirs: &Dirs, wasm: &str) {
    for i in 0..5 {
        let package = dirs.agent.join("extensions").join(format!("hook-{i}"));
        std::fs::create_dir_all(&package).unwrap();
        std::fs::copy(wasm, package.join("hook.wasm")).unwrap();
        let manifest = format!(
            "[package]\nname = \"hook-{i}\"\nversion = \"0.1.0\"\nwit = \"0.3.0\"\n\n\
             [[component]]\npath = \"hook.wasm\"\nworld = \"hook\"\n\n\
             [capabilities]\nui = true\nsession = true\n"
        );
        std::fs::write(package.join("pi-extension.toml"), manifest).unwrap();
        let mut approve = Command::new(PI);
        approve.args(["ext", "approve", &package.to_string_lossy(), "--yes"]);
        let out = dirs.apply(&mut approve).output().unwrap();
        assert!(
            out.status.success(),
            "approve: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

fn no_turns() -> Vec<Turn> {
    Vec::new()
}

fn one_turn() -> Vec<Turn> {
    vec![
        Turn::text("Hello from the mock.")
            .usage(1200, 40, 0, 0)
            .chunk(8),
    ]
}

fn ten_tools() -> Vec<Turn> {
    vec![
        Turn::new()
            .tool_call(
                "c1",
                "write",
                json!({"path": "a.txt", "content": "alpha\nbeta\n"}),
            )
            .tool_call(
                "c2",
                "write",
                json!({"path": "b.txt", "content": "one\ntwo\n"}),
            ),
        Turn::new()
            .tool_call("c3", "read", json!({"path": "a.txt"}))
            .tool_call("c4", "ls", json!({"path": "."})),
        Turn::new()
            .tool_call(
                "c5",
                "edit",
                json!({"path": "a.txt", "edits": [{"oldText": "beta", "newText": "gamma"}]}),
            )
            .tool_call("c6", "bash", json!({"command": "cat b.txt > c.txt"})),
        Turn::new()
            .tool_call("c7", "grep", json!({"pattern": "gamma"}))
            .tool_call("c8", "find", json!({"pattern": "*.txt"})),
        Turn::new()
            .tool_call(
                "c9",
                "edit",
                json!({"path": "b.txt", "edits": [{"oldText": "two", "newText": "three"}]}),
            )
            .tool_call(
                "c10",
                "write",
                json!({"path": "d/e.txt", "content": "done"}),
            ),
        Turn::text("Done."),
    ]
}

fn command(bin: &str, dirs: &Dirs, args: &[String], rss: bool) -> Command {
    let wrap = std::env::var("PI_BENCH_WRAP").ok().filter(|_| rss);
    let mut cmd = if let Some(wrap) = wrap {
        let mut words = wrap.split(' ');
        let mut c = Command::new(words.next().unwrap());
        c.args(words).arg(bin);
        c
    } else if rss {
        let mut c = Command::new(TIME);
        c.args(["-f", "%M", bin]);
        c
    } else {
        Command::new(bin)
    };
    cmd.args(args);
    dirs.apply(&mut cmd);
    cmd
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1000.0
}

/// The figures of one binary on one case.
struct Figures {
    median: f64,
    p95: f64,
    peak_kb: u64,
}

fn main() {
    let runs = support::runs(30);
    let baseline = std::env::var("PI_BENCH_BASELINE").ok();
    let mut bins = vec![PI.to_owned()];
    bins.extend(baseline.clone());
    let mock = MockLlm::start();
    let plain = Dirs::new(&mock);
    let probes = Dirs::new(&mock);
    install_hooks(&probes, pi_ext_test_artifacts::HOOK_PROBE);
    let gates = Dirs::new(&mock);
    install_hooks(&gates, pi_extension_examples::PERMISSION_GATE.component);
    // Global approval rules allowing every call of the 10-tool-call run.
    let ruled = Dirs::new(&mock);
    let rules = json!({"nextId": 3, "rules": [
        {"id": "g1", "path": "**"},
        {"id": "g2", "command": "cat b.txt > c.txt"}
    ]});
    std::fs::write(ruled.agent.join("approvals.json"), rules.to_string()).unwrap();
    let wrapped = std::env::var_os("PI_BENCH_WRAP").is_some();
    // The wrapped runs replace `time`: they still happen, but measure no RSS.
    let has_time = Path::new(TIME).exists() && !wrapped;
    let strings = |a: &[&str]| a.iter().map(|s| (*s).to_owned()).collect::<Vec<String>>();
    let cases = [
        Case {
            name: "pi --version",
            args: strings(&["--version"]),
            script: no_turns,
            target_ms: 3.0,
            hooks: Hooks::None,
        },
        Case {
            name: "print mode, 1 text turn",
            args: strings(&["--no-session", "-p", "Say hello"]),
            script: one_turn,
            target_ms: 30.0,
            hooks: Hooks::None,
        },
        Case {
            name: "print mode, 1 text turn, 5 hooks on every event",
            args: strings(&["--no-session", "-p", "Say hello"]),
            script: one_turn,
            target_ms: 33.0,
            hooks: Hooks::Probes,
        },
        Case {
            name: "print mode, 10 tool calls",
            args: strings(&TEN_TOOLS_ARGS),
            script: ten_tools,
            target_ms: 150.0,
            hooks: Hooks::None,
        },
        Case {
            name: "print mode, 10 tool calls, 5 tool-call gates",
            args: strings(&TEN_TOOLS_ARGS),
            script: ten_tools,
            // The goal: within 1.1× of the run without hooks.
            target_ms: 165.0,
            hooks: Hooks::Gates,
        },
        Case {
            name: "print mode, 10 tool calls, 5 hooks on every event",
            args: strings(&TEN_TOOLS_ARGS),
            script: ten_tools,
            target_ms: 165.0,
            hooks: Hooks::Probes,
        },
    ];
    println!("pi: {PI}\nruns per case: {runs}");
    if let Some(baseline) = &baseline {
        println!("baseline: {baseline} (runs interleaved with pi's)");
    }
    println!("{}\n", hot_list_coverage());
    println!("| case | binary | median | p95 | target | peak RSS |");
    println!("|---|---|---|---|---|---|");
    let mut peak_kb = 0u64;
    for case in &cases {
        let dirs = match case.hooks {
            Hooks::None => &plain,
            Hooks::Probes => &probes,
            Hooks::Gates => &gates,
        };
        let run = |bin: &str, rss: bool| {
            mock.push_all((case.script)());
            let started = Instant::now();
            let out = command(bin, dirs, &case.args, rss).output().unwrap();
            let elapsed = started.elapsed();
            let err = String::from_utf8_lossy(&out.stderr).into_owned();
            assert!(out.status.success(), "{} ({bin}): {err}", case.name);
            let kb: u64 = err
                .lines()
                .last()
                .and_then(|l| l.trim().parse().ok())
                .unwrap_or(0);
            (elapsed, kb)
        };
        let mut times: Vec<Vec<Duration>> = vec![Vec::new(); bins.len()];
        for round in 0..runs + 2 {
            for (bin, times) in bins.iter().zip(&mut times) {
                let elapsed = run(bin, false).0;
                // The first two rounds warm the caches.
                if round >= 2 {
                    times.push(elapsed);
                }
            }
        }
        let figures: Vec<Figures> = bins
            .iter()
            .zip(&mut times)
            .map(|(bin, times)| {
                times.sort();
                let peak_kb = if has_time || wrapped {
                    (0..5).map(|_| run(bin, true).1).max().unwrap_or(0)
                } else {
                    0
                };
                Figures {
                    median: percentile(times, 0.5),
                    p95: percentile(times, 0.95),
                    peak_kb,
                }
            })
            .collect();
        peak_kb = peak_kb.max(figures[0].peak_kb);
        for (i, f) in figures.iter().enumerate() {
            print_row(
                case,
                if i == 0 { "pi" } else { "baseline" },
                f,
                has_time,
                wrapped,
            );
        }
        if let [now, before] = &figures[..] {
            println!(
                "| {} | pi ÷ baseline | {:.2}× | {:.2}× | | {:.2}× |",
                case.name,
                now.median / before.median,
                now.p95 / before.p95,
                now.peak_kb as f64 / before.peak_kb.max(1) as f64
            );
        }
    }
    if has_time {
        println!(
            "\npeak RSS over all runs: {:.1} MB (target ≤ 15 MB {})",
            peak_kb as f64 / 1024.0,
            if peak_kb <= 15 * 1024 { "✔" } else { "✘" }
        );
    }
    let dirs = [&plain, &gates, &probes, &ruled];
    gate_ratios(&mock, dirs, &cases[3].args, runs);
    let leftover = mock.pending();
    assert_eq!(leftover, 0, "every scripted reply was used");
}

/// The medians of the 10-tool-call run for each variant (its dirs and arguments), the runs
/// interleaved (each variant once per round) so that the machine's drift falls on all alike.
fn interleaved(mock: &MockLlm, variants: &[(&Dirs, Vec<String>)], runs: usize) -> Vec<f64> {
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); variants.len()];
    for round in 0..runs + 2 {
        for ((dirs, args), times) in variants.iter().zip(&mut times) {
            mock.push_all(ten_tools());
            let started = Instant::now();
            let out = command(PI, dirs, args, false).output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "{err}");
            if round >= 2 {
                times.push(started.elapsed());
            }
        }
    }
    times
        .into_iter()
        .map(|mut t| {
            t.sort();
            percentile(&t, 0.5)
        })
        .collect()
}

/// What hooks and approvals cost in the 10-tool-call run, as ratios inside one interleaved
/// run each: no hooks, five gates, five probes; `auto`, and `ask-writes` with global rules
/// that allow every call the run makes (every write and edit, and its one command).
fn gate_ratios(mock: &MockLlm, dirs: [&Dirs; 4], args: &[String], runs: usize) {
    let [plain, gates, probes, ruled] = dirs;
    let hooks = [plain, gates, probes].map(|d| (d, args.to_vec()));
    let [none, gates, probes] = interleaved(mock, &hooks, runs)[..] else {
        unreachable!("three variants")
    };
    println!(
        "\n10 tool calls, runs interleaved (medians): no hooks {none:.2} ms; \
         5 tool-call gates {gates:.2} ms ({:.2}×, goal ≤ 1.1×); \
         5 hooks on every event {probes:.2} ms ({:.2}×)",
        gates / none,
        probes / none
    );
    let mut asking = args.to_vec();
    asking.extend(["--permission-mode".to_owned(), "ask-writes".to_owned()]);
    // The rules must answer every call, or the run would measure refusals.
    mock.push_all(ten_tools());
    let out = command(PI, ruled, &asking, false).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("allowed by rule").count(), 6, "{err}");
    let modes = [(plain, args.to_vec()), (ruled, asking)];
    let [auto, ruled] = interleaved(mock, &modes, runs)[..] else {
        unreachable!("two variants")
    };
    println!(
        "10 tool calls, runs interleaved (medians): auto {auto:.2} ms; ask-writes with a rule \
         for every call {ruled:.2} ms ({:.2}×, goal ≤ 1.05×)",
        ruled / auto
    );
}

fn print_row(case: &Case, binary: &str, f: &Figures, has_time: bool, wrapped: bool) {
    let rss = if has_time {
        format!("{:.1} MB", f.peak_kb as f64 / 1024.0)
    } else if wrapped {
        "n/a (wrapped)".to_owned()
    } else {
        "n/a (no /usr/bin/time)".to_owned()
    };
    println!(
        "| {} | {binary} | {:.2} ms | {:.2} ms | ≤ {} ms {} | {} |",
        case.name,
        f.median,
        f.p95,
        case.target_ms,
        if f.median <= case.target_ms {
            "✔"
        } else {
            "✘"
        },
        rss
    );
}

/// How many names of the hot-function list the binary was linked with (`PI_LINK_ORDER`, set by
/// `scripts/release.sh`) it still has; a low share means the list is stale.
fn hot_list_coverage() -> String {
    let Some(list) = option_env!("PI_LINK_ORDER").filter(|p| !p.is_empty()) else {
        return "hot-function list: none (an ordinary build; scripts/release.sh links with one)"
            .to_owned();
    };
    let Ok(text) = std::fs::read_to_string(list) else {
        return format!("hot-function list: {list} is gone");
    };
    let Ok(nm) = Command::new("nm").args(["--defined-only", PI]).output() else {
        return "hot-function list: not checked (no nm)".to_owned();
    };
    let defined: std::collections::HashSet<&str> = std::str::from_utf8(&nm.stdout)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .collect();
    let names: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
    let found = names.iter().filter(|n| defined.contains(*n)).count();
    format!(
        "hot-function list: {found} of {} names in the binary{}",
        names.len(),
        if found * 10 < names.len() * 9 {
            " (stale: run scripts/release.sh again)"
        } else {
            ""
        }
    )
}
