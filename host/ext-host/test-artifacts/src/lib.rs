//! Paths of the guest components built from `host/ext-host/test-components` for pi-ext-host's tests
//! and benchmarks: `TOOL`, `SPAWNER`, `PROVIDER`, `RENDERER`, `COMPACTOR`, `LLM_COMPACTOR`,
//! `SLOW_DESCRIBE`, and
//! `V010_TOOL`, `V010_RENDERER`: built against the WIT 0.1.0 snapshot, for the old-version tests.

include!(concat!(env!("OUT_DIR"), "/components.rs"));
