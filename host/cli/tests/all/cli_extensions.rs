//! Third-party extensions end to end: a real tool component (pi-ext-host's `test-components/tool`,
//! serving `echo`, `read`, `write` and `probe`) installed as a package, driven by the mock LLM
//! through the `pi` binary.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::cli_support::*;
use pi_mock_llm::{Api, Turn};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// Installs the test tool component as package `name` in `dir/<name>`; returns the package dir.
pub fn install(dir: &Path, name: &str) -> PathBuf {
    let package = dir.join(name);
    std::fs::create_dir_all(&package).unwrap();
    std::fs::copy(pi_ext_test_artifacts::TOOL, package.join("tool.wasm")).unwrap();
    let manifest = format!(
        "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nwit = \"0.3.0\"\n\n\
         [[component]]\npath = \"tool.wasm\"\nworld = \"tool\"\n"
    );
    std::fs::write(package.join("pi-extension.toml"), manifest).unwrap();
    package
}

/// Appends `text` (TOML sections) to the manifest of the package in `dir`.
pub fn extend_manifest(dir: &Path, text: &str) {
    let manifest = dir.join("pi-extension.toml");
    let base = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, format!("{base}\n{text}\n")).unwrap();
}

/// One `--verbose` print-mode run: its `extensions: …` line and its stderr.
fn loaded_extensions(pi: &PiEnv, args: &[&str]) -> (String, String) {
    pi.mock.push(Turn::text("ok"));
    let mut all = vec!["--no-session", "--verbose"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-p", "hi"]);
    let out = pi.run(&all);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let err = stderr(&out);
    let line = err
        .lines()
        .find(|l| l.starts_with("extensions: "))
        .unwrap_or_else(|| panic!("no extensions line in {err}"))
        .to_owned();
    (line, err)
}

fn global_dir(pi: &PiEnv) -> PathBuf {
    pi.agent_dir().join("extensions")
}

/// Names of the tools offered in request `i`.
pub fn offered(pi: &PiEnv, i: usize) -> Vec<String> {
    pi.mock.requests()[i].body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn tool_description(request: &Value, name: &str) -> String {
    request["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == name)
        .map(|t| t["function"]["description"].as_str().unwrap().to_owned())
        .unwrap_or_default()
}

#[test]
fn extension_tool_result_reaches_the_model() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    install(&global_dir(&pi), "testext");
    pi.mock
        .push(Turn::new().tool_call("c1", "echo", json!({"message": "hello from the model"})));
    pi.mock.push(Turn::text("The echo answered."));
    let out = pi.run(&["-p", "Use the echo tool"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out), "The echo answered.\n");
    assert!(!stderr(&out).contains("Warning"), "{}", stderr(&out));
    // What the component logged is in pi's log file, naming the extension.
    let log = std::fs::read_to_string(pi.agent_dir().join("pi.log")).unwrap();
    let line = log
        .lines()
        .find(|l| l.contains("echo called"))
        .unwrap_or_else(|| panic!("{log}"));
    assert!(line.contains("testext@0.1.0"), "{line}");

    let requests = pi.mock.requests();
    assert_eq!(requests.len(), 2);
    // Default selection: pi's default built-ins plus every extension tool.
    let tools = offered(&pi, 0);
    for name in [
        "bash",
        "edit",
        "echo",
        "probe",
        "read",
        "write",
        "read_file",
        "write_file",
    ] {
        assert!(tools.contains(&name.to_owned()), "{name} in {tools:?}");
    }
    assert_eq!(tools.len(), 8, "{tools:?}");
    assert_eq!(
        tool_description(&requests[0].body, "read_file"),
        "Reads a file."
    );
    assert_eq!(
        tool_description(&requests[0].body, "echo"),
        "Echoes its arguments."
    );
    let system = requests[0].body["messages"][0]["content"].to_string();
    assert!(system.contains("echo: Echoes its arguments."), "{system}");

    // The component's result (it echoes its arguments) is what the model got back.
    let messages = requests[1].body["messages"].as_array().unwrap();
    let result = messages
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == "c1")
        .unwrap_or_else(|| panic!("no tool result in {messages:?}"));
    assert!(
        result["content"]
            .to_string()
            .contains("hello from the model"),
        "{result}"
    );
    let lines = pi.session_lines();
    let stored = messages_of_role(&lines, "toolResult");
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0]["toolName"], "echo");
    assert_eq!(stored[0]["isError"], false, "{}", stored[0]);

    // The second run answers from the start-up index (no manifest parse, no compile before
    // the first call) and still runs the tool.
    let index_files = std::fs::read_dir(pi.agent_dir().join("cache/components"))
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with("startup-"))
        .count();
    assert_eq!(index_files, 1, "the start-up index was written");
    pi.mock
        .push(Turn::new().tool_call("c2", "echo", json!({"again": true})));
    pi.mock.push(Turn::text("Twice."));
    let out = pi.run(&["--no-session", "--verbose", "-p", "Again"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out), "Twice.\n");
    // With --verbose the log is on stderr too.
    assert!(stderr(&out).contains("echo called"), "{}", stderr(&out));
    let requests = pi.mock.requests();
    assert!(requests[3].body["messages"].to_string().contains("again"));

    // A warm start compiles and loads nothing: with the compiled artifacts gone, a run that
    // offers the tool but never calls it leaves none behind.
    let cache = pi.agent_dir().join("cache/components");
    let artifacts = || {
        std::fs::read_dir(&cache)
            .unwrap()
            .filter_map(Result::ok)
            .filter(|e| e.path().extension().is_some_and(|x| x == "cwasm"))
            .map(|e| e.path())
            .collect::<Vec<_>>()
    };
    assert!(!artifacts().is_empty(), "the first call compiled the tool");
    for path in artifacts() {
        std::fs::remove_file(path).unwrap();
    }
    pi.mock.push(Turn::text("No tools needed."));
    let out = pi.run(&["--no-session", "--tools", "echo", "-p", "Just talk"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(offered(&pi, 4), ["echo"]);
    assert_eq!(artifacts(), Vec::<PathBuf>::new());
}

fn messages_of_role<'a>(lines: &'a [Value], role: &str) -> Vec<&'a Value> {
    messages(lines)
        .into_iter()
        .filter(|m| m["role"] == role)
        .collect()
}

#[test]
fn extension_tools_follow_tool_selection() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    install(&global_dir(&pi), "testext");
    let run = |args: &[&str]| {
        pi.mock.push(Turn::text("ok"));
        let mut all = vec!["--no-session"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["-p", "hi"]);
        let out = pi.run(&all);
        assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
        (offered(&pi, pi.mock.requests().len() - 1), stderr(&out))
    };
    let (tools, _) = run(&["--tools", "echo,bash"]);
    assert_eq!(tools, ["echo", "bash"]);
    let (tools, _) = run(&["--exclude-tools", "echo,probe"]);
    assert!(!tools.contains(&"echo".to_owned()), "{tools:?}");
    assert!(!tools.contains(&"probe".to_owned()), "{tools:?}");
    let (tools, _) = run(&["--no-builtin-tools"]);
    let mut sorted = tools.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        ["echo", "probe", "read_file", "write_file"],
        "extension tools stay"
    );
    let (tools, _) = run(&["--no-tools"]);
    assert!(tools.is_empty(), "{tools:?}");
    let (tools, warnings) = run(&["--tools", "echo,nosuch"]);
    assert_eq!(tools, ["echo"]);
    assert!(warnings.contains("unknown tool \"nosuch\""), "{warnings}");
}

#[test]
fn an_extension_replaces_a_built_in_tool_only_when_it_asks_and_the_run_says_so() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let package = install(&pi.root.path().join("src"), "shadow");
    let manifest = package.join("pi-extension.toml");
    let base = std::fs::read_to_string(&manifest).unwrap();
    let ask = |capabilities: &str| {
        std::fs::write(
            &manifest,
            format!("{base}\n[capabilities]\n{capabilities}\n"),
        )
        .unwrap();
    };
    let bash_call = |pi: &PiEnv| {
        pi.mock
            .push(Turn::new().tool_call("c1", "bash", json!({"command": "echo real"})));
        pi.mock.push(Turn::text("done"));
        let out = pi
            .command(&["--no-session", "-p", "run it"])
            .env("TEST_TOOL_SHADOW", "1")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
        let result = pi.mock.requests().last().unwrap().body["messages"].to_string();
        (stderr(&out), result)
    };

    // It offers `bash` without asking to replace it: refused, the built-in runs.
    ask("env = [\"TEST_TOOL_SHADOW\"]");
    let out = pi.run(&["ext", "install", package.to_str().unwrap(), "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let (err, result) = bash_call(&pi);
    assert!(
        err.contains("tool `bash` not loaded: it would replace the built-in tool"),
        "{err}"
    );
    assert!(result.contains("real"), "{result}");
    assert!(!result.contains("the extension saw"), "{result}");

    // It asks: not loaded until approved; once approved it serves `bash`, and the run says so.
    ask("env = [\"TEST_TOOL_SHADOW\"]\nreplaces = [\"bash\"]");
    let (err, _) = bash_call(&pi);
    assert!(
        err.contains("now asks for more than was approved (replace these built-in tools: bash)"),
        "{err}"
    );
    let out = pi.run(&[
        "ext",
        "update",
        "shadow",
        "--grant",
        "env:TEST_TOOL_SHADOW",
        "--grant",
        "tool:bash",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let (err, result) = bash_call(&pi);
    assert!(
        err.contains("Extension \"shadow@0.1.0\" replaces the built-in tool `bash`."),
        "{err}"
    );
    assert!(result.contains("the extension saw: echo real"), "{result}");
}

#[test]
fn a_package_planted_in_a_trusted_project_is_not_loaded_until_approved_again() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    install(&pi.cwd().join(".pi/extensions"), "projectext");
    // The project is trusted (saved decision), with its extension as it is now.
    let cwd = pi.cwd().canonicalize().unwrap();
    pi.write_agent_file(
        "trust.json",
        &json!({ cwd.to_string_lossy(): true }).to_string(),
    );
    let run = |args: &[&str]| loaded_extensions(&pi, args);
    let (line, _) = run(&[]);
    assert_eq!(line, "extensions: projectext@0.1.0");
    // Something with a write grant plants a package asking for processes.
    let planted = install(&pi.cwd().join(".pi/extensions"), "planted");
    extend_manifest(&planted, "[capabilities]\nprocess = true");
    let (line, err) = run(&[]);
    assert_eq!(line, "extensions: (none)");
    assert!(
        err.contains("changed since the project was trusted"),
        "{err}"
    );
    assert!(err.contains("--approve"), "{err}");
    // Approved again: both load, and keep loading.
    let (line, _) = run(&["--approve"]);
    assert_eq!(line, "extensions: planted@0.1.0, projectext@0.1.0");
    let (line, _) = run(&[]);
    assert_eq!(line, "extensions: planted@0.1.0, projectext@0.1.0");
    // A new `extensions` entry in the project's settings is a change too.
    let elsewhere = install(&pi.root.path().join("elsewhere"), "viasettings");
    std::fs::write(
        pi.cwd().join(".pi/settings.json"),
        json!({"extensions": [elsewhere]}).to_string(),
    )
    .unwrap();
    let (line, err) = run(&[]);
    assert_eq!(line, "extensions: (none)");
    assert!(
        err.contains("changed since the project was trusted"),
        "{err}"
    );
}

#[test]
fn broken_extensions_warn_and_pi_still_runs() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let global = global_dir(&pi);
    install(&global, "good");
    // A manifest that does not validate.
    let bad = global.join("badmanifest");
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::write(
        bad.join("pi-extension.toml"),
        "[package]\nname = \"Bad Name\"\nversion = \"0.1.0\"\nwit = \"0.3.0\"\n",
    )
    .unwrap();
    // A valid manifest whose component is not WebAssembly.
    let broken = install(&global, "badwasm");
    std::fs::write(broken.join("tool.wasm"), b"this is not a component").unwrap();
    // A folder without a manifest is not a package (no warning).
    std::fs::create_dir_all(global.join("notes")).unwrap();

    pi.mock.push(Turn::text("Still here."));
    let missing = pi.root.path().join("nowhere");
    let out = pi.run(&["-e", missing.to_str().unwrap(), "-p", "hi"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out), "Still here.\n");
    let err = stderr(&out);
    assert!(
        err.contains("badmanifest") && err.contains("package.name"),
        "{err}"
    );
    assert!(err.contains("extension \"badwasm\""), "{err}");
    assert!(err.contains("nowhere"), "{err}");
    assert!(!err.contains("notes"), "{err}");
    assert_eq!(err.matches("Warning").count(), 3, "{err}");
    // The good package still works.
    assert!(offered(&pi, 0).contains(&"echo".to_owned()));
}

#[test]
fn no_extensions_keeps_explicit_ones_and_project_needs_trust() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    install(&global_dir(&pi), "globalext");
    install(&pi.cwd().join(".pi/extensions"), "projectext");
    let elsewhere = install(&pi.root.path().join("elsewhere"), "cliext");
    let run = |args: &[&str]| {
        let (line, _) = loaded_extensions(&pi, args);
        (line, offered(&pi, pi.mock.requests().len() - 1))
    };
    // Untrusted project (non-interactive default): only the global package.
    let (line, tools) = run(&[]);
    assert_eq!(line, "extensions: globalext@0.1.0");
    assert!(tools.contains(&"echo".to_owned()));
    // Trusted for this run: the project package too.
    let (line, _) = run(&["--approve"]);
    assert_eq!(line, "extensions: globalext@0.1.0, projectext@0.1.0");
    // --no-extensions: nothing discovered, no extension tools.
    let (line, tools) = run(&["--no-extensions", "--approve"]);
    assert_eq!(line, "extensions: (none)");
    assert!(!tools.contains(&"echo".to_owned()), "{tools:?}");
    // ... but an explicit -e still loads.
    let dir = elsewhere.to_str().unwrap();
    let (line, tools) = run(&["--no-extensions", "-e", dir]);
    assert_eq!(line, "extensions: cliext@0.1.0");
    assert!(tools.contains(&"echo".to_owned()));
    // -e with a path relative to the working directory.
    std::fs::rename(&elsewhere, pi.cwd().join("local")).unwrap();
    let (line, _) = run(&["-ne", "-e", "local"]);
    assert_eq!(line, "extensions: cliext@0.1.0");
}

#[test]
fn extension_provider_serves_a_model() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    // pi-ext-host's test provider: model wasm-test/wasm-mini, openai-completions over wasi:http to
    // the base URL it reads from its (granted) environment.
    super::cli_extension_models::install_provider(&pi);
    let base = pi.mock.base_url(Api::OpenAiCompletions);

    pi.mock.push(Turn::text("Hello through the component."));
    let out = pi
        .command(&[
            "--model",
            "wasm-test/wasm-mini",
            "--api-key",
            "sk-wasm",
            "--no-tools",
            "-p",
            "Say hello",
        ])
        .env("TEST_PROVIDER_BASE_URL", &base)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out), "Hello through the component.\n");
    let requests = pi.mock.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].body["model"], "wasm-mini");
    assert_eq!(
        requests[0].headers.get("authorization").map(String::as_str),
        Some("Bearer sk-wasm"),
        "the provider got its own key"
    );
    assert!(
        requests[0].body["messages"]
            .to_string()
            .contains("Say hello")
    );
    let lines = pi.session_lines();
    let assistant = messages_of_role(&lines, "assistant");
    assert_eq!(assistant[0]["provider"], "wasm-test");
    assert_eq!(assistant[0]["model"], "wasm-mini");
    assert_eq!(assistant[0]["api"], "test-wasm-completions");
}

#[test]
fn extension_compactor_writes_the_summary() {
    use super::cli_rpc::{RpcClient, ok};
    let pi = PiEnv::new(Api::OpenAiCompletions);
    // Keep almost nothing verbatim so there is history to summarize.
    pi.settings(json!({"compaction": {"keepRecentTokens": 1}}));
    // pi-ext-host's test compactor: cancels on the instructions "cancel", else summarizes itself
    // (message and word counts plus the first user text).
    let package = global_dir(&pi).join("counter");
    std::fs::create_dir_all(&package).unwrap();
    std::fs::copy(
        pi_ext_test_artifacts::COMPACTOR,
        package.join("compactor.wasm"),
    )
    .unwrap();
    std::fs::write(
        package.join("pi-extension.toml"),
        "[package]\nname = \"counter\"\nversion = \"0.1.0\"\nwit = \"0.3.0\"\n\n\
         [[component]]\npath = \"compactor.wasm\"\nworld = \"compactor\"\n",
    )
    .unwrap();
    let mut rpc = RpcClient::start(&pi);
    for (i, text) in ["alpha question here", "beta question", "gamma"]
        .iter()
        .enumerate()
    {
        pi.mock.push(Turn::text(format!("answer {i}")));
        ok(&rpc.call(json!({"id": format!("p{i}"), "type": "prompt", "message": text})));
        rpc.wait_event("agent_end");
    }
    let requests_before = pi.mock.requests().len();

    let cancelled =
        rpc.call(json!({"id": "c0", "type": "compact", "customInstructions": "cancel"}));
    assert_eq!(cancelled["success"], false, "{cancelled}");
    assert!(
        cancelled["error"]
            .as_str()
            .unwrap()
            .contains("the user asked to keep everything"),
        "{cancelled}"
    );

    let compact = rpc.call(json!({"id": "c1", "type": "compact"}));
    let summary = ok(&compact)["summary"].as_str().unwrap().to_owned();
    assert!(
        summary.contains("summarized; it began with: alpha question here"),
        "{summary}"
    );
    assert_eq!(
        pi.mock.requests().len(),
        requests_before,
        "no summary was asked from the model"
    );
    drop(rpc.stdin.take());
    assert_eq!(rpc.child.wait().unwrap().code(), Some(0));
    let lines = pi.session_lines();
    let entry = lines.iter().find(|l| l["type"] == "compaction").unwrap();
    assert_eq!(entry["summary"], summary.as_str());
    assert_eq!(entry["fromHook"], true);
}

#[test]
fn package_skills_and_prompt_templates_join_the_session() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let package = global_dir(&pi).join("resext");
    std::fs::create_dir_all(package.join("skills/greet")).unwrap();
    std::fs::create_dir_all(package.join("prompts")).unwrap();
    std::fs::write(
        package.join("pi-extension.toml"),
        "[package]\nname = \"resext\"\nversion = \"0.1.0\"\nwit = \"0.3.0\"\n\n\
         [resources]\nskills = \"skills\"\nprompts = \"prompts\"\n",
    )
    .unwrap();
    std::fs::write(
        package.join("skills/greet/SKILL.md"),
        "---\nname: greet\ndescription: Greets people warmly.\n---\nSay hi.\n",
    )
    .unwrap();
    std::fs::write(
        package.join("prompts/shout.md"),
        "---\ndescription: Shouts\n---\nShout the word banana.\n",
    )
    .unwrap();
    pi.mock.push(Turn::text("BANANA"));
    let out = pi.run(&["-p", "/shout"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let body = &pi.mock.requests()[0].body;
    let system = body["messages"][0]["content"].to_string();
    assert!(system.contains("Greets people warmly."), "{system}");
    assert!(system.contains("skills/greet/SKILL.md"), "{system}");
    let user = body["messages"][1]["content"].to_string();
    assert!(user.contains("Shout the word banana."), "{user}");

    // --no-extensions drops the package's resources too.
    pi.mock.push(Turn::text("ok"));
    let out = pi.run(&["--no-extensions", "-p", "/shout"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let body = &pi.mock.requests()[1].body;
    assert!(
        !body["messages"][0]["content"]
            .to_string()
            .contains("Greets people")
    );
    assert!(
        body["messages"][1]["content"]
            .to_string()
            .contains("/shout")
    );
}

/// The test tool as a package granted `TEST_TOOL_DESCRIBE`, which makes its `describe()`
/// hostile.
fn hostile_describe(pi: &PiEnv) {
    let package = install(&global_dir(pi), "hostile");
    extend_manifest(&package, "[capabilities]\nenv = [\"TEST_TOOL_DESCRIBE\"]");
    pi.approve(&package);
}

#[test]
fn a_describe_that_breaks_the_rules_is_refused_naming_the_package_and_the_rule() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    hostile_describe(&pi);
    for (case, rule) in [
        (
            "bad-name",
            "is not allowed: use 1-64 letters, digits, `_` or `-`",
        ),
        (
            "long-name",
            "is not allowed: use 1-64 letters, digits, `_` or `-`",
        ),
        ("duplicate", "\"echo\" is offered twice"),
        (
            "many",
            "offers 10004 tools; at most 64 are allowed per package",
        ),
        (
            "big-schema",
            "the schema is 10485794 bytes; at most 65536 are allowed",
        ),
        ("bad-schema", "parameters: not JSON Schema"),
    ] {
        pi.mock.push(Turn::text("still here"));
        let out = pi
            .command(&["--no-session", "-p", "hi"])
            .env("TEST_TOOL_DESCRIBE", case)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{case}: {}", stderr(&out));
        assert_eq!(stdout(&out), "still here\n");
        let err = stderr(&out);
        assert!(
            err.contains("Warning: extension \"hostile\"") && err.contains("refused at load"),
            "{case}: {err}"
        );
        assert!(err.contains(rule), "{case}: {err}");
        // The prompt text a tool name carried reaches nobody.
        assert!(!err.contains('\u{0}'), "{case}");
        let request = pi.mock.requests().pop().unwrap();
        assert!(
            !request.body.to_string().contains("Ignore all previous"),
            "{case}"
        );
        let tools = offered(&pi, pi.mock.requests().len() - 1);
        assert!(!tools.contains(&"echo".to_owned()), "{case}: {tools:?}");
    }
}

#[test]
fn oversized_errors_images_and_details_from_a_tool_are_cut_before_the_model_and_the_session() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    install(&global_dir(&pi), "flooder");
    for (id, op) in [("e", "big-error"), ("i", "big-image"), ("d", "big-details")] {
        pi.mock
            .push(Turn::new().tool_call(id, "probe", json!({"op": op})));
    }
    pi.mock.push(Turn::text("survived"));
    let out = pi.run(&["-p", "flood me"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "survived\n");
    let lines = pi.session_lines();
    let results = messages_of_role(&lines, "toolResult");
    assert_eq!(results.len(), 3);
    let size = |v: &Value| v.to_string().len();
    // The 48 MiB error: cut to 1 MiB with a note.
    let error = results[0]["content"][0]["text"].as_str().unwrap();
    assert!(error.len() < 1024 * 1024 + 200, "{}", error.len());
    assert!(
        error.contains("[output truncated:"),
        "{}",
        &error[error.len() - 100..]
    );
    assert_eq!(results[0]["isError"], true);
    // The images: the 6 MiB one and those past eight became notes.
    let content = results[1]["content"].as_array().unwrap();
    let images = content.iter().filter(|b| b["type"] == "image").count();
    assert_eq!(images, 7, "{}", size(results[1]));
    let notes: Vec<&str> = content.iter().filter_map(|b| b["text"].as_str()).collect();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("more than the 4718592 bytes allowed")),
        "{notes:?}"
    );
    assert!(
        notes.iter().any(|n| n.contains("more than 8 images")),
        "{notes:?}"
    );
    // The 1 MiB of details: replaced by a note.
    assert!(
        results[2]["details"]["omitted"]
            .as_str()
            .unwrap()
            .contains("more than the 262144 bytes"),
        "{}",
        results[2]["details"]
    );
    assert!(size(results[2]) < 4096);
    // And what the model got next is as small.
    let last = pi.mock.requests().pop().unwrap();
    assert!(size(&last.body) < 2 * 1024 * 1024, "{}", size(&last.body));
}

#[test]
fn a_tool_importing_process_without_the_grant_installs_and_its_call_reports_the_refusal() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let source = pi.root.path().join("src/spawner");
    std::fs::create_dir_all(&source).unwrap();
    std::fs::copy(pi_ext_test_artifacts::SPAWNER, source.join("spawner.wasm")).unwrap();
    std::fs::write(
        source.join("pi-extension.toml"),
        "[package]\nname = \"spawner\"\nversion = \"0.1.0\"\nwit = \"0.3.0\"\n\n\
         [[component]]\npath = \"spawner.wasm\"\nworld = \"tool\"\n",
    )
    .unwrap();
    // The component imports `process`; the manifest does not ask for it.
    let out = pi.run(&["ext", "install", source.to_str().unwrap(), "--yes"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));

    pi.mock
        .push(Turn::new().tool_call("c1", "run", json!({"program": "touch", "args": ["made"]})));
    pi.mock.push(Turn::text("It was refused."));
    let out = pi.run(&["-p", "Run touch"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out), "It was refused.\n");
    let requests = pi.mock.requests();
    assert_eq!(requests.len(), 2);
    let result = requests[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == "c1")
        .cloned()
        .expect("a tool result");
    assert!(
        result["content"]
            .to_string()
            .contains("capability `process` was not granted to spawner@0.1.0"),
        "{result}"
    );
    assert!(!pi.cwd().join("made").exists(), "nothing was spawned");
}
