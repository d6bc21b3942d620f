//! `/rewind` (and the double-Esc action `rewind`): the prompts of the current branch, newest
//! first; for the one chosen, what going back would change (shown above the choices); then
//! the three ways to go back, and whether to overwrite files changed outside pi since.

use super::mcp::{safe, safe_lines};
use super::{Action, Ui};
use crate::picker::{Entry, Picker, Purpose};
use pi_app::{App, ChangeKind, RewindMode, RewindPointKind, RewindPreview};

/// What `/rewind` was told so far.
#[derive(Debug, Default)]
pub(super) struct RewindUi {
    entry_id: Option<String>,
    preview: Option<RewindPreview>,
    mode: Option<RewindMode>,
}

impl Ui {
    /// The prompts (and earlier rewinds) of the branch, newest first.
    pub(super) fn open_rewind(&mut self, app: &App) {
        self.rewind = RewindUi::default();
        let points = app.rewind_points();
        if points.is_empty() {
            self.hint = Some("No earlier prompt to rewind to".to_owned());
            return;
        }
        let entries = points
            .iter()
            .rev()
            .map(|point| {
                let text = safe(point.text.lines().next().unwrap_or_default());
                let label = match point.kind {
                    RewindPointKind::Prompt => text,
                    RewindPointKind::Rewind => format!("↶ undo the rewind to: {text}"),
                };
                Entry {
                    label: label.chars().take(80).collect(),
                    detail: clock(&point.timestamp),
                    search_text: String::new(),
                    value: point.entry_id.clone(),
                }
            })
            .collect();
        self.open_picker(Picker::new(
            Purpose::Rewind,
            "Rewind to before which prompt?",
            entries,
        ));
    }

    pub(super) fn rewind_chosen(&mut self, purpose: Purpose, value: String, app: &App) -> Action {
        match purpose {
            Purpose::Rewind => {
                self.ask_how(app, value);
                Action::None
            }
            Purpose::RewindHow => {
                let Some(mode) = parse_mode(&value) else {
                    return Action::None;
                };
                self.rewind.mode = Some(mode);
                let outside = self.changed_outside();
                if mode.restores_files() && outside > 0 {
                    self.ask_overwrite(outside);
                    return Action::None;
                }
                self.rewind_action(false)
            }
            Purpose::RewindOverwrite => self.rewind_action(value == "overwrite"),
            _ => Action::None,
        }
    }

    /// Shows what going back to `entry_id` would change, then asks how to go back.
    fn ask_how(&mut self, app: &App, entry_id: String) {
        let files = app
            .rewind_points()
            .iter()
            .any(|p| p.entry_id == entry_id && p.files);
        let preview = match files.then(|| app.rewind_preview(&entry_id)) {
            Some(Ok(preview)) => Some(preview),
            Some(Err(error)) => {
                self.transcript.notice(safe_lines(&error.to_string()), true);
                None
            }
            None => None,
        };
        if let Some(preview) = &preview {
            self.transcript.notice(summary(preview), false);
        }
        let mut entries = Vec::new();
        if preview.is_some() {
            entries.push(Entry::choice(
                "all",
                "Restore files and conversation",
                "put the files back and continue from before this prompt",
            ));
            entries.push(Entry::choice(
                "files",
                "Files only",
                "put the files back; the conversation stays as it is",
            ));
        }
        entries.push(Entry::choice(
            "conversation",
            "Conversation only",
            "continue from before this prompt, as /tree does; the files stay as they are",
        ));
        self.rewind.entry_id = Some(entry_id);
        self.rewind.preview = preview;
        self.open_picker(Picker::new(
            Purpose::RewindHow,
            "Rewind what? (the changes are shown above)",
            entries,
        ));
    }

    fn changed_outside(&self) -> usize {
        self.rewind.preview.as_ref().map_or(0, |p| {
            p.changes.iter().filter(|c| c.changed_outside).count()
        })
    }

    fn ask_overwrite(&mut self, count: usize) {
        let entries = vec![
            Entry::choice(
                "keep",
                "Keep them",
                "leave the files changed outside pi as they are; put the rest back",
            ),
            Entry::choice(
                "overwrite",
                "Overwrite them",
                "put them back too, losing the changes made outside pi",
            ),
        ];
        let title = format!(
            "{count} file{} changed outside pi since pi last saw {} (marked above): overwrite?",
            if count == 1 { "" } else { "s" },
            if count == 1 { "it" } else { "them" },
        );
        self.open_picker(Picker::new(Purpose::RewindOverwrite, title, entries));
    }

    fn rewind_action(&mut self, overwrite: bool) -> Action {
        let chosen = std::mem::take(&mut self.rewind);
        match (chosen.entry_id, chosen.mode) {
            (Some(entry_id), Some(mode)) => Action::Rewind {
                entry_id,
                mode,
                overwrite,
            },
            _ => Action::None,
        }
    }
}

fn parse_mode(value: &str) -> Option<RewindMode> {
    match value {
        "all" => Some(RewindMode::All),
        "files" => Some(RewindMode::Files),
        "conversation" => Some(RewindMode::Conversation),
        _ => None,
    }
}

/// The time of day of an ISO timestamp (`2026-12-05T10:04:05.123Z` → `10:04:05`).
fn clock(timestamp: &str) -> String {
    timestamp
        .split_once('T')
        .map(|(_, time)| time.chars().take(8).collect())
        .unwrap_or_default()
}

/// What going back would change, a line per path, then what no checkpoint covers.
pub(crate) fn summary(preview: &RewindPreview) -> String {
    if preview.changes.is_empty() && preview.not_covered.is_empty() {
        return "No file changed since then.".to_owned();
    }
    let mut lines = vec![format!(
        "Since then: {} file{} changed; going back undoes:",
        preview.changes.len(),
        if preview.changes.len() == 1 { "" } else { "s" }
    )];
    for change in &preview.changes {
        let what = match change.change {
            ChangeKind::Modified => "modified",
            ChangeKind::Created => "created ",
            ChangeKind::Deleted => "deleted ",
        };
        let outside = if change.changed_outside {
            "  (changed outside pi since)"
        } else {
            ""
        };
        lines.push(format!(
            "  {what} {}{outside}",
            safe(&change.path.display().to_string())
        ));
    }
    for line in &preview.not_covered {
        lines.push(format!("Not covered: {}", safe(line)));
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::super::tests::{app, render, ui};
    use super::*;
    use pi_app::FileChange;
    use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};

    fn press(ui: &mut Ui, app: &App, code: KeyCode) -> Action {
        ui.handle(&Event::Key(KeyEvent::new(code, KeyModifiers::NONE)), app)
    }

    #[test]
    fn rewind_lists_the_prompts_newest_first_and_without_checkpoints_offers_the_conversation() {
        let app = app();
        let mut ui = ui(&app);
        for c in "/rewind".chars() {
            press(&mut ui, &app, KeyCode::Char(c));
        }
        press(&mut ui, &app, KeyCode::Enter);
        if ui.picker.is_none() {
            press(&mut ui, &app, KeyCode::Enter);
        }
        // The entries' times are the test's: the snapshot holds a placeholder.
        let mut screen = render(&ui, 80, 12);
        for point in app.rewind_points() {
            screen = screen.replace(&clock(&point.timestamp), "hh:mm:ss");
        }
        insta::assert_snapshot!("rewind_points", screen);
        press(&mut ui, &app, KeyCode::Enter);
        insta::assert_snapshot!("rewind_how_without_checkpoints", render(&ui, 80, 12));
        let action = press(&mut ui, &app, KeyCode::Enter);
        let docs = app.rewind_points().pop().unwrap().entry_id;
        assert!(
            matches!(&action, Action::Rewind { entry_id, mode: RewindMode::Conversation, overwrite: false } if *entry_id == docs),
            "{action:?}"
        );
    }

    #[test]
    fn the_summary_names_each_change_what_was_changed_outside_and_what_is_not_covered() {
        let change = |path: &str, change, changed_outside| FileChange {
            path: path.into(),
            change,
            changed_outside,
        };
        let preview = RewindPreview {
            entry_id: "e1".into(),
            changes: vec![
                change("src/a.rs", ChangeKind::Modified, false),
                change("new.txt", ChangeKind::Created, false),
                change("b.txt", ChangeKind::Deleted, false),
                change("notes\u{1b}[31m.md", ChangeKind::Modified, true),
            ],
            not_covered: vec![
                "changes by commands to files git ignores in /w, or outside it".into(),
            ],
        };
        insta::assert_snapshot!("rewind_summary", summary(&preview));
    }
}
