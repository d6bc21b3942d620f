//! pi-mcp against real MCP servers: the reference `server-everything` (stdio and streamable
//! HTTP) and `server-filesystem`, a small SDK server of the tests' own
//! (`tests/servers/pins-server.cjs`), servers that fail to start, and OAuth against the
//! loopback OAuth-protected server of `pi-mock-llm`.

// Test helpers fail loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod control;
mod everything;
mod failures;
mod filesystem;
mod oauth;
mod own_server;
mod support;
