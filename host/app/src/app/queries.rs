//! What a face can ask an [`App`] about the session: its state, statistics, the entry tree and
//! the slash commands on offer. Each answer is a typed value; the RPC face serialises it as
//! pi's response data, so the field order here is the wire order.

use super::{App, AppError, queue_mode_name};
use pi_ai::lock;
use pi_ai::{Message, Model};
use pi_session::messages::{AgentMessage, HostMessage};
use pi_session::session::{EntryKind, SessionEntry, SessionManager, SessionTree};
use serde::Serialize;
use std::path::PathBuf;

/// pi's `RpcSessionState`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AppState {
    pub model: Model,
    pub thinking_level: &'static str,
    pub is_streaming: bool,
    pub is_compacting: bool,
    pub steering_mode: &'static str,
    pub follow_up_mode: &'static str,
    pub session_file: Option<String>,
    pub session_id: String,
    pub session_name: Option<String>,
    pub auto_compaction_enabled: bool,
    pub message_count: usize,
    pub pending_message_count: usize,
    /// This pi: the permission mode (`auto`, `ask-writes`, `ask-all`, `plan`).
    pub permission_mode: &'static str,
}

/// pi's `SessionStats` of the current branch.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionStats {
    pub session_file: Option<PathBuf>,
    pub session_id: String,
    pub user_messages: u64,
    pub assistant_messages: u64,
    pub tool_calls: u64,
    pub tool_results: u64,
    pub total_messages: u64,
    pub tokens: TokenTotals,
    pub cost: f64,
    /// How full the model's context is (pi 1.6); absent when the model states no window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_usage: Option<ContextUsage>,
}

/// `contextUsage`: tokens and percent are `null` right after a compaction, until a reply
/// measured the compacted context.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextUsage {
    pub tokens: Option<u64>,
    pub context_window: u64,
    pub percent: Option<f64>,
}

/// Token totals of a branch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenTotals {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    pub total: u64,
}

/// One entry of the session tree with its children, oldest first (pi 1.6's `get_tree` node:
/// the entry as stored, its children, and its label when it has one).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TreeNode {
    #[serde(serialize_with = "serialize_entry")]
    pub entry: SessionEntry,
    pub children: Vec<TreeNode>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// When the label was set (ISO 8601, as the session file has it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label_timestamp: Option<String>,
}

/// An entry in its session-file form.
fn serialize_entry<S: serde::Serializer>(entry: &SessionEntry, s: S) -> Result<S::Ok, S::Error> {
    entry.to_json().serialize(s)
}

/// One entry of the session tree as a navigator lists it: depth-first, a branch's entries after
/// the entry they branch from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeRow {
    pub id: String,
    pub parent_id: Option<String>,
    /// How many branch points lie above it (an entry with one child does not indent it).
    pub depth: usize,
    pub kind: TreeRowKind,
    /// The first line of what it says.
    pub text: String,
    pub label: Option<String>,
    /// When the label was set (ISO 8601, as the session file has it).
    pub label_timestamp: Option<String>,
    /// On the path from the root to the current leaf.
    pub on_branch: bool,
    pub is_leaf: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TreeRowKind {
    User,
    Assistant,
    /// An assistant message that only calls tools.
    ToolCalls,
    ToolResult,
    /// Compaction, branch summary, model or thinking changes, custom entries.
    Other,
}

/// Where a slash command comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CommandSource {
    Prompt,
    Skill,
    /// A hook's command.
    Extension,
}

/// A slash command the user may type: a prompt template, `skill:<name>` or a hook's command.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Command {
    pub name: String,
    pub description: String,
    pub source: CommandSource,
    /// The template's or skill's file; none for a hook's command.
    #[serde(skip_serializing_if = "path_is_empty")]
    pub path: PathBuf,
}

fn path_is_empty(path: &std::path::Path) -> bool {
    path.as_os_str().is_empty()
}

impl App {
    /// pi's session state.
    pub fn state(&self) -> AppState {
        let (steering, follow_up) = self.queue_modes();
        let auto_compaction_enabled = self.session.with_settings(|s| s.compaction().enabled);
        let agent = self.session.agent();
        self.session.with_session(|session| AppState {
            model: self.model(),
            thinking_level: self.thinking_level().as_str(),
            is_streaming: self.is_streaming(),
            is_compacting: self.session.is_compacting(),
            steering_mode: queue_mode_name(steering),
            follow_up_mode: queue_mode_name(follow_up),
            session_file: session
                .session_file()
                .map(|p| p.to_string_lossy().into_owned()),
            session_id: session.session_id().to_owned(),
            session_name: session.session_name(),
            auto_compaction_enabled,
            message_count: agent.with_state(|s| s.messages.len()),
            pending_message_count: usize::from(agent.has_queued_messages()),
            permission_mode: self.permission_mode().as_str(),
        })
    }

    /// Message counts, tokens and cost of the current branch.
    pub fn session_stats(&self) -> SessionStats {
        let mut stats = self.session.with_session(session_stats);
        stats.context_usage = self.context_usage();
        stats
    }

    /// How full the current model's context is.
    pub fn context_usage(&self) -> Option<ContextUsage> {
        let context_window = self.model().context_window;
        if context_window == 0 {
            return None;
        }
        let tokens = self.session.context_tokens();
        Some(ContextUsage {
            tokens,
            context_window,
            percent: tokens.map(|t| t as f64 / context_window as f64 * 100.0),
        })
    }

    /// Entries after `since` (all when `None`), and the leaf; an unknown `since` is an error.
    pub fn entries_since(
        &self,
        since: Option<&str>,
    ) -> Result<(Vec<SessionEntry>, Option<String>), AppError> {
        self.session.with_session(|session| {
            let start = match since {
                Some(id) => {
                    session
                        .position(id)
                        .ok_or_else(|| AppError::EntryNotFound(id.to_owned()))?
                        + 1
                }
                None => 0,
            };
            let leaf = session.leaf_id().map(str::to_owned);
            let entries = session.entries_from(start).into_iter().cloned().collect();
            Ok((entries, leaf))
        })
    }

    /// The entry tree, roots first, and the leaf.
    pub fn tree(&self) -> (Vec<TreeNode>, Option<String>) {
        self.session.with_session(|session| {
            let tree = session.tree();
            let roots = tree
                .roots
                .iter()
                .filter_map(|id| tree_node(session, &tree, id))
                .collect();
            (roots, session.leaf_id().map(str::to_owned))
        })
    }

    /// `/tree`: every entry of the session as a navigator lists it.
    pub fn tree_rows(&self) -> Vec<TreeRow> {
        self.session.with_session(|session| {
            let tree = session.tree();
            let leaf = session.leaf_id().map(str::to_owned);
            let branch: std::collections::HashSet<String> = session
                .get_branch(None)
                .iter()
                .map(|e| e.id.clone())
                .collect();
            let mut rows = Vec::new();
            let mut stack: Vec<(String, usize)> =
                tree.roots.iter().rev().map(|id| (id.clone(), 0)).collect();
            while let Some((id, depth)) = stack.pop() {
                let Some(entry) = session.entry(&id) else {
                    continue;
                };
                let (kind, text) = row_text(&entry.kind);
                let label = tree.labels.get(&id);
                rows.push(TreeRow {
                    parent_id: entry.parent_id.clone(),
                    on_branch: branch.contains(&id),
                    is_leaf: leaf.as_deref() == Some(id.as_str()),
                    label: label.map(|l| l.label.clone()),
                    label_timestamp: label.map(|l| l.timestamp.clone()),
                    id: id.clone(),
                    depth,
                    kind,
                    text,
                });
                let children = tree.children_of(&id);
                let child_depth = if children.len() > 1 { depth + 1 } else { depth };
                stack.extend(children.iter().rev().map(|c| (c.clone(), child_depth)));
            }
            rows
        })
    }

    /// The slash commands of this session: hooks' commands, prompt templates, then skills.
    pub fn commands(&self) -> Vec<Command> {
        let mut commands: Vec<Command> = self
            .extension_commands()
            .into_iter()
            .map(|c| Command {
                name: c.info.name,
                description: c.info.description,
                source: CommandSource::Extension,
                path: PathBuf::new(),
            })
            .collect();
        // pi 1.6's built-in MCP extension registers `/mcp`.
        if self.mcp().is_some() {
            commands.push(Command {
                name: "mcp".to_owned(),
                description: crate::mcp::COMMAND_DESCRIPTION.to_owned(),
                source: CommandSource::Extension,
                path: PathBuf::new(),
            });
        }
        commands.extend(self.resource_commands());
        commands
    }

    /// Prompt templates, then skills.
    pub(super) fn resource_commands(&self) -> Vec<Command> {
        let templates = lock(&self.templates);
        let skills = lock(&self.skills);
        let templates = templates.templates.iter().map(|t| Command {
            name: t.name.clone(),
            description: t.description.clone(),
            source: CommandSource::Prompt,
            path: t.file_path.clone(),
        });
        let skills = skills.skills.iter().map(|s| Command {
            name: format!("skill:{}", s.name),
            description: s.description.clone(),
            source: CommandSource::Skill,
            path: s.file_path.clone(),
        });
        templates.chain(skills).collect()
    }

    /// User messages of the branch a fork can start from: `(entry id, text)`.
    pub fn fork_messages(&self) -> Vec<(String, String)> {
        self.session.with_session(|s| {
            s.get_branch(None)
                .iter()
                .filter_map(|e| match &e.kind {
                    EntryKind::Message(m) => Some((e.id.clone(), m.as_user()?.content.text())),
                    _ => None,
                })
                .collect()
        })
    }
}

/// What a navigator shows of an entry.
fn row_text(kind: &EntryKind) -> (TreeRowKind, String) {
    let first = |text: String| {
        text.lines()
            .next()
            .unwrap_or("")
            .chars()
            .take(120)
            .collect()
    };
    match kind {
        EntryKind::Message(AgentMessage::Llm(llm)) => model_row_text(llm, first),
        EntryKind::Message(AgentMessage::Host(host)) => match &**host {
            HostMessage::BashExecution(b) => (TreeRowKind::Other, format!("$ {}", b.command)),
            HostMessage::System(_) => (TreeRowKind::Other, "[system prompt]".to_owned()),
            other => (TreeRowKind::Other, format!("[{}]", other.role())),
        },
        EntryKind::Compaction(_) => (TreeRowKind::Other, "[compaction]".to_owned()),
        EntryKind::BranchSummary(b) => (
            TreeRowKind::Other,
            format!("[branch summary] {}", first(b.summary.clone())),
        ),
        EntryKind::ModelChange { provider, model_id } => {
            (TreeRowKind::Other, format!("[model] {provider}/{model_id}"))
        }
        EntryKind::ThinkingLevelChange { thinking_level } => {
            (TreeRowKind::Other, format!("[thinking] {thinking_level}"))
        }
        other => (TreeRowKind::Other, format!("[{}]", other.type_name())),
    }
}

/// The row of a model message: the user's text, the reply's text (else its tool calls, else
/// its error), the tool result's text.
fn model_row_text(message: &Message, first: impl Fn(String) -> String) -> (TreeRowKind, String) {
    match message {
        Message::User(u) => (TreeRowKind::User, first(u.content.text())),
        Message::Assistant(a) => {
            let text = a.text();
            let names: Vec<&str> = a.tool_calls().map(|c| c.name.as_str()).collect();
            if !text.trim().is_empty() {
                (TreeRowKind::Assistant, first(text))
            } else if !names.is_empty() {
                (
                    TreeRowKind::ToolCalls,
                    format!("calls {}", names.join(", ")),
                )
            } else if let Some(error) = &a.error_message {
                // A failed request (retried or not) says why, not an empty "calls".
                (
                    TreeRowKind::Assistant,
                    format!("[error] {}", first(error.clone())),
                )
            } else {
                (TreeRowKind::Assistant, "(empty)".to_owned())
            }
        }
        Message::ToolResult(r) => (
            TreeRowKind::ToolResult,
            format!("{}: {}", r.tool_name, first(r.text())),
        ),
    }
}

/// The node of entry `id` and its subtree; `None` for an id the file does not hold.
fn tree_node(session: &SessionManager, tree: &SessionTree, id: &str) -> Option<TreeNode> {
    let label = tree.labels.get(id);
    Some(TreeNode {
        entry: session.entry(id)?.clone(),
        children: tree
            .children_of(id)
            .iter()
            .filter_map(|c| tree_node(session, tree, c))
            .collect(),
        label: label.map(|l| l.label.clone()),
        label_timestamp: label.map(|l| l.timestamp.clone()),
    })
}

fn session_stats(session: &SessionManager) -> SessionStats {
    let (mut user, mut assistant, mut tool_calls, mut tool_results) = (0u64, 0u64, 0u64, 0u64);
    let mut tokens = TokenTotals::default();
    let mut cost = 0.0;
    // Users and tool results are counted from the index; only replies are parsed (for usage).
    for head in session.branch_heads() {
        match head.role {
            Some("user") => user += 1,
            Some("toolResult") => tool_results += 1,
            _ => {}
        }
    }
    let mut subagent_calls = std::collections::HashSet::new();
    session.for_each_on_branch(
        |head| head.assistant,
        |entry| {
            let Some(m) = entry.message().and_then(AgentMessage::as_assistant) else {
                return;
            };
            assistant += 1;
            tool_calls += m.tool_calls().count() as u64;
            subagent_calls.extend(
                m.tool_calls()
                    .filter(|call| call.name == crate::subagents::TOOL_NAME)
                    .map(|call| call.id.clone()),
            );
            tokens.input += m.usage.input;
            tokens.output += m.usage.output;
            tokens.cache_read += m.usage.cache_read;
            tokens.cache_write += m.usage.cache_write;
            cost += m.usage.cost.total;
        },
    );
    // What the children of `subagent` calls used counts too (their results' details); tool
    // results are read only when the branch has such a call.
    if !subagent_calls.is_empty() {
        session.for_each_on_branch(
            |head| head.role == Some("toolResult"),
            |entry| {
                let Some(pi_ai::Message::ToolResult(result)) =
                    entry.message().and_then(AgentMessage::as_llm)
                else {
                    return;
                };
                if !subagent_calls.contains(&result.tool_call_id) {
                    return;
                }
                let Some(details) = result
                    .details
                    .as_ref()
                    .and_then(crate::subagents::SubagentDetails::from_value)
                else {
                    return;
                };
                let used = details.total_usage();
                tokens.input += used.input;
                tokens.output += used.output;
                tokens.cache_read += used.cache_read;
                tokens.cache_write += used.cache_write;
                cost += used.cost;
            },
        );
    }
    tokens.total = tokens.input + tokens.output + tokens.cache_read + tokens.cache_write;
    SessionStats {
        session_file: session.session_file().map(std::path::Path::to_path_buf),
        session_id: session.session_id().to_owned(),
        user_messages: user,
        assistant_messages: assistant,
        tool_calls,
        tool_results,
        total_messages: user + assistant + tool_results,
        tokens,
        cost,
        context_usage: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assistant(text: &str, error: Option<&str>) -> EntryKind {
        let mut message = pi_ai::AssistantMessage::default();
        if !text.is_empty() {
            message
                .content
                .push(pi_ai::AssistantBlock::Text(pi_ai::TextContent {
                    text: text.into(),
                    text_signature: None,
                }));
        }
        message.error_message = error.map(str::to_owned);
        EntryKind::Message(AgentMessage::from(message))
    }

    #[test]
    fn an_assistant_row_shows_its_text_else_its_error() {
        assert_eq!(
            row_text(&assistant("Done.\nMore", None)),
            (TreeRowKind::Assistant, "Done.".to_owned())
        );
        assert_eq!(
            row_text(&assistant("", Some("connection refused\nat …"))),
            (
                TreeRowKind::Assistant,
                "[error] connection refused".to_owned()
            )
        );
        assert_eq!(
            row_text(&assistant("", None)),
            (TreeRowKind::Assistant, "(empty)".to_owned())
        );
    }
}
