//! Escape attempts by real components. Each must be refused with a clear error naming the
//! extension, and the host must keep working afterwards.

use crate::*;
use pi_ext_host::{Cause, FsAccess};
use serde_json::json;
use std::time::{Duration, Instant};

async fn host_still_works(ws: &Workspace) {
    let echo = test_tool(ws.grant(), "echo");
    let out = run(&echo, json!({"still": "alive"}))
        .await
        .expect("host keeps working");
    assert_eq!(text(&out), r#"{"still":"alive"}"#);
}

async fn read_denied(path: &str) -> String {
    let ws = Workspace::create();
    let grant = Grant {
        filesystem: FsAccess::Write,
        ..ws.grant()
    };
    std::os::unix::fs::symlink(&ws.secret, ws.dir.join("link")).expect("symlink");
    std::os::unix::fs::symlink("../secret.txt", ws.dir.join("rel-link")).expect("symlink");
    let tool = test_tool(grant, "read_file");
    let path = path.replace("$WS", &ws.dir.to_string_lossy());
    let err = run(&tool, json!({"path": path}))
        .await
        .expect_err("must be denied");
    assert!(!err.message.contains("TOP-SECRET"));
    assert!(
        err.message
            .starts_with("extension test-tool@0.1.0: cannot read"),
        "{}",
        err.message
    );
    host_still_works(&ws).await;
    err.message
}

#[tokio::test]
async fn parent_traversal_is_denied() {
    read_denied("../secret.txt").await;
    read_denied("sub/../../secret.txt").await;
    read_denied("$WS/../secret.txt").await;
}

#[tokio::test]
async fn an_absolute_path_outside_the_workspace_is_denied() {
    read_denied("/etc/passwd").await;
}

#[tokio::test]
async fn a_symlink_pointing_out_of_the_workspace_is_denied() {
    read_denied("link").await;
    read_denied("rel-link").await;
    read_denied("$WS/link").await;
}

#[tokio::test]
async fn proc_self_environ_is_denied() {
    read_denied("/proc/self/environ").await;
}

#[tokio::test]
async fn only_granted_env_vars_are_visible() {
    let ws = Workspace::create();
    let tool = test_tool(ws.grant(), "probe");
    let err = run(&tool, json!({"op": "env", "name": "PATH"}))
        .await
        .expect_err("not granted");
    assert_eq!(
        err.message,
        "extension test-tool@0.1.0: env PATH: environment variable not found"
    );
    let granted = Grant {
        env: vec!["PATH".into()],
        ..ws.grant()
    };
    let tool = test_tool(granted, "probe");
    let out = run(&tool, json!({"op": "env", "name": "PATH"}))
        .await
        .expect("granted");
    assert_eq!(text(&out), std::env::var("PATH").expect("PATH"));
}

#[tokio::test]
async fn opening_a_socket_is_denied() {
    let ws = Workspace::create();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("listener");
    listener.set_nonblocking(true).expect("nonblocking");
    let addr = listener.local_addr().expect("addr").to_string();
    let tool = test_tool(ws.grant(), "probe");
    let err = run(&tool, json!({"op": "socket", "addr": addr}))
        .await
        .expect_err("denied");
    assert!(
        err.message
            .starts_with(&format!("extension test-tool@0.1.0: connect {addr}:")),
        "{}",
        err.message
    );
    assert!(listener.accept().is_err(), "no connection may arrive");
    host_still_works(&ws).await;
}

/// A loopback server answering every connection with `200 hello`; the number of connections
/// it accepted.
fn hello_server() -> (String, Arc<std::sync::atomic::AtomicUsize>) {
    use std::io::{BufRead, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("listener");
    let addr = listener.local_addr().expect("addr").to_string();
    let accepted = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = accepted.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { break };
            count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let mut reader = std::io::BufReader::new(stream.try_clone().expect("clone"));
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                line.clear();
            }
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\nconnection: close\r\n\r\nhello",
            );
        }
    });
    (addr, accepted)
}

/// The tool world imports `wasi:http` since WIT 0.2.0: a tool reaches the hosts it was
/// granted, others are refused before connecting, and without any network grant every
/// request is refused with the capability's name.
#[tokio::test]
async fn a_tool_reaches_only_the_granted_hosts_over_http() {
    let ws = Workspace::create();
    let (addr, accepted) = hello_server();
    let url = format!("http://{addr}/");
    let probe = |network: &[&str]| {
        let mut grant = ws.grant();
        grant.network = network.iter().map(|h| (*h).to_owned()).collect();
        test_tool(grant, "probe")
    };
    let granted = probe(&["127.0.0.1"]);
    let out = run(&granted, json!({"op": "http", "url": url}))
        .await
        .expect("fetched");
    assert_eq!(text(&out), "200 hello");
    assert_eq!(accepted.load(std::sync::atomic::Ordering::SeqCst), 1);

    let elsewhere = probe(&["api.example.com"]);
    let err = run(&elsewhere, json!({"op": "http", "url": url}))
        .await
        .expect_err("denied");
    assert_eq!(
        err.message,
        format!("extension test-tool@0.1.0: HTTP request to {addr} denied: host not granted")
    );
    let none = probe(&[]);
    let err = run(&none, json!({"op": "http", "url": url}))
        .await
        .expect_err("refused");
    assert_eq!(
        err.message,
        "extension test-tool@0.1.0: capability `network` was not granted to test-tool@0.1.0"
    );
    assert_eq!(
        accepted.load(std::sync::atomic::Ordering::SeqCst),
        1,
        "no connection for a refused request"
    );
}

#[tokio::test]
async fn spawning_without_the_grant_is_denied() {
    let ws = Workspace::create();
    // std::process from a tool: WASI has no process API.
    let tool = test_tool(ws.grant(), "probe");
    let err = run(&tool, json!({"op": "spawn"}))
        .await
        .expect_err("denied");
    assert!(
        err.message.starts_with("extension test-tool@0.1.0: spawn:"),
        "{}",
        err.message
    );
    // A component importing `process` loads without the grant; its spawn is refused.
    let spawner = tool_of(pi_ext_test_artifacts::SPAWNER, ws.grant(), "run", "spawner");
    let err = run(&spawner, json!({"program": "true"}))
        .await
        .expect_err("refused");
    assert_eq!(
        err.message,
        "extension spawner@0.1.0: capability `process` was not granted to spawner@0.1.0"
    );
    host_still_works(&ws).await;
}

#[tokio::test]
async fn writing_with_a_read_only_grant_is_denied() {
    let ws = Workspace::create();
    let grant = Grant {
        filesystem: FsAccess::Read,
        ..ws.grant()
    };
    let tool = test_tool(grant, "write_file");
    for path in [ws.dir.join("new.txt"), ws.dir.join("hello.txt")] {
        let err = run(&tool, json!({"path": path, "content": "x"}))
            .await
            .expect_err("denied");
        assert!(
            err.message
                .starts_with("extension test-tool@0.1.0: cannot write"),
            "{}",
            err.message
        );
    }
    assert!(!exists(&ws.dir.join("new.txt")));
    assert_eq!(
        std::fs::read_to_string(ws.dir.join("hello.txt")).expect("kept"),
        "hello from the workspace"
    );
}

#[tokio::test]
async fn an_infinite_loop_is_killed_at_the_deadline() {
    let ws = Workspace::create();
    let mut grant = ws.grant();
    grant.limits.timeout = Duration::from_millis(300);
    let tool = test_tool(grant, "probe");
    let started = Instant::now();
    let err = run(&tool, json!({"op": "loop"})).await.expect_err("killed");
    assert_eq!(
        err.message,
        "extension test-tool@0.1.0: deadline of 300ms exceeded; the call was interrupted"
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    host_still_works(&ws).await;
}

#[tokio::test]
async fn a_memory_bomb_is_stopped_at_the_cap() {
    let ws = Workspace::create();
    let tool = test_tool(ws.grant(), "probe");
    let err = run(&tool, json!({"op": "memory"}))
        .await
        .expect_err("stopped");
    assert_eq!(
        err.message,
        "extension test-tool@0.1.0: out of memory: the component tried to grow past its 64 MiB cap"
    );
    host_still_works(&ws).await;
}

#[tokio::test]
async fn deep_recursion_traps() {
    let ws = Workspace::create();
    let tool = test_tool(ws.grant(), "probe");
    let err = run(&tool, json!({"op": "recursion"}))
        .await
        .expect_err("trap");
    assert_eq!(
        err.message,
        "extension test-tool@0.1.0: stack overflow (trap)"
    );
    host_still_works(&ws).await;
}

#[tokio::test]
async fn a_gigabyte_output_flood_is_bounded() {
    let ws = Workspace::create();
    let tool = test_tool(ws.grant(), "probe");
    let started = Instant::now();
    let out = run(&tool, json!({"op": "flood"}))
        .await
        .expect("flood ends");
    let written: u64 = text(&out)
        .trim_start_matches("wrote ")
        .parse()
        .expect("count");
    assert!(
        written <= 64 * 1024,
        "only the capped amount is accepted: {written}"
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    host_still_works(&ws).await;
}

#[tokio::test]
async fn a_component_whose_world_does_not_match_its_manifest_is_refused() {
    let ws = Workspace::create();
    let renderer = component(
        pi_ext_test_artifacts::RENDERER,
        World::Tool,
        ws.grant(),
        "liar",
    );
    let err = renderer.get().err().expect("refused");
    assert!(matches!(err.cause, Cause::WorldMismatch { .. }), "{err}");
    let message = err.to_string();
    assert!(
        message.starts_with("extension liar@0.1.0: component "),
        "{message}"
    );
    assert!(
        message.contains("does not implement world `tool`: it does not export `pi:extension/tool-guest@0.3.0` (it exports: pi:extension/renderer-guest@0.3.0)"),
        "{message}"
    );
    host_still_works(&ws).await;
}

#[tokio::test]
async fn a_corrupt_wasm_is_refused() {
    let ws = Workspace::create();
    let bad = ws.dir.join("bad.wasm");
    std::fs::write(&bad, b"\0asm\x0d\0\x01\0garbage that is not a component").expect("write");
    let component = component(&bad.to_string_lossy(), World::Tool, ws.grant(), "corrupt");
    let err = component.get().err().expect("refused");
    assert!(matches!(err.cause, Cause::InvalidComponent { .. }), "{err}");
    assert!(
        err.to_string().starts_with(&format!(
            "extension corrupt@0.1.0: invalid component {}: ",
            bad.display()
        )),
        "{err}"
    );
    host_still_works(&ws).await;
}

#[tokio::test]
async fn a_write_grant_cannot_create_links_even_relative_ones_that_escape() {
    let ws = Workspace::create();
    let grant = Grant {
        filesystem: FsAccess::Write,
        ..ws.grant()
    };
    let probe = test_tool(grant, "probe");
    for (target, link) in [
        ("../secret.txt", "AGENTS.md"),
        ("sub/../../secret.txt", "rules.md"),
        ("inside.txt", "harmless"),
    ] {
        let err = run(
            &probe,
            json!({"op": "symlink", "target": target, "link": link}),
        )
        .await
        .expect_err("links are refused");
        assert!(err.message.contains("not-permitted"), "{}", err.message);
        assert!(
            std::fs::symlink_metadata(ws.dir.join(link)).is_err(),
            "{link} was created"
        );
    }
    host_still_works(&ws).await;
}

/// A protected directory inside the workspace (pi's agent directory when pi starts in `$HOME`):
/// reached by no path, written through no call, moved by no rename, also through the
/// `directory` interface; the rest of the workspace works as before.
#[tokio::test]
async fn a_protected_directory_inside_the_workspace_is_out_of_reach() {
    let ws = Workspace::create();
    let agent = ws.dir.join(".pi/agent");
    std::fs::create_dir_all(agent.join("extensions")).expect("agent dir");
    std::fs::write(agent.join("auth.json"), "TOP-SECRET").expect("auth");
    let grant = Grant {
        filesystem: FsAccess::Write,
        protected: vec![pi_ext_host::protected::canonical(&agent)],
        ..ws.grant()
    };
    let tool = test_tool(grant, "probe");
    let fs = |action: &str, path: &str, to: &str| json!({"op": "fs", "action": action, "path": path, "to": to, "content": "x"});
    for args in [
        fs("read", ".pi/agent/auth.json", ""),
        fs("read", "sub/../.pi/agent/auth.json", ""),
        fs("stat", ".pi/agent/auth.json", ""),
        fs("list", ".pi/agent", ""),
        fs("write", ".pi/agent/extensions/planted.toml", ""),
        fs("mkdir", ".pi/agent/extensions/planted", ""),
        fs("remove", ".pi/agent/auth.json", ""),
        fs("rename", ".pi", "moved"),
        fs("rename", "hello.txt", ".pi/agent/hello.txt"),
        fs("link", ".pi/agent/auth.json", "auth-link"),
        json!({"op": "dir", "path": ".pi/agent", "file": "auth.json"}),
        json!({"op": "dir", "path": ".pi", "file": "agent"}),
    ] {
        let err = run(&tool, args.clone()).await.expect_err("must be refused");
        assert!(
            !err.message.contains("TOP-SECRET"),
            "{args}: {}",
            err.message
        );
        assert!(
            [
                "ermission denied",
                "Access",
                "not permitted",
                "IsDirectory",
                "Invalid"
            ]
            .iter()
            .any(|w| err.message.contains(w)),
            "{args}: {}",
            err.message
        );
    }
    assert!(agent.join("auth.json").is_file());
    assert!(!agent.join("extensions/planted").exists());
    assert!(!ws.dir.join("moved").exists());
    assert!(ws.dir.join("hello.txt").is_file());
    // The rest of the workspace, and listing the protected directory's parent, work.
    let out = run(&tool, fs("read", "hello.txt", ""))
        .await
        .expect("readable");
    assert_eq!(text(&out), "hello from the workspace");
    let out = run(&tool, json!({"op": "dir", "path": ".pi", "file": ""}))
        .await
        .expect("listable");
    assert_eq!(text(&out), "agent");
}

/// The project's approval rules (`.pi/approvals.json`, protected as one file): no call writes,
/// replaces or removes it, while the rest of `.pi` stays writable.
#[tokio::test]
async fn the_project_approvals_file_is_out_of_reach_and_its_directory_is_not() {
    let ws = Workspace::create();
    let file = ws.dir.join(".pi/approvals.json");
    std::fs::create_dir_all(ws.dir.join(".pi")).expect(".pi");
    std::fs::write(&file, "{}").expect("approvals");
    let grant = Grant {
        filesystem: FsAccess::Write,
        protected: pi_ext_host::protected::project_files(&ws.dir),
        ..ws.grant()
    };
    let tool = test_tool(grant, "probe");
    let fs = |action: &str, path: &str, to: &str| json!({"op": "fs", "action": action, "path": path, "to": to, "content": "{\"rules\":[{\"id\":\"p1\",\"tool\":\"bash\"}]}"});
    for args in [
        fs("write", ".pi/approvals.json", ""),
        fs("write", "sub/../.pi/approvals.json", ""),
        fs("remove", ".pi/approvals.json", ""),
        fs("rename", "hello.txt", ".pi/approvals.json"),
        fs("rename", ".pi", "moved"),
        fs("link", ".pi/approvals.json", "approvals-link"),
    ] {
        run(&tool, args.clone())
            .await
            .expect_err(&format!("{args} must be refused"));
    }
    assert_eq!(std::fs::read_to_string(&file).expect("kept"), "{}");
    assert!(ws.dir.join("hello.txt").is_file());
    run(&tool, fs("write", ".pi/settings.json", ""))
        .await
        .expect("the rest of .pi is writable");
    assert!(ws.dir.join(".pi/settings.json").is_file());
}
