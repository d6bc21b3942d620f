//! Builds the guest components of `host/ext-host/test-components` for wasm32-wasip2 and writes
//! their paths as constants (the wasmtime test-programs pattern). A separate target dir keeps
//! the inner cargo from waiting on the outer one's lock.

use std::env;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Command;

const COMPONENTS: [&str; 6] = [
    "tool",
    "spawner",
    "provider",
    "renderer",
    "compactor",
    "llm_compactor",
];

fn main() {
    let manifest_dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let guests = manifest_dir.join("../test-components");
    let sdk = manifest_dir.join("../../../guest-sdk");
    let wit = manifest_dir.join("../../../wit");
    for dir in [&guests, &sdk, &wit] {
        println!("cargo:rerun-if-changed={}", dir.display());
    }
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").unwrap_or_default());
    let target_dir = out_dir.join("guest-target");
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .current_dir(&guests)
        .args([
            "build",
            "--release",
            "--target",
            "wasm32-wasip2",
            "--target-dir",
        ])
        .arg(&target_dir)
        // Flags meant for the host build must not leak into the guest build.
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_BUILD_TARGET")
        .env_remove("RUSTC_WORKSPACE_WRAPPER")
        .env_remove("RUSTC_WRAPPER")
        .status();
    match status {
        Ok(s) if s.success() => {}
        other => panic!(
            "building the test components failed ({other:?}); is the wasm32-wasip2 target \
             installed? (rustup target add wasm32-wasip2)"
        ),
    }
    let mut consts = String::new();
    for name in COMPONENTS {
        let path = target_dir
            .join("wasm32-wasip2/release")
            .join(format!("test_{name}.wasm"));
        let _ = writeln!(
            consts,
            "/// Path of the `{name}` test component.\npub const {}: &str = {:?};",
            name.to_uppercase(),
            path.display().to_string()
        );
    }
    if let Err(e) = std::fs::write(out_dir.join("components.rs"), consts) {
        panic!("cannot write components.rs: {e}");
    }
}
