//! Token accounting, the threshold edge and the cut point, without a model.

use pi_ai::{
    AssistantBlock, AssistantMessage, ImageContent, StopReason, TextContent, ToolCall,
    ToolResultMessage, UserBlock, UserContent, UserMessage,
};
use pi_session::compaction::tokens::{estimate_context_tokens, estimate_tokens, should_compact};
use pi_session::compaction::{find_cut_point, prepare_compaction};
use pi_session::messages::{AgentMessage, CompactionSummaryMessage};
use pi_session::session::{CompactionEntry, SessionEntry, SessionManager};
use pi_session::settings::CompactionSettings;
use serde_json::json;
use std::path::Path;

pub use crate::message_builders::{assistant_n, chars, user_n};

pub fn tool_result_n(tokens: u64) -> AgentMessage {
    AgentMessage::from(ToolResultMessage {
        tool_call_id: "c".into(),
        tool_name: "read".into(),
        content: vec![UserBlock::Text(TextContent {
            text: chars(tokens),
            text_signature: None,
        })],
        details: None,
        is_error: false,
        timestamp: 1,
        duration_ms: None,
    })
}

fn settings(reserve: u64, keep: u64) -> CompactionSettings {
    CompactionSettings {
        enabled: true,
        reserve_tokens: reserve,
        keep_recent_tokens: keep,
    }
}

fn branch(session: &SessionManager) -> Vec<SessionEntry> {
    session.get_branch(None).into_iter().cloned().collect()
}

#[test]
fn estimate_counts_text_thinking_tool_calls_and_images() {
    assert_eq!(estimate_tokens(&user_n(7)), 7);
    // 5 chars → ceil(5/4) = 2.
    let five = AgentMessage::from(UserMessage {
        content: UserContent::Text("hello".into()),
        timestamp: 0,
    });
    assert_eq!(estimate_tokens(&five), 2);
    let call = AgentMessage::from(AssistantMessage {
        content: vec![
            AssistantBlock::Thinking(pi_ai::ThinkingContent {
                thinking: "abcd".into(),
                ..Default::default()
            }),
            AssistantBlock::ToolCall(ToolCall {
                id: "x".into(),
                name: "read".into(),
                arguments: json!({"path": "a.rs"}),
                thought_signature: None,
            }),
        ],
        ..AssistantMessage::default()
    });
    // 4 thinking + 4 name + len(`{"path":"a.rs"}`) = 15 → 23 chars → 6 tokens.
    assert_eq!(estimate_tokens(&call), 6);
    let image = AgentMessage::from(UserMessage {
        content: UserContent::Blocks(vec![UserBlock::Image(ImageContent {
            data: "AAAA".into(),
            mime_type: "image/png".into(),
        })]),
        timestamp: 0,
    });
    assert_eq!(estimate_tokens(&image), 1_200);
}

#[test]
fn context_total_is_last_valid_usage_plus_later_estimates() {
    let mut error = assistant_n(0, 999_999, 5);
    if let Some(a) = error.as_assistant_mut() {
        a.stop_reason = StopReason::Error;
    }
    let messages = vec![
        user_n(10),
        assistant_n(10, 5_000, 2),
        tool_result_n(30),
        error,
        user_n(4),
    ];
    let estimate = estimate_context_tokens(&messages);
    // The error reply is skipped as a usage source but estimated (0 chars).
    assert_eq!(estimate.usage_tokens, 5_000);
    assert_eq!(estimate.last_usage_index, Some(1));
    assert_eq!(estimate.tokens, 5_000 + 30 + 4);
}

#[test]
fn usage_parts_are_summed_when_total_is_missing_and_zero_usage_is_ignored() {
    let mut parts = assistant_n(0, 0, 2);
    if let Some(a) = parts.as_assistant_mut() {
        a.usage.input = 100;
        a.usage.output = 20;
        a.usage.cache_read = 3;
        a.usage.cache_write = 4;
    }
    assert_eq!(estimate_context_tokens(&[user_n(1), parts]).tokens, 127);
    // All-zero usage: no valid usage at all → ΣE over everything.
    let zero = assistant_n(8, 0, 2);
    assert_eq!(estimate_context_tokens(&[user_n(3), zero]).tokens, 11);
}

#[test]
fn reasoning_tokens_are_part_of_output_and_not_counted_again() {
    // As providers report them: reasoning is a subset of output (Gemini's thoughts are added
    // to `output` when decoded, OpenAI's `reasoning_tokens` are inside `completion_tokens`).
    let mut reply = assistant_n(0, 0, 2);
    if let Some(a) = reply.as_assistant_mut() {
        a.usage.input = 100;
        a.usage.output = 20;
        a.usage.reasoning = Some(15);
    }
    assert_eq!(
        estimate_context_tokens(&[user_n(1), reply.clone()]).tokens,
        120
    );
    // With the provider's total, the total stands.
    if let Some(a) = reply.as_assistant_mut() {
        a.usage.total_tokens = 120;
    }
    assert_eq!(estimate_context_tokens(&[user_n(1), reply]).tokens, 120);
}

#[test]
fn usage_older_than_the_compaction_summary_is_ignored() {
    let summary = AgentMessage::from(CompactionSummaryMessage {
        summary: chars(50),
        tokens_before: 100_000,
        timestamp: 100,
    });
    // A kept reply measured on the pre-compaction context.
    let messages = vec![summary, user_n(5), assistant_n(5, 150_000, 50)];
    assert_eq!(estimate_context_tokens(&messages).tokens, 60);
    let mut newer = messages.clone();
    newer.push(user_n(1));
    newer.push(assistant_n(1, 700, 200));
    assert_eq!(estimate_context_tokens(&newer).tokens, 700);
}

#[test]
fn threshold_is_strictly_greater_than_window_minus_reserve() {
    let s = settings(16_384, 20_000);
    assert!(!should_compact(183_616, 200_000, &s));
    assert!(should_compact(183_617, 200_000, &s));
    let disabled = CompactionSettings {
        enabled: false,
        ..s
    };
    assert!(!should_compact(199_999, 200_000, &disabled));
}

/// A worked example: 2,000 + 3,000 + 4,000 + 12,000 → keep 9,000.
#[test]
fn spec_worked_example_keeps_9000() {
    let mut session = SessionManager::in_memory(Path::new("/tmp"));
    session.append_message(user_n(100)).unwrap();
    session.append_message(assistant_n(50, 0, 2)).unwrap();
    session.append_message(tool_result_n(12_000)).unwrap();
    session.append_message(assistant_n(4_000, 0, 4)).unwrap();
    session.append_message(tool_result_n(3_000)).unwrap();
    session.append_message(assistant_n(2_000, 0, 6)).unwrap();
    let entries = branch(&session);
    let cut = find_cut_point(&entries, 0, entries.len(), 20_000);
    assert_eq!(
        cut.first_kept_index, 3,
        "cut just before the second assistant message"
    );
    assert!(cut.is_split_turn);
    assert_eq!(cut.turn_start_index, Some(0));
    let kept: u64 = entries[cut.first_kept_index..]
        .iter()
        .map(|e| estimate_tokens(e.message().unwrap()))
        .sum();
    assert_eq!(kept, 9_000);

    let prep = prepare_compaction(&entries, &settings(16_384, 20_000)).unwrap();
    assert_eq!(prep.first_kept_entry_id, entries[3].id);
    assert!(
        prep.messages_to_summarize.is_empty(),
        "no complete turn before"
    );
    assert_eq!(prep.turn_prefix_messages.len(), 3);
    assert!(prep.is_split_turn);
}

#[test]
fn cut_never_lands_on_a_tool_result_and_keeps_adjacent_metadata() {
    let mut session = SessionManager::in_memory(Path::new("/tmp"));
    session.append_message(user_n(500)).unwrap();
    session.append_message(assistant_n(500, 0, 2)).unwrap();
    session.append_thinking_level_change("high").unwrap();
    session.append_model_change("mock", "mock-model").unwrap();
    session.append_message(user_n(100)).unwrap();
    session.append_message(assistant_n(10, 0, 4)).unwrap();
    session.append_message(tool_result_n(300)).unwrap();
    let entries = branch(&session);
    // Budget reached at the tool result (300 ≥ 200): the nearest valid cut after it does not
    // exist, so the earlier default (first cut point) would keep everything; with 400 the
    // budget is reached at the user message, extended back over the two metadata entries.
    let cut = find_cut_point(&entries, 0, entries.len(), 400);
    assert_eq!(cut.first_kept_index, 2);
    assert!(!cut.is_split_turn);
    let cut = find_cut_point(&entries, 0, entries.len(), 200);
    assert_ne!(
        entries[cut.first_kept_index].message().map(|m| m.role()),
        Some("toolResult")
    );
}

#[test]
fn small_sessions_have_nothing_to_compact() {
    let mut session = SessionManager::in_memory(Path::new("/tmp"));
    session.append_message(user_n(10)).unwrap();
    session.append_message(assistant_n(10, 0, 2)).unwrap();
    assert!(prepare_compaction(&branch(&session), &settings(16_384, 20_000)).is_none());
}

#[test]
fn repeated_compaction_starts_after_the_previous_one_and_updates_its_summary() {
    let mut session = SessionManager::in_memory(Path::new("/tmp"));
    session.append_message(user_n(1_000)).unwrap();
    session.append_message(assistant_n(1_000, 0, 2)).unwrap();
    let kept = session.append_message(user_n(1_000)).unwrap();
    session.append_message(assistant_n(1_000, 0, 4)).unwrap();
    session
        .append_compaction(CompactionEntry {
            summary: "FIRST SUMMARY".into(),
            first_kept_entry_id: kept.clone(),
            tokens_before: 4_000,
            details: Some(json!({"readFiles": ["old.rs"], "modifiedFiles": []})),
            ..CompactionEntry::default()
        })
        .unwrap();
    session.append_message(user_n(1_000)).unwrap();
    session.append_message(assistant_n(1_000, 0, 6)).unwrap();
    let entries = branch(&session);
    let prep = prepare_compaction(&entries, &settings(16_384, 1_500)).unwrap();
    assert_eq!(prep.previous_summary.as_deref(), Some("FIRST SUMMARY"));
    // Only the entries kept last time and after are looked at: kept user + assistant.
    assert_eq!(prep.messages_to_summarize.len(), 2);
    assert_eq!(prep.first_kept_entry_id, entries[5].id);
    assert!(prep.file_ops.read.contains("old.rs"));
    // Right after a compaction there is nothing to do.
    let mut again = SessionManager::in_memory(Path::new("/tmp"));
    again.append_message(user_n(1)).unwrap();
    again.append_compaction(CompactionEntry::default()).unwrap();
    assert!(prepare_compaction(&branch(&again), &settings(16_384, 0)).is_none());
}
