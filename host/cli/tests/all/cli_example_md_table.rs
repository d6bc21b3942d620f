//! The `md-table` example (a tool written in JavaScript, `extensions/md-table`), installed as a
//! user installs it and called by the model through the `pi` binary. Its component is about
//! 13 MB of JavaScript engine, so the second run must load the compiled artifact from the cache
//! instead of compiling again.

use super::cli_extension_examples::built_package;
use super::cli_support::*;
use pi_mock_llm::{Api, Turn};
use serde_json::{Value, json};

/// The text of the tool result for call `id` in a request the mock logged.
fn tool_result(body: &Value, id: &str) -> String {
    let messages = body["messages"].as_array().unwrap();
    let result = messages
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == id)
        .unwrap_or_else(|| panic!("no result of {id} in {messages:?}"));
    match &result["content"] {
        Value::String(text) => text.clone(),
        parts => parts
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect(),
    }
}

#[test]
fn the_md_table_tool_aligns_a_workspace_file_and_runs_warm_from_the_cache() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    std::fs::write(
        pi.cwd().join("scores.csv"),
        "name,score\nBob,7\n東京,12\n\"Al, Jr.\",3\n",
    )
    .unwrap();
    let package = built_package(&pi, pi_extension_examples::MD_TABLE, "md-table.wasm");
    let out = pi.run(&["ext", "install", package.to_str().unwrap(), "--yes"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));

    // Reading files is all it asked for: the `process` import it carries (as every
    // componentize-js component of the tool world does) is linked as a refusal.
    let out = pi.run(&["ext", "info", "md-table"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let info = stdout(&out);
    assert!(info.contains("md-table.wasm (tool)"), "{info}");
    let granted: Vec<&str> = info.lines().filter(|l| l.contains("granted:")).collect();
    assert_eq!(
        granted,
        ["granted: read files in the working directory"],
        "{info}"
    );

    pi.mock.push(Turn::new().tool_call(
        "c1",
        "md_table",
        json!({"path": "scores.csv", "sort_by": "score", "descending": true}),
    ));
    pi.mock.push(Turn::text("Sorted."));
    let out = pi.run(&["--no-session", "-p", "Sort my scores"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out), "Sorted.\n");
    // Numbers right-aligned and sorted as numbers; the CJK name counted two cells a character.
    assert_eq!(
        tool_result(&pi.mock.requests()[1].body, "c1"),
        "| name    | score |\n\
         | ------- | ----: |\n\
         | 東京    |    12 |\n\
         | Bob     |     7 |\n\
         | Al, Jr. |     3 |"
    );
    let compiled = pi.compiled_components();
    assert_eq!(
        compiled.len(),
        1,
        "one component, compiled once: {compiled:?}"
    );

    // The second run: a ragged table and a missing file are refused, each with what to fix,
    // and the component came from the cache (the artifact was not written again).
    pi.mock.push(
        Turn::new()
            .tool_call(
                "c2",
                "md_table",
                json!({"table": "| a | b |\n|:-:|---|\n| 1 | 2 |\n| 3 |\n"}),
            )
            .tool_call("c3", "md_table", json!({"path": "missing.csv"})),
    );
    pi.mock.push(Turn::text("That table is ragged."));
    let out = pi.run(&["--no-session", "-p", "Format this"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out), "That table is ragged.\n");
    let error = tool_result(&pi.mock.requests()[3].body, "c2");
    assert!(
        error.contains("line 4 has 1 cell, the header has 2"),
        "{error}"
    );
    let error = tool_result(&pi.mock.requests()[3].body, "c3");
    assert!(
        error.contains(r#"cannot open "missing.csv": no such file"#),
        "{error}"
    );
    assert_eq!(
        pi.compiled_components(),
        compiled,
        "the warm run compiled nothing"
    );
}
