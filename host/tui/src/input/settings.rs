//! `/settings`: the common settings, each moved to its next value and saved at once.

use super::Ui;
use crate::picker::{Entry, Picker, Purpose};
use pi_app::App;

impl Ui {
    /// `/settings`: the common settings with their values; Enter moves one to its next value
    /// and saves it, the list staying open on it.
    pub(super) fn open_settings(&mut self, app: &App, selected: usize) {
        let entries = SETTINGS
            .iter()
            .map(|(path, values, what)| {
                let value = current(app, path, values);
                Entry {
                    label: format!("{path}: {value}"),
                    detail: (*what).to_owned(),
                    search_text: String::new(),
                    value: (*path).to_owned(),
                }
            })
            .collect();
        let mut picker = Picker::new(
            Purpose::Settings,
            "Settings (Enter: next value, saved at once; Esc: close)",
            entries,
        );
        picker.step(selected as isize);
        self.open_picker(picker);
    }

    /// Moves setting `path` to its next value, saves it and applies what applies now.
    pub(super) fn change_setting(&mut self, app: &App, path: &str) {
        let Some((_, values, _)) = SETTINGS.iter().find(|(p, ..)| *p == path) else {
            return;
        };
        let now = current(app, path, values);
        let at = values
            .iter()
            .position(|v| *v == now)
            .map_or(0, |i| (i + 1) % values.len());
        let next = values[at];
        let value = match next {
            "true" => serde_json::Value::Bool(true),
            "false" => serde_json::Value::Bool(false),
            other => serde_json::Value::String(other.to_owned()),
        };
        if let Err(error) = app.save_setting(path, value) {
            self.notice(error.to_string());
            return;
        }
        match path {
            "hideThinkingBlock" => self.show_thinking = next == "false",
            "doubleEscapeAction" => self.double_escape_action = next.to_owned(),
            "theme" => {
                let choice = crate::theme::choose(next, &[], &[]);
                self.theme = choice.theme;
            }
            _ => {}
        }
    }
}

/// The settings `/settings` edits: (key, its values in order, what it does). The first value
/// is the default.
const SETTINGS: [(&str, &[&str], &str); 9] = [
    (
        "theme",
        &["dark", "light"],
        "Colours (JSON themes: the theme setting)",
    ),
    (
        "hideThinkingBlock",
        &["false", "true"],
        "Start with thinking collapsed",
    ),
    (
        "steeringMode",
        &["one-at-a-time", "all"],
        "How queued steering messages are sent",
    ),
    (
        "followUpMode",
        &["one-at-a-time", "all"],
        "How queued follow-ups are sent",
    ),
    (
        "compaction.enabled",
        &["true", "false"],
        "Compact when the context fills",
    ),
    ("retry.enabled", &["true", "false"], "Retry failed requests"),
    (
        "doubleEscapeAction",
        &["tree", "fork", "none"],
        "What Esc twice does",
    ),
    (
        "tuiMode",
        &["fullscreen", "regular"],
        "The layout (from the next start)",
    ),
    (
        "quietStartup",
        &["false", "true"],
        "Hide the start-up header (from the next start)",
    ),
];

/// A setting's value as text, or its default.
fn current(app: &App, path: &str, values: &[&str]) -> String {
    match app.setting(path) {
        Some(serde_json::Value::Bool(b)) => b.to_string(),
        Some(serde_json::Value::String(s)) => s,
        _ => values.first().copied().unwrap_or("").to_owned(),
    }
}

/// Where setting `path` is in the list (0 when it is not there).
pub(super) fn position(path: &str) -> usize {
    SETTINGS.iter().position(|(p, ..)| *p == path).unwrap_or(0)
}
