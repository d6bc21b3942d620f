//! What children are started from, shared by the `subagent` tool: the parent session (held
//! weakly: the tool lives in the parent), the sources the parent's tools and prompt are built
//! from, the extension host, the definitions and the parent's event stream; and [`Progress`],
//! the rows of one call that the tool reports as its `details`.

use super::definitions::{AgentDefinition, AgentDefinitions};
use super::details::{ChildResult, ChildStatus, SubagentDetails, SubagentForm};
use crate::agent_session::{AgentSession, AgentSessionEvent, WeakAgentSession};
use crate::permissions::PermissionMode;
use crate::tools::{RunSources, SessionFacts};
use pi_agent::{AgentTool, ToolOutput, ToolUpdateFn};
use pi_ai::lock;
use pi_session::system_prompt::PromptSection;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Where the parent's events go (the App's one listener list).
pub(crate) type Emit = Arc<dyn Fn(&AgentSessionEvent) + Send + Sync>;

/// What the children of a session are built from.
pub struct Subagents {
    parent: WeakAgentSession,
    sources: Arc<Mutex<RunSources>>,
    host: Option<pi_ext_host::ExtensionHost>,
    agents: Arc<Mutex<AgentDefinitions>>,
    emit: Emit,
}

impl Subagents {
    pub(crate) fn new(
        parent: WeakAgentSession,
        sources: Arc<Mutex<RunSources>>,
        host: Option<pi_ext_host::ExtensionHost>,
        agents: Arc<Mutex<AgentDefinitions>>,
        emit: Emit,
    ) -> Self {
        Subagents {
            parent,
            sources,
            host,
            agents,
            emit,
        }
    }

    pub(crate) fn parent(&self) -> Result<AgentSession, String> {
        self.parent
            .upgrade()
            .ok_or_else(|| "the session that started this subagent has ended".to_owned())
    }

    pub(crate) fn emitter(&self) -> Emit {
        Arc::clone(&self.emit)
    }

    pub(crate) fn definitions(&self) -> AgentDefinitions {
        lock(&self.agents).clone()
    }

    /// `subagents.timeoutMs` of the parent's settings.
    pub(crate) fn timeout(&self) -> Option<Duration> {
        self.parent
            .upgrade()
            .and_then(|p| p.with_settings(|s| s.subagents_timeout()))
    }

    /// `subagents.maxParallel` of the parent's settings.
    pub(crate) fn max_parallel(&self) -> usize {
        self.parent
            .upgrade()
            .map_or(4, |p| p.with_settings(|s| s.subagents_max_parallel()))
    }

    /// The parent's working directory.
    pub(crate) fn cwd(&self) -> PathBuf {
        self.parent
            .upgrade()
            .map(|p| p.with_session(|s| PathBuf::from(s.cwd())))
            .unwrap_or_default()
    }

    /// The built-in and extension tools `definition` names (its patterns matched against
    /// them), in order; the read-only built-ins when it names none. Never `subagent`.
    pub(crate) fn tool_names(&self, definition: &AgentDefinition) -> Vec<String> {
        let mut candidates: Vec<String> = pi_builtins::TOOL_NAMES
            .iter()
            .map(|n| (*n).to_owned())
            .collect();
        if let Some(source) = &lock(&self.sources).tools {
            candidates.extend(source.extension_tool_names().map(str::to_owned));
        }
        let mut names: Vec<String> = Vec::new();
        for pattern in definition.tool_patterns() {
            for name in candidates
                .iter()
                .filter(|c| pi_mcp::glob_matches(&pattern, c))
            {
                if !names.contains(name) && name != super::TOOL_NAME {
                    names.push(name.clone());
                }
            }
        }
        names
    }

    /// The child's tools: `names` built like the parent's (its path policy and sandbox, under
    /// `mode`), and the parent's MCP tools the definition's patterns match.
    pub(crate) fn child_tools(
        &self,
        child: ChildTools<'_>,
        mode: PermissionMode,
    ) -> Vec<Arc<dyn AgentTool>> {
        let mut tools = Vec::new();
        let source = lock(&self.sources).tools.clone();
        if let (Some(source), Some(host)) = (source, &self.host) {
            let model_images = Arc::new(std::sync::atomic::AtomicBool::new(child.images));
            let facts = SessionFacts {
                session_id: child.session_id,
                command_env: child.command_env,
                model_images: &model_images,
            };
            tools.extend(
                source
                    .with_names(child.names.to_vec(), child.cwd)
                    .tools(host, facts, mode),
            );
        }
        if let Some(mcp) = child.parent.mcp() {
            let wanted = child.patterns;
            tools.extend(mcp.matching(
                &|name| wanted.iter().any(|p| pi_mcp::glob_matches(p, name)),
                mode == PermissionMode::Plan,
            ));
        }
        tools
    }

    /// The child's system prompt: the parent's, built for the child's tools, directory and
    /// mode, with the definition's body appended (pi's `--append-system-prompt`).
    pub(crate) fn child_prompt(
        &self,
        definition: &AgentDefinition,
        names: &[String],
        cwd: &Path,
        mode: PermissionMode,
    ) -> Vec<PromptSection> {
        let sources = lock(&self.sources);
        let body = definition.system_prompt.trim();
        let Some((options, prompt_sources)) = &sources.prompt else {
            return vec![PromptSection::tagged("agent", body)];
        };
        let mut options = options.clone();
        options.cwd = cwd.to_path_buf();
        options.tools = names
            .iter()
            .filter_map(|name| sources.tools.as_ref()?.description(name))
            .collect();
        let mut prompt_sources = prompt_sources.clone();
        if !body.is_empty() {
            prompt_sources.append = Some(body.to_owned());
        }
        crate::permissions::plan::prompt_sections(&options, &prompt_sources, mode)
    }
}

/// What a child's tools are built for.
pub(crate) struct ChildTools<'a> {
    pub parent: &'a AgentSession,
    pub names: &'a [String],
    pub patterns: &'a [String],
    pub cwd: &'a Path,
    pub session_id: &'a str,
    pub command_env: Vec<(String, String)>,
    pub images: bool,
}

/// The rows of one `subagent` call, reported through the tool's updates as they change.
pub(crate) struct Progress {
    details: Mutex<SubagentDetails>,
    on_update: ToolUpdateFn,
}

impl Progress {
    /// One pending row per task.
    pub(crate) fn new(
        form: SubagentForm,
        rows: Vec<ChildResult>,
        on_update: ToolUpdateFn,
    ) -> Arc<Self> {
        Arc::new(Progress {
            details: Mutex::new(SubagentDetails {
                mode: form,
                results: rows,
                is_error: false,
            }),
            on_update,
        })
    }

    /// The row of a task whose agent is `definition` (`None`: no such agent).
    pub(crate) fn row(
        agent: &str,
        definition: Option<&AgentDefinition>,
        task: &str,
        step: Option<u32>,
    ) -> ChildResult {
        ChildResult {
            agent: agent.to_owned(),
            agent_source: definition.map_or_else(|| "unknown".to_owned(), |d| d.source.to_string()),
            task: task.to_owned(),
            step,
            ..ChildResult::default()
        }
    }

    pub(crate) fn start(&self, slot: usize, id: &str, model: &str, file: Option<&Path>) {
        self.update(slot, |row| {
            row.id = id.to_owned();
            row.status = ChildStatus::Running;
            row.model = Some(model.to_owned());
            row.session_file = file.map(|f| f.to_string_lossy().into_owned());
        });
    }

    /// Changes one row and reports the call's details.
    pub(crate) fn update(&self, slot: usize, change: impl FnOnce(&mut ChildResult)) {
        let snapshot = {
            let mut details = lock(&self.details);
            let Some(row) = details.results.get_mut(slot) else {
                return;
            };
            change(row);
            details.is_error = details.results.iter().any(|r| r.status.is_failure());
            details.clone()
        };
        (self.on_update)(ToolOutput::text(summary(&snapshot)).with_details(to_value(&snapshot)));
    }

    /// Ends one row; returns it.
    pub(crate) fn finish(
        &self,
        slot: usize,
        status: ChildStatus,
        error: Option<String>,
    ) -> ChildResult {
        self.update(slot, |row| {
            row.status = status;
            row.current_tool = None;
            row.error_message = error;
        });
        lock(&self.details)
            .results
            .get(slot)
            .cloned()
            .unwrap_or_default()
    }

    /// The details as they are now, with only the first `rows` rows (a chain that stopped).
    pub(crate) fn details(&self, rows: usize) -> SubagentDetails {
        let mut details = lock(&self.details).clone();
        details.results.truncate(rows);
        details.is_error = details.results.iter().any(|r| r.status.is_failure());
        details
    }
}

/// What an update says to a reader of the raw result (pi's example's progress text).
fn summary(details: &SubagentDetails) -> String {
    let count = |status| {
        details
            .results
            .iter()
            .filter(|r| r.status == status)
            .count()
    };
    match details.mode {
        SubagentForm::Parallel => {
            let (running, pending) = (count(ChildStatus::Running), count(ChildStatus::Pending));
            let done = details.results.len() - running - pending;
            format!(
                "Parallel: {done}/{} done, {running} running, {pending} pending...",
                details.results.len()
            )
        }
        _ => details
            .results
            .iter()
            .rev()
            .find(|r| r.status != ChildStatus::Pending)
            .map(|r| r.output.clone())
            .filter(|o| !o.is_empty())
            .unwrap_or_else(|| "(running...)".to_owned()),
    }
}

pub(crate) fn to_value(details: &SubagentDetails) -> serde_json::Value {
    serde_json::to_value(details).unwrap_or_default()
}
