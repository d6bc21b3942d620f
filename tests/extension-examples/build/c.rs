//! The C examples: each built by its own `build.sh`, as its README tells a user to.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The C packages under `extensions/`.
const PACKAGES: [&str; 1] = ["checksum"];

/// Builds every C package; returns each one's name and component.
pub fn build(root: &Path, out_dir: &Path) -> Result<Vec<(String, PathBuf)>, String> {
    PACKAGES
        .iter()
        .map(|package| Ok((package.to_string(), build_c(root, out_dir, package)?)))
        .collect()
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
