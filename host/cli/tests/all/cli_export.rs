//! `pi --export in.jsonl [out.html]`: a self-contained page where nothing from the session can
//! run as script.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::cli_support::*;
use serde_json::json;

const EVIL: &str = "<script>alert('pwned')</script><img src=x onerror=alert(1)>";

fn hostile_session(path: &std::path::Path) {
    let lines = [
        json!({"type":"session","version":3,"id":"s-1","timestamp":"2026-01-01T00:00:00.000Z",
               "cwd":"/tmp/</title><script>x()</script>"}),
        json!({"type":"session_info","id":"e0","parentId":null,
               "timestamp":"2026-01-01T00:00:00.000Z","name": EVIL}),
        json!({"type":"message","id":"e1","parentId":"e0","timestamp":"2026-01-01T00:00:01.000Z",
               "message":{"role":"user","content":[
                   {"type":"text","text": EVIL},
                   {"type":"image","mimeType":"image/png\"><script>y()</script>","data":"AAAA"},
                   {"type":"image","mimeType":"image/png","data":"AA\"onload=\"alert(2)"}],
               "timestamp":1}}),
        json!({"type":"message","id":"e2","parentId":"e1","timestamp":"2026-01-01T00:00:02.000Z",
               "message":{"role":"assistant","content":[
                   {"type":"thinking","thinking": EVIL},
                   {"type":"text","text": format!("Answer {EVIL}")},
                   {"type":"toolCall","id":"c1","name":"bash","arguments":{"command": EVIL}}],
               "api":"openai-completions","provider":"mock","model":"<b>m</b>",
               "usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,
                        "cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},
               "stopReason":"toolUse","timestamp":2}}),
        json!({"type":"message","id":"e3","parentId":"e2","timestamp":"2026-01-01T00:00:03.000Z",
               "message":{"role":"toolResult","toolCallId":"c1","toolName": EVIL,
               "content":[{"type":"text","text": EVIL}],"isError":false,"timestamp":3}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(path, text).unwrap();
}

#[test]
fn export_escapes_everything_from_the_session() {
    let pi = PiEnv::empty();
    let input = pi.cwd().join("evil.jsonl");
    hostile_session(&input);
    let output = pi.cwd().join("out.html");
    let out = pi.run(&[
        "--export",
        input.to_str().unwrap(),
        output.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("out.html"));
    let html = std::fs::read_to_string(&output).unwrap();
    let lower = html.to_lowercase();
    assert!(!lower.contains("<script"), "script tag leaked");
    assert!(!lower.contains("<img src=x"), "markup leaked");
    assert!(!lower.contains("onload=\""), "attribute injection");
    assert!(html.contains("&lt;script&gt;alert(&#39;pwned&#39;)&lt;/script&gt;"));
    assert!(html.contains("Content-Security-Policy"));
    assert!(html.contains("default-src 'none'"));
    assert!(
        html.contains("Answer &lt;script&gt;"),
        "content is there, escaped"
    );
    // Self-contained: nothing fetched from elsewhere.
    assert!(!lower.contains("http://") && !lower.contains("https://"));
}

#[test]
fn export_defaults_the_output_name_and_reports_missing_input() {
    let pi = PiEnv::empty();
    let input = pi.cwd().join("s.jsonl");
    hostile_session(&input);
    let out = pi.run(&["--export", "s.jsonl"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(pi.cwd().join("pi-session-s.html").exists());
    let out = pi.run(&["--export", "missing.jsonl"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("missing.jsonl"), "{}", stderr(&out));
}
