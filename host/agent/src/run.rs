//! The Runtime loop (pi's `agentLoop` / `agentLoopContinue`).
//!
//! One run: `agent_start`, then turns of (queued messages → model response → tool calls →
//! `turn_end`) while the model keeps calling tools or messages are queued, then `agent_end`
//! with the messages the run added. An `error`/`aborted` response ends the run at once without
//! running its tool calls.

use crate::config::{AgentContext, LoopConfig, NextTurnUpdate, TurnInfo};
use crate::event::{AgentEvent, Emit};
use crate::exec::{ToolRunner, elapsed_ms, truncated_call_text};
use crate::message::AgentMessage;
use crate::tool::to_llm_tool;
use pi_ai::{
    AssistantMessage, AssistantMessageEvent, Context, StopReason, ThinkingLevel, Tool, ToolCall,
    ToolResultMessage, apply_event,
};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// Why a run could not start or could not go on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoopError {
    #[error("Cannot continue: no messages in context")]
    NothingToContinue,
    #[error("Cannot continue from message role: {0}")]
    ContinueFrom(String),
    /// A hook (e.g. `transform_context`) failed.
    #[error("{0}")]
    Hook(String),
}

/// Starts a run with new prompt messages. Returns the messages the run added.
pub async fn run_agent_loop(
    prompts: Vec<AgentMessage>,
    context: AgentContext,
    config: LoopConfig,
    emit: Emit,
    cancel: CancellationToken,
) -> Result<Vec<AgentMessage>, LoopError> {
    let mut run = Run::new(context, config, emit, cancel);
    run.emit(AgentEvent::AgentStart);
    run.emit(AgentEvent::TurnStart);
    if run.config.prompts_from_queue {
        run.publish_queue();
    }
    for prompt in prompts {
        run.add_message(prompt);
    }
    run.run().await
}

/// Starts a run from the current messages without a new prompt (retry, overflow recovery). The
/// last message must not be an assistant message.
pub async fn run_agent_loop_continue(
    context: AgentContext,
    config: LoopConfig,
    emit: Emit,
    cancel: CancellationToken,
) -> Result<Vec<AgentMessage>, LoopError> {
    match context.messages.last() {
        None => return Err(LoopError::NothingToContinue),
        Some(last) if last.role() == "assistant" => {
            return Err(LoopError::ContinueFrom("assistant".to_owned()));
        }
        Some(_) => {}
    }
    let run = Run::new(context, config, emit, cancel);
    run.emit(AgentEvent::AgentStart);
    run.emit(AgentEvent::TurnStart);
    run.run().await
}

struct Run {
    context: AgentContext,
    config: LoopConfig,
    emit: Emit,
    cancel: CancellationToken,
    /// Model-facing tool definitions, built once per run.
    llm_tools: Vec<Tool>,
    new_messages: Vec<AgentMessage>,
}

impl Run {
    fn new(
        context: AgentContext,
        config: LoopConfig,
        emit: Emit,
        cancel: CancellationToken,
    ) -> Self {
        let llm_tools = context
            .tools
            .iter()
            .map(|t| to_llm_tool(t.as_ref()))
            .collect();
        Run {
            context,
            config,
            emit,
            cancel,
            llm_tools,
            new_messages: Vec::new(),
        }
    }

    fn emit(&self, event: AgentEvent) {
        (self.emit)(event);
    }

    /// Announces a non-streamed message and appends it.
    fn add_message(&mut self, message: AgentMessage) {
        self.emit(AgentEvent::MessageStart {
            message: message.clone(),
        });
        self.emit(AgentEvent::MessageEnd {
            message: message.clone(),
        });
        self.push(message);
    }

    fn push(&mut self, message: AgentMessage) {
        self.context.messages.push(message.clone());
        self.new_messages.push(message);
    }

    fn poll_steering(&self) -> Vec<AgentMessage> {
        self.config
            .queue
            .as_ref()
            .map(|q| q.steering())
            .unwrap_or_default()
    }

    fn poll_follow_ups(&self) -> Vec<AgentMessage> {
        self.config
            .queue
            .as_ref()
            .map(|q| q.follow_ups())
            .unwrap_or_default()
    }

    /// Reports what is still queued now that polled messages are about to be delivered.
    fn publish_queue(&self) {
        if let Some(queue) = &self.config.queue {
            self.emit(queue.queued().into());
        }
    }

    fn finish(self) -> Vec<AgentMessage> {
        (self.emit)(AgentEvent::AgentEnd {
            messages: self.new_messages.clone(),
        });
        self.new_messages
    }

    async fn run(mut self) -> Result<Vec<AgentMessage>, LoopError> {
        let mut first_turn = true;
        let mut pending = if self.config.skip_initial_steering_poll {
            Vec::new()
        } else {
            self.poll_steering()
        };
        loop {
            let mut more_tool_calls = true;
            while more_tool_calls || !pending.is_empty() {
                if !first_turn {
                    self.emit(AgentEvent::TurnStart);
                }
                first_turn = false;
                if !pending.is_empty() {
                    self.publish_queue();
                }
                for message in std::mem::take(&mut pending) {
                    self.add_message(message);
                }
                let message = self.stream_response().await?;
                self.push(message.clone().into());
                if matches!(message.stop_reason, StopReason::Error | StopReason::Aborted) {
                    self.emit(AgentEvent::TurnEnd {
                        message: message.into(),
                        tool_results: Vec::new(),
                    });
                    return Ok(self.finish());
                }
                let calls: Vec<ToolCall> = message.tool_calls().cloned().collect();
                more_tool_calls = !calls.is_empty();
                let results = self.run_tools(&message, &calls).await;
                for result in &results {
                    self.push(result.clone().into());
                }
                self.emit(AgentEvent::TurnEnd {
                    message: message.clone().into(),
                    tool_results: results.clone(),
                });
                if self.should_stop(&message, &results) {
                    return Ok(self.finish());
                }
                pending = self.poll_steering();
                if more_tool_calls || !pending.is_empty() {
                    self.prepare_next_turn(&message, &results).await;
                }
            }
            let follow_ups = self.poll_follow_ups();
            if follow_ups.is_empty() {
                break;
            }
            pending = follow_ups;
            if let Some(last) = self
                .context
                .messages
                .iter()
                .rev()
                .find_map(AgentMessage::as_assistant)
            {
                let last = last.clone();
                self.prepare_next_turn(&last, &[]).await;
            }
        }
        Ok(self.finish())
    }

    async fn run_tools(
        &self,
        message: &AssistantMessage,
        calls: &[ToolCall],
    ) -> Vec<ToolResultMessage> {
        if calls.is_empty() {
            return Vec::new();
        }
        let runner = ToolRunner {
            tools: &self.context.tools,
            emit: &self.emit,
            cancel: &self.cancel,
            hooks: &self.config.hooks,
        };
        if message.stop_reason == StopReason::Length {
            return runner.fail_all(calls, |call| truncated_call_text(&call.name));
        }
        runner.execute(calls, self.config.tool_execution).await
    }

    fn turn_info<'a>(
        &'a self,
        message: &'a AssistantMessage,
        results: &'a [ToolResultMessage],
    ) -> TurnInfo<'a> {
        TurnInfo {
            messages: &self.context.messages,
            model: &self.config.model,
            thinking_level: self.config.thinking_level,
            message,
            tool_results: results,
        }
    }

    fn should_stop(&self, message: &AssistantMessage, results: &[ToolResultMessage]) -> bool {
        match &self.config.hooks.should_stop_after_turn {
            Some(hook) => hook(&self.turn_info(message, results)),
            None => false,
        }
    }

    async fn prepare_next_turn(
        &mut self,
        message: &AssistantMessage,
        results: &[ToolResultMessage],
    ) {
        let Some(hook) = self.config.hooks.prepare_next_turn.clone() else {
            return;
        };
        let future = hook(&self.turn_info(message, results));
        let Some(NextTurnUpdate {
            messages,
            model,
            thinking_level,
            tools,
        }) = future.await
        else {
            return;
        };
        if let Some(tools) = tools {
            self.llm_tools = tools.iter().map(|t| to_llm_tool(t.as_ref())).collect();
            self.context.tools = tools;
        }
        if let Some(messages) = messages {
            self.context.messages = messages;
        }
        if let Some(model) = model {
            self.config.model = model;
        }
        if let Some(level) = thinking_level {
            self.config.thinking_level = level;
        }
    }

    /// Builds the request context: `transform_context`, then `convert_to_llm`.
    async fn request_context(&self) -> Result<Context, LoopError> {
        let hooks = &self.config.hooks;
        let messages = match &hooks.transform_context {
            Some(transform) => {
                let transformed = transform(self.context.messages.clone(), self.cancel.clone())
                    .await
                    .map_err(LoopError::Hook)?;
                (hooks.convert_to_llm)(&transformed)
            }
            None => (hooks.convert_to_llm)(&self.context.messages),
        };
        Ok(Context {
            system_prompt: Some(self.context.system_prompt.clone()).filter(|s| !s.is_empty()),
            messages,
            tools: self.llm_tools.clone(),
        })
    }

    /// Streams one assistant response, emitting `message_start` / `message_update`… /
    /// `message_end`. Always yields a message (failures come back as `error`/`aborted`).
    async fn stream_response(&mut self) -> Result<AssistantMessage, LoopError> {
        if self.cancel.is_cancelled() {
            return Ok(self.announce(None, aborted_message(&self.config.model)));
        }
        let request = self.request_context().await?;
        let mut options = self.config.stream_options.clone();
        options.cancel = self.cancel.clone();
        options.reasoning = Some(self.config.thinking_level).filter(|l| *l != ThinkingLevel::Off);
        if let Some(get_api_key) = &self.config.hooks.get_api_key {
            match get_api_key(&self.config.model.provider).await {
                Ok(key) => options.api_key = key,
                Err(error) => {
                    return Ok(self.announce(None, auth_error_message(&self.config.model, error)));
                }
            }
        }
        let started = std::time::Instant::now();
        let mut stream = (self.config.hooks.stream_fn)(&self.config.model, &request, options);
        drop(request);
        let mut partial: Option<Arc<AssistantMessage>> = None;
        let mut tool_args = Vec::new();
        let mut last = None;
        while let Some(event) = stream.next_event().await {
            match event {
                AssistantMessageEvent::Start { partial: start } => {
                    self.emit(AgentEvent::MessageStart {
                        message: start.clone().into(),
                    });
                    partial = Some(Arc::new(start));
                }
                AssistantMessageEvent::Done { message, .. } => last = Some(message),
                AssistantMessageEvent::Error { error, .. } => last = Some(error),
                event => {
                    if let Some(current) = partial.as_mut() {
                        apply_event(Arc::make_mut(current), &mut tool_args, &event);
                        self.emit(AgentEvent::MessageUpdate {
                            message: Arc::clone(current),
                            assistant_message_event: event,
                        });
                    }
                }
            }
        }
        // `next_event` always ends with a terminal event; the fallback only guards the types.
        let mut message = last.unwrap_or_else(|| aborted_message(&self.config.model));
        // pi 1.6 times the response from the request on, and records the level it asked for.
        message
            .duration_ms
            .get_or_insert_with(|| elapsed_ms(started));
        message.thinking_level = Some(self.config.thinking_level);
        Ok(self.announce(partial, message))
    }

    /// Emits the closing events of a response (`message_start` too if the stream never
    /// started).
    fn announce(
        &self,
        partial: Option<Arc<AssistantMessage>>,
        message: AssistantMessage,
    ) -> AssistantMessage {
        if partial.is_none() {
            self.emit(AgentEvent::MessageStart {
                message: message.clone().into(),
            });
        }
        self.emit(AgentEvent::MessageEnd {
            message: message.clone().into(),
        });
        message
    }
}

/// The message recorded when a request is not sent because its credential could not be
/// resolved.
fn auth_error_message(model: &pi_ai::Model, error: String) -> AssistantMessage {
    let mut message = AssistantMessage::empty_for(model);
    message.stop_reason = StopReason::Error;
    message.error_message = Some(error);
    message
}

/// The message recorded when a request is not even sent because the run was aborted.
fn aborted_message(model: &pi_ai::Model) -> AssistantMessage {
    let mut message = AssistantMessage::empty_for(model);
    message.stop_reason = StopReason::Aborted;
    message.error_message = Some("Request was aborted".to_owned());
    message
}
