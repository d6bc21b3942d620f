//! `pi` print mode, flags, start-up errors and model listing, end to end.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::cli_support::*;
use pi_mock_llm::{Api, Turn};
use serde_json::json;

#[test]
fn print_mode_prints_the_final_text_and_writes_the_session() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.mock.push(Turn::text("Hello from the mock.").chunk(4));
    let out = pi.run(&["-p", "Say hello"]);
    assert_eq!(stderr(&out), "");
    assert_eq!(stdout(&out), "Hello from the mock.\n");
    assert_eq!(out.status.code(), Some(0));

    let requests = pi.mock.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].header("authorization"), Some("Bearer mock-key"));
    let body = &requests[0].body;
    assert_eq!(body["model"], "mock-model");
    let last = body["messages"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["role"], "user");

    let lines = pi.session_lines();
    assert_complete_session(&lines);
    let kinds: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "session",
            "model_change",
            "thinking_level_change",
            "message",
            "message",
            "message"
        ]
    );
    assert_eq!(lines[1]["provider"], "mock");
    assert_eq!(lines[2]["thinkingLevel"], "medium");
    // pi 1.6 records the system prompt and tools before the first user message.
    assert_eq!(lines[3]["message"]["role"], "system");
    let system = system_messages(&lines);
    assert_eq!(system.len(), 1);
    assert_eq!(
        system[0]["sections"]["cwd"]
            .as_str()
            .map(|c| c.starts_with("Current working directory: ")),
        Some(true)
    );
    assert_eq!(system[0]["toolsAdded"][0]["name"], "read");
    let msgs = messages(&lines);
    assert_eq!(msgs[0]["role"], "user");
    assert_eq!(msgs[1]["role"], "assistant");
    assert_eq!(msgs[1]["stopReason"], "stop");
    assert_eq!(msgs[1]["content"][0]["text"], "Hello from the mock.");
}

#[test]
fn piped_stdin_and_at_files_build_the_first_message() {
    let pi = PiEnv::new(Api::AnthropicMessages);
    std::fs::write(pi.cwd().join("notes.txt"), "line one\n").unwrap();
    pi.mock.push(Turn::text("ok"));
    let out = pi.run_with_stdin(&["@notes.txt", "Summarise"], "  from stdin \n");
    assert_eq!(stdout(&out), "ok\n", "stderr: {}", stderr(&out));
    let body = &pi.mock.requests()[0].body;
    let user = body["messages"].as_array().unwrap().last().unwrap();
    let text = user["content"]
        .as_array()
        .map(|b| b[0]["text"].as_str().unwrap().to_owned())
        .unwrap_or_else(|| user["content"].as_str().unwrap().to_owned());
    let file = pi.cwd().join("notes.txt");
    assert_eq!(
        text,
        format!(
            "from stdin<file name=\"{}\">\nline one\n\n</file>\nSummarise",
            file.display()
        )
    );
}

#[test]
fn thinking_and_model_flags_are_resolved_and_clamped() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.mock.push(Turn::text("a"));
    let out = pi.run(&["--model", "mock/mock-model:low", "--no-session", "-p", "x"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(pi.mock.requests()[0].body["reasoning_effort"], "low");
    assert!(pi.session_files().is_empty(), "--no-session writes nothing");

    // xhigh is not supported by the model: clamped down to high.
    pi.mock.push(Turn::text("b"));
    let out = pi.run(&["--thinking", "xhigh", "--no-session", "-p", "x"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(pi.mock.requests()[1].body["reasoning_effort"], "high");
}

#[test]
fn bad_flags_exit_2_with_a_clear_message() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let cases: [(&[&str], &str); 5] = [
        (&["--frobnicate"], "--frobnicate"),
        (&["--thinking", "extreme"], "extreme"),
        (&["--mode", "xml"], "xml"),
        (&["--model"], "--model"),
        (&["-a", "-na"], "--no-approve"),
    ];
    for (args, needle) in cases {
        let out = pi.run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr(&out);
        assert!(
            err.contains("error:") && err.contains(needle),
            "{args:?}: {err}"
        );
        assert_eq!(stdout(&out), "");
    }
    assert!(pi.mock.requests().is_empty());
}

#[test]
fn no_credentials_says_how_to_fix_it() {
    let pi = PiEnv::empty();
    let out = pi.run(&["-p", "hello"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "");
    let err = stderr(&out);
    for needle in [
        "No models available",
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
        "/login",
        "models.json",
        "Ollama",
        "llama.cpp",
        "http://localhost:11434/v1",
    ] {
        assert!(err.contains(needle), "missing {needle}: {err}");
    }
    assert!(pi.session_files().is_empty());
}

#[test]
fn a_model_without_a_key_names_its_env_var() {
    let pi = PiEnv::empty();
    let out = pi.run(&["--provider", "anthropic", "-p", "hello"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("ANTHROPIC"), "{err}");
    assert!(err.contains("--api-key"), "{err}");
}

#[test]
fn unknown_model_and_provider_are_errors() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let out = pi.run(&["--model", "no-such-model-xyz", "-p", "x"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("no-such-model-xyz"));
    let out = pi.run(&["--provider", "nope", "-p", "x"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("Unknown provider \"nope\""));
}

#[test]
fn list_models_shows_models_with_credentials() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let out = pi.run(&["--list-models"]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("provider"), "{text}");
    assert_eq!(lines.len(), 2, "only the mock has a key: {text}");
    assert!(lines[1].starts_with("mock") && lines[1].contains("mock-model"));
    assert!(lines[1].contains("200K") && lines[1].contains("32K"));
    let out = pi.run(&["--list-models", "nothing-like-this"]);
    assert!(stdout(&out).contains("No models match"));
    assert!(pi.mock.requests().is_empty());
}

#[test]
fn scoped_models_pick_the_first_match() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.settings(json!({"enabledModels": ["mock/*:minimal"]}));
    pi.mock.push(Turn::text("a"));
    let out = pi.run(&["--no-session", "-p", "x"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(pi.mock.requests()[0].body["reasoning_effort"], "minimal");
}

#[test]
fn version_and_help() {
    let pi = PiEnv::empty();
    let out = pi.run(&["--version"]);
    assert_eq!(stdout(&out).trim(), env!("CARGO_PKG_VERSION"));
    let out = pi.run(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = stdout(&out);
    for flag in [
        "--print",
        "--mode",
        "--list-models",
        "--export",
        "--no-tools",
    ] {
        assert!(help.contains(flag), "{flag}");
    }
}

#[test]
fn block_images_keeps_every_image_from_the_provider() {
    use base64::Engine as _;
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let png = base64::engine::general_purpose::STANDARD
        .decode(super::cli_tui_support::DOT_PNG)
        .unwrap();
    std::fs::write(pi.cwd().join("dot.png"), png).unwrap();
    let ask = |pi: &PiEnv| {
        pi.mock.push(Turn::text("ok"));
        let out = pi.run(&[
            "--model",
            "mock/mock-model",
            "--no-session",
            "-p",
            "@dot.png",
            "Describe it",
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        pi.mock.requests().pop().unwrap().body.to_string()
    };
    assert!(ask(&pi).contains("image_url"));
    pi.settings(serde_json::json!({"images": {"blockImages": true}}));
    let sent = ask(&pi);
    assert!(!sent.contains("image_url"), "{sent}");
    assert!(!sent.contains("iVBOR"), "{sent}");
    assert!(sent.contains("images.blockImages"), "{sent}");
    assert!(sent.contains("Describe it"), "{sent}");
}
