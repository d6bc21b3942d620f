//! Session flags through the binary: `-c`, `--session`, `--session-id`, `--fork`, `-n`,
//! `--resume` without a UI.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::cli_support::*;
use pi_mock_llm::{Api, Turn};

fn sent_text(pi: &PiEnv, request: usize) -> String {
    pi.mock.requests()[request].body["messages"].to_string()
}

#[test]
fn continue_resumes_the_latest_session_of_the_directory() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.mock.push(Turn::text("first answer"));
    pi.mock.push(Turn::text("second answer"));
    assert_eq!(
        pi.run(&["-n", "My task", "-p", "first question"])
            .status
            .code(),
        Some(0)
    );
    let out = pi.run(&["-c", "-p", "second question"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let sent = sent_text(&pi, 1);
    assert!(
        sent.contains("first question") && sent.contains("first answer"),
        "{sent}"
    );
    let lines = pi.session_lines();
    assert_complete_session(&lines);
    assert_eq!(messages(&lines).len(), 4);
    // The system prompt is recorded once: the second run's prompt and tools are the same.
    assert_eq!(system_messages(&lines).len(), 1);
    assert!(
        lines
            .iter()
            .any(|l| l["type"] == "session_info" && l["name"] == "My task")
    );
}

#[test]
fn session_id_and_session_path_and_fork() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.mock.push(Turn::text("one"));
    pi.mock.push(Turn::text("two"));
    pi.mock.push(Turn::text("three"));
    let out = pi.run(&["--session-id", "my-run-1", "-p", "alpha"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let files = pi.session_files();
    assert_eq!(files.len(), 1);
    assert!(files[0].to_string_lossy().ends_with("_my-run-1.jsonl"));
    assert_eq!(read_jsonl(&files[0])[0]["id"], "my-run-1");

    let path = files[0].to_string_lossy().into_owned();
    let out = pi.run(&["--session", &path, "-p", "beta"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(sent_text(&pi, 1).contains("alpha"));

    let out = pi.run(&["--fork", "my-run", "-p", "gamma"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(sent_text(&pi, 2).contains("beta"));
    let files = pi.session_files();
    assert_eq!(files.len(), 2, "the fork is a new file");
    let original = read_jsonl(std::path::Path::new(&path));
    assert_eq!(
        messages(&original).len(),
        4,
        "the original is untouched by the fork"
    );

    let out = pi.run(&["--session-id", "bad id!", "-p", "x"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("Invalid --session-id"));
}

#[test]
fn resume_needs_the_ui_and_session_flags_conflict() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let out = pi.run(&["-r", "-p", "x"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("--continue"), "{}", stderr(&out));
    let out = pi.run(&["-c", "--no-session", "-p", "x"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("only one of"), "{}", stderr(&out));
    assert!(pi.mock.requests().is_empty());
}

#[test]
fn unreadable_session_lines_are_reported_and_the_rest_continues() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.mock.push(Turn::text("first answer"));
    pi.mock.push(Turn::text("second answer"));
    let out = pi.run(&["-p", "first question"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let path = pi.session_files()[0].clone();
    // A line written by something else in the middle, and a write cut off at the end.
    let mut text = std::fs::read_to_string(&path).unwrap();
    let first_line = text.find('\n').unwrap() + 1;
    text.insert_str(first_line, "{not json\n");
    text.push_str("{\"type\":\"message\",\"id\":\"cut");
    std::fs::write(&path, &text).unwrap();

    let file = path.to_string_lossy().into_owned();
    let out = pi.run(&["--session", &file, "-p", "second question"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(stdout(&out), "second answer\n");
    assert!(
        err.contains(&format!("Warning (session): {file}: line 2: ")),
        "{err}"
    );
    let last = text.lines().count();
    assert!(
        err.contains(&format!("line {last}: incomplete last line")),
        "{err}"
    );
    assert!(sent_text(&pi, 1).contains("first answer"));
    // The foreign line is still there; the cut-off fragment made way for the new entries.
    let after = std::fs::read_to_string(&path).unwrap();
    assert!(after.contains("{not json\n"), "{after}");
    assert!(!after.contains("\"id\":\"cut"), "{after}");
}
