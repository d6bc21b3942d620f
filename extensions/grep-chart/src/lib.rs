//! grep-chart: a renderer for pi's `grep` tool. Collapsed, a result is a bar chart of the
//! matches per file (which files matter is seen at a glance, not counted from the lines);
//! expanded (Ctrl+O), the chart and then every line grouped under its file, numbers aligned and
//! the matched text highlighted with the call's own pattern. The model still gets grep's plain
//! text: a renderer changes only what the person sees.
//!
//! Errors, "No matches found" and output it cannot read are left to pi (`None`).

mod draw;
mod parse;

use pi_guest_sdk::{ContentBlock, RenderSubject, RenderedToolResult, Renderer, StyledLine};
use regex::{Regex, RegexBuilder};
use serde_json::Value;

/// Narrower than this, a chart has no room for its bars: pi draws the result.
const MIN_WIDTH: u32 = 24;

struct GrepChart;

impl Renderer for GrepChart {
    fn custom_types() -> Vec<String> {
        Vec::new()
    }

    fn tool_names() -> Vec<String> {
        vec!["grep".into()]
    }

    fn render(subject: RenderSubject, width: u32) -> Option<Vec<StyledLine>> {
        match subject {
            RenderSubject::ToolResult(result) if width >= MIN_WIDTH => render_grep(&result, width),
            _ => None,
        }
    }
}

fn render_grep(result: &RenderedToolResult, width: u32) -> Option<Vec<StyledLine>> {
    if result.result.is_error {
        return None;
    }
    let text: Vec<&str> = result
        .result
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text(t) => Some(t.as_str()),
            ContentBlock::Image(_) => None,
        })
        .collect();
    let hits = parse::hits(&text.join("\n"))?;
    let highlight = pattern(&result.arguments);
    Some(draw::draw(
        &hits,
        width as usize,
        result.expanded,
        highlight.as_ref(),
    ))
}

/// The call's pattern as grep read it (`literal`, `ignoreCase`); `None` when it does not
/// compile here, and the lines are drawn without highlights.
fn pattern(arguments: &str) -> Option<Regex> {
    let args: Value = serde_json::from_str(arguments).ok()?;
    let pattern = args.get("pattern")?.as_str()?;
    let literal = args.get("literal").and_then(Value::as_bool) == Some(true);
    let source = if literal {
        regex::escape(pattern)
    } else {
        pattern.to_owned()
    };
    RegexBuilder::new(&source)
        .case_insensitive(args.get("ignoreCase").and_then(Value::as_bool) == Some(true))
        .size_limit(1 << 20)
        .build()
        .ok()
}

pi_guest_sdk::export_renderer!(GrepChart);
