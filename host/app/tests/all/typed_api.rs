//! The typed application API driven the way a UI drives it, with no JSON anywhere: a prompt
//! whose events arrive as `AppEvent` values, a steering message queued while a tool runs and
//! delivered to the next request, an abort of a stalled stream, and a manual compaction that
//! reports its progress and the entry it appended.

use crate::session_support::{OkTool, RigBuilder, seed_history};
use pi_agent::{AgentEvent, QueueMode};
use pi_ai::{AuthStorage, Credential, ModelRegistry, StopReason};
use pi_app::agent_session::SessionEvent;
use pi_app::{App, AppEvent};
use pi_mock_llm::{Api, Turn};
use pi_session::prompt_templates::PromptTemplates;
use pi_session::session::EntryKind;
use pi_session::skills::SkillRegistry;
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc::UnboundedReceiver;

fn app_around(session: pi_app::agent_session::AgentSession) -> Arc<App> {
    let auth = AuthStorage::in_memory();
    auth.set("mock", &Credential::api_key("test-key")).unwrap();
    Arc::new(App::from_session(
        session,
        Arc::new(ModelRegistry::builtin()),
        Arc::new(auth),
        Vec::new(),
        SkillRegistry::default(),
        PromptTemplates::default(),
    ))
}

/// Receives events until one matches, failing after a few seconds.
async fn until(
    events: &mut UnboundedReceiver<AppEvent>,
    what: &str,
    matches: impl Fn(&AppEvent) -> bool,
) -> AppEvent {
    let wait = async {
        while let Some(event) = events.recv().await {
            if matches(&event) {
                return Some(event);
            }
        }
        None
    };
    match tokio::time::timeout(Duration::from_secs(10), wait).await {
        Ok(Some(event)) => event,
        _ => panic!("no {what} event"),
    }
}

fn is_tool_start(event: &AppEvent) -> bool {
    matches!(
        event,
        AppEvent::Agent(AgentEvent::ToolExecutionStart { .. })
    )
}

#[tokio::test]
async fn prompt_steer_and_events_without_json() {
    let rig = RigBuilder::new(Api::AnthropicMessages)
        .tool(OkTool::slow(Duration::from_millis(300)))
        .build();
    rig.mock
        .push(Turn::new().tool_call("c1", "echo", json!({})));
    rig.mock.push(Turn::text("done with both"));
    let app = app_around(rig.session.clone());
    let mut events = app.subscribe();
    let runner = Arc::clone(&app);
    let run = tokio::spawn(async move { runner.prompt("first".into(), Vec::new()).await });

    until(&mut events, "tool start", is_tool_start).await;
    app.steer("also this".into());
    let queued = until(&mut events, "queue update", |e| {
        matches!(e, AppEvent::Session(SessionEvent::QueueUpdate { .. }))
    })
    .await;
    let AppEvent::Session(SessionEvent::QueueUpdate {
        steering,
        follow_up,
    }) = queued
    else {
        unreachable!()
    };
    assert_eq!(
        (steering, follow_up),
        (vec!["also this".to_owned()], vec![])
    );
    // Delivered: the queue is reported empty again.
    until(&mut events, "queue drained", |e| {
        matches!(e, AppEvent::Session(SessionEvent::QueueUpdate { steering, .. }) if steering.is_empty())
    })
    .await;
    run.await.unwrap().unwrap();

    assert!(
        rig.request_text(1).contains("also this"),
        "{}",
        rig.request_text(1)
    );
    assert_eq!(app.last_assistant().unwrap().text(), "done with both");
    // Every appended entry was reported, typed.
    let appended: Vec<String> = std::iter::from_fn(|| events.try_recv().ok())
        .filter_map(|e| match e {
            AppEvent::Session(SessionEvent::EntryAppended { entry }) => {
                Some(entry.kind.type_name().to_owned())
            }
            _ => None,
        })
        .collect();
    assert!(appended.iter().all(|t| t == "message"), "{appended:?}");
    assert!(!appended.is_empty());
}

#[tokio::test]
async fn abort_then_compact_report_typed_results() {
    let rig = RigBuilder::new(Api::AnthropicMessages)
        .settings(json!({"compaction": {"keepRecentTokens": 1}}))
        .seed(seed_history)
        .build();
    rig.mock.push(
        Turn::text("a long answer that never ends")
            .chunk(1)
            .delay_between_events(Duration::from_secs(5)),
    );
    let app = app_around(rig.session.clone());
    let mut events = app.subscribe();
    let runner = Arc::clone(&app);
    let run = tokio::spawn(async move { runner.prompt("stall".into(), Vec::new()).await });
    until(&mut events, "assistant start", |e| {
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

    rig.mock.push(Turn::text("## Goal\nTYPED SUMMARY"));
    let result = app.compact(Some("keep the goal")).await.unwrap();
    assert!(
        result.summary.contains("TYPED SUMMARY"),
        "{}",
        result.summary
    );
    until(&mut events, "compaction start", |e| {
        matches!(e, AppEvent::Session(SessionEvent::CompactionStart { .. }))
    })
    .await;
    until(&mut events, "compaction end", |e| {
        matches!(
            e,
            AppEvent::Session(SessionEvent::CompactionEnd {
                result: Some(_),
                ..
            })
        )
    })
    .await;
    let appended = until(&mut events, "compaction entry", |e| {
        matches!(e, AppEvent::Session(SessionEvent::EntryAppended { entry }) if matches!(entry.kind, EntryKind::Compaction(_)))
    })
    .await;
    assert!(
        !appended.is_wire(false),
        "entry_appended stays off the JSON wire"
    );
    assert_eq!(app.state().session_id, app.session_stats().session_id);
}

#[tokio::test]
async fn update_settings_applies_the_change_and_announces_it() {
    let rig = RigBuilder::new(Api::AnthropicMessages).build();
    let app = app_around(rig.session.clone());
    let mut events = app.subscribe();
    assert_eq!(
        app.queue_modes(),
        (QueueMode::OneAtATime, QueueMode::OneAtATime)
    );
    app.update_settings(|s| {
        s.follow_up_mode = Some(QueueMode::All);
        s.compaction_mut().enabled = Some(false);
    })
    .unwrap();
    let changed = until(&mut events, "settings change", |e| {
        matches!(e, AppEvent::Session(SessionEvent::SettingsChanged { .. }))
    })
    .await;
    // Not on the JSON or RPC wire: pi prints nothing for it.
    assert!(!changed.is_wire(true) && !changed.is_wire(false));
    let AppEvent::Session(SessionEvent::SettingsChanged { settings }) = changed else {
        unreachable!()
    };
    assert!(!settings.compaction().enabled);
    assert_eq!(settings.follow_up_mode(), QueueMode::All);
    assert_eq!(&*settings, &app.settings());
    // The queue mode applies to the running agent at once.
    assert_eq!(app.queue_modes(), (QueueMode::OneAtATime, QueueMode::All));
}
