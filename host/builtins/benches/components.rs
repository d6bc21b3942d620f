//! The built-in tools measured THROUGH their components (pi-ext-host host, embedded components,
//! warm compiled-component cache): grep/find against native `rg`/`fdfind` over a generated
//! tree, and `read` of a 50 KB file end to end (envelope, fresh store, instantiate, WASI file
//! read, result conversion).
//!
//! Size: `PI_BENCH_FILES` (default 5000) files of `PI_BENCH_FILE_KB` (default 10) KB; the
//! reference run is 50000 × 10 (≈500 MB). The tree is cached under the target directory
//! (same layout as `pi-builtin-tools`' bench). `PI_BENCH_INSTANCES` sets how many instances
//! of the component one grep/find call runs (default: as pi, `ToolContext::shards`).
//! Run:
//! `PI_BENCH_FILES=50000 cargo bench -p pi-builtins --bench components`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../../builtin-tools/core/benches/support/common.rs"]
mod common;

use common::{env_usize, fd_knows_no_require_git, report, run_native, target_dir, time, tree};
use pi_agent::AgentTool;
use pi_builtins::{BuiltinComponentTool, ToolContext, builtin_tool};
use pi_ext_host::ExtensionHost;
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;
use tokio_util::sync::CancellationToken;

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
    ctx.shards = env_usize("PI_BENCH_INSTANCES", ctx.shards);
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
            report(
                &format!("{label} ({found} matches)"),
                "pi (component)",
                ours,
                native,
                "rg",
            );
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
                "pi (component)",
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
