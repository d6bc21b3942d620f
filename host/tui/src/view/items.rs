//! How a tool call and its result look: pi's own drawing per built-in tool, or what a
//! renderer component makes of it.

use super::Palette;
use crate::theme::Token;
use crate::transcript::{BashRun, ToolCall};
use crate::wrap::{self, wrap};
use pi_ext_api::{MessageRenderer, RenderTarget, StyledLine};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use serde_json::Value;
use std::borrow::Cow;
use std::sync::Arc;
use unicode_width::UnicodeWidthStr;

/// Lines of a tool's output shown before Ctrl+O expands it.
const TOOL_TAIL: usize = 8;

/// What a tool call's header says about its arguments.
pub(super) fn tool_summary(call: &ToolCall) -> String {
    let arg = |key: &str| call.args.get(key).and_then(Value::as_str).unwrap_or("");
    match call.name.as_str() {
        "bash" => format!("$ {}", arg("command")),
        "read" => {
            let range = match (call.args.get("offset"), call.args.get("limit")) {
                (Some(o), Some(l)) => format!(":{o}+{l}"),
                (Some(o), None) => format!(":{o}"),
                _ => String::new(),
            };
            format!("{}{range}", arg("path"))
        }
        "edit" | "write" | "ls" => arg("path").to_owned(),
        "subagent" => subagent_summary(&call.args),
        "grep" | "find" => format!("{} {}", arg("pattern"), arg("path"))
            .trim()
            .to_owned(),
        _ => match &call.args {
            Value::Null => String::new(),
            other => other.to_string(),
        },
    }
}

/// `scout: task`, `3 tasks` or `chain of 2`: the rows under it say the rest.
fn subagent_summary(args: &Value) -> String {
    let count = |key: &str| args.get(key).and_then(Value::as_array).map(Vec::len);
    if let Some(n) = count("tasks") {
        return format!("{n} tasks");
    }
    if let Some(n) = count("chain") {
        return format!("chain of {n}");
    }
    let arg = |key: &str| args.get(key).and_then(Value::as_str).unwrap_or("");
    let task = arg("task").lines().next().unwrap_or("");
    format!("{}: {task}", arg("agent"))
}

/// What the renderer that draws `target` made of it: `None` when no renderer draws it or it
/// left it to pi, `Some(Err)` when it failed (pi draws it then, and says so).
pub(super) fn rendered(
    renderers: &[Arc<dyn MessageRenderer>],
    target: &RenderTarget<'_>,
    palette: &Palette,
    width: usize,
) -> Option<Result<Vec<Line<'static>>, String>> {
    let renderer = renderers.iter().find(|r| r.handles(target))?;
    match renderer.render(target, width as u32) {
        Ok(Some(lines)) => Some(Ok(lines
            .into_iter()
            .map(|line| styled_line(line, palette, width))
            .collect())),
        Ok(None) => None,
        Err(error) => Some(Err(format!("renderer failed: {error}"))),
    }
}

/// A renderer's line: theme colour names become colours; anything past `width` is cut (a
/// component's promise to keep to the width is not trusted).
fn styled_line(line: StyledLine, palette: &Palette, width: usize) -> Line<'static> {
    let mut room = width;
    let mut spans = Vec::new();
    for span in line {
        // A component's text is drawn, never obeyed: no escape sequence gets through.
        let text: String = crate::wrap::take_width(&wrap::screen_text(&span.text), room);
        room -= text.width().min(room);
        let mut style = Style::default();
        if let Some(fg) = span
            .style
            .fg
            .as_deref()
            .and_then(|n| theme_color(palette, n))
        {
            style = style.patch(palette.color(fg));
        }
        if let Some(bg) = span
            .style
            .bg
            .as_deref()
            .and_then(|n| theme_color(palette, n))
            && let Some(bg) = palette.colors.fit(bg)
        {
            style = style.bg(bg);
        }
        let modifiers = [
            (span.style.bold, Modifier::BOLD),
            (span.style.italic, Modifier::ITALIC),
            (span.style.dim, Modifier::DIM),
            (span.style.underline, Modifier::UNDERLINED),
        ];
        for (on, modifier) in modifiers {
            if on {
                style = style.add_modifier(modifier);
            }
        }
        spans.push(Span::styled(text, style));
    }
    Line::from(spans)
}

/// A renderer's colour: a theme token's name or `#rrggbb`.
fn theme_color(palette: &Palette, name: &str) -> Option<Color> {
    if name.starts_with('#') {
        return crate::theme::hex(name);
    }
    palette.theme.by_name(name).flatten()
}

/// The first line of a tool call: its state mark, name and what it was asked.
pub(super) fn tool_header(
    out: &mut Vec<Line<'static>>,
    call: &ToolCall,
    palette: &Palette,
    width: usize,
) {
    let (mark, color) = match (call.done, call.is_error) {
        (false, _) => ("○ ", Token::Warning),
        (true, false) => ("● ", Token::Success),
        (true, true) => ("● ", Token::Error),
    };
    let header = format!("{} {}", call.name, tool_summary(call));
    prefixed(
        out,
        header.trim_end(),
        mark,
        palette.style(color),
        width,
        palette.bold(Token::ToolTitle),
    );
}

pub(super) fn tool_lines(
    out: &mut Vec<Line<'static>>,
    call: &ToolCall,
    expanded: bool,
    palette: &Palette,
    width: usize,
) {
    tool_header(out, call, palette, width);
    let text = match call.name.as_str() {
        "write" if !call.done => Cow::Borrowed(""),
        "write" => Cow::Borrowed(
            call.args
                .get("content")
                .and_then(Value::as_str)
                .unwrap_or(""),
        ),
        "edit" => diff_text(call).map_or_else(|| call.output_text(), Cow::Borrowed),
        _ => call.output_text(),
    };
    // Output ending in a newline (most commands') has no empty last line to show.
    let text = text.trim_end_matches(['\n', '\r']);
    output_tail(out, text, expanded, palette, width, |line| {
        match line.chars().next() {
            _ if call.is_error => palette.style(Token::Error),
            Some('+') if call.name == "edit" => palette.style(Token::ToolDiffAdded),
            Some('-') if call.name == "edit" => palette.style(Token::ToolDiffRemoved),
            _ => palette.style(Token::ToolOutput),
        }
    });
}

/// A user shell command: `$ command` (marked when kept out of the context), its output's tail
/// (all of it with Ctrl+O), and how it ended when that was not plain success.
pub(super) fn bash_lines(
    out: &mut Vec<Line<'static>>,
    run: &BashRun,
    expanded: bool,
    palette: &Palette,
    width: usize,
) {
    let failed = run.cancelled || run.exit_code.is_some_and(|c| c != 0);
    let (mark, color) = match (run.done, failed) {
        (false, _) => ("○ ", Token::Warning),
        (true, false) => ("● ", Token::BashMode),
        (true, true) => ("● ", Token::Error),
    };
    let excluded = if run.excluded {
        "  (not in the context)"
    } else {
        ""
    };
    let header = format!("$ {}{excluded}", run.command);
    prefixed(
        out,
        &header,
        mark,
        palette.style(color),
        width,
        palette.bold(Token::ToolTitle),
    );
    output_tail(
        out,
        run.output.trim_end_matches(['\n', '\r']),
        expanded,
        palette,
        width,
        |_| palette.dim(),
    );
    let ending = match (run.done, run.cancelled, run.exit_code) {
        (true, true, _) => Some("cancelled".to_owned()),
        (true, false, Some(code)) if code != 0 => Some(format!("exit code {code}")),
        (true, false, None) => Some("killed".to_owned()),
        _ => None,
    };
    if let Some(ending) = ending {
        out.push(Line::styled(
            format!("    ({ending})"),
            palette.style(Token::Error),
        ));
    }
}

/// The last lines of `text` wrapped under an indent, or all of them when `expanded`, with a
/// line saying how many are hidden.
fn output_tail(
    out: &mut Vec<Line<'static>>,
    text: &str,
    expanded: bool,
    palette: &Palette,
    width: usize,
    style: impl Fn(&str) -> Style,
) {
    if text.is_empty() {
        return;
    }
    let width = width.saturating_sub(4);
    let (lines, hidden) = if expanded {
        (wrap(text, width), 0)
    } else {
        wrapped_tail(text, width, TOOL_TAIL)
    };
    if hidden > 0 {
        out.push(Line::styled(
            format!("    … {hidden} more lines (Ctrl+O to expand)"),
            palette.dim(),
        ));
    }
    for line in lines {
        let style = style(&line);
        out.push(Line::from(vec![
            Span::raw("    "),
            Span::styled(line, style),
        ]));
    }
}

/// The last `count` screen lines of `text` wrapped to `width`, and how many lines come before
/// them. Only the source lines the tail shows are wrapped (the rest are counted): a resumed
/// session lays out thousands of collapsed outputs when it opens.
fn wrapped_tail(text: &str, width: usize, count: usize) -> (Vec<String>, usize) {
    let mut rows: Vec<String> = Vec::new();
    let mut rest = Some(text);
    while rows.len() < count {
        let Some(remaining) = rest else { break };
        let (before, line) = match remaining.rfind('\n') {
            Some(at) => (Some(&remaining[..at]), &remaining[at + 1..]),
            None => (None, remaining),
        };
        let mut wrapped = wrap(line, width);
        wrapped.append(&mut rows);
        rows = wrapped;
        rest = before;
    }
    let cut = rows.len().saturating_sub(count);
    let hidden = cut + rest.map_or(0, |r| wrap::rows(r, width));
    (rows.split_off(cut), hidden)
}

/// The diff `edit` reports in its details, when it has one.
fn diff_text(call: &ToolCall) -> Option<&str> {
    let output = call.output.as_ref()?;
    output.details().get("diff")?.as_str()
}

/// `text` wrapped under a first-line prefix (and an indent of the same width after it).
pub(super) fn prefixed(
    out: &mut Vec<Line<'static>>,
    text: &str,
    prefix: &str,
    prefix_style: Style,
    width: usize,
    text_style: Style,
) {
    let indent = " ".repeat(prefix.width());
    for (i, line) in wrap(text, width.saturating_sub(prefix.width()))
        .into_iter()
        .enumerate()
    {
        let lead = if i == 0 {
            prefix.to_owned()
        } else {
            indent.clone()
        };
        out.push(Line::from(vec![
            Span::styled(lead, prefix_style),
            Span::styled(line, text_style),
        ]));
    }
}

#[cfg(test)]
mod tests {
    use super::{Palette, output_tail, wrapped_tail};
    use crate::color::ColorLevel;
    use crate::theme::Theme;
    use crate::wrap::wrap;
    use ratatui::style::Style;

    fn shown(text: &str, expanded: bool) -> Vec<String> {
        let palette = Palette {
            colors: ColorLevel::None,
            theme: Theme::default_dark(),
        };
        let mut out = Vec::new();
        output_tail(&mut out, text, expanded, &palette, 40, |_| Style::default());
        out.iter()
            .map(|line| line.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    #[test]
    fn a_collapsed_output_shows_its_last_lines_under_the_count_of_the_rest() {
        let text: Vec<String> = (0..20).map(|i| format!("line {i}")).collect();
        let text = text.join("\n");
        let mut expected = vec!["    … 12 more lines (Ctrl+O to expand)".to_owned()];
        expected.extend((12..20).map(|i| format!("    line {i}")));
        assert_eq!(shown(&text, false), expected);
        assert_eq!(shown(&text, true).len(), 20);
        assert_eq!(shown("one\ntwo", false), ["    one", "    two"]);
    }

    #[test]
    fn the_tail_is_the_end_of_the_whole_wrap() {
        let texts = [
            "one",
            "a\nb\nc",
            "first line\n\nthird line is long enough to wrap at ten\nlast",
            "\n\n\n",
            "0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10 wraps into more than one screen line here",
        ];
        for text in texts {
            for (width, count) in [(10, 8), (4, 3), (80, 1), (1, 2)] {
                let whole = wrap(text, width);
                let cut = whole.len().saturating_sub(count);
                assert_eq!(
                    wrapped_tail(text, width, count),
                    (whole[cut..].to_vec(), cut),
                    "{text:?} at {width}, {count}"
                );
            }
        }
    }
}
