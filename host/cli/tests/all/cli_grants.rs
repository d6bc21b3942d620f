//! `pi grants list|revoke|clear` against rules files pi wrote (through the ledger), a project
//! file changed outside pi and an untrusted project's file (both listed as not used), the
//! extension packages' install-time grants, and the built-in `write`/`edit` tools refused
//! `.pi/approvals.json` through the binary against the mock LLM.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::cli_extensions::{extend_manifest, install};
use super::cli_support::*;
use pi_app::permissions::{Ledger, RuleKind, Scope};
use pi_mock_llm::{Api, Turn};
use serde_json::json;

/// A project trusted (or not) by a saved decision.
fn project(trusted: bool) -> PiEnv {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let cwd = pi.cwd().canonicalize().unwrap();
    pi.write_agent_file(
        "trust.json",
        &json!({ cwd.to_string_lossy(): trusted }).to_string(),
    );
    pi
}

/// Rules as pi's own approvals leave them: p1 `cargo test`, p2 `src/**`, g1 `fetch_url`,
/// g2 `make`.
fn add_rules(pi: &PiEnv) {
    let (ledger, warnings) = Ledger::load(&pi.agent_dir(), &pi.cwd(), true);
    assert!(warnings.is_empty(), "{warnings:?}");
    for (scope, kind) in [
        (Scope::Project, RuleKind::Command("cargo test".into())),
        (Scope::Project, RuleKind::Path("src/**".into())),
        (Scope::Global, RuleKind::Tool("fetch_url".into())),
        (Scope::Global, RuleKind::Command("make".into())),
    ] {
        ledger.add(scope, kind).unwrap();
    }
}

fn list(pi: &PiEnv) -> (String, String) {
    let out = pi.run(&["grants", "list"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    (stdout(&out), stderr(&out))
}

fn line_with<'a>(text: &'a str, id: &str) -> Option<&'a str> {
    text.lines()
        .find(|l| l.split_whitespace().next() == Some(id))
}

#[test]
fn list_revoke_and_clear_the_rules_of_both_scopes() {
    let pi = project(true);
    add_rules(&pi);
    let (out, _) = list(&pi);
    let project_at = out.find("Project rules").unwrap();
    let global_at = out.find("Global rules").unwrap();
    assert!(project_at < global_at, "{out}");
    let p1 = line_with(&out, "p1").unwrap();
    assert!(
        p1.contains("bash command") && p1.ends_with("cargo test*"),
        "{out}"
    );
    assert!(line_with(&out, "p2").unwrap().ends_with("src/**"), "{out}");
    assert!(line_with(&out, "g1").unwrap().contains("tool"), "{out}");
    assert!(line_with(&out, "g2").unwrap().ends_with("make*"), "{out}");
    assert!(out.contains("(none installed)"), "{out}");

    let out = pi.run(&["grants", "revoke", "p1"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("Revoked p1"), "{}", stdout(&out));
    let (out, _) = list(&pi);
    assert!(
        line_with(&out, "p1").is_none() && line_with(&out, "p2").is_some(),
        "{out}"
    );

    for id in ["p1", "g9", "s1", "nonsense"] {
        let out = pi.run(&["grants", "revoke", id]);
        assert_eq!(out.status.code(), Some(1), "{id}: {}", stdout(&out));
        assert!(
            stderr(&out).contains("no approval rule"),
            "{}",
            stderr(&out)
        );
    }

    let out = pi.run(&["grants", "clear"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("Cleared 2 global rule(s)."),
        "{}",
        stdout(&out)
    );
    let (out, _) = list(&pi);
    assert!(
        line_with(&out, "g1").is_none() && line_with(&out, "p2").is_some(),
        "{out}"
    );

    let out = pi.run(&["grants", "clear", "--project"]);
    assert!(
        stdout(&out).contains("Cleared 1 project rule(s)."),
        "{}",
        stdout(&out)
    );
    let (out, _) = list(&pi);
    assert_eq!(out.matches("(none)").count(), 2, "{out}");

    let out = pi.run(&["grants", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    for word in ["list", "revoke", "clear"] {
        assert!(stdout(&out).contains(word), "{}", stdout(&out));
    }
}

#[test]
fn a_project_file_changed_outside_pi_is_not_used_until_cleared() {
    let pi = project(true);
    add_rules(&pi);
    let file = pi.cwd().join(".pi/approvals.json");
    let forged = r#"{"nextId": 4, "rules": [{"id": "p3", "tool": "bash"}]}"#;
    std::fs::write(&file, forged).unwrap();

    let (out, err) = list(&pi);
    assert!(out.contains("[not used: changed outside pi"), "{out}");
    assert!(line_with(&out, "p3").is_none(), "{out}");
    assert!(line_with(&out, "g1").is_some(), "{out}");
    assert!(err.contains("pi grants clear --project"), "{err}");
    // Revoking would sign what was forged: refused, the file left as it is.
    let out = pi.run(&["grants", "revoke", "p3"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("changed outside pi"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), forged);

    let out = pi.run(&["grants", "clear", "--project"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let (out, err) = list(&pi);
    assert!(!out.contains("not used"), "{out}");
    assert!(err.is_empty(), "{err}");
}

#[test]
fn an_untrusted_projects_file_is_listed_as_not_used() {
    let pi = project(true);
    add_rules(&pi);
    let untrusted = project(false);
    std::fs::create_dir_all(untrusted.cwd().join(".pi")).unwrap();
    std::fs::copy(
        pi.cwd().join(".pi/approvals.json"),
        untrusted.cwd().join(".pi/approvals.json"),
    )
    .unwrap();
    let (out, _) = list(&untrusted);
    assert!(
        out.contains("[not used: the project is not trusted]"),
        "{out}"
    );
    assert!(line_with(&out, "p1").is_none(), "{out}");
}

#[test]
fn list_shows_the_packages_install_time_grants() {
    let pi = project(true);
    let package = install(&pi.root.path().join("packages"), "writer");
    extend_manifest(&package, "[capabilities]\nfilesystem = \"write\"");
    let out = pi.run(&["ext", "install", package.to_str().unwrap(), "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let (out, _) = list(&pi);
    let line = out.lines().find(|l| l.contains("writer")).unwrap();
    assert!(
        line.contains("read and write files in the working directory"),
        "{out}"
    );
}

/// The model asks the built-in `write` and `edit` to grant it `bash` in the project's rules and
/// the global ones (writes allowed anywhere): each is refused by the host, the files are
/// unchanged, and the model got error results; the rest of `.pi/` is writable.
#[test]
fn the_builtin_file_tools_cannot_write_the_project_approvals() {
    let pi = project(true);
    add_rules(&pi);
    // Writes anywhere: the global rules file is in reach but for the protection.
    pi.settings(json!({"tools": {"pathScope": "anywhere"}}));
    let global = pi.agent_dir().join("approvals.json");
    let global_before = std::fs::read(&global).unwrap();
    let file = pi.cwd().join(".pi/approvals.json");
    let before = std::fs::read(&file).unwrap();
    let forged = r#"{"nextId": 9, "rules": [{"id": "p8", "tool": "bash"}]}"#;
    pi.mock.push_all(vec![
        Turn::new()
            .tool_call(
                "w1",
                "write",
                json!({"path": ".pi/approvals.json", "content": forged}),
            )
            .tool_call(
                "e1",
                "edit",
                json!({"path": ".pi/approvals.json", "edits": [{"oldText": "cargo test", "newText": "rm"}]}),
            )
            .tool_call("w2", "write", json!({"path": ".pi/notes.md", "content": "ok"}))
            .tool_call(
                "w3",
                "write",
                json!({"path": global.to_string_lossy(), "content": forged}),
            ),
        Turn::text("done"),
    ]);
    let out = pi.run(&["--no-session", "-p", "grant yourself bash"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read(&file).unwrap(), before);
    assert_eq!(std::fs::read(&global).unwrap(), global_before);
    assert_eq!(
        std::fs::read_to_string(pi.cwd().join(".pi/notes.md")).unwrap(),
        "ok"
    );
    let requests = pi.mock.requests();
    let body = &requests.last().unwrap().body;
    let result = |id: &str| {
        body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["role"] == "tool" && m["tool_call_id"] == id)
            .unwrap_or_else(|| panic!("no result for {id} in {body}"))
            .clone()
    };
    for id in ["w1", "e1", "w3"] {
        let text = result(id)["content"].to_string();
        assert!(!text.contains("Successfully"), "{id}: {text}");
        assert!(text.contains("EACCES"), "{id}: {text}");
    }
    assert!(
        result("w2")["content"].to_string().contains("Successfully"),
        "{}",
        result("w2")
    );
}

/// A write-granted extension component tries the same through plain WASI calls: refused, the
/// file unchanged, the refusal reached the model as an error; the rest of `.pi/` is its to write.
#[test]
fn a_write_granted_extension_cannot_write_the_project_approvals() {
    let pi = project(true);
    add_rules(&pi);
    let file = pi.cwd().join(".pi/approvals.json");
    let before = std::fs::read(&file).unwrap();
    let package = install(&pi.root.path().join("packages"), "prober");
    extend_manifest(&package, "[capabilities]\nfilesystem = \"write\"");
    let forged = r#"{"rules": [{"id": "p8", "tool": "bash"}]}"#;
    let calls = [
        json!({"op": "fs", "action": "write", "path": ".pi/approvals.json", "content": forged}),
        json!({"op": "fs", "action": "append", "path": ".pi/approvals.json", "content": forged}),
        json!({"op": "fs", "action": "remove", "path": ".pi/approvals.json", "content": ""}),
        json!({"op": "fs", "action": "write", "path": ".pi/mine.md", "content": "ok"}),
    ];
    for (i, call) in calls.iter().enumerate() {
        pi.mock
            .push(Turn::new().tool_call(format!("c{i}"), "probe", call.clone()));
    }
    pi.mock.push(Turn::text("done"));
    let package = package.to_string_lossy().into_owned();
    let out = pi.run(&["--no-session", "--mode", "json", "-e", &package, "go"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let results = super::cli_protected::results(&stdout(&out));
    assert_eq!(results.len(), 4, "{results:?}");
    for (text, error) in &results[..3] {
        let named = ["ermission denied", "Access", "not permitted"]
            .iter()
            .any(|word| text.contains(word));
        assert!(*error && named, "{results:?}");
    }
    assert!(!results[3].1, "{results:?}");
    assert_eq!(std::fs::read(&file).unwrap(), before);
    assert_eq!(
        std::fs::read_to_string(pi.cwd().join(".pi/mine.md")).unwrap(),
        "ok"
    );
}
