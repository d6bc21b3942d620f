//! Builds the example packages of `extensions/` and writes the path of each package's
//! component as a constant: the Rust ones for wasm32-wasip2 (release), in the guest target dir
//! the other guest builds share; the C one with its own `build.sh` (`build_c`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use pi_guest_build::{
    GUESTS_TARGET_DIR, Options, build_guests, env_dir, rerun_if_changed, shared_target_dir,
};

/// Package directory under `extensions/` and the crate whose component it ships.
const PACKAGES: [(&str, &str); 1] = [("ollama", "pi_ext_ollama")];

/// The C packages under `extensions/`, each built by its `build.sh`.
const C_PACKAGES: [&str; 1] = ["checksum"];

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
        write_const(
            &mut consts,
            package,
            &examples.join(package),
            &wasm_dir.join(format!("{krate}.wasm")),
        )?;
    }
    for package in C_PACKAGES {
        let component = build_c(&root, &out_dir, package)?;
        write_const(&mut consts, package, &examples.join(package), &component)?;
    }
    std::fs::write(out_dir.join("examples.rs"), consts)
        .map_err(|e| format!("cannot write examples.rs: {e}"))?;
    Ok(())
}

/// Writes `pub const <PACKAGE>: Example` for a package directory and its built component.
fn write_const(
    consts: &mut String,
    package: &str,
    dir: &Path,
    component: &Path,
) -> std::fmt::Result {
    writeln!(
        consts,
        "/// The `{package}` example: its package directory and its built component.\n\
         pub const {}: Example = Example {{ dir: {:?}, component: {:?} }};",
        package.replace('-', "_").to_uppercase(),
        dir.display().to_string(),
        component.display().to_string()
    )
}

/// Builds the C package `extensions/<package>` with its own `build.sh`, as its README tells a
/// user to, but with the bindings, objects and component in `OUT_DIR` (never in the source
/// tree) and the tools `scripts/guest-tools.sh` installs first on PATH. Returns the component.
fn build_c(root: &Path, out_dir: &Path, package: &str) -> Result<PathBuf, String> {
    let script = root.join("extensions").join(package).join("build.sh");
    let work = out_dir.join("c").join(package);
    std::fs::create_dir_all(&work).map_err(|e| {
        format!(
            "building extensions/{package}: cannot create {}: {e}",
            work.display()
        )
    })?;
    let component = work.join(format!("{package}.wasm"));
    let tools = root.join("target/guest-tools");
    let mut path =
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()).collect::<Vec<_>>();
    path.splice(0..0, [tools.join("cargo/bin"), tools.join("py/bin")]);
    let path = std::env::join_paths(path)
        .map_err(|e| format!("building extensions/{package}: PATH: {e}"))?;
    let output = Command::new("sh")
        .arg(&script)
        .env("PATH", path)
        .env("OUT_WASM", &component)
        .env("BUILD_DIR", work.join("build"))
        .output()
        .map_err(|e| {
            format!(
                "building extensions/{package}: cannot run sh {}: {e}",
                script.display()
            )
        })?;
    if !output.status.success() {
        return Err(format!(
            "building extensions/{package}: build.sh failed ({}):\n{}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(component)
}
