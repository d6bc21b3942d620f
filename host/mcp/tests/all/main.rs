//! pi-mcp against real MCP servers.
