//! Agent definitions: markdown files whose frontmatter names the agent and whose body is its
//! system prompt, in the format pi's `subagent` example reads.
//!
//! Found in an extension package's `[resources] agents` folder, `<agentDir>/agents/*.md` and the
//! nearest `.pi/agents/*.md` walking up from the working directory (read only when the project
//! is trusted), in that order: a later definition of a name replaces an earlier one and a
//! warning names both files. The frontmatter is checked the way skills' is: a file without a
//! `name` or `description`, unreadable or with broken frontmatter is skipped with a warning; a
//! bad `tools`, `model` or `mode` is warned about and ignored; other keys are ignored silently.

use crate::permissions::PermissionMode;
use pi_session::frontmatter::{self, Frontmatter, FrontmatterValue};
use pi_session::skills::{MAX_DESCRIPTION_LENGTH, name_problems};
use std::path::{Path, PathBuf};

/// The folder of definitions in the agent dir and in a project's `.pi`.
pub const AGENTS_DIR: &str = "agents";

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

/// The built-ins a definition without `tools` gets: the ones that only read.
pub const DEFAULT_TOOLS: [&str; 4] = ["read", "grep", "find", "ls"];

/// The tools that change files: naming one in `tools` (without a `mode`) lets the agent write.
const WRITING_TOOLS: [&str; 2] = ["write", "edit"];

impl AgentDefinition {
    /// Its tool names or patterns ([`DEFAULT_TOOLS`] when it names none).
    pub fn tool_patterns(&self) -> Vec<String> {
        match &self.tools {
            Some(tools) => tools.clone(),
            None => DEFAULT_TOOLS.iter().map(|t| (*t).to_owned()).collect(),
        }
    }

    /// The mode it asks for: its `mode`, else `auto` when its `tools` name a writing tool,
    /// else `plan` (an agent only reads unless its definition says otherwise).
    pub fn requested_mode(&self) -> PermissionMode {
        if let Some(mode) = self.mode {
            return mode;
        }
        let writes = self
            .tools
            .iter()
            .flatten()
            .any(|t| WRITING_TOOLS.contains(&t.as_str()));
        if writes {
            PermissionMode::Auto
        } else {
            PermissionMode::Plan
        }
    }
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

impl std::fmt::Display for AgentSource {
    /// `user`, `project` or `package <name>` (what a child's `agentSource` says).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AgentSource::User => f.write_str("user"),
            AgentSource::Project => f.write_str("project"),
            AgentSource::Package(name) => write!(f, "package {name}"),
        }
    }
}

/// The definitions `search` finds, with a warning per file skipped, field ignored or name
/// taken over.
pub fn discover(search: &AgentSearch<'_>) -> AgentDefinitions {
    let mut found = AgentDefinitions::default();
    for (package, path) in search.package_dirs {
        found.load(path, &AgentSource::Package(package.clone()));
    }
    found.load(&search.agent_dir.join(AGENTS_DIR), &AgentSource::User);
    match project_agents_dir(search.cwd) {
        Some(dir) if search.trusted => found.load(&dir, &AgentSource::Project),
        Some(dir) => found.warnings.push(warning(
            &dir,
            "not loaded: the project is not trusted. Start pi in the project to trust it \
             (or run it with --approve).",
        )),
        None => {}
    }
    found
}

impl AgentDefinitions {
    /// Loads the definitions at `path` (a folder, or one file a package filter picked).
    fn load(&mut self, path: &Path, source: &AgentSource) {
        for file in agent_files(path) {
            let (agent, warnings) = load_agent_file(&file, source.clone());
            self.warnings.extend(warnings);
            if let Some(agent) = agent {
                self.add(agent);
            }
        }
    }

    /// Adds `agent`; one of the same name found before gives way (it keeps its place in the
    /// list, as pi's example's map does).
    fn add(&mut self, agent: AgentDefinition) {
        match self.agents.iter_mut().find(|a| a.name == agent.name) {
            Some(earlier) => {
                self.warnings.push(warning(
                    &earlier.path,
                    &format!(
                        "not loaded: the name \"{}\" is taken by {}",
                        agent.name,
                        agent.path.display()
                    ),
                ));
                *earlier = agent;
            }
            None => self.agents.push(agent),
        }
    }
}

/// `Warning (agents): <path>: <message>`.
fn warning(path: &Path, message: &str) -> String {
    format!("Warning (agents): {}: {message}", path.display())
}

/// The nearest `.pi/agents` folder from `cwd` up (as pi's example looks for it).
fn project_agents_dir(cwd: &Path) -> Option<PathBuf> {
    cwd.ancestors()
        .map(|dir| dir.join(".pi").join(AGENTS_DIR))
        .find(|dir| dir.is_dir())
}

/// The `.md` files of the folder `path` by name (files and symlinks to files, not recursive),
/// or `path` itself when it is a file.
fn agent_files(path: &Path) -> Vec<PathBuf> {
    if path.is_file() {
        return vec![path.to_path_buf()];
    }
    let Ok(read) = std::fs::read_dir(path) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = read
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md") && p.is_file())
        .collect();
    files.sort();
    files
}

/// Reads one definition: `None` when the file is skipped; the warnings either way.
pub fn load_agent_file(path: &Path, source: AgentSource) -> (Option<AgentDefinition>, Vec<String>) {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(err) => {
            let message = format!("not loaded: cannot read agent file: {err}");
            return (None, vec![warning(path, &message)]);
        }
    };
    let document = match frontmatter::parse_document(&text) {
        Ok(document) => document,
        Err(err) => {
            let message = format!("not loaded: invalid front matter: {err}");
            return (None, vec![warning(path, &message)]);
        }
    };
    let fm = &document.frontmatter;
    let mut problems = Vec::new();
    let name = required(fm, "name", &mut problems);
    let description = required(fm, "description", &mut problems);
    // A file that is skipped says only why: its other fields do not matter.
    let (Some(name), Some(description)) = (name, description) else {
        let warnings = problems.iter().map(|p| warning(path, p)).collect();
        return (None, warnings);
    };
    problems.extend(name_problems(name));
    let len = description.chars().count();
    if len > MAX_DESCRIPTION_LENGTH {
        problems.push(format!(
            "description exceeds {MAX_DESCRIPTION_LENGTH} characters ({len})"
        ));
    }
    let tools = tools(fm, &mut problems);
    let model = model(fm, &mut problems);
    let mode = mode(fm, &mut problems);
    let warnings = problems.iter().map(|p| warning(path, p)).collect();
    let agent = AgentDefinition {
        name: name.to_owned(),
        description: description.to_owned(),
        tools,
        model,
        mode,
        system_prompt: document.body.trim().to_owned(),
        source,
        path: path.to_path_buf(),
    };
    (Some(agent), warnings)
}

/// A required string field (trimmed), or a problem saying the file is skipped.
fn required<'f>(fm: &'f Frontmatter, key: &str, problems: &mut Vec<String>) -> Option<&'f str> {
    let value = fm.get_str(key).map(str::trim).filter(|v| !v.is_empty());
    if value.is_none() {
        problems.push(format!("not loaded: {key} is required"));
    }
    value
}

/// `tools`: a comma-separated string or a list of names, trimmed, empty entries dropped;
/// `None` when absent, empty or of another shape (which is a problem).
fn tools(fm: &Frontmatter, problems: &mut Vec<String>) -> Option<Vec<String>> {
    let entries = match fm.get("tools")? {
        FrontmatterValue::Null => return None,
        FrontmatterValue::String(text) => text.split(',').map(str::to_owned).collect(),
        FrontmatterValue::Nested(raw) => match string_list(raw) {
            Some(entries) => entries,
            None => {
                problems.push(TOOLS_SHAPE.to_owned());
                return None;
            }
        },
        FrontmatterValue::Bool(_) => {
            problems.push(TOOLS_SHAPE.to_owned());
            return None;
        }
    };
    let tools: Vec<String> = entries
        .iter()
        .map(|entry| entry.trim())
        .filter(|entry| !entry.is_empty())
        .map(str::to_owned)
        .collect();
    (!tools.is_empty()).then_some(tools)
}

const TOOLS_SHAPE: &str = "tools must be a comma-separated string or a list of tool names; ignored";

/// `model`: a string; anything else is a problem and ignored.
fn model(fm: &Frontmatter, problems: &mut Vec<String>) -> Option<String> {
    match fm.get("model")? {
        FrontmatterValue::Null => None,
        FrontmatterValue::String(text) => {
            Some(text.trim().to_owned()).filter(|model| !model.is_empty())
        }
        _ => {
            problems.push("model must be a string; ignored".to_owned());
            None
        }
    }
}

/// `mode`: one of the permission modes; anything else is a problem and ignored.
fn mode(fm: &Frontmatter, problems: &mut Vec<String>) -> Option<PermissionMode> {
    let value = fm.get("mode")?;
    if *value == FrontmatterValue::Null {
        return None;
    }
    let parsed = value
        .as_str()
        .and_then(|text| PermissionMode::parse(text.trim()));
    if parsed.is_none() {
        let names: Vec<&str> = PermissionMode::ALL.iter().map(|m| m.as_str()).collect();
        problems.push(format!("mode must be one of {}; ignored", names.join(", ")));
    }
    parsed
}

/// The items of a YAML list kept raw by the frontmatter parser: a flow list (`[read, "bash"]`)
/// or a block list (`- read` lines). `None` for anything else (a mapping, nested collections).
fn string_list(raw: &str) -> Option<Vec<String>> {
    let raw = raw.trim();
    if let Some(inner) = raw.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        return split_flow(inner)?.iter().map(|item| scalar(item)).collect();
    }
    raw.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let item = line.trim_start().strip_prefix('-')?;
            if !(item.is_empty() || item.starts_with([' ', '\t'])) {
                return None;
            }
            scalar(item)
        })
        .collect()
}

/// Splits a flow list's inside at the commas outside quotes; `None` when a quote is unclosed.
fn split_flow(inner: &str) -> Option<Vec<String>> {
    let mut items = Vec::new();
    let mut current = String::new();
    let mut quote = None;
    for c in inner.chars() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), _) if c == q => quote = None,
            (None, ',') => {
                items.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    if quote.is_some() {
        return None;
    }
    items.push(current);
    Some(items)
}

/// One list item as text: unquoted; `None` for a nested collection or a mapping.
fn scalar(item: &str) -> Option<String> {
    let item = item.trim();
    for q in ['"', '\''] {
        if item.len() >= 2 && item.starts_with(q) && item.ends_with(q) {
            return Some(item[1..item.len() - 1].to_owned());
        }
    }
    let nested = item.starts_with(['[', '{', '-']) || item.contains(": ") || item.ends_with(':');
    (!nested).then(|| item.to_owned())
}

#[cfg(test)]
#[path = "definitions_tests.rs"]
mod tests;
