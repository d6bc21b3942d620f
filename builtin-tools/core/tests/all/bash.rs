use crate::common::Ws;
use serde_json::json;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

#[test]
fn runs_in_workspace_cwd_and_combines_streams() {
    let ws = Ws::new();
    let text = ws.ok("bash", json!({"command": "pwd; echo err >&2"}));
    assert_eq!(text, format!("{}\nerr\n", ws.root().display()));
    // Both streams share one pipe (natively and through the host's `merge-stderr`), so the
    // output keeps the order in which the command wrote it, as pi.
    assert_eq!(
        ws.ok("bash", json!({"command": "echo a; echo b >&2; echo c"})),
        "a\nb\nc\n"
    );
    let alternating: String = (1..=200).map(|i| format!("o{i}\ne{i}\n")).collect();
    assert_eq!(
        ws.ok(
            "bash",
            json!({"command": "for i in $(seq 1 200); do echo o$i; echo e$i >&2; done"})
        ),
        alternating
    );
    assert_eq!(ws.ok("bash", json!({"command": "true"})), "(no output)");
}

#[test]
fn non_zero_exit_is_a_failure_with_output() {
    let ws = Ws::new();
    let err = ws.err("bash", json!({"command": "echo oops; exit 3"}));
    assert_eq!(err, "oops\n\n\nCommand exited with code 3");
    assert_eq!(
        ws.err("bash", json!({"command": "exit 7"})),
        "(no output)\n\nCommand exited with code 7"
    );
}

#[test]
fn timeout_kills_and_reports() {
    let ws = Ws::new();
    let started = Instant::now();
    let err = ws.err(
        "bash",
        json!({"command": "echo before; sleep 30", "timeout": 0.5}),
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(err, "before\n\n\nCommand timed out after 0.5 seconds");
    let err = ws.err("bash", json!({"command": "true", "timeout": -1}));
    assert!(err.contains("timeout"), "{err}");
}

fn process_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // A zombie waiting for an init that does not reap is dead for our purpose.
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| !rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

#[test]
fn abort_kills_the_whole_process_group() {
    let ws = Ws::new();
    let cancel = AtomicBool::new(false);
    let pids = ws.path("pids");
    let command = format!(
        "sleep 100 & echo $! > {0}; sleep 100 & echo $! >> {0}; wait",
        pids.display()
    );
    let result = std::thread::scope(|s| {
        s.spawn(|| {
            let deadline = Instant::now() + Duration::from_secs(10);
            while std::fs::read_to_string(&pids).map_or(0, |t| t.lines().count()) < 2
                && Instant::now() < deadline
            {
                std::thread::sleep(Duration::from_millis(20));
            }
            cancel.store(true, Ordering::SeqCst);
        });
        ws.run_with("bash", json!({"command": command}), &mut |_| {}, &cancel)
    });
    assert_eq!(result.unwrap_err().message, "Command aborted");
    let pids: Vec<u32> = std::fs::read_to_string(&pids)
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    assert_eq!(pids.len(), 2);
    std::thread::sleep(Duration::from_millis(200));
    for pid in pids {
        assert!(!process_alive(pid), "sleep {pid} survived the abort");
    }
}

#[test]
fn huge_output_keeps_tail_and_saves_full_output() {
    let ws = Ws::new();
    let mut updates = 0;
    let cancel = AtomicBool::new(false);
    let out = ws
        .run_with(
            "bash",
            json!({"command": "seq 1 100000"}),
            &mut |_| updates += 1,
            &cancel,
        )
        .unwrap();
    assert!(updates >= 1);
    let text = out.joined_text();
    let path = out.details["fullOutputPath"].as_str().unwrap().to_string();
    assert!(path.contains("pi-bash-") && path.ends_with(".log"));
    assert!(text.starts_with("98001\n"), "{}", &text[..20]);
    assert!(text.ends_with(&format!(
        "100000\n\n[Showing lines 98001-100000 of 100000. Full output: {path}]"
    )));
    let expected: String = (1..=100000).map(|i| format!("{i}\n")).collect();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), expected);
}

#[test]
fn failing_commands_keep_the_full_output_path() {
    let ws = Ws::new();
    let expected: String = (1..=100000).map(|i| format!("{i}\n")).collect();
    for (command, ending) in [
        ("seq 1 100000; exit 3", "Command exited with code 3"),
        (
            "seq 1 100000; sleep 30",
            "Command timed out after 1 seconds",
        ),
    ] {
        let err = ws
            .run("bash", json!({"command": command, "timeout": 1}))
            .unwrap_err();
        let path = err.details["fullOutputPath"].as_str().unwrap().to_string();
        assert!(
            path.contains("pi-bash-") && path.ends_with(".log"),
            "{path}"
        );
        assert!(
            err.message.contains(&format!("Full output: {path}]")),
            "{}",
            err.message
        );
        assert!(err.message.ends_with(ending), "{}", err.message);
        assert_eq!(err.details["truncation"]["totalLines"], json!(100000));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), expected);
    }
}

#[test]
fn line_limit_edges() {
    let ws = Ws::new();
    let text = ws.ok("bash", json!({"command": "seq 1 2000"}));
    assert!(text.ends_with("2000\n") && text.starts_with("1\n"));
    let out = ws.run("bash", json!({"command": "seq 1 2001"})).unwrap();
    assert!(
        out.joined_text()
            .contains("[Showing lines 2-2001 of 2001. Full output: ")
    );
}

#[test]
fn byte_limit_and_partial_last_line() {
    let ws = Ws::new();
    let text = ws.ok(
        "bash",
        json!({"command": "head -c 51200 /dev/zero | tr '\\0' x"}),
    );
    assert_eq!(text.len(), 51200);
    let out = ws
        .run(
            "bash",
            json!({"command": "head -c 200000 /dev/zero | tr '\\0' x"}),
        )
        .unwrap();
    let text = out.joined_text();
    let path = out.details["fullOutputPath"].as_str().unwrap();
    assert!(
        text.ends_with(&format!(
            "[Showing last 50.0KB of line 1 (line is 195.3KB). Full output: {path}]"
        )),
        "{}",
        &text[text.len() - 120..]
    );
    assert_eq!(std::fs::metadata(path).unwrap().len(), 200000);
    let out = ws.run("bash", json!({"command": "for i in $(seq 1 100); do head -c 1000 /dev/zero | tr '\\0' y; echo; done"})).unwrap();
    assert!(
        out.joined_text()
            .contains("[Showing lines 50-100 of 100 (50.0KB limit). Full output: ")
    );
}

#[test]
fn aborted_output_is_kept_and_signal_exit_is_not_an_error() {
    let ws = Ws::new();
    // The shell killing itself: pi sees exit code null and reports the output normally.
    assert_eq!(
        ws.ok("bash", json!({"command": "echo bye; kill -9 $$"})),
        "bye\n"
    );
    let err = ws.err("bash", json!({"command": "sleep 30", "timeout": 1}));
    assert_eq!(err, "Command timed out after 1 seconds");
}
