//! pi-coding-agent integration tests: one binary, modules per area.

mod cli_export;
mod cli_faults;
mod cli_json;
mod cli_print;
mod cli_rpc;
mod cli_support;
mod crash;
mod messages;
mod sessions;
mod settings;
mod skills;
mod system_prompt;
mod templates;
