//! Extensions' dialogs: `confirm`, `select` and `input` asked through pi-app's
//! `extension_ui_request`, shown one at a time over the editor (the oldest first) and answered
//! with [`App::respond_ui`](pi_app::App::respond_ui). Esc (or Ctrl+C) cancels. A dialog with a
//! timeout shows the seconds left and closes when they are up: the App has given up waiting by
//! then, as it does when the user aborts (the UI closes them all then).
//!
//! Everything shown comes from an extension: it is cleaned with `pi_ai::terminal_text` when the
//! dialog is made, so the drawing code only ever sees printable text.
//!
//! A select that is an approval (the tool-call gate asking) carries the call it is about
//! ([`Approval`]), shown above the options; its number keys pick an option directly.

use crate::approval::Approval;
use pi_ai::terminal_text::{Keep, terminal_safe};
use pi_app::hooks::{UiRequest, UiResponse};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// What a dialog asks.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// Yes or No; `yes` is where the cursor is.
    Confirm { message: String, yes: bool },
    Select {
        options: Vec<String>,
        selected: usize,
    },
    /// A line of text; the cursor is a char index into it.
    Input {
        placeholder: Option<String>,
        text: String,
        cursor: usize,
    },
}

/// One open dialog.
#[derive(Debug, Clone, PartialEq)]
pub struct Dialog {
    /// The request's id, which the answer names.
    pub id: String,
    /// The extension asking (`name@version`).
    pub from: String,
    pub title: String,
    pub kind: Kind,
    /// The call an approval select asks about.
    pub approval: Option<Approval>,
    /// When the App stops waiting for the answer.
    pub deadline: Option<Instant>,
}

fn clean_line(text: &str) -> String {
    terminal_safe(text, Keep::Line).replace('\t', " ")
}

impl Dialog {
    /// The dialog a request opens (`None` for notices and statuses), its deadline counted from
    /// `now`.
    pub fn from_request(id: &str, from: &str, request: &UiRequest, now: Instant) -> Option<Self> {
        let mut approval = None;
        let (title, kind, timeout) = match request {
            UiRequest::Confirm {
                title,
                message,
                timeout,
            } => {
                let message = terminal_safe(message, Keep::Lines).replace('\t', " ");
                (title, Kind::Confirm { message, yes: true }, timeout)
            }
            UiRequest::Select {
                title,
                options,
                timeout,
                approval: call,
            } => {
                approval = call.as_ref().map(Approval::from_view);
                let options = options.iter().map(|o| clean_line(o)).collect();
                let kind = Kind::Select {
                    options,
                    selected: 0,
                };
                (title, kind, timeout)
            }
            UiRequest::Input {
                title,
                placeholder,
                timeout,
            } => {
                let kind = Kind::Input {
                    placeholder: placeholder.as_deref().map(clean_line),
                    text: String::new(),
                    cursor: 0,
                };
                (title, kind, timeout)
            }
            UiRequest::Notify { .. } | UiRequest::SetStatus { .. } => return None,
        };
        Some(Dialog {
            id: id.to_owned(),
            from: clean_line(from),
            title: clean_line(title),
            kind,
            approval,
            deadline: timeout.map(|ms| now + Duration::from_millis(ms)),
        })
    }

    /// Whole seconds left before the timeout (rounded up), when there is one.
    pub fn seconds_left(&self, now: Instant) -> Option<u64> {
        self.deadline
            .map(|d| d.saturating_duration_since(now).as_millis().div_ceil(1000) as u64)
    }

    /// Applies a key; `Some` when it answers the dialog.
    pub fn key(&mut self, key: &KeyEvent) -> Option<UiResponse> {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if key.code == KeyCode::Esc || (ctrl && key.code == KeyCode::Char('c')) {
            return Some(UiResponse::Cancelled);
        }
        let numbered = self.approval.is_some();
        match &mut self.kind {
            Kind::Confirm { yes, .. } => match key.code {
                KeyCode::Char('y' | 'Y') => Some(UiResponse::Confirmed(true)),
                KeyCode::Char('n' | 'N') => Some(UiResponse::Confirmed(false)),
                KeyCode::Enter => Some(UiResponse::Confirmed(*yes)),
                KeyCode::Up | KeyCode::Left | KeyCode::Char('k') => {
                    *yes = true;
                    None
                }
                KeyCode::Down | KeyCode::Right | KeyCode::Char('j') => {
                    *yes = false;
                    None
                }
                KeyCode::Tab | KeyCode::BackTab => {
                    *yes = !*yes;
                    None
                }
                _ => None,
            },
            Kind::Select { options, selected } => {
                let last = options.len().saturating_sub(1);
                match key.code {
                    KeyCode::Enter => options.get(*selected).cloned().map(UiResponse::Value),
                    // An approval's options are numbered: 1 is the first.
                    KeyCode::Char(c @ '1'..='9') if numbered => {
                        let at = (c as usize).saturating_sub('1' as usize);
                        options.get(at).cloned().map(UiResponse::Value)
                    }
                    KeyCode::Up | KeyCode::Char('k') => {
                        *selected = selected.saturating_sub(1);
                        None
                    }
                    KeyCode::Down | KeyCode::Char('j') => {
                        *selected = (*selected + 1).min(last);
                        None
                    }
                    KeyCode::Home => {
                        *selected = 0;
                        None
                    }
                    KeyCode::End => {
                        *selected = last;
                        None
                    }
                    _ => None,
                }
            }
            Kind::Input { text, cursor, .. } => input_key(text, cursor, key),
        }
    }

    /// Pasted text goes into an input dialog (one line: line breaks become spaces).
    pub fn paste(&mut self, pasted: &str) {
        if let Kind::Input { text, cursor, .. } = &mut self.kind {
            for c in clean_line(&pasted.replace(['\r', '\n'], " ")).chars() {
                insert(text, cursor, c);
            }
        }
    }
}

fn byte_at(text: &str, cursor: usize) -> usize {
    text.char_indices()
        .nth(cursor)
        .map_or(text.len(), |(i, _)| i)
}

fn insert(text: &mut String, cursor: &mut usize, c: char) {
    text.insert(byte_at(text, *cursor), c);
    *cursor += 1;
}

/// The input dialog's line editor.
fn input_key(text: &mut String, cursor: &mut usize, key: &KeyEvent) -> Option<UiResponse> {
    let len = text.chars().count();
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    match key.code {
        KeyCode::Enter => return Some(UiResponse::Value(text.clone())),
        KeyCode::Char('u') if ctrl => {
            text.drain(..byte_at(text, *cursor));
            *cursor = 0;
        }
        KeyCode::Char('a') if ctrl => *cursor = 0,
        KeyCode::Char('e') if ctrl => *cursor = len,
        KeyCode::Char(c) if !ctrl && !c.is_control() => insert(text, cursor, c),
        KeyCode::Backspace if *cursor > 0 => {
            *cursor -= 1;
            text.remove(byte_at(text, *cursor));
        }
        KeyCode::Delete if *cursor < len => {
            text.remove(byte_at(text, *cursor));
        }
        KeyCode::Left => *cursor = cursor.saturating_sub(1),
        KeyCode::Right => *cursor = (*cursor + 1).min(len),
        KeyCode::Home => *cursor = 0,
        KeyCode::End => *cursor = len,
        _ => {}
    }
    None
}

/// The dialogs waiting for an answer, the oldest shown.
#[derive(Debug, Default)]
pub struct Dialogs {
    open: VecDeque<Dialog>,
}

impl Dialogs {
    pub fn push(&mut self, dialog: Dialog) {
        self.open.push_back(dialog);
    }

    /// The dialog shown.
    pub fn current(&self) -> Option<&Dialog> {
        self.open.front()
    }

    pub fn current_mut(&mut self) -> Option<&mut Dialog> {
        self.open.front_mut()
    }

    /// Applies a key to the dialog shown; its id and answer when the key answered it (it is
    /// closed then).
    pub fn key(&mut self, key: &KeyEvent) -> Option<(String, UiResponse)> {
        let response = self.open.front_mut()?.key(key)?;
        let dialog = self.open.pop_front()?;
        Some((dialog.id, response))
    }

    /// Closes the dialogs whose time is up; whether any was.
    pub fn expire(&mut self, now: Instant) -> bool {
        let before = self.open.len();
        self.open.retain(|d| d.deadline.is_none_or(|at| at > now));
        self.open.len() != before
    }

    /// Closes them all (the user aborted: the App cancelled them).
    pub fn clear(&mut self) {
        self.open.clear();
    }

    pub fn is_open(&self) -> bool {
        !self.open.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn confirm(timeout: Option<u64>) -> UiRequest {
        UiRequest::Confirm {
            title: "Probe".into(),
            message: "Proceed?".into(),
            timeout,
        }
    }

    fn open(request: &UiRequest) -> Dialog {
        Dialog::from_request("ui-1", "probe@1.0.0", request, Instant::now())
            .unwrap_or_else(|| panic!("{request:?} is a dialog"))
    }

    #[test]
    fn confirm_answers_by_letter_arrows_and_enter_and_esc_cancels() {
        let mut d = open(&confirm(None));
        assert_eq!(
            d.key(&press(KeyCode::Char('y'))),
            Some(UiResponse::Confirmed(true))
        );
        assert_eq!(
            d.key(&press(KeyCode::Char('n'))),
            Some(UiResponse::Confirmed(false))
        );
        assert_eq!(d.key(&press(KeyCode::Down)), None);
        assert_eq!(
            d.key(&press(KeyCode::Enter)),
            Some(UiResponse::Confirmed(false))
        );
        assert_eq!(d.key(&press(KeyCode::Up)), None);
        assert_eq!(
            d.key(&press(KeyCode::Enter)),
            Some(UiResponse::Confirmed(true))
        );
        assert_eq!(d.key(&press(KeyCode::Esc)), Some(UiResponse::Cancelled));
    }

    #[test]
    fn select_moves_within_the_list_and_answers_with_the_option_text() {
        let request = UiRequest::Select {
            title: "Pick".into(),
            options: vec!["a".into(), "b\x1b[31m".into()],
            timeout: None,
            approval: None,
        };
        let mut d = open(&request);
        d.key(&press(KeyCode::Down));
        d.key(&press(KeyCode::Down));
        // The text shown is the text answered: cleaned of the escape sequence.
        assert_eq!(
            d.key(&press(KeyCode::Enter)),
            Some(UiResponse::Value("b".into()))
        );
        d.key(&press(KeyCode::Up));
        d.key(&press(KeyCode::Up));
        assert_eq!(
            d.key(&press(KeyCode::Enter)),
            Some(UiResponse::Value("a".into()))
        );
    }

    fn approval_select() -> UiRequest {
        let options = ["Allow once", "Allow for this session", "Always", "Deny"];
        UiRequest::Select {
            title: "Allow bash?".into(),
            options: options.iter().map(|o| (*o).to_owned()).collect(),
            timeout: None,
            approval: Some(pi_app::hooks::ApprovalView {
                tool: "bash".into(),
                preview: pi_app::hooks::ApprovalPreview::Command {
                    command: "cargo test".into(),
                },
            }),
        }
    }

    #[test]
    fn an_approval_picks_by_number_enter_or_arrows_and_esc_denies() {
        let mut d = open(&approval_select());
        assert!(d.approval.is_some());
        let value = |text: &str| Some(UiResponse::Value(text.into()));
        assert_eq!(d.key(&press(KeyCode::Char('4'))), value("Deny"));
        assert_eq!(
            d.key(&press(KeyCode::Char('2'))),
            value("Allow for this session")
        );
        // No fifth option; 0 is not one either.
        assert_eq!(d.key(&press(KeyCode::Char('5'))), None);
        assert_eq!(d.key(&press(KeyCode::Char('0'))), None);
        assert_eq!(d.key(&press(KeyCode::Enter)), value("Allow once"));
        d.key(&press(KeyCode::Down));
        d.key(&press(KeyCode::Down));
        assert_eq!(d.key(&press(KeyCode::Enter)), value("Always"));
        assert_eq!(d.key(&press(KeyCode::Esc)), Some(UiResponse::Cancelled));
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(d.key(&ctrl_c), Some(UiResponse::Cancelled));
    }

    #[test]
    fn a_plain_select_takes_no_number_keys() {
        let request = UiRequest::Select {
            title: "Pick".into(),
            options: vec!["a".into(), "b".into()],
            timeout: None,
            approval: None,
        };
        let mut d = open(&request);
        assert_eq!(d.approval, None);
        assert_eq!(d.key(&press(KeyCode::Char('2'))), None);
    }

    #[test]
    fn input_edits_a_line_and_takes_a_paste() {
        let request = UiRequest::Input {
            title: "Name".into(),
            placeholder: Some("e.g. main".into()),
            timeout: None,
        };
        let mut d = open(&request);
        for c in "héllo".chars() {
            d.key(&press(KeyCode::Char(c)));
        }
        d.key(&press(KeyCode::Left));
        d.key(&press(KeyCode::Backspace));
        d.paste("L\nx");
        assert_eq!(
            d.key(&press(KeyCode::Enter)),
            Some(UiResponse::Value("hélL xo".into()))
        );
    }

    #[test]
    fn a_timed_dialog_counts_down_and_expires() {
        let now = Instant::now();
        let dialog = Dialog::from_request("ui-1", "p", &confirm(Some(2500)), now);
        let mut dialogs = Dialogs::default();
        dialogs.push(dialog.unwrap_or_else(|| panic!("a dialog")));
        let shown = dialogs.current().map(|d| d.seconds_left(now));
        assert_eq!(shown, Some(Some(3)));
        assert!(!dialogs.expire(now + Duration::from_millis(2000)));
        assert!(dialogs.expire(now + Duration::from_millis(2600)));
        assert!(!dialogs.is_open());
    }

    #[test]
    fn dialogs_are_answered_oldest_first_and_notices_are_not_dialogs() {
        let now = Instant::now();
        let mut dialogs = Dialogs::default();
        for id in ["ui-1", "ui-2"] {
            if let Some(d) = Dialog::from_request(id, "p", &confirm(None), now) {
                dialogs.push(d);
            }
        }
        let answer = dialogs.key(&press(KeyCode::Char('n')));
        assert_eq!(answer, Some(("ui-1".into(), UiResponse::Confirmed(false))));
        assert_eq!(dialogs.current().map(|d| d.id.as_str()), Some("ui-2"));
        let notify = UiRequest::Notify {
            message: "m".into(),
            notify_type: pi_app::hooks::NotifyType::Info,
        };
        assert_eq!(Dialog::from_request("ui-3", "p", &notify, now), None);
    }
}
