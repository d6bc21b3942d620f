//! pi-coding-agent integration tests: one binary, modules per area.

mod crash;
mod messages;
mod sessions;
mod settings;
mod skills;
mod system_prompt;
mod templates;
