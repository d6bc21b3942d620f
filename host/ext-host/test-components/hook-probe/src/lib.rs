//! The `hook` world's probe (WIT 0.3.0, straight from wit-bindgen on the repository's `wit/`):
//! it subscribes to every event and answers each by markers in the text it sees, so tests
//! (pi-ext-host's and the CLI's) can drive every answer; it serves one command, `/probe`. Its
//! package is granted `ui` and `session` in the tests that use those.
//!
//! - input: `hook:handled…` → handled; `hook:transform <text>` → that text, same images.
//! - before-agent-start: `hook:system` → append `HOOK-SYSTEM-ADDITION`; `hook:message` → a
//!   `probe` message `HOOK-MESSAGE`.
//! - context: the last user message holding `hook:context` becomes `HOOK-CONTEXT-CHANGED`.
//! - tool-call (arguments): `hook-block`, `hook-ask`, `hook-rewrite` (→ `hook-rewritten`),
//!   `hook-trap`, `hook-hang`, `hook-garbage` (a rewrite that is not JSON); `hook-count` →
//!   block with "count N", N counting these calls in this instance's memory; `hook-print`
//!   prints a line and allows; else allow.
//! - tool-result: a text holding `hook-replace` → `HOOK-REPLACED`.
//! - before-compact: cancelled while a `probe-nocompact` entry exists.
//! - session-start: stores a `probe-start` entry with the reason and the session id the host
//!   import gives; agent-end: a notice.
//! - `/probe confirm|nocompact|send <text>|status <text>|<anything>`.

// The glue wit-bindgen generates is unsafe; nothing this crate writes itself is.
#[allow(unsafe_code)]
mod bindings {
    wit_bindgen::generate!({
        path: "../../../../wit",
        world: "pi:extension/hook",
        generate_all,
    });
}

use bindings::exports::pi::extension::hook_guest::Guest;
use std::sync::atomic::{AtomicU32, Ordering};

/// The `hook-count` calls this instance answered.
static COUNTED: AtomicU32 = AtomicU32::new(0);
use bindings::pi::extension::hook_types::{
    AgentEndEvent, BeforeAgentStartAnswer, BeforeAgentStartEvent, BeforeCompactAnswer,
    BeforeCompactEvent, CommandInfo, ContextEvent, EventKind, HookInfo, InputAnswer, InputEvent,
    InputTransform, OutgoingMessage, SessionStart, SessionStartReason, SystemPromptChange,
    ToolCallAnswer, ToolCallEvent, ToolResultAnswer, ToolResultChange, ToolResultEvent,
    TurnEndEvent,
};
use bindings::pi::extension::types::{ContentBlock, Message};
use bindings::pi::extension::{host, session, ui};

struct Probe;

fn probe_message(content: &str) -> OutgoingMessage {
    OutgoingMessage {
        custom_type: "probe".into(),
        content: content.into(),
        display: true,
        details: None,
    }
}

fn holds(blocks: &[ContentBlock], marker: &str) -> bool {
    blocks
        .iter()
        .any(|b| matches!(b, ContentBlock::Text(t) if t.contains(marker)))
}

/// Runs until the host interrupts it.
fn hang() -> ToolCallAnswer {
    let mut n: u64 = 0;
    loop {
        n = std::hint::black_box(n.wrapping_add(1));
    }
}

fn reason(reason: SessionStartReason) -> &'static str {
    match reason {
        SessionStartReason::Startup => "startup",
        SessionStartReason::New => "new",
        SessionStartReason::Resume => "resume",
        SessionStartReason::Fork => "fork",
        SessionStartReason::Reload => "reload",
    }
}

fn confirm() {
    let answer = match ui::confirm("Probe", "Proceed?", None) {
        Some(true) => "yes",
        Some(false) => "no",
        None => "cancelled",
    };
    ui::notify(&format!("probe confirmed: {answer}"), ui::NotifyLevel::Info);
}

impl Guest for Probe {
    fn describe() -> HookInfo {
        HookInfo {
            events: vec![
                EventKind::SessionStart,
                EventKind::SessionShutdown,
                EventKind::Input,
                EventKind::BeforeAgentStart,
                EventKind::Context,
                EventKind::ToolCall,
                EventKind::ToolResult,
                EventKind::BeforeCompact,
                EventKind::TurnEnd,
                EventKind::AgentEnd,
            ],
            commands: vec![CommandInfo {
                name: "probe".into(),
                description: "Probe the hook world".into(),
                argument_hint: Some("<what>".into()),
            }],
        }
    }

    fn on_session_start(event: SessionStart) {
        let host_id = host::session_id().unwrap_or_default();
        let data = format!(
            "{{\"reason\":\"{}\",\"host_session\":\"{host_id}\"}}",
            reason(event.reason)
        );
        let _ = session::append_entry("probe-start", &data);
    }

    fn on_session_shutdown() {}

    fn on_input(event: InputEvent) -> InputAnswer {
        if event.text.starts_with("hook:handled") {
            InputAnswer::Handled
        } else if let Some(rest) = event.text.strip_prefix("hook:transform ") {
            InputAnswer::Transform(InputTransform {
                text: rest.into(),
                images: event.images,
            })
        } else {
            InputAnswer::Continue
        }
    }

    fn on_before_agent_start(event: BeforeAgentStartEvent) -> BeforeAgentStartAnswer {
        BeforeAgentStartAnswer {
            system_prompt: event
                .prompt
                .contains("hook:system")
                .then(|| SystemPromptChange::Append("HOOK-SYSTEM-ADDITION".into())),
            message: event
                .prompt
                .contains("hook:message")
                .then(|| probe_message("HOOK-MESSAGE")),
        }
    }

    fn on_context(event: ContextEvent) -> Option<Vec<Message>> {
        let mut messages = event.messages;
        let last_user = messages
            .iter_mut()
            .rev()
            .find_map(|m| match m {
                Message::User(blocks) => Some(blocks),
                _ => None,
            })
            .filter(|blocks| holds(blocks, "hook:context"))?;
        for block in last_user.iter_mut() {
            if let ContentBlock::Text(text) = block {
                *text = "HOOK-CONTEXT-CHANGED".into();
            }
        }
        Some(messages)
    }

    fn on_tool_call(event: ToolCallEvent) -> ToolCallAnswer {
        let input = event.input_json;
        if input.contains("hook-block") {
            ToolCallAnswer::Block("probe blocked it".into())
        } else if input.contains("hook-ask") {
            ToolCallAnswer::Ask("Let the probe run this?".into())
        } else if input.contains("hook-rewrite") {
            ToolCallAnswer::Rewrite(input.replace("hook-rewrite", "hook-rewritten"))
        } else if input.contains("hook-trap") {
            panic!("the probe traps on purpose")
        } else if input.contains("hook-hang") {
            hang()
        } else if input.contains("hook-garbage") {
            ToolCallAnswer::Rewrite("not json{".into())
        } else if input.contains("hook-count") {
            let n = COUNTED.fetch_add(1, Ordering::Relaxed) + 1;
            ToolCallAnswer::Block(format!("count {n}"))
        } else if input.contains("hook-write") {
            // Whether the hook's grant lets it write: read-only in plan mode whatever it was
            // granted.
            match std::fs::write("hook-wrote.txt", "written by the hook") {
                Ok(()) => ToolCallAnswer::Block("hook write: done".into()),
                Err(error) => ToolCallAnswer::Block(format!("hook write refused: {error}")),
            }
        } else if input.contains("hook-print") {
            println!("the probe prints");
            ToolCallAnswer::Allow
        } else {
            ToolCallAnswer::Allow
        }
    }

    fn on_tool_result(event: ToolResultEvent) -> ToolResultAnswer {
        if holds(&event.content, "hook-replace") {
            ToolResultAnswer::Replace(ToolResultChange {
                content: vec![ContentBlock::Text("HOOK-REPLACED".into())],
                is_error: false,
            })
        } else {
            ToolResultAnswer::Keep
        }
    }

    fn on_before_compact(_event: BeforeCompactEvent) -> BeforeCompactAnswer {
        match session::entries("probe-nocompact") {
            Ok(entries) if !entries.is_empty() => {
                BeforeCompactAnswer::Cancel("probe keeps the context".into())
            }
            _ => BeforeCompactAnswer::Continue,
        }
    }

    fn on_turn_end(_event: TurnEndEvent) {}

    fn on_agent_end(_event: AgentEndEvent) {
        ui::notify("probe: run ended", ui::NotifyLevel::Info);
    }

    fn run_command(name: String, args: String) -> Result<(), String> {
        if name != "probe" {
            return Err(format!("unknown command {name}"));
        }
        if args == "confirm" {
            confirm();
        } else if args == "nocompact" {
            session::append_entry("probe-nocompact", "{}")?;
        } else if let Some(text) = args.strip_prefix("send ") {
            let sent = session::send_message(&probe_message(text), session::DeliverAs::FollowUp);
            if let Err(error) = sent {
                ui::notify(&error, ui::NotifyLevel::Error);
            }
        } else if let Some(text) = args.strip_prefix("status ") {
            ui::set_status("probe", Some(text));
        } else {
            ui::notify(&format!("probe: {args}"), ui::NotifyLevel::Info);
        }
        Ok(())
    }
}

#[allow(unsafe_code)]
mod export {
    use super::Probe;
    crate::bindings::export!(Probe with_types_in crate::bindings);
}
