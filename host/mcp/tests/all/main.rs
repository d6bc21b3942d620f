//! pi-mcp against real MCP servers: the reference `server-everything` (stdio and streamable
//! HTTP) and `server-filesystem`, a small SDK server of the tests' own
//! (`tests/servers/pins-server.cjs`), and servers that fail to start.

// Test helpers fail loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod bench;
mod control;
mod everything;
mod failures;
mod filesystem;
mod own_server;
mod support;
