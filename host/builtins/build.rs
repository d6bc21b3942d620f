//! Builds the guest workspace `builtin-tools/components` for wasm32-wasip2 (release) and
//! writes `components.rs`, which embeds each tool's component with `include_bytes!` (the
//! wasmtime test-programs pattern). The inner cargo runs through `pi-guest-build`, in the guest
//! target dir beside the host's profile dirs: shared by the debug and release host builds and
//! the test components, never the outer build's (whose lock it would wait on).

use std::fmt::Write as _;

use pi_guest_build::{
    GUESTS_TARGET_DIR, Options, build_guests, env_dir, rerun_if_changed, shared_target_dir,
};
use sha2::{Digest, Sha256};

fn main() {
    if let Err(e) = run() {
        panic!("building the built-in tool components failed: {e}");
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let manifest_dir = env_dir("CARGO_MANIFEST_DIR")?;
    let out_dir = env_dir("OUT_DIR")?;
    let guests = manifest_dir.join("../../builtin-tools/components");
    let core = manifest_dir.join("../../builtin-tools/core");
    let sdk = manifest_dir.join("../../guest-sdk");
    rerun_if_changed([
        guests.clone(),
        core.join("src"),
        core.join("Cargo.toml"),
        sdk.join("src"),
        sdk.join("Cargo.toml"),
        manifest_dir.join("../../wit"),
    ]);
    let options = Options {
        locked: true,
        ..Options::default()
    };
    let wasm_dir = build_guests(
        &guests,
        &shared_target_dir(&out_dir, GUESTS_TARGET_DIR),
        &options,
    )?;
    let mut code = String::new();
    // One static per component the guest workspace built: its members are the list of tools,
    // and the tool table in `lib.rs` names each static, so a tool missing on either side fails
    // the build.
    for (name, wasm) in tool_components(&wasm_dir)? {
        let bytes =
            std::fs::read(&wasm).map_err(|e| format!("cannot read {}: {e}", wasm.display()))?;
        writeln!(
            code,
            "/// The `{name}` tool component.\npub static {upper}: &[u8] = include_bytes!({path:?});\n\
             /// SHA-256 of [`{upper}`], lowercase hex.\npub static {upper}_SHA256: &str = {digest:?};",
            upper = name.to_uppercase(),
            path = wasm.display().to_string(),
            digest = hex(&Sha256::digest(&bytes)),
        )?;
    }
    std::fs::write(out_dir.join("components.rs"), code)
        .map_err(|e| format!("cannot write components.rs: {e}"))?;
    Ok(())
}

/// `(name, path)` of each `pi_tool_<name>.wasm` in `dir`, by name.
fn tool_components(
    dir: &std::path::Path,
) -> Result<Vec<(String, std::path::PathBuf)>, Box<dyn std::error::Error>> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    let mut tools = Vec::new();
    for entry in entries {
        let path = entry?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if let Some(tool) = name
            .strip_prefix("pi_tool_")
            .and_then(|n| n.strip_suffix(".wasm"))
        {
            tools.push((tool.to_owned(), path.clone()));
        }
    }
    tools.sort();
    Ok(tools)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut out, b| {
        let _ = write!(out, "{b:02x}");
        out
    })
}
