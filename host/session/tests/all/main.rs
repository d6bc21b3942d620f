//! pi-session integration tests: one binary, modules per area.

// Test helpers fail loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod compaction_math;
mod crash;
mod fuzz_frontmatter;
mod fuzz_ignore;
mod fuzz_session_lines;
mod fuzz_templates;
mod lazy_entries;
mod links;
mod message_builders;
mod messages;
mod sessions;
mod settings;
mod settings_typed;
mod skills;
mod start_settings;
mod summaries;
mod system_messages;
mod system_prompt;
mod templates;
