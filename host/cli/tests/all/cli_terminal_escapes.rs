//! Terminal escape sequences from others never reach the terminal: a tool component's result
//! (`probe` `escapes` of pi-ext-host's test tool), a renderer component's lines (the test
//! renderer given a `hostile` echo), the model's text and thinking, and a provider's error,
//! each holding clipboard writes (OSC 52), hyperlinks (OSC 8), title changes (OSC 0/2) and
//! cursor moves (CSI, also in their C1 form). The interactive UI's raw output (tmux
//! `pipe-pane`: every byte pi wrote to its terminal, the transcript printed at exit included)
//! and print mode's stdout and stderr are searched for them. Also: extension-chosen model ids
//! are refused at load, and start-up warnings come before the error that ends start-up.

use super::cli_extensions::{extend_manifest, install};
use super::cli_support::*;
use super::cli_tui_support::*;
use pi_mock_llm::{Api, Reply, Turn};
use serde_json::json;

/// What a hostile model, tool or server writes: each kind of sequence between the words
/// `<who>-before` and `<who>-after`.
fn hostile(who: &str) -> String {
    format!(
        "{who}-before \x1b]52;c;cHduZWQ=\x07 \x1b]8;;https://evil.example/\x07{who}-link\x1b]8;;\x07 \
         \x1b]0;{who}-title\x07\x1b]2;{who}-title\x1b\\ \x1b[7777A\u{9b}7777B {who}-after"
    )
}

/// The sequences none of which pi's own drawing ever writes. (Their payloads may be shown:
/// a tool call's header quotes its arguments as JSON, with the sequences escaped.)
const FORBIDDEN: [&[u8]; 7] = [
    b"\x1b]52;",
    b"\x1b]8;",
    b"\x1b]0;",
    b"\x1b]2;",
    b"\x1b[7777",
    "\u{9b}".as_bytes(),
    "\u{9d}".as_bytes(),
];

fn assert_no_sequences(what: &str, bytes: &[u8]) {
    for needle in FORBIDDEN {
        assert!(
            !bytes.windows(needle.len()).any(|w| w == needle),
            "{what} holds {:?}:\n{}",
            String::from_utf8_lossy(needle),
            String::from_utf8_lossy(bytes).escape_debug()
        );
    }
}

/// The test tool and renderer components as package `hostile`.
fn install_tool_and_renderer(pi: &PiEnv) {
    let package = install(&pi.agent_dir().join("extensions"), "hostile");
    std::fs::copy(
        pi_ext_test_artifacts::RENDERER,
        package.join("renderer.wasm"),
    )
    .unwrap();
    extend_manifest(
        &package,
        "[[component]]\npath = \"renderer.wasm\"\nworld = \"renderer\"",
    );
}

/// Every byte pi writes to the pane from now on, appended to `file`.
fn record_pane(tmux: &Tmux, file: &std::path::Path) {
    tmux.run(&[
        "pipe-pane",
        "-t",
        "0",
        "-o",
        &format!("cat >> '{}'", file.display()),
    ]);
}

fn check_tui(layout: &str) {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.settings(json!({"theme": "dark", "hideThinkingBlock": false}));
    install_tool_and_renderer(&pi);
    pi.mock.push(
        Turn::new()
            .thinking(hostile("thinking"))
            .and_text(hostile("model"))
            .tool_call("c1", "probe", json!({"op": "escapes"}))
            .tool_call("c2", "echo", json!({"hostile": hostile("drawn")})),
    );
    pi.mock.push(Turn::text("model-done"));
    pi.mock.push(Reply::json(
        400,
        &json!({"error": {"message": hostile("provider"), "type": "invalid_request_error"}}),
    ));
    let raw = pi.root.path().join("pane.raw");
    let tmux = Tmux::start(&pi, &["--model", "mock/mock-model", "--tui-mode", layout]);
    tmux.wait_text("0%");
    record_pane(&tmux, &raw);
    tmux.submit("Show me everything");
    tmux.wait_text("model-done");
    tmux.submit("And fail");
    tmux.wait_text("provider-after");
    tmux.exit();
    // `cat` may still be writing the last bytes.
    std::thread::sleep(std::time::Duration::from_millis(300));
    let bytes = std::fs::read(&raw).unwrap();
    assert!(bytes.len() > 1000, "the pane was recorded");
    assert_no_sequences("the terminal output", &bytes);
    // What the sequences were wrapped in is shown, and stays in the terminal after exit: by
    // the tool (pi's drawing), the renderer (its own words and the text it was given), the
    // model and the provider's error.
    let history = tmux.history();
    for word in [
        "tool-before",
        "tool-link",
        "tool-after",
        "renderer-before",
        "drawn-before",
        "drawn-after",
        "renderer-after",
        "model-before",
        "model-link",
        "model-after",
        "thinking-before",
        "thinking-after",
        "provider-before",
        "provider-after",
    ] {
        assert!(history.contains(word), "{word} not shown:\n{history}");
    }
}

#[test]
fn the_ui_and_its_exit_transcript_show_hostile_text_without_its_sequences() {
    check_tui(FULLSCREEN);
}

#[test]
fn the_regular_layouts_scrollback_shows_hostile_text_without_its_sequences() {
    check_tui(REGULAR);
}

#[test]
fn print_mode_prints_answers_and_provider_errors_without_sequences() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.mock.push(Turn::text(hostile("model")));
    let out = pi.run(&["--no-session", "-p", "hi"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_no_sequences("stdout", &out.stdout);
    assert_eq!(
        stdout(&out),
        "model-before  model-link   model-after\n",
        "the words stay, the sequences go"
    );

    pi.mock.push(Reply::json(
        400,
        &json!({"error": {"message": hostile("provider"), "type": "invalid_request_error"}}),
    ));
    let out = pi.run(&["--no-session", "-p", "hi"]);
    assert_eq!(out.status.code(), Some(1));
    assert_no_sequences("stderr", &out.stderr);
    assert!(
        !out.stderr.contains(&0x1b),
        "{}",
        stderr(&out).escape_debug()
    );
    let err = stderr(&out);
    assert!(
        err.contains("provider-before") && err.contains("provider-after"),
        "{err}"
    );

    // JSON mode's stdout is JSON: every control character is escaped there, byte for byte as
    // before; only its stderr is cleaned.
    pi.mock.push(Turn::text(hostile("model")));
    let out = pi.run(&["--no-session", "--mode", "json", "hi"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert!(!out.stdout.contains(&0x1b));
    let escaped = serde_json::to_string(&hostile("model")).unwrap();
    assert!(stdout(&out).contains(&escaped), "{}", stdout(&out));
}

/// The test provider (`wasm-test/wasm-mini`), also claiming the models of `claims`
/// (`provider/id,…`).
fn run_with_claims(pi: &PiEnv, claims: &str) -> std::process::Output {
    super::cli_extension_models::install_claiming_provider(pi);
    pi.mock.push(Turn::text("served"));
    pi.command(&["--model", "mock/mock-model", "--no-session", "-p", "hi"])
        .env("TEST_PROVIDER_CLAIMS", claims)
        .env(
            "TEST_PROVIDER_BASE_URL",
            pi.mock.base_url(Api::OpenAiCompletions),
        )
        .output()
        .unwrap()
}

#[test]
fn a_provider_whose_model_ids_hold_escape_sequences_is_refused_at_load() {
    for (claim, rule) in [
        (
            "wasm-test/evil\x1b]0;evil-title\x07\x1b]52;c;cHduZWQ=\x07",
            "model id \"evil\\u{1b}]0;evil-title\\u{7}",
        ),
        (
            "wasm-test\nWarning: all good/x",
            "provider name \"wasm-test\\nWarning: all good\" is not allowed",
        ),
        (
            "wasm-test/with space",
            "model id \"with space\" is not allowed",
        ),
    ] {
        let pi = PiEnv::new(Api::OpenAiCompletions);
        let out = run_with_claims(&pi, claim);
        assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
        assert_eq!(stdout(&out), "served\n");
        assert!(
            !out.stderr.contains(&0x1b),
            "{}",
            stderr(&out).escape_debug()
        );
        let err = stderr(&out);
        assert!(
            err.lines()
                .any(|l| l.starts_with("Warning: extension \"wasmprov@1.2.3\"")
                    && l.contains("refused at load: ")
                    && l.contains(rule)),
            "{claim:?}: {err}"
        );
        // No line of the warning was forged.
        assert!(
            !err.lines().any(|l| l.starts_with("Warning: all good")),
            "{err}"
        );
        // Its models are not offered at all.
        let listed = pi.run(&["--list-models", "wasm"]);
        assert!(
            !stdout(&listed).contains("wasm-mini"),
            "{}",
            stdout(&listed)
        );
    }
}

/// A global package whose manifest does not validate.
fn broken_package(pi: &PiEnv) {
    let bad = pi.agent_dir().join("extensions/badmanifest");
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::write(
        bad.join("pi-extension.toml"),
        "[package]\nname = \"Bad Name\"\nversion = \"0.1.0\"\nwit = \"0.3.0\"\n",
    )
    .unwrap();
}

#[test]
fn a_refused_extensions_warning_comes_before_the_model_error_that_ends_start_up() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    broken_package(&pi);
    for mode in [
        &["-p", "hi"][..],
        &["--mode", "json", "hi"],
        &["--mode", "rpc"],
    ] {
        let mut args = vec!["--model", "does-not-exist", "--no-session"];
        args.extend_from_slice(mode);
        let out = pi.run(&args);
        assert_eq!(out.status.code(), Some(1), "{mode:?}: {}", stderr(&out));
        let err = stderr(&out);
        let warning = err
            .find("badmanifest")
            .unwrap_or_else(|| panic!("{mode:?}: {err}"));
        let error = err
            .find("does-not-exist")
            .unwrap_or_else(|| panic!("{mode:?}: {err}"));
        assert!(warning < error, "{mode:?}: the warning comes first:\n{err}");
        assert_eq!(err.matches("badmanifest").count(), 1, "once: {err}");
    }
    assert!(pi.mock.requests().is_empty());
}

#[test]
fn the_interactive_ui_that_cannot_start_shows_the_warnings_before_its_error() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    broken_package(&pi);
    let tmux = Tmux::start(&pi, &["--model", "does-not-exist"]);
    let screen = tmux.wait_text("[pi exited 1]");
    let warning = screen
        .find("badmanifest")
        .unwrap_or_else(|| panic!("{screen}"));
    let error = screen
        .find("does-not-exist")
        .unwrap_or_else(|| panic!("{screen}"));
    assert!(warning < error, "{screen}");
}
