//! Builds the Rust example packages of `extensions/` for wasm32-wasip2 (release), in the guest
//! target dir the other guest builds share, and writes the path of each package's component
//! as a constant.

use std::fmt::Write as _;

use pi_guest_build::{
    GUESTS_TARGET_DIR, Options, build_guests, env_dir, rerun_if_changed, shared_target_dir,
};

/// Package directory under `extensions/` and the crate whose component it ships.
const PACKAGES: [(&str, &str); 2] = [
    ("ollama", "pi_ext_ollama"),
    ("fetch-url", "pi_ext_fetch_url"),
];

fn main() {
    if let Err(e) = run() {
        panic!("building the example extensions failed: {e}");
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let manifest_dir = env_dir("CARGO_MANIFEST_DIR")?;
    let out_dir = env_dir("OUT_DIR")?;
    let root = manifest_dir.join("../..");
    let examples = root.join("extensions");
    rerun_if_changed([examples.clone(), root.join("guest-sdk"), root.join("wit")]);
    let wasm_dir = build_guests(
        &examples,
        &shared_target_dir(&out_dir, GUESTS_TARGET_DIR),
        &Options::default(),
    )?;
    let mut consts = String::new();
    for (package, krate) in PACKAGES {
        writeln!(
            consts,
            "/// The `{package}` example: its package directory and its built component.\n\
             pub const {}: Example = Example {{ dir: {:?}, component: {:?} }};",
            package.to_uppercase().replace('-', "_"),
            examples.join(package).display().to_string(),
            wasm_dir.join(format!("{krate}.wasm")).display().to_string()
        )?;
    }
    std::fs::write(out_dir.join("examples.rs"), consts)
        .map_err(|e| format!("cannot write examples.rs: {e}"))?;
    Ok(())
}
