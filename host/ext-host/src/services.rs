//! The host side of the `ui` and `session` imports (WIT 0.3.0, `hook` and `tool` worlds).
//!
//! Both are linked whatever the grant (a toolchain may import every interface of its world)
//! and checked at each call: without `ui` a dialog answers none and notices are dropped,
//! without `session` every call returns the refusal naming the capability; each refused
//! import is logged once per call. Granted calls go to the embedder's
//! [`HookServices`](pi_ext_api::hooks::HookServices) after the values crossing the boundary
//! are checked: strings bounded, JSON texts parsed, a chosen option in range. Time spent
//! waiting in a dialog pauses the call's deadline (the epoch check and the watchdog alike).

use crate::bindings::latest::tool::pi::extension::{hook_types, session, ui};
use crate::bounds;
use crate::grant::not_granted;
use crate::state::HostState;
use pi_ext_api::hooks::{DeliverAs, Dialog, DialogAnswer, NotifyLevel, OutgoingMessage};
use serde_json::Value;
use std::time::Duration;

/// Longest title, notice or status text passed on (longer is cut).
const TEXT_BYTES: usize = 16 * 1024;
/// Most options a `select` may offer.
const OPTIONS: usize = 100;
/// Longest custom type, key, label or session name.
const NAME_BYTES: usize = 256;

fn text(value: String) -> String {
    bounds::cut_owned(value, TEXT_BYTES)
}

impl HostState {
    /// Whether `capability` (`ui` or `session`) was granted; logs the refusal of `call` once
    /// per call if not.
    fn granted(&mut self, capability: &'static str, call: &'static str) -> bool {
        let granted = if capability == "ui" {
            self.grant.ui
        } else {
            self.grant.session
        };
        if !granted && self.refused.insert(call) {
            tracing::warn!(
                extension = %self.extension,
                "{} (`{call}` refused)",
                not_granted(capability, &self.extension)
            );
        }
        granted
    }

    fn session_refusal(&mut self, call: &'static str) -> Result<(), String> {
        if self.granted("session", call) {
            Ok(())
        } else {
            Err(not_granted("session", &self.extension))
        }
    }

    /// Asks the user, with the call's deadline paused for the wait.
    fn ask(&mut self, dialog: Dialog, timeout_ms: Option<u32>) -> Option<DialogAnswer> {
        let from = self.extension.to_string();
        let timeout = timeout_ms.map(|ms| Duration::from_millis(u64::from(ms)));
        let _pause = self.clock.pause();
        self.call.services.ui.ask(&from, dialog, timeout)
    }

    /// A JSON text from the component, bounded by the grant's details limit.
    fn json(&self, what: &str, text: &str) -> Result<Value, String> {
        let limit = self.grant.limits.details_bytes;
        if text.len() > limit {
            return Err(format!(
                "{what} is {} bytes; at most {limit} are allowed",
                text.len()
            ));
        }
        serde_json::from_str(text).map_err(|e| format!("{what} is not JSON: {e}"))
    }
}

/// A name-like string (custom type, key, label): bounded, not empty.
fn name(what: &str, value: &str) -> Result<(), String> {
    if value.is_empty() || value.len() > NAME_BYTES {
        return Err(format!("{what} must be 1 to {NAME_BYTES} bytes"));
    }
    Ok(())
}

impl hook_types::Host for HostState {}

impl ui::Host for HostState {
    fn notify(&mut self, message: String, level: ui::NotifyLevel) {
        if !self.granted("ui", "ui.notify") {
            return;
        }
        let level = match level {
            ui::NotifyLevel::Info => NotifyLevel::Info,
            ui::NotifyLevel::Warning => NotifyLevel::Warning,
            ui::NotifyLevel::Error => NotifyLevel::Error,
        };
        let from = self.extension.to_string();
        self.call.services.ui.notify(&from, &text(message), level);
    }

    fn confirm(&mut self, title: String, message: String, timeout_ms: Option<u32>) -> Option<bool> {
        if !self.granted("ui", "ui.confirm") {
            return None;
        }
        let dialog = Dialog::Confirm {
            title: text(title),
            text: text(message),
        };
        match self.ask(dialog, timeout_ms)? {
            DialogAnswer::Confirmed(yes) => Some(yes),
            _ => None,
        }
    }

    fn select(
        &mut self,
        title: String,
        options: Vec<String>,
        timeout_ms: Option<u32>,
    ) -> Option<u32> {
        if !self.granted("ui", "ui.select") || options.is_empty() || options.len() > OPTIONS {
            return None;
        }
        let count = options.len();
        let dialog = Dialog::Select {
            title: text(title),
            options: options.into_iter().map(text).collect(),
        };
        match self.ask(dialog, timeout_ms)? {
            DialogAnswer::Selected(index) if index < count => u32::try_from(index).ok(),
            _ => None,
        }
    }

    fn input(
        &mut self,
        title: String,
        placeholder: Option<String>,
        timeout_ms: Option<u32>,
    ) -> Option<String> {
        if !self.granted("ui", "ui.input") {
            return None;
        }
        let dialog = Dialog::Input {
            title: text(title),
            placeholder: placeholder.map(text),
        };
        match self.ask(dialog, timeout_ms)? {
            DialogAnswer::Text(answer) => Some(answer),
            _ => None,
        }
    }

    fn set_status(&mut self, key: String, status: Option<String>) {
        if !self.granted("ui", "ui.set-status") || name("key", &key).is_err() {
            return;
        }
        let from = self.extension.to_string();
        let status = status.map(text);
        self.call
            .services
            .ui
            .set_status(&from, &key, status.as_deref());
    }

    fn attention(&mut self, title: String, message: String) {
        if !self.granted("ui", "ui.attention") {
            return;
        }
        let from = self.extension.to_string();
        self.call
            .services
            .ui
            .attention(&from, &text(title), &text(message));
    }
}

impl session::Host for HostState {
    fn send_message(
        &mut self,
        message: hook_types::OutgoingMessage,
        deliver_as: session::DeliverAs,
    ) -> Result<(), String> {
        self.session_refusal("session.send-message")?;
        let message = outgoing(message, &self.grant.limits)?;
        let deliver_as = match deliver_as {
            session::DeliverAs::Steer => DeliverAs::Steer,
            session::DeliverAs::FollowUp => DeliverAs::FollowUp,
            session::DeliverAs::NextTurn => DeliverAs::NextTurn,
        };
        let from = self.extension.to_string();
        self.call
            .services
            .session
            .send_message(&from, message, deliver_as)
    }

    fn append_entry(&mut self, custom_type: String, data: String) -> Result<(), String> {
        self.session_refusal("session.append-entry")?;
        name("custom-type", &custom_type)?;
        let data = self.json("data", &data)?;
        let from = self.extension.to_string();
        self.call
            .services
            .session
            .append_entry(&from, &custom_type, data)
    }

    fn entries(&mut self, custom_type: String) -> Result<Vec<String>, String> {
        self.session_refusal("session.entries")?;
        name("custom-type", &custom_type)?;
        let entries = self.call.services.session.entries(&custom_type)?;
        Ok(entries.iter().map(Value::to_string).collect())
    }

    fn set_session_name(&mut self, session_name: String) -> Result<(), String> {
        self.session_refusal("session.set-session-name")?;
        name("name", &session_name)?;
        self.call.services.session.set_session_name(&session_name)
    }

    fn set_label(&mut self, entry_id: Option<String>, label: Option<String>) -> Result<(), String> {
        self.session_refusal("session.set-label")?;
        if let Some(label) = &label {
            name("label", label)?;
        }
        if let Some(id) = &entry_id {
            name("entry id", id)?;
        }
        self.call
            .services
            .session
            .set_label(entry_id.as_deref(), label.as_deref())
    }
}

/// A message from a component, checked: a bounded custom type, content cut to the result
/// limit, details that parse as JSON.
pub(crate) fn outgoing(
    message: hook_types::OutgoingMessage,
    limits: &crate::grant::Limits,
) -> Result<OutgoingMessage, String> {
    name("custom-type", &message.custom_type)?;
    let details = match message.details {
        Some(details) if details.len() > limits.details_bytes => {
            return Err(format!(
                "details are {} bytes; at most {} are allowed",
                details.len(),
                limits.details_bytes
            ));
        }
        Some(details) => {
            Some(serde_json::from_str(&details).map_err(|e| format!("details are not JSON: {e}"))?)
        }
        None => None,
    };
    Ok(OutgoingMessage {
        custom_type: message.custom_type,
        content: bounds::cut_owned(message.content, limits.result_bytes),
        display: message.display,
        details,
    })
}
