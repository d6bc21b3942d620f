//! `pi mcp list [--json]` (connect to every enabled server and report as pi 1.6 does) and
//! `pi mcp trust <server>` (connect and accept its current tool definitions).

use super::options::{Kind, parse};
use super::{HELP_HINT, find_entry, load};
use pi_app::startup::StartupEnv;
use pi_mcp::config::{McpConfig, ServerEntry};
use pi_mcp::{ManagerOptions, McpManager, McpTool, ServerSpec, ServerState, ServerStatus};
use serde::Serialize;
use serde_json::{Map, Value};
use std::sync::Arc;
use std::time::Duration;

/// The longest `list` waits for servers to connect, whatever their `timeout` says.
const MAX_WAIT: Duration = Duration::from_secs(3600);

/// One server as `pi mcp list --json` prints it (pi 1.6's fields, in its order, plus
/// `changed`: the tools whose definitions changed since they were pinned).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Report {
    name: String,
    scope: &'static str,
    source: String,
    #[serde(rename = "override", skip_serializing_if = "Option::is_none")]
    override_source: Option<String>,
    enabled: bool,
    exposure: &'static str,
    transport: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    auth_provider: Option<String>,
    /// pi's states (`disabled`, `connecting`, `connected`, `failed`, `needs-auth`) and ours,
    /// `changed`: connected, with tools withheld until `pi mcp trust`.
    state: &'static str,
    tools: Vec<String>,
    #[serde(skip_serializing_if = "Map::is_empty")]
    tool_exposure: Map<String, Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    resources: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    changed: Vec<String>,
}

impl Report {
    fn new(entry: &ServerEntry) -> Report {
        Report {
            name: entry.name.clone(),
            scope: entry.scope.as_str(),
            source: entry.source.display().to_string(),
            override_source: entry
                .override_source
                .as_ref()
                .map(|path| path.display().to_string()),
            enabled: entry.enabled,
            exposure: entry.config.exposure.as_str(),
            transport: entry.config.describe_transport(),
            auth_provider: entry.config.auth_provider().map(str::to_owned),
            state: "disabled",
            tools: Vec::new(),
            tool_exposure: Map::new(),
            resources: None,
            error: None,
            changed: Vec::new(),
        }
    }

    /// Fills in what the connection showed.
    fn connected(
        &mut self,
        spec: &ServerSpec,
        status: Option<&ServerStatus>,
        tools: &[Arc<McpTool>],
    ) {
        let Some(status) = status else {
            self.state = "failed";
            self.error = Some("The server was not started".into());
            return;
        };
        self.state = status.state.as_str();
        if let ServerState::Failed(error) = &status.state {
            self.error = Some(error.clone());
        }
        self.tools = tools
            .iter()
            .filter(|tool| tool.server() == self.name)
            .map(|tool| tool.remote_name().to_owned())
            .collect();
        for tool in &self.tools {
            let exposure = spec.exposure_of(tool);
            if exposure.as_str() != self.exposure {
                self.tool_exposure
                    .insert(tool.clone(), Value::String(exposure.as_str().into()));
            }
        }
        self.resources = status.resources.then_some(true);
        if status.state == ServerState::Connected && !status.changed_tools.is_empty() {
            self.state = "changed";
            self.changed = status.changed_tools.clone();
        }
    }
}

/// `pi mcp list [--json]`.
pub(super) fn run(args: &[String], env: &StartupEnv) -> Result<i32, String> {
    let parsed = parse(args, &[("json", Kind::Flag)], usize::MAX)?;
    if !parsed.positional.is_empty() {
        return Err(format!("Usage: pi mcp list [--json]\n{HELP_HINT}"));
    }
    let (loaded, note) = load(env);
    let reports = reports(&loaded, env)?;
    let failed = !loaded.errors.is_empty()
        || reports
            .iter()
            .any(|report| report.enabled && report.state != "connected");
    if parsed.flag("json") {
        let mut out = serde_json::json!({ "servers": reports, "errors": loaded.errors });
        if let (Some(note), Some(object)) = (&note, out.as_object_mut()) {
            object.insert("note".into(), Value::String(note.clone()));
        }
        let text = serde_json::to_string_pretty(&out).map_err(|error| error.to_string())?;
        say!("{text}");
    } else {
        print_text(&reports, &loaded, note.as_deref(), env);
    }
    Ok(i32::from(failed))
}

/// Connects to every enabled server (those whose values resolve) and reports on each entry.
fn reports(loaded: &McpConfig, env: &StartupEnv) -> Result<Vec<Report>, String> {
    let mut reports = Vec::new();
    let mut specs = Vec::new();
    for entry in &loaded.entries {
        let mut report = Report::new(entry);
        if entry.enabled {
            match McpConfig::resolve(entry, &env.cwd) {
                Ok(spec) => specs.push(spec),
                Err(error) => {
                    report.state = "failed";
                    report.error = Some(error);
                }
            }
        }
        reports.push(report);
    }
    if specs.is_empty() {
        return Ok(reports);
    }
    let (statuses, tools) = connect(specs.clone(), env)?;
    for spec in &specs {
        let status = statuses.iter().find(|status| status.name == spec.name);
        if let Some(report) = reports.iter_mut().find(|report| report.name == spec.name) {
            report.connected(spec, status, &tools);
        }
    }
    Ok(reports)
}

/// A runtime for the manager, and its options: pi's agent dir, the working directory as the
/// servers' root, no sandbox (as pi 1.6's `pi mcp` connects).
fn runtime_and_options(
    env: &StartupEnv,
) -> Result<(tokio::runtime::Runtime, ManagerOptions), String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| format!("Error: cannot start the runtime: {error}"))?;
    let options = ManagerOptions {
        agent_dir: env.agent_dir.clone(),
        sandbox: None,
        roots: vec![env.cwd.clone()],
        held: false,
    };
    Ok((runtime, options))
}

/// Starts `specs`, waits until each left `connecting` (at most its timeout), and stops them.
fn connect(
    specs: Vec<ServerSpec>,
    env: &StartupEnv,
) -> Result<(Vec<ServerStatus>, Vec<Arc<McpTool>>), String> {
    let (runtime, options) = runtime_and_options(env)?;
    Ok(runtime.block_on(async move {
        let names: Vec<String> = specs.iter().map(|spec| spec.name.clone()).collect();
        let wait = specs
            .iter()
            .map(|spec| spec.timeout)
            .max()
            .unwrap_or_default()
            .min(MAX_WAIT);
        let manager = McpManager::start(specs, options);
        manager.wait_ready(&names, wait).await;
        let found = (manager.servers(), manager.tools());
        manager.shutdown().await;
        found
    }))
}

fn print_text(reports: &[Report], loaded: &McpConfig, note: Option<&str>, env: &StartupEnv) {
    if reports.is_empty() && loaded.errors.is_empty() {
        say!(
            "No MCP servers configured. Add them to {} or .pi/mcp.json.",
            pi_mcp::config::user_config_path(&env.agent_dir).display()
        );
    }
    for report in reports {
        let count = |n: usize| format!("{n} tool{}", if n == 1 { "" } else { "s" });
        let state = match report.state {
            "connected" | "changed" => format!("{}, {}", report.state, count(report.tools.len())),
            "needs-auth" => "needs sign-in".to_owned(),
            other => other.to_owned(),
        };
        say!(
            "{}: {state} ({}, {})",
            report.name,
            report.exposure,
            report.scope
        );
        say!("  {}", report.transport);
        if let Some(path) = &report.override_source {
            say!("  project override: {path}");
        }
        if report.state == "needs-auth" {
            match &report.auth_provider {
                Some(provider) => say!("  sign in with: /login {provider} in pi"),
                None => say!("  sign in with: pi mcp login {}", report.name),
            }
        }
        if !report.tools.is_empty() {
            let tools: Vec<String> = report
                .tools
                .iter()
                .map(
                    |tool| match report.tool_exposure.get(tool).and_then(Value::as_str) {
                        Some(exposure) => format!("{tool} [{exposure}]"),
                        None => tool.clone(),
                    },
                )
                .collect();
            say!("  tools: {}", tools.join(", "));
        }
        if report.resources == Some(true) {
            say!("  offers resources");
        }
        if !report.changed.is_empty() {
            say!(
                "  changed since pinned (withheld): {}; accept with: pi mcp trust {}",
                report.changed.join(", "),
                report.name
            );
        }
        if let Some(error) = &report.error {
            say!("  {}", error.split('\n').collect::<Vec<_>>().join("\n  "));
        }
    }
    for error in &loaded.errors {
        say!("config error: {error}");
    }
    if let Some(note) = note {
        say!("{note}");
    }
}

/// `pi mcp trust <server>`: connects to the server and pins its current tool definitions.
pub(super) fn trust(args: &[String], env: &StartupEnv) -> Result<i32, String> {
    let parsed = parse(args, &[], usize::MAX)?;
    let [name] = parsed.positional.as_slice() else {
        return Err(format!("Usage: pi mcp trust <server>\n{HELP_HINT}"));
    };
    let (loaded, note) = load(env);
    let entry = find_entry(&loaded, name, note.as_deref())?;
    let spec = McpConfig::resolve(entry, &env.cwd)?;
    let (runtime, options) = runtime_and_options(env)?;
    let outcome = runtime.block_on(async move {
        let wait = spec.timeout.min(MAX_WAIT);
        let manager = McpManager::start(vec![spec], options);
        manager.wait_ready(std::slice::from_ref(name), wait).await;
        let state = manager
            .servers()
            .into_iter()
            .find(|status| status.name == *name)
            .map(|status| status.state);
        let outcome = match state {
            Some(ServerState::Connected) => manager.trust(name),
            Some(ServerState::NeedsAuth) => Err(format!(
                r#"MCP server "{name}" requires sign-in. Run "pi mcp login {name}"."#
            )),
            Some(ServerState::Failed(error)) => {
                Err(format!(r#"MCP server "{name}" failed to connect: {error}"#))
            }
            Some(ServerState::Connecting | ServerState::Disabled) | None => {
                Err(format!(r#"MCP server "{name}" did not connect."#))
            }
        };
        manager.shutdown().await;
        outcome
    });
    let count = outcome?;
    let tools = if count == 1 { "tool" } else { "tools" };
    say!(r#"Trusted the current definitions of {count} {tools} of MCP server "{name}"."#);
    Ok(0)
}
