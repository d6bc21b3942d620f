//! One snapshot per visible state: an empty session, a streaming answer, a tool call collapsed
//! and expanded, a coloured edit diff, queued messages, a retry notice, the footer near and far
//! from the context limit, narrow and wide terminals, CJK text.

use pi_agent::{AgentEvent, AgentMessage, ToolOutput};
use pi_ai::{
    AssistantBlock, AssistantMessage, AssistantMessageEvent, TextContent, ThinkingContent, Usage,
    UserContent, UserMessage,
};
use pi_app::AppEvent;
use pi_app::SessionEvent;
use pi_ext_api::{ExtensionFailure, MessageRenderer, RenderTarget, StyledLine};
use pi_tui::view::{Footer, Screen, draw};
use pi_tui::{Editor, ImageProtocol, LineCache, Theme, Token, Transcript};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;
use std::cell::RefCell;
use std::sync::Arc;

pub(crate) fn agent(event: AgentEvent) -> AppEvent {
    AppEvent::Agent(event)
}

pub(crate) fn user(text: &str) -> AppEvent {
    agent(AgentEvent::MessageStart {
        message: AgentMessage::from(UserMessage {
            content: UserContent::Text(text.to_owned()),
            timestamp: 0,
        }),
    })
}

pub(crate) fn answer(blocks: Vec<AssistantBlock>, input_tokens: u64) -> AssistantMessage {
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

pub(crate) fn text(t: &str) -> AssistantBlock {
    AssistantBlock::Text(TextContent {
        text: t.to_owned(),
        text_signature: None,
    })
}

/// A finished answer: start and end.
pub(crate) fn finished(message: AssistantMessage) -> Vec<AppEvent> {
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
            duration_ms: None,
        }),
    ]
}

pub(crate) fn transcript(events: impl IntoIterator<Item = AppEvent>) -> Transcript {
    let mut t = Transcript::default();
    for event in events {
        t.apply(&event);
    }
    t
}

pub(crate) fn footer(window: u64) -> Footer {
    Footer {
        cwd: "~/src/demo".into(),
        branch: Some("main".into()),
        session_name: None,
        model: "anthropic/claude-sonnet-4-5".into(),
        thinking: "medium".into(),
        context_window: window,
        ..Footer::default()
    }
}

pub(crate) struct Shot<'a> {
    transcript: &'a Transcript,
    editor: Editor,
    footer: Footer,
    pub(crate) expanded: bool,
    show_thinking: bool,
    renderers: Vec<Arc<dyn MessageRenderer>>,
    popup: Vec<(String, String)>,
    hint: Option<String>,
    images: ImageProtocol,
}

impl<'a> Shot<'a> {
    pub(crate) fn new(transcript: &'a Transcript) -> Self {
        Shot {
            transcript,
            editor: Editor::default(),
            footer: footer(200_000),
            expanded: false,
            show_thinking: false,
            renderers: Vec::new(),
            popup: Vec::new(),
            hint: None,
            images: ImageProtocol::None,
        }
    }

    fn screen<'s>(&'s self, cache: &'s RefCell<LineCache>) -> Screen<'s> {
        Screen {
            expanded: self.expanded,
            show_thinking: self.show_thinking,
            hint: self.hint.clone(),
            popup: &self.popup,
            renderers: &self.renderers,
            images: self.images,
            ..Screen::new(self.transcript, &self.editor, &self.footer, cache)
        }
    }

    pub(crate) fn render(&self, width: u16, height: u16) -> String {
        let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
        let cache = RefCell::new(LineCache::default());
        let screen = self.screen(&cache);
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
        insta::assert_snapshot!(name, Shot::new(&t).render(110, 6));
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

/// Draws `echo` results as a boxed line, and fails on `boom`: what a renderer component does,
/// in-process (the real component runs in the cli's tmux test).
struct Boxed;

impl MessageRenderer for Boxed {
    fn handles(&self, target: &RenderTarget<'_>) -> bool {
        matches!(target, RenderTarget::ToolResult { tool_name, .. } if *tool_name != "bash")
    }

    fn render(
        &self,
        target: &RenderTarget<'_>,
        _width: u32,
    ) -> Result<Option<Vec<StyledLine>>, ExtensionFailure> {
        let RenderTarget::ToolResult { tool_name, .. } = target else {
            return Ok(None);
        };
        if *tool_name == "boom" {
            return Err(ExtensionFailure("trapped".into()));
        }
        let span = |text: &str, fg: &str| pi_ext_api::Span {
            text: text.into(),
            style: pi_ext_api::Style {
                fg: Some(fg.into()),
                ..Default::default()
            },
        };
        Ok(Some(vec![
            vec![span("┏━ echo ━┓", "accent")],
            vec![span("┃ hello  ┃", "success")],
            vec![span("┗━━━━━━━━┛", "accent")],
        ]))
    }
}

#[test]
fn a_renderer_components_output_and_its_fallback() {
    let mut events = vec![user("Echo and explode")];
    events.extend(tool(
        "c1",
        "echo",
        json!({"say": "hello"}),
        "hello",
        json!({}),
    ));
    events.extend(tool("c2", "boom", json!({}), "the plain result", json!({})));
    let t = transcript(events);
    let mut shot = Shot::new(&t);
    shot.renderers.push(Arc::new(Boxed));
    insta::assert_snapshot!(shot.render(60, 16));
}

#[test]
fn completions_above_the_editor() {
    let t = Transcript::default();
    let mut shot = Shot::new(&t);
    shot.editor.insert("look at @mai");
    shot.popup = vec![
        ("src/main.rs".into(), String::new()),
        ("docs/maintainers.md".into(), String::new()),
    ];
    insta::assert_snapshot!(shot.render(60, 12));
}

#[test]
fn a_table_and_highlighted_code() {
    let md = "| tool | calls |\n|---|---|\n| read | 12 |\n| bash | 3 |\n```python\ndef f(x):  # twice\n    return x * 2\n```";
    let mut events = vec![user("Summarise")];
    events.extend(finished(answer(vec![text(md)], 100)));
    insta::assert_snapshot!(Shot::new(&transcript(events)).render(60, 16));
}

#[test]
fn grep_find_and_ls_calls_with_their_results() {
    let mut events = vec![user("Where is the parser?")];
    events.extend(tool(
        "c1",
        "grep",
        json!({"pattern": "fn parse", "path": "src"}),
        "src/parser.rs:12: fn parse(input: &str)",
        json!({}),
    ));
    events.extend(tool(
        "c2",
        "find",
        json!({"pattern": "*.rs"}),
        // Output ending in a newline, as most commands' does: no empty line after it.
        "src/parser.rs\nsrc/main.rs\n",
        json!({}),
    ));
    events.extend(tool(
        "c3",
        "ls",
        json!({"path": "src"}),
        "main.rs\nparser.rs\n",
        json!({}),
    ));
    insta::assert_snapshot!(Shot::new(&transcript(events)).render(60, 18));
}

#[test]
fn the_edit_diff_is_coloured() {
    let mut events = vec![user("Rename it")];
    events.extend(tool(
        "c1",
        "edit",
        json!({"path": "src/lib.rs"}),
        "Successfully replaced 1 block",
        json!({"diff": "-fn old() {}\n+fn new() {}"}),
    ));
    let t = transcript(events);
    let shot = Shot::new(&t);
    let mut terminal = Terminal::new(TestBackend::new(40, 10)).unwrap();
    let cache = RefCell::new(LineCache::default());
    let screen = shot.screen(&cache);
    terminal.draw(|frame| draw(frame, &screen)).unwrap();
    let buffer = terminal.backend().buffer();
    let row_of = |text: &str| {
        (0..buffer.area.height).find(|&y| {
            let line: String = (0..buffer.area.width)
                .map(|x| buffer[(x, y)].symbol().to_owned())
                .collect();
            line.contains(text)
        })
    };
    let removed = row_of("-fn old").unwrap();
    let added = row_of("+fn new").unwrap();
    let theme = Theme::dark();
    assert_eq!(
        Some(buffer[(4, removed)].fg),
        theme.get(Token::ToolDiffRemoved)
    );
    assert_eq!(Some(buffer[(4, added)].fg), theme.get(Token::ToolDiffAdded));
}

#[test]
fn an_image_result_keeps_rows_for_its_picture() {
    use base64::Engine as _;
    let mut png = Vec::new();
    image::RgbImage::new(160, 80)
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    let image = pi_ai::ImageContent {
        data: base64::engine::general_purpose::STANDARD.encode(png),
        mime_type: "image/png".into(),
    };
    let mut events = vec![user("Show the chart")];
    events.push(agent(AgentEvent::ToolExecutionStart {
        tool_call_id: "c1".into(),
        tool_name: "read".into(),
        args: json!({"path": "chart.png"}),
    }));
    events.push(agent(AgentEvent::ToolExecutionEnd {
        tool_call_id: "c1".into(),
        tool_name: "read".into(),
        result: ToolOutput {
            content: vec![
                pi_ai::UserBlock::Text(pi_ai::TextContent {
                    text: "Read image file [image/png]".into(),
                    text_signature: None,
                }),
                pi_ai::UserBlock::Image(image),
            ],
            details: json!({}),
            structured_content: None,
        },
        is_error: false,
        duration_ms: None,
    }));
    let t = transcript(events);
    let mut shot = Shot::new(&t);
    insta::assert_snapshot!("image_placeholder_only", shot.render(60, 16));
    shot.images = ImageProtocol::Kitty;
    insta::assert_snapshot!("image_with_rows_for_the_picture", shot.render(60, 16));
    let mut terminal = Terminal::new(TestBackend::new(60, 16)).unwrap();
    let cache = RefCell::new(LineCache::default());
    let screen = shot.screen(&cache);
    terminal.draw(|frame| draw(frame, &screen)).unwrap();
    let placed: Vec<(u16, u16, u16, u16)> = cache
        .borrow()
        .visible_pictures()
        .iter()
        .map(|p| (p.x, p.y, p.picture.cols, p.picture.rows))
        .collect();
    // 160×80 pixels: 20 columns by 5 rows, under the placeholder line (row 5).
    assert_eq!(placed, [(4, 5, 20, 5)]);
}

#[test]
fn shell_commands_running_and_done() {
    let mut t = transcript([user("Check the tree")]);
    t.start_bash("git status --short".into(), false);
    t.finish_bash(Some(pi_app::BashOutcome {
        output: " M src/lib.rs\n?? notes.md\n".into(),
        exit_code: Some(0),
        cancelled: false,
        truncated: false,
        full_output_path: None,
    }));
    t.start_bash("cargo test".into(), true);
    t.finish_bash(Some(pi_app::BashOutcome {
        output: "test a ... FAILED\n".into(),
        exit_code: Some(101),
        cancelled: false,
        truncated: false,
        full_output_path: None,
    }));
    t.start_bash("sleep 100".into(), false);
    insta::assert_snapshot!(Shot::new(&t).render(60, 18));
}

#[test]
fn the_model_selector_at_forty_columns() {
    let t = Transcript::default();
    let mut shot = Shot::new(&t);
    shot.hint = Some("Model (1 of 3) › son".into());
    shot.popup = vec![(
        "anthropic/claude-sonnet-4-5".into(),
        "Claude Sonnet 4.5 · 200k context".into(),
    )];
    insta::assert_snapshot!(shot.render(40, 10));
}
