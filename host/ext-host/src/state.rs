//! The data of one store (one call): WASI context built from the grant, limits, and the
//! call's facts and callbacks. Also the host side of the `host`, `stream-sink` and `llm`
//! interfaces.

use crate::bindings::compactor::pi::extension::llm;
use crate::bindings::provider::pi::extension::stream_sink;
use crate::bindings::tool::pi::extension::{host, types};
use crate::error::ExtensionId;
use crate::grant::Grant;
use crate::manifest::FsAccess;
use pi_ext_api::LlmBridge;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use wasmtime::component::ResourceTable;
use wasmtime_wasi::p2::pipe::MemoryOutputPipe;
use wasmtime_wasi::{FsPerms, WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};
use wasmtime_wasi_http::{WasiHttpCtx, WasiHttpCtxView, WasiHttpHooks, WasiHttpView};

/// Calls already run on a blocking thread, so WASI file I/O runs inline instead of hopping
/// to tokio's blocking pool per operation (the search tools open tens of thousands of files).
/// Descriptors the host opens itself (`directory.open-dir`) are made the same way.
pub(crate) const ALLOW_BLOCKING_CURRENT_THREAD: bool = true;

/// Progress callback of a tool call.
pub type ProgressFn = Box<dyn FnMut(types::ToolResult) + Send>;
/// Event sink of a provider stream; returns false when nobody listens.
pub type SinkFn = Box<dyn FnMut(types::StreamEvent) -> bool + Send>;

/// Facts and callbacks of one call.
pub struct CallContext {
    pub session_id: Option<String>,
    pub abort: Arc<AtomicBool>,
    pub timeout: Duration,
    pub progress: Option<ProgressFn>,
    pub sink: Option<SinkFn>,
    pub llm: Option<Arc<dyn LlmBridge>>,
}

impl CallContext {
    pub fn new(timeout: Duration) -> Self {
        CallContext {
            session_id: None,
            abort: Arc::new(AtomicBool::new(false)),
            timeout,
            progress: None,
            sink: None,
            llm: None,
        }
    }
}

/// Why the epoch callback stopped a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Interrupt {
    #[error("deadline exceeded")]
    Deadline,
    #[error("aborted")]
    Aborted,
}

/// Caps memory and tables, and remembers whether it had to refuse memory.
pub struct Limiter {
    memory_bytes: usize,
    pub memory_denied: bool,
}

impl wasmtime::ResourceLimiter for Limiter {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.memory_bytes {
            self.memory_denied = true;
            return Ok(false);
        }
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= 200_000)
    }

    fn instances(&self) -> usize {
        64
    }

    fn tables(&self) -> usize {
        64
    }

    fn memories(&self) -> usize {
        16
    }
}

/// Refuses HTTP requests to hosts outside the grant.
pub struct HttpGate {
    grant: Arc<Grant>,
    extension: Arc<ExtensionId>,
}

impl WasiHttpHooks for HttpGate {
    fn send_request(
        &mut self,
        request: http::Request<wasmtime_wasi_http::WasiBody>,
        options: Option<wasmtime_wasi_http::RequestOptions>,
        fut: Box<dyn Future<Output = Result<(), wasmtime_wasi_http::Error>> + Send>,
    ) -> Box<
        dyn Future<
                Output = Result<
                    (
                        http::Response<wasmtime_wasi_http::WasiBody>,
                        Box<dyn Future<Output = Result<(), wasmtime_wasi_http::Error>> + Send>,
                    ),
                    wasmtime_wasi_http::Error,
                >,
            > + Send,
    > {
        let authority = request
            .uri()
            .authority()
            .map(|a| a.as_str().to_owned())
            .unwrap_or_default();
        if !self.grant.allows_host(&authority) {
            tracing::warn!(extension = %self.extension, host = %authority, "HTTP request denied: host not granted");
            return Box::new(async { Err(wasmtime_wasi_http::Error::HttpRequestDenied) });
        }
        wasmtime_wasi_http::default_hooks().send_request(request, options, fut)
    }
}

/// Everything one store holds.
pub struct HostState {
    wasi: WasiCtx,
    pub(crate) table: ResourceTable,
    http: WasiHttpCtx,
    gate: HttpGate,
    pub(crate) limiter: Limiter,
    pub(crate) call: CallContext,
    pub(crate) deadline: Instant,
    /// When the abort flag was first seen (the start of the abort grace).
    abort_seen: std::sync::OnceLock<Instant>,
    pub(crate) extension: Arc<ExtensionId>,
    pub(crate) grant: Arc<Grant>,
    stdout: MemoryOutputPipe,
    stderr: MemoryOutputPipe,
}

impl HostState {
    /// Builds the WASI context from the grant only: the workspace preopened at its real path
    /// (read-only or read-write), an optional private temp dir, named env vars, no sockets,
    /// stdout/stderr captured for the log.
    pub fn new(
        extension: Arc<ExtensionId>,
        grant: Arc<Grant>,
        temp_dir: Option<&std::path::Path>,
        call: CallContext,
    ) -> Result<Self, String> {
        let mut builder = WasiCtxBuilder::new();
        let stdout = MemoryOutputPipe::new(grant.limits.output_bytes);
        let stderr = MemoryOutputPipe::new(grant.limits.output_bytes);
        builder.stdout(stdout.clone()).stderr(stderr.clone());
        builder.allow_blocking_current_thread(ALLOW_BLOCKING_CURRENT_THREAD);
        builder
            .allow_tcp(false)
            .allow_udp(false)
            .allow_ip_name_lookup(false);
        let workspace = grant.workspace.to_string_lossy().into_owned();
        let perms = match grant.filesystem {
            FsAccess::None => None,
            FsAccess::Read => Some(FsPerms::ReadOnly),
            FsAccess::Write => Some(FsPerms::ReadWrite),
        };
        if let Some(perms) = perms {
            builder
                .preopened_dir(&grant.workspace, &workspace, perms)
                .map_err(|e| format!("cannot open workspace {workspace}: {e}"))?;
            // Also at "." so that relative paths resolve against the workspace, as the
            // guest's working directory.
            builder
                .preopened_dir(&grant.workspace, ".", perms)
                .map_err(|e| format!("cannot open workspace {workspace}: {e}"))?;
            builder.initial_cwd(&workspace);
        }
        if let Some(temp) = temp_dir {
            let guest = temp.to_string_lossy().into_owned();
            builder
                .preopened_dir(temp, &guest, FsPerms::ReadWrite)
                .map_err(|e| format!("cannot open temp dir {guest}: {e}"))?;
            builder.env("TMPDIR", &guest);
        }
        for name in &grant.env {
            if let Ok(value) = std::env::var(name) {
                builder.env(name, value);
            }
        }
        let deadline = Instant::now() + call.timeout;
        Ok(HostState {
            wasi: builder.build(),
            table: ResourceTable::new(),
            http: WasiHttpCtx::new(),
            gate: HttpGate {
                grant: grant.clone(),
                extension: extension.clone(),
            },
            limiter: Limiter {
                memory_bytes: usize::try_from(grant.limits.memory_mib.saturating_mul(1 << 20))
                    .unwrap_or(usize::MAX),
                memory_denied: false,
            },
            call,
            deadline,
            abort_seen: std::sync::OnceLock::new(),
            extension,
            grant,
            stdout,
            stderr,
        })
    }

    /// Checked by the epoch callback: abort first (once the grant's abort grace has passed),
    /// then the deadline.
    pub fn interrupt(&self) -> Option<Interrupt> {
        if self.call.abort.load(Ordering::Relaxed) {
            let grace = self.grant.limits.abort_grace;
            if grace.is_zero() || self.abort_seen.get_or_init(Instant::now).elapsed() >= grace {
                return Some(Interrupt::Aborted);
            }
        }
        if Instant::now() >= self.deadline {
            Some(Interrupt::Deadline)
        } else {
            None
        }
    }

    /// Whether the call was aborted or is past its deadline, grace or not: host resources
    /// of the call (processes) are stopped at once.
    pub fn stop_requested(&self) -> bool {
        self.call.abort.load(Ordering::Relaxed) || Instant::now() >= self.deadline
    }

    /// Sends what the component printed to the log (bounded by the pipe capacity).
    pub fn flush_output(&self) {
        for (stream, pipe) in [("stdout", &self.stdout), ("stderr", &self.stderr)] {
            let bytes = pipe.contents();
            if !bytes.is_empty() {
                let text = String::from_utf8_lossy(&bytes);
                tracing::info!(extension = %self.extension, stream, "{}", text.trim_end());
            }
        }
    }
}

impl WasiView for HostState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

impl WasiHttpView for HostState {
    fn http(&mut self) -> WasiHttpCtxView<'_> {
        WasiHttpCtxView {
            ctx: &mut self.http,
            table: &mut self.table,
            hooks: &mut self.gate,
        }
    }
}

impl types::Host for HostState {}

impl host::Host for HostState {
    fn log(&mut self, level: host::LogLevel, message: String) {
        let ext = &self.extension;
        match level {
            host::LogLevel::Trace => tracing::trace!(extension = %ext, "{message}"),
            host::LogLevel::Debug => tracing::debug!(extension = %ext, "{message}"),
            host::LogLevel::Info => tracing::info!(extension = %ext, "{message}"),
            host::LogLevel::Warn => tracing::warn!(extension = %ext, "{message}"),
            host::LogLevel::Error => tracing::error!(extension = %ext, "{message}"),
        }
    }

    fn progress(&mut self, update: types::ToolResult) {
        if let Some(progress) = self.call.progress.as_mut() {
            progress(update);
        }
    }

    fn cwd(&mut self) -> String {
        self.grant.workspace.to_string_lossy().into_owned()
    }

    fn session_id(&mut self) -> Option<String> {
        self.call.session_id.clone()
    }

    fn aborted(&mut self) -> bool {
        self.call.abort.load(Ordering::Relaxed)
    }
}

impl stream_sink::Host for HostState {
    fn emit(&mut self, event: types::StreamEvent) -> bool {
        match self.call.sink.as_mut() {
            Some(sink) => sink(event),
            None => false,
        }
    }
}

impl llm::Host for HostState {
    fn complete(
        &mut self,
        model: Option<String>,
        context: types::LlmContext,
    ) -> Result<types::AssistantMessage, String> {
        match &self.call.llm {
            Some(bridge) => bridge
                .complete(model, crate::convert::from_context(context))
                .map(|message| crate::convert::assistant(&message)),
            None => Err("model access is not available to this extension".to_owned()),
        }
    }
}
