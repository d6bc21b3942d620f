//! Where the session asks its hooks (`super::HookPipeline`): the agent loop's context,
//! tool-call and tool-result hooks; what a run starts with (`before_agent_start`, messages sent
//! for the next turn); `turn_end` and `agent_end`. Compaction asks `before_compact` itself.

use super::{AgentSession, lock};
use pi_agent::{
    AfterToolCallFn, AgentEvent, AgentMessage, BeforeToolCallFn, CustomMessage, HostMessage,
    ToolCallResult, ToolGate, TransformContextFn,
};
use pi_ai::{TextContent, UserBlock, UserContent};
use pi_ext_api::hooks::OutgoingMessage;
use pi_ext_api::hooks::{HookEvent, HookEventKind};
use pi_session::messages;
use pi_session::system_prompt;
use std::sync::Arc;
use std::sync::atomic::Ordering;

type HookFns = (
    Option<TransformContextFn>,
    Option<BeforeToolCallFn>,
    Option<AfterToolCallFn>,
);

impl AgentSession {
    /// Replaces the hooks (start-up, `/reload`) and the agent loop's functions that call them;
    /// commands named like one of `taken` are refused (the warnings say which).
    pub fn set_hooks(
        &self,
        hooks: Vec<Arc<dyn pi_ext_api::Hook>>,
        taken: Vec<(String, String)>,
    ) -> Vec<String> {
        let warnings = self.inner.hooks.set_hooks(hooks, taken);
        self.install_hooks();
        warnings
    }

    /// Switches the permission mode: the gate of the next tool call follows it.
    pub(crate) fn set_permission_mode(&self, mode: crate::permissions::PermissionMode) {
        self.inner.permission_mode.set(mode);
        self.install_hooks();
    }

    /// The approval rules (and where relative paths in calls start) the gate checks.
    pub(crate) fn set_approval_rules(
        &self,
        ledger: Arc<crate::permissions::Ledger>,
        cwd: std::path::PathBuf,
    ) {
        self.inner.hooks.approvals.set_rules(ledger, cwd);
    }

    /// The approval rules the gate checks, once set.
    pub(crate) fn approval_rules(&self) -> Option<Arc<crate::permissions::Ledger>> {
        self.inner.hooks.approvals.ledger()
    }

    /// The extension tools whose grants let them change something (`ask-writes` asks first).
    pub(crate) fn set_writing_tools(&self, tools: Vec<String>) {
        self.inner.hooks.approvals.set_writers(tools);
    }

    /// The agent loop's functions for the hooks there are: none for an event no hook wants (and,
    /// for tool calls, that the permission mode does not gate), so a session without hooks in
    /// `auto` runs exactly as before.
    pub(super) fn hook_fns(&self) -> HookFns {
        let pipeline = &self.inner.hooks;
        let context = pipeline.wants(HookEventKind::Context).then(|| {
            let pipeline = Arc::clone(pipeline);
            let transform: TransformContextFn = Arc::new(move |history, cancel| {
                let pipeline = Arc::clone(&pipeline);
                Box::pin(async move {
                    let converted = messages::convert_to_llm(&history);
                    Ok(match pipeline.context(converted, &cancel).await {
                        Some(changed) => changed.into_iter().map(AgentMessage::Llm).collect(),
                        None => history,
                    })
                })
            });
            transform
        });
        let gated = pipeline.wants(HookEventKind::ToolCall) || pipeline.approvals.active();
        let before = gated.then(|| {
            let pipeline = Arc::clone(pipeline);
            let gate: BeforeToolCallFn = Arc::new(move |call, args, cancel| {
                let pipeline = Arc::clone(&pipeline);
                let (id, name) = (call.id.clone(), call.name.clone());
                Box::pin(async move {
                    match pipeline.tool_call(&id, &name, args, &cancel).await {
                        Ok(args) => ToolGate::Run(args),
                        Err(reason) => ToolGate::Block(reason),
                    }
                })
            });
            gate
        });
        let after = pipeline.wants(HookEventKind::ToolResult).then(|| {
            let pipeline = Arc::clone(pipeline);
            let after: AfterToolCallFn = Arc::new(move |call, args, result, cancel| {
                let pipeline = Arc::clone(&pipeline);
                let (id, name, args) = (call.id.clone(), call.name.clone(), args.clone());
                Box::pin(async move {
                    let ToolCallResult { output, is_error } = result;
                    let content = output.content.clone();
                    match pipeline
                        .tool_result(&id, &name, &args, content, is_error, &cancel)
                        .await
                    {
                        Some((content, is_error)) => ToolCallResult {
                            output: pi_agent::ToolOutput { content, ..output },
                            is_error,
                        },
                        None => ToolCallResult { output, is_error },
                    }
                })
            });
            after
        });
        (context, before, after)
    }

    /// The messages a run starts with (the prompt, then what hooks sent for this turn and what
    /// `before_agent_start` adds) and the system prompt for this run when a hook changed it.
    pub(super) async fn with_run_additions(
        &self,
        mut messages: Vec<AgentMessage>,
    ) -> (Vec<AgentMessage>, Option<String>) {
        messages.append(&mut lock(&self.inner.next_turn));
        let pipeline = &self.inner.hooks;
        if !pipeline.wants(HookEventKind::BeforeAgentStart) {
            return (messages, None);
        }
        let prompt = messages
            .iter()
            .find_map(|m| match m.as_llm() {
                Some(pi_ai::Message::User(user)) => Some(user.content.text()),
                _ => None,
            })
            .unwrap_or_default();
        let current = self.inner.agent.with_state(|s| s.system_prompt.clone());
        let additions = pipeline.before_agent_start(&prompt, &current).await;
        messages.extend(additions.messages.into_iter().map(custom_message));
        (messages, additions.system_prompt)
    }

    /// Puts back the session's own system prompt after a run a hook changed it for.
    pub(super) fn restore_system_prompt(&self) {
        let joined = system_prompt::join(&lock(&self.inner.prompt_sections));
        let changed = self.inner.agent.with_state(|s| s.system_prompt != joined);
        if changed {
            self.inner.agent.set_system_prompt(joined);
        }
    }

    /// Tells `turn_end` hooks, without holding up the loop.
    pub(super) fn observe_turn_end(&self, event: &AgentEvent) {
        let index = self.inner.turn_index.fetch_add(1, Ordering::Relaxed);
        let pipeline = Arc::clone(&self.inner.hooks);
        if !pipeline.wants(HookEventKind::TurnEnd) {
            return;
        }
        let AgentEvent::TurnEnd {
            message,
            tool_results,
        } = event
        else {
            return;
        };
        let Some(message) = message.as_assistant().cloned() else {
            return;
        };
        let event = HookEvent::TurnEnd {
            turn_index: index,
            message,
            tool_results: tool_results.clone(),
        };
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move { pipeline.observe(event).await });
        }
    }

    /// Tells `agent_end` hooks how long the run took and how it ended.
    pub(super) async fn observe_agent_end(&self, started: std::time::Instant) {
        if !self.inner.hooks.wants(HookEventKind::AgentEnd) {
            return;
        }
        let event = HookEvent::AgentEnd {
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            last_message: self.last_assistant(),
        };
        self.inner.hooks.observe(event).await;
    }

    /// Where messages hooks send for the next prompt wait.
    pub(crate) fn next_turn(&self) -> Arc<std::sync::Mutex<Vec<AgentMessage>>> {
        Arc::clone(&self.inner.next_turn)
    }

    /// The pipeline, for the `App`'s own hook points (input, commands, session start).
    pub(crate) fn hooks(&self) -> &Arc<super::HookPipeline> {
        &self.inner.hooks
    }
}

/// pi's `custom` message for a hook's outgoing message.
pub(crate) fn custom_message(message: OutgoingMessage) -> AgentMessage {
    AgentMessage::from(HostMessage::Custom(CustomMessage {
        custom_type: message.custom_type,
        content: UserContent::Blocks(vec![UserBlock::Text(TextContent {
            text: message.content,
            text_signature: None,
        })]),
        display: message.display,
        details: message.details,
        timestamp: pi_ai::now_ms(),
    }))
}
