//! Host-side bindings of `pi:extension@0.1.0`, generated from the exact snapshot of that WIT in
//! `host/ext-host/wit/since_v0.1.0/`, so components built against 0.1.0 keep loading.
//!
//! 0.1.0 differs from 0.2.0 only in that its `tool` world has no `wasi:http` import (a 0.1.0
//! tool that imports it anyway is linked as in 0.2.0), and from 0.3.0 as 0.2.0 does. Its `types` interface, the WASI
//! interfaces and the process `child` resource are the latest Rust types (`with`), so calls
//! into a 0.1.0 component take and return the same values as into a 0.3.0 one; each 0.1.0
//! import forwards to the latest implementation, converting only the few types its interface
//! defines itself (log levels, spawn options, process output, directory entries).

use super::Optional;
use super::latest::compactor::pi::extension::llm as latest_llm;
use super::latest::provider::pi::extension::stream_sink as latest_sink;
use super::latest::tool::pi::extension::{
    directory as latest_directory, host as latest_host, process as latest_process,
};
use super::types::{AssistantMessage, LlmContext, StreamEvent, ToolResult};
use crate::manifest::World;
use crate::process::ChildProcess;
use crate::state::HostState;
use tool::pi::extension::{directory, host, process};
use wasmtime::component::{HasSelf, Linker, Resource};
use wasmtime_wasi::filesystem::Descriptor;
use wasmtime_wasi::p2::bindings::sync::filesystem::types::ErrorCode;

#[allow(missing_docs, clippy::all)]
pub mod tool {
    wasmtime::component::bindgen!({
        path: "wit/since_v0.1.0",
        world: "pi:extension/tool",
        with: {
            "pi:extension/types": crate::bindings::latest::tool::pi::extension::types,
            "pi:extension/process.child": crate::process::ChildProcess,
            "wasi:filesystem": wasmtime_wasi::p2::bindings::sync::filesystem,
            "wasi:io": wasmtime_wasi::p2::bindings::sync::io,
            "wasi:clocks": wasmtime_wasi::p2::bindings::clocks,
        },
    });
}

#[allow(missing_docs, clippy::all)]
pub mod provider {
    wasmtime::component::bindgen!({
        path: "wit/since_v0.1.0",
        world: "pi:extension/provider",
        with: {
            "pi:extension/types": crate::bindings::latest::tool::pi::extension::types,
            "pi:extension/host": super::tool::pi::extension::host,
            "wasi:http": wasmtime_wasi_http::p2::bindings::http,
            "wasi:io": wasmtime_wasi::p2::bindings::sync::io,
            "wasi:clocks": wasmtime_wasi::p2::bindings::clocks,
        },
    });
}

#[allow(missing_docs, clippy::all)]
pub mod renderer {
    wasmtime::component::bindgen!({
        path: "wit/since_v0.1.0",
        world: "pi:extension/renderer",
        with: {
            "pi:extension/types": crate::bindings::latest::tool::pi::extension::types,
            "pi:extension/host": super::tool::pi::extension::host,
        },
    });
}

#[allow(missing_docs, clippy::all)]
pub mod compactor {
    wasmtime::component::bindgen!({
        path: "wit/since_v0.1.0",
        world: "pi:extension/compactor",
        with: {
            "pi:extension/types": crate::bindings::latest::tool::pi::extension::types,
            "pi:extension/host": super::tool::pi::extension::host,
        },
    });
}

/// The name under which 0.1.0 components import the shared types. The interface holds no
/// functions and its Rust types are the latest ones, so nothing of it is generated here; the
/// instance must still exist in the linker.
const TYPES: &str = "pi:extension/types@0.1.0";

/// Links the `pi:extension@0.1.0` interfaces a component of `world` imports, each forwarding
/// to the latest implementation.
pub(super) fn add_to_linker(
    linker: &mut Linker<HostState>,
    world: World,
    optional: Optional,
) -> wasmtime::Result<()> {
    linker.instance(TYPES)?;
    host::add_to_linker::<_, HasSelf<HostState>>(linker, |s| s)?;
    match world {
        World::Tool => directory::add_to_linker::<_, HasSelf<HostState>>(linker, |s| s)?,
        World::Provider => {
            provider::pi::extension::stream_sink::add_to_linker::<_, HasSelf<HostState>>(
                linker,
                |s| s,
            )?;
        }
        World::Renderer | World::Compactor | World::Hook => {}
    }
    if optional.process {
        process::add_to_linker::<_, HasSelf<HostState>>(linker, |s| s)?;
    }
    if optional.llm {
        compactor::pi::extension::llm::add_to_linker::<_, HasSelf<HostState>>(linker, |s| s)?;
    }
    Ok(())
}

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
    fn spawn(&mut self, options: process::SpawnOptions) -> Result<Resource<ChildProcess>, String> {
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
    fn entries(&mut self, dir: Resource<Descriptor>) -> Result<Vec<directory::Entry>, ErrorCode> {
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
