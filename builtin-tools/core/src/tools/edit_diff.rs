//! Diffs of an edit for the UI: a unified patch, a numbered display diff and the first
//! changed line (pi's `details.{patch, diff, firstChangedLine}`).

use similar::{ChangeTag, TextDiff};

const CONTEXT_LINES: usize = 4;

pub(crate) struct EditDiff {
    pub patch: String,
    pub display: String,
    pub first_changed_line: Option<usize>,
}

pub(crate) fn diff(path: &str, old: &str, new: &str) -> EditDiff {
    let text_diff = TextDiff::from_lines(old, new);
    let patch = text_diff
        .unified_diff()
        .context_radius(CONTEXT_LINES)
        .header(path, path)
        .to_string();
    let groups = text_diff.grouped_ops(CONTEXT_LINES);
    let width = old
        .lines()
        .count()
        .max(new.lines().count())
        .to_string()
        .len();
    let mut display = Vec::new();
    let mut first_changed_line = None;
    for (g, group) in groups.iter().enumerate() {
        if g > 0 {
            display.push(format!("{:>width$} ...", ""));
        }
        for op in group {
            for change in text_diff.iter_changes(op) {
                let text = change.value().trim_end_matches(['\n', '\r']);
                let line = match change.tag() {
                    ChangeTag::Delete => {
                        format!(
                            "-{:>width$} {text}",
                            change.old_index().map_or(0, |i| i + 1)
                        )
                    }
                    ChangeTag::Insert => {
                        let n = change.new_index().map_or(0, |i| i + 1);
                        first_changed_line.get_or_insert(n);
                        format!("+{n:>width$} {text}")
                    }
                    ChangeTag::Equal => {
                        format!(
                            " {:>width$} {text}",
                            change.old_index().map_or(0, |i| i + 1)
                        )
                    }
                };
                if change.tag() == ChangeTag::Delete && first_changed_line.is_none() {
                    first_changed_line = change.new_index().map(|i| i + 1).or_else(|| {
                        // A pure deletion: the line now at the deleted position.
                        Some(change.old_index().map_or(1, |i| i + 1))
                    });
                }
                display.push(line);
            }
        }
    }
    EditDiff {
        patch,
        display: display.join("\n"),
        first_changed_line,
    }
}
