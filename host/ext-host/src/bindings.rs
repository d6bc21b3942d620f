//! Host-side bindings of the `pi:extension` worlds, generated from `wit/`. The `tool` world
//! owns the shared interfaces; the other worlds reuse them through `with`.

#![allow(missing_docs, clippy::all)]

pub mod tool {
    wasmtime::component::bindgen!({
        path: "../../wit",
        world: "pi:extension/tool",
        with: {
            "pi:extension/process.child": crate::process::ChildProcess,
            "wasi:filesystem": wasmtime_wasi::p2::bindings::sync::filesystem,
            "wasi:io": wasmtime_wasi::p2::bindings::sync::io,
            "wasi:clocks": wasmtime_wasi::p2::bindings::clocks,
        },
    });
}

pub mod provider {
    wasmtime::component::bindgen!({
        path: "../../wit",
        world: "pi:extension/provider",
        with: {
            "pi:extension/types": crate::bindings::tool::pi::extension::types,
            "pi:extension/host": crate::bindings::tool::pi::extension::host,
            "wasi:http": wasmtime_wasi_http::p2::bindings::http,
            "wasi:io": wasmtime_wasi::p2::bindings::sync::io,
            "wasi:clocks": wasmtime_wasi::p2::bindings::clocks,
        },
    });
}

pub mod renderer {
    wasmtime::component::bindgen!({
        path: "../../wit",
        world: "pi:extension/renderer",
        with: {
            "pi:extension/types": crate::bindings::tool::pi::extension::types,
            "pi:extension/host": crate::bindings::tool::pi::extension::host,
        },
    });
}

pub mod compactor {
    wasmtime::component::bindgen!({
        path: "../../wit",
        world: "pi:extension/compactor",
        with: {
            "pi:extension/types": crate::bindings::tool::pi::extension::types,
            "pi:extension/host": crate::bindings::tool::pi::extension::host,
        },
    });
}

pub use tool::pi::extension::types;
