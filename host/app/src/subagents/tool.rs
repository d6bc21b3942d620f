//! The built-in `subagent` tool, with the parameters of pi's `subagent` example: one child
//! (`agent` + `task`), children in parallel (`tasks`, at most [`MAX_TASKS`], run
//! `subagents.maxParallel` at a time), or a chain (`chain`, each step's `{previous}` replaced by
//! the step before's answer, stopping at the first failure). The result is the children's
//! answers, bounded; the details are a row per child.

use super::child::{self, ChildTask};
use super::definitions::{AgentDefinition, AgentDefinitions, AgentSource};
use super::details::{ChildResult, SubagentDetails, SubagentForm};
use super::runtime::{Progress, Subagents, to_value};
use futures::StreamExt;
use pi_agent::{AgentTool, BoxFuture, ToolError, ToolOutput, ToolUpdateFn};
use pi_builtin_tools::truncate::{DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, truncate_head};
use serde::Deserialize;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// The most tasks one parallel call may carry (pi's example's limit).
pub const MAX_TASKS: usize = 8;

/// The most of one child's answer a parallel result carries.
const PER_TASK_CAP: usize = 50 * 1024;

/// Room kept for the truncation notice.
const NOTICE_RESERVE: usize = 256;

/// The arguments (pi's example's schema).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Args {
    agent: Option<String>,
    task: Option<String>,
    #[serde(default)]
    tasks: Vec<TaskArg>,
    #[serde(default)]
    chain: Vec<TaskArg>,
    agent_scope: Option<String>,
    cwd: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
struct TaskArg {
    agent: String,
    task: String,
    cwd: Option<String>,
}

/// The `subagent` tool of a session.
pub struct SubagentTool {
    kit: Arc<Subagents>,
    parameters: pi_ai::Schema,
}

impl SubagentTool {
    pub(crate) fn new(kit: Arc<Subagents>) -> Self {
        SubagentTool {
            kit,
            parameters: pi_ai::Schema::from(parameters()),
        }
    }
}

fn parameters() -> Value {
    let item = |task: &str| {
        json!({
            "type": "object",
            "properties": {
                "agent": {"type": "string", "description": "Name of the agent to invoke"},
                "task": {"type": "string", "description": task},
                "cwd": {"type": "string", "description": "Working directory for the agent"}
            },
            "required": ["agent", "task"]
        })
    };
    json!({
        "type": "object",
        "properties": {
            "agent": {"type": "string", "description": "Name of the agent to invoke (for single mode)"},
            "task": {"type": "string", "description": "Task to delegate (for single mode)"},
            "tasks": {"type": "array", "items": item("Task to delegate to the agent"),
                "description": "Array of {agent, task} for parallel execution"},
            "chain": {"type": "array", "items": item("Task with optional {previous} placeholder for prior output"),
                "description": "Array of {agent, task} for sequential execution"},
            "agentScope": {"type": "string", "enum": ["user", "project", "both"],
                "description": "Which agent definitions to use. Default: \"both\" (project agents load only in trusted projects)."},
            "cwd": {"type": "string", "description": "Working directory for the agent (single mode)"}
        }
    })
}

const DESCRIPTION: &str = "Delegate tasks to specialized subagents with isolated context. \
Modes: single (agent + task), parallel (tasks array), chain (sequential with {previous} \
placeholder). Each subagent runs with its own tools, model and permission mode and returns its \
final answer.";

impl AgentTool for SubagentTool {
    fn name(&self) -> &str {
        super::TOOL_NAME
    }

    fn label(&self) -> &str {
        "Subagent"
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn parameters(&self) -> &pi_ai::Schema {
        &self.parameters
    }

    fn execute<'a>(
        &'a self,
        call_id: &'a str,
        args: Value,
        cancel: CancellationToken,
        on_update: ToolUpdateFn,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let args: Args = serde_json::from_value(args)
                .map_err(|e| ToolError::new(format!("Invalid parameters: {e}")))?;
            let call = Call {
                kit: &self.kit,
                call_id,
                agents: in_scope(self.kit.definitions(), args.agent_scope.as_deref()),
                cancel: &cancel,
            };
            call.run(args, on_update).await
        })
    }
}

/// The definitions a call may use (`agentScope`).
fn in_scope(mut agents: AgentDefinitions, scope: Option<&str>) -> AgentDefinitions {
    match scope {
        Some("user") => agents.agents.retain(|a| a.source != AgentSource::Project),
        Some("project") => agents.agents.retain(|a| a.source == AgentSource::Project),
        _ => {}
    }
    agents
}

/// One call of the tool.
struct Call<'a> {
    kit: &'a Subagents,
    call_id: &'a str,
    agents: AgentDefinitions,
    cancel: &'a CancellationToken,
}

impl Call<'_> {
    async fn run(&self, args: Args, on_update: ToolUpdateFn) -> Result<ToolOutput, ToolError> {
        let single = match (&args.agent, &args.task) {
            (Some(agent), Some(task)) => Some(TaskArg {
                agent: agent.clone(),
                task: task.clone(),
                cwd: args.cwd.clone(),
            }),
            _ => None,
        };
        let forms = [
            single.is_some(),
            !args.tasks.is_empty(),
            !args.chain.is_empty(),
        ];
        if forms.iter().filter(|f| **f).count() != 1 {
            return Err(ToolError::new(format!(
                "Invalid parameters. Provide exactly one mode.\nAvailable agents: {}",
                self.available()
            )));
        }
        if let Some(task) = single {
            let progress =
                self.progress(SubagentForm::Single, std::slice::from_ref(&task), on_update);
            let result = self.child(&task, task.task.clone(), 0, &progress).await;
            return single_result(result, progress.details(1));
        }
        if !args.tasks.is_empty() {
            if args.tasks.len() > MAX_TASKS {
                return Err(ToolError::new(format!(
                    "Too many parallel tasks ({}). Max is {MAX_TASKS}.",
                    args.tasks.len()
                )));
            }
            let progress = self.progress(SubagentForm::Parallel, &args.tasks, on_update);
            // Built first: a closure kept inside the stream makes the future not `Send`-general.
            let mut children = Vec::new();
            for (slot, task) in args.tasks.iter().enumerate() {
                children.push(self.child(task, task.task.clone(), slot, &progress));
            }
            let results: Vec<ChildResult> = futures::stream::iter(children)
                .buffered(self.kit.max_parallel())
                .collect()
                .await;
            return parallel_result(&results, progress.details(results.len()));
        }
        let progress = self.progress(SubagentForm::Chain, &args.chain, on_update);
        let mut previous = String::new();
        for (slot, step) in args.chain.iter().enumerate() {
            let task = step.task.replace("{previous}", &previous);
            let result = self.child(step, task, slot, &progress).await;
            if result.status.is_failure() {
                let text = format!(
                    "Chain stopped at step {} ({}): {}",
                    slot + 1,
                    step.agent,
                    failure_text(&result)
                );
                return Err(error(text, progress.details(slot + 1)));
            }
            previous = result.output;
        }
        let details = progress.details(args.chain.len());
        let last = details.results.last().map(|r| r.output.clone());
        Ok(output(last.unwrap_or_default(), details))
    }

    /// The pending rows of `tasks`, reported as they change.
    fn progress(
        &self,
        form: SubagentForm,
        tasks: &[TaskArg],
        update: ToolUpdateFn,
    ) -> Arc<Progress> {
        let chain = form == SubagentForm::Chain;
        let rows = tasks
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let step = chain.then(|| u32::try_from(i + 1).unwrap_or(u32::MAX));
                Progress::row(&t.agent, self.agents.find(&t.agent), &t.task, step)
            })
            .collect();
        Progress::new(form, rows, update)
    }

    /// Runs one child of the call (an unknown agent or directory fails its row only).
    async fn child(
        &self,
        arg: &TaskArg,
        task: String,
        slot: usize,
        progress: &Arc<Progress>,
    ) -> ChildResult {
        use super::details::ChildStatus;
        let Some(definition) = self.agents.find(&arg.agent) else {
            let message = format!(
                "Unknown agent: \"{}\". Available agents: {}.",
                arg.agent,
                self.quoted_names()
            );
            return progress.finish(slot, ChildStatus::Failed, Some(message));
        };
        let cwd = match self.cwd(arg.cwd.as_deref()) {
            Ok(cwd) => cwd,
            Err(message) => return progress.finish(slot, ChildStatus::Failed, Some(message)),
        };
        let task = ChildTask {
            definition,
            task,
            cwd,
            tool_call_id: self.call_id,
            slot,
        };
        child::run(self.kit, task, progress, self.cancel).await
    }

    /// A task's working directory: the parent's, or `cwd` read against it.
    fn cwd(&self, cwd: Option<&str>) -> Result<PathBuf, String> {
        let base = self.kit.cwd();
        let Some(cwd) = cwd.map(str::trim).filter(|c| !c.is_empty()) else {
            return Ok(base);
        };
        let dir = base.join(pi_session::paths::expand_tilde(cwd));
        if dir.is_dir() {
            Ok(dir)
        } else {
            Err(format!("cwd {} is not a directory", dir.display()))
        }
    }

    /// `name (source)` of each agent, or `none`.
    fn available(&self) -> String {
        let names: Vec<String> = self
            .agents
            .agents
            .iter()
            .map(|a: &AgentDefinition| format!("{} ({})", a.name, a.source))
            .collect();
        if names.is_empty() {
            "none".to_owned()
        } else {
            names.join(", ")
        }
    }

    fn quoted_names(&self) -> String {
        let names: Vec<String> = self
            .agents
            .agents
            .iter()
            .map(|a| format!("\"{}\"", a.name))
            .collect();
        if names.is_empty() {
            "none".to_owned()
        } else {
            names.join(", ")
        }
    }
}

fn single_result(result: ChildResult, details: SubagentDetails) -> Result<ToolOutput, ToolError> {
    if result.status.is_failure() {
        let status = format!("{:?}", result.status).to_lowercase();
        return Err(error(
            format!("Agent {status}: {}", failure_text(&result)),
            details,
        ));
    }
    Ok(output(result.output, details))
}

fn parallel_result(
    results: &[ChildResult],
    details: SubagentDetails,
) -> Result<ToolOutput, ToolError> {
    let succeeded = results.iter().filter(|r| !r.status.is_failure()).count();
    let sections: Vec<String> = results
        .iter()
        .map(|r| {
            let status = format!("{:?}", r.status).to_lowercase();
            let text = if r.status.is_failure() {
                failure_text(r)
            } else {
                answer(&r.output)
            };
            format!("### [{}] {status}\n\n{}", r.agent, cap(&text, PER_TASK_CAP))
        })
        .collect();
    let text = format!(
        "Parallel: {succeeded}/{} succeeded\n\n{}",
        results.len(),
        sections.join("\n\n---\n\n")
    );
    if details.is_error {
        Err(error(text, details))
    } else {
        Ok(ToolOutput::text(text).with_details(to_value(&details)))
    }
}

/// What a failed child leaves: its error and whatever it said last.
fn failure_text(result: &ChildResult) -> String {
    let mut parts = Vec::new();
    if let Some(error) = result
        .error_message
        .as_deref()
        .filter(|e| !e.trim().is_empty())
    {
        parts.push(format!("Error: {}", error.trim()));
    }
    if !result.output.trim().is_empty() {
        parts.push(format!("Assistant output: {}", result.output.trim()));
    }
    if parts.is_empty() {
        "(no output)".to_owned()
    } else {
        parts.join("\n\n")
    }
}

fn answer(text: &str) -> String {
    if text.is_empty() {
        "(no output)".to_owned()
    } else {
        text.to_owned()
    }
}

fn output(text: String, details: SubagentDetails) -> ToolOutput {
    ToolOutput::text(bounded(&answer(&text))).with_details(to_value(&details))
}

fn error(text: String, details: SubagentDetails) -> ToolError {
    ToolError::new(bounded(&text)).with_details(to_value(&details))
}

/// The model's copy of an answer, within the tools' output limits (the full answer stays in
/// the child's session file).
fn bounded(text: &str) -> String {
    if !truncate_head(text, DEFAULT_MAX_LINES, DEFAULT_MAX_BYTES).truncated {
        return text.to_owned();
    }
    let kept = truncate_head(
        text,
        DEFAULT_MAX_LINES - 2,
        DEFAULT_MAX_BYTES - NOTICE_RESERVE,
    );
    let omitted = text.len() - kept.output_bytes;
    let notice = format!(
        "[Output truncated: {omitted} bytes omitted. The full answer is in the subagent's session.]"
    );
    if kept.content.is_empty() {
        notice
    } else {
        format!("{}\n\n{notice}", kept.content)
    }
}

/// At most `max` bytes of `text`, cut at a character boundary, with a note of what was cut.
fn cap(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}\n\n[Output truncated: {} bytes omitted.]",
        &text[..end],
        text.len() - end
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_cut_at_character_boundaries_and_say_what_was_cut() {
        let text = "é".repeat(10);
        let cut = cap(&text, 5);
        assert!(
            cut.starts_with("éé\n\n[Output truncated: 16 bytes omitted.]"),
            "{cut}"
        );
        assert_eq!(cap("short", 50), "short");
        let long = "line\n".repeat(DEFAULT_MAX_LINES + 10);
        let kept = bounded(&long);
        assert!(kept.lines().count() < DEFAULT_MAX_LINES + 2);
        assert!(
            kept.ends_with("The full answer is in the subagent's session.]"),
            "{kept}"
        );
        assert_eq!(bounded("fits"), "fits");
    }

    #[test]
    fn the_scope_narrows_the_definitions_a_call_may_use() {
        let agent = |name: &str, source| AgentDefinition {
            name: name.into(),
            description: String::new(),
            tools: None,
            model: None,
            mode: None,
            system_prompt: String::new(),
            source,
            path: PathBuf::new(),
        };
        let all = AgentDefinitions {
            agents: vec![
                agent("u", AgentSource::User),
                agent("p", AgentSource::Project),
                agent("k", AgentSource::Package("pkg".into())),
            ],
            warnings: Vec::new(),
        };
        let names = |scope| -> Vec<String> {
            in_scope(all.clone(), scope)
                .agents
                .into_iter()
                .map(|a| a.name)
                .collect()
        };
        assert_eq!(names(None), ["u", "p", "k"]);
        assert_eq!(names(Some("both")), ["u", "p", "k"]);
        assert_eq!(names(Some("user")), ["u", "k"]);
        assert_eq!(names(Some("project")), ["p"]);
    }
}
