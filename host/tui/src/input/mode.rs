//! The permission mode from the UI: `/mode` without a name opens a selector of the four (the
//! current one marked), and the mode key (`app.permissionMode.cycle`) moves to the next one.
//! The footer shows the mode when it is not `auto`. A run that ends in plan mode asks what
//! next: execute the plan (back to `auto`, and the model is told to carry it out), stay, or
//! refine it (as pi's plan-mode example extension does).

use super::{Action, Ui};
use crate::picker::{Entry, Picker, Purpose};
use pi_app::permissions::PermissionMode;
use pi_app::{App, AppEvent, SessionEvent};

/// The prompt that starts carrying out the plan once plan mode is left.
const EXECUTE: &str = "Execute the plan above, step by step.";

/// The choices after a run in plan mode: (value, label).
const PLAN_NEXT: [(&str, &str); 3] = [
    (
        "execute",
        "Execute the plan (leave plan mode: permission mode auto)",
    ),
    ("stay", "Stay in plan mode"),
    ("refine", "Refine the plan"),
];

/// What each mode lets the agent do, as the selector says it.
fn describe(mode: PermissionMode) -> &'static str {
    match mode {
        PermissionMode::Auto => "nothing is asked (pi's behaviour)",
        PermissionMode::AskWrites => "writes, edits, bash and tools that can write ask first",
        PermissionMode::AskAll => "every tool call asks, except the read-only built-ins",
        PermissionMode::Plan => "nothing can change anything: read, search, plan",
    }
}

impl Ui {
    /// `/mode`: the four modes, the current one marked and selected.
    pub(super) fn open_mode_picker(&mut self, app: &App) {
        let current = app.permission_mode();
        let entries = PermissionMode::ALL
            .iter()
            .map(|&mode| {
                let marker = if mode == current { " (current)" } else { "" };
                Entry {
                    label: format!("{mode}{marker}"),
                    detail: describe(mode).to_owned(),
                    search_text: String::new(),
                    value: mode.as_str().to_owned(),
                }
            })
            .collect();
        let mut picker = Picker::new(
            Purpose::Mode,
            "Permission mode (Enter: switch, Esc: close)",
            entries,
        );
        picker.select_value(current.as_str());
        self.open_picker(picker);
    }

    /// The selector's choice.
    pub(super) fn choose_mode(&mut self, app: &App, name: &str) {
        if let Some(mode) = PermissionMode::parse(name) {
            app.set_permission_mode(mode);
            self.transcript
                .notice(format!("Permission mode: {mode}"), false);
            self.refresh_footer(app);
        }
    }

    /// A run that ended in plan mode (not aborted) asks what next, unless something else
    /// is open.
    pub fn plan_event(&mut self, event: &AppEvent, app: &App) {
        let settled = matches!(
            event,
            AppEvent::Session(SessionEvent::AgentSettled { aborted: false })
        );
        let busy = self.picker.is_some() || self.dialogs.is_open();
        if !settled || app.permission_mode() != PermissionMode::Plan || busy {
            return;
        }
        let entries = PLAN_NEXT
            .iter()
            .map(|(value, label)| Entry {
                label: (*label).to_owned(),
                detail: String::new(),
                search_text: String::new(),
                value: (*value).to_owned(),
            })
            .collect();
        let title = "Plan mode - what next? (Enter: choose, Esc: stay)";
        self.open_picker(Picker::new(Purpose::PlanNext, title, entries));
    }

    /// The choice after a plan: executing it leaves plan mode and tells the model to start.
    pub(super) fn plan_next(&mut self, app: &App, choice: &str) -> Action {
        match choice {
            "execute" => {
                self.choose_mode(app, PermissionMode::Auto.as_str());
                Action::Prompt(EXECUTE.to_owned())
            }
            "refine" => {
                self.editor.set("Refine the plan: ");
                Action::None
            }
            _ => Action::None,
        }
    }

    /// The mode key: the next mode (auto → ask-writes → ask-all → plan → auto).
    pub(super) fn cycle_mode(&mut self, app: &App) {
        let mode = app.permission_mode().next();
        app.set_permission_mode(mode);
        self.hint = Some(format!("Permission mode: {mode}"));
        self.refresh_footer(app);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::super::tests::{app, render, ui};
    use crate::keys::Keymap;
    use pi_app::permissions::PermissionMode;
    use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};

    fn press(ui: &mut super::Ui, app: &pi_app::App, code: KeyCode, modifiers: KeyModifiers) {
        ui.handle(&Event::Key(KeyEvent::new(code, modifiers)), app);
    }

    fn command(ui: &mut super::Ui, app: &pi_app::App, text: &str) {
        for c in text.chars() {
            press(ui, app, KeyCode::Char(c), KeyModifiers::NONE);
        }
        // The first Enter may only close the completion list.
        press(ui, app, KeyCode::Enter, KeyModifiers::NONE);
        if !ui.editor.is_empty() {
            press(ui, app, KeyCode::Enter, KeyModifiers::NONE);
        }
    }

    fn last_notice(ui: &super::Ui) -> String {
        let last = ui.transcript.items().last();
        last.map(|item| format!("{item:?}")).unwrap_or_default()
    }

    #[test]
    fn mode_with_a_name_switches_and_an_unknown_name_lists_the_four() {
        let app = app();
        let mut ui = ui(&app);
        command(&mut ui, &app, "/mode plan");
        assert_eq!(app.permission_mode(), PermissionMode::Plan);
        ui.refresh_footer(&app);
        insta::assert_snapshot!("mode_plan_footer", render(&ui, 80, 8));
        command(&mut ui, &app, "/mode careful");
        assert_eq!(app.permission_mode(), PermissionMode::Plan);
        let error = last_notice(&ui);
        for name in ["auto", "ask-writes", "ask-all", "plan", "error: true"] {
            assert!(error.contains(name), "{name} missing from {error}");
        }
    }

    #[test]
    fn mode_without_a_name_marks_the_current_one_and_switches_to_the_chosen() {
        let app = app();
        app.set_permission_mode(PermissionMode::AskWrites);
        let mut ui = ui(&app);
        command(&mut ui, &app, "/mode");
        insta::assert_snapshot!("mode_selector", render(&ui, 80, 14));
        // The current one is selected: Down is the one after it.
        press(&mut ui, &app, KeyCode::Down, KeyModifiers::NONE);
        press(&mut ui, &app, KeyCode::Enter, KeyModifiers::NONE);
        assert_eq!(app.permission_mode(), PermissionMode::AskAll);
        assert!(ui.picker.is_none());
        assert!(last_notice(&ui).contains("Permission mode: ask-all"));
    }

    #[test]
    fn the_mode_key_cycles_through_the_four_and_follows_keybindings_json() {
        let app = app();
        let mut ui = ui(&app);
        let mut seen = Vec::new();
        for _ in 0..4 {
            press(&mut ui, &app, KeyCode::Char('m'), KeyModifiers::ALT);
            seen.push(ui.footer.permission_mode);
        }
        let expected = [
            PermissionMode::AskWrites,
            PermissionMode::AskAll,
            PermissionMode::Plan,
            PermissionMode::Auto,
        ];
        assert_eq!(seen, expected);
        assert_eq!(ui.editor.text(), "", "alt+m typed nothing");
        let (keymap, warnings) = Keymap::from_json(r#"{"app.permissionMode.cycle": "ctrl+y"}"#);
        assert!(warnings.is_empty(), "{warnings:?}");
        ui.keymap = keymap;
        press(&mut ui, &app, KeyCode::Char('m'), KeyModifiers::ALT);
        assert_eq!(app.permission_mode(), PermissionMode::Auto);
        press(&mut ui, &app, KeyCode::Char('y'), KeyModifiers::CONTROL);
        assert_eq!(app.permission_mode(), PermissionMode::AskWrites);
        assert_eq!(
            ui.screen().hint.as_deref(),
            Some("Permission mode: ask-writes")
        );
    }
}
