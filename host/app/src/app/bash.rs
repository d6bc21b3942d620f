//! User shell commands (`!cmd`, RPC `bash`): one at a time, output streamed as
//! `bash_execution_update` events, cancellable, and recorded in the session as a
//! `bashExecution` message when done.

use super::{App, AppError};
use crate::agent_session::SessionEvent;
use pi_ai::lock;
use pi_session::messages::BashExecutionMessage;
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use tokio::io::AsyncReadExt;
use tokio_util::sync::CancellationToken;

/// The command that is running, if any: its cancel token.
#[derive(Default)]
pub(super) struct BashSlot(Arc<Mutex<Option<CancellationToken>>>);

/// What a user shell command did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BashOutcome {
    /// stdout and stderr together, as the user would have seen them; past the `bash` tool's
    /// limits (2000 lines or 50 KB) only the tail.
    pub output: String,
    /// `None` when it did not exit normally (killed, cancelled).
    pub exit_code: Option<i64>,
    pub cancelled: bool,
    /// Whether `output` is only the tail; the whole output is then in `full_output_path`.
    pub truncated: bool,
    pub full_output_path: Option<std::path::PathBuf>,
}

/// Cuts `outcome`'s output to its tail like the `bash` tool does, saving the whole output to a
/// temp file, so one noisy command floods neither the context nor the session file.
fn truncated(mut outcome: BashOutcome) -> BashOutcome {
    use pi_builtin_tools::truncate::{DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, truncate_tail};
    let cut = truncate_tail(&outcome.output, DEFAULT_MAX_LINES, DEFAULT_MAX_BYTES);
    if !cut.truncated {
        return outcome;
    }
    // pi's own temp dir: the file tools may read it back under every path scope.
    let path = pi_builtins::own_temp_dir().join(format!("pi-bash-{:016x}.log", fastrand::u64(..)));
    match std::fs::write(&path, &outcome.output) {
        Ok(()) => outcome.full_output_path = Some(path),
        Err(error) => tracing::warn!(path = %path.display(), %error, "cannot save the full output"),
    }
    outcome.output = cut.content;
    outcome.truncated = true;
    outcome
}

/// The text of `pending` up to a character its end cuts in two; that character's bytes stay in
/// `pending`. Invalid bytes become U+FFFD, as in the recorded output.
fn take_whole_characters(pending: &mut Vec<u8>) -> String {
    let lead = pending
        .iter()
        .enumerate()
        .rev()
        .take(4)
        .find(|(_, b)| (**b & 0xC0) != 0x80);
    let cut = match lead {
        Some((at, byte)) => {
            let width = match byte.leading_ones() {
                2 => 2,
                3 => 3,
                4 => 4,
                _ => 1,
            };
            if pending.len() - at < width {
                at
            } else {
                pending.len()
            }
        }
        None => pending.len(),
    };
    let rest = pending.split_off(cut);
    let text = String::from_utf8_lossy(pending).into_owned();
    *pending = rest;
    text
}

impl App {
    /// Takes the bash slot for a new command, so an abort right after finds it even before
    /// the command has started. Refused while one runs.
    pub fn claim_bash(&self) -> Result<(), AppError> {
        let mut slot = lock(&self.bash.0);
        if slot.is_some() {
            return Err(AppError::BashRunning);
        }
        *slot = Some(CancellationToken::new());
        Ok(())
    }

    /// Cancels the running user shell command (its process is killed).
    pub fn abort_bash(&self) {
        if let Some(token) = lock(&self.bash.0).as_ref() {
            token.cancel();
        }
    }

    /// Runs `command` in the session's directory (claiming the slot unless the caller did) and
    /// records it; `exclude` keeps it out of the model's context (`!!cmd`). Its output events
    /// carry `id` (RPC: the id of the `bash` command).
    pub async fn bash(
        &self,
        command: String,
        exclude: bool,
        id: Option<String>,
    ) -> Result<BashOutcome, AppError> {
        let token = {
            let mut slot = lock(&self.bash.0);
            slot.get_or_insert_with(CancellationToken::new).clone()
        };
        let cwd = self
            .session
            .with_session(|s| std::path::PathBuf::from(s.cwd()));
        let result = self.run_shell(&command, &cwd, &token, id).await;
        *lock(&self.bash.0) = None;
        let outcome = truncated(result?);
        self.record_bash(BashExecutionMessage {
            command,
            output: outcome.output.clone(),
            exit_code: outcome.exit_code,
            cancelled: outcome.cancelled,
            truncated: outcome.truncated,
            full_output_path: outcome
                .full_output_path
                .as_ref()
                .map(|p| p.to_string_lossy().into_owned()),
            exclude_from_context: exclude.then_some(true),
            timestamp: pi_ai::now_ms(),
        });
        Ok(outcome)
    }

    /// The shell and script for `command`: the `bash` tool's shell (`shellPath`, else bash)
    /// with `shellCommandPrefix` on a line before the command, as pi runs user commands. The
    /// group sends stderr to stdout for the prefix and every line of the command alike.
    fn shell_script(&self, command: &str) -> (String, String) {
        let (path, prefix) = self
            .session
            .with_settings(|s| (s.shell_path(), s.shell_command_prefix()));
        let shell = match path {
            Some(path) => pi_session::paths::expand_tilde(&path)
                .to_string_lossy()
                .into_owned(),
            None => pi_builtin_tools::ShellConfig::default().path,
        };
        let body = match prefix {
            Some(prefix) => format!("{prefix}\n{command}"),
            None => command.to_owned(),
        };
        (shell, format!("{{\n{body}\n}} 2>&1"))
    }

    /// Runs `command` with [`shell_script`](Self::shell_script), stdout and stderr together;
    /// each chunk of output is reported as it arrives. Cancelled: killed, with no output kept
    /// (as pi does).
    async fn run_shell(
        &self,
        command: &str,
        cwd: &Path,
        cancel: &CancellationToken,
        id: Option<String>,
    ) -> Result<BashOutcome, AppError> {
        let (shell, script) = self.shell_script(command);
        let proxy_env = self.session.with_settings(|s| s.http_proxy_env());
        let mut child = tokio::process::Command::new(&shell)
            .arg("-c")
            .arg(script)
            .envs(proxy_env)
            .current_dir(cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|source| AppError::Shell { shell, source })?;
        let mut stdout = child.stdout.take();
        let report = |delta: String| {
            if !delta.is_empty() {
                self.emit(SessionEvent::BashExecutionUpdate {
                    id: id.clone(),
                    delta,
                });
            }
        };
        let read_all = async {
            let mut output = Vec::new();
            let mut chunk = vec![0u8; 8192];
            // Bytes of a character the last read cut in two, reported with the next read.
            let mut pending = Vec::new();
            while let Some(pipe) = stdout.as_mut() {
                match pipe.read(&mut chunk).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        let bytes = chunk.get(..n).unwrap_or_default();
                        output.extend_from_slice(bytes);
                        pending.extend_from_slice(bytes);
                        report(take_whole_characters(&mut pending));
                    }
                }
            }
            report(String::from_utf8_lossy(&pending).into_owned());
            (child.wait().await, output)
        };
        tokio::select! {
            (status, output) = read_all => {
                let status = status.map_err(AppError::Bash)?;
                Ok(BashOutcome {
                    output: String::from_utf8_lossy(&output).into_owned(),
                    exit_code: status.code().map(i64::from),
                    cancelled: false,
                    truncated: false,
                    full_output_path: None,
                })
            }
            () = cancel.cancelled() => Ok(BashOutcome {
                output: String::new(),
                exit_code: None,
                cancelled: true,
                truncated: false,
                full_output_path: None,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::take_whole_characters;

    #[test]
    fn a_character_cut_by_a_read_waits_for_its_other_bytes() {
        let text = "aé€😀b";
        let bytes = text.as_bytes();
        // Every cut point, in two reads: the two reports are always the whole text.
        for cut in 0..=bytes.len() {
            let mut pending = bytes[..cut].to_vec();
            let first = take_whole_characters(&mut pending);
            pending.extend_from_slice(&bytes[cut..]);
            let second = take_whole_characters(&mut pending);
            assert_eq!(format!("{first}{second}"), text, "cut at {cut}");
            assert!(pending.is_empty());
        }
        // Bytes that are no UTF-8 at all are not held back.
        let mut invalid = vec![b'x', 0xFF];
        assert_eq!(take_whole_characters(&mut invalid), "x\u{FFFD}");
    }
}
