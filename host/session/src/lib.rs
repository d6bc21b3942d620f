//! pi-session: what a coding session is made of, without the agent that runs it.
//!
//! Session files (the JSONL tree, v3, with migration from older versions), the messages they
//! hold, the pure compaction logic (token accounting, cut point, summary requests and their
//! retry policy), settings, paths, project trust, and the resources the system prompt is built
//! from: skills, prompt templates, frontmatter, context files. Everything here is usable from a
//! test or another face without a model, a wasm engine or a terminal.

pub mod checkpoints;
pub mod compaction;
pub mod context_files;
pub mod export_html;
pub mod extension_writes;
pub mod frontmatter;
pub mod messages;
pub mod paths;
pub mod prompt_templates;
pub mod retry;
pub mod session;
pub mod settings;
pub mod skills;
pub mod system_message;
pub mod system_prompt;
pub mod trust;
