//! The approval rules of an app (`crate::permissions`): the rules `/grants` shows, and what
//! start-up loads for the gate (the mode itself is `mode.rs`).

use super::App;
use crate::extensions::Extensions;
use crate::permissions::Ledger;
use pi_ai::lock;
use std::sync::Arc;

impl App {
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
