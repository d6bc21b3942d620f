//! Link options for the `pi` binary.
//!
//! Relative relocations are packed (DT_RELR) on glibc targets, so the loader reads a small
//! table instead of a large one at every start. A release (`scripts/release.sh`) also passes
//! `PI_LINK_ORDER`, a list of the functions a typical run executes, and they are linked first:
//! the kernel maps a file's pages in large blocks around each page touched, so code that runs
//! together should lie together. Ordinary builds never depend on that list.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
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
