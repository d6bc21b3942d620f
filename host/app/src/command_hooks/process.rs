//! Running one hook command: `<shell> -c <command>` in the session's directory with the event
//! JSON on stdin, in its own process group so a timeout or a cancel kills everything it
//! started; and reading what it answered (exit code 2 blocks, JSON on stdout on exit 0).

use serde_json::Value;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio_util::sync::CancellationToken;

/// How a command is run.
#[derive(Debug, Clone)]
pub struct Invocation {
    /// The shell (`shellPath`, else `sh`).
    pub shell: String,
    pub command: String,
    pub cwd: PathBuf,
    pub timeout: Duration,
}

/// What a finished command said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finished {
    /// `None`: ended by a signal.
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

/// Runs the command with `input` on stdin; an error says why it did not finish (it could not
/// start, it ran past its timeout, it was cancelled).
pub async fn run(
    invocation: &Invocation,
    input: Vec<u8>,
    cancel: CancellationToken,
) -> Result<Finished, String> {
    let mut child = tokio::process::Command::new(&invocation.shell)
        .arg("-c")
        .arg(&invocation.command)
        .current_dir(&invocation.cwd)
        .env("PI_PROJECT_DIR", &invocation.cwd)
        .env("CLAUDE_PROJECT_DIR", &invocation.cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("could not start {}: {e}", invocation.shell))?;
    let group = child.id();
    if let Some(mut stdin) = child.stdin.take() {
        // A command that does not read its input closes the pipe: that is not an error.
        tokio::spawn(async move {
            let _ = stdin.write_all(&input).await;
        });
    }
    let stopped = tokio::select! {
        output = child.wait_with_output() => {
            return output
                .map(|output| Finished {
                    code: output.status.code(),
                    stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
                    stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
                })
                .map_err(|e| e.to_string());
        }
        () = tokio::time::sleep(invocation.timeout) => format!(
            "timed out after {} s and was killed",
            invocation.timeout.as_secs_f64()
        ),
        () = cancel.cancelled() => "cancelled".to_owned(),
    };
    // The leader is killed (dropped) but not yet reaped, so its group id still names only
    // what the command started: all of it goes.
    if let Some(pid) = group
        .and_then(|pid| i32::try_from(pid).ok())
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
    Err(stopped)
}

/// What a hook decided, in the field's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// No decision; `context` is text for the model (plain stdout, `additionalContext`).
    Proceed {
        context: Option<String>,
    },
    Allow,
    Ask(String),
    Block(String),
    /// `{"continue": false}`: stop what the event is about.
    Stop(String),
}

/// Reads a finished command: exit 2 blocks with stderr as the reason, exit 0 may carry JSON
/// on stdout; any other exit is an error (the caller reports it and goes on).
pub fn verdict(finished: &Finished) -> Result<Verdict, String> {
    match finished.code {
        Some(0) => Ok(read_stdout(finished.stdout.trim())),
        Some(2) => Ok(Verdict::Block(reason_or(
            finished.stderr.trim(),
            "blocked by a hook",
        ))),
        Some(code) => Err(with_stderr(format!("exited with code {code}"), finished)),
        None => Err(with_stderr("was killed by a signal".to_owned(), finished)),
    }
}

fn with_stderr(what: String, finished: &Finished) -> String {
    match finished.stderr.trim() {
        "" => what,
        stderr => format!("{what}: {stderr}"),
    }
}

fn reason_or(text: &str, default: &str) -> String {
    if text.is_empty() {
        default.to_owned()
    } else {
        text.to_owned()
    }
}

fn read_stdout(stdout: &str) -> Verdict {
    let Ok(Value::Object(answer)) = serde_json::from_str::<Value>(stdout) else {
        let context = (!stdout.is_empty()).then(|| stdout.to_owned());
        return Verdict::Proceed { context };
    };
    let text = |object: &serde_json::Map<String, Value>, key: &str| {
        object
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .trim()
            .to_owned()
    };
    if answer.get("continue") == Some(&Value::Bool(false)) {
        return Verdict::Stop(reason_or(&text(&answer, "stopReason"), "stopped by a hook"));
    }
    if answer.get("decision").and_then(Value::as_str) == Some("block") {
        return Verdict::Block(reason_or(&text(&answer, "reason"), "blocked by a hook"));
    }
    let specific = answer
        .get("hookSpecificOutput")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let reason = text(&specific, "permissionDecisionReason");
    match specific.get("permissionDecision").and_then(Value::as_str) {
        Some("deny") => Verdict::Block(reason_or(&reason, "denied by a hook")),
        Some("ask") => Verdict::Ask(reason_or(&reason, "A hook asks to confirm this tool call")),
        Some("allow") => Verdict::Allow,
        _ => {
            let context = text(&specific, "additionalContext");
            Verdict::Proceed {
                context: (!context.is_empty()).then_some(context),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(stdout: &str) -> Verdict {
        verdict(&Finished {
            code: Some(0),
            stdout: stdout.into(),
            stderr: String::new(),
        })
        .unwrap()
    }

    #[test]
    fn stdout_json_in_both_forms_and_plain_text() {
        assert_eq!(
            ok(r#"{"decision":"block","reason":"no rm"}"#),
            Verdict::Block("no rm".into())
        );
        assert_eq!(
            ok(
                r#"{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"sure?"}}"#
            ),
            Verdict::Ask("sure?".into())
        );
        assert_eq!(
            ok(r#"{"continue":false,"stopReason":"enough"}"#),
            Verdict::Stop("enough".into())
        );
        assert_eq!(
            ok("remember the tests\n"),
            Verdict::Proceed {
                context: Some("remember the tests".into())
            }
        );
        assert_eq!(ok(""), Verdict::Proceed { context: None });
        // `approve` and `defer` decide nothing here.
        assert_eq!(
            ok(r#"{"hookSpecificOutput":{"permissionDecision":"defer"}}"#),
            Verdict::Proceed { context: None }
        );
    }
}
