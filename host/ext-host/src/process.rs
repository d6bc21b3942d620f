//! The `process` interface: host processes for extensions granted `process`.
//!
//! Output is read by one thread per pipe into a channel; `read` waits on it with a bounded
//! wait so a call's deadline and abort are honoured between reads. With `merge-stderr` the
//! child's stdout and stderr share one pipe (one reader), so the order in which it wrote them
//! survives; two pipes drained by two threads interleave arbitrarily.
//!
//! Every process gets its own process group, and every kill (`kill`, timeout, abort, the
//! store dropped mid-call) kills the whole group, so background jobs a shell started die with
//! it (through rustix's `killpg`).
//!
//! A grant with a [`ShellSandbox`](crate::sandbox::ShellSandbox) confines every process with
//! Landlock: the ruleset is built here before the fork and enforced in the child before it
//! executes the program; when it cannot be, nothing is spawned.

use crate::bindings::latest::tool::pi::extension::process::{
    self as wit, ExitStatus, Output, ReadResult, SpawnOptions,
};
use crate::state::HostState;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use wasmtime::component::Resource;

/// Longest a single `read` blocks, whatever the guest asks.
const MAX_READ_WAIT: Duration = Duration::from_millis(500);
/// How long output is still read after the process exited while a background job it started
/// keeps the pipes open; then `read` reports `closed`.
const DRAIN_AFTER_EXIT: Duration = Duration::from_millis(500);

enum Chunk {
    Data(Output),
    Eof,
}

/// A process spawned by an extension.
pub struct ChildProcess {
    child: std::process::Child,
    rx: mpsc::Receiver<Chunk>,
    open_streams: u8,
    deadline: Option<Instant>,
    timed_out: bool,
    /// When the process was first seen to have exited.
    exited_at: Option<Instant>,
    /// Whether its group was killed already (one `kill` is enough).
    killed: bool,
}

impl ChildProcess {
    fn check_timeout(&mut self) {
        if self.deadline.is_some_and(|d| Instant::now() >= d) && !self.timed_out {
            self.timed_out = true;
            self.kill_group();
        }
    }

    /// Whether the process exited (reaping it), remembering when that was first seen.
    fn exited(&mut self) -> bool {
        if self.exited_at.is_none() && matches!(self.child.try_wait(), Ok(Some(_))) {
            self.exited_at = Some(Instant::now());
        }
        self.exited_at.is_some()
    }

    /// Kills the process group the child leads (itself and everything it started), then the
    /// child itself should the group kill fail.
    fn kill_group(&mut self) {
        if std::mem::replace(&mut self.killed, true) {
            return;
        }
        let pgid = rustix::process::Pid::from_child(&self.child);
        if let Err(error) = rustix::process::kill_process_group(pgid, rustix::process::Signal::KILL)
        {
            tracing::debug!(
                pgid = pgid.as_raw_pid(),
                %error,
                "killing the process group failed; killing the leader"
            );
            let _ = self.child.kill();
        }
    }
}

impl Drop for ChildProcess {
    /// A store dropped mid-call (abort, deadline, trap) must not leave the command running.
    fn drop(&mut self) {
        if !self.exited() {
            self.kill_group();
            let _ = self.child.wait();
        }
    }
}

fn pump(mut source: impl Read + Send + 'static, tx: mpsc::Sender<Chunk>, stdout: bool) {
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 16 * 1024];
        loop {
            match source.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let bytes = buf[..n].to_vec();
                    let out = if stdout {
                        Output::Stdout(bytes)
                    } else {
                        Output::Stderr(bytes)
                    };
                    if tx.send(Chunk::Data(out)).is_err() {
                        return;
                    }
                }
            }
        }
        let _ = tx.send(Chunk::Eof);
    });
}

/// Points the child's stdout and stderr at one pipe and returns its read end.
fn merge_output(command: &mut Command) -> std::io::Result<std::io::PipeReader> {
    let (reader, writer) = std::io::pipe()?;
    let for_stderr = writer.try_clone()?;
    command.stdout(writer).stderr(for_stderr);
    Ok(reader)
}

impl wit::Host for HostState {
    fn spawn(&mut self, options: SpawnOptions) -> Result<Resource<ChildProcess>, String> {
        if !self.grant.process {
            return Err(crate::grant::not_granted("process", &self.extension));
        }
        let cwd = options
            .cwd
            .clone()
            .unwrap_or_else(|| self.grant.workspace.to_string_lossy().into_owned());
        let mut command = Command::new(&options.program);
        command
            .args(&options.args)
            .current_dir(&cwd)
            .env_clear()
            .stdin(Stdio::null())
            .process_group(0);
        let merged = if options.merge_stderr {
            let reader = merge_output(&mut command)
                .map_err(|e| format!("cannot create a pipe for {}: {e}", options.program))?;
            Some(reader)
        } else {
            command.stdout(Stdio::piped()).stderr(Stdio::piped());
            None
        };
        if let Some(sandbox) = &self.grant.sandbox {
            let mut prepared = sandbox.prepared().map_err(|e| e.to_string())?;
            // SAFETY: the hook runs in the forked child before exec; it only makes the `prctl`
            // and `landlock_restrict_self` system calls on a ruleset built before the fork (no
            // allocation, no lock), which is what may be done between fork and exec.
            #[allow(unsafe_code)]
            unsafe {
                command.pre_exec(move || prepared.enforce());
            }
        }
        for name in ["PATH", "HOME"] {
            if let Ok(value) = std::env::var(name) {
                command.env(name, value);
            }
        }
        command.envs(options.env.iter().map(|(k, v)| (k, v)));
        let spawned = command.spawn();
        // The command keeps the merged pipe's write ends; the reader only sees EOF once they
        // are closed here and in the exited child.
        drop(command);
        let mut child = spawned.map_err(|e| match self.grant.sandbox {
            Some(_) => format!("cannot spawn {} in the sandbox: {e}", options.program),
            None => format!("cannot spawn {}: {e}", options.program),
        })?;
        tracing::debug!(extension = %self.extension, program = %options.program, "spawned");
        let (tx, rx) = mpsc::channel();
        let open_streams = match merged {
            Some(reader) => {
                pump(reader, tx, true);
                1
            }
            None => {
                if let Some(out) = child.stdout.take() {
                    pump(out, tx.clone(), true);
                }
                if let Some(err) = child.stderr.take() {
                    pump(err, tx, false);
                }
                2
            }
        };
        let process = ChildProcess {
            child,
            rx,
            open_streams,
            deadline: options
                .timeout_ms
                .map(|ms| Instant::now() + Duration::from_millis(ms)),
            timed_out: false,
            exited_at: None,
            killed: false,
        };
        self.table.push(process).map_err(|e| e.to_string())
    }
}

impl wit::HostChild for HostState {
    fn read(&mut self, child: Resource<ChildProcess>, wait_ms: u32) -> ReadResult {
        let stop = self.stop_requested();
        let Ok(process) = self.table.get_mut(&child) else {
            return ReadResult::Closed;
        };
        if stop {
            process.kill_group();
        }
        process.check_timeout();
        if process.open_streams == 0 {
            return ReadResult::Closed;
        }
        if process.exited()
            && process
                .exited_at
                .is_some_and(|at| at.elapsed() >= DRAIN_AFTER_EXIT)
        {
            // A background job holds the pipes open; the process itself is done.
            return ReadResult::Closed;
        }
        let wait = Duration::from_millis(u64::from(wait_ms)).min(MAX_READ_WAIT);
        match process.rx.recv_timeout(wait) {
            Ok(Chunk::Data(out)) => ReadResult::Output(out),
            Ok(Chunk::Eof) => {
                process.open_streams -= 1;
                if process.open_streams == 0 {
                    ReadResult::Closed
                } else {
                    ReadResult::Pending
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => ReadResult::Pending,
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                process.open_streams = 0;
                ReadResult::Closed
            }
        }
    }

    fn kill(&mut self, child: Resource<ChildProcess>) {
        if let Ok(process) = self.table.get_mut(&child) {
            process.kill_group();
        }
    }

    fn wait(&mut self, child: Resource<ChildProcess>) -> ExitStatus {
        loop {
            let stop = self.stop_requested();
            let Ok(process) = self.table.get_mut(&child) else {
                return ExitStatus {
                    code: None,
                    signal: None,
                    timed_out: false,
                };
            };
            if stop {
                process.kill_group();
            }
            process.check_timeout();
            match process.child.try_wait() {
                Ok(Some(status)) => {
                    use std::os::unix::process::ExitStatusExt;
                    return ExitStatus {
                        code: status.code(),
                        signal: status.signal(),
                        timed_out: process.timed_out,
                    };
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                Err(_) => {
                    return ExitStatus {
                        code: None,
                        signal: None,
                        timed_out: process.timed_out,
                    };
                }
            }
        }
    }

    fn drop(&mut self, child: Resource<ChildProcess>) -> wasmtime::Result<()> {
        // `ChildProcess::drop` kills the group when the process is still running.
        drop(self.table.delete(child)?);
        Ok(())
    }
}
