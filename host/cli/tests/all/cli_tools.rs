//! A 10-tool-call task through `pi -p`: the mock asks for every built-in tool, the files in the
//! temp workspace end up as the calls say, and every result lands in the session file.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::cli_support::*;
use pi_mock_llm::{Api, Turn};
use serde_json::json;

fn turns() -> Vec<Turn> {
    vec![
        Turn::text("Creating the files.")
            .tool_call(
                "c1",
                "write",
                json!({"path": "a.txt", "content": "alpha\nbeta\n"}),
            )
            .tool_call(
                "c2",
                "write",
                json!({"path": "notes/b.txt", "content": "one\ntwo\n"}),
            ),
        Turn::new()
            .tool_call("c3", "read", json!({"path": "a.txt"}))
            .tool_call("c4", "ls", json!({"path": "."})),
        Turn::new()
            .tool_call(
                "c5",
                "edit",
                json!({"path": "a.txt", "edits": [{"oldText": "beta", "newText": "gamma"}]}),
            )
            .tool_call(
                "c6",
                "bash",
                json!({"command": "cat notes/b.txt > c.txt && echo copied"}),
            ),
        Turn::new()
            .tool_call("c7", "grep", json!({"pattern": "gamma"}))
            .tool_call("c8", "find", json!({"pattern": "*.txt"})),
        Turn::new()
            .tool_call(
                "c9",
                "edit",
                json!({"path": "notes/b.txt", "edits": [{"oldText": "two", "newText": "three"}]}),
            )
            .tool_call(
                "c10",
                "write",
                json!({"path": "deep/er/d.txt", "content": "done"}),
            ),
        Turn::text("All ten steps are done."),
    ]
}

#[test]
fn ten_tool_calls_edit_real_files() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.mock.push_all(turns());
    let all = "read,bash,edit,write,grep,find,ls";
    let out = pi.run(&["--tools", all, "-p", "Set up the files"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out), "All ten steps are done.\n");

    let cwd = pi.cwd();
    let read = |p: &str| std::fs::read_to_string(cwd.join(p)).unwrap();
    assert_eq!(read("a.txt"), "alpha\ngamma\n");
    assert_eq!(read("notes/b.txt"), "one\nthree\n");
    assert_eq!(read("c.txt"), "one\ntwo\n");
    assert_eq!(read("deep/er/d.txt"), "done");

    // Six requests: five tool turns and the final answer; the model saw the tools.
    let requests = pi.mock.requests();
    assert_eq!(requests.len(), 6);
    let offered: Vec<String> = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
        .collect();
    for name in ["read", "bash", "edit", "write", "grep", "find", "ls"] {
        assert!(
            offered.iter().any(|o| o == name),
            "{name} offered: {offered:?}"
        );
    }
    let system = requests[0].body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        system.contains("- read:"),
        "tool snippets in the system prompt"
    );

    let lines = pi.session_lines();
    assert_complete_session(&lines);
    let results: Vec<_> = messages(&lines)
        .into_iter()
        .filter(|m| m["role"] == "toolResult")
        .collect();
    assert_eq!(results.len(), 10);
    for result in &results {
        assert_eq!(result["isError"], false, "{result}");
    }
    let text_of = |id: &str| {
        results
            .iter()
            .find(|r| r["toolCallId"] == id)
            .map(|r| {
                r["content"][0]["text"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned()
            })
            .unwrap()
    };
    assert!(text_of("c3").contains("beta"));
    assert!(text_of("c6").contains("copied"));
    assert!(text_of("c7").contains("a.txt"));
    assert!(text_of("c8").contains("notes/b.txt"));
}

#[test]
fn tool_flags_select_what_the_model_sees() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.mock.push(Turn::text("a"));
    pi.mock.push(Turn::text("b"));
    let out = pi.run(&["--tools", "read,grep", "--no-session", "-p", "x"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = pi.run(&["--no-tools", "--no-session", "-p", "x"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let requests = pi.mock.requests();
    let names = |i: usize| -> Vec<String> {
        requests[i].body["tools"]
            .as_array()
            .map(|tools| {
                tools
                    .iter()
                    .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
                    .collect()
            })
            .unwrap_or_default()
    };
    assert_eq!(names(0), ["read", "grep"]);
    assert!(names(1).is_empty());
}

#[test]
fn read_tells_a_model_without_image_input_instead_of_attaching_the_image() {
    use base64::Engine as _;
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let models = serde_json::json!({"providers": {"mock": {
        "baseUrl": pi.mock.base_url(Api::OpenAiCompletions),
        "api": "openai-completions",
        "apiKey": "mock-key",
        "models": [
            {"id": "vision", "input": ["text", "image"]},
            {"id": "text-only", "input": ["text"]}
        ]
    }}});
    pi.write_agent_file("models.json", &models.to_string());
    let png = base64::engine::general_purpose::STANDARD
        .decode(super::cli_tui_support::DOT_PNG)
        .unwrap();
    std::fs::write(pi.cwd().join("dot.png"), png).unwrap();
    let read_with = |model: &str| {
        pi.mock
            .push(Turn::new().tool_call("r1", "read", serde_json::json!({"path": "dot.png"})));
        pi.mock.push(Turn::text("seen"));
        let out = pi.run(&["--model", model, "--no-session", "-p", "look"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        pi.mock.requests().pop().unwrap().body.to_string()
    };
    let text_only = read_with("mock/text-only");
    assert!(
        text_only.contains("Current model does not support images"),
        "{text_only}"
    );
    let vision = read_with("mock/vision");
    assert!(
        !vision.contains("Current model does not support images"),
        "{vision}"
    );
    assert!(vision.contains("image_url"), "{vision}");
}

/// `read` through the binary hands the model each file's bytes: its final newline, CRLF
/// endings, and no newline added to a file without one (as pi 1.6 does).
#[test]
fn read_returns_the_three_newline_shapes_byte_for_byte() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let shapes = [
        ("lf", "lf.txt", "alpha\nbeta\ngamma\n"),
        ("crlf", "crlf.txt", "alpha\r\nbeta\r\ngamma\r\n"),
        ("none", "none.txt", "alpha\nbeta\ngamma"),
    ];
    let mut turn = Turn::new();
    for (id, file, content) in shapes {
        std::fs::write(pi.cwd().join(file), content).unwrap();
        turn = turn.tool_call(id, "read", json!({ "path": file }));
    }
    pi.mock.push_all(vec![turn, Turn::text("read")]);
    let out = pi.run(&["--tools", "read", "--no-session", "-p", "read them"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let requests = pi.mock.requests();
    let body = &requests.last().unwrap().body;
    for (id, _, content) in shapes {
        let result = body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["role"] == "tool" && m["tool_call_id"] == id)
            .unwrap_or_else(|| panic!("no result for {id} in {body}"));
        assert_eq!(
            result["content"].as_str().unwrap().as_bytes(),
            content.as_bytes(),
            "{id}"
        );
    }
}
