//! What the native search bench (pi-builtin-tools) and the component bench
//! (pi-builtins) share: the generated tree, timing, and the native `rg`/`fd` runs
//! they are compared with. Included by both with `#[path]`.

use std::io::Write;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

/// Timed runs per case after one warm-up: `PI_BENCH_RUNS`, default 5 (more for steadier
/// medians on a noisy machine).
fn runs() -> usize {
    env_usize("PI_BENCH_RUNS", 5).max(1)
}
const WORDS: [&str; 12] = [
    "alpha", "beta", "gamma", "delta", "struct", "impl", "return", "value", "config", "buffer",
    "stream", "handle",
];

pub fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The workspace's scratch dir for benches (`<target>/tmp`), wherever the bench runs from.
pub fn target_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
}

/// Builds (once) a tree of `files` files of `kb` KB in three directory levels, with a planted
/// `NEEDLE_TOKEN` in every 100th file and an ignored directory.
pub fn tree(files: usize, kb: usize) -> PathBuf {
    let root = target_dir().join(format!("bench-tree-{files}-{kb}"));
    // The tree is its own repository root: a component sees only its workspace, so a `.git`
    // above it (the pi checkout) would count for rg but not for the component's walk.
    if root.join(".complete").exists() {
        std::fs::create_dir_all(root.join(".git")).unwrap();
        return root;
    }
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join(".git")).unwrap();
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

/// The median of [`runs`] runs of `f` after a warm-up (page cache, component load), and the
/// last result.
pub fn time<T>(mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut last = f();
    let mut samples = Vec::new();
    for _ in 0..runs() {
        let started = Instant::now();
        last = f();
        samples.push(started.elapsed());
    }
    samples.sort();
    (samples[samples.len() / 2], last)
}

pub fn run_native(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

pub fn fd_knows_no_require_git() -> bool {
    run_native("fdfind", &["--help"]).is_some_and(|help| help.contains("--no-require-git"))
}

/// Prints one comparison line; `ours` names what was measured (e.g. "pi (component)").
pub fn report(what: &str, ours: &str, time: Duration, native: Option<Duration>, tool: &str) {
    match native {
        Some(n) => println!(
            "{what}: {ours} {:.1} ms, {tool} {:.1} ms, ratio {:.2}x (target <= 1.5x)",
            time.as_secs_f64() * 1e3,
            n.as_secs_f64() * 1e3,
            time.as_secs_f64() / n.as_secs_f64()
        ),
        None => println!(
            "{what}: {ours} {:.1} ms ({tool} not available)",
            time.as_secs_f64() * 1e3
        ),
    }
}
