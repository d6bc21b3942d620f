//! The Python example `extensions/json-query` (built with componentize-py): installed with only
//! `filesystem = "read"` although its component imports every interface of the tool world
//! (`process` too), queried through the mock LLM, kept inside the workspace, and loaded from
//! the compiled-component cache on the second run.

use super::cli_extension_examples::built_package;
use super::cli_support::*;
use pi_mock_llm::{Api, Turn};
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// The text the model got back for call `id` in request `request`, and whether pi stored
/// that call's result as an error.
fn result_of(pi: &PiEnv, request: usize, id: &str) -> (String, bool) {
    let body = &pi.mock.requests()[request].body;
    let text = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == id)
        .unwrap_or_else(|| panic!("no result for {id} in {body}"))["content"]
        .as_str()
        .unwrap()
        .to_owned();
    let lines = pi.session_lines();
    let stored = messages(&lines)
        .into_iter()
        .find(|m| m["role"] == "toolResult" && m["toolCallId"] == id)
        .cloned()
        .unwrap_or_else(|| panic!("no stored result for {id}"));
    (text, stored["isError"] == true)
}

fn query(id: &str, arguments: Value) -> (String, Value) {
    (id.to_owned(), arguments)
}

#[test]
fn the_python_json_query_tool_reads_the_workspace_only_and_loads_from_the_cache() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let cwd = pi.cwd();
    std::fs::write(
        cwd.join("Cargo.toml"),
        "[package]\nname = \"demo\"\n\n[dependencies]\nserde = { version = \"1.0.200\", features = [\"derive\"] }\n",
    )
    .unwrap();
    std::fs::write(
        cwd.join("items.json"),
        json!({"items": [{"name": "first", "n": 1}, {"name": "second", "n": 2}]}).to_string(),
    )
    .unwrap();
    std::fs::write(cwd.join("broken.json"), "{\"items\": [1, 2,\n}").unwrap();
    std::os::unix::fs::symlink("/etc/passwd", cwd.join("passwd.json")).unwrap();
    std::fs::write(pi.root.path().join("outside.json"), "{\"secret\": 1}").unwrap();

    let package = built_package(&pi, pi_extension_examples::JSON_QUERY, "json-query.wasm");
    let out = pi.run(&["ext", "install", package.to_str().unwrap(), "--yes"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let out = pi.run(&["ext", "info", "json-query"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let info = stdout(&out);
    assert!(
        info.contains("granted: read files in the working directory\n"),
        "{info}"
    );
    assert!(!info.contains("run processes"), "{info}");
    assert!(info.contains("json-query.wasm (tool)"), "{info}");

    let calls = [
        query(
            "toml",
            json!({"path": "Cargo.toml", "query": ".dependencies.serde.version"}),
        ),
        query(
            "each",
            json!({"path": "items.json", "query": ".items[].name"}),
        ),
        query(
            "inline",
            json!({"json": "{\"a\": [1, {\"b\": [true, null]}]}", "query": ".a[-1]"}),
        ),
        query("absolute", json!({"path": "/etc/passwd", "query": "."})),
        query("parent", json!({"path": "../outside.json", "query": "."})),
        query("link", json!({"path": "passwd.json", "query": "."})),
        query("range", json!({"path": "items.json", "query": ".items[5]"})),
        query(
            "key",
            json!({"path": "items.json", "query": ".items[].size"}),
        ),
        query("syntax", json!({"path": "items.json", "query": "items"})),
        query("missing", json!({"path": "nope.json", "query": "."})),
        query("broken", json!({"path": "broken.json", "query": "."})),
    ];
    let mut turn = Turn::new();
    for (id, arguments) in &calls {
        turn = turn.tool_call(id.as_str(), "json_query", arguments.clone());
    }
    pi.mock.push(turn);
    pi.mock.push(Turn::text("Queried."));
    let out = pi.run(&["-p", "Query my files"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out), "Queried.\n");
    let offered = &pi.mock.requests()[0].body["tools"];
    assert!(offered.to_string().contains("\"json_query\""), "{offered}");

    let answers: BTreeMap<&str, (String, bool)> = calls
        .iter()
        .map(|(id, _)| (id.as_str(), result_of(&pi, 1, id)))
        .collect();
    let ok = |id: &str| {
        let (text, is_error) = &answers[id];
        assert!(!is_error, "{id}: {text}");
        text.clone()
    };
    let error = |id: &str| {
        let (text, is_error) = &answers[id];
        assert!(is_error, "{id} should fail: {text}");
        text.clone()
    };
    assert_eq!(ok("toml"), "\"1.0.200\"");
    assert_eq!(ok("each"), "\"first\"\n\"second\"");
    assert_eq!(ok("inline"), "{\n  \"b\": [\n    true,\n    null\n  ]\n}");
    for id in ["absolute", "parent"] {
        let text = error(id);
        assert!(text.contains("is outside the workspace"), "{id}: {text}");
    }
    // Past the tool's own check, the sandbox refuses the link leading out of the workspace.
    let text = error("link");
    assert!(
        text.contains("passwd.json: reading it is not allowed"),
        "{text}"
    );
    assert!(!text.contains("root:"), "{text}");
    assert!(
        error("range").contains("index [5] is out of range: `.items` has 2 element(s)"),
        "{}",
        error("range")
    );
    assert!(
        error("key").contains("`.items[0]` has no key \"size\" (its keys: name, n)"),
        "{}",
        error("key")
    );
    assert!(error("syntax").contains("a path starts with `.`"));
    assert!(
        error("missing").contains("nope.json: no such file in the workspace"),
        "{}",
        error("missing")
    );
    assert!(
        error("broken").contains("broken.json is not valid JSON"),
        "{}",
        error("broken")
    );

    // The first use compiled the component into the cache; the second run maps that artifact
    // and compiles nothing: no new artifact, the old one untouched.
    let compiled = pi.compiled_components();
    assert!(
        !compiled.is_empty(),
        "the first call compiled the component"
    );
    pi.mock.push(Turn::new().tool_call(
        "again",
        "json_query",
        json!({"path": "items.json", "query": ".items[1].n"}),
    ));
    pi.mock.push(Turn::text("Again."));
    let out = pi.run(&["--no-session", "-p", "Once more"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out), "Again.\n");
    let messages = pi.mock.requests()[3].body["messages"].clone();
    let again = messages
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["tool_call_id"] == "again")
        .unwrap_or_else(|| panic!("{messages}"));
    assert_eq!(again["content"], "2");
    assert_eq!(pi.compiled_components(), compiled);
}
