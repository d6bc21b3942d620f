//! Skills: Markdown instruction files the model can load on demand.
//!
//! - [`scan`] finds skill files in a directory and reads their front matter ([`load_skill_file`]).
//! - [`discover`] walks every source in loading order and builds a [`SkillRegistry`]: the same
//!   file is registered once, a second file with a taken name is recorded as a collision.
//! - [`format_skills_for_prompt`] renders the list for the system prompt; [`SkillRegistry::expand_command`]
//!   expands `/skill:name args` into the user message.

mod discover;
mod ignore;
mod load;
mod prompt;

use std::path::PathBuf;

pub use discover::{SkillSearch, discover};
pub use ignore::IgnoreRules;
pub use load::{load_skill_file, name_problems, scan};
pub use prompt::{SKILL_COMMAND_PREFIX, escape_xml, escape_xml_attr, format_skills_for_prompt};

/// Longest allowed skill name (Agent Skills standard).
pub const MAX_NAME_LENGTH: usize = 64;
/// Longest allowed skill description (Agent Skills standard).
pub const MAX_DESCRIPTION_LENGTH: usize = 1024;
/// Longest allowed `compatibility` field (Agent Skills standard).
pub const MAX_COMPATIBILITY_LENGTH: usize = 500;

/// Where a skill was found; also decides the loading order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkillSource {
    /// `<agentDir>/skills` or `~/.agents/skills`.
    User,
    /// `.pi/skills` or `.agents/skills` of a trusted project.
    Project,
    /// A path from the settings file's `skills` array.
    Settings,
    /// A directory contributed by a package or an extension.
    Package,
    /// A `--skill` path given on the command line for this run.
    Cli,
}

/// One registered skill. The body stays on disk; only this metadata is kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    pub name: String,
    pub description: String,
    /// The Markdown file as found (not canonicalised), shown to the model as its location.
    pub file_path: PathBuf,
    /// The directory relative references in the skill resolve against.
    pub base_dir: PathBuf,
    pub source: SkillSource,
    /// `disable-model-invocation: true`: left out of the system prompt, still usable by `/skill:`.
    pub disable_model_invocation: bool,
}

/// What a diagnostic is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiagnosticKind {
    /// A problem with one file; the message says whether the skill was still loaded.
    Warning,
    /// A second file claimed a name already registered; the first one stays.
    Collision {
        name: String,
        winner_path: PathBuf,
        loser_path: PathBuf,
    },
}

/// A warning or collision recorded while loading skills.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillDiagnostic {
    pub kind: DiagnosticKind,
    pub message: String,
    pub path: PathBuf,
}

impl SkillDiagnostic {
    pub fn warning(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        SkillDiagnostic {
            kind: DiagnosticKind::Warning,
            message: message.into(),
            path: path.into(),
        }
    }
}

/// Failure to expand a `/skill:` command.
#[derive(Debug, thiserror::Error)]
pub enum SkillError {
    #[error("cannot read skill \"{name}\" at {path}: {source}")]
    Read {
        name: String,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// The skills of the current session, in loading order, with the diagnostics of loading.
#[derive(Debug, Clone, Default)]
pub struct SkillRegistry {
    pub skills: Vec<Skill>,
    pub diagnostics: Vec<SkillDiagnostic>,
}

impl SkillRegistry {
    pub fn get(&self, name: &str) -> Option<&Skill> {
        self.skills.iter().find(|s| s.name == name)
    }

    /// Skills the model may see in the system prompt.
    pub fn visible_to_model(&self) -> impl Iterator<Item = &Skill> {
        self.skills.iter().filter(|s| !s.disable_model_invocation)
    }
}
