//! What a run records when it starts on a session: pi 1.6's `model_change` and
//! `thinking_level_change`.

use crate::sessions::{assistant, user};
use pi_session::session::{EntryKind, SessionManager};

fn kinds(s: &SessionManager) -> Vec<String> {
    s.entries()
        .iter()
        .map(|e| match &e.kind {
            EntryKind::ModelChange { provider, model_id } => {
                format!("model_change {provider}/{model_id}")
            }
            EntryKind::ThinkingLevelChange { thinking_level } => {
                format!("thinking_level_change {thinking_level}")
            }
            other => other.type_name().to_owned(),
        })
        .collect()
}

#[test]
fn a_new_session_records_the_model_then_the_thinking_level() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = SessionManager::create(dir.path(), dir.path());
    s.record_start_settings("mock", "m1", "off").unwrap();
    assert_eq!(
        kinds(&s),
        ["model_change mock/m1", "thinking_level_change off"]
    );
    // Starting again with the same settings records nothing more.
    s.record_start_settings("mock", "m1", "off").unwrap();
    assert_eq!(kinds(&s).len(), 2);
    // A different level is recorded; the model is not repeated.
    s.record_start_settings("mock", "m1", "high").unwrap();
    assert_eq!(kinds(&s)[2..], ["thinking_level_change high"]);
}

#[test]
fn an_older_session_without_a_thinking_entry_gets_one_even_when_off() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = SessionManager::create(dir.path(), dir.path());
    s.append_message(user("hi")).unwrap();
    s.append_message(assistant("hello")).unwrap();
    // The reply names the model, so only the thinking level is missing.
    s.record_start_settings("anthropic", "claude-sonnet-4-5", "off")
        .unwrap();
    assert_eq!(
        kinds(&s),
        ["message", "message", "thinking_level_change off"]
    );
}
