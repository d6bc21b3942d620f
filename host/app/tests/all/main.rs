//! pi-app integration tests: the agent session and the typed application API against the
//! loopback mock model. One binary, modules per area.

// Test helpers fail loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../../session/tests/all/message_builders.rs"]
mod message_builders;
mod model_scope;
mod session_checks;
mod session_compaction;
mod session_extension_llm;
mod session_retry;
mod session_settings;
mod session_support;
mod system_record;
mod typed_api;
