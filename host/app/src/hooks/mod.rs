//! Hooks: what extensions and the user's command hooks say about the session's lifecycle, and
//! the services they are given (the user interface, the session).

mod ui;

pub(crate) use ui::UiBridge;
pub use ui::{NotifyType, UiRequest, UiResponse};
