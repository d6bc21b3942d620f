//! The conversation as the UI shows it, built from the App's typed events: user prompts,
//! assistant answers (streaming until `message_end`), tool calls with their results, and
//! notices (retries, compaction, errors). Pure state: drawing lives in `view`.

use pi_agent::{AgentEvent, AgentMessage, HostMessage, ToolOutput};
use pi_ai::{AssistantBlock, AssistantMessage, Message, StopReason, UserBlock, UserContent};
use pi_app::AppEvent;
use pi_app::SessionEvent;
use serde_json::Value;
use std::borrow::Cow;
use std::sync::Arc;

pub mod children;

/// One thing in the transcript.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    User(String),
    /// An answer; `streaming` until its `message_end`.
    Assistant {
        message: Arc<AssistantMessage>,
        streaming: bool,
    },
    Tool(ToolCall),
    /// A user shell command (`!cmd`, `!!cmd`): its output streams in until it is `done`.
    Bash(BashRun),
    /// A message an extension added (role `custom`): drawn by a renderer component when one
    /// draws its type, else as its text.
    Custom {
        custom_type: String,
        text: String,
        /// The extension's data (`details`), what a renderer is given.
        details: Value,
    },
    /// Something the session did or reports: retries, compaction, errors.
    Notice {
        text: String,
        error: bool,
    },
    /// An extension's information notice, dimmed (pi's status line in the chat).
    Status(String),
}

/// A tool call and, once it ran, its result.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub args: Value,
    /// The partial result while it runs, then the final one.
    pub output: Option<Output>,
    pub is_error: bool,
    pub done: bool,
}

/// A tool call's result: as the run reports it, or the result message of a continued session
/// (shared with the agent's history, not copied: a long session's tool output is most of it).
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    Live(ToolOutput),
    Stored(Arc<Message>),
}

impl Output {
    pub fn content(&self) -> &[UserBlock] {
        match self {
            Output::Live(output) => &output.content,
            Output::Stored(message) => match &**message {
                Message::ToolResult(result) => &result.content,
                _ => &[],
            },
        }
    }

    /// The tool's `details` (null when it gave none).
    pub fn details(&self) -> &Value {
        static NONE: Value = Value::Null;
        match self {
            Output::Live(output) => &output.details,
            Output::Stored(message) => match &**message {
                Message::ToolResult(result) => result.details.as_ref().unwrap_or(&NONE),
                _ => &NONE,
            },
        }
    }
}

impl ToolCall {
    /// The output's blocks as text, joined; an image shows as a placeholder naming it. A
    /// single text block (what most tools return) is borrowed, not copied.
    pub fn output_text(&self) -> Cow<'_, str> {
        let Some(output) = &self.output else {
            return Cow::Borrowed("");
        };
        if let [UserBlock::Text(only)] = output.content() {
            return Cow::Borrowed(&only.text);
        }
        let parts: Vec<String> = output
            .content()
            .iter()
            .map(|b| match b {
                UserBlock::Text(t) => t.text.clone(),
                UserBlock::Image(image) => format!(
                    "[image: {}, {} KB]",
                    image.mime_type,
                    (image.data.len() * 3 / 4).div_ceil(1024)
                ),
            })
            .collect();
        Cow::Owned(parts.join("\n"))
    }
}

/// A user shell command and what it printed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BashRun {
    pub command: String,
    pub output: String,
    pub exit_code: Option<i64>,
    pub cancelled: bool,
    /// `!!cmd`: kept out of the model's context.
    pub excluded: bool,
    pub done: bool,
}

/// The transcript and the run's progress.
#[derive(Debug, Default)]
pub struct Transcript {
    items: Vec<Item>,
    /// One number per item, new whenever the item changes (never reused), so the view can keep
    /// each item's drawn lines until it changes.
    revisions: Vec<u64>,
    next_revision: u64,
    /// From `agent_start` to `agent_settled`.
    pub working: bool,
    /// While a retry waits: when it is sent, and its attempt of how many.
    pub retry: Option<(std::time::Instant, u32, u32)>,
    /// The queued steering and follow-up messages.
    pub steering: Vec<String>,
    pub follow_up: Vec<String>,
    /// Token use of the last answer, for the footer.
    pub last_usage: Option<pi_ai::Usage>,
    /// What the finished subagents' children cost together, for the footer.
    pub children_usage: pi_app::subagents::ChildUsage,
    /// The subagents' children's own transcripts.
    pub children: children::ChildLogs,
}

impl Transcript {
    /// The transcript of an existing conversation (a continued session).
    pub fn from_messages(messages: &[AgentMessage]) -> Self {
        let mut transcript = Transcript::default();
        for message in messages {
            transcript.push_message(message, false);
        }
        transcript
    }

    pub fn items(&self) -> &[Item] {
        &self.items
    }

    /// How many items from the start are finished (no answer streaming, no tool running among
    /// them): those will not change any more.
    pub fn settled(&self) -> usize {
        let open = |item: &Item| match item {
            Item::Assistant { streaming, .. } => *streaming,
            Item::Tool(call) => !call.done,
            Item::Bash(run) => !run.done,
            Item::User(_) | Item::Custom { .. } | Item::Notice { .. } | Item::Status(_) => false,
        };
        self.items.iter().position(open).unwrap_or(self.items.len())
    }

    /// The revision of item `index`: equal revisions mean an unchanged item.
    pub fn revision(&self, index: usize) -> u64 {
        self.revisions.get(index).copied().unwrap_or(u64::MAX)
    }

    fn new_revision(&mut self) -> u64 {
        self.next_revision += 1;
        self.next_revision
    }

    pub fn push(&mut self, item: Item) {
        let revision = self.new_revision();
        self.items.push(item);
        self.revisions.push(revision);
    }

    /// Puts `items` before everything else (the start-up header).
    pub fn prepend(&mut self, items: Vec<Item>) {
        let revisions: Vec<u64> = items.iter().map(|_| self.new_revision()).collect();
        self.items.splice(0..0, items);
        self.revisions.splice(0..0, revisions);
    }

    fn pop(&mut self) {
        self.items.pop();
        self.revisions.pop();
    }

    /// Marks item `index` as changed.
    fn touch(&mut self, index: usize) {
        let revision = self.new_revision();
        if let Some(slot) = self.revisions.get_mut(index) {
            *slot = revision;
        }
    }

    fn push_message(&mut self, message: &AgentMessage, streaming: bool) {
        let llm = match message {
            AgentMessage::Llm(llm) => Some(llm),
            AgentMessage::Host(_) => None,
        };
        match llm.map(|m| (m, &**m)) {
            Some((_, Message::User(user))) => self.push(Item::User(user.content.text())),
            Some((_, Message::Assistant(assistant))) => {
                self.last_usage = Some(assistant.usage);
                self.push(Item::Assistant {
                    message: Arc::new((**assistant).clone()),
                    streaming,
                });
                self.push_failure(assistant);
            }
            Some((shared, Message::ToolResult(result))) => {
                self.add_children_usage(result);
                let output = Output::Stored(shared.clone());
                // Live, the call is on screen since its execution started: the result
                // message only confirms it.
                if let Some(call) = self.tool(&result.tool_call_id) {
                    call.output = Some(output);
                    call.is_error = result.is_error;
                    call.done = true;
                    return;
                }
                let args = self.call_arguments(&result.tool_call_id);
                self.push(Item::Tool(ToolCall {
                    id: result.tool_call_id.clone(),
                    name: result.tool_name.clone(),
                    args,
                    output: Some(output),
                    is_error: result.is_error,
                    done: true,
                }));
            }
            None => self.push_host_message(message),
        }
    }

    /// The arguments the model gave call `id` (a continued session has the answer that asked
    /// for it just before the result).
    fn call_arguments(&self, id: &str) -> Value {
        self.items
            .iter()
            .rev()
            .find_map(|item| match item {
                Item::Assistant { message, .. } => message.content.iter().find_map(|b| match b {
                    AssistantBlock::ToolCall(call) if call.id == id => Some(call.arguments.clone()),
                    _ => None,
                }),
                _ => None,
            })
            .unwrap_or(Value::Null)
    }

    /// A shell command starts running.
    pub fn start_bash(&mut self, command: String, excluded: bool) {
        self.push(Item::Bash(BashRun {
            command,
            excluded,
            ..BashRun::default()
        }));
    }

    /// The running shell command, marked as changed.
    fn running_bash(&mut self) -> Option<&mut BashRun> {
        let index = self
            .items
            .iter()
            .rposition(|item| matches!(item, Item::Bash(run) if !run.done))?;
        self.touch(index);
        match &mut self.items[index] {
            Item::Bash(run) => Some(run),
            _ => None,
        }
    }

    /// Whether a shell command is running.
    pub fn bash_running(&self) -> bool {
        self.items
            .iter()
            .any(|item| matches!(item, Item::Bash(run) if !run.done))
    }

    /// The shell command ended: with its output, or (`None`) with an error said elsewhere.
    pub fn finish_bash(&mut self, outcome: Option<pi_app::BashOutcome>) {
        if let Some(run) = self.running_bash() {
            run.done = true;
            if let Some(outcome) = outcome {
                run.output = outcome.output;
                run.exit_code = outcome.exit_code;
                run.cancelled = outcome.cancelled;
            }
        }
    }

    /// Messages of roles the model does not see that still belong on screen: `!` commands and
    /// extension messages meant to be displayed. (The recorded system prompt is never a chat
    /// message, as in pi 1.6; summaries have their own events.)
    fn push_host_message(&mut self, message: &AgentMessage) {
        match message.as_host() {
            Some(HostMessage::BashExecution(bash)) => self.push(Item::Bash(BashRun {
                command: bash.command.clone(),
                output: bash.output.clone(),
                exit_code: bash.exit_code,
                cancelled: bash.cancelled,
                excluded: bash.exclude_from_context == Some(true),
                done: true,
            })),
            Some(HostMessage::Custom(custom)) if custom.display => {
                let text = match &custom.content {
                    UserContent::Text(text) => text.clone(),
                    UserContent::Blocks(blocks) => blocks
                        .iter()
                        .filter_map(|b| match b {
                            UserBlock::Text(t) => Some(t.text.as_str()),
                            UserBlock::Image(_) => None,
                        })
                        .collect::<Vec<_>>()
                        .join("\n"),
                };
                self.push(Item::Custom {
                    custom_type: custom.custom_type.clone(),
                    text,
                    details: custom.details.clone().unwrap_or(Value::Null),
                });
            }
            _ => {}
        }
    }

    fn push_failure(&mut self, assistant: &AssistantMessage) {
        match assistant.stop_reason {
            StopReason::Error => self.notice(
                assistant
                    .error_message
                    .clone()
                    .unwrap_or_else(|| "The request failed".to_owned()),
                true,
            ),
            StopReason::Aborted => self.notice("Aborted".to_owned(), true),
            _ => {}
        }
    }

    /// A finished `subagent` result's children count in the session's totals.
    fn add_children_usage(&mut self, result: &pi_ai::ToolResultMessage) {
        let details = result
            .details
            .as_ref()
            .filter(|_| result.tool_name == children::TOOL)
            .and_then(pi_app::subagents::SubagentDetails::from_value);
        if let Some(details) = details {
            self.children_usage += details.total_usage();
        }
    }

    /// Reads the session files of the subagents' children not seen live (Ctrl+O on a resumed
    /// session), marking their blocks changed.
    pub fn load_children(&mut self) {
        for index in 0..self.items.len() {
            let Some(details) = children::details_of(&self.items[index]) else {
                continue;
            };
            if self.children.load(&details) {
                self.touch(index);
            }
        }
    }

    pub fn notice(&mut self, text: String, error: bool) {
        self.push(Item::Notice { text, error });
    }

    /// An extension's `notify`, as pi shows it: information dimmed, a warning as `Warning: …`,
    /// an error as `Error: …`. (pi replaces a status line that directly follows another; here
    /// each stays, since the regular layout may have printed the last one to the scrollback.)
    pub fn extension_notice(&mut self, message: &str, level: pi_app::hooks::NotifyType) {
        use pi_app::hooks::NotifyType;
        let text = pi_ai::terminal_text::terminal_safe(message, pi_ai::terminal_text::Keep::Lines);
        match level {
            NotifyType::Info => self.push(Item::Status(text.into_owned())),
            NotifyType::Warning => self.notice(format!("Warning: {text}"), false),
            NotifyType::Error => self.notice(format!("Error: {text}"), true),
        }
    }

    /// The answer being streamed, marked as changed (the caller is about to change it).
    fn streaming_answer(&mut self) -> Option<&mut Arc<AssistantMessage>> {
        let last = self.items.len().checked_sub(1)?;
        if !matches!(
            self.items[last],
            Item::Assistant {
                streaming: true,
                ..
            }
        ) {
            return None;
        }
        self.touch(last);
        match &mut self.items[last] {
            Item::Assistant { message, .. } => Some(message),
            _ => None,
        }
    }

    /// The tool call `id`, marked as changed (the caller is about to change it). A call comes
    /// after the answer that asked for it, so the search stops at the latest answer: resuming
    /// a session asks for each stored result's call before there is one.
    fn tool(&mut self, id: &str) -> Option<&mut ToolCall> {
        let since_answer = self
            .items
            .iter()
            .rposition(|item| matches!(item, Item::Assistant { .. }))
            .map_or(0, |answer| answer + 1);
        let index = since_answer
            + self.items[since_answer..]
                .iter()
                .rposition(|item| matches!(item, Item::Tool(call) if call.id == id))?;
        self.touch(index);
        match &mut self.items[index] {
            Item::Tool(call) => Some(call),
            _ => None,
        }
    }

    /// Takes one event into the transcript.
    pub fn apply(&mut self, event: &AppEvent) {
        match event {
            AppEvent::Agent(event) => self.apply_agent(event),
            AppEvent::Session(event) => self.apply_session(event),
        }
    }

    fn apply_agent(&mut self, event: &AgentEvent) {
        match event {
            AgentEvent::AgentStart => self.working = true,
            AgentEvent::TurnStart => self.retry = None,
            AgentEvent::MessageStart { message } => match message.as_assistant() {
                Some(assistant) => self.push(Item::Assistant {
                    message: Arc::new(assistant.clone()),
                    streaming: true,
                }),
                None => self.push_message(message, false),
            },
            AgentEvent::MessageUpdate { message, .. } => {
                if let Some(current) = self.streaming_answer() {
                    *current = Arc::clone(message);
                }
            }
            AgentEvent::MessageEnd { message } => {
                if let Some(assistant) = message.as_assistant() {
                    if self.streaming_answer().is_some() {
                        self.pop();
                    }
                    self.push_message(message, false);
                    self.last_usage = Some(assistant.usage);
                }
            }
            AgentEvent::ToolExecutionStart {
                tool_call_id,
                tool_name,
                args,
            } => self.push(Item::Tool(ToolCall {
                id: tool_call_id.clone(),
                name: tool_name.clone(),
                args: args.clone(),
                output: None,
                is_error: false,
                done: false,
            })),
            AgentEvent::ToolExecutionUpdate {
                tool_call_id,
                partial_result,
                ..
            } => {
                if let Some(call) = self.tool(tool_call_id) {
                    call.output = Some(Output::Live(partial_result.clone()));
                }
            }
            AgentEvent::ToolExecutionEnd {
                tool_call_id,
                result,
                is_error,
                ..
            } => {
                if let Some(call) = self.tool(tool_call_id) {
                    call.output = Some(Output::Live(result.clone()));
                    call.is_error = *is_error;
                    call.done = true;
                }
            }
            // The queue arrives as the session's `queue_update`.
            AgentEvent::AgentEnd { .. }
            | AgentEvent::TurnEnd { .. }
            | AgentEvent::QueueChanged { .. } => {}
        }
    }

    fn apply_session(&mut self, event: &SessionEvent) {
        match event {
            SessionEvent::Subagent {
                tool_call_id,
                id,
                event,
                ..
            } => {
                self.children.apply(id, event);
                // Its block draws the child's transcript when expanded.
                self.tool(tool_call_id);
            }
            SessionEvent::AgentSettled { .. } => {
                self.working = false;
                self.retry = None;
            }
            SessionEvent::BashExecutionUpdate { delta, .. } => {
                if let Some(run) = self.running_bash() {
                    run.output.push_str(delta);
                }
            }
            SessionEvent::QueueUpdate {
                steering,
                follow_up,
            } => {
                self.steering = steering.clone();
                self.follow_up = follow_up.clone();
            }
            SessionEvent::AutoRetryStart {
                attempt,
                max_attempts,
                delay_ms,
                error_message,
            } => {
                let at = std::time::Instant::now() + std::time::Duration::from_millis(*delay_ms);
                self.retry = Some((at, *attempt, *max_attempts));
                self.notice(
                    format!(
                        "Retrying in {}s (attempt {attempt}/{max_attempts}): {error_message}",
                        delay_ms.div_ceil(1000)
                    ),
                    false,
                );
            }
            SessionEvent::AutoRetryEnd {
                success,
                final_error,
                ..
            } => {
                self.retry = None;
                if !success {
                    self.notice(
                        format!(
                            "Gave up retrying: {}",
                            final_error.as_deref().unwrap_or("unknown error")
                        ),
                        true,
                    );
                }
            }
            SessionEvent::CompactionStart { reason } => {
                let why = serde_json::to_value(reason)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default();
                self.notice(format!("Compacting the context ({why})…"), false);
            }
            SessionEvent::CompactionEnd {
                result,
                aborted,
                error_message,
                ..
            } => {
                let (text, error) = match (result, aborted) {
                    (Some(r), _) => (
                        format!("Compacted: {} tokens summarised", r.tokens_before),
                        false,
                    ),
                    (None, true) => ("Compaction cancelled".to_owned(), true),
                    (None, false) => (
                        format!(
                            "Compaction failed: {}",
                            error_message.as_deref().unwrap_or("unknown error")
                        ),
                        true,
                    ),
                };
                self.notice(text, error);
            }
            _ => {}
        }
    }

    /// The text of an assistant message's text blocks.
    pub fn answer_text(message: &AssistantMessage) -> String {
        message
            .content
            .iter()
            .filter_map(|b| match b {
                AssistantBlock::Text(t) => Some(t.text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pi_ai::ToolResultMessage;

    fn result(id: &str) -> AgentMessage {
        AgentMessage::from(Message::ToolResult(ToolResultMessage {
            tool_call_id: id.into(),
            tool_name: "bash".into(),
            content: Vec::new(),
            details: None,
            is_error: false,
            timestamp: 0,
            duration_ms: None,
        }))
    }

    #[test]
    fn a_result_confirms_the_live_call_and_a_continued_session_keeps_arguments() {
        let call = pi_ai::ToolCall {
            id: "c1".into(),
            name: "bash".into(),
            arguments: serde_json::json!({"command": "ls"}),
            thought_signature: None,
        };
        let answer = AgentMessage::from(Message::from(AssistantMessage {
            content: vec![AssistantBlock::ToolCall(call)],
            ..AssistantMessage::default()
        }));
        let resumed = Transcript::from_messages(&[answer, result("c1")]);
        let calls: Vec<&Value> = resumed
            .items()
            .iter()
            .filter_map(|i| match i {
                Item::Tool(call) => Some(&call.args),
                _ => None,
            })
            .collect();
        assert_eq!(calls, [&serde_json::json!({"command": "ls"})]);

        let mut live = Transcript::default();
        live.apply(&AppEvent::Agent(AgentEvent::ToolExecutionStart {
            tool_call_id: "c1".into(),
            tool_name: "bash".into(),
            args: serde_json::json!({"command": "ls"}),
        }));
        live.apply(&AppEvent::Agent(AgentEvent::MessageStart {
            message: result("c1"),
        }));
        assert_eq!(live.items().len(), 1);
        assert!(matches!(&live.items()[0], Item::Tool(call) if call.done));
    }

    fn asking(id: &str) -> AgentMessage {
        AgentMessage::from(Message::from(AssistantMessage {
            content: vec![AssistantBlock::ToolCall(pi_ai::ToolCall {
                id: id.into(),
                name: "bash".into(),
                arguments: serde_json::json!({}),
                thought_signature: None,
            })],
            ..AssistantMessage::default()
        }))
    }

    fn tools(transcript: &Transcript) -> Vec<(&str, bool)> {
        transcript
            .items()
            .iter()
            .filter_map(|i| match i {
                Item::Tool(call) => Some((call.id.as_str(), call.done)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_call_id_used_again_in_a_later_turn_is_a_call_of_its_own() {
        // Some providers number calls per turn, so ids repeat across a session.
        let resumed =
            Transcript::from_messages(&[asking("c1"), result("c1"), asking("c1"), result("c1")]);
        assert_eq!(tools(&resumed), [("c1", true), ("c1", true)]);

        let mut live = Transcript::default();
        for turn in 0..2 {
            live.apply(&AppEvent::Agent(AgentEvent::MessageEnd {
                message: asking("c1"),
            }));
            live.apply(&AppEvent::Agent(AgentEvent::ToolExecutionStart {
                tool_call_id: "c1".into(),
                tool_name: "bash".into(),
                args: serde_json::json!({}),
            }));
            live.apply(&AppEvent::Agent(AgentEvent::MessageStart {
                message: result("c1"),
            }));
            assert_eq!(tools(&live).len(), turn + 1, "{:?}", tools(&live));
        }
        assert_eq!(tools(&live), [("c1", true), ("c1", true)]);
    }
}
