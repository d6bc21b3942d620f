//! The services hooks are given: the user interface (`ui`: what they ask and tell the user,
//! answered by the face) and the session (`session_access`). The pipeline that asks the hooks
//! belongs to the session (`agent_session::pipeline`).

mod session_access;
mod ui;

pub use crate::agent_session::{ApprovalView, HookCommand, NotifyType, UiRequest, UiResponse};
pub use pi_ext_api::hooks::ApprovalPreview;
pub use pi_ext_api::hooks::{InputSource, SessionStartReason};
pub(crate) use session_access::HookSession;
pub(crate) use ui::UiBridge;
