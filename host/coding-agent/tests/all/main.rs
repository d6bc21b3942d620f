//! pi-coding-agent integration tests: one binary, modules per area.

// Sessions, settings, crash safety (session files helper).
mod crash;
mod messages;
mod sessions;
mod settings;
