//! What extensions say to the user through the App (`extension_ui_request` events): notices
//! in the transcript coloured by level, statuses in the footer's slots, dialogs over the
//! editor answered with [`App::respond_ui`], and requests for attention passed on to the loop,
//! which decides whether to alert the terminal.

use super::Ui;
use crate::dialog::Dialog;
use crate::view::{DialogView, status_text};
use pi_app::hooks::UiRequest;
use pi_app::{App, AppEvent, SessionEvent};
use ratatui::crossterm::event::KeyEvent;
use std::time::Instant;

/// An extension's request for the user's attention: its title and text, as it sent them.
#[derive(Debug, Clone, PartialEq)]
pub struct Attention {
    pub title: String,
    pub text: String,
}

impl Ui {
    /// Takes an extension's request; an attention request is handed back to the caller.
    pub fn extension_event(&mut self, event: &AppEvent) -> Option<Attention> {
        let AppEvent::Session(event) = event else {
            return None;
        };
        match event {
            SessionEvent::ExtensionUiRequest { id, request, from } => {
                self.extension_request(id, from, request);
                None
            }
            SessionEvent::Attention { title, text, .. } => Some(Attention {
                title: title.clone(),
                text: text.clone(),
            }),
            _ => None,
        }
    }

    fn extension_request(&mut self, id: &str, from: &str, request: &UiRequest) {
        match request {
            UiRequest::Notify {
                message,
                notify_type,
            } => self.transcript.extension_notice(message, *notify_type),
            UiRequest::SetStatus {
                status_key,
                status_text: Some(text),
            } => {
                self.statuses.insert(status_key.clone(), status_text(text));
            }
            UiRequest::SetStatus { status_key, .. } => {
                self.statuses.remove(status_key);
            }
            _ => {
                if let Some(dialog) = Dialog::from_request(id, from, request, Instant::now()) {
                    self.dialogs.push(dialog);
                }
            }
        }
    }

    /// A key while a dialog is open: it goes to the dialog, and its answer to the App.
    pub(super) fn dialog_key(&mut self, key: &KeyEvent, app: &App) {
        if let Some((id, response)) = self.dialogs.key(key)
            && !app.respond_ui(&id, response)
        {
            tracing::debug!("dialog {id} was no longer open");
        }
    }

    /// Closes the dialogs whose time is up (the App answered them "cancelled"); whether any was.
    pub fn expire_dialogs(&mut self) -> bool {
        self.dialogs.expire(Instant::now())
    }

    /// The user aborted: the App cancelled every open dialog.
    pub(super) fn close_dialogs(&mut self) {
        self.dialogs.clear();
    }

    /// The dialog to draw, with its seconds left.
    pub(super) fn dialog_view(&self) -> Option<DialogView<'_>> {
        self.dialogs.current().map(|dialog| DialogView {
            dialog,
            seconds_left: dialog.seconds_left(Instant::now()),
        })
    }

    /// Nothing runs: the user is not watching a run, so an extension may ask for attention.
    pub fn idle(&self) -> bool {
        !self.transcript.working && !self.transcript.bash_running()
    }

    /// Whether the screen changes by itself (a dialog's countdown).
    pub fn counting_down(&self) -> bool {
        self.dialogs.current().is_some_and(|d| d.deadline.is_some())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::super::tests::{app, render, ui};
    use super::*;
    use pi_app::hooks::NotifyType;
    use ratatui::crossterm::event::{Event, KeyCode, KeyModifiers};

    fn request(id: &str, request: UiRequest) -> AppEvent {
        AppEvent::Session(SessionEvent::ExtensionUiRequest {
            id: id.into(),
            request,
            from: "hook-probe@0.1.0".into(),
        })
    }

    fn press(code: KeyCode) -> Event {
        Event::Key(KeyEvent::new(code, KeyModifiers::NONE))
    }

    #[test]
    fn a_dialog_takes_the_keys_until_answered_then_the_editor_has_them_again() {
        let app = app();
        let mut ui = ui(&app);
        let input = UiRequest::Input {
            title: "Name".into(),
            placeholder: None,
            timeout: None,
        };
        assert_eq!(ui.extension_event(&request("ui-1", input)), None);
        ui.handle(&press(KeyCode::Char('x')), &app);
        ui.handle(&Event::Paste("yz".into()), &app);
        assert_eq!(
            ui.editor.text(),
            "",
            "the dialog had the keys and the paste"
        );
        insta::assert_snapshot!("ui_input_dialog", render(&ui, 50, 12));
        ui.handle(&press(KeyCode::Enter), &app);
        assert!(!ui.dialogs.is_open());
        ui.handle(&press(KeyCode::Char('x')), &app);
        assert_eq!(ui.editor.text(), "x");
    }

    #[test]
    fn statuses_fill_and_clear_their_slots_and_notices_land_in_the_transcript() {
        let app = app();
        let mut ui = ui(&app);
        let status = |key: &str, text: Option<&str>| UiRequest::SetStatus {
            status_key: key.into(),
            status_text: text.map(str::to_owned),
        };
        ui.extension_event(&request("ui-1", status("todo", Some("3\topen"))));
        ui.extension_event(&request("ui-2", status("lint", Some("ok"))));
        assert_eq!(ui.screen().statuses, vec!["ok", "3 open"]);
        ui.extension_event(&request("ui-3", status("lint", None)));
        assert_eq!(ui.screen().statuses, vec!["3 open"]);
        let notify = UiRequest::Notify {
            message: "gate failed".into(),
            notify_type: NotifyType::Error,
        };
        ui.extension_event(&request("ui-4", notify));
        let last = ui.transcript.items().last().cloned();
        assert_eq!(
            last,
            Some(crate::transcript::Item::Notice {
                text: "Error: gate failed".into(),
                error: true
            })
        );
    }

    #[test]
    fn attention_is_handed_to_the_loop_and_focus_reports_are_followed() {
        let app = app();
        let mut ui = ui(&app);
        assert!(ui.focused && ui.idle());
        ui.handle(&Event::FocusLost, &app);
        assert!(!ui.focused);
        let event = AppEvent::Session(SessionEvent::Attention {
            from: "notify@1".into(),
            title: "pi".into(),
            text: "done".into(),
        });
        let attention = ui.extension_event(&event);
        assert_eq!(
            attention,
            Some(Attention {
                title: "pi".into(),
                text: "done".into()
            })
        );
        ui.handle(&Event::FocusGained, &app);
        assert!(ui.focused);
    }
}
