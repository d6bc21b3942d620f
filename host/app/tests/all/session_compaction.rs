//! Compaction through the session over real HTTP: overflow recovery in each provider's
//! wording, no loop on a second overflow, length truncation, the threshold edge, next-turn and
//! pre-prompt checks, summary requests, failures, compactors, fixtures, branch summaries.

use crate::session_support::*;
use pi_app::{NavigateOptions, SessionEvent};
use pi_ext_api::{CompactionDecision, CompactionOverride, CompactionRequest, ExtensionFailure};
use pi_mock_llm::{Api, Reply, Turn};
use pi_session::session::{EntryKind, SessionManager};
use serde_json::{Value, json};
use std::sync::Arc;

const SUMMARY: &str = "## Goal\nMOCK SUMMARY";

fn small_keep() -> Value {
    json!({"compaction": {"keepRecentTokens": 1}})
}

/// Keeps the last seeded exchange's user message onward (40 + 40 tokens ≥ 50): no split turn.
fn keep_last_exchange() -> Value {
    json!({"compaction": {"keepRecentTokens": 50}})
}

fn compaction_ends(rig: &Rig) -> Vec<(bool, bool, Option<String>)> {
    rig.session_events()
        .into_iter()
        .filter_map(|e| match e {
            SessionEvent::CompactionEnd {
                aborted,
                will_retry,
                error_message,
                ..
            } => Some((aborted, will_retry, error_message)),
            _ => None,
        })
        .collect()
}

fn count(trace: &[String], item: &str) -> usize {
    trace.iter().filter(|t| *t == item).count()
}

#[tokio::test]
async fn overflow_in_each_provider_wording_compacts_once_and_retries() {
    for api in Api::ALL {
        let rig = RigBuilder::new(api)
            .settings(small_keep())
            .seed(seed_history)
            .build();
        rig.mock.push(Reply::context_overflow(api));
        rig.mock.push(Turn::text(SUMMARY));
        rig.mock.push(Turn::text("recovered"));
        rig.app.ask("second question").await.unwrap();
        let trace = rig.trace();
        if api == Api::AnthropicMessages {
            eprintln!("overflow recovery trace ({api}):\n  {}", trace.join("\n  "));
        }
        assert_eq!(rig.mock.requests().len(), 3, "{api}: {trace:?}");
        assert_eq!(count(&trace, "compaction_start:overflow"), 1, "{api}");
        assert_eq!(compaction_ends(&rig), vec![(false, true, None)], "{api}");
        // The summary request: summarizer prompt, one user message, no tools.
        let summary_request = rig.request_text(1);
        assert!(
            summary_request.contains("You are a context summarization assistant"),
            "{api}"
        );
        assert!(summary_request.contains("<conversation>"), "{api}");
        assert!(rig.mock.requests()[1].body.get("tools").is_none(), "{api}");
        // The retried request carries the summary and the kept prompt, not the failure.
        let retried = rig.request_text(2);
        assert!(retried.contains("MOCK SUMMARY"), "{api}");
        assert!(retried.contains("second question"), "{api}");
        // The recorded system prompt right before the kept prompt is kept with it.
        assert_eq!(
            rig.roles(),
            strs(&["compactionSummary", "system", "user", "assistant"]),
            "{api}"
        );
        assert_eq!(
            rig.file_entries(),
            strs(&[
                "message:user",
                "message:assistant",
                "message:user",
                "message:assistant",
                // The seeded history had no recorded prompt: the first request records it.
                "message:system",
                "message:user",
                "message:assistant",
                "compaction",
                "message:assistant",
            ]),
            "{api}: the failed reply stays in the file"
        );
        assert_eq!(trace.last().unwrap(), "agent_settled");
    }
}

/// A local server with a smaller window than models.json says: its count, not our estimate.
fn overflow_with_counts() -> Reply {
    Reply::json(
        400,
        &json!({"error": {"message": "This model's maximum context length is 128000 tokens. \
            However, your messages resulted in 213462 tokens. Please reduce the length of the \
            messages.", "type": "invalid_request_error", "code": "context_length_exceeded"}}),
    )
}

#[tokio::test]
async fn an_overflow_on_a_session_our_estimate_calls_small_still_compacts_and_completes() {
    // The default keepRecentTokens (20000) keeps the whole small session by our estimate.
    let rig = RigBuilder::new(Api::OpenAiCompletions)
        .seed(seed_history)
        .build();
    rig.mock.push(overflow_with_counts());
    rig.mock.push(Turn::text(SUMMARY));
    rig.mock.push(Turn::text("recovered"));
    rig.app.ask("second question").await.unwrap();
    let trace = rig.trace();
    assert_eq!(rig.mock.requests().len(), 3, "{trace:?}");
    assert_eq!(count(&trace, "compaction_start:overflow"), 1);
    assert_eq!(compaction_ends(&rig), vec![(false, true, None)]);
    let retried = rig.request_text(2);
    assert!(retried.contains("MOCK SUMMARY"), "{retried}");
    assert!(retried.contains("second question"), "{retried}");
    let last = rig.app.messages().last().unwrap().clone();
    assert_eq!(last.as_assistant().unwrap().text(), "recovered");

    // Still one compaction and one retry per prompt: a second overflow ends it clearly.
    rig.mock.push(overflow_with_counts());
    rig.mock.push(Turn::text(SUMMARY));
    rig.mock.push(overflow_with_counts());
    rig.mock.push(Turn::text("must not be requested"));
    rig.app.ask("third question").await.unwrap();
    assert_eq!(rig.mock.requests().len(), 6);
    assert_eq!(rig.mock.pending(), 1);
    let ends = compaction_ends(&rig);
    let error = ends.last().unwrap().2.clone().unwrap();
    assert!(
        error.contains("after one compact-and-retry attempt"),
        "{error}"
    );
}

#[tokio::test]
async fn a_length_stop_with_no_output_on_a_small_session_recovers_once() {
    let rig = RigBuilder::new(Api::OpenAiCompletions)
        .seed(seed_history)
        .build();
    rig.mock.push(Turn::text("").length().usage(100, 0, 0, 0));
    rig.mock.push(Turn::text(SUMMARY));
    rig.mock.push(Turn::text("complete answer"));
    rig.app.ask("write it").await.unwrap();
    assert_eq!(rig.mock.requests().len(), 3, "{:?}", rig.trace());
    assert_eq!(compaction_ends(&rig), vec![(false, true, None)]);
    let last = rig.app.messages().last().unwrap().clone();
    assert_eq!(last.as_assistant().unwrap().text(), "complete answer");
}

#[tokio::test]
async fn a_second_overflow_fails_clearly_without_looping() {
    let rig = RigBuilder::new(Api::AnthropicMessages)
        .settings(small_keep())
        .seed(seed_history)
        .build();
    rig.mock
        .push(Reply::context_overflow(Api::AnthropicMessages));
    rig.mock.push(Turn::text(SUMMARY));
    rig.mock
        .push(Reply::context_overflow(Api::AnthropicMessages));
    rig.mock.push(Turn::text("must not be requested"));
    rig.app.ask("second question").await.unwrap();
    assert_eq!(rig.mock.requests().len(), 3);
    assert_eq!(rig.mock.pending(), 1);
    let ends = compaction_ends(&rig);
    assert_eq!(ends.len(), 2);
    assert_eq!(ends[0], (false, true, None));
    let error = ends[1].2.clone().unwrap();
    assert!(
        error.contains("after one compact-and-retry attempt"),
        "{error}"
    );
    assert_eq!(count(&rig.trace(), "compaction_start:overflow"), 1);
}

#[tokio::test]
async fn recoverable_length_truncation_compacts_and_continues() {
    let rig = RigBuilder::new(Api::OpenAiCompletions)
        .settings(json!({"compaction": {"keepRecentTokens": 3}}))
        .seed(seed_history)
        .build();
    rig.mock
        .push(Turn::text("cut sho").length().usage(100, 50, 0, 0));
    rig.mock.push(Turn::text(SUMMARY));
    rig.mock.push(Turn::text("complete answer"));
    rig.app.ask("write it").await.unwrap();
    assert_eq!(rig.mock.requests().len(), 3);
    assert_eq!(count(&rig.trace(), "compaction_start:overflow"), 1);
    let last = rig.app.messages().last().unwrap().clone();
    assert_eq!(last.as_assistant().unwrap().text(), "complete answer");
}

#[tokio::test]
async fn length_stop_at_the_models_output_limit_is_not_recovered() {
    let rig = RigBuilder::new(Api::OpenAiCompletions)
        .settings(small_keep())
        .model(|m| m.max_tokens = 50)
        .seed(seed_history)
        .build();
    rig.mock
        .push(Turn::text("long").length().usage(100, 50, 0, 0));
    rig.app.ask("write it").await.unwrap();
    assert_eq!(rig.mock.requests().len(), 1);
    assert_eq!(count(&rig.trace(), "compaction_start:overflow"), 0);
}

/// W = 1000, R = 100: T = 900 does not trigger, 901 does.
#[tokio::test]
async fn threshold_after_a_run_is_strict() {
    for (input, expect) in [(850u64, false), (851, true)] {
        let rig = RigBuilder::new(Api::AnthropicMessages)
            .settings(json!({"compaction": {"reserveTokens": 100, "keepRecentTokens": 3}}))
            .model(|m| m.context_window = 1000)
            .seed(seed_history)
            .build();
        rig.mock.push(Turn::text("answer").usage(input, 50, 0, 0));
        rig.mock.push(Turn::text(SUMMARY));
        rig.app.ask("question").await.unwrap();
        let compacted = count(&rig.trace(), "compaction_start:threshold") == 1;
        assert_eq!(compacted, expect, "T = {}", input + 50);
        assert_eq!(rig.mock.requests().len(), if expect { 2 } else { 1 });
        if expect {
            assert_eq!(rig.roles()[0], "compactionSummary");
            // The threshold summary's cap: min(floor(0.8 · 100), 32000) = 80.
            assert_eq!(rig.mock.requests()[1].body["max_tokens"], json!(80));
        }
    }
}

#[tokio::test]
async fn threshold_before_the_next_turn_compacts_a_split_turn() {
    let rig = RigBuilder::new(Api::AnthropicMessages)
        .settings(json!({"compaction": {"reserveTokens": 100, "keepRecentTokens": 3}}))
        .model(|m| m.context_window = 1000)
        .tool(OkTool::arc())
        .seed(seed_history)
        .build();
    rig.mock.push(
        Turn::new()
            .tool_call("c1", "echo", json!({}))
            .usage(950, 10, 0, 0),
    );
    rig.mock.push(Turn::text("## Goal\nHISTORY SUMMARY"));
    rig.mock
        .push(Turn::text("## Original Request\nPREFIX SUMMARY"));
    rig.mock.push(Turn::text("done"));
    rig.app.ask("use the tool").await.unwrap();
    let trace = rig.trace();
    assert_eq!(rig.mock.requests().len(), 4, "{trace:?}");
    let at = trace
        .iter()
        .position(|t| t == "compaction_start:threshold")
        .unwrap();
    assert_eq!(trace[at - 1], "turn_end");
    assert_eq!(trace[at + 2], "turn_start");
    // Two summaries: history, then the cut-off first part of the turn (0.5 · R cap).
    assert!(rig.request_text(1).contains("<conversation>"));
    let prefix = rig.request_text(2);
    assert!(prefix.contains("first part of a turn"));
    assert!(prefix.contains("use the tool"));
    assert_eq!(rig.mock.requests()[2].body["max_tokens"], json!(50));
    let next = rig.request_text(3);
    assert!(next.contains("HISTORY SUMMARY"));
    assert!(next.contains("**Turn Context (split turn):**"));
    assert!(next.contains("PREFIX SUMMARY"));
    // The kept part starts at the tool call, so its result still has its call.
    assert_eq!(
        rig.roles(),
        strs(&["compactionSummary", "assistant", "toolResult", "assistant"])
    );
}

#[tokio::test]
async fn pre_prompt_check_compacts_the_existing_context_first() {
    let rig = RigBuilder::new(Api::AnthropicMessages)
        .settings(json!({"compaction": {"reserveTokens": 100, "keepRecentTokens": 15}}))
        .model(|m| m.context_window = 1000)
        .seed(|s| {
            use crate::message_builders::{assistant_n, user_n};
            seed_history(s);
            s.append_message(user_n(10)).unwrap();
            s.append_message(assistant_n(10, 950, 6)).unwrap();
        })
        .build();
    rig.mock.push(Turn::text(SUMMARY));
    rig.mock.push(Turn::text("answer"));
    rig.app.ask("new task").await.unwrap();
    let trace = rig.trace();
    assert_eq!(trace[0], "compaction_start:threshold");
    assert_eq!(trace[2], "agent_start");
    assert!(!rig.request_text(0).contains("new task"));
    assert!(rig.request_text(1).contains("MOCK SUMMARY"));
}

#[tokio::test]
async fn manual_compaction_with_focus_then_an_update_of_the_summary() {
    let rig = RigBuilder::new(Api::AnthropicMessages)
        .settings(json!({"compaction": {"reserveTokens": 1000, "keepRecentTokens": 50}}))
        .seed(seed_history)
        .build();
    rig.mock.push(Turn::text("## Goal\nFIRST"));
    let result = rig.app.compact(Some("the parser")).await.unwrap();
    assert!(result.summary.starts_with("## Goal\nFIRST"));
    let request = &rig.mock.requests()[0];
    assert_eq!(request.body["max_tokens"], json!(800));
    assert!(request.body.get("tools").is_none());
    assert_eq!(request.body["messages"].as_array().unwrap().len(), 1);
    let text = request.body.to_string();
    assert!(text.contains("[User]: abcd"));
    assert!(text.contains("[Assistant]: abcd"));
    assert!(text.contains("Additional focus: the parser"));
    assert!(!text.contains("<previous-summary>"));

    rig.mock.push(Turn::text("more work done"));
    // Long enough (≈ 63 tokens) to be the new kept part on its own.
    rig.app
        .ask(format!("continue {}", "x".repeat(240)))
        .await
        .unwrap();
    rig.mock.push(Turn::text("## Goal\nSECOND"));
    rig.app.compact(None).await.unwrap();
    let update = rig.request_text(2);
    assert!(
        update.contains("<previous-summary>\\n## Goal\\nFIRST"),
        "{update}"
    );
    // What was kept last time is summarised now; the new prompt is kept.
    assert!(update.contains("[User]: abcd"));
    assert!(!update.contains("[User]: continue"));
    let compactions = rig
        .file_entries()
        .iter()
        .filter(|e| *e == "compaction")
        .count();
    assert_eq!(compactions, 2);
    assert_eq!(rig.roles()[0], "compactionSummary");
    // Compacting twice in a row has nothing to do.
    let again = rig.app.compact(None).await.unwrap_err().to_string();
    assert_eq!(again, "Already compacted");
}

#[tokio::test]
async fn failed_truncated_or_tool_call_summaries_save_nothing() {
    let replies = [
        Reply::json(
            400,
            &json!({"type": "error", "error": {"type": "invalid_request_error", "message": "bad request"}}),
        ),
        Reply::from(Turn::text("## Goal\nhalf").length()),
        Reply::from(Turn::new().tool_call("t", "read", json!({"path": "x"}))),
    ];
    for reply in replies {
        let rig = RigBuilder::new(Api::AnthropicMessages)
            .settings(keep_last_exchange())
            .seed(seed_history)
            .build();
        let before = rig.app.messages();
        rig.mock.push(reply);
        let error = rig.app.compact(None).await.unwrap_err().to_string();
        assert!(!error.is_empty());
        assert!(!rig.file_entries().contains(&"compaction".to_owned()));
        assert_eq!(rig.app.messages(), before);
        let ends = compaction_ends(&rig);
        assert_eq!(ends.len(), 1);
        assert_eq!(ends[0].2.as_deref(), Some(error.as_str()));
    }
}

#[tokio::test]
async fn transient_summary_errors_use_the_retry_policy() {
    let rig = RigBuilder::new(Api::AnthropicMessages)
        .settings(keep_last_exchange())
        .seed(seed_history)
        .build();
    rig.mock
        .push(Reply::server_error(Api::AnthropicMessages, 529));
    rig.mock.push(Turn::text(SUMMARY));
    rig.app.compact(None).await.unwrap();
    assert_eq!(rig.sleeps_ms(), vec![2000]);
    // Scheduled before the wait, the attempt after it, finished once the request is done.
    let wire: Vec<Value> = rig
        .session_events()
        .iter()
        .filter(|e| {
            e.kind().starts_with("summarization_retry") || e.kind().starts_with("compaction")
        })
        .map(|e| serde_json::to_value(e).unwrap())
        .collect();
    let kinds: Vec<&str> = wire.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "compaction_start",
            "summarization_retry_scheduled",
            "summarization_retry_attempt_start",
            "summarization_retry_finished",
            "compaction_end"
        ]
    );
    assert_eq!(wire[1]["attempt"], 1);
    assert_eq!(wire[1]["maxAttempts"], 3);
    assert_eq!(wire[1]["delayMs"], 2000);
    assert_eq!(
        wire[2],
        json!({"type": "summarization_retry_attempt_start", "source": "compaction", "reason": "manual"})
    );
    assert_eq!(wire[3], json!({"type": "summarization_retry_finished"}));

    // A request answered at once reports nothing; one that stays failing still finishes.
    let rig = RigBuilder::new(Api::AnthropicMessages)
        .settings(json!({"compaction": {"keepRecentTokens": 50}, "retry": {"maxRetries": 1}}))
        .seed(seed_history)
        .build();
    rig.mock.push(Turn::text(SUMMARY));
    rig.app.compact(None).await.unwrap();
    assert!(!rig.trace().iter().any(|t| t.starts_with("summarization")));
    rig.mock.push(Turn::text("more"));
    rig.app
        .ask(format!("again {}", "y".repeat(240)))
        .await
        .unwrap();
    rig.mock
        .push(Reply::server_error(Api::AnthropicMessages, 529));
    rig.mock
        .push(Reply::server_error(Api::AnthropicMessages, 529));
    assert!(rig.app.compact(None).await.is_err());
    let summarization: Vec<String> = rig
        .trace()
        .into_iter()
        .filter(|t| t.starts_with("summarization"))
        .collect();
    assert_eq!(
        summarization,
        strs(&[
            "summarization_retry_scheduled",
            "summarization_retry_attempt_start",
            "summarization_retry_finished"
        ])
    );
}

#[tokio::test]
async fn a_retried_branch_summary_reports_its_source() {
    let rig = RigBuilder::new(Api::AnthropicMessages)
        .seed(seed_history)
        .build();
    let ids: Vec<String> = rig
        .app
        .with_session(|s| s.entries().iter().map(|e| e.id.clone()).collect());
    rig.mock
        .push(Reply::server_error(Api::AnthropicMessages, 529));
    rig.mock.push(Turn::text("## Goal\nBRANCH WORK"));
    let options = NavigateOptions {
        summarize: true,
        ..NavigateOptions::default()
    };
    rig.app.navigate_tree(&ids[1], options).await.unwrap();
    let start = rig.session_events().into_iter().find_map(|e| match e {
        SessionEvent::SummarizationRetryAttemptStart { .. } => {
            Some(serde_json::to_value(&e).unwrap())
        }
        _ => None,
    });
    assert_eq!(
        start,
        Some(json!({"type": "summarization_retry_attempt_start", "source": "branchSummary"}))
    );
    assert_eq!(
        rig.trace()
            .iter()
            .filter(|t| *t == "summarization_retry_finished")
            .count(),
        1
    );
}

struct Fixed(CompactionDecision);

impl CompactionOverride for Fixed {
    fn decide<'a>(
        &'a self,
        request: &'a CompactionRequest<'a>,
        _cancel: tokio_util::sync::CancellationToken,
    ) -> pi_agent::BoxFuture<'a, Result<CompactionDecision, ExtensionFailure>> {
        assert!(!request.preparation.messages_to_summarize.is_empty());
        let decision = self.0.clone();
        Box::pin(async move { Ok(decision) })
    }
}

#[tokio::test]
async fn compactors_can_cancel_or_supply_the_summary() {
    let rig = RigBuilder::new(Api::AnthropicMessages)
        .settings(small_keep())
        .seed(seed_history)
        .build();
    rig.app
        .add_compactor(Arc::new(Fixed(CompactionDecision::UseDefault)));
    rig.app
        .add_compactor(Arc::new(Fixed(CompactionDecision::Cancel(
            "not now".into(),
        ))));
    let error = rig.app.compact(None).await.unwrap_err().to_string();
    assert_eq!(error, "not now");
    assert!(compaction_ends(&rig)[0].0, "aborted");
    assert!(rig.mock.requests().is_empty());

    let rig = RigBuilder::new(Api::AnthropicMessages)
        .settings(small_keep())
        .seed(seed_history)
        .build();
    rig.app
        .add_compactor(Arc::new(Fixed(CompactionDecision::Custom {
            summary: "CUSTOM".into(),
            details: None,
        })));
    let result = rig.app.compact(None).await.unwrap();
    assert_eq!(result.summary, "CUSTOM");
    assert!(rig.mock.requests().is_empty());
    let from_hook = rig.app.with_session(|s| {
        s.entries().iter().find_map(|e| match &e.kind {
            EntryKind::Compaction(c) => c.from_hook,
            _ => None,
        })
    });
    assert_eq!(from_hook, Some(true));
}

fn fixture_rig(name: &str) -> Rig {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::copy(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/pi")
            .join(name),
        &path,
    )
    .unwrap();
    let mut perms = std::fs::metadata(&path).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    std::fs::set_permissions(&path, perms).unwrap();
    let session = SessionManager::open(&path, dir.path()).unwrap();
    let mock = pi_mock_llm::MockLlm::start();
    RigBuilder::new(Api::AnthropicMessages).build_with(mock, session, dir)
}

#[tokio::test]
async fn pi_fixture_sessions_compact() {
    for (name, has_previous) in [
        ("before-compaction.jsonl", true),
        ("large-session.jsonl", false),
    ] {
        let rig = fixture_rig(name);
        let before = rig.app.messages().len();
        // Two replies: a split turn needs a second summary.
        rig.mock.push(Turn::text(SUMMARY));
        rig.mock.push(Turn::text("## Original Request\nPREFIX"));
        let result = rig.app.compact(None).await.unwrap();
        assert!(
            result.tokens_before > 20_000,
            "{name}: {}",
            result.tokens_before
        );
        let request = rig.request_text(0);
        assert_eq!(
            request.contains("<previous-summary>"),
            has_previous,
            "{name}"
        );
        assert!(request.contains("[Tool result]: "), "{name}");
        assert_eq!(rig.file_entries().last().unwrap(), "compaction", "{name}");
        let kept = rig
            .app
            .with_session(|s| s.entry(&result.first_kept_entry_id).is_some());
        assert!(kept, "{name}");
        let after = rig.app.messages();
        assert_eq!(after[0].role(), "compactionSummary", "{name}");
        assert!(after.len() < before, "{name}: {} → {}", before, after.len());
        assert_ne!(after[1].role(), "toolResult", "{name}");
        // Reopening the file gives the same context.
        let path = rig
            .app
            .with_session(|s| s.session_file().unwrap().to_path_buf());
        let reopened = SessionManager::open(&path, rig.dir.path()).unwrap();
        assert_eq!(reopened.build_session_context().messages.len(), after.len());
    }
}

#[tokio::test]
async fn navigating_the_tree_can_leave_a_branch_summary() {
    let rig = RigBuilder::new(Api::AnthropicMessages)
        .seed(seed_history)
        .build();
    let ids: Vec<String> = rig
        .app
        .with_session(|s| s.entries().iter().map(|e| e.id.clone()).collect());
    rig.mock.push(Turn::text("## Goal\nBRANCH WORK"));
    let result = rig
        .app
        .navigate_tree(
            &ids[1],
            NavigateOptions {
                summarize: true,
                ..NavigateOptions::default()
            },
        )
        .await
        .unwrap();
    assert!(result.summary_entry_id.is_some());
    assert_eq!(result.editor_text, None);
    let request = &rig.mock.requests()[0];
    assert_eq!(request.body["max_tokens"], json!(2048));
    assert!(request.body.to_string().contains("[User]: abcd"));
    assert_eq!(rig.roles(), strs(&["user", "assistant", "branchSummary"]));
    let summary = rig.app.with_session(|s| {
        s.entries().iter().find_map(|e| match &e.kind {
            EntryKind::BranchSummary(b) => Some((b.from_id.clone(), b.summary.clone())),
            _ => None,
        })
    });
    let (from_id, text) = summary.unwrap();
    assert_eq!(from_id, ids[1]);
    assert!(text.starts_with("The user explored a different conversation branch"));
    assert!(text.contains("BRANCH WORK"));

    // Selecting the first user message: its text goes back to the editor, the leaf to root.
    let result = rig
        .app
        .navigate_tree(&ids[0], NavigateOptions::default())
        .await
        .unwrap();
    assert_eq!(result.editor_text.as_deref().map(str::len), Some(160));
    assert!(rig.roles().is_empty());
    assert_eq!(rig.mock.requests().len(), 1);
}

#[test]
fn session_events_serialize_with_pi_names() {
    let event = SessionEvent::AutoRetryStart {
        attempt: 1,
        max_attempts: 3,
        delay_ms: 2000,
        error_message: "Overloaded".into(),
    };
    assert_eq!(
        serde_json::to_value(&event).unwrap(),
        json!({"type": "auto_retry_start", "attempt": 1, "maxAttempts": 3, "delayMs": 2000, "errorMessage": "Overloaded"})
    );
    let end = SessionEvent::CompactionEnd {
        reason: pi_session::compaction::CompactionReason::Overflow,
        result: None,
        aborted: false,
        will_retry: true,
        error_message: None,
    };
    assert_eq!(
        serde_json::to_value(&end).unwrap(),
        json!({"type": "compaction_end", "reason": "overflow", "aborted": false, "willRetry": true})
    );
    let agent_end = SessionEvent::AgentEnd {
        messages: vec![],
        will_retry: false,
    };
    assert_eq!(
        serde_json::to_value(&agent_end).unwrap(),
        json!({"type": "agent_end", "messages": [], "willRetry": false})
    );
}

#[tokio::test]
async fn host_messages_are_converted_in_the_summary_request_and_the_entry_keeps_its_usage_and_cost()
{
    let rig = RigBuilder::new(Api::AnthropicMessages)
        .settings(json!({"compaction": {"reserveTokens": 1000, "keepRecentTokens": 50}}))
        .model(|model| {
            model.cost.input = 3.0;
            model.cost.output = 15.0;
        })
        .seed(|session| {
            let bash = pi_agent::BashExecutionMessage {
                command: "ls src".into(),
                output: "main.rs".into(),
                exit_code: Some(0),
                cancelled: false,
                truncated: false,
                full_output_path: None,
                exclude_from_context: None,
                timestamp: 0,
            };
            session
                .append_message(pi_agent::AgentMessage::from(bash))
                .unwrap();
            session
                .append_custom_message(
                    "reminder",
                    pi_ai::UserContent::Text("REMEMBER THE PARSER".into()),
                    true,
                    None,
                )
                .unwrap();
            seed_history(session);
        })
        .build();
    rig.mock
        .push(Turn::text("## Goal\nSUMMARY").usage(1200, 300, 0, 0));
    rig.app.compact(None).await.unwrap();
    let request = rig.request_text(0);
    // Converted as the model sees them, not as the session stores them.
    assert!(request.contains("Ran `ls src`"), "{request}");
    assert!(request.contains("main.rs"), "{request}");
    assert!(request.contains("REMEMBER THE PARSER"), "{request}");
    assert!(!request.contains("bashExecution"), "{request}");
    let entry = rig
        .app
        .entries_since(None)
        .unwrap()
        .0
        .into_iter()
        .find_map(|e| match e.kind {
            EntryKind::Compaction(c) => Some(c),
            _ => None,
        })
        .expect("a compaction entry");
    let usage = entry.usage.expect("the summary request's usage");
    assert_eq!((usage.input, usage.output), (1200, 300));
    // 1200 × $3 + 300 × $15 per million.
    assert!((usage.cost.total - 0.0081).abs() < 1e-9, "{usage:?}");
}
