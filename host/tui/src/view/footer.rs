//! The footer: the permission mode when it is not `auto`, where, which session, which model,
//! what it cost, and how full the context is; under it, when extensions set any, their
//! statuses on one line (pi's extension statuses). In `auto` it is pi's footer unchanged.

use super::{Palette, Screen};
use crate::theme::Token;
use pi_app::permissions::PermissionMode;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

/// What the footer shows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Footer {
    /// The working directory, `~` for the home directory.
    pub cwd: String,
    /// The git branch checked out there.
    pub branch: Option<String>,
    pub session_name: Option<String>,
    pub model: String,
    pub thinking: String,
    pub context_window: u64,
    /// The permission mode (shown unless it is `auto`).
    pub permission_mode: PermissionMode,
}

/// The mode as the footer shows it, and its colour: plan mode stands out most.
fn mode_label(mode: PermissionMode) -> Option<(&'static str, Token)> {
    match mode {
        PermissionMode::Auto => None,
        PermissionMode::Plan => Some(("plan mode", Token::Warning)),
        PermissionMode::AskWrites => Some(("ask-writes", Token::Accent)),
        PermissionMode::AskAll => Some(("ask-all", Token::Accent)),
    }
}

pub(super) fn footer_line(screen: &Screen, palette: &Palette, width: usize) -> Line<'static> {
    let Some((mode, token)) = mode_label(screen.footer.permission_mode) else {
        return Line::from(usage_spans(screen, palette, width));
    };
    // ` plan mode •` first: it says what the agent may do, so it never gives way.
    let mut spans = vec![
        Span::styled(format!(" {mode}"), palette.bold(token)),
        Span::styled(" •", palette.dim()),
    ];
    let rest = width.saturating_sub(mode.width() + 3);
    spans.extend(usage_spans(screen, palette, rest));
    Line::from(spans)
}

/// pi's footer line in `width` cells.
fn usage_spans(screen: &Screen, palette: &Palette, width: usize) -> Vec<Span<'static>> {
    let footer = screen.footer;
    let usage = screen.transcript.last_usage.unwrap_or_default();
    let context = usage.input + usage.cache_read + usage.cache_write + usage.output;
    // The children's tokens and cost count with the session's; its context is the parent's.
    let children = screen.transcript.children_usage;
    let percent = if footer.context_window > 0 {
        (context as f64 * 100.0 / footer.context_window as f64).min(100.0)
    } else {
        0.0
    };
    let bar_color = match percent {
        p if p >= 90.0 => Token::Error,
        p if p >= 70.0 => Token::Warning,
        _ => Token::Success,
    };
    let filled = ((percent / 10.0).round() as usize).min(10);
    let context_part = format!(
        "{}{} {percent:.0}%",
        "█".repeat(filled),
        "░".repeat(10 - filled)
    );
    // Most important last: the context gauge and the model stay when the line is narrow.
    let optional = [
        format!("${:.3}", usage.cost.total + children.cost),
        format!(
            "↑{} ↓{} R{} W{}",
            short(usage.input + children.input),
            short(usage.output + children.output),
            short(usage.cache_read + children.cache_read),
            short(usage.cache_write + children.cache_write)
        ),
        footer.thinking.clone(),
        footer.model.clone(),
    ];
    let mut left = footer.cwd.clone();
    if let Some(branch) = &footer.branch {
        left.push_str(&format!(" ({branch})"));
    }
    if let Some(name) = &footer.session_name {
        left.push_str(&format!(" • {name}"));
    }
    // The directory keeps up to 20 cells before anything optional is shown.
    let reserved = left.width().min(20) + 2;
    let mut right: Vec<String> = Vec::new();
    let mut used = context_part.width() + 1;
    for part in optional.iter().rev() {
        // A narrow line shows the model without its provider.
        let part = match part.split_once('/') {
            Some((_, id)) if used + part.width() + 3 + reserved > width => id.to_owned(),
            _ => part.clone(),
        };
        if used + part.width() + 3 + reserved > width {
            break;
        }
        used += part.width() + 3;
        right.push(part);
    }
    right.reverse();
    let room = width.saturating_sub(used + 2);
    let left = truncate_start(&left, room);
    let gap = width.saturating_sub(used + left.width() + 1).max(1);
    let mut spans = vec![
        Span::styled(format!(" {left}"), palette.dim()),
        Span::raw(" ".repeat(gap)),
    ];
    for part in right {
        spans.push(Span::styled(format!("{part} • "), palette.dim()));
    }
    spans.push(Span::styled(context_part, palette.style(bar_color)));
    spans
}

/// The extensions' statuses (already in key order and cleaned) on one line, cut with `...` at
/// the edge, as pi shows them.
pub(super) fn status_slots_line(
    statuses: &[String],
    palette: &Palette,
    width: usize,
) -> Line<'static> {
    let line = statuses.join(" ");
    if line.width() <= width {
        return Line::from(line);
    }
    let mut kept = String::new();
    let mut used = 0;
    for ch in line.chars() {
        let w = unicode_width::UnicodeWidthChar::width(ch).unwrap_or(0);
        if used + w + 3 > width {
            break;
        }
        used += w;
        kept.push(ch);
    }
    Line::from(vec![Span::raw(kept), Span::styled("...", palette.dim())])
}

/// What a status slot shows of an extension's text: one line of printable text (line breaks
/// and tabs become spaces, runs of spaces one), as pi's footer does.
pub fn status_text(text: &str) -> String {
    let flat = text.replace(['\r', '\n', '\t'], " ");
    let clean = pi_ai::terminal_text::terminal_safe(&flat, pi_ai::terminal_text::Keep::Nothing);
    clean
        .split(' ')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The end of `text` in at most `width` cells, with `…` where it was cut.
fn truncate_start(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_owned();
    }
    let mut kept: Vec<char> = Vec::new();
    let mut used = 1;
    for ch in text.chars().rev() {
        let w = unicode_width::UnicodeWidthChar::width(ch).unwrap_or(0);
        if used + w > width {
            break;
        }
        used += w;
        kept.push(ch);
    }
    let tail: String = kept.into_iter().rev().collect();
    if width == 0 {
        String::new()
    } else {
        format!("…{tail}")
    }
}

/// `1234` → `1.2k`, `2500000` → `2.5M`.
pub(super) fn short(n: u64) -> String {
    match n {
        0..1000 => n.to_string(),
        1000..1_000_000 => format!("{:.1}k", n as f64 / 1000.0),
        _ => format!("{:.1}M", n as f64 / 1_000_000.0),
    }
}
