//! The `hook-probe` test component (`/probe confirm` asks `confirm("Probe", "Proceed?")` and
//! then notifies "probe confirmed: yes|no|cancelled"); the RPC round trip, yes and no through
//! `extension_ui_response`, is `cli_hooks`' `rpc_lists_runs_and_answers_hook_commands_and_dialogs`.
//!
//! A hook's dialog through the other faces of the real binary: the terminal UI's dialog
//! answered Yes, No and Esc (in tmux, both layouts), and print mode, where the dialog is
//! cancelled at once and the notice goes to stderr, nothing to stdout.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::cli_support::*;
use super::cli_tui_support::*;
use pi_mock_llm::Api;

/// A test environment with the probe hook installed globally and approved with `ui`.
fn probe_env() -> PiEnv {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let package = pi.agent_dir().join("extensions").join("hook-probe");
    std::fs::create_dir_all(&package).unwrap();
    std::fs::copy(pi_ext_test_artifacts::HOOK_PROBE, package.join("hook.wasm")).unwrap();
    let manifest = "[package]\nname = \"hook-probe\"\nversion = \"0.1.0\"\nwit = \"0.3.0\"\n\n\
                    [[component]]\npath = \"hook.wasm\"\nworld = \"hook\"\n\n\
                    [capabilities]\nui = true\nsession = true\n";
    std::fs::write(package.join("pi-extension.toml"), manifest).unwrap();
    pi.approve(&package);
    pi
}

fn confirm_answered_yes_no_and_esc(layout: &str) {
    let pi = probe_env();
    let tmux = pi_in_tmux(&pi, layout);
    let answers: [(&[&str], &str); 3] = [
        (&["y"], "yes"),
        (&["Down", "Enter"], "no"),
        (&["Escape"], "cancelled"),
    ];
    for (keys, said) in answers {
        tmux.submit("/probe confirm");
        // The dialog names the extension and asks over the editor.
        tmux.wait_text("hook-probe@0.1.0");
        tmux.wait_text("Proceed?");
        tmux.keys(keys);
        tmux.wait_text(&format!("probe confirmed: {said}"));
        tmux.wait_for("the dialog to close", |screen| !screen.contains("Proceed?"));
    }
    tmux.exit();
}

#[test]
fn tui_fullscreen_probe_confirm_answered_yes_no_and_esc() {
    confirm_answered_yes_no_and_esc(FULLSCREEN);
}

#[test]
fn tui_regular_probe_confirm_answered_yes_no_and_esc() {
    confirm_answered_yes_no_and_esc(REGULAR);
}

#[test]
fn print_mode_cancels_the_dialog_at_once_and_the_notice_goes_to_stderr() {
    let pi = probe_env();
    let out = pi.run(&["--no-session", "-p", "/probe confirm"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert!(
        stderr(&out).contains("hook-probe@0.1.0: probe confirmed: cancelled"),
        "stderr: {}",
        stderr(&out)
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("probe confirmed"));
}
