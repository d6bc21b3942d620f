//! What the tests share: the installed MCP servers, specs, waiting for states, process checks.

use pi_agent::{AgentTool, ToolOutput, ToolUpdateFn};
use pi_ai::UserBlock;
use pi_mcp::{
    AuthSpec, Exposure, ManagerOptions, McpManager, McpTool, ServerSpec, ServerState, TransportSpec,
};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// `target/mcp-tools/node_modules` (installed by `.ci/run`).
pub fn node_modules() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/mcp-tools/node_modules")
}

pub fn everything_script() -> String {
    node_modules()
        .join("@modelcontextprotocol/server-everything/dist/index.js")
        .display()
        .to_string()
}

pub fn spec(name: &str, transport: TransportSpec, timeout: Duration) -> ServerSpec {
    ServerSpec {
        name: name.to_owned(),
        transport,
        timeout,
        exposure: Exposure::Direct,
        tool_exposure: Vec::new(),
        description: None,
        auth: AuthSpec::None,
    }
}

pub fn stdio(command: &str, args: &[&str], env: &[(&str, &str)]) -> TransportSpec {
    TransportSpec::Stdio {
        command: command.to_owned(),
        args: args.iter().map(|a| (*a).to_owned()).collect(),
        env: env
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect(),
        cwd: std::env::temp_dir(),
    }
}

pub fn everything_stdio(timeout: Duration) -> ServerSpec {
    spec(
        "everything",
        stdio("node", &[&everything_script(), "stdio"], &[]),
        timeout,
    )
}

pub fn start(specs: Vec<ServerSpec>, agent_dir: &Path) -> McpManager {
    McpManager::start(
        specs,
        ManagerOptions {
            agent_dir: agent_dir.to_owned(),
            sandbox: None,
            roots: Vec::new(),
            held: false,
        },
    )
}

/// The state of `name` once it left `Connecting` (at most 30 s).
pub async fn settled(manager: &McpManager, name: &str) -> ServerState {
    assert!(
        manager
            .wait_ready(&[name.to_owned()], Duration::from_secs(30))
            .await,
        "{name} still connecting"
    );
    manager
        .servers()
        .into_iter()
        .find(|s| s.name == name)
        .map(|s| s.state)
        .expect("configured")
}

pub async fn connected(manager: &McpManager, name: &str) {
    let state = settled(manager, name).await;
    assert_eq!(state, ServerState::Connected, "{name}");
}

pub fn tool(manager: &McpManager, name: &str) -> Arc<McpTool> {
    manager
        .tools()
        .into_iter()
        .find(|t| t.name() == name)
        .unwrap_or_else(|| panic!("no tool {name}"))
}

pub fn no_updates() -> ToolUpdateFn {
    Arc::new(|_| {})
}

/// An update function and the texts it received.
pub fn recorded_updates() -> (ToolUpdateFn, Arc<Mutex<Vec<String>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let update: ToolUpdateFn = Arc::new(move |output: ToolOutput| {
        sink.lock().unwrap().push(text_of(&output));
    });
    (update, seen)
}

pub async fn call(tool: &dyn AgentTool, args: Value) -> Result<ToolOutput, pi_agent::ToolError> {
    tool.execute("call", args, CancellationToken::new(), no_updates())
        .await
}

pub fn text_of(output: &ToolOutput) -> String {
    output
        .content
        .iter()
        .filter_map(|b| match b {
            UserBlock::Text(t) => Some(t.text.as_str()),
            UserBlock::Image(_) => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Processes whose command line contains `marker`.
pub fn processes_with(marker: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            let text = String::from_utf8_lossy(&cmdline);
            text.contains(marker).then_some(pid)
        })
        .collect()
}

/// A marker argument unique to one test run.
pub fn marker(label: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("--pi-mcp-test={label}-{}-{nanos}", std::process::id())
}

/// A free loopback port (bound, then released).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A server the test started itself, killed when dropped.
pub struct Spawned(pub std::process::Child);

impl Drop for Spawned {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// server-everything over streamable HTTP on a free loopback port: the process and its URL.
pub async fn everything_http() -> (Spawned, String) {
    let port = free_port();
    let child = std::process::Command::new("node")
        .arg(everything_script())
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("node runs");
    let spawned = Spawned(child);
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            return (spawned, format!("http://127.0.0.1:{port}/mcp"));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("server-everything did not listen on {port}");
}
