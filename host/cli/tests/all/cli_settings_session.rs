//! The settings of the model, the session and its resources, each shown end to end by what
//! the mock LLM is sent or what `pi` writes: `defaultProvider`, `defaultModel`,
//! `defaultThinkingLevel`, `sessionDir`, `steeringMode`, `followUpMode`, `compaction.enabled`,
//! `retry.provider.maxRetries` / `maxRetryDelayMs`, `skills`, `prompts`, `defaultProjectTrust`,
//! `minOAuthValidityMs`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::cli_rpc::{RpcClient, ok};
use super::cli_support::*;
use pi_mock_llm::{Api, Reply, Turn};
use serde_json::json;
use std::time::Duration;

const API: Api = Api::OpenAiCompletions;

/// Two providers on the mock, told apart by their keys, each with two models.
fn two_providers(pi: &PiEnv) {
    let provider = |key: &str| {
        json!({
            "baseUrl": pi.mock.base_url(API), "api": API.as_str(), "apiKey": key,
            "compat": {"thinkingFormat": "openai"},
            "models": [
                {"id": "mock-model", "reasoning": true},
                {"id": "other-model", "reasoning": true}
            ]
        })
    };
    let models =
        json!({"providers": {"mock": provider("mock-key"), "second": provider("second-key")}});
    pi.write_agent_file("models.json", &models.to_string());
}

#[test]
fn default_provider_model_and_thinking_level_pick_what_a_new_session_uses() {
    let pi = PiEnv::new(API);
    two_providers(&pi);
    pi.mock.push(Turn::text("a"));
    let out = pi.run(&["--no-session", "-p", "x"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    pi.settings(
        json!({"defaultProvider": "second", "defaultModel": "other-model",
                       "defaultThinkingLevel": "low"}),
    );
    pi.mock.push(Turn::text("b"));
    let out = pi.run(&["--no-session", "-p", "x"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let requests = pi.mock.requests();
    assert_eq!(requests[0].header("authorization"), Some("Bearer mock-key"));
    assert_eq!(requests[0].body["model"], "mock-model");
    assert_eq!(requests[0].body["reasoning_effort"], "medium");
    assert_eq!(
        requests[1].header("authorization"),
        Some("Bearer second-key")
    );
    assert_eq!(requests[1].body["model"], "other-model");
    assert_eq!(requests[1].body["reasoning_effort"], "low");
}

#[test]
fn session_dir_puts_the_session_files_there() {
    let pi = PiEnv::new(API);
    pi.settings(json!({"sessionDir": "~/elsewhere/sessions"}));
    pi.mock.push(Turn::text("stored elsewhere"));
    let out = pi.run(&["-p", "x"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(pi.session_files().is_empty(), "nothing under the agent dir");
    let dir = pi.root.path().join("home/elsewhere/sessions");
    let files: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let lines = read_jsonl(&files[0].path());
    assert_eq!(
        messages(&lines)[1]["content"][0]["text"],
        "stored elsewhere"
    );
}

/// Queues two messages of `kind` (`steer` or `follow_up`) while a reply streams, and returns
/// how many requests the run made.
fn requests_for_two_queued(kind: &str, settings: serde_json::Value) -> usize {
    let pi = PiEnv::new(API);
    pi.settings(settings);
    pi.mock.push(
        Turn::text("a slow answer in many pieces")
            .chunk(2)
            .delay_between_events(Duration::from_millis(40)),
    );
    pi.mock
        .push_all([Turn::text("next"), Turn::text("and the last")]);
    let mut rpc = RpcClient::start(&pi);
    ok(&rpc.call(json!({"id": "p", "type": "prompt", "message": "start"})));
    rpc.wait_event("message_update");
    ok(&rpc.call(json!({"id": "q1", "type": kind, "message": "queued one"})));
    ok(&rpc.call(json!({"id": "q2", "type": kind, "message": "queued two"})));
    rpc.wait_event("agent_end");
    let state = rpc.call(json!({"id": "s", "type": "get_state"}));
    assert_eq!(ok(&state)["isStreaming"], false, "{state}");
    let requests = pi.mock.requests();
    let last = requests.last().unwrap().body["messages"].to_string();
    assert!(last.contains("queued two"), "{last}");
    requests.len()
}

#[test]
fn steering_mode_all_delivers_every_queued_message_at_once() {
    assert_eq!(requests_for_two_queued("steer", json!({})), 3);
    assert_eq!(
        requests_for_two_queued("steer", json!({"steeringMode": "all"})),
        2
    );
}

#[test]
fn follow_up_mode_all_delivers_every_queued_message_at_once() {
    assert_eq!(requests_for_two_queued("follow_up", json!({})), 3);
    assert_eq!(
        requests_for_two_queued("follow_up", json!({"followUpMode": "all"})),
        2
    );
}

#[test]
fn compaction_disabled_leaves_an_overflow_unrecovered() {
    let pi = PiEnv::new(API);
    pi.settings(
        json!({"compaction": {"enabled": false, "keepRecentTokens": 3},
                       "retry": {"enabled": false}}),
    );
    pi.mock.push(Turn::text(
        "first answer, long enough to be worth summarising",
    ));
    let first = pi.run(&["-p", "first question"]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    pi.mock.push(Reply::context_overflow(API));
    pi.mock.push(Turn::text("## Goal\nnever asked for"));
    let out = pi.run(&["-c", "-p", "second question"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert_eq!(pi.mock.requests().len(), 2, "no summary, no retry");
    let lines = pi.session_lines();
    assert!(lines.iter().all(|l| l["type"] != "compaction"));
}

#[test]
fn provider_retries_and_the_longest_server_delay_come_from_the_settings() {
    let pi = PiEnv::new(API);
    // No agent-level retry: what is seen is the request-level retry alone.
    pi.settings(json!({"retry": {"enabled": false, "provider": {"maxRetries": 1}}}));
    pi.mock.push(Reply::rate_limited(API, 0));
    pi.mock.push(Turn::text("second attempt"));
    let out = pi.run(&["--no-session", "-p", "x"]);
    assert_eq!(stdout(&out), "second attempt\n", "{}", stderr(&out));
    assert_eq!(pi.mock.requests().len(), 2);

    pi.settings(json!({"retry": {"enabled": false,
                                 "provider": {"maxRetries": 1, "maxRetryDelayMs": 1000}}}));
    pi.mock.push(Reply::rate_limited(API, 2));
    pi.mock.push(Turn::text("never sent"));
    let out = pi.run(&["--no-session", "-p", "x"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("Server requested 2s retry delay (max: 1s)"),
        "{}",
        stderr(&out)
    );
    assert_eq!(pi.mock.requests().len(), 3, "no second attempt");
}

#[test]
fn skills_and_prompts_settings_add_their_folders() {
    let pi = PiEnv::new(API);
    let skill = pi.agent_dir().join("my-skills/greet");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: greet\ndescription: Greets people warmly.\n---\nSay hi.\n",
    )
    .unwrap();
    let prompts = pi.agent_dir().join("my-prompts");
    std::fs::create_dir_all(&prompts).unwrap();
    std::fs::write(prompts.join("shout.md"), "Shout the word $1.\n").unwrap();

    pi.mock.push(Turn::text("without"));
    let out = pi.run(&["--no-session", "-p", "/shout banana"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    pi.settings(json!({"skills": ["my-skills"], "prompts": ["my-prompts"]}));
    pi.mock.push(Turn::text("with"));
    let out = pi.run(&["--no-session", "-p", "/shout banana"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    let requests = pi.mock.requests();
    let (before, after) = (&requests[0].body, &requests[1].body);
    assert!(!before["messages"][0].to_string().contains("Greets people"));
    assert!(before["messages"][1].to_string().contains("/shout banana"));
    let system = after["messages"][0].to_string();
    assert!(system.contains("Greets people warmly."), "{system}");
    assert!(system.contains("my-skills/greet/SKILL.md"), "{system}");
    let user = after["messages"][1].to_string();
    assert!(user.contains("Shout the word banana."), "{user}");
}

#[test]
fn default_project_trust_always_applies_the_project_settings_in_print_mode() {
    let pi = PiEnv::new(API);
    std::fs::create_dir_all(pi.cwd().join(".pi")).unwrap();
    std::fs::write(
        pi.cwd().join(".pi/settings.json"),
        json!({"defaultThinkingLevel": "low"}).to_string(),
    )
    .unwrap();
    let effort = |global: serde_json::Value| {
        pi.settings(global);
        pi.mock.push(Turn::text("ok"));
        let out = pi.run(&["--no-session", "-p", "x"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        pi.mock.requests().last().unwrap().body["reasoning_effort"].clone()
    };
    assert_eq!(effort(json!({})), "medium", "ask: the project is ignored");
    assert_eq!(effort(json!({"defaultProjectTrust": "never"})), "medium");
    assert_eq!(effort(json!({"defaultProjectTrust": "always"})), "low");
}

#[test]
fn min_oauth_validity_ms_widens_the_refresh_window_of_a_request() {
    use super::cli_auth::{anthropic_on_mock, store_anthropic, with_oauth};
    let pi = PiEnv::empty();
    let oauth = pi_mock_llm::oauth::MockOAuth::start();
    anthropic_on_mock(&pi);
    let ask = |pi: &PiEnv| {
        pi.mock.push(Turn::text("ok"));
        let mut cmd = pi.command(&["--no-session", "-p", "x"]);
        let out = with_oauth(&mut cmd, &oauth).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let requests = pi.mock.requests();
        let last = requests.last().unwrap();
        last.header("authorization").unwrap_or_default().to_owned()
    };
    // Ten minutes left: used as it is under the default five-minute window…
    store_anthropic(&pi, 10);
    assert_eq!(ask(&pi), "Bearer sk-ant-oat01-old");
    assert!(oauth.refresh_requests().is_empty());
    // …and refreshed first when the setting asks for twenty.
    pi.settings(json!({"minOAuthValidityMs": 1_200_000}));
    assert_eq!(ask(&pi), "Bearer sk-ant-oat01-refreshed-1");
    assert_eq!(oauth.refresh_requests().len(), 1);
}
