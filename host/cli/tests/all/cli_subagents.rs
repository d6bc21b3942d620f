//! Subagents through the real binary against the mock LLM, each child answered by its own
//! script (keyed on its agent's system prompt or its task): one child with its own prompt,
//! tools and model and a session file that opens; children in parallel (their requests
//! overlapping), one failing on its own; a chain passing `{previous}`; abort during children;
//! children read-only unless their definition says otherwise; the JSON stream's nesting.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::cli_extensions::offered;
use super::cli_rpc::{RpcClient, ok};
use super::cli_support::*;
use pi_mock_llm::{Api, Reply, Turn};
use serde_json::{Value, json};
use std::time::Duration;

/// A mock env with a second model (`mock/mock-small`) for agents that name one.
fn env() -> PiEnv {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.add_mock_model("mock-small");
    pi
}

fn write_agent(pi: &PiEnv, name: &str, frontmatter: &str, body: &str) {
    let dir = pi.agent_dir().join("agents");
    std::fs::create_dir_all(&dir).unwrap();
    let text =
        format!("---\nname: {name}\ndescription: The {name} agent\n{frontmatter}---\n\n{body}\n");
    std::fs::write(dir.join(format!("{name}.md")), text).unwrap();
}

fn print_run(pi: &PiEnv, prompt: &str) -> std::process::Output {
    pi.run(&["--model", "mock/mock-model", "-p", prompt])
}

fn system_prompt(request: &Value) -> String {
    request["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// The text of the request's tool result for `call_id`.
fn tool_result(request: &Value, call_id: &str) -> String {
    request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == call_id)
        .map(|m| m["content"].to_string())
        .unwrap_or_default()
}

fn user_text(request: &Value) -> String {
    request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "user")
        .map(|m| m["content"].to_string())
        .unwrap_or_default()
}

/// The requests whose system prompt holds `key`.
fn requests_for(pi: &PiEnv, key: &str) -> Vec<Value> {
    pi.mock
        .requests()
        .into_iter()
        .map(|r| r.body)
        .filter(|b| system_prompt(b).contains(key))
        .collect()
}

#[test]
fn one_child_runs_with_its_prompt_tools_and_model_and_its_session_opens() {
    let pi = env();
    write_agent(
        &pi,
        "scout",
        "tools: read, grep\nmodel: mock/mock-small\n",
        "You are SCOUT-ONE.",
    );
    pi.mock.push(Turn::new().tool_call(
        "c1",
        "subagent",
        json!({"agent": "scout", "task": "find the config"}),
    ));
    pi.mock.push_keyed(
        "SCOUT-ONE",
        Turn::text("The config is in app.toml").usage(40, 9, 0, 0),
    );
    pi.mock.push(Turn::text("Done: app.toml"));
    let out = print_run(&pi, "where is the config?");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "Done: app.toml");

    let parent_tools = offered(&pi, 0);
    assert!(
        parent_tools.contains(&"subagent".to_owned()),
        "{parent_tools:?}"
    );
    let requests = pi.mock.requests();
    assert_eq!(requests.len(), 3);
    let child = &requests[1].body;
    assert!(system_prompt(child).contains("You are SCOUT-ONE."));
    assert!(!system_prompt(&requests[0].body).contains("SCOUT-ONE"));
    assert_eq!(child["model"], "mock-small");
    assert_eq!(requests[0].body["model"], "mock-model");
    assert_eq!(offered(&pi, 1), ["read", "grep"]);
    assert!(
        user_text(child).contains("Task: find the config"),
        "{}",
        user_text(child)
    );
    assert!(tool_result(&requests[2].body, "c1").contains("The config is in app.toml"));

    // The child's transcript is a session of its own, pointing back at the parent's.
    let files = pi.session_files();
    assert_eq!(files.len(), 2, "{files:?}");
    let (mut parent, mut child_file) = (None, None);
    for file in &files {
        let lines = read_jsonl(file);
        match lines[0].get("parentSession") {
            Some(_) => child_file = Some((file.clone(), lines)),
            None => parent = Some((file.clone(), lines)),
        }
    }
    let (parent_path, parent_lines) = parent.unwrap();
    let (child_path, child_lines) = child_file.unwrap();
    let parent_real = std::fs::canonicalize(&parent_path).unwrap();
    assert_eq!(
        child_lines[0]["parentSession"],
        parent_real.to_string_lossy().as_ref()
    );
    assert_complete_session(&child_lines);
    let result = parent_lines
        .iter()
        .find(|l| l["message"]["role"] == "toolResult")
        .unwrap();
    let details = &result["message"]["details"];
    assert_eq!(details["mode"], "single");
    assert_eq!(details["results"][0]["status"], "completed");
    assert_eq!(details["results"][0]["model"], "mock/mock-small");
    assert_eq!(details["results"][0]["usage"]["input"], 40);
    assert_eq!(
        details["results"][0]["sessionFile"],
        child_path.to_string_lossy().as_ref()
    );

    // It opens: a prompt in it carries the child's conversation.
    pi.mock.push(Turn::text("still here"));
    let child_path = child_path.to_string_lossy().into_owned();
    let out = pi.run(&[
        "--model",
        "mock/mock-model",
        "--session",
        &child_path,
        "-p",
        "again",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let last = pi.mock.requests().last().unwrap().body.to_string();
    assert!(last.contains("The config is in app.toml") && last.contains("Task: find the config"));

    // The child's file is now the newest, but `-c` continues the parent, not a subagent.
    assert_eq!(child_lines[0]["subagent"], "scout");
    pi.mock.push(Turn::text("continued"));
    let out = pi.run(&["--model", "mock/mock-model", "-c", "-p", "and now?"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let last = pi.mock.requests().last().unwrap().body.to_string();
    assert!(last.contains("where is the config?"), "{last}");
}

#[test]
fn parallel_children_overlap_and_one_failure_is_its_own() {
    let pi = env();
    for name in ["alpha", "beta", "gamma"] {
        write_agent(&pi, name, "", &format!("You are AGENT-{name}."));
    }
    let tasks = json!({"tasks": [
        {"agent": "alpha", "task": "look at a"},
        {"agent": "beta", "task": "look at b"},
        {"agent": "gamma", "task": "look at c"}
    ]});
    pi.mock.push(Turn::new().tool_call("p1", "subagent", tasks));
    let slow = Duration::from_millis(1500);
    pi.mock.push_keyed(
        "AGENT-alpha",
        Reply::from(Turn::text("alpha found A")).delay(slow),
    );
    pi.mock.push_keyed(
        "AGENT-beta",
        Reply::json(
            400,
            &json!({"error": {"message": "BETA-BROKEN", "type": "invalid_request_error"}}),
        )
        .delay(slow),
    );
    pi.mock.push_keyed(
        "AGENT-gamma",
        Reply::from(Turn::text("gamma found C")).delay(slow),
    );
    pi.mock.push(Turn::text("all done"));
    let child = pi.spawn(&["--model", "mock/mock-model", "-p", "look around"]);

    // All three children asked before any of them was answered: they run at once.
    let requests = pi
        .mock
        .wait_for_requests_blocking(4, Duration::from_secs(30));
    assert_eq!(requests.len(), 4);
    assert!(
        requests[1..].iter().all(|r| !r.answered),
        "a child was answered before the last one asked"
    );
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "all done");
    let last = pi.mock.requests().last().unwrap().body.clone();
    let result = tool_result(&last, "p1");
    assert!(result.contains("Parallel: 2/3 succeeded"), "{result}");
    assert!(result.contains("alpha found A") && result.contains("gamma found C"));
    assert!(result.contains("[beta] failed"), "{result}");
    assert!(result.contains("BETA-BROKEN"), "{result}");
}

#[test]
fn a_chain_passes_each_answer_to_the_next_step() {
    let pi = env();
    write_agent(&pi, "finder", "", "You are FINDER.");
    write_agent(&pi, "writer", "", "You are WRITER.");
    let chain = json!({"chain": [
        {"agent": "finder", "task": "find the entry point"},
        {"agent": "writer", "task": "summarise this: {previous}"}
    ]});
    pi.mock.push(Turn::new().tool_call("ch", "subagent", chain));
    pi.mock.push_keyed("FINDER", Turn::text("ENTRY-IS-main.rs"));
    pi.mock
        .push_keyed("WRITER", Turn::text("main.rs starts it all"));
    pi.mock.push(Turn::text("ok"));
    let out = print_run(&pi, "explain the start");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let writer = requests_for(&pi, "WRITER");
    assert_eq!(writer.len(), 1);
    assert!(
        user_text(&writer[0]).contains("summarise this: ENTRY-IS-main.rs"),
        "{}",
        user_text(&writer[0])
    );
    let last = pi.mock.requests().last().unwrap().body.clone();
    assert!(tool_result(&last, "ch").contains("main.rs starts it all"));
}

#[test]
fn children_only_read_unless_their_definition_lets_them_write() {
    let pi = env();
    write_agent(&pi, "reader", "", "You are READER.");
    write_agent(&pi, "author", "tools: read, write\n", "You are AUTHOR.");
    let write = |path: &str| json!({"path": path, "content": "hello"});
    pi.mock.push(Turn::new().tool_call(
        "t1",
        "subagent",
        json!({"agent": "reader", "task": "write a.txt"}),
    ));
    pi.mock.push_keyed(
        "READER",
        Turn::new().tool_call("w1", "write", write("a.txt")),
    );
    pi.mock.push_keyed("READER", Turn::text("could not write"));
    pi.mock.push(Turn::new().tool_call(
        "t2",
        "subagent",
        json!({"agent": "author", "task": "write b.txt"}),
    ));
    pi.mock.push_keyed(
        "AUTHOR",
        Turn::new().tool_call("w2", "write", write("b.txt")),
    );
    pi.mock.push_keyed("AUTHOR", Turn::text("wrote it"));
    pi.mock.push(Turn::text("finished"));
    let out = print_run(&pi, "write files");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        !pi.cwd().join("a.txt").exists(),
        "the read-only child wrote"
    );
    assert_eq!(
        std::fs::read_to_string(pi.cwd().join("b.txt")).unwrap(),
        "hello"
    );
    let reader = requests_for(&pi, "READER");
    let refused = tool_result(&reader[1], "w1");
    assert!(refused.contains("write"), "{refused}");
    let reader_tools: Vec<String> = reader[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(reader_tools, ["read", "grep", "find", "ls"]);
    assert!(system_prompt(&reader[0]).contains("plan mode"));
}

#[test]
fn json_mode_nests_the_children_events_and_print_mode_prints_the_parents_answer() {
    let pi = env();
    write_agent(&pi, "scout", "", "You are SCOUT-JSON.");
    pi.mock.push(Turn::new().tool_call(
        "j1",
        "subagent",
        json!({"agent": "scout", "task": "count files"}),
    ));
    pi.mock.push_keyed("SCOUT-JSON", Turn::text("12 files"));
    pi.mock.push(Turn::text("There are 12 files."));
    let out = pi.run(&["--model", "mock/mock-model", "--mode", "json", "count"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let events: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let nested: Vec<&Value> = events.iter().filter(|e| e["type"] == "subagent").collect();
    assert!(!nested.is_empty());
    assert!(
        nested
            .iter()
            .all(|e| e["toolCallId"] == "j1" && e["agent"] == "scout")
    );
    let child_id = nested[0]["id"].as_str().unwrap();
    assert!(nested.iter().all(|e| e["id"] == child_id));
    let kinds: Vec<&str> = nested
        .iter()
        .map(|e| e["event"]["type"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"agent_start") && kinds.contains(&"message_end"),
        "{kinds:?}"
    );
    let child_answer = nested.iter().find(|e| {
        e["event"]["type"] == "message_end" && e["event"]["message"]["role"] == "assistant"
    });
    assert!(child_answer.unwrap().to_string().contains("12 files"));
    // The parent's own events are not confused with the child's.
    let updates = events
        .iter()
        .filter(|e| e["type"] == "tool_execution_update" && e["toolName"] == "subagent")
        .count();
    assert!(updates >= 2, "live updates of the call's rows");
    assert_eq!(events.last().unwrap()["type"], "agent_settled");
}

#[test]
fn an_abort_stops_every_child_and_leaves_the_sessions_whole() {
    let pi = env();
    for name in ["one", "two"] {
        write_agent(&pi, name, "", &format!("You are SLOW-{name}."));
    }
    let tasks = json!({"tasks": [
        {"agent": "one", "task": "wait"},
        {"agent": "two", "task": "wait"}
    ]});
    pi.mock.push(Turn::new().tool_call("a1", "subagent", tasks));
    for name in ["one", "two"] {
        pi.mock.push_keyed(
            &format!("SLOW-{name}"),
            Reply::hang_after_headers(Turn::text("never"), 1),
        );
    }
    let mut rpc = RpcClient::start_with(&pi, &["--model", "mock/mock-model"]);
    ok(&rpc.call(json!({"type": "prompt", "message": "go"})));
    pi.mock
        .wait_for_requests_blocking(3, Duration::from_secs(30));
    // `abort` answers once the session is idle: the run has settled by then.
    ok(&rpc.call(json!({"type": "abort"})));
    let settled = rpc
        .seen
        .iter()
        .find(|e| e["type"] == "agent_settled")
        .cloned();
    assert_eq!(
        settled.expect("settled before the abort's answer")["aborted"],
        true
    );
    // RPC carries the children's events nested, as JSON mode does.
    let nested: Vec<&Value> = rpc
        .seen
        .iter()
        .filter(|e| e["type"] == "subagent")
        .collect();
    assert!(
        nested
            .iter()
            .any(|e| e["toolCallId"] == "a1" && e["event"]["type"] == "agent_start"),
        "{nested:?}"
    );
    for index in 1..3 {
        assert!(
            pi.mock
                .wait_for_client_gone_blocking(index, Duration::from_secs(10)),
            "child request {index} still open"
        );
    }
    // The session goes on: the next prompt runs normally.
    pi.mock.push(Turn::text("back"));
    ok(&rpc.call(json!({"type": "prompt", "message": "still there?"})));
    rpc.wait_event("agent_settled");
    drop(rpc);
    for file in pi.session_files() {
        assert_complete_session(&read_jsonl(&file));
    }
}

#[test]
fn a_childs_calls_go_through_the_hooks_and_never_past_the_parents_mode() {
    let pi = env();
    write_agent(&pi, "scout", "", "You are HOOKED-SCOUT.");
    write_agent(
        &pi,
        "author",
        "tools: read, write\nmode: auto\n",
        "You are ASKED-AUTHOR.",
    );
    pi.settings(
        json!({"hooks": {"PreToolUse": [{"matcher": "grep", "hooks": [
        {"type": "command", "command": "echo no grep for children >&2; exit 2"}]}]}}),
    );
    pi.mock.push(Turn::new().tool_call(
        "h1",
        "subagent",
        json!({"tasks": [{"agent": "scout", "task": "grep"}, {"agent": "author", "task": "write"}]}),
    ));
    pi.mock.push_keyed(
        "HOOKED-SCOUT",
        Turn::new().tool_call("g1", "grep", json!({"pattern": "x"})),
    );
    pi.mock
        .push_keyed("HOOKED-SCOUT", Turn::text("grep was blocked"));
    pi.mock.push_keyed(
        "ASKED-AUTHOR",
        Turn::new().tool_call("w1", "write", json!({"path": "c.txt", "content": "x"})),
    );
    pi.mock
        .push_keyed("ASKED-AUTHOR", Turn::text("write was refused"));
    pi.mock.push(Turn::text("ok"));
    // The parent asks before writes; with nobody to ask, a child's write is refused even
    // though its definition says `auto`.
    let out = pi.run(&[
        "--model",
        "mock/mock-model",
        "--permission-mode",
        "ask-writes",
        "-p",
        "go",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let scout = requests_for(&pi, "HOOKED-SCOUT");
    assert!(tool_result(&scout[1], "g1").contains("no grep for children"));
    let author = requests_for(&pi, "ASKED-AUTHOR");
    let refused = tool_result(&author[1], "w1");
    assert!(refused.contains("ask-writes"), "{refused}");
    assert!(!pi.cwd().join("c.txt").exists());
}

#[test]
fn an_unknown_agent_names_the_available_ones_and_stats_count_the_children() {
    let pi = env();
    write_agent(&pi, "scout", "", "You are COUNTED-SCOUT.");
    pi.mock
        .push(Turn::new().tool_call("u1", "subagent", json!({"agent": "nobody", "task": "x"})));
    pi.mock.push(Turn::new().tool_call(
        "u2",
        "subagent",
        json!({"agent": "scout", "task": "count"}),
    ));
    pi.mock.push_keyed(
        "COUNTED-SCOUT",
        Turn::text("counted").usage(1000, 200, 0, 0),
    );
    pi.mock.push(Turn::text("fine").usage(10, 2, 0, 0));
    let mut rpc = RpcClient::start_with(&pi, &["--model", "mock/mock-model"]);
    ok(&rpc.call(json!({"type": "prompt", "message": "go"})));
    rpc.wait_event("agent_settled");
    let unknown = tool_result(&pi.mock.requests()[1].body, "u1");
    assert!(
        unknown.contains("Unknown agent: \\\"nobody\\\". Available agents: \\\"scout\\\""),
        "{unknown}"
    );
    let stats = rpc.call(json!({"type": "get_session_stats"}));
    let tokens = &ok(&stats)["tokens"];
    assert!(tokens["input"].as_u64().unwrap() >= 1010, "{stats}");
    assert!(tokens["output"].as_u64().unwrap() >= 202, "{stats}");
}

#[test]
fn pis_example_scout_runs_as_is_on_its_own_model() {
    let pi = env();
    let mut models: Value =
        serde_json::from_str(&std::fs::read_to_string(pi.agent_dir().join("models.json")).unwrap())
            .unwrap();
    // Its `claude-haiku-4-5` is the built-in anthropic model, sent to the mock.
    models["providers"]["anthropic"] = json!({
        "baseUrl": pi.mock.base_url(Api::AnthropicMessages),
        "apiKey": "mock-anthropic-key"
    });
    pi.write_agent_file("models.json", &models.to_string());
    let dir = pi.agent_dir().join("agents");
    std::fs::create_dir_all(&dir).unwrap();
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../app/tests/fixtures/pi-subagent-agents/scout.md");
    std::fs::copy(&fixture, dir.join("scout.md")).unwrap();
    pi.mock.push(Turn::new().tool_call(
        "s1",
        "subagent",
        json!({"agent": "scout", "task": "map the parser"}),
    ));
    pi.mock.push_keyed(
        "You are a scout.",
        Turn::text("## Files Retrieved\n1. parser.rs"),
    );
    pi.mock.push(Turn::text("mapped"));
    let out = print_run(&pi, "map it");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let requests = pi.mock.requests();
    let child = &requests[1];
    assert_eq!(child.path, "/v1/messages");
    assert_eq!(child.body["model"], "claude-haiku-4-5");
    let tools: Vec<&str> = child.body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(tools, ["read", "grep", "find", "ls", "bash"]);
    assert!(tool_result(&requests[2].body, "s1").contains("Files Retrieved"));
}

#[test]
fn a_child_past_its_deadline_is_stopped_and_fails_alone() {
    let pi = env();
    pi.settings(json!({"subagents": {"timeoutMs": 400, "maxParallel": 1}}));
    write_agent(&pi, "stuck", "", "You are STUCK.");
    write_agent(&pi, "quick", "", "You are QUICK.");
    pi.mock.push(Turn::new().tool_call(
        "d1",
        "subagent",
        json!({"tasks": [{"agent": "stuck", "task": "hang"}, {"agent": "quick", "task": "answer"}]}),
    ));
    pi.mock
        .push_keyed("STUCK", Reply::hang_after_headers(Turn::text("never"), 1));
    pi.mock.push_keyed("QUICK", Turn::text("quick answer"));
    pi.mock.push(Turn::text("one timed out"));
    let out = print_run(&pi, "go");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let last = pi.mock.requests().last().unwrap().body.clone();
    let result = tool_result(&last, "d1");
    assert!(result.contains("Parallel: 1/2 succeeded"), "{result}");
    assert!(result.contains("subagents.timeoutMs"), "{result}");
    assert!(result.contains("quick answer"), "{result}");
    // One at a time: the quick child asked only after the stuck one was stopped.
    let stuck = pi
        .mock
        .requests()
        .iter()
        .position(|r| system_prompt(&r.body).contains("STUCK"))
        .unwrap();
    assert!(pi.mock.requests()[stuck].client_went_away);
}

/// The same agent file and the same script through the reference pi 1.6 running pi's
/// `subagent` example (a `pi` process per child) and through this pi (in-process): the child
/// gets the same system prompt, task message and tools, and the parent the same answer.
#[test]
fn the_child_request_matches_the_reference_pis_subagent_example() {
    use super::pi_ref;
    let example = pi_ref::dir()
        .join("node_modules/@earendil-works/pi-coding-agent/examples/extensions/subagent/index.ts");
    let child_request = |reference: bool| {
        let pi = env();
        write_agent(
            &pi,
            "scout",
            "tools: read, grep\nmode: auto\n",
            "You are CMP-SCOUT.",
        );
        pi.mock.push(Turn::new().tool_call(
            "r1",
            "subagent",
            json!({"agent": "scout", "task": "find the config"}),
        ));
        pi.mock
            .push_keyed("CMP-SCOUT", Turn::text("The config is in app.toml"));
        pi.mock.push(Turn::text("done"));
        let args = ["--model", "mock/mock-model", "-p", "where?"];
        let out = if reference {
            let mut all = vec!["--no-session", "-e", example.to_str().unwrap()];
            all.extend_from_slice(&args);
            pi_ref::run(&pi, &all)
        } else {
            pi.run(&args)
        };
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let requests = requests_for(&pi, "CMP-SCOUT");
        let parent_last = pi.mock.requests().last().unwrap().body.clone();
        let cwd = pi.cwd().to_string_lossy().into_owned();
        let child = requests[0].clone();
        (
            system_prompt(&child).replace(&cwd, "<CWD>"),
            user_text(&child),
            child["tools"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
                .collect::<Vec<_>>(),
            tool_result(&parent_last, "r1"),
        )
    };
    let ours = child_request(false);
    let theirs = child_request(true);
    assert_eq!(ours.2, theirs.2, "tools");
    assert_eq!(ours.1, theirs.1, "the task message");
    assert!(
        ours.3.contains("The config is in app.toml")
            && theirs.3.contains("The config is in app.toml")
    );
    // The base prompts are worded differently (this pi writes its own); in both the child's
    // prompt is the default one built for its two tools, with the body appended before the
    // working directory.
    for prompt in [&ours.0, &theirs.0] {
        let tools = prompt.find("- read: Read file contents\n- grep: Search file contents");
        let body = prompt.find("You are CMP-SCOUT.");
        let cwd = prompt.rfind("<CWD>");
        assert!(tools.is_some() && tools < body && body < cwd, "{prompt}");
        assert_eq!(prompt.matches("CMP-SCOUT").count(), 1, "{prompt}");
        assert!(
            !prompt.contains("- bash:") && !prompt.contains("- write:"),
            "{prompt}"
        );
    }
}
