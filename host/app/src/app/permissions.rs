//! The permission mode and the approval rules of an app (`crate::permissions`): switching the
//! mode (`/mode`, the mode key, RPC), the rules `/grants` shows, and what start-up loads.

use super::App;
use crate::extensions::Extensions;
use crate::permissions::{Ledger, PermissionMode};
use pi_ai::lock;
use std::sync::Arc;

impl App {
    /// The permission mode the session's tool calls are gated by.
    pub fn permission_mode(&self) -> PermissionMode {
        self.session.permission_mode().get()
    }

    /// Switches the permission mode; the session's next tool call is gated by it.
    pub fn set_permission_mode(&self, mode: PermissionMode) {
        self.session.set_permission_mode(mode);
    }

    /// The approval rules of this session (`/grants`), once start-up loaded them.
    pub fn approval_rules(&self) -> Option<Arc<Ledger>> {
        self.session.approval_rules()
    }

    /// Loads the approval rules (the project's only when it is trusted) and tells the gate
    /// which extension tools can change something; what the rules files say wrong is kept
    /// with the start-up warnings.
    pub(super) fn load_approvals(
        &self,
        env: &crate::startup::StartupEnv,
        trusted: bool,
        extensions: &Extensions,
    ) {
        let (ledger, warnings) = Ledger::load(&env.agent_dir, &env.cwd, trusted);
        lock(&self.hook_warnings).extend(warnings);
        self.session
            .set_approval_rules(Arc::new(ledger), env.cwd.clone());
        self.session
            .set_writing_tools(crate::extensions::writing_tools(extensions));
    }
}
