//! Agent definitions: markdown files whose frontmatter names the agent and whose body is its
//! system prompt, in the format pi's `subagent` example reads.

use crate::permissions::PermissionMode;
use std::path::{Path, PathBuf};

/// Where a definition was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentSource {
    /// `<agentDir>/agents/*.md`.
    User,
    /// `.pi/agents/*.md` of a trusted project.
    Project,
    /// An extension package's `[resources] agents` folder (the package's name).
    Package(String),
}

/// One agent a `subagent` call can name.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentDefinition {
    pub name: String,
    pub description: String,
    /// Tool names or glob patterns (`mcp__github__*`); `None`: the read-only built-ins.
    pub tools: Option<Vec<String>>,
    /// `provider/id[:thinking]` or a bare model id; `None`: the parent's model.
    pub model: Option<String>,
    /// The permission mode the definition asks for; `None`: see [`AgentDefinition::mode`].
    pub mode: Option<PermissionMode>,
    /// The body: appended to the child's system prompt.
    pub system_prompt: String,
    pub source: AgentSource,
    pub path: PathBuf,
}

/// What a look for definitions found.
#[derive(Debug, Clone, Default)]
pub struct AgentDefinitions {
    /// By name; a later source overrides an earlier one (package, then user, then project).
    pub agents: Vec<AgentDefinition>,
    /// One line per file skipped or field ignored.
    pub warnings: Vec<String>,
}

impl AgentDefinitions {
    pub fn find(&self, name: &str) -> Option<&AgentDefinition> {
        self.agents.iter().find(|agent| agent.name == name)
    }

    pub fn is_empty(&self) -> bool {
        self.agents.is_empty()
    }
}

/// Where to look.
#[derive(Debug, Clone, Copy)]
pub struct AgentSearch<'a> {
    pub agent_dir: &'a Path,
    pub cwd: &'a Path,
    /// Whether the project is trusted (its `.pi/agents` is read only then).
    pub trusted: bool,
    /// The `[resources] agents` folders of the loaded packages, with the package's name.
    pub package_dirs: &'a [(String, PathBuf)],
}

/// The definitions `search` finds (user folder only until discovery is complete).
pub fn discover(search: &AgentSearch<'_>) -> AgentDefinitions {
    let mut found = AgentDefinitions::default();
    let Ok(entries) = std::fs::read_dir(search.agent_dir.join("agents")) else {
        return found;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
    {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Ok(doc) = pi_session::frontmatter::parse_document(&text) else {
            continue;
        };
        let field = |key: &str| doc.frontmatter.get_str(key).map(str::to_owned);
        let (Some(name), Some(description)) = (field("name"), field("description")) else {
            continue;
        };
        found.agents.push(AgentDefinition {
            name,
            description,
            tools: field("tools").map(|t| {
                t.split(',')
                    .map(|s| s.trim().to_owned())
                    .filter(|s| !s.is_empty())
                    .collect()
            }),
            model: field("model"),
            mode: field("mode").and_then(|m| PermissionMode::parse(&m)),
            system_prompt: doc.body.trim().to_owned(),
            source: AgentSource::User,
            path,
        });
    }
    found
}
