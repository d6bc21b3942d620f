//! The `subagent` tool's block: one row per child (status, agent, task, current tool,
//! tokens), then each finished child's first answer lines or its error; with Ctrl+O, each
//! child's own transcript (its answers, tool calls and short results) under its row.

use super::footer::short;
use super::items::{prefixed, tool_header, tool_summary};
use super::{Palette, SPINNER};
use crate::theme::Token;
use crate::transcript::children::{ChildLog, ChildLogs};
use crate::transcript::{Item, ToolCall, Transcript};
use crate::wrap::{screen_text, take_width, wrap};
use pi_ai::terminal_text::{Keep, terminal_safe};
use pi_app::subagents::{ChildResult, ChildStatus, SubagentDetails};
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

/// Lines of a finished child's answer shown under its row.
const ANSWER_LINES: usize = 3;
/// Lines of a child's tool result shown in its expanded transcript.
const RESULT_LINES: usize = 2;
/// Where a child's row starts, and its answer and transcript under it.
const ROW_INDENT: &str = "  ";
const BODY_INDENT: &str = "      ";
const RESULT_INDENT: &str = "        ";

/// What drawing a block needs besides the call.
pub(super) struct Block<'a> {
    pub details: &'a SubagentDetails,
    pub expanded: bool,
    pub tick: usize,
    /// The children's transcripts.
    pub logs: &'a ChildLogs,
}

/// The whole block: the call's header, then each child.
pub(super) fn subagent_lines(
    out: &mut Vec<Line<'static>>,
    call: &ToolCall,
    block: &Block<'_>,
    palette: &Palette,
    width: usize,
) {
    tool_header(out, call, palette, width);
    for child in &block.details.results {
        out.push(child_row(child, block.tick, palette, width));
        let log = block.logs.get(&child.id);
        if block.expanded {
            expanded_child(out, child, log, palette, width);
        } else {
            outcome(out, child, ANSWER_LINES, palette, width);
        }
    }
}

/// `⠋ 2. scout  Find the parser · grep · 1.2k`: the task is cut to what the line leaves.
fn child_row(child: &ChildResult, tick: usize, palette: &Palette, width: usize) -> Line<'static> {
    let (mark, token) = match child.status {
        ChildStatus::Pending => ("◌", Token::Muted),
        ChildStatus::Running => (SPINNER[tick % SPINNER.len()], Token::Accent),
        ChildStatus::Completed => ("✓", Token::Success),
        ChildStatus::Failed | ChildStatus::Aborted => ("✗", Token::Error),
    };
    let step = child.step.map(|n| format!("{n}. ")).unwrap_or_default();
    let agent = format!("{step}{}", clean(&child.agent));
    let mut tail = Vec::new();
    match child.status {
        ChildStatus::Pending => tail.push("pending".to_owned()),
        ChildStatus::Running => tail.extend(child.current_tool.as_deref().map(clean)),
        ChildStatus::Aborted => tail.push("aborted".to_owned()),
        _ => {}
    }
    let tokens = child.usage.tokens();
    if tokens > 0 {
        tail.push(format!("{} tokens", short(tokens)));
    }
    let tail = tail
        .iter()
        .map(|part| format!(" · {part}"))
        .collect::<String>();
    let lead = format!("{ROW_INDENT}{mark} ");
    let fixed = lead.width() + agent.width() + 2 + tail.width();
    let task_line = clean(child.task.lines().next().unwrap_or(""));
    let task = cut(&task_line, width.saturating_sub(fixed));
    Line::from(vec![
        Span::styled(lead, palette.style(token)),
        Span::styled(agent, palette.bold(Token::ToolTitle)),
        Span::raw(format!("  {task}")),
        Span::styled(tail, palette.dim()),
    ])
}

/// A finished child's first `count` answer lines, or its error.
fn outcome(
    out: &mut Vec<Line<'static>>,
    child: &ChildResult,
    count: usize,
    palette: &Palette,
    width: usize,
) {
    if !child.status.is_done() {
        return;
    }
    let (text, token) = match (&child.error_message, child.status.is_failure()) {
        (Some(error), _) => (error.as_str(), Token::Error),
        (None, true) if child.output.is_empty() => ("(no answer)", Token::Error),
        _ => (child.output.as_str(), Token::ToolOutput),
    };
    body(out, text, count, palette.style(token), palette, width);
}

/// Up to `count` screen lines of `text` under a row, with how many more there are.
fn body(
    out: &mut Vec<Line<'static>>,
    text: &str,
    count: usize,
    style: ratatui::style::Style,
    palette: &Palette,
    width: usize,
) {
    indented(out, text, count, BODY_INDENT, style, palette, width);
}

/// Up to `count` screen lines of `text` under `indent`, with how many more there are.
fn indented(
    out: &mut Vec<Line<'static>>,
    text: &str,
    count: usize,
    indent: &'static str,
    style: ratatui::style::Style,
    palette: &Palette,
    width: usize,
) {
    let text = terminal_safe(text.trim_end(), Keep::Lines);
    let lines = wrap(&text, width.saturating_sub(indent.len()));
    let hidden = lines.len().saturating_sub(count);
    for line in lines.into_iter().take(count) {
        out.push(Line::from(vec![
            Span::raw(indent),
            Span::styled(line, style),
        ]));
    }
    if hidden > 0 {
        out.push(Line::styled(
            format!(
                "{indent}… {hidden} more line{}",
                if hidden == 1 { "" } else { "s" }
            ),
            palette.dim(),
        ));
    }
}

/// A child's transcript under its row: what it said, the tools it called and their short
/// results; its final answer whole when no transcript is at hand.
fn expanded_child(
    out: &mut Vec<Line<'static>>,
    child: &ChildResult,
    log: Option<&ChildLog>,
    palette: &Palette,
    width: usize,
) {
    let Some(log) = log else {
        if child.session_file.is_none() && child.status.is_done() {
            note(out, "(its transcript was not kept)", palette, width);
        }
        outcome(out, child, usize::MAX, palette, width);
        return;
    };
    if let Some(text) = &log.note {
        note(out, text, palette, width);
    }
    let shown = transcript_lines(out, &log.transcript, palette, width);
    if shown == 0 {
        outcome(out, child, usize::MAX, palette, width);
    } else if let Some(error) = &child.error_message {
        body(
            out,
            error,
            usize::MAX,
            palette.style(Token::Error),
            palette,
            width,
        );
    }
}

fn note(out: &mut Vec<Line<'static>>, text: &str, palette: &Palette, width: usize) {
    let text = clean(text);
    prefixed(out, &text, BODY_INDENT, palette.dim(), width, palette.dim());
}

/// The child's items, compactly; how many were drawn. Its prompt (the task) is on the row.
fn transcript_lines(
    out: &mut Vec<Line<'static>>,
    transcript: &Transcript,
    palette: &Palette,
    width: usize,
) -> usize {
    let mut shown = 0;
    for item in transcript.items() {
        match item {
            Item::Assistant { message, .. } => {
                let text = Transcript::answer_text(message);
                if text.trim().is_empty() {
                    continue;
                }
                body(out, &text, usize::MAX, Default::default(), palette, width);
            }
            Item::Tool(call) => {
                let summary = clean(&tool_summary(call));
                let header = format!("→ {} {summary}", clean(&call.name));
                let header = cut(header.trim_end(), width.saturating_sub(BODY_INDENT.len()));
                out.push(Line::from(vec![
                    Span::raw(BODY_INDENT),
                    Span::styled(header, palette.style(Token::ToolTitle)),
                ]));
                let token = if call.is_error {
                    Token::Error
                } else {
                    Token::ToolOutput
                };
                let result = call.output_text();
                let style = palette.style(token);
                indented(
                    out,
                    &result,
                    RESULT_LINES,
                    RESULT_INDENT,
                    style,
                    palette,
                    width,
                );
            }
            Item::Notice { text, error: true } => {
                body(
                    out,
                    text,
                    usize::MAX,
                    palette.style(Token::Error),
                    palette,
                    width,
                );
            }
            _ => continue,
        }
        shown += 1;
    }
    shown
}

/// One line of a child's text as the screen may show it.
fn clean(text: &str) -> String {
    screen_text(&text.replace(['\n', '\r'], " ")).into_owned()
}

/// `text` in at most `width` cells, `…` where it was cut.
fn cut(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_owned();
    }
    if width == 0 {
        return String::new();
    }
    format!("{}…", take_width(text, width - 1))
}
