//! Host-side bindings of `pi:extension@0.2.0`, generated from the exact snapshot of that WIT in
//! `host/ext-host/wit/since_v0.2.0/`, so components built against 0.2.0 keep loading.
//!
//! 0.2.0 differs from 0.3.0 in that it has no `hook` world and its `tool` world imports
//! neither `ui` nor `session`. Its `types` interface, the WASI interfaces and the process
//! `child` resource are the latest Rust types (`with`), so calls into a 0.2.0 component take
//! and return the same values as into a 0.3.0 one; each 0.2.0 import forwards to the latest
//! implementation, converting only the few types its interface defines itself (log levels,
//! spawn options, process output, directory entries).

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
        path: "wit/since_v0.2.0",
        world: "pi:extension/tool",
        with: {
            "pi:extension/types": crate::bindings::latest::tool::pi::extension::types,
            "pi:extension/process.child": crate::process::ChildProcess,
            "wasi:filesystem": wasmtime_wasi::p2::bindings::sync::filesystem,
            "wasi:http": wasmtime_wasi_http::p2::bindings::http,
            "wasi:io": wasmtime_wasi::p2::bindings::sync::io,
            "wasi:clocks": wasmtime_wasi::p2::bindings::clocks,
        },
    });
}

#[allow(missing_docs, clippy::all)]
pub mod provider {
    wasmtime::component::bindgen!({
        path: "wit/since_v0.2.0",
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
        path: "wit/since_v0.2.0",
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
        path: "wit/since_v0.2.0",
        world: "pi:extension/compactor",
        with: {
            "pi:extension/types": crate::bindings::latest::tool::pi::extension::types,
            "pi:extension/host": super::tool::pi::extension::host,
        },
    });
}

/// The name under which 0.2.0 components import the shared types. The interface holds no
/// functions and its Rust types are the latest ones, so nothing of it is generated here; the
/// instance must still exist in the linker.
const TYPES: &str = "pi:extension/types@0.2.0";

/// Links the `pi:extension@0.2.0` interfaces a component of `world` imports, each forwarding
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

forward_to_latest!();
