//! The approval rules as lines to read (`pi grants list`, `/grants`): by scope, each with its
//! id, its kind and what it allows; a project file that is not used says why.

use super::{Ledger, ProjectFile, Rule, RuleKind, Scope};

/// The lines of `ledger`'s rules: the session's first when `session` (only a running session
/// has any), then the project's, then the user's global ones.
pub fn rule_lines(ledger: &Ledger, session: bool) -> Vec<String> {
    let rules = ledger.rules();
    let mut lines = Vec::new();
    if session {
        lines.push("Session rules (until pi exits):".to_owned());
        scope_lines(&rules, Scope::Session, &mut lines);
    }
    lines.push(format!(
        "Project rules ({}):",
        ledger.project_path().display()
    ));
    match project_note(ledger.project_file()) {
        Some(note) => lines.push(format!("  [{note}]")),
        None => scope_lines(&rules, Scope::Project, &mut lines),
    }
    lines.push(format!(
        "Global rules ({}):",
        ledger.global_path().display()
    ));
    scope_lines(&rules, Scope::Global, &mut lines);
    lines
}

/// Why the project's file is not used, if it is not.
fn project_note(file: ProjectFile) -> Option<String> {
    match file {
        ProjectFile::Absent | ProjectFile::Honoured => None,
        ProjectFile::Untrusted => Some("not used: the project is not trusted".to_owned()),
        ProjectFile::Changed => Some(
            "not used: changed outside pi; check it, then reset it with `pi grants clear \
             --project`"
                .to_owned(),
        ),
        ProjectFile::Malformed(reason) => Some(format!("not used: {reason}")),
    }
}

fn scope_lines(rules: &[Rule], scope: Scope, lines: &mut Vec<String>) {
    let before = lines.len();
    for rule in rules.iter().filter(|r| r.scope == scope) {
        let what = match rule.kind {
            RuleKind::Command(_) => "bash command",
            RuleKind::Path(_) => "write/edit path",
            RuleKind::Tool(_) => "tool",
        };
        lines.push(format!("  {:<5} {:<16} {}", rule.id, what, rule.describe()));
    }
    if lines.len() == before {
        lines.push("  (none)".to_owned());
    }
}
