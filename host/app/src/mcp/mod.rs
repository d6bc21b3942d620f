//! The tools of a session's MCP servers (pi-mcp's [`McpManager`]): which of them the model is
//! offered, by their exposure, the run's `--tools`/`--exclude-tools` patterns and the
//! permission mode; the `tool_search` tool that loads deferred ones; and the system prompt's
//! `mcp_servers` section.
//!
//! What `tool_search` loaded is read back from the conversation (its results'
//! `details.loaded`), so a branch, a resumed session and a fork each have their own loads.
//! Tools whose definitions changed since they were pinned are withheld until
//! `pi mcp trust <server>`, and said once per session.

mod search;
mod section;
mod setup;

use crate::permissions::{ModeCell, PermissionMode};
use pi_agent::{AgentMessage, AgentTool};
use pi_ai::lock;
use pi_ext_api::hooks::{NotifyLevel, UserInterface};
use pi_mcp::{Exposure, McpManager, McpTool, PinState};
use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub use search::TOOL_SEARCH;
pub use section::SECTION;
pub(crate) use setup::is_mcp_tool;
pub use setup::{BUILTIN_MCP, McpFlags, McpSetup, mcp_enabled};

/// What `/mcp` does, as pi 1.6 describes it.
pub const COMMAND_DESCRIPTION: &str =
    "Manage MCP servers: sign in, reconnect, enable or disable, and change exposure";

/// Who MCP notices come from.
const FROM: &str = "mcp";
/// How long a prompt waits for servers with `direct` tools (pi 1.6: 10 s).
const DIRECT_WAIT: Duration = Duration::from_secs(10);
/// How long `tool_search` waits for servers still connecting.
const SEARCH_WAIT: Duration = Duration::from_secs(60);
/// The tools that read MCP resources; they only read.
pub const RESOURCE_TOOLS: [&str; 3] = [
    pi_mcp::LIST_MCP_RESOURCES_TOOL,
    pi_mcp::LIST_MCP_RESOURCE_TEMPLATES_TOOL,
    pi_mcp::READ_MCP_RESOURCE_TOOL,
];

/// Which MCP tools a run may offer, from `--tools`, `--no-tools` and `--exclude-tools`
/// (pi 1.6: `--tools` keeps MCP tools unless one of its entries starts with `mcp__`;
/// `--exclude-tools` takes patterns and applies last).
#[derive(Debug, Clone, Default)]
pub struct ToolFilter {
    /// `--tools` entries naming MCP tools (patterns), when there are any.
    only: Option<Vec<String>>,
    exclude: Vec<String>,
}

impl ToolFilter {
    pub fn new(tools: Option<&[String]>, no_tools: bool, exclude: &[String]) -> Self {
        let named: Vec<String> = tools
            .unwrap_or_default()
            .iter()
            .map(|t| t.trim().to_owned())
            .filter(|t| t.starts_with("mcp__"))
            .collect();
        let only = match (named.is_empty(), no_tools && tools.is_none()) {
            (false, _) => Some(named),
            (true, true) => Some(Vec::new()),
            (true, false) => None,
        };
        ToolFilter {
            only,
            exclude: exclude.iter().map(|x| x.trim().to_owned()).collect(),
        }
    }

    /// Whether the tool `name` may be offered.
    pub fn allows(&self, name: &str) -> bool {
        let listed = match &self.only {
            None => true,
            Some(patterns) => patterns.iter().any(|p| matches(p, name)),
        };
        listed && !self.exclude.iter().any(|p| matches(p, name))
    }
}

/// `*` matches any run of characters.
fn matches(pattern: &str, name: &str) -> bool {
    pi_mcp::glob_matches(pattern, name)
}

/// A session's MCP tools.
pub struct McpTools {
    manager: McpManager,
    filter: ToolFilter,
    mode: ModeCell,
    /// The MCP tools the model was last offered (`tool_search` looks among the others).
    declared: Mutex<HashSet<String>>,
    /// Notices already given this session.
    told: Mutex<HashSet<String>>,
    ui: Mutex<Option<Arc<dyn UserInterface>>>,
}

impl McpTools {
    pub fn new(manager: McpManager, filter: ToolFilter, mode: ModeCell) -> Arc<Self> {
        Arc::new(McpTools {
            manager,
            filter,
            mode,
            declared: Mutex::default(),
            told: Mutex::default(),
            ui: Mutex::default(),
        })
    }

    pub fn manager(&self) -> &McpManager {
        &self.manager
    }

    /// Where notices go (the app's user interface).
    pub fn set_ui(&self, ui: Arc<dyn UserInterface>) {
        *lock(&self.ui) = Some(ui);
    }

    /// Whether there is anything to offer at all (servers configured).
    pub fn is_empty(&self) -> bool {
        self.manager.servers().is_empty()
    }

    /// Waits, at most 10 s, for the servers whose tools are declared that are still
    /// connecting: those with `direct` tools, as pi 1.6 does before each prompt, and those
    /// whose tools `tool_search` loaded in `messages` (a continued session); says so once when
    /// some are still not there.
    pub async fn wait_for_declared(&self, messages: &[AgentMessage]) {
        let loaded = loaded_in(messages);
        let declared = |server: &str| {
            let prefix = format!("{}__", pi_mcp::naming::mcp_namespace(server));
            self.manager
                .spec(server)
                .is_some_and(|spec| spec.exposures().any(|e| e == Exposure::Direct))
                || loaded.iter().any(|name| name.starts_with(&prefix))
        };
        let waiting = self.connecting(declared);
        if waiting.is_empty() {
            return;
        }
        self.manager.release();
        if !self.manager.wait_ready(&waiting, DIRECT_WAIT).await {
            self.tell_once(
                "connecting",
                "MCP servers are still connecting; their tools become available once connected.",
                NotifyLevel::Info,
            );
        }
    }

    /// Waits until no server is connecting any more (at most a minute), for what reaches
    /// every server's tools (`tool_search`).
    pub async fn wait_for_connecting(&self) {
        let connecting = self.connecting(|_| true);
        if !connecting.is_empty() {
            self.manager.release();
            self.manager.wait_ready(&connecting, SEARCH_WAIT).await;
        }
    }

    /// The servers still connecting that `wanted` names.
    fn connecting(&self, wanted: impl Fn(&str) -> bool) -> Vec<String> {
        self.manager
            .servers()
            .into_iter()
            .filter(|s| s.state == pi_mcp::ServerState::Connecting && wanted(&s.name))
            .map(|s| s.name)
            .collect()
    }

    /// The tools the model is offered with the conversation `messages`: `direct` tools, the
    /// deferred ones `tool_search` loaded there, `tool_search` itself when some server has
    /// deferred tools, and the resource tools; in plan mode only tools the server marks
    /// read-only.
    pub fn tools(self: &Arc<Self>, messages: &[AgentMessage]) -> Vec<Arc<dyn AgentTool>> {
        let loaded = loaded_in(messages);
        let planning = self.mode.get() == PermissionMode::Plan;
        let mut withheld: Vec<(String, String)> = Vec::new();
        let mut offered: Vec<Arc<dyn AgentTool>> = Vec::new();
        let mut declared = HashSet::new();
        for tool in self.manager.tools() {
            if !self.filter.allows(agent_name(&tool)) {
                continue;
            }
            if tool.pin() == PinState::Changed {
                withheld.push((tool.server().to_owned(), agent_name(&tool).to_owned()));
                continue;
            }
            let reachable = match tool.exposure() {
                Exposure::Direct => true,
                Exposure::Deferred | Exposure::Codemode => loaded.contains(agent_name(&tool)),
                Exposure::Hidden => false,
            };
            if reachable && (!planning || read_only(&tool)) {
                declared.insert(agent_name(&tool).to_owned());
                offered.push(tool);
            }
        }
        *lock(&self.declared) = declared;
        self.report_withheld(&withheld);
        self.report_codemode();
        if self.has_indirect_tools() && self.filter.allows(TOOL_SEARCH) {
            offered.push(search::tool(self));
        }
        offered.extend(
            self.manager
                .resource_tools()
                .into_iter()
                .filter(|t| self.filter.allows(t.name())),
        );
        offered
    }

    /// The tools whose names `wanted` accepts, whatever their exposure (a child run's
    /// definition names them), except hidden ones and those whose definition changed; in plan
    /// mode only those the server marks read-only.
    pub fn matching(
        &self,
        wanted: &dyn Fn(&str) -> bool,
        planning: bool,
    ) -> Vec<Arc<dyn AgentTool>> {
        self.manager
            .tools()
            .into_iter()
            .filter(|tool| wanted(agent_name(tool)) && self.filter.allows(agent_name(tool)))
            .filter(|tool| tool.exposure() != Exposure::Hidden && tool.pin() != PinState::Changed)
            .filter(|tool| !planning || read_only(tool))
            .map(|tool| tool as Arc<dyn AgentTool>)
            .collect()
    }

    /// The MCP tools an `ask-writes` session asks before: every one the server does not mark
    /// read-only (a `destructiveHint` or no hint at all).
    pub fn writers(&self) -> Vec<String> {
        self.manager
            .tools()
            .iter()
            .filter(|t| !read_only(t))
            .map(|t| agent_name(t).to_owned())
            .collect()
    }

    /// The system prompt's `mcp_servers` section (`None`: no server has indirect tools).
    pub fn servers_section(&self) -> Option<String> {
        let statuses = self.manager.servers();
        let specs: Vec<_> = statuses
            .iter()
            .filter_map(|s| self.manager.spec(&s.name))
            .collect();
        let listed: Vec<section::Listed<'_>> = specs
            .iter()
            .map(|spec| section::Listed {
                spec,
                instructions: statuses
                    .iter()
                    .find(|s| s.name == spec.name)
                    .and_then(|s| s.instructions.as_deref()),
            })
            .collect();
        section::render(&listed)
    }

    fn has_indirect_tools(&self) -> bool {
        self.manager
            .servers()
            .iter()
            .filter_map(|s| self.manager.spec(&s.name))
            .any(|spec| section::has_indirect_tools(&spec))
    }

    /// What `tool_search` looks among: the deferred tools not declared yet, with their
    /// description.
    fn searchable(&self) -> Vec<(search::Document, String)> {
        let declared = lock(&self.declared).clone();
        let planning = self.mode.get() == PermissionMode::Plan;
        self.manager
            .tools()
            .into_iter()
            .filter(|t| matches!(t.exposure(), Exposure::Deferred | Exposure::Codemode))
            .filter(|t| t.pin() == PinState::Pinned && self.filter.allows(agent_name(t)))
            .filter(|t| !declared.contains(agent_name(t)) && (!planning || read_only(t)))
            .map(|t| {
                let mut text = vec![t.description().to_owned()];
                search::schema_text(t.parameters().value(), &mut text, 0);
                let spec = self.manager.spec(t.server());
                let server_text = format!(
                    "{} {}",
                    t.server(),
                    spec.and_then(|s| s.description).unwrap_or_default()
                );
                let document = search::Document {
                    name: agent_name(&t).to_owned(),
                    text: text.join(" "),
                    server_text,
                };
                (document, t.description().to_owned())
            })
            .collect()
    }

    /// Tells the user about each server that failed or needs sign-in, once per server and
    /// state, as they happen (pi 1.6 says it once all servers have settled; a slow server
    /// would then hold back the news of a broken one). Ends with the session.
    pub async fn report_problems(tools: std::sync::Weak<Self>) {
        let Some(mut changes) = tools.upgrade().map(|t| t.manager.changes()) else {
            return;
        };
        loop {
            let Some(this) = tools.upgrade() else {
                return;
            };
            this.tell_problems();
            drop(this);
            if changes.changed().await.is_err() {
                return;
            }
        }
    }

    fn tell_problems(&self) {
        for server in self.manager.servers() {
            let state = match &server.state {
                pi_mcp::ServerState::Failed(error) => {
                    format!(
                        "failed: {}",
                        error.lines().next().unwrap_or("unknown error")
                    )
                }
                pi_mcp::ServerState::NeedsAuth => "needs sign-in".to_owned(),
                _ => continue,
            };
            self.tell_once(
                &format!("problem:{}:{state}", server.name),
                &format!(
                    "MCP servers need attention:\n  {}: {state}\nRun /mcp to fix.",
                    server.name
                ),
                NotifyLevel::Warning,
            );
        }
    }

    fn report_withheld(&self, withheld: &[(String, String)]) {
        let mut servers: Vec<&str> = withheld.iter().map(|(s, _)| s.as_str()).collect();
        servers.dedup();
        for server in servers {
            let tools: Vec<&str> = withheld
                .iter()
                .filter(|(s, _)| s == server)
                .map(|(_, t)| t.as_str())
                .collect();
            self.tell_once(
                &format!("changed:{server}:{}", tools.join(",")),
                &format!(
                    "MCP server \"{server}\" changed the definitions of {} since they were \
                     pinned; they are withheld. Review them with /mcp or `pi mcp list`, and \
                     accept them there or with `pi mcp trust {server}`.",
                    tools.join(", ")
                ),
                NotifyLevel::Warning,
            );
        }
    }

    /// pi 1.6's default exposure, `codemode`, needs a codemode tool this build does not have:
    /// such tools are found with `tool_search` instead, said once.
    fn report_codemode(&self) {
        let servers: Vec<String> = self
            .manager
            .servers()
            .iter()
            .filter_map(|s| self.manager.spec(&s.name))
            .filter(|spec| spec.exposures().any(|e| e == Exposure::Codemode))
            .map(|spec| spec.name)
            .collect();
        if servers.is_empty() {
            return;
        }
        self.tell_once(
            "codemode",
            &format!(
                "MCP servers with codemode exposure ({}): this pi has no codemode, so their \
                 tools are found with tool_search (as with \"exposure\": \"deferred\").",
                servers.join(", ")
            ),
            NotifyLevel::Info,
        );
    }

    fn tell_once(&self, key: &str, text: &str, level: NotifyLevel) {
        if !lock(&self.told).insert(key.to_owned()) {
            return;
        }
        match lock(&self.ui).as_ref() {
            Some(ui) => ui.notify(FROM, text, level),
            None => tracing::info!("{text}"),
        }
    }
}

fn agent_name(tool: &McpTool) -> &str {
    AgentTool::name(tool)
}

fn read_only(tool: &McpTool) -> bool {
    tool.annotations().read_only_hint == Some(true)
}

/// The tools `tool_search` loaded in `messages`.
fn loaded_in(messages: &[AgentMessage]) -> HashSet<String> {
    messages
        .iter()
        .filter_map(AgentMessage::as_tool_result)
        .filter(|r| r.tool_name == TOOL_SEARCH && !r.is_error)
        .filter_map(|r| r.details.as_ref())
        .flat_map(search::loaded_by)
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tools_flags_keep_mcp_tools_unless_they_name_some() {
        let names = |list: &[&str]| list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let keep_all = ToolFilter::new(Some(&names(&["read", "bash"])), false, &[]);
        assert!(keep_all.allows("mcp__fs__read_file"));
        let only = ToolFilter::new(Some(&names(&["read", "mcp__fs__*"])), false, &[]);
        assert!(only.allows("mcp__fs__read_file"));
        assert!(!only.allows("mcp__git__log"));
        let excluded = ToolFilter::new(None, false, &names(&["mcp__fs__write*", "tool_search"]));
        assert!(excluded.allows("mcp__fs__read_file"));
        assert!(!excluded.allows("mcp__fs__write_file"));
        assert!(!excluded.allows(TOOL_SEARCH));
        assert!(!ToolFilter::new(None, true, &[]).allows("mcp__fs__read_file"));
        assert!(matches("mcp__*__read*", "mcp__fs__read_file"));
        assert!(!matches("mcp__*__read", "mcp__fs__read_file"));
    }
}
