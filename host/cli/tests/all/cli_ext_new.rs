//! `pi ext new`: every template the binary embeds (as `--list-templates` lists them, so each
//! language's templates are covered as they are added) is written, built with its own
//! `build.sh`, installed and inspected; a tool template's tool answers a model through a
//! print-mode run, and the Rust provider's model answers one. A name, language or world pi
//! does not take, a folder in the way and a failure while writing leave nothing behind.

use super::cli_support::*;
use pi_mock_llm::{Api, Turn};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The (language, world) pairs `pi ext new --list-templates` prints.
fn templates(pi: &PiEnv) -> Vec<(String, String)> {
    let out = pi.run(&["ext", "new", "--list-templates"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    stdout(&out)
        .lines()
        .map(|line| {
            let (lang, world) = line.split_once(' ').unwrap();
            (lang.to_owned(), world.to_owned())
        })
        .collect()
}

/// The repository's root.
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `build.sh` as a user runs it, with the guest toolchains of `scripts/guest-tools.sh`
/// (`target/guest-tools/*/bin` and the npm prefix's `node_modules/.bin`) first on PATH and its
/// preview-1 adapter as `WASI_ADAPTER`. Rust templates build in the target dir the other guest
/// builds share, so wit-bindgen is compiled once; none of the test build's flags or wrappers
/// reach them.
fn build(dir: &Path, lang: &str) -> std::process::Output {
    let tools = repo().join("target/guest-tools");
    let mut path: Vec<PathBuf> = std::fs::read_dir(&tools)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path().join("bin"))
                .filter(|bin| bin.is_dir())
                .collect()
        })
        .unwrap_or_default();
    path.push(tools.join("npm/node_modules/.bin"));
    path.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    let mut command = Command::new("./build.sh");
    command
        .current_dir(dir)
        .env("PATH", std::env::join_paths(path).unwrap())
        .env(
            "WASI_ADAPTER",
            tools.join("wasi_snapshot_preview1.reactor.wasm"),
        );
    for name in [
        "CARGO_ENCODED_RUSTFLAGS",
        "RUSTFLAGS",
        "CARGO_BUILD_TARGET",
        "RUSTC_WORKSPACE_WRAPPER",
        "RUSTC_WRAPPER",
        "CARGO_TARGET_DIR",
    ] {
        command.env_remove(name);
    }
    if lang == "rust" {
        // <target>/debug/pi → <target>/guests, where host/guest-build builds.
        let target = Path::new(PI).parent().unwrap().parent().unwrap();
        command.env("CARGO_TARGET_DIR", target.join("guests"));
    }
    command.output().unwrap()
}

/// Arguments a schema accepts: a value of each required property's type.
fn arguments_for(schema: &Value) -> Value {
    let mut arguments = serde_json::Map::new();
    for name in schema["required"].as_array().into_iter().flatten() {
        let name = name.as_str().unwrap();
        let value = match schema["properties"][name]["type"].as_str() {
            Some("integer" | "number") => json!(3),
            Some("boolean") => json!(true),
            Some("array") => json!([]),
            Some("object") => json!({}),
            _ => json!("one two three"),
        };
        arguments.insert(name.to_owned(), value);
    }
    Value::Object(arguments)
}

/// The package's tool (the only one offered without pi's built-ins) answers a scripted call,
/// and its result is in the next request.
fn call_the_tool(pi: &PiEnv, lang: &str) {
    pi.mock.push(Turn::text("Seen."));
    let out = pi.run(&["--no-session", "--no-builtin-tools", "-p", "What tools?"]);
    assert_eq!(out.status.code(), Some(0), "{lang}: {}", stderr(&out));
    let tools = pi.mock.requests()[0].body["tools"].clone();
    let tools = tools.as_array().unwrap();
    assert_eq!(tools.len(), 1, "{lang}: one tool: {tools:?}");
    let name = tools[0]["function"]["name"].as_str().unwrap();
    let arguments = arguments_for(&tools[0]["function"]["parameters"]);

    pi.mock
        .push(Turn::new().tool_call("t1", name, arguments.clone()));
    pi.mock.push(Turn::text("Done."));
    let out = pi.run(&["--no-builtin-tools", "-p", "Use the tool"]);
    assert_eq!(out.status.code(), Some(0), "{lang}: {}", stderr(&out));
    assert_eq!(stdout(&out), "Done.\n");
    let requests = pi.mock.requests();
    let result = requests[2].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == "t1")
        .unwrap_or_else(|| panic!("{lang}: no tool result in {:?}", requests[2].body))
        .clone();
    let stored = pi
        .session_lines()
        .into_iter()
        .find(|l| l["message"]["role"] == "toolResult")
        .unwrap();
    assert_eq!(
        stored["message"]["isError"], false,
        "{lang} {name}({arguments}): {stored}"
    );
    let text = result["content"].to_string();
    assert!(text.len() > 2, "{lang}: an empty result: {result}");
    if lang == "rust" {
        assert!(
            text.contains("lines: 1, words: 3, characters: 13"),
            "{result}"
        );
    }
}

#[test]
fn every_template_is_written_builds_installs_and_its_tool_answers() {
    let all = templates(&PiEnv::empty());
    for world in ["tool", "provider", "renderer", "compactor"] {
        assert!(
            all.contains(&("rust".to_owned(), world.to_owned())),
            "{all:?}"
        );
    }
    // A hook (a permission gate) in every language.
    for lang in ["rust", "python", "js", "c"] {
        assert!(
            all.contains(&(lang.to_owned(), "hook".to_owned())),
            "{all:?}"
        );
    }
    for (lang, world) in all {
        let pi = PiEnv::new(Api::OpenAiCompletions);
        let name = format!("new-{lang}-{world}");
        let dir = pi.root.path().join("src").join(&name);
        let out = pi.run(&[
            "ext",
            "new",
            &name,
            "--lang",
            &lang,
            "--world",
            &world,
            "--dir",
            dir.to_str().unwrap(),
        ]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{lang} {world}: {}",
            stderr(&out)
        );
        assert!(
            stdout(&out).contains("&& ./build.sh && pi ext install ."),
            "{}",
            stdout(&out)
        );
        assert!(dir.join("wit/worlds.wit").is_file());
        let built = build(&dir, &lang);
        assert!(
            built.status.success(),
            "{lang} {world}: ./build.sh failed:\n{}\n{}",
            String::from_utf8_lossy(&built.stdout),
            String::from_utf8_lossy(&built.stderr)
        );
        assert!(dir.join(format!("{name}.wasm")).is_file(), "{lang} {world}");

        let out = pi.run(&["ext", "install", dir.to_str().unwrap(), "--yes"]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{lang} {world}: {}",
            stderr(&out)
        );
        let out = pi.run(&["ext", "info", &name]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{lang} {world}: {}",
            stderr(&out)
        );
        let info = stdout(&out);
        assert!(
            info.contains(&format!("  {name}.wasm ({world})")),
            "{lang} {world}: {info}"
        );
        if world == "tool" {
            call_the_tool(&pi, &lang);
        }
        if (lang.as_str(), world.as_str()) == ("rust", "provider") {
            // Its model streams the prompt back, with no network.
            let out = pi.run(&[
                "--provider",
                &name,
                "--model",
                "echo",
                "--api-key",
                "none",
                "--no-session",
                "-p",
                "hello there",
            ]);
            assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
            assert_eq!(stdout(&out), "You said: hello there\n");
        }
    }
}

#[test]
fn a_folder_in_the_way_is_refused_and_an_empty_one_is_filled() {
    let pi = PiEnv::empty();
    let taken = pi.cwd().join("taken");
    std::fs::create_dir(&taken).unwrap();
    std::fs::write(taken.join("notes.txt"), "mine").unwrap();
    let out = pi.run(&["ext", "new", "word-count", "--dir", "taken"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("taken already exists and is not empty"),
        "{}",
        stderr(&out)
    );
    let left: Vec<_> = std::fs::read_dir(&taken).unwrap().collect();
    assert_eq!(left.len(), 1, "the folder is as it was");
    assert_eq!(
        std::fs::read_to_string(taken.join("notes.txt")).unwrap(),
        "mine"
    );

    std::fs::write(pi.cwd().join("file"), "").unwrap();
    let out = pi.run(&["ext", "new", "word-count", "--dir", "file"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("is not a folder"), "{}", stderr(&out));

    // An empty folder is the user's place for the package; by default it is ./<name>.
    std::fs::create_dir(pi.cwd().join("word-count")).unwrap();
    let out = pi.run(&["ext", "new", "word-count"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("cd word-count && ./build.sh && pi ext install ."),
        "{}",
        stdout(&out)
    );
    let manifest = std::fs::read_to_string(pi.cwd().join("word-count/pi-extension.toml")).unwrap();
    assert!(manifest.contains("world = \"tool\""), "{manifest}");
    assert_eq!(entries(&pi.cwd()), ["file", "taken", "word-count"]);
}

/// The names in `dir`, sorted.
fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_bad_name_language_or_world_is_a_usage_error_and_writes_nothing() {
    let pi = PiEnv::empty();
    for name in ["Word", "9lives", "a/b", "_x", "x.y", &"x".repeat(65)] {
        let out = pi.run(&["ext", "new", name]);
        assert_eq!(out.status.code(), Some(2), "{name}: {}", stdout(&out));
        assert!(
            stderr(&out).contains("must start with a lowercase letter"),
            "{name}: {}",
            stderr(&out)
        );
    }
    let out = pi.run(&["ext", "new", "ok", "--lang", "cobol"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("[possible values: rust, python, js, c]"));
    let out = pi.run(&["ext", "new", "ok", "--world", "widget"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("[possible values: tool, provider, renderer, compactor, hook]"),
        "{}",
        stderr(&out)
    );
    assert_eq!(entries(&pi.cwd()), Vec::<String>::new());
}

#[test]
fn a_failure_while_writing_leaves_no_half_package() {
    let pi = PiEnv::empty();
    // A folder so deep that the package's first files fit under Linux's 4096-byte path limit
    // and its deepest (wit/deps/…) do not: the write fails midway. (Writing beside the target
    // adds about 25 bytes; the deepest file 24 more.)
    let mut parent = pi.cwd();
    while parent.as_os_str().len() < 4050 {
        let room = 4050 - parent.as_os_str().len();
        parent = parent.join("d".repeat(room.saturating_sub(1).clamp(1, 200)));
    }
    std::fs::create_dir_all(&parent).unwrap();
    let dir = parent.join("p");
    let out = pi.run(&["ext", "new", "p", "--dir", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("cannot") && stderr(&out).contains("wit"),
        "{}",
        stderr(&out)
    );
    assert_eq!(entries(&parent), Vec::<String>::new(), "nothing is left");
}

#[test]
fn the_help_says_what_is_written_and_what_to_run_next() {
    let pi = PiEnv::empty();
    let out = pi.run(&["ext", "new", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = stdout(&out);
    for text in [
        "--lang <LANG>",
        "--world <WORLD>",
        "--dir <PATH>",
        "--list-templates",
        "./build.sh && pi ext install .",
    ] {
        assert!(help.contains(text), "{text} in {help}");
    }
    let out = pi.run(&["ext", "new"]);
    assert_eq!(out.status.code(), Some(2), "a name is needed");
}
