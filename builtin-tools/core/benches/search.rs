//! grep/find against native `rg`/`fd` over a generated tree, and `read` of a 50 KB file.
//!
//! Size: `PI_BENCH_FILES` (default 5000) files of `PI_BENCH_FILE_KB` (default 10) KB each; the
//! reference run is 50000 × 10 (≈500 MB). The tree is cached under the target directory.
//! `rg` and `fdfind` (Debian's fd) must be on PATH; missing ones are reported and skipped.
//! Run: `cargo bench -p pi-builtin-tools --bench search`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use pi_builtin_tools::{ToolEnv, Workspace, builtin_tool};
use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

const RUNS: usize = 5;
const WORDS: [&str; 12] = [
    "alpha", "beta", "gamma", "delta", "struct", "impl", "return", "value", "config", "buffer",
    "stream", "handle",
];

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

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

/// Builds (once) a tree of `files` files in three directory levels with a planted needle in
/// every 100th file and an ignored directory.
fn tree(files: usize, kb: usize) -> PathBuf {
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| PathBuf::from("target"), PathBuf::from);
    let root = target.join(format!("bench-tree-{files}-{kb}"));
    let root = std::path::absolute(root).unwrap();
    if root.join(".complete").exists() {
        return root;
    }
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join(".gitignore"), "ignored/\n*.tmp\n").unwrap();
    let mut rng = fastrand::Rng::with_seed(7);
    let exts = ["rs", "txt", "md", "ts"];
    for i in 0..files {
        let dir = if i % 97 == 0 {
            root.join("ignored").join(format!("x{}", i % 7))
        } else {
            root.join(format!("d{:02}/e{:02}", i % 50, (i / 50) % 20))
        };
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("file_{i}.{}", exts[i % exts.len()]));
        let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
        let mut written = 0;
        let mut line_no = 0;
        while written < kb * 1024 {
            let mut line = String::new();
            for _ in 0..10 {
                line.push_str(WORDS[rng.usize(..WORDS.len())]);
                line.push(' ');
            }
            if i % 100 == 0 && line_no == 5 {
                line.push_str("NEEDLE_TOKEN");
            }
            line.push('\n');
            written += line.len();
            line_no += 1;
            out.write_all(line.as_bytes()).unwrap();
        }
    }
    std::fs::write(root.join(".complete"), "").unwrap();
    root
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn time<T>(mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut last = f(); // warm-up (page cache)
    let mut samples = Vec::new();
    for _ in 0..RUNS {
        let started = Instant::now();
        last = f();
        samples.push(started.elapsed());
    }
    (median(samples), last)
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

fn run_native(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn report(what: &str, ours: Duration, native: Option<Duration>, tool: &str) {
    match native {
        Some(n) => println!(
            "{what}: pi {:.1} ms, {tool} {:.1} ms, ratio {:.2}x (target <= 1.5x)",
            ours.as_secs_f64() * 1e3,
            n.as_secs_f64() * 1e3,
            ours.as_secs_f64() / n.as_secs_f64()
        ),
        None => println!(
            "{what}: pi {:.1} ms ({tool} not available)",
            ours.as_secs_f64() * 1e3
        ),
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
        report(&format!("{label} ({found} matches)"), ours, native, "rg");
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
    report(&format!("grep many matches ({found})"), ours, native, "rg");
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
            ours,
            native,
            "fdfind",
        );
    }
}

/// fd before 8.7 has no `--no-require-git` (the bench tree lies inside a git checkout anyway).
fn fd_knows_no_require_git() -> bool {
    run_native("fdfind", &["--help"]).is_some_and(|help| help.contains("--no-require-git"))
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
