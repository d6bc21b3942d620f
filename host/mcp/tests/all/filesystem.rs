//! The reference `server-filesystem` over stdio: a long file read through it comes back cut in
//! the middle with the full text in a temp file; a path outside its directory is an error.

use crate::support::*;
use serde_json::json;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_results_are_cut_and_saved_and_refusals_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let served = dir.path().join("served");
    std::fs::create_dir(&served).unwrap();
    let body: String = (0..3000).map(|i| format!("line {i:05}\n")).collect();
    let file = served.join("long.txt");
    std::fs::write(&file, &body).unwrap();
    let script = node_modules()
        .join("@modelcontextprotocol/server-filesystem/dist/index.js")
        .display()
        .to_string();
    let served_arg = served.display().to_string();
    let manager = start(
        vec![spec(
            "files",
            stdio("node", &[&script, &served_arg], &[]),
            Duration::from_secs(30),
        )],
        dir.path(),
    );
    connected(&manager, "files").await;
    let read = tool(&manager, "mcp__files__read_text_file");
    assert_eq!(read.annotations().read_only_hint, Some(true));
    assert_eq!(read.annotations().title.as_deref(), Some("Read Text File"));

    let output = call(read.as_ref(), json!({"path": file.display().to_string()}))
        .await
        .unwrap();
    let text = text_of(&output);
    assert!(
        text.starts_with("Warning: truncated output (original token count: "),
        "{}",
        &text[..200]
    );
    assert!(
        text.contains("Total output lines: 3000\n\nline 00000\n"),
        "{}",
        &text[..200]
    );
    assert!(text.contains("chars truncated…"));
    assert!(text.contains("line 02999"));
    let saved = output.details["fullOutputPath"]
        .as_str()
        .expect("the full text saved");
    assert!(text.ends_with(&format!(
        "[Full output: {saved} (read it with offset/limit)]"
    )));
    assert_eq!(std::fs::read_to_string(saved).unwrap(), body);
    std::fs::remove_file(saved).unwrap();
    // The structured result is kept whole.
    let kept = output.structured_content.expect("kept");
    assert_eq!(kept["structuredContent"]["content"], body);

    let outside = dir.path().join("secret.txt");
    std::fs::write(&outside, "secret").unwrap();
    let error = call(
        read.as_ref(),
        json!({"path": outside.display().to_string()}),
    )
    .await
    .unwrap_err();
    assert!(error.message.contains("Access denied"), "{}", error.message);
    manager.shutdown().await;
}
