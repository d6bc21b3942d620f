//! The built-in tools through the real host: pi-ext-host running the embedded components.
//!
//! The behaviour suite of `pi-builtin-tools` (`builtin-tools/core/tests/all`) is shared: its
//! modules are compiled here against a component-backed `common::Ws`, so every case (limits
//! at, below and above their edges, CRLF/BOM/Unicode edits, fuzzy matches, edit errors,
//! images, nested .gitignore files, bash timeout/abort/huge output/exit codes, paths outside
//! the workspace) runs through the components exactly as natively. `components.rs` adds what
//! only the host can show: lazy loading, grants, per-file serialisation, process groups.

// Test helpers outside `#[test]` functions may panic on setup failures too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod components;
mod shard;

#[path = "../../../../builtin-tools/core/tests/all/ancestors.rs"]
mod ancestors;
#[path = "../../../../builtin-tools/core/tests/all/bash.rs"]
mod bash;
#[path = "../../../../builtin-tools/core/tests/all/edit.rs"]
mod edit;
#[path = "../../../../builtin-tools/core/tests/all/find.rs"]
mod find;
#[path = "../../../../builtin-tools/core/tests/all/git.rs"]
mod git;
#[path = "../../../../builtin-tools/core/tests/all/grep.rs"]
mod grep;
#[path = "../../../../builtin-tools/core/tests/all/images.rs"]
mod images;
#[path = "../../../../builtin-tools/core/tests/all/ls.rs"]
mod ls;
#[path = "../../../../builtin-tools/core/tests/all/paths.rs"]
mod paths;
#[path = "../../../../builtin-tools/core/tests/all/read.rs"]
mod read;
#[path = "../../../../builtin-tools/core/tests/all/write.rs"]
mod write;
