//! Frame time of the interactive UI: one frame drawn into ratatui's `TestBackend` (120×40) with
//! a transcript of about 10,000 lines, idle and while an answer streams (one text delta applied
//! per frame). Prints the median and p95 of 300 frames.
//!
//! `cargo bench -p pi-tui --bench frame` (target: ≤ 2 ms per frame).

// A measuring program: failing loudly on a broken setup is what we want.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use pi_agent::{AgentEvent, AgentMessage, ToolOutput};
use pi_ai::{
    AssistantBlock, AssistantMessage, AssistantMessageEvent, TextContent, UserContent, UserMessage,
};
use pi_app::AppEvent;
use pi_tui::view::{Footer, Screen, draw};
use pi_tui::{ColorLevel, Editor, LineCache, Transcript};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;
use std::cell::RefCell;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn answer(text: &str) -> AssistantMessage {
    AssistantMessage {
        content: vec![AssistantBlock::Text(TextContent {
            text: text.to_owned(),
            text_signature: None,
        })],
        ..AssistantMessage::default()
    }
}

/// About ten screen lines per exchange at 120 columns: a prompt, a tool call with output and
/// a three-paragraph answer.
fn long_transcript(exchanges: usize) -> Transcript {
    let mut t = Transcript::default();
    let paragraph = "The parser reads one token at a time and keeps the position of the last \
                     newline, so an error can point at its line and column.";
    for i in 0..exchanges {
        t.apply(&AppEvent::Agent(AgentEvent::MessageStart {
            message: AgentMessage::from(UserMessage {
                content: UserContent::Text(format!("Question {i}: what does the parser do?")),
                timestamp: 0,
            }),
        }));
        t.apply(&AppEvent::Agent(AgentEvent::ToolExecutionStart {
            tool_call_id: format!("c{i}"),
            tool_name: "bash".into(),
            args: json!({"command": "grep -n token src/parser.rs"}),
        }));
        t.apply(&AppEvent::Agent(AgentEvent::ToolExecutionEnd {
            tool_call_id: format!("c{i}"),
            tool_name: "bash".into(),
            result: ToolOutput::text("12: fn next_token()\n40: let token = self.next_token();"),
            is_error: false,
            duration_ms: None,
        }));
        t.apply(&AppEvent::Agent(AgentEvent::MessageEnd {
            message: AgentMessage::from(answer(&format!("{paragraph}\n\n{paragraph}"))),
        }));
    }
    t
}

fn percentile(times: &mut [Duration], p: f64) -> Duration {
    times.sort();
    times[((times.len() - 1) as f64 * p) as usize]
}

fn measure(name: &str, transcript: &mut Transcript, streaming: bool) {
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).unwrap();
    let footer = Footer {
        cwd: "~/src/demo".into(),
        model: "anthropic/claude-sonnet-4-5".into(),
        thinking: "medium".into(),
        context_window: 200_000,
        ..Footer::default()
    };
    let editor = Editor::default();
    let mut partial = String::new();
    if streaming {
        transcript.apply(&AppEvent::Agent(AgentEvent::MessageStart {
            message: AgentMessage::from(AssistantMessage::default()),
        }));
    }
    let mut times = Vec::new();
    // Kept between frames, as the UI keeps it.
    let cache = RefCell::new(LineCache::default());
    for frame in 0..320 {
        if streaming {
            partial.push_str("word ");
            transcript.apply(&AppEvent::Agent(AgentEvent::MessageUpdate {
                message: Arc::new(answer(&partial)),
                assistant_message_event: AssistantMessageEvent::TextDelta {
                    content_index: 0,
                    delta: "word ".into(),
                },
            }));
        }
        let screen = Screen {
            tick: frame,
            ..Screen::new(transcript, &editor, &footer, &cache)
        };
        let started = Instant::now();
        terminal.draw(|f| draw(f, &screen)).unwrap();
        if frame >= 20 {
            times.push(started.elapsed());
        }
    }
    let p50 = percentile(&mut times, 0.5);
    let p95 = percentile(&mut times, 0.95);
    println!("| {name} | {p50:.2?} | {p95:.2?} |");
}

fn main() {
    let mut transcript = long_transcript(1000);
    let lines = pi_tui::view::plain_transcript(
        &Screen {
            colors: ColorLevel::None,
            ..Screen::new(
                &transcript,
                &Editor::default(),
                &Footer::default(),
                &RefCell::new(LineCache::default()),
            )
        },
        119,
    )
    .len();
    println!("transcript: {lines} lines at 120 columns\n");
    println!("| frame | median | p95 |");
    println!("|---|---|---|");
    measure("idle", &mut transcript, false);
    measure("streaming (one delta per frame)", &mut transcript, true);
}
