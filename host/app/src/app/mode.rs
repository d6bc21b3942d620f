//! Switching the permission mode. Every mode gates the session's tool calls through the mode
//! cell; plan mode also changes what the model is offered, so entering or leaving it builds
//! the tool set and the system prompt again, from what start-up (or the last `/reload`) built
//! them from, for the next turn.

use super::App;
use crate::permissions::PermissionMode;
use crate::tools::{SessionFacts, ToolSource};
use pi_ai::lock;

impl App {
    /// The permission mode the session's tool calls are gated by.
    pub fn permission_mode(&self) -> PermissionMode {
        self.session.permission_mode().get()
    }

    /// Switches the permission mode; the session's next tool call is gated by it. Entering or
    /// leaving `plan` changes the tools and the system prompt of the next turn.
    pub fn set_permission_mode(&self, mode: PermissionMode) {
        let before = self.permission_mode();
        self.session.set_permission_mode(mode);
        let plan = PermissionMode::Plan;
        if (before == plan) != (mode == plan) {
            self.offer_for_mode(mode);
        }
    }

    /// Builds the tools and the system prompt `mode` offers, from the kept sources.
    pub(super) fn offer_for_mode(&self, mode: PermissionMode) {
        let rebuild = lock(&self.rebuild);
        if let (Some(source), Some(host)) = (&rebuild.tools, &self.host) {
            self.session.set_tools(self.tools_from(source, host, mode));
        }
        if let Some((options, sources)) = &rebuild.prompt {
            self.session
                .set_system_prompt(crate::permissions::plan::prompt_sections(
                    options, sources, mode,
                ));
        }
    }

    /// The tools of `source` in `mode`, with the session's `PI_*` variables and image support.
    pub(super) fn tools_from(
        &self,
        source: &ToolSource,
        host: &pi_ext_host::ExtensionHost,
        mode: PermissionMode,
    ) -> Vec<std::sync::Arc<dyn pi_agent::AgentTool>> {
        let command_env = self.session.with_session(|session| {
            crate::tools::command_env(session, &self.model(), self.thinking_level())
        });
        let session_id = self.session.with_session(|s| s.session_id().to_owned());
        let model_images = self.session.model_images();
        source.tools(
            host,
            SessionFacts {
                session_id: &session_id,
                command_env,
                model_images: &model_images,
            },
            mode,
        )
    }
}
