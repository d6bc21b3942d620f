//! The example hook components of `extensions/` (and the todo tool, which imports what they
//! do), run on wasmtime with a recording host: each built component is instantiated against the
//! `hook` world of the repository's WIT and its answers and host calls checked. The pipeline that calls hooks inside pi is tested through
//! the `pi` binary (host/cli's tests); these pin what each package itself answers.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod hook_host;
mod hooks;
