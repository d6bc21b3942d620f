//! NOT YET WIRED IN (no `mod` line in main.rs): these need the `hook-probe` test component
//! (`pi_ext_test_artifacts::HOOK_PROBE`, command `/probe confirm` asking
//! `confirm("Probe", "Proceed?")` and then notifying "probe confirmed: yes|no|cancelled"),
//! which has not landed on main yet. Add `mod cli_hook_dialogs;` when it does.
//!
//! A hook's dialog through every face of the real binary: RPC's `extension_ui_request` answered
//! with `extension_ui_response`, the terminal UI's dialog answered Yes, No and Esc (in tmux),
//! and print mode, where the dialog is cancelled at once and the notice goes to stderr.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::cli_rpc::{RpcClient, ok};
use super::cli_support::*;
use super::cli_tui_support::*;
use pi_mock_llm::Api;
use serde_json::json;
use std::path::{Path, PathBuf};

/// Installs the probe hook as package `hook-probe` in `dir`, with the `ui` capability.
fn install_probe(dir: &Path) -> PathBuf {
    let package = dir.join("hook-probe");
    std::fs::create_dir_all(&package).unwrap();
    std::fs::copy(pi_ext_test_artifacts::HOOK_PROBE, package.join("hook.wasm")).unwrap();
    let manifest = "[package]\nname = \"hook-probe\"\nversion = \"0.1.0\"\nwit = \"0.3.0\"\n\n\
                    [[component]]\npath = \"hook.wasm\"\nworld = \"hook\"\n\n\
                    [capabilities]\nui = true\n";
    std::fs::write(package.join("pi-extension.toml"), manifest).unwrap();
    package
}

fn probe_env() -> PiEnv {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    install_probe(&pi.agent_dir().join("extensions"));
    pi
}

fn rpc_confirm_answered(confirmed: bool, said: &str) {
    let pi = probe_env();
    let mut rpc = RpcClient::start(&pi);
    let sent = rpc.call(json!({"id": "p", "type": "prompt", "message": "/probe confirm"}));
    ok(&sent);
    let request = rpc.wait_event("extension_ui_request");
    assert_eq!(request["method"], "confirm", "{request}");
    assert_eq!(request["title"], "Probe");
    assert_eq!(request["message"], "Proceed?");
    let id = request["id"].as_str().unwrap().to_owned();
    let answer = json!({"type": "extension_ui_response", "id": id, "confirmed": confirmed});
    rpc.send_raw(&answer.to_string());
    let notice = rpc.wait_event("extension_ui_request");
    assert_eq!(notice["method"], "notify", "{notice}");
    assert_eq!(notice["message"], format!("probe confirmed: {said}"));
    // The answer got no response line of its own.
    let responses = rpc.seen.iter().filter(|l| l["type"] == "response").count();
    assert_eq!(responses, 1, "{:#?}", rpc.seen);
    drop(rpc.stdin.take());
    assert_eq!(rpc.child.wait().unwrap().code(), Some(0));
}

#[test]
fn rpc_probe_confirm_answered_yes() {
    rpc_confirm_answered(true, "yes");
}

#[test]
fn rpc_probe_confirm_answered_no() {
    rpc_confirm_answered(false, "no");
}

#[test]
fn tui_probe_confirm_answered_yes_no_and_esc() {
    let pi = probe_env();
    let tmux = pi_in_tmux(&pi, FULLSCREEN);
    for (keys, said) in [
        (&["y"][..], "yes"),
        (&["Down", "Enter"][..], "no"),
        (&["Escape"][..], "cancelled"),
    ] {
        tmux.submit("/probe confirm");
        tmux.wait_text("Proceed?");
        tmux.wait_text("hook-probe@0.1.0");
        tmux.keys(keys);
        tmux.wait_text(&format!("probe confirmed: {said}"));
    }
    tmux.exit();
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
