//! pi-coding-agent: the coding agent built on pi-agent and pi-ai.

pub mod agent_session;
pub mod cli;
pub mod compaction;
pub mod context_files;
pub mod export_html;
pub mod extensions;
pub mod frontmatter;
pub mod list_models;
pub mod messages;
pub mod modes;
pub mod paths;
pub mod prompt_templates;
pub mod session;
pub mod settings;
pub mod skills;
pub mod system_prompt;
pub mod tools;
pub mod trust;
