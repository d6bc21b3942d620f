//! Paths of the guest components built from `host/ext-host/test-components` for pi-ext-host's tests
//! and benchmarks: `TOOL`, `SPAWNER`, `PROVIDER`, `RENDERER`, `COMPACTOR`, `LLM_COMPACTOR`,
//! `SLOW_DESCRIBE`.

include!(concat!(env!("OUT_DIR"), "/components.rs"));
