//! Running the tool calls of one assistant message (pi's `executeToolCalls`):
//! preflight each call in order (start event, lookup, argument preparation, validation), then
//! run the allowed calls — concurrently by default, one after another when the config or any
//! called tool asks for it. Every call ends with exactly one result; tools are never re-run.

use crate::config::{Hooks, ToolCallResult, ToolExecution, ToolGate};
use crate::event::{AgentEvent, Emit};
use crate::tool::{AgentTool, ExecutionMode, ToolError, ToolOutput, ToolUpdateFn};
use crate::validate::validate_tool_arguments;
use futures::StreamExt;
use futures::stream::FuturesUnordered;
use pi_ai::{ToolCall, ToolResultMessage};
use serde_json::Value;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// How long a tool may take to wind down after an abort before its result is replaced by
/// "Operation aborted" (tools such as bash want to report what they captured).
const ABORT_GRACE: Duration = Duration::from_secs(2);

pub(crate) const ABORTED_TEXT: &str = "Operation aborted";

/// The result text for calls of a response cut off by the output limit.
pub(crate) fn truncated_call_text(name: &str) -> String {
    format!(
        "Tool call \"{name}\" was not executed: the response hit the output token limit, so its arguments may be truncated. Re-issue the tool call with complete arguments."
    )
}

/// Whole milliseconds since `start` (a monotonic clock), as pi 1.6 reports durations.
pub(crate) fn elapsed_ms(start: std::time::Instant) -> u64 {
    u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// A call after preflight: either answered already (with an error) or ready to run.
enum Prepared {
    Immediate(ToolOutput),
    Ready {
        tool: Arc<dyn AgentTool>,
        args: Value,
    },
}

/// A call's result, whether it is an error, and how long it ran (`None`: answered without
/// running, as pi 1.6 leaves `durationMs` out then).
type Outcome = (ToolOutput, bool, Option<u64>);

pub(crate) struct ToolRunner<'a> {
    pub tools: &'a [Arc<dyn AgentTool>],
    pub emit: &'a Emit,
    pub cancel: &'a CancellationToken,
    /// `before_tool_call` and `after_tool_call`.
    pub hooks: &'a Hooks,
}

impl ToolRunner<'_> {
    /// Runs the batch; results come back in the assistant's call order.
    pub async fn execute(&self, calls: &[ToolCall], mode: ToolExecution) -> Vec<ToolResultMessage> {
        let sequential = mode == ToolExecution::Sequential
            || calls.iter().any(|call| {
                self.find(&call.name)
                    .is_some_and(|t| t.execution_mode() == ExecutionMode::Sequential)
            });
        if sequential {
            self.execute_sequential(calls).await
        } else {
            self.execute_parallel(calls).await
        }
    }

    /// Answers every call with the same error, without running anything.
    pub fn fail_all(
        &self,
        calls: &[ToolCall],
        text: impl Fn(&ToolCall) -> String,
    ) -> Vec<ToolResultMessage> {
        calls
            .iter()
            .map(|call| {
                self.emit_start(call);
                let outcome = (ToolOutput::text(text(call)), true, None);
                self.emit_end(call, &outcome);
                self.emit_result(call, outcome)
            })
            .collect()
    }

    async fn execute_sequential(&self, calls: &[ToolCall]) -> Vec<ToolResultMessage> {
        let mut results = Vec::with_capacity(calls.len());
        for call in calls {
            self.emit_start(call);
            let outcome = match self.prepare(call).await {
                Prepared::Immediate(output) => (output, true, None),
                Prepared::Ready { tool, args } => self.run_one(tool.as_ref(), call, args).await,
            };
            self.emit_end(call, &outcome);
            results.push(self.emit_result(call, outcome));
        }
        results
    }

    async fn execute_parallel(&self, calls: &[ToolCall]) -> Vec<ToolResultMessage> {
        let mut outcomes: Vec<Option<Outcome>> = vec![None; calls.len()];
        let mut running = FuturesUnordered::new();
        for (index, call) in calls.iter().enumerate() {
            self.emit_start(call);
            match self.prepare(call).await {
                Prepared::Immediate(output) => {
                    let outcome = (output, true, None);
                    self.emit_end(call, &outcome);
                    outcomes[index] = Some(outcome);
                }
                Prepared::Ready { tool, args } => running.push(async move {
                    let outcome = self.run_one(tool.as_ref(), call, args).await;
                    (index, outcome)
                }),
            }
        }
        // `tool_execution_end` in completion order…
        while let Some((index, outcome)) = running.next().await {
            self.emit_end(&calls[index], &outcome);
            outcomes[index] = Some(outcome);
        }
        // …result messages in the assistant's order.
        calls
            .iter()
            .zip(outcomes)
            .map(|(call, outcome)| {
                let outcome =
                    outcome.unwrap_or_else(|| (ToolOutput::text(ABORTED_TEXT), true, None));
                self.emit_result(call, outcome)
            })
            .collect()
    }

    fn find(&self, name: &str) -> Option<&Arc<dyn AgentTool>> {
        self.tools.iter().find(|tool| tool.name() == name)
    }

    async fn prepare(&self, call: &ToolCall) -> Prepared {
        let Some(tool) = self.find(&call.name) else {
            return Prepared::Immediate(ToolOutput::text(format!("Tool {} not found", call.name)));
        };
        if self.cancel.is_cancelled() {
            return Prepared::Immediate(ToolOutput::text(ABORTED_TEXT));
        }
        let args = tool.prepare_arguments(call.arguments.clone());
        let schema = tool.parameters().value();
        let mut args = match validate_tool_arguments(&call.name, schema, &args) {
            Ok(args) => args,
            Err(message) => return Prepared::Immediate(ToolOutput::text(message)),
        };
        if let Some(gate) = &self.hooks.before_tool_call {
            let asked = gate(call, args.clone(), self.cancel.child_token()).await;
            if self.cancel.is_cancelled() {
                return Prepared::Immediate(ToolOutput::text(ABORTED_TEXT));
            }
            match asked {
                ToolGate::Block(reason) => return Prepared::Immediate(ToolOutput::text(reason)),
                ToolGate::Run(rewritten) if rewritten != args => {
                    match validate_tool_arguments(&call.name, schema, &rewritten) {
                        Ok(rewritten) => args = rewritten,
                        Err(message) => return Prepared::Immediate(ToolOutput::text(message)),
                    }
                }
                ToolGate::Run(_) => {}
            }
        }
        Prepared::Ready {
            tool: Arc::clone(tool),
            args,
        }
    }

    async fn run_one(&self, tool: &dyn AgentTool, call: &ToolCall, args: Value) -> Outcome {
        let settled = Arc::new(AtomicBool::new(false));
        let on_update: ToolUpdateFn = {
            let settled = Arc::clone(&settled);
            let emit = Arc::clone(self.emit);
            let (id, name, args) = (call.id.clone(), call.name.clone(), call.arguments.clone());
            Arc::new(move |partial: ToolOutput| {
                // Updates that arrive after the result are stale.
                if !settled.load(Ordering::Acquire) {
                    emit(AgentEvent::ToolExecutionUpdate {
                        tool_call_id: id.clone(),
                        tool_name: name.clone(),
                        args: args.clone(),
                        partial_result: partial,
                    });
                }
            })
        };
        let started = std::time::Instant::now();
        let mut execution =
            tool.execute(&call.id, args.clone(), self.cancel.child_token(), on_update);
        let result = tokio::select! {
            biased;
            result = &mut execution => result,
            _ = self.cancel.cancelled() => {
                match tokio::time::timeout(ABORT_GRACE, &mut execution).await {
                    Ok(result) => result,
                    Err(_) => Err(ToolError::new(ABORTED_TEXT)),
                }
            }
        };
        let duration = Some(elapsed_ms(started));
        settled.store(true, Ordering::Release);
        let (output, is_error) = match result {
            Ok(output) => (output, false),
            Err(error) => (error.into_output(), true),
        };
        let result = match &self.hooks.after_tool_call {
            Some(after) => {
                let result = ToolCallResult { output, is_error };
                after(call, &args, result, self.cancel.child_token()).await
            }
            None => ToolCallResult { output, is_error },
        };
        (result.output, result.is_error, duration)
    }

    fn emit_start(&self, call: &ToolCall) {
        (self.emit)(AgentEvent::ToolExecutionStart {
            tool_call_id: call.id.clone(),
            tool_name: call.name.clone(),
            args: call.arguments.clone(),
        });
    }

    fn emit_end(&self, call: &ToolCall, (output, is_error, duration_ms): &Outcome) {
        (self.emit)(AgentEvent::ToolExecutionEnd {
            tool_call_id: call.id.clone(),
            tool_name: call.name.clone(),
            result: output.clone(),
            is_error: *is_error,
            duration_ms: *duration_ms,
        });
    }

    /// Builds the result message and emits its `message_start`/`message_end`.
    fn emit_result(
        &self,
        call: &ToolCall,
        (output, is_error, duration_ms): Outcome,
    ) -> ToolResultMessage {
        let message = ToolResultMessage {
            tool_call_id: call.id.clone(),
            tool_name: call.name.clone(),
            content: output.content,
            details: Some(output.details),
            is_error,
            timestamp: pi_ai::now_ms(),
            duration_ms,
        };
        (self.emit)(AgentEvent::MessageStart {
            message: message.clone().into(),
        });
        (self.emit)(AgentEvent::MessageEnd {
            message: message.clone().into(),
        });
        message
    }
}
