//! The App's MCP servers: started in the background with the session, stopped when it
//! shuts down, and what the faces show and change of them (`/mcp`, RPC state). A change made
//! from `/mcp` applies at once and is saved to the `mcp.json` that defines the server, as pi
//! 1.6 saves it (`enabled`, `exposure`; into the project override when there is one).

use super::App;
use crate::mcp::McpSetup;
use crate::mcp::McpTools;
use pi_ai::lock;
use pi_mcp::config::{McpConfig, Scope, ServerEntry};
use pi_mcp::{ChangedDefinition, Exposure, McpManager, PinState, ServerState, ServerStatus};
use serde_json::{Map, Value};
use std::path::PathBuf;
use std::time::Duration;

/// How long the servers wait for the session's first frame or request to go out first.
const RELEASE_AFTER: Duration = Duration::from_millis(50);

/// What each exposure `/mcp` offers means (pi 1.6's words; this build has no codemode, so
/// `codemode` tools are found with `tool_search` like `deferred` ones).
pub const EXPOSURE_CHOICES: [(Exposure, &str); 3] = [
    (
        Exposure::Codemode,
        "called from codemode scripts, which find them with searchTools()",
    ),
    (
        Exposure::Deferred,
        "not declared until tool_search loads them, then called directly; no codemode needed",
    ),
    (
        Exposure::Direct,
        "declared to the model like built-in tools",
    ),
];

/// One configured server as `/mcp` lists it.
#[derive(Debug, Clone)]
pub struct McpServerView {
    pub name: String,
    /// `Disabled` for a server that is off (in the file or from `/mcp`).
    pub state: ServerState,
    pub tools: usize,
    pub resources: bool,
    pub exposure: Exposure,
    /// `global`, `project`, or `global, project override`.
    pub scope: String,
    /// The URL or the command line.
    pub transport: String,
    /// The file that defines it, and the project override's.
    pub source: PathBuf,
    pub override_source: Option<PathBuf>,
    /// Whether `Disable/Enable in this project` applies (a global server without an override,
    /// in a trusted project).
    pub in_project: bool,
    /// Tools withheld since their definitions changed.
    pub changed_tools: Vec<String>,
    /// An HTTP server that signs in with OAuth (`/mcp logout` applies).
    pub uses_oauth: bool,
}

/// One tool of a server as `/mcp` lists it.
#[derive(Debug, Clone)]
pub struct McpToolView {
    /// The name on the server.
    pub name: String,
    pub exposure: Exposure,
    /// Withheld: its definition changed since it was pinned.
    pub changed: bool,
    pub description: String,
}

/// Every configured server and what could not be read.
#[derive(Debug, Clone, Default)]
pub struct McpOverview {
    pub servers: Vec<McpServerView>,
    pub errors: Vec<String>,
    /// `<agentDir>/mcp.json`, named when nothing is configured.
    pub user_config: PathBuf,
}

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

    /// The configuration files as they are now, and the directory servers run in.
    pub(super) fn mcp_config(&self) -> Option<(McpConfig, PathBuf, PathBuf)> {
        let search = lock(&self.resource_search);
        let (_, env, trusted) = search.as_ref()?.startup();
        let config = McpConfig::load(&env.agent_dir, &env.cwd, trusted);
        Some((config, env.agent_dir.clone(), env.cwd.clone()))
    }

    /// Every configured server (the running ones and those that are off), in the order of the
    /// files, then those only the manager knows.
    pub fn mcp_overview(&self) -> McpOverview {
        let manager = self.mcp();
        let statuses = manager.as_ref().map(|m| m.servers()).unwrap_or_default();
        let (config, agent_dir) = match self.mcp_config() {
            Some((config, agent_dir, _)) => (config, agent_dir),
            None => (McpConfig::default(), PathBuf::new()),
        };
        let mut servers: Vec<McpServerView> = config
            .entries
            .iter()
            .map(|entry| {
                let status = statuses.iter().find(|s| s.name == entry.name);
                let exposure = manager
                    .as_ref()
                    .and_then(|m| m.spec(&entry.name))
                    .map_or(entry.config.exposure, |spec| spec.exposure);
                view(entry, status, exposure, config.project_config.is_some())
            })
            .collect();
        for status in &statuses {
            if !servers.iter().any(|s| s.name == status.name) {
                servers.push(McpServerView {
                    name: status.name.clone(),
                    state: status.state.clone(),
                    tools: status.tools,
                    resources: status.resources,
                    exposure: manager
                        .as_ref()
                        .and_then(|m| m.spec(&status.name))
                        .map_or(Exposure::Codemode, |spec| spec.exposure),
                    scope: "config".to_owned(),
                    transport: String::new(),
                    source: PathBuf::new(),
                    override_source: None,
                    in_project: false,
                    changed_tools: status.changed_tools.clone(),
                    uses_oauth: false,
                });
            }
        }
        McpOverview {
            servers,
            errors: config.errors,
            user_config: pi_mcp::config::user_config_path(&agent_dir),
        }
    }

    /// The tools of server `name` with their exposure, withheld ones marked.
    pub fn mcp_tools(&self, name: &str) -> Vec<McpToolView> {
        let Some(manager) = self.mcp() else {
            return Vec::new();
        };
        manager
            .tools()
            .iter()
            .filter(|tool| tool.server() == name)
            .map(|tool| McpToolView {
                name: tool.remote_name().to_owned(),
                exposure: tool.exposure(),
                changed: tool.pin() == PinState::Changed,
                description: pi_agent::AgentTool::description(tool.as_ref()).to_owned(),
            })
            .collect()
    }

    /// Turns server `name` on or off at once and saves `"enabled"` to the file that defines
    /// it (`in_project`: to the trusted project's file, as an override of a global server).
    pub fn mcp_set_enabled(
        &self,
        name: &str,
        enabled: bool,
        in_project: bool,
    ) -> Result<(), String> {
        let manager = self.mcp().ok_or_else(mcp_off)?;
        let (config, _, cwd) = self.mcp_config().ok_or_else(no_config)?;
        let entry = config.entry(name).ok_or_else(|| unknown(name))?;
        save(&config, entry, "enabled", Value::Bool(enabled), in_project)?;
        if manager.spec(name).is_none() {
            if !enabled {
                return Ok(());
            }
            let spec = McpConfig::resolve(entry, &cwd)?;
            manager.add(spec, true);
            return Ok(());
        }
        manager.set_enabled(name, enabled).map(|_| ())
    }

    /// Changes the exposure of server `name` at once and saves it, as pi 1.6 does.
    pub fn mcp_set_exposure(&self, name: &str, exposure: Exposure) -> Result<(), String> {
        let manager = self.mcp().ok_or_else(mcp_off)?;
        let (config, _, _) = self.mcp_config().ok_or_else(no_config)?;
        let entry = config.entry(name).ok_or_else(|| unknown(name))?;
        save(
            &config,
            entry,
            "exposure",
            Value::String(exposure.as_str().to_owned()),
            false,
        )?;
        if manager.spec(name).is_some() {
            manager.set_exposure(name, exposure)?;
        }
        Ok(())
    }

    /// Stops server `name` and connects it again.
    pub fn mcp_reconnect(&self, name: &str) -> Result<(), String> {
        self.mcp().ok_or_else(mcp_off)?.reconnect(name)
    }

    /// The pinned and the current definition of each changed tool of server `name`.
    pub fn mcp_changed_definitions(&self, name: &str) -> Result<Vec<ChangedDefinition>, String> {
        self.mcp().ok_or_else(mcp_off)?.changed_definitions(name)
    }

    /// Accepts the current definitions of server `name`: its tools are offered from the next
    /// request. How many tools it has.
    pub fn mcp_trust(&self, name: &str) -> Result<usize, String> {
        self.mcp().ok_or_else(mcp_off)?.trust(name)
    }

    /// pi 1.6's plain `/mcp` status (print, JSON and RPC modes say it as a notice).
    pub fn mcp_status_text(&self) -> String {
        status_text(&self.mcp_overview())
    }

    /// Stops the servers (stdio ones: their whole process group).
    pub(super) async fn stop_mcp(&self) {
        if let Some(manager) = self.mcp() {
            manager.shutdown().await;
        }
    }
}

fn view(
    entry: &ServerEntry,
    status: Option<&ServerStatus>,
    exposure: Exposure,
    trusted_project: bool,
) -> McpServerView {
    let state = match status {
        Some(status) => status.state.clone(),
        None if !entry.enabled => ServerState::Disabled,
        // Enabled in the file but not running: it could not be resolved at start.
        None => ServerState::Failed("not started (see the start-up warnings)".to_owned()),
    };
    let scope = if entry.is_override {
        "global, project override".to_owned()
    } else {
        entry.scope.as_str().to_owned()
    };
    McpServerView {
        name: entry.name.clone(),
        state,
        tools: status.map_or(0, |s| s.tools),
        resources: status.is_some_and(|s| s.resources),
        exposure,
        scope,
        transport: entry.config.describe_transport(),
        source: entry.source.clone(),
        override_source: entry.override_source.clone(),
        in_project: entry.scope == Scope::User && !entry.is_override && trusted_project,
        changed_tools: status.map(|s| s.changed_tools.clone()).unwrap_or_default(),
        uses_oauth: entry.config.oauth_url().is_some(),
    }
}

/// Writes `key: value` into the entry's file: its project override when it has one, the
/// trusted project's file when `in_project`, else the file that defines it.
fn save(
    config: &McpConfig,
    entry: &ServerEntry,
    key: &str,
    value: Value,
    in_project: bool,
) -> Result<(), String> {
    let (path, create) = match (&entry.override_source, &config.project_config) {
        (Some(path), _) => (path.clone(), true),
        (None, Some(project)) if in_project => (project.clone(), true),
        _ => (entry.source.clone(), false),
    };
    let mut patch = Map::new();
    patch.insert(key.to_owned(), value);
    pi_mcp::config::update_server(&path, &entry.name, patch, create).map_err(|e| e.to_string())
}

fn mcp_off() -> String {
    "MCP is off in this run (--no-mcp)".to_owned()
}

fn no_config() -> String {
    "this session was not started from the configuration files".to_owned()
}

fn unknown(name: &str) -> String {
    format!(r#"No MCP server named "{name}"."#)
}

/// pi 1.6's `formatStatus`: one line per server (state, tools, exposure; a failure's error
/// indented below), then the configuration errors.
pub fn status_text(overview: &McpOverview) -> String {
    if overview.servers.is_empty() && overview.errors.is_empty() {
        return format!(
            "No MCP servers configured. Add them to {} or .pi/mcp.json.",
            overview.user_config.display()
        );
    }
    let mut lines: Vec<String> = overview
        .servers
        .iter()
        .map(|server| {
            let name = &server.name;
            let exposure = server.exposure.as_str();
            if server.state == ServerState::NeedsAuth {
                return format!("{name}: needs sign-in, run /mcp login {name} ({exposure})");
            }
            let tools = match server.state {
                ServerState::Connected => format!(", {} tools", server.tools),
                _ => String::new(),
            };
            let error = match &server.state {
                ServerState::Failed(error) => format!("\n    {}", error.replace('\n', "\n    ")),
                _ => String::new(),
            };
            let changed = if server.changed_tools.is_empty() {
                String::new()
            } else {
                format!(
                    "\n    changed since pinned (withheld): {}",
                    server.changed_tools.join(", ")
                )
            };
            format!(
                "{name}: {}{tools} ({exposure}){error}{changed}",
                server.state.as_str()
            )
        })
        .collect();
    lines.extend(overview.errors.iter().map(|e| format!("config error: {e}")));
    lines.join("\n")
}

/// The short state `/mcp` lists (pi 1.6's `describeState`).
pub fn describe_state(server: &McpServerView, with_error: bool) -> String {
    match &server.state {
        ServerState::Disabled => "disabled".to_owned(),
        ServerState::NeedsAuth => "needs sign-in".to_owned(),
        ServerState::Failed(error) if with_error => format!(
            "failed: {}",
            error.lines().next().unwrap_or("unknown error")
        ),
        ServerState::Failed(_) => "failed".to_owned(),
        ServerState::Connected => format!(
            "connected · {} tool{}{}",
            server.tools,
            if server.tools == 1 { "" } else { "s" },
            if server.resources {
                " · resources"
            } else {
                ""
            }
        ),
        ServerState::Connecting => "connecting…".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(name: &str, state: ServerState) -> McpServerView {
        McpServerView {
            name: name.to_owned(),
            state,
            tools: 3,
            resources: false,
            exposure: Exposure::Direct,
            scope: "global".to_owned(),
            transport: "node s.js".to_owned(),
            source: PathBuf::from("/a/mcp.json"),
            override_source: None,
            in_project: false,
            changed_tools: Vec::new(),
            uses_oauth: false,
        }
    }

    #[test]
    fn status_text_is_pi_16s() {
        let empty = McpOverview {
            user_config: PathBuf::from("/a/mcp.json"),
            ..McpOverview::default()
        };
        assert_eq!(
            status_text(&empty),
            "No MCP servers configured. Add them to /a/mcp.json or .pi/mcp.json."
        );
        let mut changed = server("pins", ServerState::Connected);
        changed.changed_tools = vec!["describe".to_owned()];
        let overview = McpOverview {
            servers: vec![
                server("a", ServerState::Connected),
                server("b", ServerState::Failed("spawn x ENOENT\nmore".to_owned())),
                server("c", ServerState::NeedsAuth),
                server("d", ServerState::Disabled),
                changed,
            ],
            errors: vec!["/a/mcp.json: bad".to_owned()],
            user_config: PathBuf::new(),
        };
        assert_eq!(
            status_text(&overview),
            "a: connected, 3 tools (direct)\n\
             b: failed (direct)\n    spawn x ENOENT\n    more\n\
             c: needs sign-in, run /mcp login c (direct)\n\
             d: disabled (direct)\n\
             pins: connected, 3 tools (direct)\n    changed since pinned (withheld): describe\n\
             config error: /a/mcp.json: bad"
        );
        assert_eq!(
            describe_state(&server("a", ServerState::Connected), true),
            "connected · 3 tools"
        );
        assert_eq!(
            describe_state(&server("b", ServerState::Failed("x\ny".into())), true),
            "failed: x"
        );
    }
}
