//! pi-tui tests: screens drawn into ratatui's `TestBackend` from transcripts built with the
//! App's own event types, compared with insta snapshots (`cargo insta review` to accept a
//! change). The real terminal is exercised by pi-cli's tmux test.

// Test helpers fail loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod approvals;
mod dialogs;
mod screens;
mod subagents;
