//! stdio servers: one executable (no shell) with its arguments, the configured environment
//! added to pi's, in its own process group and under the Landlock sandbox when one is set.
//! Stopping follows the spec (and pi 1.6): close stdin, give the server a moment to exit, then
//! SIGTERM to its group, then SIGKILL to its group. Dropping the process kills the group, so
//! no server outlives pi.

use crate::log::McpLog;
use pi_ext_host::sandbox::ShellSandbox;
use rustix::process::{Pid, Signal};
use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::AsyncBufReadExt;
use tokio::process::{Child, ChildStdin, ChildStdout};

/// How long a server gets to exit on its own after stdin closes, before SIGTERM (pi's 500 ms).
const STDIN_CLOSE_GRACE: Duration = Duration::from_millis(500);
/// How long after SIGTERM before SIGKILL (pi's 2 s).
const TERM_GRACE: Duration = Duration::from_secs(2);
/// How often the group is checked for having exited after SIGTERM.
const GROUP_POLL: Duration = Duration::from_millis(25);

/// What to run.
pub struct Launch<'a> {
    pub command: &'a str,
    pub args: &'a [String],
    pub env: &'a [(String, String)],
    pub cwd: &'a Path,
    pub sandbox: Option<&'a ShellSandbox>,
}

/// A running stdio server: its process (leader of its own group).
pub struct StdioProcess {
    child: Child,
    /// The process group id (the child's pid), `None` once the group is known to be gone.
    group: Option<i32>,
}

/// Starts the server; its stdout and stdin carry the JSON-RPC lines, its stderr lines go to the
/// log.
pub fn spawn(
    launch: &Launch<'_>,
    server: &str,
    log: Arc<McpLog>,
) -> Result<(StdioProcess, ChildStdout, ChildStdin), String> {
    use std::os::unix::process::CommandExt;
    let mut command = std::process::Command::new(launch.command);
    command
        .args(launch.args)
        .envs(launch.env.iter().map(|(k, v)| (k, v)))
        .current_dir(launch.cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    if let Some(sandbox) = launch.sandbox {
        sandbox.confine(&mut command).map_err(|e| e.to_string())?;
    }
    let mut child = tokio::process::Command::from(command)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", launch.command))?;
    let group = child.id().and_then(|pid| i32::try_from(pid).ok());
    let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
        return Err("the server's pipes are missing".to_owned());
    };
    if let Some(stderr) = child.stderr.take() {
        let server = server.to_owned();
        tokio::spawn(async move {
            let mut lines = tokio::io::BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                log.line(&server, &format!("stderr: {line}"));
            }
        });
    }
    Ok((StdioProcess { child, group }, stdout, stdin))
}

impl StdioProcess {
    /// Waits (at most [`STDIN_CLOSE_GRACE`]) for the server to exit after its stdin was
    /// closed, then SIGTERM to the group; whatever of the group is left after [`TERM_GRACE`]
    /// (the server, or children it started that ignore SIGTERM) gets SIGKILL.
    pub async fn stop(&mut self) {
        let exited = tokio::time::timeout(STDIN_CLOSE_GRACE, self.child.wait())
            .await
            .is_ok();
        self.signal(Signal::TERM);
        let deadline = tokio::time::Instant::now() + TERM_GRACE;
        // Reaped first: the server's zombie would keep the group alive.
        let reaped = exited
            || tokio::time::timeout_at(deadline, self.child.wait())
                .await
                .is_ok();
        while self.group_alive() && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(GROUP_POLL).await;
        }
        if !reaped || self.group_alive() {
            self.signal(Signal::KILL);
        }
        if !reaped {
            let _ = self.child.wait().await;
        }
        self.group = None;
    }

    /// Whether a process of the group is left. The group id cannot be reused while it is.
    fn group_alive(&self) -> bool {
        self.group
            .and_then(Pid::from_raw)
            .is_some_and(|group| rustix::process::test_kill_process_group(group).is_ok())
    }

    /// Whether the server has exited, and how.
    pub fn try_exit(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    fn signal(&self, signal: Signal) {
        if let Some(group) = self.group.and_then(Pid::from_raw) {
            // Fails only when the group is gone already.
            let _ = rustix::process::kill_process_group(group, signal);
        }
    }
}

impl Drop for StdioProcess {
    fn drop(&mut self) {
        // pi exiting or interrupted without a shutdown: no orphans.
        self.signal(Signal::KILL);
    }
}
