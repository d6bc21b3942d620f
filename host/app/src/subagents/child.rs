//! One child run: its model, mode, tools and system prompt from its definition and the parent,
//! its own session file (header `parentSession`, as pi's forks record it), its events relayed
//! to the parent's stream wrapped as `subagent`, and its progress kept in the call's details.

use super::definitions::AgentDefinition;
use super::details::{ChildResult, ChildStatus, ChildUsage};
use super::runtime::{ChildTools, Progress, Subagents};
use crate::agent_session::{AgentSession, AgentSessionEvent, ChildSpec, EventSink, SessionEvent};
use crate::permissions::PermissionMode;
use pi_agent::{AgentEvent, AgentMessage};
use pi_ai::{StopReason, TextContent, UserBlock, UserContent, UserMessage};
use pi_session::session::SessionManager;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// What one child is asked to do.
pub(crate) struct ChildTask<'a> {
    pub definition: &'a AgentDefinition,
    pub task: String,
    pub cwd: PathBuf,
    pub tool_call_id: &'a str,
    /// Where its row is in the call's details.
    pub slot: usize,
}

/// The stricter of two modes: a child never has more freedom than its parent has now.
pub fn stricter(a: PermissionMode, b: PermissionMode) -> PermissionMode {
    let rank = |mode| match mode {
        PermissionMode::Auto => 0,
        PermissionMode::AskWrites => 1,
        PermissionMode::AskAll => 2,
        PermissionMode::Plan => 3,
    };
    if rank(a) >= rank(b) { a } else { b }
}

/// Runs one child to its end; never fails: what went wrong is in the result.
pub(crate) async fn run(
    kit: &Subagents,
    task: ChildTask<'_>,
    progress: &Arc<Progress>,
    cancel: &CancellationToken,
) -> ChildResult {
    let child = match start(kit, &task, progress) {
        Ok(child) => child,
        Err(message) => return progress.finish(task.slot, ChildStatus::Failed, Some(message)),
    };
    if cancel.is_cancelled() {
        let message = "Subagent was aborted before starting".to_owned();
        return progress.finish(task.slot, ChildStatus::Aborted, Some(message));
    }
    let prompt = vec![AgentMessage::from(UserMessage {
        content: UserContent::Blocks(vec![UserBlock::Text(TextContent {
            text: format!("Task: {}", task.task),
            text_signature: None,
        })]),
        timestamp: pi_ai::now_ms(),
    })];
    let limit = kit.timeout();
    let deadline = async {
        match limit {
            Some(limit) => tokio::time::sleep(limit).await,
            None => std::future::pending().await,
        }
    };
    let run = child.prompt_messages(prompt);
    tokio::pin!(run);
    // The parent's abort, or the deadline, aborts the child; its run then ends promptly and
    // its session file is left whole.
    let (ran, timed_out) = tokio::select! {
        ran = &mut run => (ran, false),
        () = cancel.cancelled() => { child.abort(); (run.await, false) }
        () = deadline => { child.abort(); (run.await, true) }
    };
    let (status, error) = match (timed_out, limit) {
        (true, Some(limit)) => (
            ChildStatus::Failed,
            Some(format!(
                "Subagent stopped after {} s (setting subagents.timeoutMs)",
                limit.as_secs_f64()
            )),
        ),
        _ => outcome(&child, ran, cancel),
    };
    progress.finish(task.slot, status, error)
}

/// How the child's run ended: from its last reply's stop reason, or the error that kept it
/// from running.
fn outcome(
    child: &AgentSession,
    ran: Result<(), crate::agent_session::AgentSessionError>,
    cancel: &CancellationToken,
) -> (ChildStatus, Option<String>) {
    if let Err(error) = ran {
        return (ChildStatus::Failed, Some(error.to_string()));
    }
    let last = child
        .messages()
        .iter()
        .rev()
        .find_map(|m| m.as_assistant().cloned());
    match last {
        _ if cancel.is_cancelled() => (
            ChildStatus::Aborted,
            Some("Subagent was aborted".to_owned()),
        ),
        Some(reply) if reply.stop_reason == StopReason::Aborted => (
            ChildStatus::Aborted,
            Some("Subagent was aborted".to_owned()),
        ),
        Some(reply) if reply.stop_reason == StopReason::Error => (
            ChildStatus::Failed,
            Some(
                reply
                    .error_message
                    .unwrap_or_else(|| "the model request failed".to_owned()),
            ),
        ),
        Some(_) => (ChildStatus::Completed, None),
        None => (
            ChildStatus::Failed,
            Some("the child ended without an answer".to_owned()),
        ),
    }
}

/// Builds the child session; `Err` says why it cannot run.
fn start(
    kit: &Subagents,
    task: &ChildTask<'_>,
    progress: &Arc<Progress>,
) -> Result<AgentSession, String> {
    let parent = kit.parent()?;
    let definition = task.definition;
    let (model, thinking) = match &definition.model {
        Some(reference) => {
            let scoped = parent.resolve_scoped(reference)?;
            let level = scoped.thinking.unwrap_or_else(|| parent.thinking_level());
            let level = pi_ai::clamp_thinking_level(&scoped.model, level);
            (scoped.model, level)
        }
        None => (parent.model(), parent.thinking_level()),
    };
    let mode = stricter(definition.requested_mode(), parent.permission_mode().get());
    let session = child_session(&parent, &task.cwd).as_subagent(&definition.name);
    let facts = ChildFacts {
        session_id: session.session_id().to_owned(),
        session_file: session.session_file().map(Path::to_path_buf),
    };
    let names = kit.tool_names(definition);
    let patterns = definition.tool_patterns();
    let tools = kit.child_tools(
        ChildTools {
            parent: &parent,
            names: &names,
            patterns: &patterns,
            cwd: &task.cwd,
            session_id: &facts.session_id,
            command_env: crate::tools::command_env(&session, &model, thinking),
            images: model.supports_images(),
        },
        mode,
    );
    let system_prompt = kit.child_prompt(definition, &names, &task.cwd, mode);
    progress.start(
        task.slot,
        &facts.session_id,
        &format!("{}/{}", model.provider, model.id),
        facts.session_file.as_deref(),
    );
    let sink = relay(kit, task, progress, &facts.session_id);
    let spec = ChildSpec {
        session,
        model,
        thinking,
        system_prompt,
        tools,
        mode,
    };
    Ok(parent.child(spec, sink))
}

/// What is known of a child once its session exists.
struct ChildFacts {
    session_id: String,
    session_file: Option<PathBuf>,
}

/// The child's session: a new file beside the parent's (pointing back at it), or kept in
/// memory when the parent's is.
fn child_session(parent: &AgentSession, cwd: &Path) -> SessionManager {
    let parent_file = parent.with_session(|s| s.session_file().map(Path::to_path_buf));
    match parent_file {
        Some(file) => {
            let dir = file.parent().unwrap_or(Path::new("."));
            let parent_path = std::fs::canonicalize(&file).unwrap_or(file.clone());
            SessionManager::create(cwd, dir)
                .with_parent_session(Some(parent_path.to_string_lossy().into_owned()))
        }
        None => SessionManager::in_memory(cwd),
    }
}

/// The child's event sink: keeps the call's details up to date and relays every event the
/// wire carries to the parent's stream, wrapped with the child's id.
fn relay(
    kit: &Subagents,
    task: &ChildTask<'_>,
    progress: &Arc<Progress>,
    child_id: &str,
) -> EventSink {
    let emit = kit.emitter();
    let progress = Arc::clone(progress);
    let slot = task.slot;
    let tool_call_id = task.tool_call_id.to_owned();
    let id = child_id.to_owned();
    let agent = task.definition.name.clone();
    Arc::new(move |_session, event| {
        observe(&progress, slot, event);
        if event.is_wire(true) {
            emit(&AgentSessionEvent::Session(SessionEvent::Subagent {
                tool_call_id: tool_call_id.clone(),
                id: id.clone(),
                agent: agent.clone(),
                event: Box::new(event.clone()),
            }));
        }
    })
}

/// What an event of the child changes in its row: the tool it runs, its usage, its answer.
fn observe(progress: &Progress, slot: usize, event: &AgentSessionEvent) {
    let AgentSessionEvent::Agent(event) = event else {
        return;
    };
    match event {
        AgentEvent::ToolExecutionStart { tool_name, .. } => {
            progress.update(slot, |row| row.current_tool = Some(tool_name.clone()));
        }
        AgentEvent::ToolExecutionEnd { .. } => {
            progress.update(slot, |row| row.current_tool = None);
        }
        AgentEvent::MessageEnd { message } => {
            if let Some(reply) = message.as_assistant() {
                let text = final_text(reply);
                progress.update(slot, |row| {
                    add_usage(&mut row.usage, &reply.usage);
                    if !text.is_empty() {
                        row.output = text;
                    }
                });
            }
        }
        _ => {}
    }
}

fn add_usage(sum: &mut ChildUsage, usage: &pi_ai::Usage) {
    sum.input += usage.input;
    sum.output += usage.output;
    sum.cache_read += usage.cache_read;
    sum.cache_write += usage.cache_write;
    sum.cost += usage.cost.total;
    sum.turns += 1;
}

/// The text of a reply (pi's example takes its first text block; all of them lose nothing).
fn final_text(reply: &pi_ai::AssistantMessage) -> String {
    reply
        .content
        .iter()
        .filter_map(|block| match block {
            pi_ai::AssistantBlock::Text(text) => Some(text.text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}
