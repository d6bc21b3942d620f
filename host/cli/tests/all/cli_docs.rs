//! pi's own documentation shipped in the binary: put on disk once per version, named by the
//! system prompt the model receives, and never a reason for start-up to fail.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::cli_support::*;
use pi_mock_llm::{Api, Turn};
use std::path::{Path, PathBuf};

/// The system prompt of the mock's `index`th request (Anthropic's `system` blocks, joined).
fn system_prompt(pi: &PiEnv, index: usize) -> String {
    let requests = pi.mock.requests();
    let blocks = requests[index].body["system"].as_array().unwrap().clone();
    blocks
        .iter()
        .map(|b| b["text"].as_str().unwrap().to_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The path after `- <label>: ` in the prompt, up to the end of the line or a ` (`.
fn named_path(prompt: &str, label: &str) -> PathBuf {
    let start = format!("- {label}: ");
    let line = prompt
        .lines()
        .find_map(|l| l.strip_prefix(&start))
        .unwrap_or_else(|| panic!("no `{start}` line in:\n{prompt}"));
    PathBuf::from(line.split(" (").next().unwrap())
}

fn mtime(path: &Path) -> std::time::SystemTime {
    std::fs::metadata(path).unwrap().modified().unwrap()
}

#[test]
fn the_prompt_names_the_shipped_docs_and_a_second_start_does_not_rewrite_them() {
    let pi = PiEnv::new(Api::AnthropicMessages);
    pi.mock.push(Turn::text("first"));
    pi.mock.push(Turn::text("second"));

    let out = pi.run(&["-p", "What is pi?"]);
    assert_eq!(stdout(&out), "first\n", "stderr: {}", stderr(&out));
    let prompt = system_prompt(&pi, 0);
    let readme = named_path(&prompt, "Main documentation");
    let docs = named_path(&prompt, "Additional docs");
    let examples = named_path(&prompt, "Examples");

    let version_dir = pi.agent_dir().join("docs").join(env!("CARGO_PKG_VERSION"));
    assert_eq!(readme, version_dir.join("README.md"));
    let shipped = std::fs::read_to_string(&readme).unwrap();
    let repo_readme = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
    assert_eq!(shipped, std::fs::read_to_string(repo_readme).unwrap());
    // Every topic page the prompt points at is there.
    for page in [
        "extensions.md",
        "themes.md",
        "skills.md",
        "prompt-templates.md",
        "tui.md",
        "keybindings.md",
        "models.md",
        "packages.md",
        "settings.md",
        "environment-variables.md",
    ] {
        assert!(
            prompt.contains(&format!("docs/{page}")),
            "{page} not named in the prompt"
        );
        assert!(docs.join(page).is_file(), "{page} not shipped");
    }
    assert!(!docs.join("ARCHITECTURE.md").exists());
    // The C walkthrough, named by the prompt, and the C example it points at.
    assert!(prompt.contains("docs/extensions-c.md"), "{prompt}");
    assert!(docs.join("extensions-c.md").is_file());
    assert!(
        std::fs::read_to_string(examples.join("extensions/checksum/src/checksum.c"))
            .unwrap()
            .contains("exports_pi_extension_tool_guest_execute")
    );
    // The Python walkthrough and its example package, which extensions.md links to.
    assert!(docs.join("extensions-python.md").is_file());
    assert!(
        std::fs::read_to_string(examples.join("extensions/json-query/app.py"))
            .unwrap()
            .contains("class ToolGuest(exports.ToolGuest)")
    );
    let sdk = examples.join("guest-sdk/README.md");
    assert!(
        std::fs::read_to_string(&sdk)
            .unwrap()
            .contains("export_tool!")
    );
    // The JavaScript walkthrough and its example package, sources included.
    assert!(docs.join("extensions-javascript.md").is_file());
    assert!(
        std::fs::read_to_string(examples.join("extensions/md-table/src/md-table.js"))
            .unwrap()
            .contains("export const toolGuest")
    );

    let before = [mtime(&readme), mtime(&sdk), mtime(&version_dir)];
    let out = pi.run(&["-p", "And again?"]);
    assert_eq!(stdout(&out), "second\n", "stderr: {}", stderr(&out));
    assert_eq!([mtime(&readme), mtime(&sdk), mtime(&version_dir)], before);
    assert_eq!(system_prompt(&pi, 1), prompt.clone());
    // Nothing half-written is left beside the version directory.
    let entries: Vec<String> = std::fs::read_dir(pi.agent_dir().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(entries, [env!("CARGO_PKG_VERSION")]);
}

/// Where the docs would go cannot be written (here a file stands where their directory would
/// be, which stops root as well as any user): pi logs it, says so in the prompt instead of
/// naming empty paths, and answers.
#[test]
fn an_unwritable_docs_location_still_starts_and_answers() {
    let pi = PiEnv::new(Api::AnthropicMessages);
    pi.write_agent_file("docs", "not a directory");
    pi.mock.push(Turn::text("still here"));

    let out = pi.run(&["--verbose", "-p", "What is pi?"]);
    assert_eq!(stdout(&out), "still here\n", "stderr: {}", stderr(&out));
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stderr(&out).contains("pi's documentation is not available to the model"),
        "stderr: {}",
        stderr(&out)
    );
    let prompt = system_prompt(&pi, 0);
    assert!(prompt.contains("Pi documentation: not available in this run"));
    assert!(!prompt.contains("Main documentation"));
}

/// The model can read the shipped docs even when the file tools are kept to the workspace.
#[test]
fn the_shipped_readme_is_readable_under_the_workspace_path_scope() {
    let pi = PiEnv::new(Api::AnthropicMessages);
    pi.settings(serde_json::json!({"tools": {"pathScope": "workspace"}}));
    let readme = pi
        .agent_dir()
        .join("docs")
        .join(env!("CARGO_PKG_VERSION"))
        .join("README.md");
    let outside = pi.root.path().join("home").join("secret.txt");
    std::fs::write(&outside, "not for the model").unwrap();
    pi.mock.push(
        Turn::new()
            .tool_call(
                "c1",
                "read",
                serde_json::json!({"path": readme.to_string_lossy()}),
            )
            .tool_call(
                "c2",
                "read",
                serde_json::json!({"path": outside.to_string_lossy()}),
            ),
    );
    pi.mock.push(Turn::text("read it"));

    let out = pi.run(&["-p", "Read pi's README"]);
    assert_eq!(stdout(&out), "read it\n", "stderr: {}", stderr(&out));
    let body = pi.mock.requests()[1].body.to_string();
    assert!(body.contains("A terminal coding agent"), "{body}");
    // The scope still holds for everything else.
    assert!(!body.contains("not for the model"), "{body}");
}
