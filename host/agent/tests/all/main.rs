//! Integration tests of pi-agent (one binary). The loop tests run against the loopback mock
//! LLM server over real HTTP through pi-ai's protocol adapters.

// Test helpers may panic on broken invariants; that is how a test fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

/// `script![turn, reply, …]`: a list of mock replies.
macro_rules! script {
    ($($reply:expr),* $(,)?) => { vec![$(pi_mock_llm::Reply::from($reply)),*] };
}

mod custom_stream;
mod fuzz_arguments;
mod loop_events;
mod mock_protocols;
mod serde_shapes;
mod support;
mod tool_scheduling;
