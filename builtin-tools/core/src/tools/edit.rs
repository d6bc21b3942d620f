//! `edit`: exact (or normalised) text replacement, several disjoint edits per call,
//! all-or-nothing, with BOM and line endings preserved.

use super::edit_diff::diff;
use super::edit_match::{MatchError, apply_edits};
use super::{check_cancel, error_code, fs_error};
use crate::args::Args;
use crate::{BuiltinTool, ExecutionMode, Progress, ToolDefinition, ToolEnv, ToolError, ToolOutput};
use serde_json::{Map, Value, json};
use std::sync::atomic::AtomicBool;

const BOM: &str = "\u{FEFF}";

pub struct EditTool;

impl BuiltinTool for EditTool {
    fn definition(&self) -> ToolDefinition {
        ToolDefinition {
            name: "edit".into(),
            label: "edit".into(),
            description: "Edit one file by exact text replacement. Every edits[].oldText must match \
                          a unique region of the original file and must not overlap another edit; \
                          combine neighbouring changes into a single edit."
                .into(),
            parameters: parameters(),
            prompt_snippet: "Make precise file edits by exact text replacement; several disjoint \
                             edits can go in one call"
                .into(),
            prompt_guidelines: vec![
                "In edit, oldText must match the file exactly, including whitespace and line breaks.".into(),
                "Put all changes to one file into a single edit call with several entries in edits.".into(),
                "Edits in one call must not overlap; merge neighbouring changes into one edit.".into(),
                "Keep each oldText short but unique in the file: just enough context to identify it.".into(),
            ],
            execution_mode: ExecutionMode::Parallel,
        }
    }

    fn prepare_arguments(&self, args: Value) -> Value {
        prepare_arguments(args)
    }

    fn execute(
        &self,
        args: Value,
        env: &ToolEnv,
        _progress: Progress<'_>,
        cancel: &AtomicBool,
    ) -> Result<ToolOutput, ToolError> {
        let args = prepare_arguments(args);
        let parsed = Args::new("edit", &args)?;
        let user_path = parsed.string("path")?;
        let edits = read_edits(parsed.raw("edits"), user_path)?;
        let path = env.resolve_writable(user_path)?;
        check_cancel(cancel)?;
        let raw = std::fs::read(&path).map_err(|e| {
            ToolError::new(format!(
                "Could not edit file: {user_path}. Error code: {}.",
                error_code(&e)
            ))
        })?;
        let text = String::from_utf8(raw).map_err(|_| {
            ToolError::new(format!(
                "Could not edit file: {user_path}. The file is not valid UTF-8 text."
            ))
        })?;
        let (bom, body) = match text.strip_prefix(BOM) {
            Some(rest) => (BOM, rest),
            None => ("", text.as_str()),
        };
        let crlf = uses_crlf(body);
        let original = to_lf(body);
        let updated =
            apply_edits(&original, &edits).map_err(|e| match_error(e, user_path, edits.len()))?;
        if updated == original {
            return Err(no_change(user_path, edits.len()));
        }
        let restored = if crlf {
            updated.replace('\n', "\r\n")
        } else {
            updated.clone()
        };
        check_cancel(cancel)?;
        std::fs::write(&path, format!("{bom}{restored}"))
            .map_err(|e| fs_error("open", &path, &e))?;
        let d = diff(user_path, &original, &updated);
        let mut details = json!({ "diff": d.display, "patch": d.patch });
        if let (Some(line), Some(map)) = (d.first_changed_line, details.as_object_mut()) {
            map.insert("firstChangedLine".into(), json!(line));
        }
        Ok(ToolOutput::text(
            format!(
                "Successfully replaced {} block(s) in {user_path}.",
                edits.len()
            ),
            details,
        ))
    }
}

fn parameters() -> Value {
    json!({
        "type": "object",
        "properties": {
            "path": { "type": "string", "description": "File to edit, relative to the working directory or absolute" },
            "edits": {
                "type": "array",
                "description": "Replacements, each matched against the original file; regions must be unique and disjoint",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "properties": {
                        "oldText": { "type": "string", "description": "Exact text to find; must occur once in the original file" },
                        "newText": { "type": "string", "description": "Text that replaces oldText" }
                    },
                    "required": ["oldText", "newText"]
                }
            }
        },
        "required": ["path", "edits"]
    })
}

/// pi's compatibility shim: `edits` sent as a JSON string is parsed, and a legacy top-level
/// `oldText`/`newText` pair is appended to `edits`.
pub fn prepare_arguments(args: Value) -> Value {
    let Value::Object(mut map) = args else {
        return args;
    };
    if let Some(Value::String(s)) = map.get("edits")
        && let Ok(parsed @ Value::Array(_)) = serde_json::from_str::<Value>(s)
    {
        map.insert("edits".into(), parsed);
    }
    let old = map.get("oldText").cloned();
    let new = map.get("newText").cloned();
    if let (Some(old @ Value::String(_)), Some(new @ Value::String(_))) = (old, new) {
        map.remove("oldText");
        map.remove("newText");
        let mut pair = Map::new();
        pair.insert("oldText".into(), old);
        pair.insert("newText".into(), new);
        match map.get_mut("edits") {
            Some(Value::Array(list)) => list.push(Value::Object(pair)),
            _ => {
                map.insert("edits".into(), Value::Array(vec![Value::Object(pair)]));
            }
        }
    }
    Value::Object(map)
}

fn read_edits(value: Option<&Value>, path: &str) -> Result<Vec<(String, String)>, ToolError> {
    let invalid = || {
        ToolError::new(
            "Invalid arguments for tool \"edit\": edits must be a non-empty array of {oldText, newText}",
        )
    };
    let list = value
        .and_then(Value::as_array)
        .filter(|l| !l.is_empty())
        .ok_or_else(invalid)?;
    let mut edits = Vec::with_capacity(list.len());
    for (i, item) in list.iter().enumerate() {
        let old = item
            .get("oldText")
            .and_then(Value::as_str)
            .ok_or_else(invalid)?;
        let new = item
            .get("newText")
            .and_then(Value::as_str)
            .ok_or_else(invalid)?;
        if old.is_empty() {
            return Err(ToolError::new(if list.len() == 1 {
                format!("oldText must not be empty in {path}.")
            } else {
                format!("edits[{i}].oldText must not be empty in {path}.")
            }));
        }
        edits.push((to_lf(old), to_lf(new)));
    }
    Ok(edits)
}

/// CRLF when the first `\r\n` comes before the first lone `\n`.
fn uses_crlf(text: &str) -> bool {
    let Some(first_nl) = text.find('\n') else {
        return false;
    };
    first_nl > 0 && text.as_bytes()[first_nl - 1] == b'\r'
}

fn to_lf(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\r', "\n")
}

fn match_error(err: MatchError, path: &str, total: usize) -> ToolError {
    let single = total == 1;
    ToolError::new(match err {
        MatchError::NotFound(_) if single => format!(
            "Could not find the exact text in {path}. The old text must match exactly including all whitespace and newlines."
        ),
        MatchError::NotFound(i) => format!(
            "Could not find edits[{i}] in {path}. The oldText must match exactly including all whitespace and newlines."
        ),
        MatchError::NotUnique { count, .. } if single => format!(
            "Found {count} occurrences of the text in {path}. The text must be unique. Please provide more context to make it unique."
        ),
        MatchError::NotUnique { index, count } => format!(
            "Found {count} occurrences of edits[{index}] in {path}. Each oldText must be unique. Please provide more context to make it unique."
        ),
        MatchError::Overlap(a, b) => format!(
            "edits[{a}] and edits[{b}] overlap in {path}. Merge them into one edit or target disjoint regions."
        ),
    })
}

fn no_change(path: &str, total: usize) -> ToolError {
    let what = if total == 1 {
        "The replacement produced identical content."
    } else {
        "The replacements produced identical content."
    };
    ToolError::new(format!(
        "No changes made to {path}. {what} This might indicate an issue with special characters or the text not existing as expected."
    ))
}
