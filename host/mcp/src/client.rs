//! One connection to one server through rmcp: the client side's handler (progress routed to
//! the calls that asked for it, `list_changed` passed on) and connecting over stdio or
//! streamable HTTP with pi's client identity and protocol version.

// Roots are deprecated by the next protocol revision (SEP-2577), but pi 1.6 offers them and
// servers of today's versions ask for them.
#![allow(deprecated)]

use crate::http::{BearerSource, HttpClient};
use crate::log::McpLog;
use crate::spec::{ServerSpec, TransportSpec};
use crate::stdio::{self, Launch, StdioProcess};
use pi_agent::{ToolOutput, ToolUpdateFn};
use pi_ext_host::sandbox::ShellSandbox;
use rmcp::ClientHandler;
use rmcp::model::{
    ClientCapabilities, ClientConfig, Implementation, ListRootsResult, ProgressNotificationParam,
    ProgressToken, ProtocolVersion, Root,
};
use rmcp::service::{NotificationContext, Peer, RoleClient, RunningService, ServiceExt};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;

/// The client's name in `initialize`, as pi 1.6 sends it.
pub const CLIENT_NAME: &str = "pi";

/// The protocol versions pi 1.6 accepts in a server's `initialize` answer, newest first.
pub const SUPPORTED_PROTOCOL_VERSIONS: [&str; 4] =
    ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// The protocol version offered in `initialize`: the newest pi 1.6 accepts.
pub fn offered_protocol_version() -> ProtocolVersion {
    ProtocolVersion::V_2025_11_25
}

/// pi 1.6 refuses a server answering with a version it does not know (rmcp alone would accept
/// any version that still has `initialize`).
fn check_version(service: &RunningService<RoleClient, Handler>) -> Result<(), ConnectError> {
    let version = service
        .peer()
        .peer_info()
        .map(|info| info.protocol_version.to_string())
        .unwrap_or_default();
    if SUPPORTED_PROTOCOL_VERSIONS.contains(&version.as_str()) {
        return Ok(());
    }
    Err(ConnectError::Failed(format!(
        "MCP server selected unsupported protocol version {version}"
    )))
}

/// Where the progress of running calls goes, by progress token.
#[derive(Default)]
pub struct ProgressRoutes {
    routes: Mutex<HashMap<ProgressToken, (String, ToolUpdateFn)>>,
}

impl ProgressRoutes {
    pub fn insert(&self, token: ProgressToken, tool: String, update: ToolUpdateFn) {
        if let Ok(mut routes) = self.routes.lock() {
            routes.insert(token, (tool, update));
        }
    }

    pub fn remove(&self, token: &ProgressToken) {
        if let Ok(mut routes) = self.routes.lock() {
            routes.remove(token);
        }
    }
}

/// The client side of one connection.
pub struct Handler {
    server: String,
    progress: Arc<ProgressRoutes>,
    list_changed: mpsc::UnboundedSender<()>,
    roots: Vec<Root>,
}

/// A directory as an MCP root: its `file://` URL, named by its last component (as pi 1.6).
fn root(dir: &std::path::Path) -> Root {
    let uri = url::Url::from_file_path(dir)
        .map(String::from)
        .unwrap_or_else(|()| format!("file://{}", dir.display()));
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Root::new(uri).with_name(name)
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        if !self.roots.is_empty() {
            capabilities.roots = Some(rmcp::model::RootsCapabilities::default());
        }
        ClientConfig::new(
            capabilities,
            Implementation::new(CLIENT_NAME, env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(offered_protocol_version())
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let route = self
            .progress
            .routes
            .lock()
            .ok()
            .and_then(|routes| routes.get(&params.progress_token).cloned());
        let Some((tool, update)) = route else { return };
        // pi's progress text: the message, else `Progress <n>[/<total>]`.
        let text = params.message.clone().unwrap_or_else(|| {
            let total = params.total.map(|t| format!("/{t}")).unwrap_or_default();
            format!("Progress {}{total}", params.progress)
        });
        let mut output = ToolOutput::text(text);
        output.details = serde_json::json!({"server": self.server, "tool": tool});
        update(output);
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.list_changed.send(());
    }

    async fn list_roots(
        &self,
        _context: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, rmcp::ErrorData> {
        Ok(ListRootsResult::new(self.roots.clone()))
    }
}

/// A live connection.
pub struct Connection {
    pub service: RunningService<RoleClient, Handler>,
    pub process: Option<StdioProcess>,
    pub progress: Arc<ProgressRoutes>,
    pub list_changed: mpsc::UnboundedReceiver<()>,
}

impl Connection {
    pub fn peer(&self) -> Peer<RoleClient> {
        self.service.peer().clone()
    }
}

/// Why a connection could not be made.
#[derive(Debug)]
pub enum ConnectError {
    Failed(String),
    /// The server answered 401: it needs a (new) token.
    NeedsAuth,
}

/// What connecting needs besides the spec.
pub struct ConnectOptions<'a> {
    pub sandbox: Option<&'a ShellSandbox>,
    pub log: Arc<McpLog>,
    pub bearer: Option<Arc<dyn BearerSource>>,
    /// Offered as the client's roots (`roots/list`).
    pub roots: &'a [std::path::PathBuf],
}

/// Starts the server (stdio) or opens the session (HTTP) and runs `initialize`.
pub async fn connect(
    spec: &ServerSpec,
    options: ConnectOptions<'_>,
) -> Result<Connection, ConnectError> {
    let progress = Arc::new(ProgressRoutes::default());
    let (changed_tx, changed_rx) = mpsc::unbounded_channel();
    let handler = Handler {
        server: spec.name.clone(),
        progress: progress.clone(),
        list_changed: changed_tx,
        roots: options.roots.iter().map(|dir| root(dir)).collect(),
    };
    match &spec.transport {
        TransportSpec::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            let launch = Launch {
                command,
                args,
                env,
                cwd,
                sandbox: options.sandbox,
            };
            let (mut process, stdout, stdin) =
                stdio::spawn(&launch, &spec.name, options.log).map_err(ConnectError::Failed)?;
            match handler.serve((stdout, stdin)).await {
                Ok(service) => {
                    if let Err(refused) = check_version(&service) {
                        let _ = service.cancel().await;
                        process.stop().await;
                        return Err(refused);
                    }
                    Ok(Connection {
                        service,
                        process: Some(process),
                        progress,
                        list_changed: changed_rx,
                    })
                }
                Err(error) => {
                    let status = process.try_exit();
                    process.stop().await;
                    let why = match status.or_else(|| process.try_exit()) {
                        Some(status) => format!("the server exited ({status}) during initialize"),
                        None => format!("initialize failed: {error}"),
                    };
                    Err(ConnectError::Failed(why))
                }
            }
        }
        TransportSpec::Http { url, headers } => {
            let client = HttpClient::new(headers, options.bearer).map_err(ConnectError::Failed)?;
            let needs_auth = client.needs_auth_flag();
            let config = StreamableHttpClientTransportConfig::with_uri(url.as_str());
            let transport = StreamableHttpClientTransport::with_client(client, config);
            match handler.serve(transport).await {
                Ok(service) => {
                    if let Err(refused) = check_version(&service) {
                        let _ = service.cancel().await;
                        return Err(refused);
                    }
                    Ok(Connection {
                        service,
                        process: None,
                        progress,
                        list_changed: changed_rx,
                    })
                }
                Err(error) if error.is_authorization_required() || needs_auth.get() => {
                    Err(ConnectError::NeedsAuth)
                }
                Err(error) => Err(ConnectError::Failed(format!(
                    "cannot connect to {url}: {error}"
                ))),
            }
        }
    }
}
