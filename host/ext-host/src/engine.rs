//! The wasmtime engines of the process and the per-call store setup (deadline, abort, memory
//! cap). Components run in a runtime engine without a compiler, with epoch interruption driven
//! by a ticker thread; a compiling engine with the same settings is created only when a
//! component is not in the cache yet. So a warm start never touches cranelift, whose set-up
//! costs start-up time and resident code.

use crate::state::HostState;
use std::sync::OnceLock;
use std::time::Duration;
use wasmtime::{Config, Engine, Store, UpdateDeadline};

/// How often the ticker advances the epoch; the granularity of deadlines and aborts.
pub const EPOCH_TICK: Duration = Duration::from_millis(5);

/// Builds the engine and starts its ticker. The ticker holds only a weak reference and stops
/// when the last engine clone is dropped.
pub fn new_engine() -> Result<Engine, String> {
    let mut config = config();
    config.enable_compiler(false);
    let engine = Engine::new(&config).map_err(|e| format!("cannot create the wasm engine: {e}"))?;
    let weak = engine.weak();
    std::thread::Builder::new()
        .name("pi-ext-host-epoch".into())
        .spawn(move || {
            loop {
                std::thread::sleep(EPOCH_TICK);
                match weak.upgrade() {
                    Some(engine) => engine.increment_epoch(),
                    None => break,
                }
            }
        })
        .map_err(|e| format!("cannot start the epoch ticker: {e}"))?;
    Ok(engine)
}

/// The compiling engine, created on first use; its artifacts load in any runtime engine.
pub fn compiler() -> Result<&'static Engine, String> {
    static COMPILER: OnceLock<Result<Engine, String>> = OnceLock::new();
    COMPILER
        .get_or_init(|| {
            Engine::new(&config()).map_err(|e| format!("cannot create the wasm compiler: {e}"))
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// The settings both engines share (artifacts only load where they match).
fn config() -> Config {
    let mut config = Config::new();
    config
        .wasm_component_model(true)
        .epoch_interruption(true)
        .cranelift_opt_level(wasmtime::OptLevel::Speed)
        .parallel_compilation(true)
        // Deep recursion traps here instead of exhausting the host thread's stack.
        .max_wasm_stack(1 << 20)
        // Components are mapped and unmapped per call (see `LazyComponent`); registering
        // .eh_frame with the system unwinder each time is the slow part of that, and only
        // external unwinders (debuggers, profilers) need it: wasm backtraces do not.
        .native_unwind_info(false);
    config
}

/// A fresh store for one call: memory and table limits, and an epoch callback that stops the
/// call when it is aborted or past its deadline.
pub fn new_store(engine: &Engine, state: HostState) -> Store<HostState> {
    let mut store = Store::new(engine, state);
    store.limiter(|s| &mut s.limiter);
    store.set_epoch_deadline(1);
    store.epoch_deadline_callback(|ctx| match ctx.data().interrupt() {
        Some(interrupt) => Err(wasmtime::Error::new(interrupt)),
        None => Ok(UpdateDeadline::Continue(1)),
    });
    store
}
