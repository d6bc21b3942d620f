//! The `grep-chart` example (`extensions/grep-chart`), installed as a user installs it and seen
//! in a real terminal: pi runs in tmux against the mock LLM, the model calls the built-in
//! `grep`, and the component draws its result as a chart per file (collapsed) and the matches
//! grouped by file (Ctrl+O). The screens are insta snapshots; the mock's request log shows the
//! model got grep's own text, whatever the renderer drew.

use super::cli_extension_examples::built_package;
use super::cli_support::*;
use super::cli_tui_support::*;
use pi_mock_llm::{Api, Turn};
use serde_json::json;

/// A workspace with matches in three files: 4, 2 and 1.
fn workspace(pi: &PiEnv) {
    let cwd = pi.cwd();
    std::fs::create_dir_all(cwd.join("src")).unwrap();
    std::fs::write(
        cwd.join("src/main.rs"),
        "// TODO: parse arguments\nfn main() {\n    // TODO: config\n    run(); // TODO\n}\n// TODO: tests\n",
    )
    .unwrap();
    std::fs::write(
        cwd.join("src/lib.rs"),
        "pub fn run() {} // TODO: errors\n// TODO: docs\n",
    )
    .unwrap();
    std::fs::write(cwd.join("README.md"), "# demo\n\nTODO: write the README\n").unwrap();
}

/// The screen from the tool's header line to the answer, the part the component drew and
/// nothing that names the temporary directories.
fn drawn_part(screen: &str, answer: &str) -> String {
    let lines: Vec<&str> = screen.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.contains("grep TODO"))
        .unwrap_or_else(|| panic!("no grep header:\n{screen}"));
    let end = lines
        .iter()
        .position(|l| l.contains(answer))
        .unwrap_or_else(|| panic!("no answer:\n{screen}"));
    lines[start..end]
        .iter()
        .map(|l| l.trim_end())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn grep_chart_installs_and_draws_greps_matches_as_a_chart_in_the_terminal() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    workspace(&pi);
    let package = built_package(&pi, pi_extension_examples::GREP_CHART, "grep-chart.wasm");
    let out = pi.run(&["ext", "install", package.to_str().unwrap(), "--yes"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert!(
        stdout(&out).contains("Installed grep-chart 0.1.0"),
        "{}",
        stdout(&out)
    );
    let out = pi.run(&["ext", "info", "grep-chart"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let info = stdout(&out);
    assert!(info.contains("grep-chart.wasm (renderer)"), "{info}");
    assert!(info.contains("granted: nothing"), "{info}");
    let installed = pi.compiled_components();
    assert_eq!(
        installed.len(),
        1,
        "install compiled the component: {installed:?}"
    );

    pi.mock
        .push(Turn::new().tool_call("g1", "grep", json!({"pattern": "TODO"})));
    pi.mock.push(Turn::text("Three files have TODOs."));
    // grep is a built-in tool, but not one of the default four.
    let tmux = Tmux::start(
        &pi,
        &[
            "--model",
            "mock/mock-model",
            "--tui-mode",
            FULLSCREEN,
            "--tools",
            "read,grep",
        ],
    );
    tmux.wait_text("0%");
    tmux.submit("Where are the TODOs?");
    let screen = tmux.wait_text("Three files have TODOs.");
    insta::assert_snapshot!(
        "grep_chart_collapsed",
        drawn_part(&screen, "Three files have TODOs.")
    );
    // The bars are drawn in the theme's accent colour: a colour escape comes right before them.
    let styled = tmux.styled_screen();
    let bar_line = styled
        .lines()
        .find(|l| l.contains("src/main.rs") && l.contains('█'))
        .unwrap_or_else(|| panic!("no bar for src/main.rs:\n{styled}"));
    let before_bar = &bar_line[..bar_line.find('█').unwrap()];
    assert!(
        before_bar.ends_with('m') && before_bar.contains("\x1b[38;"),
        "{bar_line:?}"
    );

    tmux.keys(&["C-o"]);
    let screen = tmux.wait_text("│ pub fn run()");
    insta::assert_snapshot!(
        "grep_chart_expanded",
        drawn_part(&screen, "Three files have TODOs.")
    );
    // The matched text is highlighted (bold), the rest of the line is not.
    let styled = tmux.styled_screen();
    let line = styled
        .lines()
        .find(|l| l.contains("parse arguments"))
        .unwrap_or_else(|| panic!("no match line:\n{styled}"));
    let comment = line.find("//").unwrap();
    let todo = comment + line[comment..].find("TODO").unwrap();
    assert!(line[comment..todo].contains("\x1b[1m"), "{line:?}");
    tmux.exit();
    // The UI loaded the artifact install compiled (the grep component has its own).
    let now = pi.compiled_components();
    for (artifact, modified) in &installed {
        assert_eq!(
            now.get(artifact),
            Some(modified),
            "{artifact:?} was compiled again"
        );
    }

    // The model was given grep's own text, not the drawing.
    let requests = pi.mock.requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    let sent = requests[1].body["messages"].as_array().unwrap();
    let result = sent.last().unwrap();
    assert_eq!(result["role"], "tool", "{result}");
    let text = result["content"].to_string();
    assert!(
        text.contains("src/main.rs:1: // TODO: parse arguments"),
        "{text}"
    );
    assert!(
        text.contains("README.md:3: TODO: write the README"),
        "{text}"
    );
    assert!(!text.contains('█'), "{text}");
}
