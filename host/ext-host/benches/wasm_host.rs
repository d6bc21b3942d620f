//! Extension host figures: cold compile, warm load, per-call cost (a tool call, a `tool-call`
//! hook answering `allow`), start-up with 0 vs 20 extensions. Run with `cargo bench -p pi-ext-host --bench wasm_host`; prints medians.

#![allow(clippy::expect_used)]

use pi_ext_host::{
    ComponentCache, ExtensionHost, ExtensionId, Grant, SearchPaths, WitVersion, World,
};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort();
    let i = ((samples.len() as f64 - 1.0) * p).round() as usize;
    samples[i]
}

fn time<T>(f: impl FnOnce() -> T) -> (Duration, T) {
    let start = Instant::now();
    let out = f();
    (start.elapsed(), out)
}

fn package(dir: &Path, name: &str, wasm: &[u8]) {
    std::fs::create_dir_all(dir).expect("dir");
    std::fs::write(dir.join("tool.wasm"), wasm).expect("wasm");
    let manifest = format!(
        "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nwit = \"0.3.0\"\n\n[[component]]\npath = \"tool.wasm\"\nworld = \"tool\"\n\n[capabilities]\nfilesystem = \"read\"\n"
    );
    std::fs::write(dir.join("pi-extension.toml"), manifest).expect("manifest");
}

/// pi's start-up path: discovery through the host (answered by the start-up index when
/// nothing changed), then opening every package.
fn start_up(cache: &Path, global: &Path, workspace: &Path) -> usize {
    let host = ExtensionHost::new(cache).expect("host");
    let (found, _) = host.discover(&SearchPaths {
        global: Some(global.to_owned()),
        ..SearchPaths::default()
    });
    let mut tools = 0;
    for package in &found {
        let grant = Grant::from_capabilities(&package.manifest.capabilities, workspace);
        tools += host.open(package, grant).expect("open").tools.len();
    }
    tools
}

/// Wall time of a fresh process that starts the extension host over `global` and exits: the
/// start-up a user sees, including process creation.
fn process_start_up(cache: &Path, global: &Path, workspace: &Path) -> Duration {
    let exe = std::env::current_exe().expect("exe");
    let start = Instant::now();
    let status = std::process::Command::new(exe)
        .arg("--startup")
        .args([cache, global, workspace])
        .status()
        .expect("spawn");
    assert!(status.success());
    start.elapsed()
}

/// Prints the size, the cold compile time and the warm load time (from the cache) of the
/// component at `wasm_path`.
fn compile_and_load(host: &ExtensionHost, tmp: &Path, wasm_path: &Path) {
    let wasm = std::fs::read(wasm_path).expect("component");
    println!("{}: {} KB", wasm_path.display(), wasm.len() / 1024);
    let compiler = pi_ext_host::engine::compiler().expect("compiler");
    let compiles: Vec<Duration> = (0..3)
        .map(|_| time(|| compiler.precompile_component(&wasm).expect("compile")).0)
        .collect();
    println!(
        "cold compile (precompile_component):  {:>10.2?}",
        median(compiles)
    );
    let cache = ComponentCache::new(tmp.join("bench-cache"));
    cache.load(host.engine(), wasm_path).expect("first load");
    let warm: Vec<Duration> = (0..50)
        .map(|_| time(|| cache.load(host.engine(), wasm_path).expect("warm")).0)
        .collect();
    println!(
        "warm load from cache (hash + mmap):    {:>10.2?}",
        median(warm)
    );
}

/// A `tool-call` event the probe hook answers with `allow`: inline (instantiate + call), and
/// through `Hook::handle` as the pipeline calls it (its own thread under the watchdog).
fn hook_calls(host: &ExtensionHost, workspace: &Path) {
    use pi_ext_api::hooks::{Hook, HookEvent};
    let component = host.component(
        Arc::new(ExtensionId {
            name: "bench-hook".into(),
            version: "0.1.0".into(),
        }),
        Path::new(pi_ext_test_artifacts::HOOK_PROBE).to_owned(),
        World::Hook,
        WitVersion::LATEST,
        Arc::new(Grant::new(workspace)),
    );
    let hook = host.hook(component.clone(), false).expect("hook");
    let loaded = component.get().expect("load");
    let event = Arc::new(HookEvent::ToolCall {
        call_id: "call-1".into(),
        tool: "bash".into(),
        input: serde_json::json!({"command": "ls -la"}),
    });
    let inline = || pi_ext_host::hook::answer_once(&loaded, &event).expect("hook call");
    for _ in 0..200 {
        inline();
    }
    let mut calls: Vec<Duration> = (0..2000).map(|_| time(inline).0).collect();
    let p50 = percentile(&mut calls, 0.5);
    let p99 = percentile(&mut calls, 0.99);
    println!(
        "hook: tool-call answering allow:       p50 {p50:>8.2?}  p99 {p99:>8.2?}  (target p50 <= 50us)"
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let handled = || {
        runtime
            .block_on(hook.handle(event.clone(), Default::default()))
            .expect("hook call")
    };
    for _ in 0..200 {
        handled();
    }
    let mut calls: Vec<Duration> = (0..2000).map(|_| time(handled).0).collect();
    let p50 = percentile(&mut calls, 0.5);
    let p99 = percentile(&mut calls, 0.99);
    println!(
        "hook: the same through Hook::handle:    p50 {p50:>8.2?}  p99 {p99:>8.2?}  (own thread + watchdog)"
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--startup") {
        let p = |k: usize| Path::new(&args[i + k]).to_owned();
        start_up(&p(1), &p(2), &p(3));
        return;
    }
    let tmp = tempfile::tempdir().expect("tmp");
    let wasm_path = Path::new(pi_ext_test_artifacts::TOOL);
    let host = ExtensionHost::new(tmp.path().join("cache")).expect("host");
    compile_and_load(&host, tmp.path(), wasm_path);
    let wasm = std::fs::read(wasm_path).expect("tool component");
    // Other components to measure the same way (e.g. the examples of `extensions/`).
    if let Ok(paths) = std::env::var("PI_BENCH_COMPONENTS") {
        for path in paths.split(',').filter(|p| !p.is_empty()) {
            compile_and_load(&host, tmp.path(), Path::new(path));
        }
    }

    let workspace = tmp.path().join("ws");
    std::fs::create_dir_all(&workspace).expect("ws");
    let component = host.component(
        Arc::new(ExtensionId {
            name: "bench".into(),
            version: "0.1.0".into(),
        }),
        wasm_path.to_owned(),
        World::Tool,
        WitVersion::LATEST,
        Arc::new(Grant::new(&workspace)),
    );
    let loaded = component.get().expect("load");
    let call = || pi_ext_host::tool::call_once(&loaded, "echo", "{}", 1 << 20).expect("call");
    for _ in 0..200 {
        call();
    }
    let mut calls: Vec<Duration> = (0..2000).map(|_| time(call).0).collect();
    let p50 = percentile(&mut calls, 0.5);
    let p99 = percentile(&mut calls, 0.99);
    println!(
        "call: instantiate + execute (echo):    p50 {p50:>8.2?}  p99 {p99:>8.2?}  (target p50 <= 50us)"
    );

    hook_calls(&host, &workspace);

    let empty = tmp.path().join("global-0");
    let full = tmp.path().join("global-20");
    std::fs::create_dir_all(&empty).expect("dir");
    for i in 0..20 {
        // Distinct bytes per package, like distinct extensions.
        let mut bytes = wasm.clone();
        bytes.extend_from_slice(&[0, 4, 3, b'p', b'i', i as u8]);
        package(&full.join(format!("ext{i}")), &format!("ext{i}"), &bytes);
    }
    let cache_dir = tmp.path().join("startup-cache");
    let (first, tools) = time(|| start_up(&cache_dir, &full, &workspace));
    println!("first start-up, 20 extensions (compiles): {first:>10.2?} ({tools} tools)");
    let zero = median(
        (0..30)
            .map(|_| time(|| start_up(&cache_dir, &empty, &workspace)).0)
            .collect(),
    );
    let twenty = median(
        (0..30)
            .map(|_| time(|| start_up(&cache_dir, &full, &workspace)).0)
            .collect(),
    );
    println!("host start-up in-process, 0 ext:        {zero:>10.2?}");
    println!(
        "host start-up in-process, 20 ext:      {twenty:>10.2?}  (+{:.2?} per extension)",
        twenty.saturating_sub(zero) / 20
    );
    let zero = median(
        (0..30)
            .map(|_| process_start_up(&cache_dir, &empty, &workspace))
            .collect(),
    );
    let twenty = median(
        (0..30)
            .map(|_| process_start_up(&cache_dir, &full, &workspace))
            .collect(),
    );
    println!("process start-up, 0 extensions:        {zero:>10.2?}");
    println!(
        "process start-up, 20 extensions (warm): {twenty:>9.2?}  ratio {:.2}x (target <= 1.2x)",
        twenty.as_secs_f64() / zero.as_secs_f64()
    );
}
