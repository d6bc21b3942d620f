//! The data of one store (one call): WASI context built from the grant, limits, and the
//! call's facts and callbacks. Also the host side of the `host`, `stream-sink` and `llm`
//! interfaces.
//!
//! The call's bounds are one [`CallClock`] (`clock.rs`), which the HTTP gate here uses too:
//! its timeouts never outlast the call.

use crate::bindings::latest::compactor::pi::extension::llm;
use crate::bindings::latest::provider::pi::extension::stream_sink;
use crate::bindings::latest::tool::pi::extension::{host, types};
use crate::clock::{CallClock, Interrupt};
use crate::error::ExtensionId;
use crate::grant::Grant;
use crate::manifest::FsAccess;
use crate::watchdog::Watch;
use pi_ext_api::LlmBridge;
use pi_ext_api::hooks::HookServices;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;
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
/// Told the host path of each file a call opens for writing, creates, moves or removes, before
/// the change (see `protected`; checkpoints keep what the path was).
pub type WriteFn = Arc<dyn Fn(&std::path::Path) + Send + Sync>;

/// Facts and callbacks of one call.
pub struct CallContext {
    pub session_id: Option<String>,
    /// Cancelled when the user aborts the call.
    pub abort: CancellationToken,
    pub timeout: Duration,
    pub progress: Option<ProgressFn>,
    pub sink: Option<SinkFn>,
    pub llm: Option<Arc<dyn LlmBridge>>,
    /// Told of the files the call writes.
    pub on_write: Option<WriteFn>,
    /// Where the `ui` and `session` imports go (when granted).
    pub services: HookServices,
    /// Told when the store exists, so that the caller's watchdog starts its clock then (a
    /// cold compile before it is not the component's time).
    pub(crate) watch: Watch,
}

impl CallContext {
    pub fn new(timeout: Duration) -> Self {
        CallContext {
            session_id: None,
            abort: CancellationToken::new(),
            timeout,
            progress: None,
            sink: None,
            llm: None,
            on_write: None,
            services: HookServices::none(),
            watch: Watch::default(),
        }
    }
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

/// Refuses HTTP requests to hosts outside the grant, and bounds the others by the call: no
/// timeout (connect, first byte, between bytes) outlasts the call's deadline, and an abort ends
/// the wait for the response (wasmtime-wasi-http's defaults are ten minutes each).
pub struct HttpGate {
    grant: Arc<Grant>,
    extension: Arc<ExtensionId>,
    clock: CallClock,
}

/// The guest's request options with every timeout cut to `remaining`.
fn bounded_options(
    options: Option<wasmtime_wasi_http::RequestOptions>,
    remaining: Duration,
) -> wasmtime_wasi_http::RequestOptions {
    let cut = |asked: Option<Duration>| Some(asked.map_or(remaining, |a| a.min(remaining)));
    let options = options.unwrap_or_default();
    wasmtime_wasi_http::RequestOptions {
        connect_timeout: cut(options.connect_timeout),
        first_byte_timeout: cut(options.first_byte_timeout),
        between_bytes_timeout: cut(options.between_bytes_timeout),
    }
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
        if self.grant.network.is_empty() {
            let message = crate::grant::not_granted("network", &self.extension);
            tracing::warn!("{message}");
            return Box::new(async {
                Err(wasmtime_wasi_http::Error::InternalError(Some(message)))
            });
        }
        if !self.grant.allows_host(&authority) {
            tracing::warn!(extension = %self.extension, host = %authority, "HTTP request denied: host not granted");
            return Box::new(async { Err(wasmtime_wasi_http::Error::HttpRequestDenied) });
        }
        let options = bounded_options(options, self.clock.remaining());
        let response = Box::into_pin(wasmtime_wasi_http::default_hooks().send_request(
            request,
            Some(options),
            fut,
        ));
        let clock = self.clock.clone();
        Box::new(async move {
            tokio::select! {
                response = response => response,
                // The guest sees a timeout; the epoch or the bounded wait stops it next.
                _ = clock.reached() => Err(wasmtime_wasi_http::Error::ConnectionTimeout),
            }
        })
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
    pub(crate) clock: CallClock,
    pub(crate) extension: Arc<ExtensionId>,
    pub(crate) grant: Arc<Grant>,
    /// The imports refused for want of a grant in this call, each logged once.
    pub(crate) refused: std::collections::HashSet<&'static str>,
    stdout: MemoryOutputPipe,
    stderr: MemoryOutputPipe,
}

impl HostState {
    /// Builds the WASI context from the grant only: the workspace preopened at its real path
    /// (read-only or read-write), the extra preopens, an optional private temp dir, named env vars, no sockets,
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
        // A workspace inside pi's own directories is not opened at all: the guard checks the
        // paths calls name, not calls on the preopen itself (listing it, its metadata).
        let inside_protected = grant
            .protected
            .iter()
            .any(|p| crate::protected::canonical(&grant.workspace).starts_with(p));
        let perms = match grant.filesystem {
            _ if inside_protected => None,
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
        for preopen in &grant.preopens {
            add_preopen(&mut builder, preopen)?;
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
        let clock = CallClock::start(call.timeout, call.abort.clone(), grant.limits.abort_grace);
        call.watch.started(&clock);
        Ok(HostState {
            wasi: builder.build(),
            table: ResourceTable::new(),
            http: WasiHttpCtx::new(),
            gate: HttpGate {
                grant: grant.clone(),
                extension: extension.clone(),
                clock: clock.clone(),
            },
            limiter: Limiter {
                memory_bytes: usize::try_from(grant.limits.memory_mib.saturating_mul(1 << 20))
                    .unwrap_or(usize::MAX),
                memory_denied: false,
            },
            call,
            clock,
            extension,
            grant,
            refused: std::collections::HashSet::new(),
            stdout,
            stderr,
        })
    }

    /// Starts another call in this state (a hook's instance kept between events): the new
    /// call's facts and a fresh clock; what the previous call left is forgotten.
    pub(crate) fn begin(&mut self, call: CallContext) {
        let clock = CallClock::start(
            call.timeout,
            call.abort.clone(),
            self.grant.limits.abort_grace,
        );
        call.watch.started(&clock);
        self.gate.clock = clock.clone();
        self.clock = clock;
        self.call = call;
        self.refused.clear();
        self.limiter.memory_denied = false;
    }

    /// Whether the component wrote to stdout or stderr (the pipes only fill up, so a state
    /// that printed is not used for another call).
    pub(crate) fn printed(&self) -> bool {
        !self.stdout.contents().is_empty() || !self.stderr.contents().is_empty()
    }

    /// Checked by the epoch callback: abort first (once the grant's abort grace has passed),
    /// then the deadline.
    pub fn interrupt(&self) -> Option<Interrupt> {
        self.clock.interrupt()
    }

    /// Whether the call was aborted or is past its deadline, grace or not: host resources
    /// of the call (processes) are stopped at once.
    pub fn stop_requested(&self) -> bool {
        self.clock.stop_requested()
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

/// One of the grant's extra directories at its own path; a missing one is left out (it may
/// be created later, e.g. a writable root the user named before making it).
fn add_preopen(
    builder: &mut WasiCtxBuilder,
    preopen: &crate::grant::Preopen,
) -> Result<(), String> {
    let perms = match preopen.access {
        FsAccess::None => return Ok(()),
        FsAccess::Read => FsPerms::ReadOnly,
        FsAccess::Write => FsPerms::ReadWrite,
    };
    if !preopen.path.is_dir() {
        tracing::debug!(dir = %preopen.path.display(), "preopen skipped: not a directory");
        return Ok(());
    }
    let guest = preopen.path.to_string_lossy().into_owned();
    builder
        .preopened_dir(&preopen.path, &guest, perms)
        .map(|_| ())
        .map_err(|e| format!("cannot open {guest}: {e}"))
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
        self.call.abort.is_cancelled()
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
        if !self.grant.llm {
            return Err(crate::grant::not_granted("llm", &self.extension));
        }
        match &self.call.llm {
            Some(bridge) => bridge
                .complete(model, crate::convert::from_context(context))
                .map(|message| crate::convert::assistant(&message)),
            None => Err("model access is not available to this extension".to_owned()),
        }
    }
}
