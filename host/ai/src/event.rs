//! Streaming events and the builder that turns protocol deltas into them.
//!
//! Events carry deltas, not snapshots: cloning the whole partial message on every token would
//! make long answers quadratic. A consumer that needs the partial message applies the events to
//! its own [`MessageBuilder`]-free copy with [`apply_event`]; the builder uses the very same
//! function, so the two can never disagree. Tool-call arguments are parsed incrementally
//! ([`StreamingJson`]): each delta is read once, whatever the length of the call.

use crate::partial_json::{self, PartialJsonError, StreamingJson};
use crate::types::{
    AssistantBlock, AssistantMessage, StopReason, TextContent, ThinkingContent, ToolCall,
};
use serde::Serialize;
use serde_json::Value;

/// One event of an assistant response stream, in pi's vocabulary.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AssistantMessageEvent {
    /// The response started; `partial` is the empty message (api, provider, model).
    Start { partial: AssistantMessage },
    #[serde(rename_all = "camelCase")]
    TextStart { content_index: usize },
    #[serde(rename_all = "camelCase")]
    TextDelta { content_index: usize, delta: String },
    #[serde(rename_all = "camelCase")]
    TextEnd {
        content_index: usize,
        content: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        text_signature: Option<String>,
    },
    #[serde(rename_all = "camelCase")]
    ThinkingStart {
        content_index: usize,
        #[serde(skip_serializing_if = "Option::is_none")]
        redacted: Option<bool>,
    },
    #[serde(rename_all = "camelCase")]
    ThinkingDelta { content_index: usize, delta: String },
    #[serde(rename_all = "camelCase")]
    ThinkingEnd {
        content_index: usize,
        content: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        thinking_signature: Option<String>,
    },
    /// `toolName` on the wire (pi 1.6; pi 0.73 said `name`, which the JSON edge can restore).
    #[serde(rename = "toolcall_start", rename_all = "camelCase")]
    ToolCallStart {
        content_index: usize,
        id: String,
        #[serde(rename = "toolName")]
        name: String,
    },
    /// `delta` is a raw fragment of the arguments JSON.
    #[serde(rename = "toolcall_delta", rename_all = "camelCase")]
    ToolCallDelta { content_index: usize, delta: String },
    #[serde(rename = "toolcall_end", rename_all = "camelCase")]
    ToolCallEnd {
        content_index: usize,
        tool_call: ToolCall,
    },
    /// Terminal success: stop, length or toolUse.
    Done {
        reason: StopReason,
        message: AssistantMessage,
    },
    /// Terminal failure: error or aborted, `error.error_message` says why.
    Error {
        reason: StopReason,
        error: AssistantMessage,
    },
}

impl AssistantMessageEvent {
    pub fn is_terminal(&self) -> bool {
        matches!(
            self,
            AssistantMessageEvent::Done { .. } | AssistantMessageEvent::Error { .. }
        )
    }
}

/// Applies one event to a partial message. `tool_args` keeps the argument parser of each tool
/// call by content index, so a delta updates the call's arguments without a re-parse.
pub fn apply_event(
    message: &mut AssistantMessage,
    tool_args: &mut Vec<StreamingJson>,
    event: &AssistantMessageEvent,
) {
    use AssistantMessageEvent as E;
    match event {
        E::ToolCallStart { content_index, .. } => {
            if tool_args.len() <= *content_index {
                tool_args.resize_with(content_index + 1, StreamingJson::new);
            }
            tool_args[*content_index] = StreamingJson::new();
        }
        E::ToolCallDelta {
            content_index,
            delta,
        } => {
            if let (Some(parser), Some(AssistantBlock::ToolCall(call))) = (
                tool_args.get_mut(*content_index),
                message.content.get_mut(*content_index),
            ) {
                parser.push(&mut call.arguments, delta);
            }
            return;
        }
        _ => {}
    }
    apply_block_event(message, event);
}

/// Applies every event but a tool-call delta (whose arguments only display code parses).
fn apply_block_event(message: &mut AssistantMessage, event: &AssistantMessageEvent) {
    use AssistantMessageEvent as E;
    match event {
        E::Start { partial } => *message = partial.clone(),
        E::TextStart { .. } => message
            .content
            .push(AssistantBlock::Text(TextContent::default())),
        E::TextDelta {
            content_index,
            delta,
        } => {
            if let Some(AssistantBlock::Text(t)) = message.content.get_mut(*content_index) {
                t.text.push_str(delta);
            }
        }
        E::TextEnd {
            content_index,
            text_signature,
            ..
        } => {
            if let Some(AssistantBlock::Text(t)) = message.content.get_mut(*content_index)
                && text_signature.is_some()
            {
                t.text_signature = text_signature.clone();
            }
        }
        E::ThinkingStart { redacted, .. } => {
            message
                .content
                .push(AssistantBlock::Thinking(ThinkingContent {
                    redacted: *redacted,
                    ..Default::default()
                }))
        }
        E::ThinkingDelta {
            content_index,
            delta,
        } => {
            if let Some(AssistantBlock::Thinking(t)) = message.content.get_mut(*content_index) {
                t.thinking.push_str(delta);
            }
        }
        E::ThinkingEnd {
            content_index,
            thinking_signature,
            ..
        } => {
            if let Some(AssistantBlock::Thinking(t)) = message.content.get_mut(*content_index)
                && thinking_signature.is_some()
            {
                t.thinking_signature = thinking_signature.clone();
            }
        }
        E::ToolCallStart { id, name, .. } => {
            message.content.push(AssistantBlock::ToolCall(ToolCall {
                id: id.clone(),
                name: name.clone(),
                arguments: Value::Object(Default::default()),
                thought_signature: None,
            }));
        }
        E::ToolCallDelta { .. } => {}
        E::ToolCallEnd {
            content_index,
            tool_call,
        } => {
            if let Some(block) = message.content.get_mut(*content_index) {
                *block = AssistantBlock::ToolCall(tool_call.clone());
            }
        }
        E::Done { message: m, .. } => *message = m.clone(),
        E::Error { error, .. } => *message = error.clone(),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OpenKind {
    Text,
    Thinking,
    ToolCall,
}

/// Builds an [`AssistantMessage`] from protocol deltas and records the matching events.
///
/// Adapters call `start_*`/`push_*`/`end_*`; the driver drains [`MessageBuilder::take_events`]
/// after each network chunk. Blocks left open when the stream finishes are closed in order.
#[derive(Debug)]
pub struct MessageBuilder {
    message: AssistantMessage,
    /// Raw tool-call argument text per content index (empty for other blocks).
    tool_args: Vec<String>,
    open: Vec<(usize, OpenKind)>,
    events: Vec<AssistantMessageEvent>,
    started: bool,
    /// Tool-call arguments that cannot be used at all (nested too deep): the response fails.
    malformed: Option<String>,
}

impl MessageBuilder {
    pub fn new(message: AssistantMessage) -> Self {
        MessageBuilder {
            message,
            tool_args: Vec::new(),
            open: Vec::new(),
            events: Vec::new(),
            started: false,
            malformed: None,
        }
    }

    /// The message as it stands.
    pub fn message(&self) -> &AssistantMessage {
        &self.message
    }

    pub fn message_mut(&mut self) -> &mut AssistantMessage {
        &mut self.message
    }

    /// Events produced since the last call.
    pub fn take_events(&mut self) -> Vec<AssistantMessageEvent> {
        std::mem::take(&mut self.events)
    }

    pub fn has_started(&self) -> bool {
        self.started
    }

    /// Emits `start` once.
    pub fn start(&mut self) {
        if !self.started {
            self.started = true;
            self.events.push(AssistantMessageEvent::Start {
                partial: self.message.clone(),
            });
        }
    }

    fn emit(&mut self, event: AssistantMessageEvent) {
        self.start();
        // Deltas only collect the raw text: the arguments are parsed once, at the end of the
        // call; parsing each fragment is for display code.
        match &event {
            AssistantMessageEvent::ToolCallDelta {
                content_index,
                delta,
            } => self.tool_args[*content_index].push_str(delta),
            other => apply_block_event(&mut self.message, other),
        }
        self.events.push(event);
    }

    fn next_index(&mut self) -> usize {
        let index = self.message.content.len();
        if self.tool_args.len() <= index {
            self.tool_args.resize(index + 1, String::new());
        }
        index
    }

    pub fn start_text(&mut self) -> usize {
        let index = self.next_index();
        self.emit(AssistantMessageEvent::TextStart {
            content_index: index,
        });
        self.open.push((index, OpenKind::Text));
        index
    }

    pub fn push_text(&mut self, index: usize, delta: &str) {
        if delta.is_empty() || !self.accepts(index, OpenKind::Text) {
            return;
        }
        self.emit(AssistantMessageEvent::TextDelta {
            content_index: index,
            delta: delta.to_owned(),
        });
    }

    /// Sets the text signature (Responses message id) of an open text block. Like deltas,
    /// signatures of closed blocks are dropped: the block's end event already went out.
    pub fn set_text_signature(&mut self, index: usize, signature: String) {
        if !self.accepts(index, OpenKind::Text) {
            return;
        }
        if let Some(AssistantBlock::Text(t)) = self.message.content.get_mut(index) {
            t.text_signature = Some(signature);
        }
    }

    pub fn start_thinking(&mut self, redacted: bool) -> usize {
        let index = self.next_index();
        self.emit(AssistantMessageEvent::ThinkingStart {
            content_index: index,
            redacted: redacted.then_some(true),
        });
        self.open.push((index, OpenKind::Thinking));
        index
    }

    pub fn push_thinking(&mut self, index: usize, delta: &str) {
        if delta.is_empty() || !self.accepts(index, OpenKind::Thinking) {
            return;
        }
        self.emit(AssistantMessageEvent::ThinkingDelta {
            content_index: index,
            delta: delta.to_owned(),
        });
    }

    pub fn set_thinking_signature(&mut self, index: usize, signature: String) {
        if !self.accepts(index, OpenKind::Thinking) {
            return;
        }
        if let Some(AssistantBlock::Thinking(t)) = self.message.content.get_mut(index) {
            t.thinking_signature = Some(signature);
        }
    }

    pub fn start_tool_call(&mut self, id: &str, name: &str) -> usize {
        let index = self.next_index();
        self.emit(AssistantMessageEvent::ToolCallStart {
            content_index: index,
            id: id.to_owned(),
            name: name.to_owned(),
        });
        self.open.push((index, OpenKind::ToolCall));
        index
    }

    pub fn push_tool_args(&mut self, index: usize, delta: &str) {
        if delta.is_empty() || !self.accepts(index, OpenKind::ToolCall) {
            return;
        }
        self.emit(AssistantMessageEvent::ToolCallDelta {
            content_index: index,
            delta: delta.to_owned(),
        });
    }

    /// Replaces a tool call's id (some protocols send it late).
    pub fn set_tool_call_id(&mut self, index: usize, id: &str) {
        if let Some(AssistantBlock::ToolCall(call)) = self.message.content.get_mut(index) {
            call.id = id.to_owned();
        }
    }

    pub fn set_tool_call_name(&mut self, index: usize, name: &str) {
        if let Some(AssistantBlock::ToolCall(call)) = self.message.content.get_mut(index) {
            call.name = name.to_owned();
        }
    }

    pub fn set_thought_signature(&mut self, index: usize, signature: String) {
        if !self.accepts(index, OpenKind::ToolCall) {
            return;
        }
        if let Some(AssistantBlock::ToolCall(call)) = self.message.content.get_mut(index) {
            call.thought_signature = Some(signature);
        }
    }

    /// The raw argument text received so far for a tool call.
    pub fn tool_args(&self, index: usize) -> &str {
        self.tool_args.get(index).map(String::as_str).unwrap_or("")
    }

    /// Replaces the raw argument text (for protocols that send whole arguments at the end).
    pub fn set_tool_args(&mut self, index: usize, args: &str) {
        if let Some(slot) = self.tool_args.get_mut(index) {
            *slot = args.to_owned();
        }
    }

    /// Closes the block at `index` if it is open; closing twice is harmless.
    pub fn end_block(&mut self, index: usize) {
        let Some(pos) = self.open.iter().position(|(i, _)| *i == index) else {
            return;
        };
        let (_, kind) = self.open.remove(pos);
        let event = match (kind, self.message.content.get(index)) {
            (OpenKind::Text, Some(AssistantBlock::Text(t))) => AssistantMessageEvent::TextEnd {
                content_index: index,
                content: t.text.clone(),
                text_signature: t.text_signature.clone(),
            },
            (OpenKind::Thinking, Some(AssistantBlock::Thinking(t))) => {
                AssistantMessageEvent::ThinkingEnd {
                    content_index: index,
                    content: t.thinking.clone(),
                    thinking_signature: t.thinking_signature.clone(),
                }
            }
            (OpenKind::ToolCall, Some(AssistantBlock::ToolCall(call))) => {
                let (arguments, error) = partial_json::parse(&self.tool_args[index]);
                if let Some(error @ PartialJsonError::TooDeep) = error {
                    tracing::warn!(tool = %call.name, "{error}");
                    self.malformed
                        .get_or_insert_with(|| format!("tool call {}: {error}", call.name));
                }
                AssistantMessageEvent::ToolCallEnd {
                    content_index: index,
                    tool_call: ToolCall {
                        arguments,
                        ..call.clone()
                    },
                }
            }
            _ => return,
        };
        self.emit(event);
    }

    /// Whether `index` is an open block of this kind. A delta for anything else (a block the
    /// server already closed, a text delta aimed at a tool call) is dropped: consumers rely on
    /// every delta falling between its block's start and end.
    fn accepts(&self, index: usize, kind: OpenKind) -> bool {
        let open = self.open.contains(&(index, kind));
        if !open {
            tracing::debug!(
                index,
                ?kind,
                "dropping an update of a block that is not open"
            );
        }
        open
    }

    /// Index of the most recently opened block that is still open, if any.
    pub fn last_open(&self) -> Option<usize> {
        self.open.last().map(|(i, _)| *i)
    }

    pub fn is_open(&self, index: usize) -> bool {
        self.open.iter().any(|(i, _)| *i == index)
    }

    /// Closes every open block, oldest first.
    pub fn end_all(&mut self) {
        let mut open: Vec<usize> = self.open.iter().map(|(i, _)| *i).collect();
        open.sort_unstable();
        for index in open {
            self.end_block(index);
        }
    }

    /// Finishes with success. Open blocks are closed; the stop reason becomes `toolUse` when the
    /// message has tool calls and the protocol said plain stop. A tool call whose arguments
    /// nest too deep to be used turns this into [`Self::fail`]: running it with half its
    /// arguments would be worse than an error the user sees.
    pub fn finish(&mut self, reason: StopReason) -> AssistantMessage {
        self.end_all();
        if let Some(message) = self.malformed.take() {
            return self.fail(StopReason::Error, message);
        }
        let has_tools = self.message.tool_calls().next().is_some();
        self.message.stop_reason = if reason == StopReason::Stop && has_tools {
            StopReason::ToolUse
        } else {
            reason
        };
        let message = self.message.clone();
        self.start();
        self.events.push(AssistantMessageEvent::Done {
            reason: message.stop_reason,
            message: message.clone(),
        });
        message
    }

    /// Finishes with a failure, keeping whatever content arrived.
    pub fn fail(&mut self, reason: StopReason, error_message: String) -> AssistantMessage {
        self.end_all();
        self.message.stop_reason = reason;
        self.message.error_message = Some(error_message);
        let message = self.message.clone();
        self.events.push(AssistantMessageEvent::Error {
            reason,
            error: message.clone(),
        });
        message
    }
}
