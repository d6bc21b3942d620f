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
    /// records it; `exclude` keeps it out of the model's context (`!!cmd`).
    pub async fn bash(&self, command: String, exclude: bool) -> Result<BashOutcome, AppError> {
        let token = {
            let mut slot = lock(&self.bash.0);
            slot.get_or_insert_with(CancellationToken::new).clone()
        };
        let cwd = self
            .session
            .with_session(|s| std::path::PathBuf::from(s.cwd()));
        let result = self.run_shell(&command, &cwd, &token).await;
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
        let read_all = async {
            let mut output = Vec::new();
            let mut chunk = vec![0u8; 8192];
            while let Some(pipe) = stdout.as_mut() {
                match pipe.read(&mut chunk).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        let bytes = chunk.get(..n).unwrap_or_default();
                        output.extend_from_slice(bytes);
                        self.emit(SessionEvent::BashExecutionUpdate {
                            delta: String::from_utf8_lossy(bytes).into_owned(),
                        });
                    }
                }
            }
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
