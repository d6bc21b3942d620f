//! The user interface hooks talk to: their notices, footer statuses, attention requests and
//! dialogs become [`SessionEvent::ExtensionUiRequest`]s that the face draws (dialogs in the
//! terminal UI, pi's `extension_ui_request` in RPC mode, a line on stderr in print mode), and
//! the face answers a dialog with [`App::respond_ui`](crate::App::respond_ui).
//!
//! A dialog waits on the extension's blocking thread, bounded by its timeout and by the user's
//! abort (which cancels every open dialog). Where no face can answer (print and JSON modes,
//! until a face calls [`UiBridge::enable_dialogs`]) dialogs answer "cancelled" at once.

use crate::agent_session::{ApprovalView, SessionEvent, UiRequest, UiResponse};
use pi_ai::lock;
use pi_ext_api::hooks::{Dialog, DialogAnswer, NotifyLevel, UserInterface};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

type Emit = Arc<dyn Fn(SessionEvent) + Send + Sync>;

/// The [`UserInterface`] of an [`App`](crate::App).
pub(crate) struct UiBridge {
    emit: Emit,
    dialogs: AtomicBool,
    next_id: AtomicU64,
    /// Open dialogs by id, with what they asked (to read a `select` answer given by text).
    pending: Mutex<HashMap<String, (Dialog, SyncSender<UiResponse>)>>,
}

impl UiBridge {
    pub(crate) fn new(emit: Emit) -> Self {
        UiBridge {
            emit,
            dialogs: AtomicBool::new(false),
            next_id: AtomicU64::new(1),
            pending: Mutex::default(),
        }
    }

    /// A face that can answer dialogs is attached (the terminal UI, RPC mode).
    pub(crate) fn enable_dialogs(&self) {
        self.dialogs.store(true, Ordering::Release);
    }

    /// Answers the open dialog `id`; false when there is none (already answered, timed out).
    pub(crate) fn respond(&self, id: &str, response: UiResponse) -> bool {
        match lock(&self.pending).remove(id) {
            Some((_, answer)) => answer.try_send(response).is_ok(),
            None => false,
        }
    }

    /// Cancels every open dialog (the user aborted).
    pub(crate) fn cancel_all(&self) {
        lock(&self.pending).clear();
    }

    fn request(&self, from: &str, id: String, request: UiRequest) {
        (self.emit)(SessionEvent::ExtensionUiRequest {
            id,
            request,
            from: from.to_owned(),
        });
    }

    fn open(&self, dialog: &Dialog) -> (String, Receiver<UiResponse>) {
        let id = format!("ui-{}", self.next_id.fetch_add(1, Ordering::Relaxed));
        let (sender, receiver) = sync_channel(1);
        lock(&self.pending).insert(id.clone(), (dialog.clone(), sender));
        (id, receiver)
    }
}

/// The request a dialog becomes; `timeout` in milliseconds, as pi sends it.
fn dialog_request(dialog: &Dialog, timeout: Option<u64>) -> UiRequest {
    match dialog.clone() {
        Dialog::Confirm { title, text } => UiRequest::Confirm {
            title,
            message: text,
            timeout,
        },
        Dialog::Select { title, options } => UiRequest::Select {
            title,
            options,
            timeout,
            approval: None,
        },
        Dialog::Approval {
            title,
            options,
            tool,
            preview,
        } => UiRequest::Select {
            title,
            options,
            timeout,
            approval: Some(ApprovalView { tool, preview }),
        },
        Dialog::Input { title, placeholder } => UiRequest::Input {
            title,
            placeholder,
            timeout,
        },
    }
}

/// Reads a face's response as the answer to `dialog`; `None` when it does not fit.
fn answer(dialog: &Dialog, response: UiResponse) -> Option<DialogAnswer> {
    match (dialog, response) {
        (_, UiResponse::Cancelled) => None,
        (Dialog::Confirm { .. }, UiResponse::Confirmed(yes)) => Some(DialogAnswer::Confirmed(yes)),
        (
            Dialog::Select { options, .. } | Dialog::Approval { options, .. },
            UiResponse::Value(value),
        ) => options
            .iter()
            .position(|option| *option == value)
            .map(DialogAnswer::Selected),
        (Dialog::Input { .. }, UiResponse::Value(text)) => Some(DialogAnswer::Text(text)),
        _ => None,
    }
}

impl UserInterface for UiBridge {
    fn notify(&self, from: &str, text: &str, level: NotifyLevel) {
        let id = format!("ui-{}", self.next_id.fetch_add(1, Ordering::Relaxed));
        let request = UiRequest::Notify {
            message: text.to_owned(),
            notify_type: level.into(),
        };
        self.request(from, id, request);
    }

    fn set_status(&self, from: &str, key: &str, text: Option<&str>) {
        let id = format!("ui-{}", self.next_id.fetch_add(1, Ordering::Relaxed));
        let request = UiRequest::SetStatus {
            status_key: key.to_owned(),
            status_text: text.map(str::to_owned),
        };
        self.request(from, id, request);
    }

    fn attention(&self, from: &str, title: &str, text: &str) {
        (self.emit)(SessionEvent::Attention {
            from: from.to_owned(),
            title: title.to_owned(),
            text: text.to_owned(),
        });
    }

    fn ask(&self, from: &str, dialog: Dialog, timeout: Option<Duration>) -> Option<DialogAnswer> {
        if !self.dialogs.load(Ordering::Acquire) {
            return None;
        }
        let millis = timeout.map(|t| u64::try_from(t.as_millis()).unwrap_or(u64::MAX));
        let (id, receiver) = self.open(&dialog);
        self.request(from, id.clone(), dialog_request(&dialog, millis));
        let response = match timeout {
            Some(timeout) => receiver.recv_timeout(timeout),
            None => receiver.recv().map_err(|_| RecvTimeoutError::Disconnected),
        };
        lock(&self.pending).remove(&id);
        answer(&dialog, response.ok()?)
    }

    fn can_ask(&self) -> bool {
        self.dialogs.load(Ordering::Acquire)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bridge() -> (Arc<UiBridge>, Arc<Mutex<Vec<SessionEvent>>>) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&seen);
        let bridge = UiBridge::new(Arc::new(move |event| lock(&sink).push(event)));
        (Arc::new(bridge), seen)
    }

    fn confirm() -> Dialog {
        Dialog::Confirm {
            title: "T".into(),
            text: "sure?".into(),
        }
    }

    fn open_dialog_id(seen: &Mutex<Vec<SessionEvent>>) -> Option<String> {
        lock(seen).iter().find_map(|event| match event {
            SessionEvent::ExtensionUiRequest { id, request, .. } if request.is_dialog() => {
                Some(id.clone())
            }
            _ => None,
        })
    }

    /// Answers the first dialog the bridge opens, from another thread, as a face would.
    fn answer_later(bridge: &Arc<UiBridge>, seen: &Arc<Mutex<Vec<SessionEvent>>>, r: UiResponse) {
        let (bridge, seen) = (Arc::clone(bridge), Arc::clone(seen));
        std::thread::spawn(move || {
            for _ in 0..500 {
                if let Some(id) = open_dialog_id(&seen) {
                    bridge.respond(&id, r);
                    return;
                }
                std::thread::sleep(Duration::from_millis(2));
            }
        });
    }

    #[test]
    fn without_a_face_dialogs_are_cancelled_at_once_and_nothing_is_asked() {
        let (bridge, seen) = bridge();
        assert_eq!(bridge.ask("p@1", confirm(), None), None);
        assert!(lock(&seen).is_empty());
    }

    #[test]
    fn a_face_answers_confirm_and_select_by_text() {
        let (bridge, seen) = bridge();
        bridge.enable_dialogs();
        answer_later(&bridge, &seen, UiResponse::Confirmed(true));
        assert_eq!(
            bridge.ask("p@1", confirm(), None),
            Some(DialogAnswer::Confirmed(true))
        );
        lock(&seen).clear();
        answer_later(&bridge, &seen, UiResponse::Value("b".into()));
        let select = Dialog::Select {
            title: "pick".into(),
            options: vec!["a".into(), "b".into()],
        };
        assert_eq!(
            bridge.ask("p@1", select, None),
            Some(DialogAnswer::Selected(1))
        );
    }

    #[test]
    fn a_dialog_ends_at_its_timeout_and_a_late_answer_is_refused() {
        let (bridge, seen) = bridge();
        bridge.enable_dialogs();
        let answer = bridge.ask("p@1", confirm(), Some(Duration::from_millis(20)));
        assert_eq!(answer, None);
        let id = open_dialog_id(&seen).expect("the dialog was requested");
        assert!(!bridge.respond(&id, UiResponse::Confirmed(true)));
    }

    #[test]
    fn abort_cancels_open_dialogs() {
        let (bridge, seen) = bridge();
        bridge.enable_dialogs();
        let waiter = Arc::clone(&bridge);
        let asked = std::thread::spawn(move || waiter.ask("p@1", confirm(), None));
        while open_dialog_id(&seen).is_none() {
            std::thread::sleep(Duration::from_millis(2));
        }
        bridge.cancel_all();
        assert_eq!(asked.join().ok().flatten(), None);
    }

    #[test]
    fn requests_have_pi_s_wire_shape() {
        let request = UiRequest::SetStatus {
            status_key: "todo".into(),
            status_text: Some("3 open".into()),
        };
        let json = serde_json::to_value(&request).unwrap_or_default();
        assert_eq!(
            json,
            serde_json::json!({"method": "setStatus", "statusKey": "todo", "statusText": "3 open"})
        );
    }
}
