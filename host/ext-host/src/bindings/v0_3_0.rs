//! Host-side bindings of `pi:extension@0.3.0`, the latest WIT, generated from the repository's
//! `wit/`. The host implements these once (`state.rs`, `process.rs`, `directory.rs`,
//! `services.rs`); older versions forward to them. The `tool` world owns the shared interfaces
//! (`ui`, `session` and `hook-types` included); the other worlds reuse them through `with`.

use super::Optional;
use crate::manifest::World;
use crate::state::HostState;
use wasmtime::component::{HasSelf, Linker};

#[allow(missing_docs, clippy::all)]
pub mod tool {
    wasmtime::component::bindgen!({
        path: "../../wit",
        world: "pi:extension/tool",
        with: {
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
        path: "../../wit",
        world: "pi:extension/provider",
        with: {
            "pi:extension/types": super::tool::pi::extension::types,
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
        path: "../../wit",
        world: "pi:extension/renderer",
        with: {
            "pi:extension/types": super::tool::pi::extension::types,
            "pi:extension/host": super::tool::pi::extension::host,
        },
    });
}

#[allow(missing_docs, clippy::all)]
pub mod compactor {
    wasmtime::component::bindgen!({
        path: "../../wit",
        world: "pi:extension/compactor",
        with: {
            "pi:extension/types": super::tool::pi::extension::types,
            "pi:extension/host": super::tool::pi::extension::host,
        },
    });
}

#[allow(missing_docs, clippy::all)]
pub mod hook {
    wasmtime::component::bindgen!({
        path: "../../wit",
        world: "pi:extension/hook",
        with: {
            "pi:extension/types": super::tool::pi::extension::types,
            "pi:extension/host": super::tool::pi::extension::host,
            "pi:extension/hook-types": super::tool::pi::extension::hook_types,
            "pi:extension/ui": super::tool::pi::extension::ui,
            "pi:extension/session": super::tool::pi::extension::session,
        },
    });
}

/// Links the `pi:extension@0.3.0` interfaces a component of `world` imports, implemented by
/// [`HostState`] (`state.rs`, `process.rs`, `directory.rs`, `services.rs`).
pub(super) fn add_to_linker(
    linker: &mut Linker<HostState>,
    world: World,
    optional: Optional,
) -> wasmtime::Result<()> {
    use tool::pi::extension as pi;
    pi::types::add_to_linker::<_, HasSelf<HostState>>(linker, |s| s)?;
    pi::host::add_to_linker::<_, HasSelf<HostState>>(linker, |s| s)?;
    pi::hook_types::add_to_linker::<_, HasSelf<HostState>>(linker, |s| s)?;
    match world {
        World::Tool => pi::directory::add_to_linker::<_, HasSelf<HostState>>(linker, |s| s)?,
        World::Provider => {
            provider::pi::extension::stream_sink::add_to_linker::<_, HasSelf<HostState>>(
                linker,
                |s| s,
            )?;
        }
        World::Renderer | World::Compactor | World::Hook => {}
    }
    if optional.process {
        pi::process::add_to_linker::<_, HasSelf<HostState>>(linker, |s| s)?;
    }
    if optional.llm {
        compactor::pi::extension::llm::add_to_linker::<_, HasSelf<HostState>>(linker, |s| s)?;
    }
    if optional.ui {
        pi::ui::add_to_linker::<_, HasSelf<HostState>>(linker, |s| s)?;
    }
    if optional.session {
        pi::session::add_to_linker::<_, HasSelf<HostState>>(linker, |s| s)?;
    }
    Ok(())
}
