//! Conversions between pi-ext-api's hook events and answers and the `hook` world's WIT types.
//! Events go out as they are (messages through `convert.rs`); answers come back checked: a
//! rewrite must be a JSON object, a message's details JSON, texts bounded. A check that fails
//! is the component's failure, reported with its name by the caller.

use crate::bindings::latest::tool::pi::extension::hook_types as wit;
use crate::bindings::types as wit_types;
use crate::bounds;
use crate::convert;
use crate::grant::Limits;
use pi_ai::Message;
use pi_ext_api::CompactionReason;
use pi_ext_api::hooks::{
    BeforeCompactAnswer, CommandInfo, HookAnswer, HookEvent, HookEventKind, HookInfo, InputAnswer,
    InputSource, SessionStartReason, SystemPromptChange, ToolCallAnswer, ToolResultAnswer,
};
use serde_json::Value;

/// Longest text a hook may answer with (a prompt, a system prompt addition, a reason).
const TEXT_BYTES: usize = 256 * 1024;
/// Most commands one hook component may serve.
const COMMANDS: usize = 32;

/// An event in its WIT form: the argument of one `hook-guest` export.
pub(crate) enum WitEvent {
    SessionStart(wit::SessionStart),
    SessionShutdown,
    Input(wit::InputEvent),
    BeforeAgentStart(wit::BeforeAgentStartEvent),
    Context(wit::ContextEvent),
    ToolCall(wit::ToolCallEvent),
    ToolResult(wit::ToolResultEvent),
    BeforeCompact(wit::BeforeCompactEvent),
    TurnEnd(wit::TurnEndEvent),
    AgentEnd(wit::AgentEndEvent),
}

/// What one `hook-guest` export returned.
pub(crate) enum WitAnswer {
    Observed,
    Input(wit::InputAnswer),
    BeforeAgentStart(wit::BeforeAgentStartAnswer),
    Context(Option<Vec<wit_types::Message>>),
    ToolCall(wit::ToolCallAnswer),
    ToolResult(wit::ToolResultAnswer),
    BeforeCompact(wit::BeforeCompactAnswer),
}

pub(crate) fn event_kind(kind: wit::EventKind) -> HookEventKind {
    match kind {
        wit::EventKind::SessionStart => HookEventKind::SessionStart,
        wit::EventKind::SessionShutdown => HookEventKind::SessionShutdown,
        wit::EventKind::Input => HookEventKind::Input,
        wit::EventKind::BeforeAgentStart => HookEventKind::BeforeAgentStart,
        wit::EventKind::Context => HookEventKind::Context,
        wit::EventKind::ToolCall => HookEventKind::ToolCall,
        wit::EventKind::ToolResult => HookEventKind::ToolResult,
        wit::EventKind::BeforeCompact => HookEventKind::BeforeCompact,
        wit::EventKind::TurnEnd => HookEventKind::TurnEnd,
        wit::EventKind::AgentEnd => HookEventKind::AgentEnd,
    }
}

/// A command name: lower-case letters, digits, `-` and `_`, 1 to 64 of them.
fn command_name_ok(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
}

/// What `describe` answered, checked: command names well formed and unique, at most
/// [`COMMANDS`], texts bounded; events once each.
pub(crate) fn hook_info(info: wit::HookInfo) -> Result<HookInfo, String> {
    if info.commands.len() > COMMANDS {
        return Err(format!(
            "the component serves {} commands; at most {COMMANDS} are allowed",
            info.commands.len()
        ));
    }
    let mut events: Vec<HookEventKind> = Vec::new();
    for kind in info.events.into_iter().map(event_kind) {
        if !events.contains(&kind) {
            events.push(kind);
        }
    }
    let mut commands: Vec<CommandInfo> = Vec::new();
    for command in info.commands {
        if !command_name_ok(&command.name) {
            return Err(format!(
                "command name `{}` must be 1-64 of a-z, 0-9, - and _",
                command.name
            ));
        }
        if commands.iter().any(|c| c.name == command.name) {
            return Err(format!("command `{}` is listed twice", command.name));
        }
        commands.push(CommandInfo {
            name: command.name,
            description: bounds::cut_owned(command.description, 1024),
            argument_hint: command.argument_hint.map(|h| bounds::cut_owned(h, 256)),
        });
    }
    Ok(HookInfo { events, commands })
}

fn image(image: &pi_ai::ImageContent) -> wit_types::Image {
    wit_types::Image {
        data: image.data.clone(),
        mime_type: image.mime_type.clone(),
    }
}

fn from_image(image: wit_types::Image) -> pi_ai::ImageContent {
    pi_ai::ImageContent {
        data: image.data,
        mime_type: image.mime_type,
    }
}

fn session_start(reason: SessionStartReason) -> wit::SessionStartReason {
    match reason {
        SessionStartReason::Startup => wit::SessionStartReason::Startup,
        SessionStartReason::New => wit::SessionStartReason::New,
        SessionStartReason::Resume => wit::SessionStartReason::Resume,
        SessionStartReason::Fork => wit::SessionStartReason::Fork,
        SessionStartReason::Reload => wit::SessionStartReason::Reload,
    }
}

fn source(source: InputSource) -> wit::InputSource {
    match source {
        InputSource::Interactive => wit::InputSource::Interactive,
        InputSource::Rpc => wit::InputSource::Rpc,
        InputSource::Extension => wit::InputSource::Extension,
    }
}

fn compact_reason(reason: CompactionReason) -> wit::CompactReason {
    match reason {
        CompactionReason::Manual => wit::CompactReason::Manual,
        CompactionReason::Threshold => wit::CompactReason::Threshold,
        CompactionReason::Overflow => wit::CompactReason::Overflow,
    }
}

fn tool_result_message(m: &pi_ai::ToolResultMessage) -> wit_types::ToolResultMessage {
    wit_types::ToolResultMessage {
        tool_call_id: m.tool_call_id.clone(),
        tool_name: m.tool_name.clone(),
        content: m.content.iter().map(convert::content_block).collect(),
        is_error: m.is_error,
    }
}

/// The WIT form of `event`.
pub(crate) fn to_wit(event: &HookEvent) -> WitEvent {
    match event {
        HookEvent::SessionStart {
            reason,
            session_id,
            cwd,
        } => WitEvent::SessionStart(wit::SessionStart {
            reason: session_start(*reason),
            session_id: session_id.clone(),
            cwd: cwd.to_string_lossy().into_owned(),
        }),
        HookEvent::SessionShutdown => WitEvent::SessionShutdown,
        HookEvent::Input {
            text,
            images,
            source: from,
        } => WitEvent::Input(wit::InputEvent {
            text: text.clone(),
            images: images.iter().map(image).collect(),
            source: source(*from),
        }),
        HookEvent::BeforeAgentStart {
            prompt,
            system_prompt,
        } => WitEvent::BeforeAgentStart(wit::BeforeAgentStartEvent {
            prompt: prompt.clone(),
            system_prompt: system_prompt.clone(),
        }),
        HookEvent::Context { messages } => WitEvent::Context(wit::ContextEvent {
            messages: messages.iter().map(|m| convert::message(m)).collect(),
        }),
        HookEvent::ToolCall {
            call_id,
            tool,
            input,
        } => WitEvent::ToolCall(wit::ToolCallEvent {
            call_id: call_id.clone(),
            tool: tool.clone(),
            input_json: input.to_string(),
        }),
        HookEvent::ToolResult {
            call_id,
            tool,
            input,
            content,
            is_error,
        } => WitEvent::ToolResult(wit::ToolResultEvent {
            call_id: call_id.clone(),
            tool: tool.clone(),
            input_json: input.to_string(),
            content: content.iter().map(convert::content_block).collect(),
            is_error: *is_error,
        }),
        HookEvent::BeforeCompact {
            reason,
            tokens_before,
        } => WitEvent::BeforeCompact(wit::BeforeCompactEvent {
            reason: compact_reason(*reason),
            tokens_before: *tokens_before,
        }),
        HookEvent::TurnEnd {
            turn_index,
            message,
            tool_results,
        } => WitEvent::TurnEnd(wit::TurnEndEvent {
            turn_index: *turn_index,
            message: convert::assistant(message),
            tool_results: tool_results.iter().map(tool_result_message).collect(),
        }),
        HookEvent::AgentEnd {
            duration_ms,
            last_message,
        } => WitEvent::AgentEnd(wit::AgentEndEvent {
            duration_ms: *duration_ms,
            last_message: last_message.as_ref().map(convert::assistant),
        }),
    }
}

fn bounded(what: &str, text: String) -> Result<String, String> {
    if text.len() > TEXT_BYTES {
        return Err(format!(
            "{what} is {} bytes; at most {TEXT_BYTES} are allowed",
            text.len()
        ));
    }
    Ok(text)
}

/// A rewritten tool input: a JSON object.
fn rewritten(input: &str) -> Result<Value, String> {
    match serde_json::from_str::<Value>(input) {
        Ok(value @ Value::Object(_)) => Ok(value),
        Ok(_) => Err("the rewritten tool input is not a JSON object".to_owned()),
        Err(e) => Err(format!("the rewritten tool input is not JSON: {e}")),
    }
}

/// The answer as pi-ext-api's, checked; `kind` is the event it answers (a component cannot
/// answer another event's way, but the host says so rather than trusts it).
pub(crate) fn from_wit(
    kind: HookEventKind,
    answer: WitAnswer,
    limits: &Limits,
) -> Result<HookAnswer, String> {
    Ok(match (kind, answer) {
        (_, WitAnswer::Observed) => HookAnswer::Observed,
        (HookEventKind::Input, WitAnswer::Input(answer)) => HookAnswer::Input(match answer {
            wit::InputAnswer::Continue => InputAnswer::Continue,
            wit::InputAnswer::Handled => InputAnswer::Handled,
            wit::InputAnswer::Transform(t) => InputAnswer::Transform {
                text: bounded("the transformed prompt", t.text)?,
                images: t.images.into_iter().map(from_image).collect(),
            },
        }),
        (HookEventKind::BeforeAgentStart, WitAnswer::BeforeAgentStart(answer)) => {
            HookAnswer::BeforeAgentStart {
                system_prompt: match answer.system_prompt {
                    None => None,
                    Some(wit::SystemPromptChange::Append(text)) => Some(
                        SystemPromptChange::Append(bounded("the system prompt addition", text)?),
                    ),
                    Some(wit::SystemPromptChange::Replace(text)) => Some(
                        SystemPromptChange::Replace(bounded("the system prompt", text)?),
                    ),
                },
                message: answer
                    .message
                    .map(|m| crate::services::outgoing(m, limits))
                    .transpose()?,
            }
        }
        (HookEventKind::Context, WitAnswer::Context(messages)) => HookAnswer::Context(
            messages.map(|list| list.into_iter().map(convert::from_message).collect()),
        ),
        (HookEventKind::ToolCall, WitAnswer::ToolCall(answer)) => {
            HookAnswer::ToolCall(match answer {
                wit::ToolCallAnswer::Allow => ToolCallAnswer::Allow,
                wit::ToolCallAnswer::Block(reason) => {
                    ToolCallAnswer::Block(bounded("the reason", reason)?)
                }
                wit::ToolCallAnswer::Ask(question) => {
                    ToolCallAnswer::Ask(bounded("the question", question)?)
                }
                wit::ToolCallAnswer::Rewrite(input) => ToolCallAnswer::Rewrite(rewritten(&input)?),
            })
        }
        (HookEventKind::ToolResult, WitAnswer::ToolResult(answer)) => {
            HookAnswer::ToolResult(match answer {
                wit::ToolResultAnswer::Keep => ToolResultAnswer::Keep,
                wit::ToolResultAnswer::Replace(change) => {
                    let result = wit_types::ToolResult {
                        content: change.content,
                        details: None,
                        is_error: change.is_error,
                    };
                    let output = bounds::tool_output(result, limits);
                    ToolResultAnswer::Replace {
                        content: output.content,
                        is_error: change.is_error,
                    }
                }
            })
        }
        (HookEventKind::BeforeCompact, WitAnswer::BeforeCompact(answer)) => {
            HookAnswer::BeforeCompact(match answer {
                wit::BeforeCompactAnswer::Continue => BeforeCompactAnswer::Continue,
                wit::BeforeCompactAnswer::Cancel(reason) => {
                    BeforeCompactAnswer::Cancel(bounded("the reason", reason)?)
                }
            })
        }
        (kind, _) => return Err(format!("the answer does not fit the event {kind:?}")),
    })
}

/// Keeps the original of each message the hook handed back unchanged (its timestamps,
/// signatures and details survive); changed or new ones are the hook's.
pub(crate) fn keep_unchanged(
    originals: &[std::sync::Arc<Message>],
    changed: Vec<Message>,
) -> Vec<Message> {
    changed
        .into_iter()
        .enumerate()
        .map(|(i, message)| match originals.get(i) {
            Some(original) if same(original, &message) => Message::clone(original),
            _ => message,
        })
        .collect()
}

/// Whether two messages say the same in their WIT form (what the hook could see). The
/// generated WIT types have no `PartialEq`; their `Debug` form shows every field.
fn same(a: &Message, b: &Message) -> bool {
    format!("{:?}", convert::message(a)) == format!("{:?}", convert::message(b))
}
