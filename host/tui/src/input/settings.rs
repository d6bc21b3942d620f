//! `/settings`: the settings of pi-session's table that have choices, each moved to its next
//! value and saved at once.

use super::Ui;
use crate::picker::{Entry, Picker, Purpose};
use pi_app::App;
use pi_session::settings::{SETTINGS_TABLE, SettingInfo, setting_info};

impl Ui {
    /// `/settings`: the settings with their values; Enter moves one to its next value and
    /// saves it, the list staying open on it.
    pub(super) fn open_settings(&mut self, app: &App, selected: usize) {
        let settings = app.settings();
        let entries = editable()
            .map(|info| Entry {
                label: format!("{}: {}", info.key, info.current(&settings)),
                detail: info.description.to_owned(),
                search_text: String::new(),
                value: info.key.to_owned(),
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

    /// Moves setting `key` to its next value, saves it and applies what applies now.
    pub(super) fn change_setting(&mut self, app: &App, key: &str) {
        let Some((info, choice)) = setting_info(key).and_then(|i| Some((i, i.choice?))) else {
            return;
        };
        let before = app.settings();
        let now = info.current(&before);
        let at = choice
            .values
            .iter()
            .position(|v| *v == now)
            .map_or(0, |i| (i + 1) % choice.values.len());
        let result = app.update_settings(|s| (choice.set)(s, choice.values[at]));
        if let Err(error) = result {
            self.notice(error.to_string());
            return;
        }
        let after = app.settings();
        self.show_thinking = !after.hide_thinking_block();
        self.double_escape_action = after.double_escape_action().as_str().to_owned();
        if after.theme() != before.theme() {
            self.theme = crate::theme::choose(&after.theme(), &[], &[]).theme;
        }
    }
}

/// The table's settings `/settings` edits, in the table's order.
fn editable() -> impl Iterator<Item = &'static SettingInfo> {
    SETTINGS_TABLE.iter().filter(|info| info.choice.is_some())
}

/// Where setting `key` is in the list (0 when it is not there).
pub(super) fn position(key: &str) -> usize {
    editable().position(|info| info.key == key).unwrap_or(0)
}
