//! `pi ext` costs, with the `pi` binary against the in-process mock LLM: installing a local
//! package of three components into a fresh agent dir (validation and precompiling included),
//! `pi ext list` with 20 packages installed, and a print-mode turn with 20 installed packages
//! (single-component files, checked against their recorded hashes like any fetched package)
//! against none (runs interleaved, so the ratio holds on a noisy machine). Tool components are
//! the extension host's test tool.
//!
//! `cargo bench -p pi-cli --bench packages` (builds `pi` in release). Targets: `pi ext list`
//! ≤ 10 ms; start-up with 20 packages ≤ 1.2× start-up with none. `PI_BENCH_RUNS` sets the runs
//! per case (default 20).

// A measuring program: failing loudly on a broken setup is what we want.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use pi_mock_llm::{MockLlm, Turn};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use support::Dirs;

const PI: &str = env!("CARGO_BIN_EXE_pi");

/// A package `name` holding `components` copies of the test tool component (each its own
/// tool set; later ones replace the tools of earlier ones, which is fine for timing).
fn package(root: &Path, name: &str, components: usize) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let mut manifest =
        format!("[package]\nname = \"{name}\"\nversion = \"1.0.0\"\nwit = \"0.3.0\"\n");
    for i in 0..components {
        std::fs::copy(
            pi_ext_test_artifacts::TOOL,
            dir.join(format!("tool{i}.wasm")),
        )
        .unwrap();
        manifest.push_str(&format!(
            "\n[[component]]\npath = \"tool{i}.wasm\"\nworld = \"tool\"\n"
        ));
    }
    std::fs::write(dir.join("pi-extension.toml"), manifest).unwrap();
    dir
}

fn pi(dirs: &Dirs, args: &[&str]) -> Command {
    let mut cmd = Command::new(PI);
    cmd.args(args);
    dirs.apply(&mut cmd);
    cmd
}

fn timed(mut cmd: Command) -> Duration {
    let started = Instant::now();
    let out = cmd.output().unwrap();
    let elapsed = started.elapsed();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    elapsed
}

fn main() {
    let runs = support::runs(20);
    let mock = MockLlm::start();
    let sources = tempfile::tempdir().unwrap();
    println!("pi: {PI}\nruns per case: {runs}\n");
    println!("| case | median | target |");
    println!("|---|---|---|");

    // Install with precompile: each run into a fresh agent dir (cold component cache).
    let three = package(sources.path(), "three", 3);
    let installs: Vec<Duration> = (0..runs.min(10))
        .map(|_| {
            let dirs = Dirs::new(&mock);
            timed(pi(
                &dirs,
                &["ext", "install", three.to_str().unwrap(), "--yes"],
            ))
        })
        .collect();
    println!(
        "| install a local package of 3 components (precompiled) | {:.1} ms | — |",
        support::median_ms(installs)
    );

    // 20 packages installed in one agent dir; a second dir with none.
    let with = Dirs::new(&mock);
    let none = Dirs::new(&mock);
    // Single-component files: installed as copies with recorded hashes, so start-up checks
    // them as it checks anything fetched (by size and time, without reading them).
    for i in 0..20 {
        let wasm = sources.path().join(format!("pkg{i:02}.wasm"));
        std::fs::copy(pi_ext_test_artifacts::TOOL, &wasm).unwrap();
        timed(pi(
            &with,
            &["ext", "install", wasm.to_str().unwrap(), "--yes"],
        ));
    }
    let lists: Vec<Duration> = (0..runs)
        .map(|_| timed(pi(&with, &["ext", "list"])))
        .collect();
    let list_ms = support::median_ms(lists);
    println!("| `pi ext list`, 20 packages | {list_ms:.1} ms | ≤ 10 ms |");

    let turn = |dirs: &Dirs| {
        mock.push(Turn::text("ok"));
        timed(pi(dirs, &["--no-session", "-p", "hi"]))
    };
    // Warm both (the first start with packages fills the start-up index), and make sure the
    // packages are what the runs with them load.
    mock.push(Turn::text("ok"));
    let out = pi(&with, &["--no-session", "--verbose", "-p", "hi"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("pkg19@0.0.0"),
        "the packages did not load: {err}"
    );
    turn(&none);
    let (mut t_with, mut t_none) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        t_with.push(turn(&with));
        t_none.push(turn(&none));
    }
    let (with_ms, none_ms) = (support::median_ms(t_with), support::median_ms(t_none));
    println!("| print-mode turn, no packages | {none_ms:.1} ms | — |");
    println!(
        "| print-mode turn, 20 packages | {with_ms:.1} ms ({:.2}×) | ≤ 1.2× |",
        with_ms / none_ms
    );
}
