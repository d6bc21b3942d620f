//! The `pinned-facts` example (`extensions/pinned-facts`), installed as a user installs it and
//! used through RPC mode's `compact` against the mock LLM: its summary is what the session's
//! `compaction` entry holds, the facts the user pinned (`FACT:`, `remember:`) survive two
//! compactions (and `forget:` unpins one), and its model request reaches the mock, to the
//! model `PINNED_FACTS_MODEL` names or else the session's.

use super::cli_extension_examples::built_package;
use super::cli_rpc::{RpcClient, ok};
use super::cli_support::*;
use pi_mock_llm::{Api, Turn};
use serde_json::{Value, json};
use std::process::Stdio;

/// A mock provider with two models (`mock-model`, the default, and `other-model`), a history
/// that is all compacted but its last message, and the package installed with `--yes`.
fn env_with_package() -> PiEnv {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let models = json!({"providers": {"mock": {
        "baseUrl": pi.mock.base_url(Api::OpenAiCompletions),
        "api": "openai-completions",
        "apiKey": "mock-key",
        "models": [
            {"id": "mock-model", "contextWindow": 200000, "maxTokens": 32000},
            {"id": "other-model", "contextWindow": 200000, "maxTokens": 32000}
        ]
    }}});
    pi.write_agent_file("models.json", &models.to_string());
    pi.settings(json!({"compaction": {"keepRecentTokens": 1}}));
    let package = built_package(
        &pi,
        pi_extension_examples::PINNED_FACTS,
        "pinned-facts.wasm",
    );
    let out = pi.run(&["ext", "install", package.to_str().unwrap(), "--yes"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    pi
}

/// Sends each prompt and waits for its answer.
fn chat(pi: &PiEnv, rpc: &mut RpcClient, prompts: &[(&str, &str)]) {
    for (i, (prompt, answer)) in prompts.iter().enumerate() {
        pi.mock.push(Turn::text(*answer));
        ok(&rpc.call(json!({"id": format!("p{i}"), "type": "prompt", "message": prompt})));
        rpc.wait_event("agent_end");
    }
}

/// Compacts (with `instructions`, if any) after the mock was given `model_answer`, and returns
/// the response's summary and the request the compaction sent.
fn compact(
    pi: &PiEnv,
    rpc: &mut RpcClient,
    instructions: Option<&str>,
    model_answer: &str,
) -> (String, Value) {
    let before = pi.mock.requests().len();
    pi.mock.push(Turn::text(model_answer));
    let mut command = json!({"id": "c", "type": "compact"});
    if let Some(instructions) = instructions {
        command["customInstructions"] = json!(instructions);
    }
    let summary = ok(&rpc.call(command))["summary"]
        .as_str()
        .unwrap()
        .to_owned();
    let requests = pi.mock.requests();
    assert_eq!(requests.len(), before + 1, "one request for the summary");
    (summary, requests[before].body.clone())
}

fn end(mut rpc: RpcClient) {
    drop(rpc.stdin.take());
    assert_eq!(rpc.child.wait().unwrap().code(), Some(0));
}

#[test]
fn pinned_facts_keeps_the_pinned_facts_across_two_compactions() {
    let pi = env_with_package();
    let out = pi.run(&["ext", "info", "pinned-facts"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let info = stdout(&out);
    assert!(info.contains("pinned-facts.wasm (compactor)"), "{info}");
    let granted = info.lines().find(|l| l.starts_with("granted: ")).unwrap();
    assert!(
        granted.contains("call models with your credentials"),
        "{info}"
    );
    assert!(granted.contains("PINNED_FACTS_MODEL"), "{info}");

    let mut rpc = RpcClient::start(&pi);
    chat(
        &pi,
        &mut rpc,
        &[
            (
                "FACT: the database is PostgreSQL 16\nHow do I connect?",
                "Use psql.",
            ),
            ("remember: deploys go through staging first", "Noted."),
            ("Thanks", "You are welcome."),
        ],
    );
    let (summary, request) = compact(&pi, &mut rpc, None, "They set up the database.");
    let first = "## Pinned facts\n\
                 - the database is PostgreSQL 16\n\
                 - deploys go through staging first\n\
                 \n\
                 ## Summary\n\
                 They set up the database.";
    assert_eq!(summary, first);
    assert_eq!(request["model"], "mock-model", "the session's model");
    let sent = request["messages"].to_string();
    assert!(
        sent.contains("do not repeat them"),
        "its system prompt: {sent}"
    );
    assert!(
        sent.contains("user: FACT: the database is PostgreSQL 16"),
        "{sent}"
    );
    assert!(sent.contains("assistant: Use psql."), "{sent}");

    chat(
        &pi,
        &mut rpc,
        &[
            (
                "FACT: the API listens on port 8080\nforget: staging",
                "Done.",
            ),
            ("What next?", "Tests."),
        ],
    );
    let (summary, request) = compact(
        &pi,
        &mut rpc,
        Some("remember: CI runs on every push\nthe API work"),
        "They moved on to the API.",
    );
    let second = "## Pinned facts\n\
                  - the database is PostgreSQL 16\n\
                  - the API listens on port 8080\n\
                  - CI runs on every push\n\
                  \n\
                  ## Summary\n\
                  They moved on to the API.";
    assert_eq!(summary, second);
    let sent = request["messages"].to_string();
    // The model folds in the previous summary's text, not its facts section, and is told the
    // facts and the user's focus.
    assert!(
        sent.contains("<previous-summary>\\nThey set up the database.\\n</previous-summary>"),
        "{sent}"
    );
    assert!(
        sent.contains("<pinned-facts>\\n- the database is PostgreSQL 16"),
        "{sent}"
    );
    assert!(sent.contains("focus on: the API work"), "{sent}");
    end(rpc);

    let entries = pi.session_entries("compaction");
    assert_eq!(entries.len(), 2, "{entries:#?}");
    assert_eq!(entries[0]["summary"], first);
    assert_eq!(entries[1]["summary"], second);
    assert_eq!(entries[1]["fromHook"], true);
    assert_eq!(
        entries[1]["details"],
        json!({"facts": ["the database is PostgreSQL 16", "the API listens on port 8080",
                         "CI runs on every push"],
               "model": "mock-model"})
    );
}

/// RPC mode with `PINNED_FACTS_MODEL` set.
fn rpc_with_model(pi: &PiEnv, model: &str) -> RpcClient {
    let child = pi
        .command(&["--mode", "rpc"])
        .env("PINNED_FACTS_MODEL", model)
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    RpcClient::from_child(child)
}

#[test]
fn pinned_facts_asks_the_model_its_variable_names() {
    let pi = env_with_package();
    // Install compiled the component; the run below loads that artifact, never compiling again.
    let installed = pi.compiled_components();
    assert_eq!(installed.len(), 1, "{installed:?}");
    let mut rpc = rpc_with_model(&pi, "other-model");
    chat(
        &pi,
        &mut rpc,
        &[("FACT: tabs, not spaces", "Ok."), ("Go on", "Going.")],
    );
    let (summary, request) = compact(&pi, &mut rpc, None, "Style was agreed.");
    assert_eq!(
        summary,
        "## Pinned facts\n- tabs, not spaces\n\n## Summary\nStyle was agreed."
    );
    assert_eq!(request["model"], "other-model");
    end(rpc);
    assert_eq!(
        pi.session_entries("compaction")[0]["details"]["model"],
        "other-model"
    );
    assert_eq!(pi.compiled_components(), installed);
}

#[test]
fn pinned_facts_leaves_the_compaction_to_pi_when_its_model_cannot_be_asked() {
    let pi = env_with_package();
    let mut rpc = rpc_with_model(&pi, "nowhere/no-such-model");
    chat(
        &pi,
        &mut rpc,
        &[("FACT: tabs, not spaces", "Ok."), ("Go on", "Going.")],
    );
    // pi's own summary: the history's, and the split turn's start (the last answer is kept).
    let before = pi.mock.requests().len();
    pi.mock.push(Turn::text("pi's own summary"));
    pi.mock.push(Turn::text("the turn so far"));
    let response = rpc.call(json!({"id": "c", "type": "compact"}));
    let summary = ok(&response)["summary"].as_str().unwrap().to_owned();
    assert!(summary.contains("pi's own summary"), "{summary}");
    assert!(!summary.contains("## Pinned facts"), "{summary}");
    // Nothing was sent for the component: every request is pi's, to the session's model.
    let requests = pi.mock.requests();
    assert_eq!(requests.len(), before + 2);
    for request in &requests[before..] {
        assert_eq!(request.body["model"], "mock-model");
        assert!(!request.body.to_string().contains("do not repeat them"));
    }
    end(rpc);
    assert_ne!(pi.session_entries("compaction")[0]["fromHook"], true);
    let log = std::fs::read_to_string(pi.agent_dir().join("pi.log")).unwrap();
    assert!(
        log.contains(
            "no summary from the model, pi compacts instead: asking nowhere/no-such-model"
        ),
        "{log}"
    );
}
