//! Builds the example packages of `extensions/` and writes the path of each package's
//! component as a constant: the Rust ones for wasm32-wasip2 (release), in the guest target dir
//! the other guest builds share; the others by their own `build.sh`, with the guest tools
//! `scripts/guest-tools.sh` installs, into OUT_DIR (never into the source tree).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use pi_guest_build::{
    GUESTS_TARGET_DIR, Options, build_guests, env_dir, rerun_if_changed, shared_target_dir,
};

/// Package directory under `extensions/` and the crate whose component it ships.
const PACKAGES: [(&str, &str); 1] = [("ollama", "pi_ext_ollama")];

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
            package.to_uppercase(),
            examples.join(package).display().to_string(),
            wasm_dir.join(format!("{krate}.wasm")).display().to_string()
        )?;
    }
    build_python(&root, &out_dir, &mut consts)?;
    std::fs::write(out_dir.join("examples.rs"), consts)
        .map_err(|e| format!("cannot write examples.rs: {e}"))?;
    Ok(())
}

/// Python packages under `extensions/`, each built by its `build.sh` (componentize-py).
const PYTHON_PACKAGES: [&str; 1] = ["json-query"];

/// Builds the Python examples with componentize-py from `target/guest-tools/py` (or PATH).
fn build_python(
    root: &Path,
    out_dir: &Path,
    consts: &mut String,
) -> Result<(), Box<dyn std::error::Error>> {
    let tools = root.join("target/guest-tools/py/bin");
    let path = path_with(&tools)?;
    if !on_path(&path, "componentize-py") {
        return Err(format!(
            "componentize-py not found in {} or on PATH: run scripts/guest-tools.sh",
            tools.display()
        )
        .into());
    }
    for package in PYTHON_PACKAGES {
        let component = out_dir.join(format!("{package}.wasm"));
        let output = Command::new("sh")
            .arg("build.sh")
            .arg(&component)
            .current_dir(root.join("extensions").join(package))
            .env("PATH", &path)
            .output()
            .map_err(|e| format!("building extensions/{package}: cannot run build.sh: {e}"))?;
        if !output.status.success() {
            return Err(format!(
                "building extensions/{package}: componentize-py failed ({}): {}{}",
                output.status,
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            )
            .into());
        }
        writeln!(
            consts,
            "/// The `{package}` example (Python): its package directory and its built component.\n\
             pub const {}: Example = Example {{ dir: {:?}, component: {:?} }};",
            package.replace('-', "_").to_uppercase(),
            root.join("extensions").join(package).display().to_string(),
            component.display().to_string()
        )?;
    }
    Ok(())
}

/// PATH with `dir` first.
fn path_with(dir: &Path) -> Result<std::ffi::OsString, Box<dyn std::error::Error>> {
    let mut dirs = vec![dir.to_path_buf()];
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    Ok(std::env::join_paths(dirs)?)
}

fn on_path(path: &std::ffi::OsStr, program: &str) -> bool {
    std::env::split_paths(path).any(|dir: PathBuf| dir.join(program).is_file())
}
