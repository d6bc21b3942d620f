//! [`CommandHook`]: one configured command as a [`Hook`]. It builds the event's JSON in the
//! field's shape, runs the command, and turns its verdict into the answer the event takes. A
//! project hook not yet approved asks the user at its first use and is skipped until a yes.

use super::config::{ConfiguredHook, HookEventName, HookScope};
use super::matcher::Matcher;
use super::process::{self, Invocation, Verdict};
use super::{SessionSlot, UiSlot, approvals};
use pi_agent::BoxFuture;
use pi_ai::{TextContent, UserBlock};
use pi_ext_api::ExtensionFailure;
use pi_ext_api::hooks::{
    CommandInfo, Dialog, DialogAnswer, Hook, HookAnswer, HookEvent, HookEventKind, InputAnswer,
    NotifyLevel, SessionStartReason, ToolCallAnswer, ToolResultAnswer,
};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// A project hook's approval in this run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Approval {
    Approved,
    /// Not approved yet: the user is asked at its first use.
    Unasked,
    /// The user said no: skipped for the rest of the run.
    Declined,
}

/// Where a project hook's approval is recorded.
pub(super) struct ApprovalRecord {
    pub agent_dir: PathBuf,
    /// Every command of the project's hooks (approvals of others are dropped).
    pub current: Vec<String>,
}

/// One settings command hook.
pub struct CommandHook(Arc<Inner>);

/// The hook's state, shared with the futures [`Hook::handle`] returns.
struct Inner {
    source: String,
    event: HookEventName,
    matcher: Matcher,
    invocation: Invocation,
    approval: tokio::sync::Mutex<Approval>,
    record: Option<ApprovalRecord>,
    ui: UiSlot,
    session: SessionSlot,
    /// `failClosed`: a failure blocks the tool call it was asked about.
    fail_closed: bool,
}

impl CommandHook {
    /// A hook for `hook`, run with `shell` in `cwd`. `record` is set for a project hook that
    /// is to ask before its first use; without it the hook runs as approved.
    pub(super) fn new(
        hook: &ConfiguredHook,
        matcher: Matcher,
        shell: String,
        cwd: PathBuf,
        record: Option<ApprovalRecord>,
        slots: (UiSlot, SessionSlot),
    ) -> Self {
        CommandHook(Arc::new(Inner::new(
            hook, matcher, shell, cwd, record, slots,
        )))
    }
}

impl Inner {
    fn new(
        hook: &ConfiguredHook,
        matcher: Matcher,
        shell: String,
        cwd: PathBuf,
        record: Option<ApprovalRecord>,
        slots: (UiSlot, SessionSlot),
    ) -> Self {
        let scope = match hook.scope {
            HookScope::Global => "",
            HookScope::Project => " (project)",
        };
        Inner {
            source: format!("settings hook {}{scope}", hook.command),
            event: hook.event,
            matcher,
            invocation: Invocation {
                shell,
                command: hook.command.clone(),
                cwd,
                timeout: hook.timeout,
            },
            approval: tokio::sync::Mutex::new(if record.is_some() {
                Approval::Unasked
            } else {
                Approval::Approved
            }),
            record,
            ui: slots.0,
            session: slots.1,
            fail_closed: hook.fail_closed,
        }
    }

    /// Whether the event is one this hook's matcher names (tool events by tool name,
    /// `SessionStart` by its reason).
    fn matches(&self, event: &HookEvent) -> bool {
        match event {
            HookEvent::ToolCall { tool, .. } | HookEvent::ToolResult { tool, .. } => {
                self.matcher.matches(tool)
            }
            HookEvent::SessionStart { reason, .. } => self.matcher.matches(reason_word(*reason)),
            _ => true,
        }
    }

    /// The JSON the command reads on stdin.
    fn input(&self, event: &HookEvent) -> Value {
        let (session_id, transcript) = self.session.get();
        let mut input = json!({
            "session_id": session_id,
            "transcript_path": transcript.map(|p| p.to_string_lossy().into_owned()),
            "cwd": self.invocation.cwd.to_string_lossy(),
            "hook_event_name": self.event.as_str(),
        });
        let fields = match event {
            HookEvent::ToolCall { tool, input, .. } => {
                json!({"tool_name": tool, "tool_input": input})
            }
            HookEvent::ToolResult {
                tool,
                input,
                content,
                is_error,
                ..
            } => json!({"tool_name": tool, "tool_input": input, "tool_response": {
                "content": text_of(content), "is_error": is_error}}),
            HookEvent::Input { text, .. } => json!({"prompt": text}),
            HookEvent::SessionStart { reason, .. } => json!({"source": reason_word(*reason)}),
            HookEvent::AgentEnd { .. } => json!({"stop_hook_active": false}),
            _ => json!({}),
        };
        if let (Value::Object(input), Value::Object(fields)) = (&mut input, fields) {
            input.extend(fields);
        }
        input
    }

    /// Whether this run may use the hook: a project hook not approved asks once.
    async fn cleared(&self) -> bool {
        let mut approval = self.approval.lock().await;
        if *approval == Approval::Unasked
            && let Some(yes) = self.ask().await
        {
            *approval = if yes {
                Approval::Approved
            } else {
                Approval::Declined
            };
        }
        *approval == Approval::Approved
    }

    /// Asks the user to approve the command; `None` when no one answered. A yes is recorded.
    async fn ask(&self) -> Option<bool> {
        let ui = self.ui.get()?;
        let dialog = Dialog::Confirm {
            title: "Run this project's command hook?".to_owned(),
            text: format!(
                "{} runs `{}` on {} with your rights, outside the sandbox. Approve it for \
                 this project?",
                ".pi/settings.json",
                self.invocation.command,
                self.event.as_str()
            ),
        };
        let source = self.source.clone();
        let answer = tokio::task::spawn_blocking(move || ui.ask(&source, dialog, None))
            .await
            .ok()??;
        let yes = answer == DialogAnswer::Confirmed(true);
        if yes && let Some(record) = &self.record {
            let command = [self.invocation.command.clone()];
            if let Err(error) = approvals::record(
                &record.agent_dir,
                &self.invocation.cwd,
                &command,
                &record.current,
            ) {
                tracing::warn!("hook approval not saved: {error}");
            }
        }
        Some(yes)
    }

    async fn answer(&self, event: Arc<HookEvent>, cancel: CancellationToken) -> HookResult {
        if let HookEvent::SessionStart { session_id, .. } = &*event {
            self.session.follow(session_id);
        }
        if !self.matches(&event) || !self.cleared().await {
            return Ok(neutral(&event));
        }
        let input = serde_json::to_vec(&self.input(&event)).unwrap_or_default();
        let finished = process::run(&self.invocation, input, cancel)
            .await
            .map_err(|e| self.failure(&e))?;
        let verdict = process::verdict(&finished).map_err(|e| self.failure(&e))?;
        Ok(self.apply(&event, verdict))
    }

    fn failure(&self, what: &str) -> ExtensionFailure {
        ExtensionFailure(format!("{}: {what}", self.source))
    }

    /// The verdict as the event's answer.
    fn apply(&self, event: &HookEvent, verdict: Verdict) -> HookAnswer {
        match (event, verdict) {
            (HookEvent::ToolCall { .. }, verdict) => HookAnswer::ToolCall(match verdict {
                Verdict::Block(reason) | Verdict::Stop(reason) => ToolCallAnswer::Block(reason),
                Verdict::Ask(question) => ToolCallAnswer::Ask(question),
                Verdict::Allow | Verdict::Proceed { .. } => ToolCallAnswer::Allow,
            }),
            (
                HookEvent::ToolResult {
                    content, is_error, ..
                },
                Verdict::Block(reason) | Verdict::Stop(reason),
            ) => {
                let mut content = content.clone();
                content.push(UserBlock::Text(TextContent {
                    text: format!("PostToolUse hook: {reason}"),
                    text_signature: None,
                }));
                HookAnswer::ToolResult(ToolResultAnswer::Replace {
                    content,
                    is_error: *is_error,
                })
            }
            (HookEvent::Input { .. }, Verdict::Block(reason) | Verdict::Stop(reason)) => {
                self.notify(&format!("Prompt not sent: {reason}"));
                HookAnswer::Input(InputAnswer::Handled)
            }
            (
                HookEvent::Input { text, images, .. },
                Verdict::Proceed {
                    context: Some(context),
                },
            ) => HookAnswer::Input(InputAnswer::Transform {
                text: format!("{text}\n\n{context}"),
                images: images.clone(),
            }),
            (event, _) => neutral(event),
        }
    }

    fn notify(&self, text: &str) {
        match self.ui.get() {
            Some(ui) => ui.notify(&self.source, text, NotifyLevel::Warning),
            None => tracing::warn!("{}: {text}", self.source),
        }
    }
}

type HookResult = Result<HookAnswer, ExtensionFailure>;

/// The answer that changes nothing.
fn neutral(event: &HookEvent) -> HookAnswer {
    match event {
        HookEvent::ToolCall { .. } => HookAnswer::ToolCall(ToolCallAnswer::Allow),
        HookEvent::ToolResult { .. } => HookAnswer::ToolResult(ToolResultAnswer::Keep),
        HookEvent::Input { .. } => HookAnswer::Input(InputAnswer::Continue),
        _ => HookAnswer::Observed,
    }
}

fn reason_word(reason: SessionStartReason) -> &'static str {
    match reason {
        SessionStartReason::Startup => "startup",
        SessionStartReason::New => "clear",
        SessionStartReason::Resume => "resume",
        SessionStartReason::Fork => "fork",
        SessionStartReason::Reload => "reload",
    }
}

fn text_of(content: &[UserBlock]) -> String {
    content
        .iter()
        .filter_map(|block| match block {
            UserBlock::Text(text) => Some(text.text.as_str()),
            UserBlock::Image(_) => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

impl Hook for CommandHook {
    fn source(&self) -> &str {
        &self.0.source
    }

    fn wants(&self, kind: HookEventKind) -> bool {
        kind == self.0.event.kind()
    }

    fn commands(&self) -> &[CommandInfo] {
        &[]
    }

    fn fails_closed(&self) -> bool {
        self.0.fail_closed
    }

    fn handle(
        &self,
        event: Arc<HookEvent>,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<HookAnswer, ExtensionFailure>> {
        let inner = Arc::clone(&self.0);
        Box::pin(async move { inner.answer(event, cancel).await })
    }

    fn run_command(
        &self,
        name: &str,
        _args: &str,
        _cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<(), ExtensionFailure>> {
        let failure = self.0.failure(&format!("serves no command /{name}"));
        Box::pin(async move { Err(failure) })
    }
}
