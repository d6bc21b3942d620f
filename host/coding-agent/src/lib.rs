//! pi-coding-agent: the coding agent built on pi-agent and pi-ai.

// Sessions, paths, settings (session files helper).
pub mod messages;
pub mod paths;
pub mod session;
pub mod settings;
pub mod trust;
