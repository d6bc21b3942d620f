//! Ctrl+G: the editor's text in the user's own editor (`externalEditor`, `$VISUAL`,
//! `$EDITOR`). The text goes through a file of its own in the temp dir; the command runs through
//! the shell, so values like `code --wait` work, with the file as its last argument.

use std::path::PathBuf;
use std::process::Command;

/// Why the external editor gave nothing back.
#[derive(Debug, thiserror::Error)]
pub enum ExternalEditorError {
    #[error(
        "No external editor is set: set externalEditor in settings.json, or $VISUAL or $EDITOR"
    )]
    NotSet,
    #[error("Cannot use the file for the external editor ({path}): {source}")]
    File {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("Cannot start the external editor `{command}`: {source}")]
    Start {
        command: String,
        source: std::io::Error,
    },
    #[error("The external editor `{command}` failed ({status}); the text was kept")]
    Failed { command: String, status: String },
}

/// Opens `text` in `command` and returns what the file holds when it exits (one trailing
/// newline, which most editors add, removed).
pub fn edit(command: Option<&str>, text: &str) -> Result<String, ExternalEditorError> {
    let command = command.ok_or(ExternalEditorError::NotSet)?;
    let path = std::env::temp_dir().join(format!(
        "pi-prompt-{}-{}.md",
        std::process::id(),
        unique_suffix()
    ));
    let file_error = |source| ExternalEditorError::File {
        path: path.clone(),
        source,
    };
    std::fs::write(&path, text).map_err(file_error)?;
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!("{command} \"$1\""))
        .arg("sh")
        .arg(&path)
        .status();
    let result = match status {
        Err(source) => Err(ExternalEditorError::Start {
            command: command.to_owned(),
            source,
        }),
        Ok(status) if !status.success() => Err(ExternalEditorError::Failed {
            command: command.to_owned(),
            status: status.to_string(),
        }),
        Ok(_) => std::fs::read_to_string(&path).map_err(file_error),
    };
    let _ = std::fs::remove_file(&path);
    let mut edited = result?;
    if edited.ends_with('\n') {
        edited.pop();
        if edited.ends_with('\r') {
            edited.pop();
        }
    }
    Ok(edited)
}

/// A number that differs between calls in one process, so two edits never share a file.
fn unique_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_edited_file_comes_back() {
        // A stand-in editor: appends a line to the file it is given.
        let edited = edit(Some("printf 'more\\n' >>"), "draft\n").ok();
        assert_eq!(edited.as_deref(), Some("draft\nmore"));
    }

    #[test]
    fn a_failing_editor_keeps_nothing_and_says_why() {
        let error = edit(Some("false"), "draft").err().map(|e| e.to_string());
        assert!(error.is_some_and(|e| e.contains("failed")));
        assert!(matches!(edit(None, "x"), Err(ExternalEditorError::NotSet)));
    }
}
