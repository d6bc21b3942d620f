//! grep/find against native `rg`/`fd` over a generated tree, and `read` of a 50 KB file.
//!
//! Size: `PI_BENCH_FILES` (default 5000) files of `PI_BENCH_FILE_KB` (default 10) KB each; the
//! reference run is 50000 × 10 (≈500 MB). The tree is cached under the target directory.
//! `rg` and `fdfind` (Debian's fd) must be on PATH; missing ones are reported and skipped.
//! Run: `cargo bench -p pi-builtin-tools --bench search`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/common.rs"]
mod common;

use common::{env_usize, fd_knows_no_require_git, report, run_native, time, tree};
use pi_builtin_tools::{ToolEnv, Workspace, builtin_tool};
use serde_json::{Value, json};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

fn main() {
    let files = env_usize("PI_BENCH_FILES", 5000);
    let kb = env_usize("PI_BENCH_FILE_KB", 10);
    let root = tree(files, kb);
    println!(
        "tree: {} files x {kb} KB = {} MB at {}",
        files,
        files * kb / 1024,
        root.display()
    );
    let env = ToolEnv::native(Workspace::at(&root).unwrap());
    bench_grep(&env, &root);
    bench_find(&env, &root);
    bench_read();
}

/// Runs a tool and returns how many result lines it produced (including lines past the
/// 50 KB cut, which only the truncation details count).
fn run_tool(env: &ToolEnv, name: &str, args: Value) -> usize {
    let tool = builtin_tool(name).unwrap();
    let out = tool
        .execute(args, env, &mut |_| {}, &AtomicBool::new(false))
        .unwrap();
    match out.details["truncation"]["totalLines"].as_u64() {
        Some(total) => total as usize,
        None => out.joined_text().lines().count(),
    }
}

fn bench_grep(env: &ToolEnv, root: &Path) {
    let dir = root.to_str().unwrap();
    for (label, pattern) in [
        ("grep literal", "NEEDLE_TOKEN"),
        ("grep regex", r"NEEDLE_\w+N\b"),
    ] {
        let (ours, found) =
            time(|| run_tool(env, "grep", json!({"pattern": pattern, "limit": 1_000_000})));
        let rg_args = [
            "--json",
            "--line-number",
            "--color=never",
            "--hidden",
            pattern,
            dir,
        ];
        let native = run_native("rg", &rg_args).map(|out| {
            let rg_found = out
                .lines()
                .filter(|l| l.starts_with("{\"type\":\"match\""))
                .count();
            assert_eq!(found, rg_found, "{label}: match counts differ from rg");
            time(|| run_native("rg", &rg_args)).0
        });
        report(
            &format!("{label} ({found} matches)"),
            "pi",
            ours,
            native,
            "rg",
        );
    }
    // Many matches: pi's tool cuts its output at 50 KB, rg streams every match as JSON (which
    // pi would parse), so this compares the full cost of a broad search.
    let pattern = "handle value";
    let (ours, found) =
        time(|| run_tool(env, "grep", json!({"pattern": pattern, "limit": 1_000_000})));
    let rg_args = [
        "--json",
        "--line-number",
        "--color=never",
        "--hidden",
        pattern,
        dir,
    ];
    let native = run_native("rg", &rg_args).map(|out| {
        let rg_found = out
            .lines()
            .filter(|l| l.starts_with("{\"type\":\"match\""))
            .count();
        assert_eq!(found, rg_found, "many matches: counts differ from rg");
        time(|| run_native("rg", &rg_args)).0
    });
    report(
        &format!("grep many matches ({found})"),
        "pi",
        ours,
        native,
        "rg",
    );
}

fn bench_find(env: &ToolEnv, root: &Path) {
    let dir = root.to_str().unwrap();
    for pattern in ["*.rs", "d1*/**/*.md"] {
        let (ours, found) = time(|| {
            run_tool(
                env,
                "find",
                json!({"pattern": pattern, "limit": 10_000_000}),
            )
        });
        let full_path = format!("**/{pattern}");
        let mut fd_args = vec![
            "--glob",
            "--color=never",
            "--hidden",
            "--max-results",
            "10000000",
        ];
        if fd_knows_no_require_git() {
            fd_args.push("--no-require-git");
        }
        if pattern.contains('/') {
            fd_args.extend(["--full-path", &full_path]);
        } else {
            fd_args.push(pattern);
        }
        fd_args.push(dir);
        let native = run_native("fdfind", &fd_args).map(|out| {
            let fd_found = out.lines().count();
            if fd_found != found {
                println!("  note: fd found {fd_found}, pi found {found}");
            }
            time(|| run_native("fdfind", &fd_args)).0
        });
        report(
            &format!("find {pattern} ({found} results)"),
            "pi",
            ours,
            native,
            "fdfind",
        );
    }
}

fn bench_read() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let line = "x".repeat(99);
    std::fs::write(root.join("f.txt"), format!("{line}\n").repeat(512)).unwrap();
    let env = ToolEnv::native(Workspace::at(&root).unwrap());
    let tool = builtin_tool("read").unwrap();
    let cancel = AtomicBool::new(false);
    let iterations = 2000;
    let started = Instant::now();
    for _ in 0..iterations {
        let out = tool
            .execute(json!({"path": "f.txt"}), &env, &mut |_| {}, &cancel)
            .unwrap();
        std::hint::black_box(out);
    }
    let per = started.elapsed().as_secs_f64() * 1e6 / f64::from(iterations);
    println!("read of a 50 KB file (512 lines): {per:.1} µs");
}
