//! permission-gate: a pi hook (the `hook` world of WIT 0.3.0) that looks at every `bash` call
//! before it runs and answers `ask` for the dangerous ones (`danger.rs` says which), so pi asks
//! the user first. Where nobody can answer (print and JSON modes) pi's answer is no and the call
//! is blocked. Every other call is allowed.

mod danger;

use pi_guest_sdk::{Hook, ToolCallAnswer, ToolCallEvent};

struct PermissionGate;

impl Hook for PermissionGate {
    fn on_tool_call(event: ToolCallEvent) -> ToolCallAnswer {
        if event.tool != "bash" {
            return ToolCallAnswer::Allow;
        }
        // Arguments the bash tool would refuse are not this gate's business.
        let Ok(input) = serde_json::from_str::<serde_json::Value>(&event.input_json) else {
            return ToolCallAnswer::Allow;
        };
        let Some(command) = input["command"].as_str() else {
            return ToolCallAnswer::Allow;
        };
        match danger::find(command) {
            Some(danger) => {
                ToolCallAnswer::Ask(format!("Run `{}`? It {danger}.", one_line(command)))
            }
            None => ToolCallAnswer::Allow,
        }
    }
}

/// The command as one line of at most 200 characters, for the question.
fn one_line(command: &str) -> String {
    let line = command.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(200) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line,
    }
}

pi_guest_sdk::export_hook!(PermissionGate: on_tool_call);
