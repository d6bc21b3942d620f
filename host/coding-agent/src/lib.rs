//! pi-coding-agent: the coding agent built on pi-agent and pi-ai.

// System prompt, context files, skills and prompt templates.
pub mod context_files;
pub mod frontmatter;
pub mod prompt_templates;
pub mod skills;
pub mod system_prompt;
