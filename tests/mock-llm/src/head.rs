//! The head of a request: its system prompt and its first user message, as text, in any of
//! the four wire formats. Keyed replies are matched against it, so that a child agent (its own
//! system prompt and task) gets its own script while the parent's later requests, which carry
//! the child's task and answer deeper in the conversation, do not match.

use serde_json::Value;

/// The system prompt and the first user message's text, joined.
pub(crate) fn head_text(body: &Value) -> String {
    let mut out = String::new();
    for key in ["system", "instructions", "systemInstruction"] {
        push_text(&mut out, &body[key]);
    }
    let turns = ["messages", "input", "contents"]
        .iter()
        .find_map(|key| body[*key].as_array());
    for turn in turns.into_iter().flatten() {
        let role = turn["role"].as_str().unwrap_or_default();
        if matches!(role, "system" | "developer") {
            push_text(&mut out, &turn["content"]);
        } else if role == "user" {
            push_text(&mut out, &turn["content"]);
            push_text(&mut out, &turn["parts"]);
            break;
        }
    }
    out
}

/// Appends every string in `value` that is text (a string, or the `text` of blocks and parts).
fn push_text(out: &mut String, value: &Value) {
    match value {
        Value::String(text) => {
            out.push_str(text);
            out.push('\n');
        }
        Value::Array(items) => items.iter().for_each(|item| push_text(out, item)),
        Value::Object(map) => {
            if let Some(text) = map.get("text") {
                push_text(out, text);
            }
            if let Some(parts) = map.get("parts") {
                push_text(out, parts);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_head_is_the_system_prompt_and_the_first_user_message_in_every_format() {
        let anthropic = json!({"system": [{"type": "text", "text": "You are SCOUT"}],
            "messages": [{"role": "user", "content": [{"type": "text", "text": "Task: a"}]},
                         {"role": "user", "content": "later"}]});
        let head = head_text(&anthropic);
        assert!(head.contains("SCOUT") && head.contains("Task: a") && !head.contains("later"));
        let completions = json!({"messages": [{"role": "system", "content": "You are SCOUT"},
            {"role": "user", "content": "Task: b"}, {"role": "assistant", "content": "x"},
            {"role": "user", "content": "later"}]});
        let head = head_text(&completions);
        assert!(head.contains("SCOUT") && head.contains("Task: b") && !head.contains("later"));
        let responses = json!({"instructions": "You are SCOUT",
            "input": [{"role": "user", "content": [{"type": "input_text", "text": "Task: c"}]}]});
        assert!(head_text(&responses).contains("Task: c"));
        let google = json!({"systemInstruction": {"parts": [{"text": "You are SCOUT"}]},
            "contents": [{"role": "user", "parts": [{"text": "Task: d"}]}]});
        let head = head_text(&google);
        assert!(head.contains("SCOUT") && head.contains("Task: d"));
    }
}
