//! Paths of the guest components built from `host/ext-host/test-components` for pi-ext-host's tests
//! and benchmarks: `TOOL`, `SPAWNER`, `PROVIDER`, `RENDERER`, `COMPACTOR`, `LLM_COMPACTOR`,
//! `SLOW_DESCRIBE`, and
//! `V010_TOOL`, `V010_RENDERER`: built against the WIT 0.1.0 snapshot, and `V020_TOOL` against
//! the 0.2.0 one, for the old-version tests; `HOOK_PROBE`, `HOOK_SECOND`: the `hook` world.

include!(concat!(env!("OUT_DIR"), "/components.rs"));
