//! pi-coding-agent integration tests: one binary, modules per area.
