//! Builds the guest components of `host/ext-host/test-components` for wasm32-wasip2 (release) and
//! writes their paths as constants (the wasmtime test-programs pattern). The inner cargo runs
//! through `pi-guest-build`, in the guest target dir the built-in tools use too (one build of
//! the guests' host-side macros for both), never the outer build's (whose lock it would wait on).

use std::fmt::Write as _;

use pi_guest_build::{
    GUESTS_TARGET_DIR, Options, build_guests, env_dir, rerun_if_changed, shared_target_dir,
};

const COMPONENTS: [&str; 12] = [
    "tool",
    "spawner",
    "provider",
    "renderer",
    "compactor",
    "llm_compactor",
    "slow_describe",
    "v010_tool",
    "v010_renderer",
    "v020_tool",
    "hook_probe",
    "hook_second",
];

fn main() {
    if let Err(e) = run() {
        panic!("building the test components failed: {e}");
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let manifest_dir = env_dir("CARGO_MANIFEST_DIR")?;
    let out_dir = env_dir("OUT_DIR")?;
    let guests = manifest_dir.join("../test-components");
    rerun_if_changed([
        guests.clone(),
        manifest_dir.join("../../../guest-sdk"),
        manifest_dir.join("../../../wit"),
        // The 0.1.0 and 0.2.0 snapshots the `v010_*` and `v020_*` components are built against.
        manifest_dir.join("../wit"),
    ]);
    let wasm_dir = build_guests(
        &guests,
        &shared_target_dir(&out_dir, GUESTS_TARGET_DIR),
        &Options::default(),
    )?;
    let mut consts = String::new();
    for name in COMPONENTS {
        let path = wasm_dir.join(format!("test_{name}.wasm"));
        writeln!(
            consts,
            "/// Path of the `{name}` test component.\npub const {}: &str = {:?};",
            name.to_uppercase(),
            path.display().to_string()
        )?;
    }
    // Through a rename: a target dir seeded with hard links shares the old file's inode with
    // other checkouts, which writing in place would change under them.
    let tmp = out_dir.join("components.rs.tmp");
    std::fs::write(&tmp, consts).map_err(|e| format!("cannot write components.rs: {e}"))?;
    std::fs::rename(&tmp, out_dir.join("components.rs"))
        .map_err(|e| format!("cannot write components.rs: {e}"))?;
    Ok(())
}
