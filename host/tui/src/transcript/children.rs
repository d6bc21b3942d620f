//! What the UI keeps of subagents: each child's own transcript, built from the `subagent`
//! events it sends while it runs, or read from its session file when a block whose children
//! were not seen live (a resumed session) is expanded. Pure state: `view::subagents` draws it.

use super::{Item, Transcript};
use pi_app::AppEvent;
use pi_app::subagents::SubagentDetails;
use std::collections::HashMap;
use std::path::Path;

/// The name of the built-in tool whose calls have children.
pub const TOOL: &str = "subagent";

/// One child's transcript, or why there is none.
#[derive(Debug, Default)]
pub struct ChildLog {
    pub transcript: Transcript,
    /// Said instead of (or under) the transcript: its session file is gone or unreadable.
    pub note: Option<String>,
}

/// The children's transcripts by child (session) id.
#[derive(Debug, Default)]
pub struct ChildLogs {
    logs: HashMap<String, ChildLog>,
}

impl ChildLogs {
    pub fn get(&self, id: &str) -> Option<&ChildLog> {
        self.logs.get(id)
    }

    /// One event of the running child `id`.
    pub fn apply(&mut self, id: &str, event: &AppEvent) {
        self.logs
            .entry(id.to_owned())
            .or_default()
            .transcript
            .apply(event);
    }

    /// Reads the session file of each finished child of `details` that has no transcript yet; says so
    /// when the file is gone. Whether anything was added.
    pub fn load(&mut self, details: &SubagentDetails) -> bool {
        let mut added = false;
        for child in &details.results {
            // A child still to come or running has its events to tell; only a finished one
            // not seen live is read.
            if self.logs.contains_key(&child.id) || !child.status.is_done() {
                continue;
            }
            let Some(file) = &child.session_file else {
                continue;
            };
            self.logs
                .insert(child.id.clone(), read_child(Path::new(file)));
            added = true;
        }
        added
    }
}

/// A child's session file as a transcript (a child's session is one branch, in order).
fn read_child(path: &Path) -> ChildLog {
    if !path.exists() {
        return ChildLog {
            transcript: Transcript::default(),
            note: Some(format!("session file gone: {}", path.display())),
        };
    }
    match pi_session::session::file::load(path) {
        Ok(loaded) => {
            let entries: Vec<_> = loaded.entries.iter().collect();
            let context = pi_session::session::build_session_context(&entries);
            ChildLog {
                transcript: Transcript::from_messages(&context.messages),
                note: None,
            }
        }
        Err(error) => ChildLog {
            transcript: Transcript::default(),
            note: Some(format!("cannot read {}: {error}", path.display())),
        },
    }
}

/// The details of a `subagent` call's item (live or final), when it has any.
pub fn details_of(item: &Item) -> Option<SubagentDetails> {
    let Item::Tool(call) = item else {
        return None;
    };
    if call.name != TOOL {
        return None;
    }
    SubagentDetails::from_value(call.output.as_ref()?.details())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pi_app::subagents::{ChildResult, ChildStatus};

    fn details(file: &Path) -> SubagentDetails {
        SubagentDetails {
            results: vec![ChildResult {
                id: "child-1".into(),
                agent: "scout".into(),
                status: ChildStatus::Completed,
                session_file: Some(file.display().to_string()),
                ..ChildResult::default()
            }],
            ..SubagentDetails::default()
        }
    }

    #[test]
    fn a_gone_session_file_is_said_and_a_seen_child_is_not_read_again() {
        let dir = tempfile::tempdir().unwrap();
        let gone = dir.path().join("gone.jsonl");
        let mut logs = ChildLogs::default();
        assert!(logs.load(&details(&gone)));
        let note = logs.get("child-1").and_then(|l| l.note.clone());
        assert_eq!(note, Some(format!("session file gone: {}", gone.display())));
        assert!(!logs.load(&details(&gone)), "loaded once");
    }

    #[test]
    fn a_running_child_is_left_to_its_events() {
        let dir = tempfile::tempdir().unwrap();
        let mut running = details(&dir.path().join("later.jsonl"));
        running.results[0].status = ChildStatus::Running;
        let mut logs = ChildLogs::default();
        assert!(!logs.load(&running));
        assert!(logs.get("child-1").is_none());
    }
}
