//! pi 1.6's `structuredContent` of the built-in tools' results, for programs reading the
//! result rather than the model: `read` gives its text (or the image with the text as a note),
//! `bash` an object `{output, truncated, full_output_path?, exit_code, wall_time_seconds}`.
//! The other built-ins have none. Built here, at the host side of the component, from what the
//! component returned (its text, its details, the full-output file) and the call's wall time,
//! so the components and their WIT contract stay as they are.

use pi_agent::{ToolError, ToolOutput};
use pi_ai::UserBlock;
use serde_json::{Value, json};
use std::io::{Read, Seek, SeekFrom};
use std::time::Duration;

/// pi's limit of `structuredContent.output`: longer output keeps its first and last halves.
const OUTPUT_MAX_BYTES: u64 = 1024 * 1024;
/// What `bash` shows when a command printed nothing.
const NO_OUTPUT: &str = "(no output)";
const EXIT_STATUS: &str = "\n\nCommand exited with code ";

/// `result` with the structured content of tool `name`, which ran for `elapsed`.
pub fn attach(
    name: &str,
    result: Result<ToolOutput, ToolError>,
    elapsed: Duration,
) -> Result<ToolOutput, ToolError> {
    match (name, result) {
        ("read", Ok(mut output)) => {
            output.structured_content = Some(Box::new(read_content(&output.content)));
            Ok(output)
        }
        ("bash", Ok(mut output)) => {
            let text = first_text(&output.content).to_owned();
            let content = bash_content(&text, &output.details, 0, elapsed);
            output.structured_content = Some(Box::new(content));
            Ok(output)
        }
        // A non-zero exit is an error result that still reports the command's run; an abort
        // or a timeout reports none.
        ("bash", Err(mut error)) => {
            if let Some((text, code)) = exit_status(&error.message) {
                let details = error.details.clone().unwrap_or(Value::Null);
                let content = bash_content(text, &details, code, elapsed);
                error.structured_content = Some(Box::new(content));
            }
            Err(error)
        }
        (_, result) => result,
    }
}

fn first_text(content: &[UserBlock]) -> &str {
    content
        .iter()
        .find_map(|b| match b {
            UserBlock::Text(t) => Some(t.text.as_str()),
            UserBlock::Image(_) => None,
        })
        .unwrap_or("")
}

/// `read`: the text, or `{type: "image", data, mimeType, note}` for an image.
fn read_content(content: &[UserBlock]) -> Value {
    let text = first_text(content);
    let image = content.iter().find_map(|b| match b {
        UserBlock::Image(i) => Some(i),
        UserBlock::Text(_) => None,
    });
    match image {
        Some(image) => json!({"type": "image", "data": image.data,
                              "mimeType": image.mime_type, "note": text}),
        None => json!(text),
    }
}

/// The text before `bash`'s exit status line, and the code.
fn exit_status(message: &str) -> Option<(&str, i64)> {
    let at = message.rfind(EXIT_STATUS)?;
    let code = message[at + EXIT_STATUS.len()..].trim().parse().ok()?;
    Some((&message[..at], code))
}

fn bash_content(text: &str, details: &Value, exit_code: i64, elapsed: Duration) -> Value {
    let (output, truncated, path) = match details.get("fullOutputPath").and_then(Value::as_str) {
        // The text is a tail with a footer: the whole output is in the file.
        Some(path) => match read_full_output(path) {
            Ok((output, truncated)) => (output, truncated, truncated.then_some(path)),
            Err(error) => {
                tracing::warn!("bash output file {path}: {error}");
                (text.to_owned(), true, Some(path))
            }
        },
        None if text == NO_OUTPUT => (String::new(), false, None),
        None => (text.to_owned(), false, None),
    };
    let mut content = json!({"output": output, "truncated": truncated});
    if let (Some(path), Some(map)) = (path, content.as_object_mut()) {
        map.insert("full_output_path".into(), json!(path));
    }
    content["exit_code"] = json!(exit_code);
    // Tenths of a second, as pi reports it.
    content["wall_time_seconds"] = json!((elapsed.as_secs_f64() * 10.0).round() / 10.0);
    content
}

/// The file's text, or its first and last halves of [`OUTPUT_MAX_BYTES`] around a marker
/// (then `true`).
fn read_full_output(path: &str) -> std::io::Result<(String, bool)> {
    let mut file = std::fs::File::open(path)?;
    let size = file.metadata()?.len();
    if size <= OUTPUT_MAX_BYTES {
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        return Ok((String::from_utf8_lossy(&bytes).into_owned(), false));
    }
    let head_len = OUTPUT_MAX_BYTES / 2;
    let tail_len = OUTPUT_MAX_BYTES - head_len;
    let mut head = Vec::new();
    (&mut file).take(head_len).read_to_end(&mut head)?;
    file.seek(SeekFrom::Start(size - tail_len))?;
    let mut tail = Vec::new();
    file.read_to_end(&mut tail)?;
    // Whole characters only: an incomplete sequence at the head's end is dropped, and so are
    // continuation bytes at the tail's start.
    let head = match std::str::from_utf8(&head) {
        Ok(text) => text.to_owned(),
        Err(e) => String::from_utf8_lossy(&head[..e.valid_up_to()]).into_owned(),
    };
    let start = tail.iter().take_while(|b| (*b & 0xc0) == 0x80).count();
    let tail = String::from_utf8_lossy(&tail[start..]);
    let omitted = size - head_len - tail_len;
    Ok((
        format!("{head}\n\n[... {omitted} bytes omitted ...]\n\n{tail}"),
        true,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(t: &str) -> ToolOutput {
        ToolOutput::text(t)
    }

    #[test]
    fn read_gives_its_text() {
        let out = attach("read", Ok(text("alpha\nbeta\n")), Duration::ZERO).unwrap();
        assert_eq!(
            out.structured_content,
            Some(Box::new(json!("alpha\nbeta\n")))
        );
    }

    #[test]
    fn bash_gives_output_exit_code_and_wall_time() {
        let out = attach("bash", Ok(text("hi\n")), Duration::from_millis(1240)).unwrap();
        assert_eq!(
            out.structured_content,
            Some(Box::new(
                json!({"output": "hi\n", "truncated": false, "exit_code": 0,
                                 "wall_time_seconds": 1.2})
            ))
        );
        let empty = attach("bash", Ok(text(NO_OUTPUT)), Duration::ZERO).unwrap();
        assert_eq!(empty.structured_content.unwrap()["output"], "");
    }

    #[test]
    fn bash_failing_with_a_code_keeps_it_and_an_abort_has_none() {
        let failed = ToolError::new("oops\n\nCommand exited with code 3");
        let error = attach("bash", Err(failed), Duration::ZERO).unwrap_err();
        let content = *error.structured_content.clone().unwrap();
        assert_eq!(
            (content["output"].clone(), content["exit_code"].clone()),
            (json!("oops"), json!(3))
        );
        assert_eq!(
            error.into_output().structured_content,
            Some(Box::new(content))
        );
        let aborted = attach(
            "bash",
            Err(ToolError::new("x\n\nCommand aborted")),
            Duration::ZERO,
        );
        assert_eq!(aborted.unwrap_err().structured_content, None);
    }

    #[test]
    fn a_long_output_file_keeps_both_ends() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.log");
        let size = OUTPUT_MAX_BYTES as usize + 10;
        std::fs::write(&path, "a".repeat(size)).unwrap();
        let details = json!({"fullOutputPath": path.to_str().unwrap()});
        let content = bash_content("tail", &details, 0, Duration::ZERO);
        assert_eq!(content["truncated"], true);
        assert_eq!(content["full_output_path"], path.to_str().unwrap());
        assert!(
            content["output"]
                .as_str()
                .unwrap()
                .contains("[... 10 bytes omitted ...]")
        );
    }

    #[test]
    fn other_tools_have_none() {
        let out = attach("ls", Ok(text("a\nb")), Duration::ZERO).unwrap();
        assert_eq!(out.structured_content, None);
    }
}
