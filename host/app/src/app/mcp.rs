//! The App's MCP servers: started in the background with the session, stopped when it
//! shuts down, and what the faces show of them (`/mcp`, RPC state).

use super::App;
use crate::mcp::McpTools;
use crate::startup::McpSetup;
use pi_mcp::{McpManager, ServerStatus};
use std::time::Duration;

/// How long the servers wait for the session's first frame or request to go out first.
const RELEASE_AFTER: Duration = Duration::from_millis(50);

impl App {
    /// Starts the run's servers (connecting in the background) and offers their tools.
    pub(super) fn start_mcp(&self, setup: McpSetup) {
        let manager = McpManager::start(setup.servers, setup.options);
        let tools = McpTools::new(manager, setup.filter, self.session.permission_mode());
        tools.set_ui(self.ui.clone());
        if tokio::runtime::Handle::try_current().is_ok() {
            tokio::spawn(McpTools::report_problems(std::sync::Arc::downgrade(&tools)));
            // Held until the first frame or request is out (a prompt that needs a server
            // releases them at once); starting processes and handshakes would delay both.
            let manager = tools.manager().clone();
            tokio::spawn(async move {
                tokio::time::sleep(RELEASE_AFTER).await;
                manager.release();
            });
        } else {
            tools.manager().release();
        }
        self.session.set_mcp(tools);
    }

    /// The run's MCP servers (`None`: MCP is off or nothing is configured).
    pub fn mcp(&self) -> Option<McpManager> {
        self.session.mcp().map(|tools| tools.manager().clone())
    }

    /// Every configured server as it is now.
    pub fn mcp_servers(&self) -> Vec<ServerStatus> {
        self.mcp().map(|m| m.servers()).unwrap_or_default()
    }

    /// Stops the servers (stdio ones: their whole process group).
    pub(super) async fn stop_mcp(&self) {
        if let Some(manager) = self.mcp() {
            manager.shutdown().await;
        }
    }
}
