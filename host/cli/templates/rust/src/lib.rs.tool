//! `{{name}}`: a tool component serving one tool, `{{ident}}`, which counts the lines, words and
//! characters of a text. Replace `describe` and `execute` with your own tool; pi validates the
//! arguments against the schema before `execute` is called.

wit_bindgen::generate!({
    path: "wit",
    world: "pi:extension/tool",
    // The world names WASI interfaces (the file system); generate their bindings too.
    generate_all,
});

use exports::pi::extension::tool_guest::Guest;
use pi::extension::host::{LogLevel, log};
use pi::extension::types::{ContentBlock, ExecutionMode, ToolCall, ToolDefinition, ToolResult};

struct Component;

impl Guest for Component {
    fn describe() -> Vec<ToolDefinition> {
        vec![ToolDefinition {
            name: "{{ident}}".into(),
            label: "{{name}}".into(),
            description: "Counts the lines, words and characters of a text.".into(),
            parameters_schema: serde_json::json!({
                "type": "object",
                "properties": {"text": {"type": "string", "description": "The text to count"}},
                "required": ["text"],
            })
            .to_string(),
            prompt_snippet: Some("Count the lines, words and characters of a text".into()),
            prompt_guidelines: Vec::new(),
            execution_mode: ExecutionMode::Parallel,
        }]
    }

    fn execute(call: ToolCall) -> Result<ToolResult, String> {
        let arguments: serde_json::Value = serde_json::from_str(&call.arguments)
            .map_err(|e| format!("the arguments are not JSON: {e}"))?;
        let text = arguments["text"]
            .as_str()
            .ok_or("`text` must be a string")?;
        let (lines, words, chars) = (
            text.lines().count(),
            text.split_whitespace().count(),
            text.chars().count(),
        );
        // Goes to pi's log (and to stderr with `pi --verbose`), tagged with the package.
        log(
            LogLevel::Debug,
            &format!("{}: counted {words} words", call.id),
        );
        Ok(ToolResult {
            content: vec![ContentBlock::Text(format!(
                "lines: {lines}, words: {words}, characters: {chars}"
            ))],
            // Shown to renderers and kept in the session file; the model sees `content`.
            details: Some(
                serde_json::json!({"lines": lines, "words": words, "chars": chars}).to_string(),
            ),
            is_error: false,
        })
    }
}

export!(Component);
