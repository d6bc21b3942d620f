//! The settings of the tools, each shown by what reaches the model or the user: `shellPath`
//! and `shellCommandPrefix` (the `bash` tool and the user's own commands, which also see
//! `httpProxy` as `HTTPS_PROXY`), `images.autoResize`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::cli_rpc::{RpcClient, ok};
use super::cli_support::*;
use pi_mock_llm::{Api, Turn};
use serde_json::json;

/// A shell that says it ran, then runs the command with `sh`.
fn marking_shell(pi: &PiEnv) -> String {
    let path = pi.root.path().join("marking-shell");
    std::fs::write(
        &path,
        "#!/bin/sh\necho marked-by-shellPath\nexec /bin/sh \"$@\"\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.display().to_string()
}

/// Runs one `bash` tool call with `command` and returns the text of the request that carried
/// its result.
fn bash_tool_result(pi: &PiEnv, command: &str) -> String {
    pi.mock
        .push(Turn::new().tool_call("c1", "bash", json!({"command": command})));
    pi.mock.push(Turn::text("done"));
    let out = pi.run(&["--no-session", "-p", "run it"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let requests = pi.mock.requests();
    requests.last().unwrap().body["messages"].to_string()
}

#[test]
fn shell_path_and_command_prefix_shape_the_bash_tool_commands() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let sent = bash_tool_result(&pi, "echo \"[$GREETING]\"");
    assert!(sent.contains("[]"), "{sent}");
    assert!(!sent.contains("marked-by-shellPath"), "{sent}");

    pi.settings(json!({
        "shellPath": marking_shell(&pi),
        "shellCommandPrefix": "GREETING=from-the-prefix",
    }));
    let sent = bash_tool_result(&pi, "echo \"[$GREETING]\"");
    assert!(sent.contains("marked-by-shellPath"), "{sent}");
    assert!(sent.contains("[from-the-prefix]"), "{sent}");
}

#[test]
fn commands_see_the_session_variables_unless_expose_session_environment_is_off() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    // Run from another pi's command: its values must never show through.
    let run = |pi: &PiEnv| {
        pi.mock.push(Turn::new().tool_call(
            "c1",
            "bash",
            json!({"command": "echo \"[$PI_SESSION_ID|$PI_MODEL|$PI_REASONING_LEVEL]\""}),
        ));
        pi.mock.push(Turn::text("done"));
        let out = pi
            .command(&[
                "--model",
                "mock/mock-model",
                "--thinking",
                "low",
                "-p",
                "run it",
            ])
            .env("PI_SESSION_ID", "outer-session")
            .env("PI_MODEL", "outer-model")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        pi.mock.requests().last().unwrap().body["messages"].to_string()
    };
    let sent = run(&pi);
    let id = read_jsonl(&pi.session_files()[0])[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(sent.contains(&format!("[{id}|mock-model|low]")), "{sent}");
    pi.settings(json!({"exposeSessionEnvironment": false}));
    let sent = run(&pi);
    assert!(sent.contains("[||]"), "{sent}");
    assert!(!sent.contains("outer-"), "{sent}");
}

#[test]
fn shell_path_and_command_prefix_apply_to_the_users_own_commands() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.settings(json!({
        "shellPath": marking_shell(&pi),
        "shellCommandPrefix": "GREETING=from-the-prefix",
        // Never contacted here: only what the command sees of it counts.
        "httpProxy": "http://127.0.0.1:9",
    }));
    let mut rpc = RpcClient::start(&pi);
    let command = "echo \"[$GREETING] [$HTTPS_PROXY]\"; echo oops >&2 # a comment";
    let done = rpc.call(json!({"id": "b", "type": "bash", "command": command}));
    assert_eq!(
        ok(&done)["output"],
        "marked-by-shellPath\n[from-the-prefix] [http://127.0.0.1:9]\noops\n",
        "{done}"
    );

    pi.settings(json!({"shellPath": "/nonexistent/shell"}));
    let mut rpc = RpcClient::start(&pi);
    let failed = rpc.call(json!({"id": "b", "type": "bash", "command": "true"}));
    assert_eq!(failed["success"], false, "{failed}");
    let error = failed["error"].as_str().unwrap();
    assert!(
        error.contains("Cannot start the shell /nonexistent/shell (setting shellPath)"),
        "{error}"
    );
}

/// A 2×2 24-bit BMP: `read` converts it to PNG only while `images.autoResize` is on.
fn bmp() -> Vec<u8> {
    let row = [0u8, 0, 255, 0, 255, 0, 0, 0];
    let pixels = row.len() * 2;
    let mut out = Vec::new();
    out.extend_from_slice(b"BM");
    out.extend_from_slice(&(54 + pixels as u32).to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&54u32.to_le_bytes());
    out.extend_from_slice(&40u32.to_le_bytes());
    out.extend_from_slice(&2i32.to_le_bytes());
    out.extend_from_slice(&2i32.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&24u16.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&(pixels as u32).to_le_bytes());
    out.extend_from_slice(&[0; 16]);
    out.extend_from_slice(&row);
    out.extend_from_slice(&row);
    out
}

/// The request after a `read` of the BMP.
fn after_reading_the_bmp(pi: &PiEnv) -> String {
    std::fs::write(pi.cwd().join("tiny.bmp"), bmp()).unwrap();
    pi.mock
        .push(Turn::new().tool_call("c1", "read", json!({"path": "tiny.bmp"})));
    pi.mock.push(Turn::text("seen"));
    let out = pi.run(&["--no-session", "-p", "look"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    pi.mock.requests().last().unwrap().body["messages"].to_string()
}

#[test]
fn images_auto_resize_off_sends_the_file_as_it_is() {
    let pi = PiEnv::new(Api::AnthropicMessages);
    let sent = after_reading_the_bmp(&pi);
    assert!(sent.contains("\"media_type\":\"image/png\""), "{sent}");

    pi.settings(json!({"images": {"autoResize": false}}));
    let sent = after_reading_the_bmp(&pi);
    assert!(sent.contains("\"media_type\":\"image/bmp\""), "{sent}");
    assert!(!sent.contains("image/png"), "{sent}");
}

#[test]
fn a_skills_allowed_tools_grants_nothing() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let skill = pi.agent_dir().join("skills").join("deploy");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: deploy\ndescription: Deploys the app\nallowed-tools: bash write edit\n---\n\nRun the deploy script.\n",
    )
    .unwrap();
    pi.mock.push(Turn::text("ok"));
    let out = pi.run(&["--no-session", "--tools", "read", "-p", "/skill:deploy now"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let request = &pi.mock.requests()[0].body;
    // The skill was used (its text is in the prompt), and the tools are still only `read`.
    assert!(
        request.to_string().contains("Run the deploy script."),
        "{request}"
    );
    let offered: Vec<&str> = request["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(offered, ["read"]);
}
