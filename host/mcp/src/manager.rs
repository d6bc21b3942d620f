//! The servers of a run: each connects on its own task in the background; their states, tools
//! (named, pinned) and resources; stopping them all. `/mcp` controls them live (`control`):
//! reconnect, enable or disable, change the exposure, show and trust changed definitions.

mod control;

use crate::client::{self, ConnectError, ConnectOptions, Connection};
use crate::http::AuthProvider;
use crate::log::McpLog;
use crate::naming::mcp_tool_name;
use crate::pins::PinStore;
use crate::resources::{ResourceServers, resource_tools};
use crate::spec::{Exposure, ServerSpec, TransportSpec};
use crate::tool::ServerLink;
pub use crate::tool::{McpTool, PinState, ToolAnnotations};
pub use control::ChangedDefinition;
use pi_agent::AgentTool;
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::Duration;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// How often a connected server's transport is checked for having closed.
const CLOSED_POLL: Duration = Duration::from_millis(250);

/// What every server of a run shares.
#[derive(Debug, Clone, Default)]
pub struct ManagerOptions {
    /// Where `mcp.log`, `mcp-pins.json` and `mcp-auth.json` live.
    pub agent_dir: PathBuf,
    /// The Landlock sandbox stdio servers run under (`tools.sandbox`), `None` when off.
    pub sandbox: Option<pi_ext_host::sandbox::ShellSandbox>,
    /// The directories servers are told they work in (MCP roots; pi 1.6 gives the session's
    /// working directory).
    pub roots: Vec<PathBuf>,
    /// Connect only once [`McpManager::release`] is called: a session holds its servers back
    /// until its first frame or request is out, so that starting them (processes, handshakes)
    /// does not delay either.
    pub held: bool,
}

/// Where a server is in its life.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerState {
    Connecting,
    Connected,
    /// Could not start or connect, or the connection was lost: why.
    Failed(String),
    /// An HTTP server that answered 401 and has no usable token.
    NeedsAuth,
    /// Turned off (`/mcp`, `"enabled": false`): not running, no tools.
    Disabled,
}

impl ServerState {
    /// pi 1.6's names in `pi mcp list --json` (`connecting`, `connected`, `failed`, `needs-auth`).
    pub fn as_str(&self) -> &'static str {
        match self {
            ServerState::Connecting => "connecting",
            ServerState::Connected => "connected",
            ServerState::Failed(_) => "failed",
            ServerState::NeedsAuth => "needs-auth",
            ServerState::Disabled => "disabled",
        }
    }
}

/// One server as the faces show it.
#[derive(Debug, Clone)]
pub struct ServerStatus {
    pub name: String,
    pub state: ServerState,
    /// Tools the server offers (withheld ones included).
    pub tools: usize,
    pub resources: bool,
    /// The server's `instructions` from its initialize answer.
    pub instructions: Option<String>,
    /// Tools whose definitions changed since they were pinned (withheld until trusted).
    pub changed_tools: Vec<String>,
}

/// One configured server and what is known of it.
struct Slot {
    spec: ServerSpec,
    data: Mutex<SlotData>,
}

struct SlotData {
    state: ServerState,
    tools: Vec<Arc<McpTool>>,
    /// Tool name → wire definition, as last listed.
    definitions: BTreeMap<String, Value>,
    changed: Vec<String>,
    instructions: Option<String>,
    link: Option<Arc<ServerLink>>,
    /// The server's exposure now (`/mcp` may have changed the spec's).
    exposure: Exposure,
    /// Stops the task of the current connection attempt.
    stop: CancellationToken,
    /// The task of the current connection attempt.
    task: Option<JoinHandle<()>>,
}

impl Slot {
    fn new(spec: ServerSpec, state: ServerState, stop: CancellationToken) -> Slot {
        Slot {
            data: Mutex::new(SlotData {
                state,
                tools: Vec::new(),
                definitions: BTreeMap::new(),
                changed: Vec::new(),
                instructions: None,
                link: None,
                exposure: spec.exposure,
                stop,
                task: None,
            }),
            spec,
        }
    }

    /// The spec with the exposure of now.
    fn current_spec(&self) -> ServerSpec {
        let mut spec = self.spec.clone();
        spec.exposure = lock(&self.data).exposure;
        spec
    }
}

/// What the server tasks share with the manager.
struct Shared {
    changes: watch::Sender<u64>,
    /// Only ever added to (`/mcp` enabling a server that was off at start).
    slots: RwLock<Vec<Arc<Slot>>>,
    log: Arc<McpLog>,
    pins: PinStore,
    sandbox: Option<pi_ext_host::sandbox::ShellSandbox>,
    roots: Vec<PathBuf>,
    auth: Option<Arc<dyn AuthProvider>>,
    /// Stops every server; each attempt's token is a child of it.
    stop: CancellationToken,
    /// Cancelled when the servers may connect (see `ManagerOptions::held`).
    released: CancellationToken,
    /// Where server tasks run (`None`: started outside a tokio runtime).
    runtime: Option<tokio::runtime::Handle>,
}

struct Inner {
    shared: Arc<Shared>,
}

impl Drop for Inner {
    /// The last handle gone (pi exiting): every server task stops its server.
    fn drop(&mut self) {
        self.shared.stop.cancel();
    }
}

/// The servers of a run. Cheap to clone.
#[derive(Clone)]
pub struct McpManager {
    inner: Arc<Inner>,
}

/// The transport identity pins are kept under: the command line, or the URL.
fn identity(spec: &ServerSpec) -> String {
    match &spec.transport {
        TransportSpec::Stdio { command, args, .. } => {
            let mut words = vec![command.as_str()];
            words.extend(args.iter().map(String::as_str));
            format!("stdio:{}", words.join(" "))
        }
        TransportSpec::Http { url, .. } => format!("http:{url}"),
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl McpManager {
    /// Starts connecting every server in the background (on the current tokio runtime) and
    /// returns at once.
    /// HTTP servers get their tokens from `<agentDir>/mcp-auth.json` (OAuth) or `auth.json`
    /// (`auth {provider}`).
    pub fn start(servers: Vec<ServerSpec>, options: ManagerOptions) -> Self {
        let auth: Option<Arc<dyn AuthProvider>> =
            (!options.agent_dir.as_os_str().is_empty()).then(|| {
                Arc::new(crate::oauth::DefaultAuth::new(options.agent_dir.clone()))
                    as Arc<dyn AuthProvider>
            });
        Self::start_with_auth(servers, options, auth)
    }

    /// [`McpManager::start`] with the tokens of HTTP servers from `auth`.
    pub fn start_with_auth(
        servers: Vec<ServerSpec>,
        options: ManagerOptions,
        auth: Option<Arc<dyn AuthProvider>>,
    ) -> Self {
        let agent_dir = (!options.agent_dir.as_os_str().is_empty()).then_some(&options.agent_dir);
        let shared = Arc::new(Shared {
            changes: watch::channel(0).0,
            slots: RwLock::new(Vec::new()),
            log: Arc::new(McpLog::new(agent_dir.map(PathBuf::as_path))),
            pins: PinStore::new(agent_dir.map(PathBuf::as_path)),
            sandbox: options.sandbox,
            roots: options.roots,
            auth,
            stop: CancellationToken::new(),
            released: CancellationToken::new(),
            runtime: tokio::runtime::Handle::try_current().ok(),
        });
        if !options.held {
            shared.released.cancel();
        }
        let manager = McpManager {
            inner: Arc::new(Inner { shared }),
        };
        for spec in servers {
            manager.add(spec, true);
        }
        manager
    }

    /// No servers (`--no-mcp`, or none configured).
    pub fn empty() -> Self {
        Self::start(Vec::new(), ManagerOptions::default())
    }

    /// Every configured server, in configuration order.
    pub fn servers(&self) -> Vec<ServerStatus> {
        self.inner
            .shared
            .slots()
            .iter()
            .map(|slot| {
                let data = lock(&slot.data);
                ServerStatus {
                    name: slot.spec.name.clone(),
                    state: data.state.clone(),
                    tools: data.tools.len(),
                    resources: data.link.as_ref().is_some_and(|l| l.has_resources),
                    instructions: data.instructions.clone(),
                    changed_tools: data.changed.clone(),
                }
            })
            .collect()
    }

    /// The spec of the server `name` (with its exposure of now).
    pub fn spec(&self, name: &str) -> Option<ServerSpec> {
        self.slot(name).map(|slot| slot.current_spec())
    }

    fn slot(&self, name: &str) -> Option<Arc<Slot>> {
        self.inner.shared.slot(name)
    }

    /// The tools of every connected server (withheld ones included, see [`McpTool::pin`]).
    pub fn tools(&self) -> Vec<Arc<McpTool>> {
        self.inner
            .shared
            .slots()
            .iter()
            .flat_map(|slot| {
                let data = lock(&slot.data);
                if data.state == ServerState::Connected {
                    data.tools.clone()
                } else {
                    Vec::new()
                }
            })
            .collect()
    }

    /// `list_mcp_resources`, `list_mcp_resource_templates` and `read_mcp_resource`, when a
    /// connected server has resources.
    pub fn resource_tools(&self) -> Vec<Arc<dyn AgentTool>> {
        if self.inner.shared.resource_servers().is_empty() {
            return Vec::new();
        }
        resource_tools(self.inner.shared.clone())
    }

    /// How many times a server's state or tools changed so far (what [`Self::changes`]
    /// counts), for a face that looks each frame.
    pub fn revision(&self) -> u64 {
        *self.inner.shared.changes.borrow()
    }

    /// Counts up whenever a server's state or tools change.
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.inner.shared.changes.subscribe()
    }

    /// Waits until each of `servers` left `Connecting`, at most `timeout`; whether all did.
    pub async fn wait_ready(&self, servers: &[String], timeout: Duration) -> bool {
        let mut changes = self.changes();
        let ready = |manager: &McpManager| {
            servers.iter().all(|name| {
                manager
                    .slot(name)
                    .is_none_or(|slot| lock(&slot.data).state != ServerState::Connecting)
            })
        };
        let wait = async {
            loop {
                if ready(self) {
                    return;
                }
                if changes.changed().await.is_err() {
                    return;
                }
            }
        };
        let _ = tokio::time::timeout(timeout, wait).await;
        ready(self)
    }

    /// Accepts the server's current tool definitions as its pinned ones: how many tools.
    pub fn trust(&self, server: &str) -> Result<usize, String> {
        let slot = self
            .slot(server)
            .ok_or_else(|| format!("no MCP server named {server}"))?;
        let mut data = lock(&slot.data);
        if data.state != ServerState::Connected {
            return Err(format!(
                "MCP server {server} is not connected ({}): its tools are unknown",
                data.state.as_str()
            ));
        }
        self.inner
            .shared
            .pins
            .trust(server, &identity(&slot.spec), &data.definitions)
            .map_err(|e| e.to_string())?;
        data.changed.clear();
        data.tools = data
            .tools
            .iter()
            .map(|tool| Arc::new(tool.with_pin(PinState::Pinned)))
            .collect();
        let count = data.tools.len();
        drop(data);
        self.inner
            .shared
            .log
            .line(server, &format!("trusted {count} tool definitions"));
        self.inner.shared.bump();
        Ok(count)
    }

    /// Stops every server (stdio: close stdin, then SIGTERM, then SIGKILL to its group).
    /// Lets held servers connect (nothing when they already may).
    pub fn release(&self) {
        self.inner.shared.released.cancel();
    }

    pub async fn shutdown(&self) {
        self.inner.shared.stop.cancel();
        let tasks: Vec<JoinHandle<()>> = self
            .inner
            .shared
            .slots()
            .iter()
            .filter_map(|slot| lock(&slot.data).task.take())
            .collect();
        for task in tasks {
            let _ = task.await;
        }
    }
}

impl Shared {
    fn bump(&self) {
        self.changes.send_modify(|n| *n += 1);
    }

    fn slots(&self) -> Vec<Arc<Slot>> {
        self.slots
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    fn slot(&self, name: &str) -> Option<Arc<Slot>> {
        self.slots().into_iter().find(|s| s.spec.name == name)
    }

    /// Sets the state, unless the attempt `stop` belongs to was stopped meanwhile (a disabled
    /// or reconnected server keeps the state its new owner gave it).
    fn set_state(&self, slot: &Slot, stop: &CancellationToken, state: ServerState) {
        let mut data = lock(&slot.data);
        if stop.is_cancelled() {
            return;
        }
        match &state {
            ServerState::Failed(why) => self.log.line(&slot.spec.name, &format!("failed: {why}")),
            ServerState::NeedsAuth => self
                .log
                .line(&slot.spec.name, "needs authentication (HTTP 401)"),
            _ => {}
        }
        data.state = state;
        drop(data);
        self.bump();
    }

    /// Names taken by the tools of the other servers.
    fn names_of_others(&self, this: &Slot) -> HashSet<String> {
        self.slots()
            .iter()
            .filter(|slot| !std::ptr::eq(slot.as_ref(), this))
            .flat_map(|slot| {
                lock(&slot.data)
                    .tools
                    .iter()
                    .map(|t| t.name().to_owned())
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// Lists the server's tools (every page) and makes them [`McpTool`]s, pinned or not.
    async fn list_tools(&self, slot: &Slot, link: &Arc<ServerLink>) -> Result<usize, String> {
        let listed = tokio::time::timeout(link.timeout, link.peer.list_all_tools())
            .await
            .map_err(|_| format!("tools/list timed out after {} ms", link.timeout.as_millis()))?
            .map_err(|e| format!("tools/list failed: {e}"))?;
        let wires: Vec<Value> = listed
            .iter()
            .filter_map(|tool| serde_json::to_value(tool).ok())
            .collect();
        let definitions: BTreeMap<String, Value> = wires
            .iter()
            .filter_map(|w| Some((w.get("name")?.as_str()?.to_owned(), w.clone())))
            .collect();
        let changed = self
            .pins
            .check(&slot.spec.name, &identity(&slot.spec), &definitions)
            .map_err(|e| e.to_string())?;
        let spec = slot.current_spec();
        let mut taken = self.names_of_others(slot);
        let mut tools = Vec::with_capacity(wires.len());
        for wire in &wires {
            let remote = wire.get("name").and_then(Value::as_str).unwrap_or("");
            let name = mcp_tool_name(&slot.spec.name, remote, |n| taken.contains(n));
            taken.insert(name.clone());
            let pin = if changed.iter().any(|c| c == remote) {
                PinState::Changed
            } else {
                PinState::Pinned
            };
            let exposure = spec.exposure_of(remote);
            tools.push(Arc::new(McpTool::from_wire(
                name,
                wire,
                exposure,
                pin,
                link.clone(),
            )));
        }
        if !changed.is_empty() {
            self.log.line(
                &slot.spec.name,
                &format!(
                    "tool definitions changed since pinned: {}",
                    changed.join(", ")
                ),
            );
        }
        let count = tools.len();
        let mut data = lock(&slot.data);
        data.tools = tools;
        data.definitions = definitions;
        data.changed = changed;
        Ok(count)
    }
}

impl ResourceServers for Shared {
    fn resource_servers(&self) -> Vec<Arc<ServerLink>> {
        self.slots()
            .iter()
            .filter_map(|slot| {
                let data = lock(&slot.data);
                let link = data.link.as_ref()?;
                (data.state == ServerState::Connected && link.has_resources).then(|| link.clone())
            })
            .collect()
    }
}

/// One server's life: connect, list, follow `list_changed`, notice a lost connection, stop.
async fn run_server(shared: Arc<Shared>, slot: Arc<Slot>, stop_token: CancellationToken) {
    tokio::select! {
        () = shared.released.cancelled() => {}
        () = stop_token.cancelled() => return,
    }
    let spec = &slot.spec;
    shared
        .log
        .line(&spec.name, &format!("connecting ({})", identity(spec)));
    let bearer = shared.auth.as_ref().and_then(|auth| auth.bearer(spec));
    let options = ConnectOptions {
        sandbox: shared.sandbox.as_ref(),
        log: shared.log.clone(),
        bearer,
        roots: &shared.roots,
    };
    let connected = tokio::select! {
        result = client::connect(spec, options) => result,
        () = stop_token.cancelled() => return,
    };
    let state = |state| shared.set_state(&slot, &stop_token, state);
    let mut connection = match connected {
        Ok(connection) => connection,
        Err(ConnectError::NeedsAuth) => return state(ServerState::NeedsAuth),
        Err(ConnectError::Failed(why)) => return state(ServerState::Failed(why)),
    };
    let link = link_of(&slot, &connection);
    lock(&slot.data).link = Some(link.clone());
    let listed = tokio::select! {
        listed = shared.list_tools(&slot, &link) => listed,
        () = stop_token.cancelled() => Err("stopped".to_owned()),
    };
    match listed {
        Ok(count) => {
            let version = link
                .peer
                .peer_info()
                .map(|i| i.protocol_version.to_string())
                .unwrap_or_default();
            shared.log.line(
                &spec.name,
                &format!("connected (protocol {version}, {count} tools)"),
            );
            state(ServerState::Connected);
            follow(&shared, &slot, &stop_token, &link, &mut connection).await;
        }
        Err(why) if stop_token.is_cancelled() => {
            tracing::debug!(server = %spec.name, %why, "stopped while listing")
        }
        Err(why) => state(ServerState::Failed(why)),
    }
    stop(&shared, &slot, connection).await;
}

fn link_of(slot: &Slot, connection: &Connection) -> Arc<ServerLink> {
    let spec = &slot.spec;
    let peer = connection.peer();
    let info = peer.peer_info();
    lock(&slot.data).instructions = info.as_ref().and_then(|i| i.instructions.clone());
    Arc::new(ServerLink {
        server: spec.name.clone(),
        has_resources: info
            .as_ref()
            .is_some_and(|i| i.capabilities.resources.is_some()),
        peer,
        progress: connection.progress.clone(),
        timeout: spec.timeout,
    })
}

/// Until stopped or disconnected: re-lists the tools on each `list_changed`.
async fn follow(
    shared: &Shared,
    slot: &Slot,
    stop_token: &CancellationToken,
    link: &Arc<ServerLink>,
    connection: &mut Connection,
) {
    let name = &slot.spec.name;
    let mut poll = tokio::time::interval(CLOSED_POLL);
    loop {
        tokio::select! {
            () = stop_token.cancelled() => return,
            Some(()) = connection.list_changed.recv() => {
                match shared.list_tools(slot, link).await {
                    Ok(count) => shared.log.line(name, &format!("tools changed: {count} tools")),
                    Err(why) => shared.log.line(name, &format!("re-listing tools failed: {why}")),
                }
                shared.bump();
            }
            _ = poll.tick() => {
                let exited = connection.process.as_mut().and_then(|p| p.try_exit());
                if link.peer.is_transport_closed() || exited.is_some() {
                    let why = match exited {
                        Some(status) => format!("the server exited ({status})"),
                        None => "the connection was closed".to_owned(),
                    };
                    return shared.set_state(slot, stop_token, ServerState::Failed(why));
                }
            }
        }
    }
}

/// Closes the session (stdin closed for stdio), then stops the process.
async fn stop(shared: &Shared, slot: &Slot, connection: Connection) {
    let Connection {
        service, process, ..
    } = connection;
    let _ = tokio::time::timeout(Duration::from_secs(2), service.cancel()).await;
    if let Some(mut process) = process {
        process.stop().await;
    }
    shared.log.line(&slot.spec.name, "stopped");
}
