//! pi-coding-agent integration tests: one binary, modules per area.

// System prompt, skills and prompt templates.
mod skills;
mod system_prompt;
mod templates;
