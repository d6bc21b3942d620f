//! The typed API test: one session driven through `App` the way a UI drives it, with no JSON
//! anywhere (no `serde_json` in this file): a prompt whose tool call runs while a steering
//! message is queued and then delivered, an abort of a stalled stream, and a manual compaction.
//! Every step asserts the typed `AppEvent`s in order; among them the steer's `queue_update`
//! (published by the agent's queue, not matched by text) comes right before its
//! `message_start`.

use crate::session_support::{OkTool, RigBuilder, echo_call, seed_history};
use pi_agent::{AgentEvent, AgentMessage, QueueMode};
use pi_ai::StopReason;
use pi_app::{App, AppEvent, SessionEvent};
use pi_mock_llm::{Api, Turn};
use pi_session::compaction::CompactionReason;
use pi_session::session::EntryKind;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc::UnboundedReceiver;

/// The events an `App` reported, kept in order as they are read.
struct Seen {
    rx: UnboundedReceiver<AppEvent>,
    events: Vec<AppEvent>,
}

impl Seen {
    fn new(app: &App) -> Self {
        Seen {
            rx: app.subscribe(),
            events: Vec::new(),
        }
    }

    /// Reads until an event matches, failing after a few seconds.
    async fn until(&mut self, what: &str, matches: impl Fn(&AppEvent) -> bool) {
        let wait = async {
            while let Some(event) = self.rx.recv().await {
                let found = matches(&event);
                self.events.push(event);
                if found {
                    return true;
                }
            }
            false
        };
        let found = tokio::time::timeout(Duration::from_secs(10), wait).await;
        assert!(matches!(found, Ok(true)), "no {what} event");
    }

    /// Everything reported so far (a finished command has sent all of its events).
    fn drain(&mut self) -> Vec<AppEvent> {
        while let Ok(event) = self.rx.try_recv() {
            self.events.push(event);
        }
        std::mem::take(&mut self.events)
    }
}

fn text_of(message: &AgentMessage) -> String {
    match message.as_llm() {
        Some(pi_ai::Message::User(user)) => user.content.text(),
        Some(pi_ai::Message::Assistant(assistant)) => assistant.text(),
        _ => String::new(),
    }
}

/// A short typed label per event: the kind, with the role and text of messages and the
/// contents of queue updates (`message_update` and entry reports left out).
fn label(event: &AppEvent) -> Option<String> {
    let label = match event {
        AppEvent::Agent(AgentEvent::MessageUpdate { .. })
        | AppEvent::Session(SessionEvent::EntryAppended { .. }) => return None,
        AppEvent::Agent(AgentEvent::MessageStart { message }) => {
            format!("message_start:{}:{}", message.role(), text_of(message))
        }
        AppEvent::Agent(AgentEvent::MessageEnd { message }) => {
            format!("message_end:{}", message.role())
        }
        AppEvent::Session(SessionEvent::QueueUpdate {
            steering,
            follow_up,
        }) => format!("queue_update:{steering:?}:{follow_up:?}"),
        AppEvent::Session(SessionEvent::AgentEnd { will_retry, .. }) => {
            format!("agent_end:{will_retry}")
        }
        AppEvent::Session(SessionEvent::CompactionEnd {
            result, aborted, ..
        }) => format!("compaction_end:{}:{aborted}", result.is_some()),
        other => other.kind().to_owned(),
    };
    Some(label)
}

fn labels(events: &[AppEvent]) -> Vec<String> {
    events.iter().filter_map(label).collect()
}

#[tokio::test]
async fn prompt_steer_abort_compact_through_the_typed_api() {
    let rig = RigBuilder::new(Api::AnthropicMessages)
        .keep_recent_tokens(1)
        .seed(seed_history)
        .tool(OkTool::slow(Duration::from_millis(300)))
        .build();
    let app = Arc::clone(&rig.app);
    let mut seen = Seen::new(&app);

    // Prompt → events → steer: queued while the tool runs, delivered before the next request.
    rig.mock.push(echo_call("c1"));
    rig.mock.push(Turn::text("done with both"));
    let runner = Arc::clone(&app);
    let run = tokio::spawn(async move { runner.prompt("first".into(), Vec::new()).await });
    seen.until("tool start", |e| {
        matches!(e, AppEvent::Agent(AgentEvent::ToolExecutionStart { .. }))
    })
    .await;
    app.steer("also this".into());
    assert_eq!(
        app.queued_messages(),
        (vec!["also this".to_owned()], Vec::new())
    );
    run.await.unwrap().unwrap();
    assert_eq!(
        labels(&seen.drain()),
        [
            "agent_start",
            "turn_start",
            "message_start:user:first",
            "message_end:user",
            "message_start:assistant:",
            "message_end:assistant",
            "tool_execution_start",
            r#"queue_update:["also this"]:[]"#,
            "tool_execution_end",
            "message_start:toolResult:",
            "message_end:toolResult",
            "turn_end",
            "turn_start",
            // Published by the agent's queue as it delivers the message, before it starts.
            "queue_update:[]:[]",
            "message_start:user:also this",
            "message_end:user",
            "message_start:assistant:",
            "message_end:assistant",
            "turn_end",
            "agent_end:false",
            "agent_settled",
        ]
    );
    let texts: Vec<String> = app.messages().iter().map(text_of).collect();
    assert_eq!(
        texts[texts.len() - 3..],
        ["", "also this", "done with both"]
    );
    assert_eq!(app.queued_messages(), (Vec::new(), Vec::new()));
    assert_eq!(app.last_assistant().unwrap().text(), "done with both");

    // Abort: a stream that stalls after its first piece ends as an aborted answer.
    rig.mock.push(
        Turn::text("a long answer that never ends")
            .chunk(1)
            .delay_between_events(Duration::from_secs(5)),
    );
    let runner = Arc::clone(&app);
    let run = tokio::spawn(async move { runner.prompt("stall".into(), Vec::new()).await });
    seen.until("assistant start", |e| {
        matches!(e, AppEvent::Agent(AgentEvent::MessageStart { message }) if message.role() == "assistant")
    })
    .await;
    app.abort();
    run.await.unwrap().unwrap();
    assert_eq!(
        app.last_assistant().unwrap().stop_reason,
        StopReason::Aborted
    );
    assert!(!app.is_streaming());
    let aborted = labels(&seen.drain());
    assert_eq!(
        aborted[aborted.len() - 4..],
        [
            "message_end:assistant",
            "turn_end",
            "agent_end:false",
            "agent_settled"
        ]
    );

    // Compact: progress events, the typed result, and the entry it appended.
    rig.mock.push(Turn::text("## Goal\nTYPED SUMMARY"));
    let result = app.compact(Some("keep the goal")).await.unwrap();
    assert!(
        result.summary.contains("TYPED SUMMARY"),
        "{}",
        result.summary
    );
    let events = seen.drain();
    assert_eq!(
        labels(&events),
        ["compaction_start", "compaction_end:true:false"]
    );
    assert!(matches!(
        &events[0],
        AppEvent::Session(SessionEvent::CompactionStart {
            reason: CompactionReason::Manual
        })
    ));
    let appended: Vec<&AppEvent> = events
        .iter()
        .filter(|e| matches!(e, AppEvent::Session(SessionEvent::EntryAppended { .. })))
        .collect();
    assert!(
        matches!(appended[..], [AppEvent::Session(SessionEvent::EntryAppended { entry })] if matches!(entry.kind, EntryKind::Compaction(_))),
        "{appended:?}"
    );
    assert!(
        !appended[0].is_wire(false),
        "entry_appended stays off the JSON wire"
    );
    assert_eq!(app.state().session_id, app.session_stats().session_id);
}

#[tokio::test]
async fn clearing_the_queue_returns_the_texts_and_reports_it() {
    let rig = RigBuilder::new(Api::AnthropicMessages).build();
    let app = Arc::clone(&rig.app);
    let mut seen = Seen::new(&app);
    app.steer("s1".into());
    app.follow_up("f1".into());
    assert_eq!(
        app.clear_queue(),
        (vec!["s1".to_owned()], vec!["f1".to_owned()])
    );
    assert_eq!(
        labels(&seen.drain()),
        [
            r#"queue_update:["s1"]:[]"#,
            r#"queue_update:["s1"]:["f1"]"#,
            "queue_update:[]:[]",
        ]
    );
    assert!(rig.mock.requests().is_empty());
}

#[tokio::test]
async fn update_settings_applies_the_change_and_announces_it() {
    let rig = RigBuilder::new(Api::AnthropicMessages).build();
    let app = Arc::clone(&rig.app);
    let mut seen = Seen::new(&app);
    assert_eq!(
        app.queue_modes(),
        (QueueMode::OneAtATime, QueueMode::OneAtATime)
    );
    app.update_settings(|s| {
        s.follow_up_mode = Some(QueueMode::All);
        s.compaction_mut().enabled = Some(false);
    })
    .unwrap();
    seen.until("settings change", |e| {
        matches!(e, AppEvent::Session(SessionEvent::SettingsChanged { .. }))
    })
    .await;
    let Some(AppEvent::Session(SessionEvent::SettingsChanged { settings })) = seen.drain().pop()
    else {
        panic!("the settings change is the last event");
    };
    let changed = AppEvent::Session(SessionEvent::SettingsChanged {
        settings: settings.clone(),
    });
    // Not on the JSON or RPC wire: pi prints nothing for it.
    assert!(!changed.is_wire(true) && !changed.is_wire(false));
    assert!(!settings.compaction().enabled);
    assert_eq!(settings.follow_up_mode(), QueueMode::All);
    assert_eq!(&*settings, &app.settings());
    // The queue mode applies to the running agent at once.
    assert_eq!(app.queue_modes(), (QueueMode::OneAtATime, QueueMode::All));
}
