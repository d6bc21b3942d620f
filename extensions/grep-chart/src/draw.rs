//! Draws parsed grep hits: a summary line, one bar per file (its match count against the
//! busiest file's, in eighths of a cell), and, expanded, every line grouped under its file with
//! the line numbers aligned and the matched text highlighted. Every line fits `width`: text is
//! measured in terminal cells, and what does not fit is cut with `…`.

use crate::parse::{File, Hits};
use pi_guest_sdk::{Span, Style, StyledLine};
use regex::Regex;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Files charted before Ctrl+O expands the result.
const COLLAPSED_FILES: usize = 8;
/// Cells before each line, as pi indents a tool's output.
const INDENT: &str = "  ";
/// The longest bar: wider, a chart reads as a wall.
const MAX_BAR: usize = 40;
/// The partial blocks, one to seven eighths of a cell.
const EIGHTHS: [char; 7] = ['▏', '▎', '▍', '▌', '▋', '▊', '▉'];

/// What a span looks like: a theme colour (so the chart follows the user's theme) and bold.
fn span(text: impl Into<String>, fg: Option<&str>, bold: bool) -> Span {
    Span {
        text: text.into(),
        style: Style {
            fg: fg.map(str::to_owned),
            bg: None,
            bold,
            italic: false,
            dim: false,
            underline: false,
        },
    }
}

/// The whole drawing; `highlight` finds the matched text in a line.
pub fn draw(
    hits: &Hits,
    width: usize,
    expanded: bool,
    highlight: Option<&Regex>,
) -> Vec<StyledLine> {
    let mut out = vec![summary(hits)];
    let shown = if expanded {
        hits.files.len()
    } else {
        COLLAPSED_FILES.min(hits.files.len())
    };
    out.extend(chart(&hits.files[..shown], width));
    if shown < hits.files.len() {
        let more = hits.files.len() - shown;
        out.push(vec![span(
            format!("{INDENT}… {more} more {}", plural(more, "file")),
            Some("muted"),
            false,
        )]);
    }
    if expanded {
        for file in &hits.files {
            out.push(vec![
                span(INDENT, None, false),
                span(&file.path, Some("accent"), true),
            ]);
            out.extend(file_lines(file, highlight));
        }
    } else {
        let lines = hits.files.iter().map(|f| f.lines.len()).sum::<usize>();
        out.push(vec![span(
            format!("{INDENT}Ctrl+O shows the {lines} {}", plural(lines, "line")),
            Some("dim"),
            false,
        )]);
    }
    if let Some(notice) = &hits.notice {
        out.push(vec![span(
            format!("{INDENT}{notice}"),
            Some("warning"),
            false,
        )]);
    }
    out.into_iter().map(|line| fit(line, width)).collect()
}

fn plural(n: usize, word: &str) -> String {
    match (n, word) {
        (1, _) => word.to_owned(),
        (_, "match") => "matches".to_owned(),
        _ => format!("{word}s"),
    }
}

/// `7 matches in 3 files`, the numbers bold.
fn summary(hits: &Hits) -> StyledLine {
    let (matches, files) = (hits.matches(), hits.files.len());
    vec![
        span(INDENT, None, false),
        span(matches.to_string(), Some("accent"), true),
        span(
            format!(" {} in ", plural(matches, "match")),
            Some("muted"),
            false,
        ),
        span(files.to_string(), Some("accent"), true),
        span(format!(" {}", plural(files, "file")), Some("muted"), false),
    ]
}

/// One bar per file: `name  ████▌  4`, names left-aligned in a column of their widest (at most
/// two fifths of the width, longer ones keep their end), counts right-aligned after the bars.
fn chart(files: &[File], width: usize) -> Vec<StyledLine> {
    let most = files.iter().map(File::matches).max().unwrap_or(0).max(1);
    let count_cells = most.to_string().len();
    let widest = files.iter().map(|f| f.path.width()).max().unwrap_or(0);
    let name_cells = widest.min((width * 2 / 5).max(8));
    // indent, name, two spaces, bar, a space, count
    let bar_cells = width
        .saturating_sub(INDENT.len() + name_cells + 3 + count_cells)
        .min(MAX_BAR);
    files
        .iter()
        .map(|file| {
            let name = keep_end(&file.path, name_cells);
            let pad = name_cells.saturating_sub(name.width());
            let bar = bar(file.matches(), most, bar_cells);
            let gap = bar_cells.saturating_sub(bar.chars().count());
            vec![
                span(INDENT, None, false),
                span(format!("{name}{}  ", " ".repeat(pad)), None, false),
                span(bar, Some("accent"), false),
                span(" ".repeat(gap + 1), None, false),
                span(
                    format!("{:>count_cells$}", file.matches()),
                    Some("muted"),
                    false,
                ),
            ]
        })
        .collect()
}

/// A bar `value / most` of `cells` long, to an eighth of a cell; at least an eighth when
/// `value` is not zero, so that every file that matched shows.
fn bar(value: usize, most: usize, cells: usize) -> String {
    let eighths = (value * cells * 8 + most / 2) / most;
    let eighths = if value > 0 { eighths.max(1) } else { 0 };
    let mut bar = "█".repeat(eighths / 8);
    if let Some(&part) = (eighths % 8).checked_sub(1).and_then(|i| EIGHTHS.get(i)) {
        bar.push(part);
    }
    bar
}

/// A file's lines: `  12 │ text` for a match (the matched text highlighted), `  11 ┆ text`
/// for context, the numbers right-aligned to the file's largest.
fn file_lines(file: &File, highlight: Option<&Regex>) -> Vec<StyledLine> {
    let digits = file
        .lines
        .iter()
        .map(|l| l.number.to_string().len())
        .max()
        .unwrap_or(1);
    file.lines
        .iter()
        .map(|line| {
            let (bar, color) = if line.context {
                ("┆", Some("dim"))
            } else {
                ("│", Some("muted"))
            };
            let mut spans = vec![
                span(
                    format!("{INDENT}{INDENT}{:>digits$} ", line.number),
                    Some("muted"),
                    false,
                ),
                span(format!("{bar} "), color, false),
            ];
            match highlight.filter(|_| !line.context) {
                Some(regex) => spans.extend(highlighted(&line.text, regex)),
                None => spans.push(span(
                    &line.text,
                    if line.context { Some("dim") } else { None },
                    false,
                )),
            }
            spans
        })
        .collect()
}

/// `text` as spans, the parts `regex` matches in the warning colour and bold.
fn highlighted(text: &str, regex: &Regex) -> Vec<Span> {
    let mut spans = Vec::new();
    let mut at = 0;
    for found in regex.find_iter(text).filter(|m| !m.is_empty()) {
        if found.start() > at {
            spans.push(span(&text[at..found.start()], None, false));
        }
        spans.push(span(found.as_str(), Some("warning"), true));
        at = found.end();
    }
    if at < text.len() {
        spans.push(span(&text[at..], None, false));
    }
    spans
}

/// The end of `text` in at most `cells` cells, `…` in front when it was cut (a path's end
/// names the file).
fn keep_end(text: &str, cells: usize) -> String {
    if text.width() <= cells {
        return text.to_owned();
    }
    let mut kept: Vec<char> = Vec::new();
    let mut used = 1;
    for c in text.chars().rev() {
        let w = c.width().unwrap_or(0);
        if used + w > cells {
            break;
        }
        used += w;
        kept.push(c);
    }
    kept.push('…');
    kept.into_iter().rev().collect()
}

/// `line` cut to `width` cells, the last cell `…` when something was cut. Tabs become spaces
/// (a tab's width depends on the terminal, which the renderer cannot know) and other control
/// characters `?`, so that a file's escape sequences never reach the terminal.
fn fit(line: StyledLine, width: usize) -> StyledLine {
    let total: usize = line.iter().map(|s| cells(&s.text)).sum();
    if total <= width {
        return line.into_iter().map(detab).collect();
    }
    let mut room = width.saturating_sub(1);
    let mut out = Vec::new();
    for s in line {
        let s = detab(s);
        if room == 0 {
            break;
        }
        let mut text = String::new();
        for c in s.text.chars() {
            let w = c.width().unwrap_or(0);
            if w > room {
                room = 0;
                break;
            }
            room -= w;
            text.push(c);
        }
        out.push(Span {
            text,
            style: s.style,
        });
    }
    if width > 0 {
        out.push(span("…", Some("muted"), false));
    }
    out
}

fn detab(mut s: Span) -> Span {
    if s.text.chars().any(char::is_control) {
        s.text = s
            .text
            .chars()
            .map(|c| match c {
                '\t' => "    ".to_owned(),
                c if c.is_control() => "?".to_owned(),
                c => c.to_string(),
            })
            .collect();
    }
    s
}

fn cells(text: &str) -> usize {
    text.chars()
        .map(|c| match c {
            '\t' => 4,
            c if c.is_control() => 1,
            c => c.width().unwrap_or(0),
        })
        .sum()
}
