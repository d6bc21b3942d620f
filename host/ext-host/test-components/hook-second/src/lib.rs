//! A second hook component (WIT 0.3.0), for the ordering tests: it wants tool calls only,
//! stores a `second-called` entry for each (`{"call": <id>}`), and rewrites `hook-rewritten`
//! (the probe's rewrite) to `hook-rewritten-twice`, so a chain of rewrites shows in load order.

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
use bindings::pi::extension::hook_types::{
    AgentEndEvent, BeforeAgentStartAnswer, BeforeAgentStartEvent, BeforeCompactAnswer,
    BeforeCompactEvent, ContextEvent, EventKind, HookInfo, InputAnswer, InputEvent, SessionStart,
    ToolCallAnswer, ToolCallEvent, ToolResultAnswer, ToolResultEvent, TurnEndEvent,
};
use bindings::pi::extension::session;
use bindings::pi::extension::types::Message;

struct Second;

/// `text` as a JSON string literal.
fn quoted(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

impl Guest for Second {
    fn describe() -> HookInfo {
        HookInfo {
            events: vec![EventKind::ToolCall],
            commands: vec![],
        }
    }

    fn on_tool_call(event: ToolCallEvent) -> ToolCallAnswer {
        let data = format!("{{\"call\":{}}}", quoted(&event.call_id));
        let _ = session::append_entry("second-called", &data);
        if event.input_json.contains("hook-rewritten") {
            ToolCallAnswer::Rewrite(
                event
                    .input_json
                    .replace("hook-rewritten", "hook-rewritten-twice"),
            )
        } else {
            ToolCallAnswer::Allow
        }
    }

    // Not subscribed: the host never calls these.
    fn on_session_start(_event: SessionStart) {}
    fn on_session_shutdown() {}
    fn on_input(_event: InputEvent) -> InputAnswer {
        InputAnswer::Continue
    }
    fn on_before_agent_start(_event: BeforeAgentStartEvent) -> BeforeAgentStartAnswer {
        BeforeAgentStartAnswer {
            system_prompt: None,
            message: None,
        }
    }
    fn on_context(_event: ContextEvent) -> Option<Vec<Message>> {
        None
    }
    fn on_tool_result(_event: ToolResultEvent) -> ToolResultAnswer {
        ToolResultAnswer::Keep
    }
    fn on_before_compact(_event: BeforeCompactEvent) -> BeforeCompactAnswer {
        BeforeCompactAnswer::Continue
    }
    fn on_turn_end(_event: TurnEndEvent) {}
    fn on_agent_end(_event: AgentEndEvent) {}
    fn run_command(name: String, _args: String) -> Result<(), String> {
        Err(format!("unknown command {name}"))
    }
}

#[allow(unsafe_code)]
mod export {
    use super::Second;
    crate::bindings::export!(Second with_types_in crate::bindings);
}
