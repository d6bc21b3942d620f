//! The built-in tools measured THROUGH their components (pi-wasm host, embedded components,
//! warm compiled-component cache): grep/find against native `rg`/`fdfind` over a generated
//! tree, and `read` of a 50 KB file end to end (envelope, fresh store, instantiate, WASI file
//! read, result conversion).
//!
//! Size: `PI_BENCH_FILES` (default 5000) files of `PI_BENCH_FILE_KB` (default 10) KB; the
//! reference run is 50000 × 10 (≈500 MB). The tree is cached under the target directory
//! (same layout as `pi-builtin-tools`' bench). `PI_BENCH_INSTANCES` sets how many instances
//! of the component one grep/find call runs (default: as pi, `ToolContext::search_instances`).
//! Run:
//! `PI_BENCH_FILES=50000 cargo bench -p pi-builtin-tools-embed --bench components`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use pi_agent::AgentTool;
use pi_builtin_tools_embed::{BuiltinComponentTool, ToolContext, builtin_tool};
use pi_wasm::ExtensionHost;
use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

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

fn target_dir() -> PathBuf {
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| PathBuf::from("target"), PathBuf::from);
    std::path::absolute(target).unwrap()
}

fn main() {
    let files = env_usize("PI_BENCH_FILES", 5000);
    let kb = env_usize("PI_BENCH_FILE_KB", 10);
    let root = tree(files, kb);
    println!(
        "tree: {files} files x {kb} KB = {} MB at {}",
        files * kb / 1024,
        root.display()
    );
    let host = ExtensionHost::new(target_dir().join("bench-component-cache")).unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut ctx = ToolContext::new(&host, &root);
    ctx.search_instances = env_usize("PI_BENCH_INSTANCES", ctx.search_instances);
    let bench = Bench { rt, ctx };
    // `PI_BENCH_ONLY=grep` (or `find`, `read`) runs one group, e.g. under a profiler.
    let only = std::env::var("PI_BENCH_ONLY").unwrap_or_default();
    if only.is_empty() || only == "grep" {
        bench.grep(&root);
    }
    if only.is_empty() || only == "find" {
        bench.find(&root);
    }
    if only.is_empty() || only == "read" {
        bench.read(&host);
    }
}

struct Bench {
    rt: tokio::runtime::Runtime,
    ctx: ToolContext,
}

impl Bench {
    /// Runs a tool through its component; returns how many result lines it produced
    /// (including lines past the 50 KB cut, which only the truncation details count).
    fn run(&self, tool: &Arc<dyn AgentTool>, args: Value) -> usize {
        let out = self
            .rt
            .block_on(tool.execute("b", args, CancellationToken::new(), Arc::new(|_| {})))
            .unwrap();
        match out.details["truncation"]["totalLines"].as_u64() {
            Some(total) => total as usize,
            None => match &out.content[0] {
                pi_ai::UserBlock::Text(t) => t.text.lines().count(),
                pi_ai::UserBlock::Image(_) => 0,
            },
        }
    }

    fn grep(&self, root: &Path) {
        let tool = builtin_tool(&self.ctx, "grep").unwrap();
        let dir = root.to_str().unwrap();
        for (label, pattern) in [
            ("grep literal", "NEEDLE_TOKEN"),
            ("grep regex", r"NEEDLE_\w+N\b"),
            ("grep many matches", "handle value"),
        ] {
            let (ours, found) =
                time(|| self.run(&tool, json!({"pattern": pattern, "limit": 1_000_000})));
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
    }

    fn find(&self, root: &Path) {
        let tool = builtin_tool(&self.ctx, "find").unwrap();
        let dir = root.to_str().unwrap();
        for pattern in ["*.rs", "d1*/**/*.md"] {
            let (ours, found) =
                time(|| self.run(&tool, json!({"pattern": pattern, "limit": 10_000_000})));
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

    /// `read` of a 50 KB file end to end through the host, warm (component loaded).
    fn read(&self, host: &ExtensionHost) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let line = "x".repeat(99);
        std::fs::write(root.join("f.txt"), format!("{line}\n").repeat(512)).unwrap();
        let ctx = ToolContext::new(host, &root);
        let read = BuiltinComponentTool::new(&ctx, "read").unwrap();
        let component = read.component().clone();
        let tool: Arc<dyn AgentTool> = Arc::new(read);
        let first = Instant::now();
        let lines = self.run(&tool, json!({"path": "f.txt"}));
        assert_eq!(lines, 512);
        println!(
            "read: first call (load from the compiled-component cache or compile) {:.1} ms",
            first.elapsed().as_secs_f64() * 1e3
        );
        // An idle component is unmapped, so each call maps the cached artifact again; holding
        // it (as a burst of calls does) shows what that costs.
        let sample = || {
            let mut samples: Vec<_> = (0..500)
                .map(|_| {
                    let started = Instant::now();
                    std::hint::black_box(self.run(&tool, json!({"path": "f.txt"})));
                    started.elapsed()
                })
                .collect();
            samples.sort();
            let at = |q: usize| samples[samples.len() * q / 100].as_secs_f64() * 1e6;
            (at(50), at(99))
        };
        let (p50, p99) = sample();
        let held = component.get().unwrap();
        let (held50, held99) = sample();
        drop(held);
        println!(
            "read of a 50 KB file through the host (warm, artifact mapped per call): p50 {p50:.0} µs, \
             p99 {p99:.0} µs (target <= 1 ms); component held: p50 {held50:.0} µs, p99 {held99:.0} µs"
        );
    }
}

/// Builds (once) a tree of `files` files in three directory levels with a planted needle in
/// every 100th file and an ignored directory (the layout of pi-builtin-tools' bench).
fn tree(files: usize, kb: usize) -> PathBuf {
    let root = target_dir().join(format!("bench-tree-{files}-{kb}"));
    // The tree is its own repository root: a component sees only its workspace, so a `.git`
    // above it (the pi checkout) would count for rg but not for the component's walk.
    if root.join(".complete").exists() {
        std::fs::create_dir_all(root.join(".git")).unwrap();
        return root;
    }
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join(".gitignore"), "ignored/\n*.tmp\n").unwrap();
    std::fs::create_dir_all(root.join(".git")).unwrap();
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

fn time<T>(mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut last = f(); // warm-up (page cache, component load)
    let mut samples = Vec::new();
    for _ in 0..RUNS {
        let started = Instant::now();
        last = f();
        samples.push(started.elapsed());
    }
    samples.sort();
    (samples[samples.len() / 2], last)
}

/// fd before 8.7 has no `--no-require-git` (the bench tree is a repository root anyway).
fn fd_knows_no_require_git() -> bool {
    run_native("fdfind", &["--help"]).is_some_and(|help| help.contains("--no-require-git"))
}

fn run_native(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn report(what: &str, ours: Duration, native: Option<Duration>, tool: &str) {
    match native {
        Some(n) => println!(
            "{what}: pi (component) {:.1} ms, {tool} {:.1} ms, ratio {:.2}x (target <= 1.5x)",
            ours.as_secs_f64() * 1e3,
            n.as_secs_f64() * 1e3,
            ours.as_secs_f64() / n.as_secs_f64()
        ),
        None => println!(
            "{what}: pi (component) {:.1} ms ({tool} not available)",
            ours.as_secs_f64() * 1e3
        ),
    }
}
