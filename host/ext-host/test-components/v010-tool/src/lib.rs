//! A tool component built against `pi:extension@0.1.0` (the snapshot the host keeps in
//! `host/ext-host/wit/since_v0.1.0`), straight from wit-bindgen: it shows that components built
//! before the WIT moved keep loading and that each 0.1.0 import reaches the host. Its one tool,
//! `legacy`, does what `op` says: `echo` (with a progress update and a log line), `cwd`,
//! `list` (the workspace through `directory.entries`) or `spawn` (a process, refused without
//! the grant).

// The glue wit-bindgen generates is unsafe; nothing this crate writes itself is.
#[allow(unsafe_code)]
mod bindings {
    wit_bindgen::generate!({
        path: "../../wit/since_v0.1.0",
        world: "pi:extension/tool",
        generate_all,
    });
}

/// The WIT version this component was built against.
const VERSION: &str = "0.1.0";

include!("../../legacy_tool.rs");
