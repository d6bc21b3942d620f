//! Offering the `subagent` tool: when the run's tool flags allow it (like a built-in's name:
//! `--tools`, `--no-tools`, `--no-builtin-tools`, `--exclude-tools`) and at least one agent is
//! defined, so a pi user without agent files sees pi's tools. Children's events reach the
//! subscribers through the same listener list, wrapped as `subagent`.

use super::App;
use crate::subagents::{SubagentTool, Subagents};
use pi_agent::AgentTool;
use pi_ai::lock;
use std::sync::Arc;

impl App {
    /// Offers `subagent` or stops offering it, from the definitions as they are now.
    pub(super) fn offer_subagents(&self) {
        let offered = self.subagent_allowed && !lock(&self.agents).is_empty();
        let tool = offered.then(|| {
            let shared = Arc::clone(&self.shared);
            let kit = Subagents::new(
                self.session.downgrade(),
                Arc::clone(&self.rebuild),
                self.host.clone(),
                Arc::clone(&self.agents),
                Arc::new(move |event| {
                    if shared.has_listeners() {
                        shared.emit(event);
                    }
                }),
            );
            Arc::new(SubagentTool::new(Arc::new(kit))) as Arc<dyn AgentTool>
        });
        self.session.set_subagent_tool(tool);
    }
}
