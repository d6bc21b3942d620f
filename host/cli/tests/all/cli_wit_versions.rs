//! A package built against the 0.1.0 WIT (pi-ext-host's `v010_tool` test component, built
//! from the host's snapshot of that WIT) installs, loads and answers a tool call under the
//! 0.3.0 host; the same component under a manifest naming 0.2.0 is refused at install, saying
//! which `wit` to write.

use super::cli_support::*;
use pi_mock_llm::{Api, Turn};
use serde_json::json;
use std::path::{Path, PathBuf};

/// A package `name` holding the 0.1.0 test tool, its manifest saying `wit = "<wit>"`.
fn legacy_package(dir: &Path, name: &str, wit: &str) -> PathBuf {
    let package = dir.join(name);
    std::fs::create_dir_all(&package).unwrap();
    std::fs::copy(
        pi_ext_test_artifacts::V010_TOOL,
        package.join("legacy.wasm"),
    )
    .unwrap();
    let manifest = format!(
        "[package]\nname = \"{name}\"\nversion = \"1.0.0\"\nwit = \"{wit}\"\n\n\
         [[component]]\npath = \"legacy.wasm\"\nworld = \"tool\"\n"
    );
    std::fs::write(package.join("pi-extension.toml"), manifest).unwrap();
    package
}

#[test]
fn a_package_built_against_wit_0_1_0_installs_and_its_tool_answers() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let dir = legacy_package(&pi.root.path().join("src"), "legacy", "0.1.0");
    let out = pi.run(&["ext", "install", dir.to_str().unwrap(), "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let info = stdout(&pi.run(&["ext", "info", "legacy"]));
    assert!(info.contains("wit: 0.1.0"), "{info}");
    assert!(info.contains("legacy.wasm (tool)"), "{info}");

    pi.mock
        .push(Turn::new().tool_call("c1", "legacy", json!({"op": "echo"})));
    pi.mock.push(Turn::text("The old tool answered."));
    let out = pi.run(&["--no-session", "-p", "Use the legacy tool"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "The old tool answered.\n");
    let requests = pi.mock.requests();
    let offered = requests[0].body["tools"].to_string();
    assert!(
        offered.contains("A tool built against pi:extension@0.1.0."),
        "{offered}"
    );
    let messages = requests[1].body["messages"].as_array().unwrap();
    let result = messages
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == "c1")
        .unwrap_or_else(|| panic!("no tool result in {messages:?}"));
    assert_eq!(
        result["content"].as_str().unwrap_or_default(),
        r#"0.1.0 says: {"op":"echo"}"#,
        "{result}"
    );
}

#[test]
fn a_0_1_0_component_under_a_manifest_saying_0_2_0_is_refused_at_install() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let dir = legacy_package(&pi.root.path().join("src"), "mislabelled", "0.2.0");
    let out = pi.run(&["ext", "install", dir.to_str().unwrap(), "--yes"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(
            "was built against pi:extension@0.1.0 (it uses `pi:extension/tool-guest@0.1.0`), \
             but its manifest says wit = \"0.2.0\": set `wit = \"0.1.0\"` in pi-extension.toml"
        ),
        "{err}"
    );
    // Nothing recorded.
    assert!(!pi.agent_dir().join("packages.lock.json").exists());
}
