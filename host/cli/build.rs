//! Link options for the `pi` binary.

use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let target = std::env::var("TARGET").unwrap_or_default();
    // Relative relocations packed as DT_RELR (glibc ≥ 2.36, binutils ≥ 2.38): the loader then
    // reads ~15 KB instead of ~1.3 MB of .rela.dyn at every start, which shows in peak RSS
    // (measured: `pi --version` 4.9 → 3.5 MB).
    if target.ends_with("-linux-gnu") {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
    if target == "x86_64-unknown-linux-gnu" && default_linker() {
        hot_functions_first();
    }
}

/// Places the functions a typical run executes (`link/hot-functions.txt`, made by
/// `link/regenerate.sh`) together at the start of the text. The kernel maps a file's pages
/// 64 KB around each one touched, so the same 2.5 MB of code spread over the whole binary
/// made ~10 MB resident (measured: peak RSS of ten tool calls 22.7 → 14.7 MB).
fn hot_functions_first() {
    let list = Path::new(env!("CARGO_MANIFEST_DIR")).join("link/hot-functions.txt");
    println!("cargo:rerun-if-changed={}", list.display());
    if !list.is_file() {
        return;
    }
    println!(
        "cargo:rustc-link-arg-bins=-Wl,--symbol-ordering-file={}",
        list.display()
    );
    // Names a rebuilt dependency no longer has are expected: the list is refreshed by hand.
    println!("cargo:rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
}

/// Whether the target links with rustc's own LLD (the default on x86_64 Linux since Rust
/// 1.90), which understands `--symbol-ordering-file`; a linker chosen by the user may not.
fn default_linker() -> bool {
    println!("cargo:rerun-if-env-changed=RUSTC_LINKER");
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    std::env::var_os("RUSTC_LINKER").is_none()
        && !flags.contains("linker")
        && !flags.contains("fuse-ld")
}
