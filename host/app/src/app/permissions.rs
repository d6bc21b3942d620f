//! The approval rules of an app (`crate::permissions`): the rules `/grants` shows, and what
//! start-up loads for the gate (the mode itself is `mode.rs`).

use super::App;
use crate::extensions::Extensions;
use crate::permissions::Ledger;
use pi_ai::lock;
use std::sync::Arc;

impl App {
    /// Who may do what without asking, as lines to read (`/grants`): the approval rules of
    /// every scope, then the loaded packages with what each was granted.
    pub fn grants_overview(&self) -> Vec<String> {
        let mut lines = match self.approval_rules() {
            Some(ledger) => crate::permissions::rule_lines(&ledger, true),
            None => vec!["No approval rules are loaded in this session.".to_owned()],
        };
        lines.push("Extension packages (granted at install):".to_owned());
        let packages = lock(&self.package_grants);
        for (package, words) in packages.iter() {
            let granted = match words.is_empty() {
                true => "nothing".to_owned(),
                false => words.join("; "),
            };
            lines.push(format!("  {package}: {granted}"));
        }
        if packages.is_empty() {
            lines.push("  (none loaded)".to_owned());
        }
        lines
    }

    /// Removes the approval rule `id` (`/grants revoke <id>`).
    pub fn revoke_rule(&self, id: &str) -> Result<crate::permissions::Rule, String> {
        let ledger = self
            .approval_rules()
            .ok_or("no approval rules are loaded in this session")?;
        ledger.revoke(id).map_err(|e| e.to_string())
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
        lock(&self.package_grants).clone_from(&extensions.granted);
        let (ledger, warnings) = Ledger::load(&env.agent_dir, &env.cwd, trusted);
        lock(&self.hook_warnings).extend(warnings);
        self.session
            .set_approval_rules(Arc::new(ledger), env.cwd.clone());
        self.session
            .set_writing_tools(crate::extensions::writing_tools(extensions));
    }
}
