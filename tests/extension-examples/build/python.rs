//! The Python examples: each built by its own `build.sh` (componentize-py from
//! `scripts/guest-tools.sh`'s venv first on PATH), into OUT_DIR (never into the source tree).

use std::path::{Path, PathBuf};
use std::process::Command;

/// Python packages under `extensions/`, each built by its `build.sh` (componentize-py).
const PACKAGES: [&str; 2] = ["json-query", "protected-paths"];

/// Builds the Python examples with componentize-py from `target/guest-tools/py` (or PATH).
pub fn build(root: &Path, out_dir: &Path) -> Result<Vec<(String, PathBuf)>, String> {
    let mut built = Vec::new();
    let tools = root.join("target/guest-tools/py/bin");
    let path = path_with(&tools)?;
    if !on_path(&path, "componentize-py") {
        return Err(format!(
            "componentize-py not found in {} or on PATH: run scripts/guest-tools.sh",
            tools.display()
        ));
    }
    for package in PACKAGES {
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
            ));
        }
        built.push((package.to_string(), component));
    }
    Ok(built)
}

/// PATH with `dir` first.
fn path_with(dir: &Path) -> Result<std::ffi::OsString, String> {
    let mut dirs = vec![dir.to_path_buf()];
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(dirs).map_err(|e| format!("PATH: {e}"))
}

fn on_path(path: &std::ffi::OsStr, program: &str) -> bool {
    std::env::split_paths(path).any(|dir: PathBuf| dir.join(program).is_file())
}
