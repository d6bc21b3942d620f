//! Hooks: what extensions and the user's command hooks say about the session's lifecycle
//! (`pipeline`), and the services they are given: the user interface (`ui`) and the session
//! (`session_access`).

mod pipeline;
mod session_access;
mod ui;

pub use pi_ext_api::hooks::{InputSource, SessionStartReason};
pub use pipeline::HookCommand;
pub(crate) use pipeline::{HookPipeline, InputOutcome};
pub(crate) use session_access::{HookSession, custom_message};
pub(crate) use ui::UiBridge;
pub use ui::{NotifyType, UiRequest, UiResponse};
