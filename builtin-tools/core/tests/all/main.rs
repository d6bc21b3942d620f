//! Integration tests of the built-in tools, run natively against real temp directories.

// Test helpers outside `#[test]` functions may panic on setup failures too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod ancestors;
mod bash;
mod common;
mod definitions;
mod edit;
mod find;
mod git;
mod grep;
mod images;
mod ls;
mod paths;
mod read;
mod truncate;
mod write;
