//! The C example `extensions/checksum`, installed as a user installs it and called by the model
//! through the `pi` binary: its sums are checked against ones the test computes, and a path
//! leading out of the workspace is refused in words while the run goes on.

use super::cli_extension_examples::built_package;
use super::cli_support::*;
use pi_mock_llm::{Api, Turn};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// A workspace file of several 64 KiB pieces (the tool reads in pieces), not a multiple of one.
fn blob() -> Vec<u8> {
    (0..200_003u32).map(|i| (i * 7 % 251) as u8).collect()
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Installs the package, answering yes, as its README says.
fn install_checksum(pi: &PiEnv) {
    let package = built_package(pi, pi_extension_examples::CHECKSUM, "checksum.wasm");
    let out = pi.run(&["ext", "install", package.to_str().unwrap(), "--yes"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
}

/// Runs one prompt whose model calls `checksum` with `arguments`, then answers "done"; returns
/// the result text the model got in its second request.
fn checksum_call(pi: &PiEnv, arguments: Value) -> String {
    pi.mock
        .push(Turn::new().tool_call("c1", "checksum", arguments));
    pi.mock.push(Turn::text("done"));
    let out = pi.run(&["-p", "Checksum the files"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out), "done\n");
    let requests = pi.mock.requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    let messages = requests[1].body["messages"].as_array().unwrap();
    let result = messages
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == "c1")
        .unwrap_or_else(|| panic!("no tool result in {messages:?}"));
    result["content"].as_str().unwrap().to_owned()
}

/// Whether the session's only tool result is marked as an error.
fn result_is_error(pi: &PiEnv) -> bool {
    let lines = pi.session_lines();
    assert_complete_session(&lines);
    let result = messages(&lines)
        .into_iter()
        .find(|m| m["role"] == "toolResult")
        .cloned()
        .expect("a tool result");
    result["isError"] == true
}

#[test]
fn the_c_checksum_tool_sums_several_workspace_files_for_the_model() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let notes = "alpha beta\n\tgamma  delta\nno newline at the end";
    std::fs::write(pi.cwd().join("notes.txt"), notes).unwrap();
    std::fs::create_dir(pi.cwd().join("data")).unwrap();
    std::fs::write(pi.cwd().join("data/blob.bin"), blob()).unwrap();
    // CRC-32's published check value: the sum of the nine digits is cbf43926.
    std::fs::write(pi.cwd().join("check.txt"), "123456789").unwrap();
    install_checksum(&pi);

    let info = stdout(&pi.run(&["ext", "info", "checksum"]));
    assert!(info.contains("checksum.wasm (tool)"), "{info}");
    assert!(
        info.contains("granted: read files in the working directory\n"),
        "{info}"
    );

    let text = checksum_call(
        &pi,
        json!({"paths": ["notes.txt", "./data/../data/blob.bin", "check.txt", "missing.txt", "data"]}),
    );
    let lines: Vec<&str> = text.lines().collect();
    let words = notes.split_whitespace().count();
    let newlines = notes.matches('\n').count();
    let expected_notes = format!("notes.txt: sha256={} crc32=", sha256_hex(notes.as_bytes()));
    assert!(lines[0].starts_with(&expected_notes), "{text}");
    assert!(
        lines[0].ends_with(&format!(
            " bytes={} lines={newlines} words={words}",
            notes.len()
        )),
        "{text}"
    );
    let blob = blob();
    assert!(
        lines[1].starts_with(&format!(
            "./data/../data/blob.bin: sha256={} crc32=",
            sha256_hex(&blob)
        )),
        "{text}"
    );
    assert!(
        lines[1].contains(&format!(" bytes={} ", blob.len())),
        "{text}"
    );
    assert!(
        lines[2].starts_with(&format!(
            "check.txt: sha256={} crc32=cbf43926 bytes=9 lines=0 words=1",
            sha256_hex(b"123456789")
        )),
        "{text}"
    );
    assert_eq!(lines[3], "missing.txt: error: no such file or directory");
    assert!(
        lines[4].starts_with("data: error: is a directory"),
        "{text}"
    );
    assert_eq!(lines.len(), 5, "{text}");
    // Some files were summed: the result is not an error, the failed ones say why.
    assert!(!result_is_error(&pi));
}

#[test]
fn the_c_checksum_tool_refuses_paths_out_of_the_workspace_and_the_run_goes_on() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let secret = pi.root.path().join("secret.txt");
    std::fs::write(&secret, "not for the model").unwrap();
    std::os::unix::fs::symlink(&secret, pi.cwd().join("link.txt")).unwrap();
    install_checksum(&pi);

    let text = checksum_call(
        &pi,
        json!({"paths": ["../secret.txt", secret.to_str().unwrap(), "link.txt"], "sums": ["sha256"]}),
    );
    let lines: Vec<&str> = text.lines().collect();
    let refusal = format!(
        "error: outside the workspace ({}): only files in the workspace can be read",
        pi.cwd().display()
    );
    assert_eq!(lines[0], format!("../secret.txt: {refusal}"), "{text}");
    assert_eq!(
        lines[1],
        format!("{}: {refusal}", secret.display()),
        "{text}"
    );
    // A link inside the workspace that leads out of it: WASI refuses to follow it.
    assert!(
        lines[2].starts_with("link.txt: error: not readable here"),
        "{text}"
    );
    assert!(!text.contains(&sha256_hex(b"not for the model")), "{text}");
    // Nothing was summed: the model gets an error result, and the run still ends normally.
    assert!(result_is_error(&pi));
}
