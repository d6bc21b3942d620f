//! What extensions ask the user and tell them, as the session reports it
//! ([`SessionEvent::ExtensionUiRequest`](super::SessionEvent::ExtensionUiRequest)), and a face's
//! answer to a dialog.

use pi_ext_api::hooks::{ApprovalPreview, NotifyLevel};
use serde::Serialize;

/// The call an approval select is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ApprovalView {
    pub tool: String,
    pub preview: ApprovalPreview,
}

/// A request to the user from an extension, in pi's `extension_ui_request` shape (`method`
/// plus its fields).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "method")]
pub enum UiRequest {
    #[serde(rename = "confirm")]
    Confirm {
        title: String,
        message: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        timeout: Option<u64>,
    },
    #[serde(rename = "select")]
    Select {
        title: String,
        options: Vec<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        timeout: Option<u64>,
        /// Present when the select is an approval: the tool and what the call would do (an
        /// RPC client that does not know it still sees a plain `select`).
        #[serde(skip_serializing_if = "Option::is_none")]
        approval: Option<ApprovalView>,
    },
    #[serde(rename = "input")]
    Input {
        title: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        placeholder: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        timeout: Option<u64>,
    },
    #[serde(rename = "notify")]
    Notify {
        message: String,
        #[serde(rename = "notifyType")]
        notify_type: NotifyType,
    },
    /// Sets (`Some`) or clears the footer status `statusKey`.
    #[serde(rename = "setStatus", rename_all = "camelCase")]
    SetStatus {
        status_key: String,
        /// Absent when cleared (pi's `undefined`).
        #[serde(skip_serializing_if = "Option::is_none")]
        status_text: Option<String>,
    },
}

impl UiRequest {
    /// Whether the face must answer it ([`App::respond_ui`](crate::App::respond_ui)).
    pub fn is_dialog(&self) -> bool {
        matches!(
            self,
            UiRequest::Confirm { .. } | UiRequest::Select { .. } | UiRequest::Input { .. }
        )
    }
}

/// pi's `notifyType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NotifyType {
    Info,
    Warning,
    Error,
}

impl From<NotifyLevel> for NotifyType {
    fn from(level: NotifyLevel) -> Self {
        match level {
            NotifyLevel::Info => NotifyType::Info,
            NotifyLevel::Warning => NotifyType::Warning,
            NotifyLevel::Error => NotifyType::Error,
        }
    }
}

/// A face's answer to a dialog (pi's `extension_ui_response`: `value`, `confirmed` or
/// `cancelled`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UiResponse {
    /// The text typed, or the option chosen (by its text, as pi's RPC sends it).
    Value(String),
    Confirmed(bool),
    Cancelled,
}
