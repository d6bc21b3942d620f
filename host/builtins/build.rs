//! Builds the guest workspace `builtin-tools/components` for wasm32-wasip2 (release) and
//! writes `components.rs`, which embeds each tool's component with `include_bytes!` (the
//! wasmtime test-programs pattern). The inner cargo uses its own target dir (shared by the
//! debug and release host builds) so it never waits on the outer build's lock.

use std::env;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

const TOOLS: [&str; 7] = ["read", "bash", "edit", "write", "grep", "find", "ls"];

fn main() {
    let manifest_dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let guests = manifest_dir.join("../../builtin-tools/components");
    let core = manifest_dir.join("../../builtin-tools/core");
    let sdk = manifest_dir.join("../../guest-sdk");
    let wit = manifest_dir.join("../../wit");
    for path in [
        guests.clone(),
        core.join("src"),
        core.join("Cargo.toml"),
        sdk.join("src"),
        sdk.join("Cargo.toml"),
        wit,
    ] {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").unwrap_or_default());
    let target_dir = guest_target_dir(&out_dir);
    build_guests(&guests, &target_dir);
    let mut code = String::new();
    for name in TOOLS {
        let wasm = target_dir
            .join("wasm32-wasip2/release")
            .join(format!("pi_tool_{name}.wasm"));
        let digest = match std::fs::read(&wasm) {
            Ok(bytes) => hex(&Sha256::digest(&bytes)),
            Err(e) => panic!("cannot read {}: {e}", wasm.display()),
        };
        let _ = writeln!(
            code,
            "/// The `{name}` tool component.\npub static {upper}: &[u8] = include_bytes!({path:?});\n\
             /// SHA-256 of [`{upper}`], lowercase hex.\npub static {upper}_SHA256: &str = {digest:?};",
            upper = name.to_uppercase(),
            path = wasm.display().to_string(),
        );
    }
    if let Err(e) = std::fs::write(out_dir.join("components.rs"), code) {
        panic!("cannot write components.rs: {e}");
    }
}

/// `<target>/builtin-tools-components` (OUT_DIR is `<target>/<profile>/build/<pkg>/out`),
/// so debug and release host builds share one guest build.
fn guest_target_dir(out_dir: &Path) -> PathBuf {
    match out_dir.ancestors().nth(4) {
        Some(target)
            if out_dir.ancestors().nth(2).and_then(Path::file_name) == Some("build".as_ref()) =>
        {
            target.join("builtin-tools-components")
        }
        _ => out_dir.join("guest-target"),
    }
}

fn build_guests(guests: &Path, target_dir: &Path) {
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .current_dir(guests)
        .args([
            "build",
            "--release",
            "--locked",
            "--target",
            "wasm32-wasip2",
            "--target-dir",
        ])
        .arg(target_dir)
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
            "building the built-in tool components failed ({other:?}); is the wasm32-wasip2 \
             target installed? (rustup target add wasm32-wasip2)"
        ),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut out, b| {
        let _ = write!(out, "{b:02x}");
        out
    })
}
