#![allow(clippy::unwrap_used)]
use super::*;
use serde_json::json;

use crate::test_dirs::dirs;

fn bash_allowed(ledger: &Ledger, cwd: &Path, command: &str) -> Option<String> {
    let args = json!({ "command": command });
    let call = CallFacts {
        tool: "bash",
        args: &args,
        cwd,
    };
    ledger.matching(&call).map(|rule| rule.id)
}

fn cmd(text: &str) -> RuleKind {
    RuleKind::Command(text.to_owned())
}

#[test]
fn rules_of_every_scope_are_kept_listed_and_read_back() {
    let d = dirs();
    let (ledger, warnings) = Ledger::load(&d.agent, &d.cwd, true);
    assert!(warnings.is_empty());
    let s = ledger.add(Scope::Session, cmd("ls")).unwrap();
    let p = ledger.add(Scope::Project, cmd("cargo test")).unwrap();
    let g = ledger
        .add(Scope::Global, RuleKind::Tool("fetch_url".into()))
        .unwrap();
    assert_eq!(
        (s.id.as_str(), p.id.as_str(), g.id.as_str()),
        ("s1", "p1", "g1")
    );
    // The same rule again is the one already there.
    assert_eq!(
        ledger.add(Scope::Project, cmd("cargo test")).unwrap().id,
        "p1"
    );
    let ids: Vec<String> = ledger.rules().into_iter().map(|r| r.id).collect();
    assert_eq!(ids, ["s1", "p1", "g1"]);

    let (again, warnings) = Ledger::load(&d.agent, &d.cwd, true);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(again.project_file(), ProjectFile::Honoured);
    let ids: Vec<String> = again.rules().into_iter().map(|r| r.id).collect();
    assert_eq!(ids, ["p1", "g1"], "session rules are not kept");
    assert_eq!(
        bash_allowed(&again, &d.cwd, "cargo test --all").as_deref(),
        Some("p1")
    );
}

#[test]
fn compound_commands_need_every_part_allowed_by_some_rule() {
    let d = dirs();
    let (ledger, _) = Ledger::load(&d.agent, &d.cwd, true);
    ledger.add(Scope::Session, cmd("cargo test")).unwrap();
    ledger.add(Scope::Global, cmd("cargo fmt")).unwrap();
    let allowed = |c| bash_allowed(&ledger, &d.cwd, c);
    assert_eq!(
        allowed("cargo test && cargo test --doc").as_deref(),
        Some("s1")
    );
    assert_eq!(
        allowed("cargo fmt --all && cargo test").as_deref(),
        Some("g1")
    );
    assert_eq!(allowed("cargo testx; rm -rf /"), None);
    assert_eq!(allowed("cargo test && curl http://x"), None);
    assert_eq!(allowed("cargo test $(curl http://x)"), None);
}

#[test]
fn ids_are_never_reused_and_unknown_ids_are_refused() {
    let d = dirs();
    let (ledger, _) = Ledger::load(&d.agent, &d.cwd, true);
    ledger.add(Scope::Global, cmd("a")).unwrap();
    ledger.add(Scope::Global, cmd("b")).unwrap();
    assert_eq!(ledger.revoke("g2").unwrap().kind, cmd("b"));
    assert_eq!(ledger.add(Scope::Global, cmd("c")).unwrap().id, "g3");
    assert_eq!(ledger.clear(Scope::Global).unwrap(), 2);
    assert_eq!(ledger.add(Scope::Global, cmd("d")).unwrap().id, "g4");
    for id in ["g2", "p1", "s1", "x1", ""] {
        assert!(
            matches!(ledger.revoke(id), Err(LedgerError::NotFound(_))),
            "{id}"
        );
    }
}

#[test]
fn a_project_file_written_outside_pi_is_not_honoured_until_cleared() {
    let d = dirs();
    let (ledger, _) = Ledger::load(&d.agent, &d.cwd, true);
    ledger.add(Scope::Project, cmd("cargo test")).unwrap();
    // A tool (or `git pull`) grants itself everything.
    let path = project_path(&d.cwd);
    let forged = r#"{"nextId": 3, "rules": [{"id": "p1", "command": "cargo test"}, {"id": "p2", "tool": "bash"}]}"#;
    std::fs::write(&path, forged).unwrap();

    let (ledger, warnings) = Ledger::load(&d.agent, &d.cwd, true);
    assert_eq!(ledger.project_file(), ProjectFile::Changed);
    assert!(warnings[0].contains("changed outside pi"), "{warnings:?}");
    assert!(warnings[0].contains("pi grants clear --project"));
    assert!(ledger.rules().is_empty());
    assert_eq!(bash_allowed(&ledger, &d.cwd, "rm -rf /"), None);
    // Adding would sign the forged rules: refused, and the file is left as it is.
    assert!(matches!(
        ledger.add(Scope::Project, cmd("ls")),
        Err(LedgerError::Changed { .. })
    ));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), forged);

    assert_eq!(ledger.clear(Scope::Project).unwrap(), 2);
    let (ledger, warnings) = Ledger::load(&d.agent, &d.cwd, true);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(ledger.project_file(), ProjectFile::Honoured);
    assert_eq!(ledger.add(Scope::Project, cmd("ls")).unwrap().id, "p3");
}

#[test]
fn an_untrusted_projects_file_is_not_read_nor_written() {
    let d = dirs();
    let (trusted, _) = Ledger::load(&d.agent, &d.cwd, true);
    trusted.add(Scope::Project, cmd("cargo test")).unwrap();
    let (ledger, warnings) = Ledger::load(&d.agent, &d.cwd, false);
    assert!(warnings.is_empty());
    assert_eq!(ledger.project_file(), ProjectFile::Untrusted);
    assert!(ledger.rules().is_empty());
    assert!(matches!(
        ledger.add(Scope::Project, cmd("ls")),
        Err(LedgerError::ProjectNotTrusted)
    ));
}

#[test]
fn a_malformed_file_is_named_ignored_and_never_overwritten_by_add() {
    let d = dirs();
    let global = d.agent.join(FILE_NAME);
    std::fs::write(&global, "{ not json").unwrap();
    let (ledger, warnings) = Ledger::load(&d.agent, &d.cwd, true);
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].contains(&global.display().to_string()));
    assert!(matches!(
        ledger.add(Scope::Global, cmd("ls")),
        Err(LedgerError::Malformed { .. })
    ));
    assert!(matches!(
        ledger.add(Scope::Project, cmd("ls")),
        Err(LedgerError::Malformed { .. })
    ));
    assert_eq!(std::fs::read_to_string(&global).unwrap(), "{ not json");
    assert!(!project_path(&d.cwd).exists());
    // Repeated ids are malformed too.
    std::fs::write(
        &global,
        r#"{"rules": [{"id": "g1", "tool": "a"}, {"id": "g1", "tool": "b"}]}"#,
    )
    .unwrap();
    let (_, warnings) = Ledger::load(&d.agent, &d.cwd, true);
    assert!(warnings[0].contains("repeated"), "{warnings:?}");
}

#[test]
fn two_ledgers_adding_at_once_keep_every_rule() {
    let d = dirs();
    let (a, _) = Ledger::load(&d.agent, &d.cwd, true);
    let (b, _) = Ledger::load(&d.agent, &d.cwd, true);
    std::thread::scope(|scope| {
        for (n, ledger) in [&a, &b].into_iter().enumerate() {
            scope.spawn(move || {
                for i in 0..20 {
                    ledger
                        .add(Scope::Global, cmd(&format!("g{n} {i}")))
                        .unwrap();
                    ledger
                        .add(Scope::Project, cmd(&format!("p{n} {i}")))
                        .unwrap();
                }
            });
        }
    });
    let (after, warnings) = Ledger::load(&d.agent, &d.cwd, true);
    assert!(warnings.is_empty(), "{warnings:?}");
    let rules = after.rules();
    assert_eq!(rules.len(), 80);
    let mut ids: Vec<&str> = rules.iter().map(|r| r.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 80);
}

#[test]
fn path_and_tool_rules_are_found_by_matching() {
    let d = dirs();
    let (ledger, _) = Ledger::load(&d.agent, &d.cwd, true);
    ledger
        .add(Scope::Session, RuleKind::Path("src/**".into()))
        .unwrap();
    let args = json!({ "path": "src/a/b.rs", "content": "" });
    let call = CallFacts {
        tool: "write",
        args: &args,
        cwd: &d.cwd,
    };
    assert_eq!(ledger.matching(&call).map(|r| r.id).as_deref(), Some("s1"));
    let args = json!({ "path": "docs/a.md", "content": "" });
    let call = CallFacts {
        tool: "write",
        args: &args,
        cwd: &d.cwd,
    };
    assert_eq!(ledger.matching(&call), None);
}
