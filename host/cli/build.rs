//! The `pi` binary's build script: link options, and the files `pi ext new` writes.
//!
//! Relative relocations are packed (DT_RELR) on glibc targets, so the loader reads a small
//! table instead of a large one at every start. A release (`scripts/release.sh`) also passes
//! `PI_LINK_ORDER`, a list of the functions a typical run executes, and they are linked first:
//! the kernel maps a file's pages in large blocks around each page touched, so code that runs
//! together should lie together. Ordinary builds never depend on that list.
//!
//! Every file under `templates/` and the WIT package of the repository's `wit/` (its `.wit`
//! files and `deps/`) are embedded (an `include_bytes!` table in `OUT_DIR/embedded.rs`), found
//! by walking the folders: a template added for another language is picked up without a change
//! here, and the WIT a new package builds against is always the one this binary loads.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    link_options();
    if let Err(error) = embed_files() {
        panic!("embedding the `pi ext new` files failed: {error}");
    }
}

fn link_options() {
    println!("cargo:rerun-if-env-changed=PI_LINK_ORDER");
    let target = std::env::var("TARGET").unwrap_or_default();
    if target.ends_with("-linux-gnu") {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
    let order = std::env::var("PI_LINK_ORDER").unwrap_or_default();
    if !order.is_empty() && target == "x86_64-unknown-linux-gnu" && default_linker() {
        println!("cargo:rerun-if-changed={order}");
        println!("cargo:rustc-link-arg-bins=-Wl,--symbol-ordering-file={order}");
        // Names a rebuilt dependency no longer has are expected; they only cost memory.
        println!("cargo:rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
    }
}

/// Whether the target links with rustc's own LLD (the default on x86_64 Linux), which
/// understands `--symbol-ordering-file`; a linker chosen by the user may not.
fn default_linker() -> bool {
    println!("cargo:rerun-if-env-changed=RUSTC_LINKER");
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    std::env::var_os("RUSTC_LINKER").is_none()
        && !flags.contains("linker")
        && !flags.contains("fuse-ld")
}

/// Writes `OUT_DIR/embedded.rs`: `TEMPLATE_FILES` (paths relative to `templates/`, so they
/// start with the language), `WIT_FILES` (relative to `wit/`) and `WIT_VERSION`.
fn embed_files() -> Result<(), String> {
    let manifest_dir = env_path("CARGO_MANIFEST_DIR")?;
    let out_dir = env_path("OUT_DIR")?;
    let templates = manifest_dir.join("templates");
    let wit = manifest_dir.join("../../wit");
    // A folder is scanned recursively, so an added file reruns the script.
    println!("cargo:rerun-if-changed={}", templates.display());
    println!("cargo:rerun-if-changed={}", wit.display());
    let mut code = String::new();
    table(&mut code, "TEMPLATE_FILES", &templates, |_| true)?;
    // A WIT package folder as the bindings generators read it: its own `.wit` files and
    // `deps/`; anything else kept beside them is not part of it.
    table(&mut code, "WIT_FILES", &wit, |path| {
        path.starts_with("deps/") || (!path.contains('/') && path.ends_with(".wit"))
    })?;
    let version = wit_version(&wit)?;
    writeln!(code, "pub const WIT_VERSION: &str = {version:?};").map_err(|e| e.to_string())?;
    let path = out_dir.join("embedded.rs");
    std::fs::write(&path, code).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn env_path(name: &str) -> Result<PathBuf, String> {
    std::env::var_os(name)
        .map(PathBuf::from)
        .ok_or_else(|| format!("{name} is not set (build scripts are run by cargo)"))
}

/// `pub static <name>: &[EmbeddedFile]` with the files under `root` whose relative path
/// `keep` accepts, in path order.
fn table(
    code: &mut String,
    name: &str,
    root: &Path,
    keep: impl Fn(&str) -> bool,
) -> Result<(), String> {
    let mut files = Vec::new();
    walk(root, root, &mut files)?;
    files.retain(|(relative, _, _)| keep(relative));
    files.sort();
    let mut rows = String::new();
    for (relative, absolute, executable) in files {
        writeln!(
            rows,
            "    EmbeddedFile {{ path: {relative:?}, contents: include_bytes!({absolute:?}), \
             executable: {executable} }},"
        )
        .map_err(|e| e.to_string())?;
    }
    writeln!(code, "pub static {name}: &[EmbeddedFile] = &[\n{rows}];").map_err(|e| e.to_string())
}

/// The files under `dir`: path relative to `root` (with `/`), absolute path, executable bit.
fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, String, bool)>) -> Result<(), String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        let path = entry.path();
        let meta =
            std::fs::metadata(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        if meta.is_dir() {
            walk(root, &path, out)?;
            continue;
        }
        let relative = path
            .strip_prefix(root)
            .map_err(|e| e.to_string())?
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        let absolute = std::fs::canonicalize(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        out.push((relative, absolute.display().to_string(), executable(&meta)));
    }
    Ok(())
}

#[cfg(unix)]
fn executable(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn executable(_meta: &std::fs::Metadata) -> bool {
    false
}

/// The version of `pi:extension` the `.wit` files at the top of `wit/` declare
/// (`package pi:extension@<version>;`); they must agree.
fn wit_version(wit: &Path) -> Result<String, String> {
    let mut versions = Vec::new();
    let entries =
        std::fs::read_dir(wit).map_err(|e| format!("cannot read {}: {e}", wit.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.extension().is_none_or(|e| e != "wit") {
            continue;
        }
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let declared = text.lines().find_map(|line| {
            line.trim()
                .strip_prefix("package pi:extension@")
                .and_then(|rest| rest.strip_suffix(';'))
        });
        if let Some(version) = declared
            && !versions.iter().any(|v| v == version)
        {
            versions.push(version.to_owned());
        }
    }
    match versions.as_slice() {
        [version] => Ok(version.clone()),
        [] => Err(format!("no `package pi:extension@…;` in {}", wit.display())),
        many => Err(format!(
            "the files of {} declare different versions: {}",
            wit.display(),
            many.join(", ")
        )),
    }
}
