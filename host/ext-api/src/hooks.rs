//! The hook seam: lifecycle events and the typed answers that change what the agent does
//! (pi's extension events `input`, `before_agent_start`, `context`, `tool_call`,
//! `tool_result`, `session_before_compact`, …), slash commands, and the two services a hook
//! may be granted: talking to the user ([`UserInterface`]) and the session ([`SessionAccess`]).
//!
//! A [`Hook`] is one source of answers: a `hook`-world component of a package (pi-ext-host),
//! or the command hooks of the settings (pi-app). The session calls the hooks in load order;
//! the pipeline rules (the first block wins, rewrites chain, a failure allows unless the
//! hook fails closed) live with the caller, not here.

use crate::ExtensionFailure;
use pi_agent::BoxFuture;
use pi_ai::{AssistantMessage, ImageContent, Message, ToolResultMessage, UserBlock};
use serde_json::Value;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// The events a hook can subscribe to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HookEventKind {
    SessionStart,
    SessionShutdown,
    Input,
    BeforeAgentStart,
    Context,
    ToolCall,
    ToolResult,
    BeforeCompact,
    TurnEnd,
    AgentEnd,
}

/// A slash command a hook serves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandInfo {
    /// Without the slash.
    pub name: String,
    pub description: String,
    pub argument_hint: Option<String>,
}

/// What a hook serves: the events it wants and its commands.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HookInfo {
    pub events: Vec<HookEventKind>,
    pub commands: Vec<CommandInfo>,
}

/// Why a session started (pi's `session_start.reason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionStartReason {
    Startup,
    New,
    Resume,
    Fork,
    Reload,
}

/// Where a prompt came from (pi's `input.source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputSource {
    /// The interactive UI, or the command line (print and JSON modes).
    Interactive,
    Rpc,
    Extension,
}

/// A message a hook adds to the conversation: pi's `custom` message.
#[derive(Debug, Clone, PartialEq)]
pub struct OutgoingMessage {
    pub custom_type: String,
    /// The text the model sees.
    pub content: String,
    /// Whether the UI shows it.
    pub display: bool,
    pub details: Option<Value>,
}

/// A change to the system prompt for one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SystemPromptChange {
    /// Added after it, separated by a blank line.
    Append(String),
    Replace(String),
}

/// One event, with its payload.
#[derive(Debug, Clone)]
pub enum HookEvent {
    SessionStart {
        reason: SessionStartReason,
        session_id: String,
        cwd: PathBuf,
    },
    SessionShutdown,
    Input {
        text: String,
        images: Vec<ImageContent>,
        source: InputSource,
    },
    BeforeAgentStart {
        prompt: String,
        /// After earlier hooks' changes.
        system_prompt: String,
    },
    /// The request about to be sent: the conversation as the model sees it.
    Context {
        messages: Vec<Arc<Message>>,
    },
    ToolCall {
        call_id: String,
        tool: String,
        /// The arguments after earlier hooks' rewrites.
        input: Value,
    },
    ToolResult {
        call_id: String,
        tool: String,
        input: Value,
        content: Vec<UserBlock>,
        is_error: bool,
    },
    BeforeCompact {
        reason: crate::CompactionReason,
        tokens_before: u64,
    },
    TurnEnd {
        turn_index: u32,
        message: AssistantMessage,
        tool_results: Vec<ToolResultMessage>,
    },
    AgentEnd {
        duration_ms: u64,
        last_message: Option<AssistantMessage>,
    },
}

impl HookEvent {
    pub fn kind(&self) -> HookEventKind {
        match self {
            HookEvent::SessionStart { .. } => HookEventKind::SessionStart,
            HookEvent::SessionShutdown => HookEventKind::SessionShutdown,
            HookEvent::Input { .. } => HookEventKind::Input,
            HookEvent::BeforeAgentStart { .. } => HookEventKind::BeforeAgentStart,
            HookEvent::Context { .. } => HookEventKind::Context,
            HookEvent::ToolCall { .. } => HookEventKind::ToolCall,
            HookEvent::ToolResult { .. } => HookEventKind::ToolResult,
            HookEvent::BeforeCompact { .. } => HookEventKind::BeforeCompact,
            HookEvent::TurnEnd { .. } => HookEventKind::TurnEnd,
            HookEvent::AgentEnd { .. } => HookEventKind::AgentEnd,
        }
    }
}

/// A hook's answer. Each event has its own answers; events that only inform are answered
/// with [`HookAnswer::Observed`].
#[derive(Debug, Clone, PartialEq)]
pub enum HookAnswer {
    /// The answer to an event that only informs (`session_start`, `turn_end`, …).
    Observed,
    Input(InputAnswer),
    BeforeAgentStart {
        system_prompt: Option<SystemPromptChange>,
        message: Option<OutgoingMessage>,
    },
    /// `None` keeps the messages; `Some` replaces them for this request only.
    Context(Option<Vec<Message>>),
    ToolCall(ToolCallAnswer),
    ToolResult(ToolResultAnswer),
    BeforeCompact(BeforeCompactAnswer),
}

/// What becomes of a prompt.
#[derive(Debug, Clone, PartialEq)]
pub enum InputAnswer {
    Continue,
    Transform {
        text: String,
        images: Vec<ImageContent>,
    },
    /// Dealt with: no run starts.
    Handled,
}

/// What becomes of a tool call.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolCallAnswer {
    Allow,
    /// Not run: the model gets an error result with the reason.
    Block(String),
    /// Run only if the user says yes to this question.
    Ask(String),
    /// Run with these arguments instead.
    Rewrite(Value),
}

/// What becomes of a tool result.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolResultAnswer {
    Keep,
    Replace {
        content: Vec<UserBlock>,
        is_error: bool,
    },
}

/// Whether the session compacts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BeforeCompactAnswer {
    Continue,
    Cancel(String),
}

/// One source of hook answers, called by the session in load order.
pub trait Hook: Send + Sync {
    /// Who answers, for messages: `name@version` for a package, `settings hook <command>`.
    fn source(&self) -> &str;

    /// Whether it wants `kind`; the session calls [`Hook::handle`] only for those.
    fn wants(&self, kind: HookEventKind) -> bool;

    /// The slash commands it serves.
    fn commands(&self) -> &[CommandInfo];

    /// Whether a failure blocks the tool call instead of allowing it (`fail = "closed"`).
    fn fails_closed(&self) -> bool;

    /// A copy of it that can change nothing (plan mode: files read-only, commands sandboxed
    /// read-only without network); `None` when it already cannot (a command hook is the
    /// user's own shell command and is not confined).
    fn read_only(&self) -> Option<Arc<dyn Hook>> {
        None
    }

    /// Gets ready for its first event ahead of it (loads its code). It blocks: the session
    /// calls it on a thread of its own. A failure is left for that event to meet and report.
    fn prepare(&self) {}

    /// Answers one event. An `Err` (a trap, a passed deadline, an answer that does not fit the
    /// event) names the hook; the session reports it and goes on as the rules say.
    fn handle(
        &self,
        event: Arc<HookEvent>,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<HookAnswer, ExtensionFailure>>;

    /// Runs one of its commands; `args` is the text after the name.
    fn run_command(
        &self,
        name: &str,
        args: &str,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<(), ExtensionFailure>>;
}

/// How a notice is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotifyLevel {
    Info,
    Warning,
    Error,
}

/// A question for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dialog {
    Confirm {
        title: String,
        text: String,
    },
    Select {
        title: String,
        options: Vec<String>,
    },
    Input {
        title: String,
        placeholder: Option<String>,
    },
    /// A tool call the permission mode (or a hook's `ask`) puts to the user: a select whose
    /// options are the approval choices, with what the call would do. Answered `Selected`.
    Approval {
        title: String,
        options: Vec<String>,
        tool: String,
        preview: ApprovalPreview,
    },
}

/// What a tool call put to the user would do, in a form to read before saying yes.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum ApprovalPreview {
    /// A shell command.
    Command { command: String },
    /// An edit of `path`: `diff` holds `-`/`+` lines, old then new, per replaced passage.
    Edit { path: String, diff: String },
    /// A file written whole.
    Write { path: String, content: String },
    /// Any other call: its arguments as pretty JSON.
    Arguments { json: String },
}

/// The user's answer to a [`Dialog`] (of the same kind).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DialogAnswer {
    Confirmed(bool),
    /// The index of the chosen option.
    Selected(usize),
    Text(String),
}

/// Talking to the user, for hooks granted `ui`. Implemented by the application for the face
/// it runs (dialogs in the terminal UI, `extension_ui_request` in RPC mode, nothing to ask in
/// print mode). Called on the extension's blocking thread, or on a blocking task of the
/// session; `from` is the extension's `name@version`.
pub trait UserInterface: Send + Sync {
    fn notify(&self, from: &str, text: &str, level: NotifyLevel);

    /// Sets or clears (`None`) the status text `key` of `from` in the footer.
    fn set_status(&self, from: &str, key: &str, text: Option<&str>);

    /// Draws the user's attention (the terminal's notification sequence).
    fn attention(&self, from: &str, title: &str, text: &str);

    /// Asks and waits; `None` when cancelled, past `timeout`, aborted, or with no one to ask.
    fn ask(&self, from: &str, dialog: Dialog, timeout: Option<Duration>) -> Option<DialogAnswer>;

    /// Whether someone can answer a dialog at all (false in print and JSON modes), so that a
    /// call nobody can approve is refused with a message saying how to allow it.
    fn can_ask(&self) -> bool {
        true
    }
}

/// When a message a hook sends reaches the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeliverAs {
    Steer,
    FollowUp,
    /// With the user's next prompt; no run starts.
    NextTurn,
}

/// The session, for hooks granted `session`. Implemented by the application; called on the
/// extension's blocking thread. Errors are messages for the extension.
pub trait SessionAccess: Send + Sync {
    fn send_message(
        &self,
        from: &str,
        message: OutgoingMessage,
        deliver_as: DeliverAs,
    ) -> Result<(), String>;

    /// Stores a `custom` entry (never sent to the model).
    fn append_entry(&self, from: &str, custom_type: &str, data: Value) -> Result<(), String>;

    /// The data of the `custom` entries of `custom_type` on the current branch, oldest first.
    fn entries(&self, custom_type: &str) -> Result<Vec<Value>, String>;

    fn set_session_name(&self, name: &str) -> Result<(), String>;

    /// Labels `entry_id` (the current leaf when `None`); a `None` label removes it.
    fn set_label(&self, entry_id: Option<&str>, label: Option<&str>) -> Result<(), String>;

    /// The session's id, which every component may read (the `host` import's `session-id`).
    fn session_id(&self) -> Option<String> {
        None
    }
}

/// What the application gives the hooks it runs. Until it is set (and in tests that do not
/// need them) dialogs answer `None` and session calls fail.
#[derive(Clone)]
pub struct HookServices {
    pub ui: Arc<dyn UserInterface>,
    pub session: Arc<dyn SessionAccess>,
}

impl HookServices {
    /// Services that talk to no one: notices are dropped, dialogs cancelled, session calls
    /// refused.
    pub fn none() -> Self {
        HookServices {
            ui: Arc::new(NoServices),
            session: Arc::new(NoServices),
        }
    }
}

struct NoServices;

const NO_SESSION: &str = "no session is open";

impl UserInterface for NoServices {
    fn notify(&self, _: &str, _: &str, _: NotifyLevel) {}
    fn set_status(&self, _: &str, _: &str, _: Option<&str>) {}
    fn attention(&self, _: &str, _: &str, _: &str) {}
    fn ask(&self, _: &str, _: Dialog, _: Option<Duration>) -> Option<DialogAnswer> {
        None
    }
    fn can_ask(&self) -> bool {
        false
    }
}

impl SessionAccess for NoServices {
    fn send_message(&self, _: &str, _: OutgoingMessage, _: DeliverAs) -> Result<(), String> {
        Err(NO_SESSION.into())
    }
    fn append_entry(&self, _: &str, _: &str, _: Value) -> Result<(), String> {
        Err(NO_SESSION.into())
    }
    fn entries(&self, _: &str) -> Result<Vec<Value>, String> {
        Err(NO_SESSION.into())
    }
    fn set_session_name(&self, _: &str) -> Result<(), String> {
        Err(NO_SESSION.into())
    }
    fn set_label(&self, _: Option<&str>, _: Option<&str>) -> Result<(), String> {
        Err(NO_SESSION.into())
    }
}
