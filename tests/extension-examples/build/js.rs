//! The JavaScript example packages: each is built by its own `build.sh` (componentize-js, from
//! `scripts/guest-tools.sh`'s npm prefix put first on PATH) into the shared guest target dir,
//! never into the source tree. A build takes tens of seconds, so it is skipped when a stamp of
//! the package's sources, the WIT and the toolchain says the component there is current.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Package directories under `extensions/` written in JavaScript; each builds `<name>.wasm`.
const PACKAGES: [&str; 1] = ["md-table"];

/// The package directory and the built component of each JavaScript example.
pub fn build(root: &Path, guests_dir: &Path) -> Result<Vec<(String, PathBuf)>, String> {
    let bin = root.join("target/guest-tools/npm/node_modules/.bin");
    let out = guests_dir.join("js");
    std::fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let mut built = Vec::new();
    for package in PACKAGES {
        let dir = root.join("extensions").join(package);
        let component = out.join(format!("{package}.wasm"));
        let step = |what: &str| format!("building extensions/{package}: {what}");
        let stamp = stamp(&dir, &root.join("wit"), &bin).map_err(|e| step(&e))?;
        let stamp_path = out.join(format!("{package}.stamp"));
        let current = std::fs::read_to_string(&stamp_path).is_ok_and(|s| s == stamp);
        if !(current && component.is_file()) {
            run_build_sh(&dir, &bin, &component).map_err(|e| step(&e))?;
            std::fs::write(&stamp_path, &stamp)
                .map_err(|e| step(&format!("cannot write the stamp: {e}")))?;
        }
        built.push((package.to_owned(), component));
    }
    Ok(built)
}

/// Runs `build.sh <tmp>` and renames the result into place, so a concurrent build script (the
/// debug and clippy builds share the dir) never reads half a component.
fn run_build_sh(dir: &Path, bin: &Path, component: &Path) -> Result<(), String> {
    if !bin.join("componentize-js").is_file() {
        return Err(format!(
            "componentize-js not found in {}: run scripts/guest-tools.sh",
            bin.display()
        ));
    }
    let tmp = component.with_extension(format!("wasm.{}.tmp", std::process::id()));
    let mut path = std::ffi::OsString::from(bin);
    path.push(":");
    path.push(std::env::var_os("PATH").unwrap_or_default());
    let output = Command::new(dir.join("build.sh"))
        .arg(&tmp)
        .current_dir(dir)
        .env("PATH", path)
        .output()
        .map_err(|e| format!("cannot run build.sh: {e}"))?;
    if !output.status.success() {
        let _ = std::fs::remove_file(&tmp);
        return Err(format!(
            "componentize-js failed ({}): {}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    std::fs::rename(&tmp, component)
        .map_err(|e| format!("cannot move the component into place: {e}"))
}

/// A hash of every file of the package but its build output, of the WIT and of the installed
/// componentize-js (its package.json names the version).
fn stamp(package: &Path, wit: &Path, bin: &Path) -> Result<String, String> {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    let toolchain = bin.join("../@bytecodealliance/componentize-js/package.json");
    let mut files = vec![toolchain];
    collect(package, &mut files)?;
    collect(wit, &mut files)?;
    files.sort();
    for file in files {
        if file.extension().is_some_and(|e| e == "wasm" || e == "tmp") {
            continue;
        }
        file.hash(&mut hasher);
        // A missing toolchain hashes as absent; the build then says what to run.
        std::fs::read(&file).unwrap_or_default().hash(&mut hasher);
    }
    Ok(format!("{:016x}", hasher.finish()))
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry
            .map_err(|e| format!("cannot list {}: {e}", dir.display()))?
            .path();
        if path.file_name().is_some_and(|n| n == "node_modules") {
            continue;
        }
        if path.is_dir() {
            collect(&path, files)?;
        } else {
            files.push(path);
        }
    }
    Ok(())
}
