//! Paths of the guest components built from `host/wasm/test-components` for pi-wasm's tests
//! and benchmarks: `TOOL`, `SPAWNER`, `PROVIDER`, `RENDERER`, `COMPACTOR`.

include!(concat!(env!("OUT_DIR"), "/components.rs"));
