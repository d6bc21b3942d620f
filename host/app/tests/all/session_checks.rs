//! Which reply the compaction checks look at, over real HTTP: an aborted run skips the check
//! after it but its usage counts before the next prompt, a silent overflow compacts without a
//! re-run, a reply from another model is not measured, queued messages run after a threshold
//! compaction, and a branch with nothing to summarise is summarised without a request.

use crate::message_builders::{assistant_n, user_n};
use crate::session_support::*;
use pi_agent::{AgentEvent, BoxFuture};
use pi_app::{App, AppEvent, NavigateOptions, SessionEvent};
use pi_ext_api::{CompactionDecision, CompactionOverride, CompactionRequest, ExtensionFailure};
use pi_mock_llm::{Api, Turn};
use pi_session::session::EntryKind;
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};

const SUMMARY: &str = "## Goal\nMOCK SUMMARY";

/// W = 1000, R = 100: the threshold is T > 900.
fn small_window() -> RigBuilder {
    RigBuilder::new(Api::AnthropicMessages)
        .settings(json!({"compaction": {"reserveTokens": 100, "keepRecentTokens": 3}}))
        .model(|m| m.context_window = 1000)
        .seed(seed_history)
}

fn starts(trace: &[String], prefix: &str) -> usize {
    trace.iter().filter(|t| t.starts_with(prefix)).count()
}

/// Whether the reply being streamed already holds all of `text`.
fn streamed(rig: &Rig, text: &str) -> bool {
    rig.events().iter().any(|e| {
        matches!(e, AppEvent::Agent(AgentEvent::MessageUpdate { message, .. })
            if message.text() == text)
    })
}

/// Prompts `text` against a slow reply and aborts once the reply's text (one delta) has
/// arrived, before the stream ends.
async fn prompt_and_abort(rig: &Rig, text: String, reply_text: &str, usage_input: u64) {
    let reply = Turn::text(reply_text)
        .usage(usage_input, 5, 0, 0)
        .chunk(reply_text.len())
        .delay_between_events(Duration::from_millis(300));
    rig.mock.push(reply);
    let session = rig.app.clone();
    let run = tokio::spawn(async move { session.ask(text).await });
    let deadline = Instant::now() + Duration::from_secs(20);
    while !streamed(rig, reply_text) {
        assert!(Instant::now() < deadline, "the reply never streamed");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    rig.app.abort();
    run.await.unwrap().unwrap();
    let last = rig.app.messages().last().cloned().unwrap();
    assert_eq!(
        last.as_assistant().unwrap().stop_reason,
        pi_ai::StopReason::Aborted
    );
}

#[tokio::test]
async fn an_aborted_run_is_not_checked_for_the_threshold_after_it_ends() {
    let rig = small_window().build();
    // ≈ 1,000 tokens by estimate: over the threshold were the run's end checked.
    let long_prompt = "x".repeat(4_000);
    prompt_and_abort(&rig, long_prompt, "an answer the user stops", 10).await;
    let trace = rig.trace();
    assert_eq!(starts(&trace, "compaction_start"), 0, "{trace:?}");
    assert_eq!(rig.mock.requests().len(), 1);
    assert_eq!(trace.last().unwrap(), "agent_settled");
}

#[tokio::test]
async fn the_check_before_a_prompt_counts_the_usage_of_an_aborted_reply() {
    // Keeps the question and the stopped answer (2 + 6 tokens): one summary, no split turn.
    let rig = small_window()
        .settings(json!({"compaction": {"reserveTokens": 100, "keepRecentTokens": 8}}))
        .build();
    // The server counted 950 input tokens before the user stopped the reply; our estimate
    // of the conversation is far below the threshold.
    prompt_and_abort(&rig, "question".into(), "an answer the user stops", 950).await;
    let aborted = rig.app.messages().last().cloned().unwrap();
    assert_eq!(aborted.as_assistant().unwrap().usage.input, 950);
    assert_eq!(starts(&rig.trace(), "compaction_start"), 0);

    rig.mock.push(Turn::text(SUMMARY));
    rig.mock.push(Turn::text("answer"));
    rig.app.ask("next task").await.unwrap();
    let trace = rig.trace();
    let compaction = trace
        .iter()
        .position(|t| t == "compaction_start:threshold")
        .unwrap_or_else(|| panic!("no threshold compaction: {trace:?}"));
    let second_run = trace.iter().rposition(|t| t == "agent_start").unwrap();
    assert!(compaction < second_run, "{trace:?}");
    assert_eq!(rig.mock.requests().len(), 3, "{trace:?}");
    assert!(rig.request_text(1).contains("<conversation>"));
    assert!(!rig.request_text(1).contains("next task"));
    assert!(rig.request_text(2).contains("MOCK SUMMARY"));
}

#[tokio::test]
async fn a_silent_overflow_compacts_without_running_again() {
    let rig = small_window().build();
    // A server that accepted more input than the window holds and answered normally.
    rig.mock.push(Turn::text("fine").usage(1_200, 5, 0, 0));
    rig.mock.push(Turn::text(SUMMARY));
    rig.app.ask("question").await.unwrap();
    let trace = rig.trace();
    assert_eq!(rig.mock.requests().len(), 2, "{trace:?}");
    assert_eq!(starts(&trace, "compaction_start:overflow"), 1, "{trace:?}");
    assert_eq!(starts(&trace, "agent_start"), 1, "no second run: {trace:?}");
    let end = rig.session_events().into_iter().find_map(|e| match e {
        SessionEvent::CompactionEnd {
            will_retry, result, ..
        } => Some((will_retry, result.is_some())),
        _ => None,
    });
    assert_eq!(end, Some((false, true)));
    // The answer stands: it is kept after the summary.
    assert_eq!(rig.roles()[0], "compactionSummary");
    let last = rig.app.messages().last().cloned().unwrap();
    assert_eq!(last.as_assistant().unwrap().text(), "fine");
}

#[tokio::test]
async fn a_reply_from_another_model_is_not_measured_before_a_prompt() {
    let rig = small_window()
        .seed(|s| {
            seed_history(s);
            s.append_message(user_n(10)).unwrap();
            // Far over the threshold, but counted by another model's tokenizer and window.
            let mut other = assistant_n(10, 5_000, 6);
            if let Some(a) = other.as_assistant_mut() {
                a.model = "other-model".into();
            }
            s.append_message(other).unwrap();
        })
        .build();
    rig.mock.push(Turn::text("answer").usage(20, 5, 0, 0));
    rig.app.ask("question").await.unwrap();
    let trace = rig.trace();
    assert_eq!(starts(&trace, "compaction_start"), 0, "{trace:?}");
    assert_eq!(rig.mock.requests().len(), 1);
}

/// A compactor that queues a follow-up while the compaction runs, then lets pi summarise.
struct QueueWhileCompacting(std::sync::Weak<App>);

impl CompactionOverride for QueueWhileCompacting {
    fn decide<'a>(
        &'a self,
        _request: &'a CompactionRequest<'a>,
        _cancel: tokio_util::sync::CancellationToken,
    ) -> BoxFuture<'a, Result<CompactionDecision, ExtensionFailure>> {
        if let Some(app) = self.0.upgrade() {
            app.follow_up("queued while compacting".into());
        }
        Box::pin(async { Ok(CompactionDecision::UseDefault) })
    }
}

#[tokio::test]
async fn queued_messages_run_after_a_threshold_compaction() {
    let rig = small_window().build();
    rig.app
        .add_compactor(Arc::new(QueueWhileCompacting(Arc::downgrade(&rig.app))));
    rig.mock.push(Turn::text("answer").usage(950, 10, 0, 0));
    rig.mock.push(Turn::text(SUMMARY));
    rig.mock.push(Turn::text("queued answer"));
    rig.app.ask("question").await.unwrap();
    let trace = rig.trace();
    assert_eq!(rig.mock.requests().len(), 3, "{trace:?}");
    let compaction = trace
        .iter()
        .position(|t| t == "compaction_start:threshold")
        .unwrap();
    let second_run = trace.iter().rposition(|t| t == "agent_start").unwrap();
    assert!(compaction < second_run, "{trace:?}");
    let queued = rig.request_text(2);
    assert!(queued.contains("queued while compacting"), "{queued}");
    assert!(queued.contains("MOCK SUMMARY"), "{queued}");
    let last = rig.app.messages().last().cloned().unwrap();
    assert_eq!(last.as_assistant().unwrap().text(), "queued answer");
}

#[tokio::test]
async fn a_branch_with_nothing_to_summarise_gets_a_summary_without_a_request() {
    let rig = RigBuilder::new(Api::AnthropicMessages)
        .seed(|s| {
            seed_history(s);
            // The branch left holds settings only: no message to summarise.
            s.append_thinking_level_change("high").unwrap();
            s.append_model_change("mock", "mock-model").unwrap();
        })
        .build();
    let ids: Vec<String> = rig
        .app
        .with_session(|s| s.entries().iter().map(|e| e.id.clone()).collect());
    let options = NavigateOptions {
        summarize: true,
        ..NavigateOptions::default()
    };
    let result = rig.app.navigate_tree(&ids[3], options).await.unwrap();
    assert!(result.summary_entry_id.is_some());
    assert!(rig.mock.requests().is_empty());
    let summary = rig.app.with_session(|s| {
        s.entries().iter().find_map(|e| match &e.kind {
            EntryKind::BranchSummary(b) => Some(b.summary.clone()),
            _ => None,
        })
    });
    assert_eq!(summary.as_deref(), Some("No content to summarize"));
}
