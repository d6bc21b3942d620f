//! What only the host shows: lazy loading, descriptions, grants, per-file serialisation and
//! process groups.

use crate::common::{Ws, host, runtime};
use pi_agent::AgentTool;
use pi_builtins::{
    BuiltinComponentTool, DEFAULT_ENABLED, TOOL_NAMES, ToolContext, component_bytes,
    component_source, definitions, grant,
};
use pi_ext_host::{
    ComponentSource, ExtensionId, FsAccess, Grant, LazyComponent, LoadedComponent, Preopen,
    WitVersion, World,
};
use serde_json::json;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

fn embedded(name: &str) -> ComponentSource {
    component_source(name).unwrap()
}

fn id(name: &str) -> Arc<ExtensionId> {
    Arc::new(ExtensionId {
        name: name.to_owned(),
        version: "test".to_owned(),
    })
}

#[test]
fn tools_are_listed_in_pi_order_and_nothing_loads_before_a_call() {
    let ws = Ws::new();
    assert_eq!(DEFAULT_ENABLED, ["read", "bash", "edit", "write"]);
    let tools: Vec<BuiltinComponentTool> = TOOL_NAMES
        .iter()
        .map(|n| BuiltinComponentTool::new(&ws.ctx, n).unwrap())
        .collect();
    let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    assert_eq!(names, TOOL_NAMES);
    assert!(tools.iter().all(|t| t.component().loads() == 0));
    ws.write("a.txt", "hello");
    let out = runtime()
        .block_on(tools[0].execute(
            "c",
            json!({"path": "a.txt"}),
            CancellationToken::new(),
            Arc::new(|_| {}),
        ))
        .unwrap();
    assert_eq!(out.details, json!({}));
    assert_eq!(tools[0].component().loads(), 1);
    assert!(tools[1..].iter().all(|t| t.component().loads() == 0));
    assert!(BuiltinComponentTool::new(&ws.ctx, "nope").is_none());
}

#[test]
fn each_component_describes_exactly_the_native_definition() {
    let ws = Ws::new();
    for (name, def) in TOOL_NAMES.iter().zip(definitions()) {
        let component = LazyComponent::from_source(
            host().engine().clone(),
            host().cache().clone(),
            id(name),
            embedded(name),
            World::Tool,
            WitVersion::LATEST,
            Arc::new(grant(name, &ws.ctx).unwrap()),
        );
        let described = host().describe(&component).unwrap();
        assert_eq!(described.len(), 1, "{name}");
        let tool = BuiltinComponentTool::new(&ws.ctx, name).unwrap();
        assert_eq!(described[0].name, def.name);
        assert_eq!(described[0].description, tool.description());
        assert_eq!(&described[0].parameters, tool.parameters());
        assert_eq!(described[0].prompt_guidelines, def.prompt_guidelines);
    }
}

#[test]
fn grants_are_least_privilege_and_only_bash_imports_process() {
    let ws = Ws::new();
    let preopen = |path: &Path, access| Preopen {
        path: path.to_path_buf(),
        access,
    };
    for name in ["read", "grep", "find", "ls"] {
        let g = grant(name, &ws.ctx).unwrap();
        assert_eq!(g.filesystem, FsAccess::Read, "{name}");
        assert!(!g.process && g.temp_dir.is_none() && !g.temp, "{name}");
        // Pi's default path scope: everything, read-only.
        assert_eq!(g.preopens, [preopen(Path::new("/"), FsAccess::Read)]);
    }
    for name in ["edit", "write"] {
        let g = grant(name, &ws.ctx).unwrap();
        assert_eq!(g.filesystem, FsAccess::Write, "{name}");
        assert!(!g.process && g.temp_dir.is_none(), "{name}");
        // The temp dir is pi's own and writable.
        assert_eq!(g.preopens, [preopen(&ws.ctx.temp_dir, FsAccess::Write)]);
    }
    // Narrowed: the reading tools get the workspace, the writable and the always-readable
    // roots, read-only; the writing tools the writable ones.
    let mut narrow = Ws::new();
    let (extra, skills) = (
        narrow.tmp.path().join("extra"),
        narrow.tmp.path().join("skills"),
    );
    narrow.set_policy(pi_builtins::PathPolicy {
        scope: pi_builtins::PathScope::Workspace,
        writable_roots: vec![extra.clone()],
        readable_roots: vec![skills.clone()],
    });
    let temp = narrow.ctx.temp_dir.clone();
    let read = grant("read", &narrow.ctx).unwrap();
    let expected = [&extra, &temp, &skills].map(|p| preopen(p, FsAccess::Read));
    assert_eq!(read.preopens, expected);
    let write = grant("write", &narrow.ctx).unwrap();
    assert_eq!(
        write.preopens,
        [&extra, &temp].map(|p| preopen(p, FsAccess::Write))
    );
    let bash = grant("bash", &ws.ctx).unwrap();
    assert!(bash.process && bash.filesystem == FsAccess::Write);
    assert_eq!(bash.temp_dir.as_deref(), Some(ws.ctx.temp_dir.as_path()));
    // Without any grant every component links; only bash imports `process`, and its spawn is
    // refused at the call.
    for name in TOOL_NAMES {
        let loaded = LoadedComponent::load_source(
            host().engine(),
            host().cache(),
            id(name),
            &embedded(name),
            World::Tool,
            WitVersion::LATEST,
            Arc::new(Grant::new(ws.root())),
        );
        assert!(loaded.is_ok(), "{name}: {:?}", loaded.err());
    }
    let mut no_process = grant("bash", &ws.ctx).unwrap();
    no_process.process = false;
    let component = Arc::new(LazyComponent::from_source(
        host().engine().clone(),
        host().cache().clone(),
        id("bash-without-process"),
        embedded("bash"),
        World::Tool,
        WitVersion::LATEST,
        Arc::new(no_process),
    ));
    let description = host().describe(&component).unwrap().remove(0);
    let tool = pi_ext_host::ComponentTool::new(component, description);
    let err = runtime()
        .block_on(tool.run(
            "c",
            &json!({"command": "touch made"}),
            CancellationToken::new(),
            None,
        ))
        .unwrap_err();
    assert!(
        err.message
            .contains("capability `process` was not granted to bash-without-process"),
        "{}",
        err.message
    );
    assert!(!ws.path("made").exists());
}

#[test]
fn read_only_tools_cannot_write_even_if_asked() {
    // `ls` runs with a read-only preopen: the workspace stays untouched whatever it does,
    // and writing through a read-only grant fails at the WASI layer.
    let ws = Ws::new();
    ws.write("a.txt", "x");
    assert_eq!(ws.ok("ls", json!({})), "a.txt");
    let mut g = grant("write", &ws.ctx).unwrap();
    g.filesystem = FsAccess::Read;
    let component = Arc::new(LazyComponent::from_source(
        host().engine().clone(),
        host().cache().clone(),
        id("write-ro"),
        embedded("write"),
        World::Tool,
        WitVersion::LATEST,
        Arc::new(g),
    ));
    let description = host().describe(&component).unwrap().remove(0);
    let tool = pi_ext_host::ComponentTool::new(component, description);
    let err = runtime()
        .block_on(tool.run(
            "c",
            &json!({"path": "b.txt", "content": "y"}),
            CancellationToken::new(),
            None,
        ))
        .unwrap_err();
    assert!(!ws.path("b.txt").exists(), "{}", err.message);
}

#[test]
fn parallel_edits_of_one_file_are_serialised() {
    let ws = Ws::new();
    let n = 12;
    let original: String = (0..n).map(|i| format!("line {i}\n")).collect();
    ws.write("f.txt", &original);
    let tool: Arc<dyn AgentTool> = pi_builtins::builtin_tool(&ws.ctx, "edit").unwrap();
    let results = runtime().block_on(async {
        let calls = (0..n).map(|i| {
            let tool = tool.clone();
            async move {
                // Alternate spellings of the same path: they must share one lock.
                let path = if i % 2 == 0 {
                    "f.txt"
                } else {
                    "./sub/../f.txt"
                };
                let args = json!({"path": path, "edits": [
                    {"oldText": format!("line {i}\n"), "newText": format!("edited {i}\n")}
                ]});
                tool.execute("c", args, CancellationToken::new(), Arc::new(|_| {}))
                    .await
            }
        });
        let handles: Vec<_> = calls.map(tokio::spawn).collect();
        let mut out = Vec::new();
        for h in handles {
            out.push(h.await.unwrap());
        }
        out
    });
    for r in &results {
        assert!(r.is_ok(), "{:?}", r.as_ref().err());
    }
    let expected: String = (0..n).map(|i| format!("edited {i}\n")).collect();
    assert_eq!(ws.read("f.txt"), expected);
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit(')')
            .next()
            .is_some_and(|rest| !rest.trim_start().starts_with('Z'))
    })
}

fn pids(ws: &Ws) -> Vec<u32> {
    std::fs::read_to_string(ws.path("pids"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

#[test]
fn timeout_kills_background_jobs_of_the_command() {
    let ws = Ws::new();
    let command = "sleep 100 & echo $! > pids; sleep 100 & echo $! >> pids; wait";
    let started = Instant::now();
    let err = ws.err("bash", json!({"command": command, "timeout": 1}));
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(err, "Command timed out after 1 seconds");
    let pids = pids(&ws);
    assert_eq!(pids.len(), 2);
    std::thread::sleep(Duration::from_millis(200));
    for pid in pids {
        assert!(!alive(pid), "sleep {pid} survived the timeout");
    }
}

#[test]
fn abort_through_the_cancellation_token_kills_the_group() {
    let ws = Ws::new();
    let cancel = AtomicBool::new(false);
    let result = std::thread::scope(|s| {
        s.spawn(|| {
            let deadline = Instant::now() + Duration::from_secs(20);
            while pids(&ws).len() < 2 && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(20));
            }
            cancel.store(true, Ordering::SeqCst);
        });
        ws.run_with(
            "bash",
            json!({"command": "echo started; sleep 100 & echo $! > pids; sleep 100 & echo $! >> pids; wait"}),
            &mut |_| {},
            &cancel,
        )
    });
    assert_eq!(result.unwrap_err().message, "started\n\n\nCommand aborted");
    std::thread::sleep(Duration::from_millis(200));
    for pid in pids(&ws) {
        assert!(!alive(pid), "sleep {pid} survived the abort");
    }
}

#[test]
fn bash_sees_the_command_env_and_a_background_job_does_not_hang_the_call() {
    let mut ws = Ws::new();
    ws.ctx
        .command_env
        .push(("PI_TEST_VAR".into(), "from-host".into()));
    let started = Instant::now();
    let text = ws.ok(
        "bash",
        json!({"command": "echo $PI_TEST_VAR; sleep 3 > /dev/null 2>&1 & sleep 2 &"}),
    );
    assert_eq!(text, "from-host\n");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn second_context_loads_from_the_cache_without_compiling() {
    let ws = Ws::new();
    ws.write("a.txt", "x");
    assert_eq!(ws.ok("read", json!({"path": "a.txt"})), "x");
    // A new cache object over the same directory: whatever compiles elsewhere in parallel,
    // this one must find the artifact.
    let cache = Arc::new(pi_ext_host::ComponentCache::new(host().cache().dir()));
    let other = ToolContext::with_engine(host().engine().clone(), cache.clone(), ws.root());
    let tool = BuiltinComponentTool::new(&other, "read").unwrap();
    runtime()
        .block_on(tool.execute(
            "c",
            json!({"path": "a.txt"}),
            CancellationToken::new(),
            Arc::new(|_| {}),
        ))
        .unwrap();
    assert_eq!(tool.component().loads(), 1);
    assert_eq!(cache.compilations(), 0);
}

#[test]
fn build_time_digests_key_the_same_artifact_as_the_bytes() {
    let engine = host().engine();
    for name in TOOL_NAMES {
        let Some(ComponentSource::Embedded { bytes, sha256, .. }) = component_source(name) else {
            panic!("{name} is not embedded");
        };
        assert_eq!(bytes, component_bytes(name).unwrap());
        assert_eq!(sha256.len(), 64, "{name}");
        assert_eq!(
            pi_ext_host::ComponentCache::key(engine, bytes),
            pi_ext_host::ComponentCache::digest_key(engine, sha256),
            "{name}: the build-time digest is not the digest of the embedded bytes"
        );
    }
}

#[test]
fn without_a_repository_above_nothing_above_the_workspace_is_read() {
    // The shared suite (`ancestors.rs`) covers a repository root above the workspace; here
    // there is none, so the host sends nothing and the `.log` file is found.
    let ws = Ws::nested("outer/ws");
    let outer = ws.root().join("..");
    std::fs::write(outer.join(".gitignore"), "*.log\n").unwrap();
    std::fs::write(outer.join(".ignore"), "*.log\n").unwrap();
    ws.write("a.txt", "needle\n");
    ws.write("b.log", "needle\n");
    assert_eq!(
        ws.ok("grep", json!({"pattern": "needle"})),
        "a.txt:1: needle\nb.log:1: needle"
    );
    assert_eq!(ws.ok("find", json!({"pattern": "*.log"})), "b.log");
    // The same files count once a repository root appears above them.
    std::fs::create_dir_all(outer.join(".git")).unwrap();
    assert_eq!(
        ws.ok("grep", json!({"pattern": "needle"})),
        "a.txt:1: needle"
    );
    assert_eq!(
        ws.ok("find", json!({"pattern": "*.log"})),
        "No files found matching pattern"
    );
}

#[test]
fn a_nested_worktree_whose_repository_is_outside_the_workspace_uses_its_exclude_if_readable() {
    // The exclude lies in the repository's common directory, outside the workspace: read
    // under the default path scope (as natively, and as rg does), skipped under `workspace`,
    // where the component has only the workspace preopened.
    let mut ws = Ws::nested("ws");
    let main = ws.root().parent().unwrap().join("main");
    crate::git::repo_with_exclude(&main, "/only.txt\n");
    let nested = ws.path("wt");
    crate::git::git(&main, &["worktree", "add", "-q", nested.to_str().unwrap()]);
    ws.write("wt/only.txt", "needle\n");
    ws.write("wt/other.txt", "needle\n");
    assert_eq!(ws.ok("find", json!({"pattern": "*.txt"})), "wt/other.txt");
    assert_eq!(
        ws.ok("grep", json!({"pattern": "needle"})),
        "wt/other.txt:1: needle"
    );
    ws.set_policy(pi_builtins::PathPolicy {
        scope: pi_builtins::PathScope::Workspace,
        ..Default::default()
    });
    assert_eq!(
        ws.ok("find", json!({"pattern": "*.txt"})),
        "wt/only.txt\nwt/other.txt"
    );
    assert_eq!(
        ws.ok("grep", json!({"pattern": "needle"})),
        "wt/only.txt:1: needle\nwt/other.txt:1: needle"
    );
}
