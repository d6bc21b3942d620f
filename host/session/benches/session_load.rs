//! Loads a generated ~100 MB session file and prints the time and peak RSS, then shows that an
//! append costs the same on a small and on the 100 MB file.
//!
//! `cargo bench -p pi-session --bench session_load` (targets: load ≤ 0.5 s, peak RSS ≤ 2×
//! the file size). `PI_BENCH_SESSION_MB` changes the size.

// A measuring program: failing loudly on a broken setup is what we want.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use pi_ai::{
    AssistantBlock, AssistantMessage, StopReason, TextContent, ToolCall, ToolResultMessage, Usage,
    UserBlock, UserMessage,
};
use pi_session::messages::AgentMessage;
use pi_session::session::ids::iso_now;
use pi_session::session::{EntryKind, SessionEntry, SessionManager};
use std::io::Write;
use std::path::Path;
use std::time::Instant;

fn vm_hwm_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// CPU time (user + system) of this process in seconds, from /proc/self/stat.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after_name = stat.rsplit(')').next().unwrap_or("");
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // Fields 14 and 15 of the full line (utime, stime) are 11 and 12 after the name; 100 Hz.
    (ticks(11) + ticks(12)) / 100.0
}

fn text_block(text: String) -> UserBlock {
    UserBlock::Text(TextContent {
        text,
        text_signature: None,
    })
}

/// One turn: a user prompt, an assistant tool call, a tool result with a file's worth of text.
fn turn(i: usize, filler: &str) -> Vec<AgentMessage> {
    let now = pi_ai::now_ms();
    vec![
        AgentMessage::from(UserMessage::text(format!(
            "step {i}: please look at src/file_{i}.rs"
        ))),
        AgentMessage::from(AssistantMessage {
            content: vec![
                AssistantBlock::Text(TextContent {
                    text: format!("Reading file {i} to \"check\" it.\n"),
                    text_signature: None,
                }),
                AssistantBlock::ToolCall(ToolCall {
                    id: format!("toolu_{i:08}"),
                    name: "read".into(),
                    arguments: serde_json::json!({"path": format!("src/file_{i}.rs")}),
                    thought_signature: None,
                }),
            ],
            api: "anthropic-messages".into(),
            provider: "anthropic".into(),
            model: "claude-sonnet-4-5".into(),
            usage: Usage {
                input: 1000 + i as u64,
                output: 50,
                total_tokens: 1050 + i as u64,
                ..Default::default()
            },
            stop_reason: StopReason::ToolUse,
            timestamp: now,
            ..Default::default()
        }),
        AgentMessage::from(ToolResultMessage {
            tool_call_id: format!("toolu_{i:08}"),
            tool_name: "read".into(),
            content: vec![text_block(filler.to_owned())],
            details: None,
            is_error: false,
            timestamp: now,
            duration_ms: None,
        }),
    ]
}

fn generate(path: &Path, target_bytes: u64) -> usize {
    let mut filler = String::new();
    for line in 0..200 {
        filler.push_str(&format!(
            "    let value_{line} = compute(\"{line}\", {line}) * 2; // a line of code\n"
        ));
    }
    let header = SessionManager::in_memory(Path::new("/bench/project"))
        .header()
        .to_json();
    let file = std::fs::File::create(path).unwrap();
    let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
    writeln!(out, "{header}").unwrap();
    let mut written = 0u64;
    let mut entries = 0usize;
    let mut parent: Option<String> = None;
    let mut i = 0;
    while written < target_bytes {
        for message in turn(i, &filler) {
            let id = format!("{:08x}", entries);
            let entry = SessionEntry {
                id: id.clone(),
                parent_id: parent.replace(id),
                timestamp: iso_now(),
                kind: EntryKind::Message(message),
                extra: Default::default(),
                message_extra: Default::default(),
            };
            let line = entry.to_line();
            written += line.len() as u64 + 1;
            writeln!(out, "{line}").unwrap();
            entries += 1;
        }
        i += 1;
    }
    out.flush().unwrap();
    entries
}

fn time_appends(session: &mut SessionManager, n: usize) -> f64 {
    let start = Instant::now();
    for i in 0..n {
        session
            .append_message(AgentMessage::from(UserMessage::text(format!("append {i}"))))
            .unwrap();
    }
    start.elapsed().as_secs_f64()
}

fn main() {
    let mb: u64 = std::env::var("PI_BENCH_SESSION_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.jsonl");
    let entries = generate(&big, mb << 20);
    let size = std::fs::metadata(&big).unwrap().len();
    let hwm_before = vm_hwm_kb();

    let start = Instant::now();
    let cpu_start = cpu_seconds();
    let mut session = SessionManager::open(&big, Path::new("/bench/project")).unwrap();
    let load_cpu = cpu_seconds() - cpu_start;
    let mut load = start.elapsed().as_secs_f64();
    let hwm_after = vm_hwm_kb();
    // Two more loads (after the first one's memory is measured) to see past a busy machine.
    for _ in 0..2 {
        let start = Instant::now();
        let again = SessionManager::open(&big, Path::new("/bench/project")).unwrap();
        load = load.min(start.elapsed().as_secs_f64());
        drop(again);
    }
    assert_eq!(session.entries().len(), entries);
    let start = Instant::now();
    let context = session.build_session_context();
    let context_time = start.elapsed().as_secs_f64();
    let context_len = context.messages.len();
    drop(context);

    println!(
        "session file: {:.1} MB, {entries} entries",
        size as f64 / 1048576.0
    );
    println!(
        "load: {:.3} s wall, best of 3 ({:.0} MB/s); first load used {:.2} s CPU on {} threads; load average {}",
        load,
        size as f64 / 1048576.0 / load,
        load_cpu,
        std::thread::available_parallelism()
            .map(usize::from)
            .unwrap_or(1),
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .split(' ')
            .next()
            .unwrap_or("?")
    );
    println!(
        "peak RSS (VmHWM): {:.1} MB after load ({:.1} MB before; {:.2}x file size)",
        hwm_after as f64 / 1024.0,
        hwm_before as f64 / 1024.0,
        hwm_after as f64 * 1024.0 / size as f64
    );
    println!("build_session_context: {context_time:.3} s ({context_len} messages)");

    let small = dir.path().join("small.jsonl");
    let mut small_session = SessionManager::create_at(&small, Path::new("/bench/project"));
    for message in turn(0, "small") {
        small_session.append_message(message).unwrap();
    }
    let n = 1000;
    let t_small = time_appends(&mut small_session, n);
    let t_big = time_appends(&mut session, n);
    println!(
        "{n} appends: small file {:.1} ms ({:.1} µs each), 100 MB file {:.1} ms ({:.1} µs each)",
        t_small * 1e3,
        t_small * 1e6 / n as f64,
        t_big * 1e3,
        t_big * 1e6 / n as f64
    );
    let ok_time = load <= 0.5;
    let ok_rss = (hwm_after as f64 * 1024.0) <= 2.0 * size as f64;
    println!("targets: load ≤ 0.5 s: {ok_time}; peak RSS ≤ 2× file: {ok_rss}");
}
