//! The session tree navigator: every entry, the current branch marked, pi's filters, folds.

use super::{Action, Ui};
use crate::keys::Binding;
use crate::picker::{Entry, Picker, Purpose};
use pi_app::App;
use pi_app::app::{TreeRow, TreeRowKind};
use ratatui::crossterm::event::KeyEvent;

impl Ui {
    /// Enter on tree entry `id`: asks whether to summarise the branch left, as pi does (unless
    /// `branchSummary.skipPrompt`, or the entry is where the session already is).
    pub(super) fn ask_summary(&mut self, app: &App, id: String) -> Action {
        let at_leaf = app.tree_rows().iter().any(|r| r.is_leaf && r.id == id);
        if at_leaf || app.settings().branch_summary().skip_prompt {
            return Action::Navigate { id, summary: None };
        }
        let entries = vec![
            Entry::choice(
                "none",
                "No summary",
                "continue from there; the branch left stays in the tree",
            ),
            Entry::choice(
                "summarize",
                "Summarize",
                "leave a summary of the branch left",
            ),
            Entry::choice(
                "custom",
                "Summarize with custom prompt",
                "the same, with a focus you type",
            ),
        ];
        self.tree_target = Some(id);
        self.open_picker(Picker::new(
            Purpose::TreeSummary,
            "Summarize branch?",
            entries,
        ));
        Action::None
    }

    /// The answer to "Summarize branch?".
    pub(super) fn summary_chosen(&mut self, choice: &str) -> Action {
        let Some(id) = self.tree_target.take() else {
            return Action::None;
        };
        match choice {
            "summarize" => Action::Navigate {
                id,
                summary: Some(None),
            },
            "custom" => {
                self.prompt = Some(super::selectors::TextPrompt::focus(id));
                Action::None
            }
            _ => Action::Navigate { id, summary: None },
        }
    }

    /// The filter a key asks for in the tree navigator.
    pub(super) fn tree_filter_for(&self, key: &KeyEvent) -> Option<TreeFilter> {
        let is = |binding| self.keymap.is(key, binding);
        Some(if is(Binding::TreeFilterDefault) {
            TreeFilter::Default
        } else if is(Binding::TreeFilterNoTools) {
            TreeFilter::NoTools
        } else if is(Binding::TreeFilterUserOnly) {
            TreeFilter::UserOnly
        } else if is(Binding::TreeFilterLabeledOnly) {
            TreeFilter::LabeledOnly
        } else if is(Binding::TreeFilterAll) {
            TreeFilter::All
        } else if is(Binding::TreeFilterCycleForward) {
            self.tree_filter.step(false)
        } else if is(Binding::TreeFilterCycleBackward) {
            self.tree_filter.step(true)
        } else {
            return None;
        })
    }

    /// `/tree`: every entry of the session, the current branch marked, through `filter`.
    pub(super) fn open_tree(&mut self, app: &App, filter: TreeFilter) {
        self.tree_filter = filter;
        let rows = app.tree_rows();
        let leaf = rows.iter().find(|r| r.is_leaf).map(|r| r.id.clone());
        let parents: std::collections::HashMap<&str, Option<&str>> = rows
            .iter()
            .map(|r| (r.id.as_str(), r.parent_id.as_deref()))
            .collect();
        // Hidden: anything under a folded entry.
        let folded_above = |row: &TreeRow| {
            let mut at = row.parent_id.as_deref();
            while let Some(id) = at {
                if self.tree_folds.contains(id) {
                    return true;
                }
                at = parents.get(id).copied().flatten();
            }
            false
        };
        let has_children: std::collections::HashSet<&str> =
            rows.iter().filter_map(|r| r.parent_id.as_deref()).collect();
        let entries: Vec<Entry> = rows
            .iter()
            .filter(|row| filter.shows(row) && !folded_above(row))
            .map(|row| {
                let row = row.clone();
                let mark = match (row.is_leaf, row.on_branch) {
                    _ if self.tree_folds.contains(&row.id)
                        && has_children.contains(row.id.as_str()) =>
                    {
                        "▸"
                    }
                    (true, _) => "●",
                    (false, true) => "•",
                    (false, false) => "·",
                };
                let who = match row.kind {
                    TreeRowKind::User => "you: ",
                    TreeRowKind::Assistant => "pi: ",
                    TreeRowKind::ToolCalls | TreeRowKind::ToolResult | TreeRowKind::Other => "",
                };
                Entry {
                    label: format!("{}{mark} {who}{}", "  ".repeat(row.depth), row.text),
                    detail: label_detail(&row, self.tree_label_times),
                    search_text: String::new(),
                    value: row.id,
                }
            })
            .collect();
        if entries.is_empty() {
            self.notice(format!("Nothing to show with the {} filter", filter.name()));
            return;
        }
        let title = format!(
            "Tree, {} (Enter: continue there, Alt+Enter: with a summary of the branch left; \
             Ctrl+Left/Right: fold, unfold; Shift+L: label; Shift+T: label times; \
             Ctrl+D/T/U/L/A: default, no tools, user only, labeled, all)",
            filter.name()
        );
        let mut picker = Picker::new(Purpose::Tree, title, entries);
        if let Some(leaf) = leaf {
            picker.select_value(&leaf);
        }
        self.open_picker(picker);
    }
}

impl Ui {
    /// Opens the tree again (after a fold or a display change) with the cursor on `value`.
    pub(super) fn reopen_tree_at(&mut self, app: &App, value: Option<&str>) {
        let filter = self.tree_filter;
        self.close_picker();
        self.open_tree(app, filter);
        if let (Some(picker), Some(value)) = (&mut self.picker, value) {
            picker.select_value(value);
            self.sync_picker_rows();
        }
    }
}

/// `[label]`, with the minute it was set when `times` is on (`[label · 2026-12-01 14:03]`, UTC
/// as the file has it).
fn label_detail(row: &TreeRow, times: bool) -> String {
    let Some(label) = &row.label else {
        return String::new();
    };
    match row.label_timestamp.as_deref().filter(|_| times) {
        Some(stamp) => {
            let minute: String = stamp.chars().take(16).collect();
            format!("[{label} · {}]", minute.replace('T', " "))
        }
        None => format!("[{label}]"),
    }
}

/// Which entries the tree navigator lists (pi's filters and keys).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TreeFilter {
    /// Everything but tool results.
    Default,
    NoTools,
    UserOnly,
    LabeledOnly,
    All,
}

impl TreeFilter {
    /// In the order the cycle keys step through.
    const ALL: [TreeFilter; 5] = [
        TreeFilter::Default,
        TreeFilter::NoTools,
        TreeFilter::UserOnly,
        TreeFilter::LabeledOnly,
        TreeFilter::All,
    ];

    fn step(self, back: bool) -> TreeFilter {
        let at = TreeFilter::ALL.iter().position(|f| *f == self).unwrap_or(0);
        let n = TreeFilter::ALL.len();
        TreeFilter::ALL[if back { (at + n - 1) % n } else { (at + 1) % n }]
    }

    fn name(self) -> &'static str {
        match self {
            TreeFilter::Default => "default",
            TreeFilter::NoTools => "no tools",
            TreeFilter::UserOnly => "user only",
            TreeFilter::LabeledOnly => "labeled",
            TreeFilter::All => "all",
        }
    }

    fn shows(self, row: &TreeRow) -> bool {
        match self {
            TreeFilter::Default => row.kind != TreeRowKind::ToolResult,
            TreeFilter::NoTools => {
                !matches!(row.kind, TreeRowKind::ToolResult | TreeRowKind::ToolCalls)
            }
            TreeFilter::UserOnly => row.kind == TreeRowKind::User,
            TreeFilter::LabeledOnly => row.label.is_some(),
            TreeFilter::All => true,
        }
    }
}
