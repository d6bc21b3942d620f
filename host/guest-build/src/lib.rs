//! Build-script helper for crates that embed or load guest components: runs a nested
//! `cargo build --target wasm32-wasip2` on a guest workspace (one that is not a member of the
//! host workspace because it only builds for wasm) and tells cargo when to rerun.
//!
//! Used as a `[build-dependencies]` entry by `pi-builtin-tools-embed` (the built-in tools) and
//! `pi-wasm-test-artifacts` (the extension host's test components), so both spawn the inner
//! cargo the same way.
//!
//! Why the nested build gets its own target dir: the outer cargo holds the lock on its target
//! dir for the whole build, build scripts included. An inner cargo pointed at the same dir would
//! wait on that lock forever (the outer one waits for the build script, which waits for the
//! inner cargo). A separate dir also keeps wasm artifacts out of the host's `debug`/`release`.
//!
//! Why the environment is cleaned: cargo hands its build scripts the flags and wrappers of the
//! outer build (`RUSTFLAGS`, `CARGO_ENCODED_RUSTFLAGS`, `RUSTC_WORKSPACE_WRAPPER` set by
//! `cargo clippy`, a target dir or build target). Those are meant for the host crates; passed on
//! they would rebuild the guests with host flags, lint them with clippy or point the inner cargo
//! back at the outer target dir.

use std::ffi::OsString;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};

/// The target every guest component is built for.
pub const TARGET: &str = "wasm32-wasip2";

/// Variables of the outer build that must not reach the nested one (see the module docs).
const HOST_ONLY_ENV: [&str; 6] = [
    "CARGO_ENCODED_RUSTFLAGS",
    "RUSTFLAGS",
    "CARGO_TARGET_DIR",
    "CARGO_BUILD_TARGET",
    "RUSTC_WORKSPACE_WRAPPER",
    "RUSTC_WRAPPER",
];

/// The cargo profile of the nested build.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Profile {
    /// `--release`; artifacts in `<target-dir>/wasm32-wasip2/release`.
    #[default]
    Release,
    /// The dev profile; artifacts in `<target-dir>/wasm32-wasip2/debug`.
    Dev,
}

impl Profile {
    /// The directory cargo puts this profile's artifacts in.
    pub fn dir_name(self) -> &'static str {
        match self {
            Profile::Release => "release",
            Profile::Dev => "debug",
        }
    }
}

/// How to run the nested build.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The profile (release by default).
    pub profile: Profile,
    /// Pass `--locked`: fail instead of updating the guest workspace's `Cargo.lock`.
    pub locked: bool,
    /// Build only these packages (`-p`); empty builds the whole workspace.
    pub packages: Vec<String>,
}

/// Why a guest build failed; the messages name the workspace and suggest the usual fix.
#[derive(Debug)]
pub enum Error {
    /// A variable cargo sets for build scripts is missing (not run by cargo?).
    MissingEnv(&'static str),
    /// The inner cargo could not be started.
    Spawn {
        /// The cargo binary that was run.
        cargo: OsString,
        /// Why it could not start.
        source: io::Error,
    },
    /// The inner cargo ran and failed; its own output explains why.
    Failed {
        /// The guest workspace.
        workspace: PathBuf,
        /// Its exit status.
        status: ExitStatus,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::MissingEnv(name) => {
                write!(
                    f,
                    "{name} is not set (build scripts are run by cargo, which sets it)"
                )
            }
            Error::Spawn { cargo, source } => {
                write!(f, "cannot run {}: {source}", Path::new(cargo).display())
            }
            Error::Failed { workspace, status } => write!(
                f,
                "cargo build --target {TARGET} in {} failed ({status}); is the {TARGET} target \
                 installed? (rustup target add {TARGET})",
                workspace.display()
            ),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Spawn { source, .. } => Some(source),
            Error::MissingEnv(_) | Error::Failed { .. } => None,
        }
    }
}

/// Builds the guest workspace at `workspace` for wasm32-wasip2 into `target_dir` (which must
/// not be the outer build's target dir: see the module docs) and returns the directory holding
/// the artifacts, `<target_dir>/wasm32-wasip2/<profile>`.
///
/// Runs the `cargo` that runs the build script (`$CARGO`), without the outer build's flags and
/// wrappers. The inner cargo's output goes to the build script's stderr, shown by cargo when
/// the build fails.
pub fn build_guests(
    workspace: &Path,
    target_dir: &Path,
    options: &Options,
) -> Result<PathBuf, Error> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(&cargo);
    command
        .current_dir(workspace)
        .args(["build", "--target", TARGET, "--target-dir"])
        .arg(target_dir);
    if options.profile == Profile::Release {
        command.arg("--release");
    }
    if options.locked {
        command.arg("--locked");
    }
    for package in &options.packages {
        command.args(["-p", package]);
    }
    for name in HOST_ONLY_ENV {
        command.env_remove(name);
    }
    let status = command
        .status()
        .map_err(|source| Error::Spawn { cargo, source })?;
    if !status.success() {
        return Err(Error::Failed {
            workspace: workspace.to_owned(),
            status,
        });
    }
    Ok(target_dir.join(TARGET).join(options.profile.dir_name()))
}

/// Tells cargo to rerun the build script when anything under these paths changes (cargo scans
/// a directory recursively, by modification time).
pub fn rerun_if_changed<P: AsRef<Path>>(paths: impl IntoIterator<Item = P>) {
    for path in paths {
        println!("cargo:rerun-if-changed={}", path.as_ref().display());
    }
}

/// A directory cargo set for the build script (`CARGO_MANIFEST_DIR`, `OUT_DIR`).
pub fn env_dir(name: &'static str) -> Result<PathBuf, Error> {
    std::env::var_os(name)
        .map(PathBuf::from)
        .ok_or(Error::MissingEnv(name))
}

/// The name of the target dir every guest workspace is built in (see [`shared_target_dir`]):
/// one dir, so the guests' host-side build dependencies (wit-bindgen's macros) are built once.
/// Each cargo run takes the dir's lock, so concurrent build scripts wait for each other.
pub const GUESTS_TARGET_DIR: &str = "guests";

/// `<dir>/<name>` where `<dir>` holds the outer build's profile directories (`debug`,
/// `release`; cargo makes `out_dir` `<dir>/<profile>/build/<pkg>/out`), so the debug and
/// release host builds share one guest build. Falls back to `<out_dir>/guest-target` when
/// `out_dir` does not have that shape.
pub fn shared_target_dir(out_dir: &Path, name: &str) -> PathBuf {
    let in_build_dir =
        out_dir.ancestors().nth(2).and_then(Path::file_name) == Some("build".as_ref());
    match out_dir.ancestors().nth(4) {
        Some(dir) if in_build_dir => dir.join(name),
        _ => out_dir.join("guest-target"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_target_dir_is_beside_the_profiles() {
        let out = Path::new("/t/target/debug/build/pkg-0123/out");
        assert_eq!(
            shared_target_dir(out, "guests"),
            Path::new("/t/target/guests")
        );
    }

    #[test]
    fn shared_target_dir_falls_back_to_out_dir() {
        let out = Path::new("/somewhere/out");
        assert_eq!(
            shared_target_dir(out, "guests"),
            Path::new("/somewhere/out/guest-target")
        );
    }
}
