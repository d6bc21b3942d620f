//! What summary requests are made of, without a model: the conversation as text (with the
//! 2,000-character cut of tool results), the file lists appended to a summary (read − modified,
//! sorted, merged with the previous compaction's), the section headings, and which entries of
//! an abandoned branch a branch summary is given (tool results left out, the budget, the 90 %
//! rule for summaries).

use crate::message_builders::{assistant_n, chars, user_n};
use pi_ai::{
    AssistantBlock, AssistantMessage, TextContent, ThinkingContent, ToolCall, ToolResultMessage,
    UserBlock,
};
use pi_session::compaction::branch_summary::prepare_branch_entries;
use pi_session::compaction::file_ops::append_file_lists;
use pi_session::compaction::{prepare_compaction, prompts, serialize_conversation};
use pi_session::messages::{AgentMessage, HostMessage, convert_to_llm};
use pi_session::session::{CompactionEntry, SessionEntry, SessionManager};
use pi_session::settings::CompactionSettings;
use serde_json::{Value, json};
use std::path::Path;

fn call(name: &str, arguments: Value) -> AssistantBlock {
    AssistantBlock::ToolCall(ToolCall {
        id: format!("call-{name}"),
        name: name.into(),
        arguments,
        thought_signature: None,
    })
}

fn assistant(content: Vec<AssistantBlock>) -> AgentMessage {
    AgentMessage::from(AssistantMessage {
        content,
        provider: "mock".into(),
        model: "mock-model".into(),
        ..AssistantMessage::default()
    })
}

fn tool_result(text: String) -> AgentMessage {
    AgentMessage::from(ToolResultMessage {
        tool_call_id: "c".into(),
        tool_name: "read".into(),
        content: vec![UserBlock::Text(TextContent {
            text,
            text_signature: None,
        })],
        details: None,
        is_error: false,
        timestamp: 1,
        duration_ms: None,
    })
}

fn branch(session: &SessionManager) -> Vec<SessionEntry> {
    session.get_branch(None).into_iter().cloned().collect()
}

#[test]
fn conversation_text_labels_each_part_and_cuts_tool_results_at_2000_characters() {
    let long = format!("{}{}", "r".repeat(2_000), "s".repeat(500));
    let messages = [
        AgentMessage::from(pi_ai::UserMessage {
            content: pi_ai::UserContent::Text("fix the parser".into()),
            timestamp: 1,
        }),
        assistant(vec![
            AssistantBlock::Thinking(ThinkingContent {
                thinking: "look first".into(),
                thinking_signature: None,
                redacted: None,
            }),
            AssistantBlock::Text(TextContent {
                text: "Reading it.".into(),
                text_signature: None,
            }),
            call("read", json!({"path": "src/parse.rs", "limit": 20})),
            call("bash", json!({"command": "ls"})),
        ]),
        tool_result(long),
        tool_result("q".repeat(2_000)),
    ];
    let text = serialize_conversation(&convert_to_llm(&messages));
    let expected = format!(
        "[User]: fix the parser\n\n\
         [Assistant thinking]: look first\n\n\
         [Assistant]: Reading it.\n\n\
         [Assistant tool calls]: read(path=\"src/parse.rs\", limit=20); bash(command=\"ls\")\n\n\
         [Tool result]: {}\n\n[... 500 more characters truncated]\n\n\
         [Tool result]: {}",
        "r".repeat(2_000),
        "q".repeat(2_000),
    );
    assert_eq!(text, expected);
}

/// A branch whose previous compaction (by pi, or `from_hook`) listed files, then read, write
/// and edit calls (and calls that name no file or are not file tools).
fn session_with_file_calls(from_hook: Option<bool>) -> Vec<SessionEntry> {
    let mut session = SessionManager::in_memory(Path::new("/tmp"));
    session.append_message(user_n(1_000)).unwrap();
    let kept = session.append_message(assistant_n(1_000, 0, 2)).unwrap();
    session
        .append_compaction(CompactionEntry {
            summary: "FIRST".into(),
            first_kept_entry_id: kept,
            details: Some(json!({
                "readFiles": ["old-read.txt", "edited-later.txt"],
                "modifiedFiles": ["old-modified.txt"]
            })),
            from_hook,
            ..CompactionEntry::default()
        })
        .unwrap();
    session.append_message(user_n(10)).unwrap();
    session
        .append_message(assistant(vec![
            call("read", json!({"path": "c.txt"})),
            call("read", json!({"path": "a.txt"})),
            call("write", json!({"path": "edited-later.txt", "content": "x"})),
            call("edit", json!({"path": "e.txt", "edits": []})),
            call("read", json!({"path": "e.txt"})),
            call("bash", json!({"command": "cat b.txt", "path": "b.txt"})),
            call("read", json!({"offset": 3})),
        ]))
        .unwrap();
    session.append_message(tool_result("ok".into())).unwrap();
    session.append_message(user_n(3_000)).unwrap();
    session.append_message(assistant_n(3_000, 0, 9)).unwrap();
    branch(&session)
}

#[test]
fn tool_results_are_cut_by_utf16_length_as_pi_counts_characters() {
    // 1,500 emoji: 3,000 UTF-16 units, so 1,000 of them are kept.
    let text = serialize_conversation(&convert_to_llm(&[tool_result("😀".repeat(1_500))]));
    assert_eq!(
        text,
        format!(
            "[Tool result]: {}\n\n[... 1000 more characters truncated]",
            "😀".repeat(1_000)
        )
    );
    // A character that would straddle the limit is left out whole.
    let text = serialize_conversation(&convert_to_llm(&[tool_result(format!(
        "{}😀😀",
        "a".repeat(1_999)
    ))]));
    assert_eq!(
        text,
        format!(
            "[Tool result]: {}\n\n[... 3 more characters truncated]",
            "a".repeat(1_999)
        )
    );
}

#[test]
fn file_lists_are_read_minus_modified_sorted_and_carry_the_previous_compactions() {
    let settings = CompactionSettings {
        enabled: true,
        reserve_tokens: 16_384,
        keep_recent_tokens: 4_000,
    };
    let prep = prepare_compaction(&session_with_file_calls(None), &settings).unwrap();
    let details = prep.file_ops.details();
    assert_eq!(details.read_files, ["a.txt", "c.txt", "old-read.txt"]);
    assert_eq!(
        details.modified_files,
        ["e.txt", "edited-later.txt", "old-modified.txt"]
    );
    assert_eq!(
        append_file_lists("SUMMARY", &details),
        "SUMMARY\n\n<read-files>\na.txt\nc.txt\nold-read.txt\n</read-files>\n\n\
         <modified-files>\ne.txt\nedited-later.txt\nold-modified.txt\n</modified-files>"
    );
    // A summary an extension supplied: its lists are not ours and are not carried.
    let prep = prepare_compaction(&session_with_file_calls(Some(true)), &settings).unwrap();
    let details = prep.file_ops.details();
    assert_eq!(details.read_files, ["a.txt", "c.txt"]);
    assert_eq!(details.modified_files, ["e.txt", "edited-later.txt"]);
    // An empty list is left out, tag and all.
    let only_read = pi_session::session::FileOpsDetails {
        read_files: vec!["a.txt".into()],
        modified_files: Vec::new(),
    };
    assert_eq!(
        append_file_lists("S", &only_read),
        "S\n\n<read-files>\na.txt\n</read-files>"
    );
}

/// The Markdown headings every summary prompt asks for, in order.
fn headings(prompt: &str) -> Vec<&str> {
    prompt.lines().filter(|l| l.starts_with('#')).collect()
}

#[test]
fn summary_prompts_ask_for_the_fixed_section_headings() {
    let history = [
        "## Goal",
        "## Constraints & Preferences",
        "## Progress",
        "### Done",
        "### In Progress",
        "### Blocked",
        "## Key Decisions",
        "## Next Steps",
        "## Critical Context",
    ];
    let first = prompts::history_prompt("CONV", None, None);
    assert!(first.starts_with("<conversation>\nCONV\n</conversation>\n\n"));
    assert_eq!(headings(&first), history);
    assert!(first.contains("\n- [x] "));
    assert!(first.contains("\n- [ ] "));
    assert!(first.contains("\n- **[Decision]**: "));
    assert!(first.contains("\n1. "));
    assert!(first.ends_with(
        "Keep each section concise. Preserve exact file paths, function names, and error messages."
    ));
    let update = prompts::history_prompt("CONV", Some("OLD"), Some(" the lexer "));
    assert!(update.starts_with(
        "<conversation>\nCONV\n</conversation>\n\n<previous-summary>\nOLD\n</previous-summary>\n\n"
    ));
    assert_eq!(headings(&update), history);
    assert!(update.ends_with("error messages.\n\nAdditional focus: the lexer"));
    assert_eq!(
        headings(&prompts::turn_prefix_prompt("CONV")),
        [
            "## Original Request",
            "## Early Progress",
            "## Context for Suffix"
        ]
    );
    // A branch summary: the history sections without Critical Context.
    let branch_prompt = prompts::branch_prompt("CONV", None, false);
    assert_eq!(headings(&branch_prompt), history[..8]);
    assert_eq!(
        prompts::branch_prompt("CONV", Some("only the bugs"), true),
        "<conversation>\nCONV\n</conversation>\n\nonly the bugs"
    );
}

fn texts(messages: &[AgentMessage]) -> Vec<String> {
    messages
        .iter()
        .map(|m| match (m.as_user(), m.as_assistant(), m.as_host()) {
            (Some(u), _, _) => u.content.text(),
            (_, Some(a), _) => a.text(),
            (_, _, Some(HostMessage::BranchSummary(b))) => b.summary.clone(),
            _ => m.role().to_owned(),
        })
        .collect()
}

#[test]
fn branch_entries_leave_tool_results_out_and_stop_at_the_budget() {
    let mut session = SessionManager::in_memory(Path::new("/tmp"));
    session.append_message(user_n(10)).unwrap();
    // Over the budget: not summarised, but the file it read is still listed.
    session
        .append_message(assistant(vec![
            AssistantBlock::Text(TextContent {
                text: chars(9),
                text_signature: None,
            }),
            call("read", json!({"path": "over-budget.txt"})),
        ]))
        .unwrap();
    // Far over any budget, and still not counted: tool results are left out.
    session.append_message(tool_result(chars(5_000))).unwrap();
    session.append_message(user_n(10)).unwrap();
    session.append_message(assistant_n(10, 0, 5)).unwrap();
    let entries = branch(&session);
    let (messages, file_ops) = prepare_branch_entries(&entries, 25);
    assert_eq!(texts(&messages), [chars(10), chars(10)]);
    assert!(file_ops.read.contains("over-budget.txt"), "{file_ops:?}");
    // No budget (a window no larger than the reserve) means no limit.
    let (all, _) = prepare_branch_entries(&entries, 0);
    assert_eq!(all.len(), 4);
    assert!(!all.iter().any(|m| m.as_tool_result().is_some()));
}

#[test]
fn a_summary_past_the_budget_is_kept_while_the_total_before_it_is_under_90_percent() {
    for (newest_tokens, summary_kept) in [(89u64, true), (90, false)] {
        let mut session = SessionManager::in_memory(Path::new("/tmp"));
        let first = session.append_message(user_n(5)).unwrap();
        session
            .branch_with_summary(Some(&first), chars(50), None, None, None)
            .unwrap();
        session.append_message(user_n(newest_tokens)).unwrap();
        let entries = branch(&session);
        let (messages, _) = prepare_branch_entries(&entries[1..], 100);
        let expected: Vec<String> = if summary_kept {
            vec![chars(50), chars(newest_tokens)]
        } else {
            vec![chars(newest_tokens)]
        };
        assert_eq!(texts(&messages), expected, "newest = {newest_tokens}");
    }
}

#[test]
fn a_branch_summary_merges_an_earlier_summarys_file_lists_and_appends_them() {
    let mut session = SessionManager::in_memory(Path::new("/tmp"));
    session.append_message(user_n(10)).unwrap();
    let leaf = session.leaf_id().map(str::to_owned);
    let details = |read: &str, modified: &str| {
        Some(json!({"readFiles": [read], "modifiedFiles": [modified]}))
    };
    session
        .branch_with_summary(
            leaf.as_deref(),
            "EARLIER",
            details("old-read.txt", "old-modified.txt"),
            None,
            None,
        )
        .unwrap();
    // An extension's summary: its lists are its own and are not carried.
    session
        .branch_with_summary(
            session.leaf_id().map(str::to_owned).as_deref(),
            "FROM A HOOK",
            details("hook-read.txt", "hook-modified.txt"),
            Some(true),
            None,
        )
        .unwrap();
    session
        .append_message(assistant(vec![
            call("read", json!({"path": "new-read.txt"})),
            call("write", json!({"path": "new-written.txt", "content": "x"})),
        ]))
        .unwrap();
    let (_, file_ops) = prepare_branch_entries(&branch(&session), 0);
    let details = file_ops.details();
    assert_eq!(details.read_files, ["new-read.txt", "old-read.txt"]);
    assert_eq!(
        details.modified_files,
        ["new-written.txt", "old-modified.txt"]
    );
    assert_eq!(
        append_file_lists("SUMMARY", &details),
        "SUMMARY\n\n<read-files>\nnew-read.txt\nold-read.txt\n</read-files>\n\n\
         <modified-files>\nnew-written.txt\nold-modified.txt\n</modified-files>"
    );
}
