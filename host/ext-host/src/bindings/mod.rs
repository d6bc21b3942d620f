//! Host-side bindings of the `pi:extension` WIT, one module per version the host loads (as Zed
//! keeps one per extension API version): `v0_3_0` is the latest, from the repository's `wit/`,
//! and the host implements it once; `v0_1_0` and `v0_2_0` are generated from the exact
//! snapshots in `host/ext-host/wit/since_v0.1.0/` and `since_v0.2.0/`, share the latest Rust
//! types where the WIT types are the same (`types`, `wasi:*`, the process child), and forward
//! their imports to the latest implementation. The `hook` world exists only since 0.3.0.
//!
//! A component is linked and called through the module of the WIT version its manifest names
//! ([`WitVersion`]); [`Pre`] is the pre-linked component, by world and version, and its
//! methods are the calls the rest of the crate makes, whatever the version.

#![allow(missing_docs)]

/// The imports of an older version, each forwarding to the latest implementation: expanded in
/// `v0_1_0` and `v0_2_0`, whose interfaces differ from the latest only in the types they
/// define themselves (log levels, spawn options, process output, directory entries). Paths
/// resolve where it is expanded: each module names its own interfaces `host`, `process`,
/// `directory`, `provider`, `compactor` and the latest ones `latest_*`.
macro_rules! forward_to_latest {
    () => {
        impl host::Host for HostState {
            fn log(&mut self, level: host::LogLevel, message: String) {
                let level = match level {
                    host::LogLevel::Trace => latest_host::LogLevel::Trace,
                    host::LogLevel::Debug => latest_host::LogLevel::Debug,
                    host::LogLevel::Info => latest_host::LogLevel::Info,
                    host::LogLevel::Warn => latest_host::LogLevel::Warn,
                    host::LogLevel::Error => latest_host::LogLevel::Error,
                };
                latest_host::Host::log(self, level, message);
            }

            fn progress(&mut self, update: ToolResult) {
                latest_host::Host::progress(self, update);
            }

            fn cwd(&mut self) -> String {
                latest_host::Host::cwd(self)
            }

            fn session_id(&mut self) -> Option<String> {
                latest_host::Host::session_id(self)
            }

            fn aborted(&mut self) -> bool {
                latest_host::Host::aborted(self)
            }
        }

        impl process::Host for HostState {
            fn spawn(
                &mut self,
                options: process::SpawnOptions,
            ) -> Result<Resource<ChildProcess>, String> {
                let options = latest_process::SpawnOptions {
                    program: options.program,
                    args: options.args,
                    cwd: options.cwd,
                    env: options.env,
                    timeout_ms: options.timeout_ms,
                    merge_stderr: options.merge_stderr,
                };
                latest_process::Host::spawn(self, options)
            }
        }

        impl process::HostChild for HostState {
            fn read(&mut self, child: Resource<ChildProcess>, wait_ms: u32) -> process::ReadResult {
                match latest_process::HostChild::read(self, child, wait_ms) {
                    latest_process::ReadResult::Output(latest_process::Output::Stdout(bytes)) => {
                        process::ReadResult::Output(process::Output::Stdout(bytes))
                    }
                    latest_process::ReadResult::Output(latest_process::Output::Stderr(bytes)) => {
                        process::ReadResult::Output(process::Output::Stderr(bytes))
                    }
                    latest_process::ReadResult::Pending => process::ReadResult::Pending,
                    latest_process::ReadResult::Closed => process::ReadResult::Closed,
                }
            }

            fn kill(&mut self, child: Resource<ChildProcess>) {
                latest_process::HostChild::kill(self, child);
            }

            fn wait(&mut self, child: Resource<ChildProcess>) -> process::ExitStatus {
                let status = latest_process::HostChild::wait(self, child);
                process::ExitStatus {
                    code: status.code,
                    signal: status.signal,
                    timed_out: status.timed_out,
                }
            }

            fn drop(&mut self, child: Resource<ChildProcess>) -> wasmtime::Result<()> {
                latest_process::HostChild::drop(self, child)
            }
        }

        impl directory::Host for HostState {
            fn entries(
                &mut self,
                dir: Resource<Descriptor>,
            ) -> Result<Vec<directory::Entry>, ErrorCode> {
                let entries = latest_directory::Host::entries(self, dir)?;
                Ok(entries
                    .into_iter()
                    .map(|entry| directory::Entry {
                        name: entry.name,
                        type_: entry.type_,
                    })
                    .collect())
            }

            fn open_dir(
                &mut self,
                dir: Resource<Descriptor>,
                name: Vec<u8>,
            ) -> Result<Resource<Descriptor>, ErrorCode> {
                latest_directory::Host::open_dir(self, dir, name)
            }

            fn read_file(
                &mut self,
                dir: Resource<Descriptor>,
                name: Vec<u8>,
                max_bytes: u64,
            ) -> Result<Vec<u8>, ErrorCode> {
                latest_directory::Host::read_file(self, dir, name, max_bytes)
            }
        }

        impl provider::pi::extension::stream_sink::Host for HostState {
            fn emit(&mut self, event: StreamEvent) -> bool {
                latest_sink::Host::emit(self, event)
            }
        }

        impl compactor::pi::extension::llm::Host for HostState {
            fn complete(
                &mut self,
                model: Option<String>,
                context: LlmContext,
            ) -> Result<AssistantMessage, String> {
                latest_llm::Host::complete(self, model, context)
            }
        }
    };
}

pub mod v0_1_0;
pub mod v0_2_0;
pub mod v0_3_0;

pub use v0_3_0 as latest;

pub use latest::tool::pi::extension::types;

use crate::manifest::{WitVersion, World};
use crate::state::HostState;
use latest::tool::pi::extension::hook_types as hooks;
use types::{
    CompactionDecision, CompactionPreparation, LlmContext, ModelInfo, RenderSubject, StopReason,
    StreamOptions, StyledLine, ToolCall, ToolDefinition, ToolResult,
};
use wasmtime::Store;
use wasmtime::component::{InstancePre, Linker};

/// The interfaces a component imports that are linked only for the components importing
/// them. They are linked whatever the grant: a toolchain that imports every interface of its
/// world (componentize-py, jco) must not need `process` to count words, so the grant is
/// checked at each call instead ([`crate::grant::not_granted`]).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Optional {
    pub process: bool,
    pub llm: bool,
    pub http: bool,
    /// Since 0.3.0, `tool` and `hook` components.
    pub ui: bool,
    pub session: bool,
}

/// Links the `pi:extension` interfaces of version `wit` that a component of `world` imports
/// (WASI is linked by the caller: it is the same for every version).
pub(crate) fn add_to_linker(
    linker: &mut Linker<HostState>,
    wit: WitVersion,
    world: World,
    optional: Optional,
) -> wasmtime::Result<()> {
    match wit {
        WitVersion::V0_1_0 => v0_1_0::add_to_linker(linker, world, optional),
        WitVersion::V0_2_0 => v0_2_0::add_to_linker(linker, world, optional),
        WitVersion::V0_3_0 => latest::add_to_linker(linker, world, optional),
    }
}

/// A component's pre-linked form in one of the versions.
pub(crate) enum Versioned<V1, V2, V3> {
    V0_1_0(V1),
    V0_2_0(V2),
    V0_3_0(V3),
}

/// Runs `$body` with `$pre` bound to the pre-linked component, whatever its version (the
/// generated types differ per version, the calls' Rust types do not).
macro_rules! each_version {
    ($versioned:expr, $pre:ident => $body:expr) => {
        match $versioned {
            Versioned::V0_1_0($pre) => $body,
            Versioned::V0_2_0($pre) => $body,
            Versioned::V0_3_0($pre) => $body,
        }
    };
}

pub(crate) type ToolPre = Versioned<
    v0_1_0::tool::ToolPre<HostState>,
    v0_2_0::tool::ToolPre<HostState>,
    latest::tool::ToolPre<HostState>,
>;
pub(crate) type ProviderPre = Versioned<
    v0_1_0::provider::ProviderPre<HostState>,
    v0_2_0::provider::ProviderPre<HostState>,
    latest::provider::ProviderPre<HostState>,
>;
pub(crate) type RendererPre = Versioned<
    v0_1_0::renderer::RendererPre<HostState>,
    v0_2_0::renderer::RendererPre<HostState>,
    latest::renderer::RendererPre<HostState>,
>;
pub(crate) type CompactorPre = Versioned<
    v0_1_0::compactor::CompactorPre<HostState>,
    v0_2_0::compactor::CompactorPre<HostState>,
    latest::compactor::CompactorPre<HostState>,
>;
/// Hook components exist since 0.3.0: one version so far.
pub(crate) type HookPre = latest::hook::HookPre<HostState>;
/// An instantiated hook component.
pub(crate) type HookInstance = latest::hook::Hook;

/// The pre-linked form of a component, by world.
pub(crate) enum Pre {
    Tool(ToolPre),
    Provider(ProviderPre),
    Renderer(RendererPre),
    Compactor(CompactorPre),
    Hook(HookPre),
}

impl Pre {
    /// Checks the linked component against the exports of `world` in version `wit`.
    pub(crate) fn new(
        world: World,
        wit: WitVersion,
        pre: InstancePre<HostState>,
    ) -> wasmtime::Result<Pre> {
        use WitVersion::{V0_1_0 as V1, V0_2_0 as V2, V0_3_0 as V3};
        Ok(match (world, wit) {
            (World::Tool, V1) => Pre::Tool(Versioned::V0_1_0(v0_1_0::tool::ToolPre::new(pre)?)),
            (World::Tool, V2) => Pre::Tool(Versioned::V0_2_0(v0_2_0::tool::ToolPre::new(pre)?)),
            (World::Tool, V3) => Pre::Tool(Versioned::V0_3_0(latest::tool::ToolPre::new(pre)?)),
            (World::Provider, V1) => {
                Pre::Provider(Versioned::V0_1_0(v0_1_0::provider::ProviderPre::new(pre)?))
            }
            (World::Provider, V2) => {
                Pre::Provider(Versioned::V0_2_0(v0_2_0::provider::ProviderPre::new(pre)?))
            }
            (World::Provider, V3) => {
                Pre::Provider(Versioned::V0_3_0(latest::provider::ProviderPre::new(pre)?))
            }
            (World::Renderer, V1) => {
                Pre::Renderer(Versioned::V0_1_0(v0_1_0::renderer::RendererPre::new(pre)?))
            }
            (World::Renderer, V2) => {
                Pre::Renderer(Versioned::V0_2_0(v0_2_0::renderer::RendererPre::new(pre)?))
            }
            (World::Renderer, V3) => {
                Pre::Renderer(Versioned::V0_3_0(latest::renderer::RendererPre::new(pre)?))
            }
            (World::Compactor, V1) => Pre::Compactor(Versioned::V0_1_0(
                v0_1_0::compactor::CompactorPre::new(pre)?,
            )),
            (World::Compactor, V2) => Pre::Compactor(Versioned::V0_2_0(
                v0_2_0::compactor::CompactorPre::new(pre)?,
            )),
            (World::Compactor, V3) => Pre::Compactor(Versioned::V0_3_0(
                latest::compactor::CompactorPre::new(pre)?,
            )),
            (World::Hook, V3) => Pre::Hook(latest::hook::HookPre::new(pre)?),
            (World::Hook, old) => {
                wasmtime::bail!("the `hook` world needs WIT 0.3.0 or later, not {old}")
            }
        })
    }
}

impl ToolPre {
    /// Instantiates the component in `store` and asks for its tools.
    pub(crate) fn describe(
        &self,
        store: &mut Store<HostState>,
    ) -> wasmtime::Result<Vec<ToolDefinition>> {
        each_version!(self, pre => pre
            .instantiate(&mut *store)?
            .pi_extension_tool_guest()
            .call_describe(store))
    }

    /// Instantiates the component in `store` and runs one call.
    pub(crate) fn execute(
        &self,
        store: &mut Store<HostState>,
        call: &ToolCall,
    ) -> wasmtime::Result<Result<ToolResult, String>> {
        each_version!(self, pre => pre
            .instantiate(&mut *store)?
            .pi_extension_tool_guest()
            .call_execute(store, call))
    }
}

impl ProviderPre {
    /// Instantiates the component in `store` and asks for its models.
    pub(crate) fn models(&self, store: &mut Store<HostState>) -> wasmtime::Result<Vec<ModelInfo>> {
        each_version!(self, pre => pre
            .instantiate(&mut *store)?
            .pi_extension_provider_guest()
            .call_models(store))
    }

    /// Instantiates the component in `store` and streams one answer.
    pub(crate) fn stream(
        &self,
        store: &mut Store<HostState>,
        model: &ModelInfo,
        context: &LlmContext,
        options: &StreamOptions,
    ) -> wasmtime::Result<Result<StopReason, String>> {
        each_version!(self, pre => pre
            .instantiate(&mut *store)?
            .pi_extension_provider_guest()
            .call_stream(store, model, context, options))
    }
}

impl RendererPre {
    /// Instantiates the component in `store` and asks what it draws: its custom message types
    /// and tool names.
    pub(crate) fn subjects(
        &self,
        store: &mut Store<HostState>,
    ) -> wasmtime::Result<(Vec<String>, Vec<String>)> {
        each_version!(self, pre => {
            let instance = pre.instantiate(&mut *store)?;
            let guest = instance.pi_extension_renderer_guest();
            Ok((guest.call_custom_types(&mut *store)?, guest.call_tool_names(store)?))
        })
    }

    /// Instantiates the component in `store` and renders one subject.
    pub(crate) fn render(
        &self,
        store: &mut Store<HostState>,
        subject: &RenderSubject,
        width: u32,
    ) -> wasmtime::Result<Option<Vec<StyledLine>>> {
        each_version!(self, pre => pre
            .instantiate(&mut *store)?
            .pi_extension_renderer_guest()
            .call_render(store, subject, width))
    }
}

impl CompactorPre {
    /// Instantiates the component in `store` and asks how to compact.
    pub(crate) fn compact(
        &self,
        store: &mut Store<HostState>,
        preparation: &CompactionPreparation,
    ) -> wasmtime::Result<CompactionDecision> {
        each_version!(self, pre => pre
            .instantiate(&mut *store)?
            .pi_extension_compactor_guest()
            .call_compact(store, preparation))
    }
}

/// Instantiates a hook component in `store` and asks what it subscribes to and serves.
pub(crate) fn describe_hook(
    pre: &HookPre,
    store: &mut Store<HostState>,
) -> wasmtime::Result<hooks::HookInfo> {
    pre.instantiate(&mut *store)?
        .pi_extension_hook_guest()
        .call_describe(store)
}
