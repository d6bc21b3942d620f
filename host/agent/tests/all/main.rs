//! Integration tests of pi-agent (one binary).

// Test helpers may panic on broken invariants; that is how a test fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod fake_loop;
mod fake_parallel;
mod serde_shapes;
mod support;
