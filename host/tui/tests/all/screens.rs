//! One snapshot per visible state: an empty session, a streaming answer, a tool call collapsed
//! and expanded, a coloured edit diff, queued messages, a retry notice, the footer near and far
//! from the context limit, narrow and wide terminals, CJK text.

use pi_agent::{AgentEvent, AgentMessage, ToolOutput};
use pi_ai::{
    AssistantBlock, AssistantMessage, AssistantMessageEvent, TextContent, ThinkingContent, Usage,
    UserContent, UserMessage,
};
use pi_app::AppEvent;
use pi_app::agent_session::SessionEvent;
use pi_tui::view::{Footer, Screen, draw};
use pi_tui::{Editor, Transcript};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;
use std::sync::Arc;

fn agent(event: AgentEvent) -> AppEvent {
    AppEvent::Agent(event)
}

fn user(text: &str) -> AppEvent {
    agent(AgentEvent::MessageStart {
        message: AgentMessage::from(UserMessage {
            content: UserContent::Text(text.to_owned()),
            timestamp: 0,
        }),
    })
}

fn answer(blocks: Vec<AssistantBlock>, input_tokens: u64) -> AssistantMessage {
    AssistantMessage {
        content: blocks,
        usage: Usage {
            input: input_tokens,
            output: 120,
            ..Usage::default()
        },
        ..AssistantMessage::default()
    }
}

fn text(t: &str) -> AssistantBlock {
    AssistantBlock::Text(TextContent {
        text: t.to_owned(),
        text_signature: None,
    })
}

/// A finished answer: start and end.
fn finished(message: AssistantMessage) -> Vec<AppEvent> {
    vec![
        agent(AgentEvent::MessageStart {
            message: AgentMessage::from(AssistantMessage::default()),
        }),
        agent(AgentEvent::MessageEnd {
            message: AgentMessage::from(message),
        }),
    ]
}

fn tool(
    id: &str,
    name: &str,
    args: serde_json::Value,
    out: &str,
    details: serde_json::Value,
) -> Vec<AppEvent> {
    vec![
        agent(AgentEvent::ToolExecutionStart {
            tool_call_id: id.into(),
            tool_name: name.into(),
            args,
        }),
        agent(AgentEvent::ToolExecutionEnd {
            tool_call_id: id.into(),
            tool_name: name.into(),
            result: ToolOutput::text(out).with_details(details),
            is_error: false,
        }),
    ]
}

fn transcript(events: impl IntoIterator<Item = AppEvent>) -> Transcript {
    let mut t = Transcript::default();
    for event in events {
        t.apply(&event);
    }
    t
}

fn footer(window: u64) -> Footer {
    Footer {
        cwd: "~/src/demo".into(),
        session_name: None,
        model: "anthropic/claude-sonnet-4-5".into(),
        thinking: "medium".into(),
        context_window: window,
    }
}

struct Shot<'a> {
    transcript: &'a Transcript,
    editor: Editor,
    footer: Footer,
    expanded: bool,
    show_thinking: bool,
}

impl<'a> Shot<'a> {
    fn new(transcript: &'a Transcript) -> Self {
        Shot {
            transcript,
            editor: Editor::default(),
            footer: footer(200_000),
            expanded: false,
            show_thinking: false,
        }
    }

    fn render(&self, width: u16, height: u16) -> String {
        let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
        let screen = Screen {
            transcript: self.transcript,
            editor: &self.editor,
            footer: &self.footer,
            scroll: 0,
            expanded: self.expanded,
            show_thinking: self.show_thinking,
            hint: None,
            no_color: false,
            tick: 0,
        };
        terminal.draw(|frame| draw(frame, &screen)).unwrap();
        let buffer = terminal.backend().buffer();
        let mut out = String::new();
        for y in 0..buffer.area.height {
            let mut line = String::new();
            let mut x = 0;
            while x < buffer.area.width {
                let symbol = buffer[(x, y)].symbol();
                line.push_str(symbol);
                // A wide character covers the next cell too.
                x += unicode_width::UnicodeWidthStr::width(symbol).max(1) as u16;
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}

#[test]
fn empty_session() {
    let t = Transcript::default();
    insta::assert_snapshot!(Shot::new(&t).render(60, 10));
}

#[test]
fn streaming_answer_mid_way() {
    let partial = answer(vec![text("Here is the plan:\n1. Read the parser")], 0);
    let t = transcript([
        agent(AgentEvent::AgentStart),
        user("Fix the parser"),
        agent(AgentEvent::MessageStart {
            message: AgentMessage::from(AssistantMessage::default()),
        }),
        agent(AgentEvent::MessageUpdate {
            message: Arc::new(partial),
            assistant_message_event: AssistantMessageEvent::TextDelta {
                content_index: 0,
                delta: "parser".into(),
            },
        }),
    ]);
    insta::assert_snapshot!(Shot::new(&t).render(60, 12));
}

#[test]
fn thinking_collapsed_and_expanded() {
    let thinking = AssistantBlock::Thinking(ThinkingContent {
        thinking: "The user wants a list.".into(),
        ..ThinkingContent::default()
    });
    let mut events = vec![user("List files")];
    events.extend(finished(answer(vec![thinking, text("a.rs b.rs")], 900)));
    let t = transcript(events);
    let mut shot = Shot::new(&t);
    insta::assert_snapshot!("thinking_collapsed", shot.render(60, 10));
    shot.show_thinking = true;
    insta::assert_snapshot!("thinking_expanded", shot.render(60, 10));
}

#[test]
fn bash_output_collapsed_then_expanded() {
    let output: Vec<String> = (1..=12).map(|i| format!("line {i}")).collect();
    let mut events = vec![user("Run the tests")];
    events.extend(tool(
        "c1",
        "bash",
        json!({"command": "cargo test"}),
        &output.join("\n"),
        json!({}),
    ));
    let t = transcript(events);
    let mut shot = Shot::new(&t);
    insta::assert_snapshot!("bash_collapsed", shot.render(60, 16));
    shot.expanded = true;
    insta::assert_snapshot!("bash_expanded", shot.render(60, 22));
}

#[test]
fn edit_shows_its_diff_and_read_its_range() {
    let mut events = vec![user("Rename it")];
    events.extend(tool(
        "c1",
        "read",
        json!({"path": "src/lib.rs", "offset": 10, "limit": 5}),
        "fn old() {}",
        json!({}),
    ));
    events.extend(tool(
        "c2",
        "edit",
        json!({"path": "src/lib.rs"}),
        "Successfully replaced 1 block",
        json!({"diff": "-fn old() {}\n+fn new() {}"}),
    ));
    events.extend(tool(
        "c3",
        "write",
        json!({"path": "NOTES.md", "content": "# Notes\nrenamed old to new"}),
        "Wrote 2 lines",
        json!({}),
    ));
    insta::assert_snapshot!(Shot::new(&transcript(events)).render(60, 16));
}

#[test]
fn queued_steering_and_follow_up() {
    let t = transcript([
        agent(AgentEvent::AgentStart),
        user("Refactor util.rs"),
        AppEvent::Session(SessionEvent::QueueUpdate {
            steering: vec!["also keep the old name as an alias".into()],
            follow_up: vec!["then run the tests".into()],
        }),
    ]);
    insta::assert_snapshot!(Shot::new(&t).render(60, 10));
}

#[test]
fn retry_countdown_and_compaction_notices() {
    let t = transcript([
        user("Hello"),
        AppEvent::Session(SessionEvent::AutoRetryStart {
            attempt: 1,
            max_attempts: 3,
            delay_ms: 2000,
            error_message: "429 Too Many Requests".into(),
        }),
        AppEvent::Session(SessionEvent::CompactionStart {
            reason: pi_session::compaction::CompactionReason::Threshold,
        }),
    ]);
    insta::assert_snapshot!(Shot::new(&t).render(60, 10));
}

#[test]
fn footer_at_ten_and_ninety_five_percent() {
    for (name, tokens) in [("footer_10", 20_000), ("footer_95", 190_000)] {
        let t = transcript(finished(answer(vec![text("ok")], tokens)));
        insta::assert_snapshot!(name, Shot::new(&t).render(90, 6));
    }
}

#[test]
fn narrow_wide_and_cjk() {
    let mut events = vec![user("日本語で説明してください。長い文章は折り返されます。")];
    events.extend(finished(answer(
        vec![text("はい。これは幅の広い文字のテストです。emoji 🎉 too.")],
        100,
    )));
    let t = transcript(events);
    let mut shot = Shot::new(&t);
    shot.editor.insert("draft in the editor");
    insta::assert_snapshot!("narrow_40", shot.render(40, 14));
    insta::assert_snapshot!("wide_200", shot.render(200, 8));
}

#[test]
fn markdown_with_a_code_block() {
    let md = "## Plan\n- read `parser.rs`\n- fix the **off-by-one**\n> careful with CRLF\n```rust\nfn main() {\n    println!(\"hi\");\n}\n```\nDone.";
    let mut events = vec![user("Explain")];
    events.extend(finished(answer(vec![text(md)], 100)));
    insta::assert_snapshot!(Shot::new(&transcript(events)).render(60, 18));
}
