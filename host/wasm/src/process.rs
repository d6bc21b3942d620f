//! The `process` interface: host processes for extensions granted `process`.
//!
//! Output is read by one thread per stream into a channel; `read` waits on it with a bounded
//! wait so a call's deadline and abort are honoured between reads.

use crate::bindings::tool::pi::extension::process::{
    self as wit, ExitStatus, Output, ReadResult, SpawnOptions,
};
use crate::state::HostState;
use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use wasmtime::component::Resource;

/// Longest a single `read` blocks, whatever the guest asks.
const MAX_READ_WAIT: Duration = Duration::from_millis(500);

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
}

impl ChildProcess {
    fn check_timeout(&mut self) {
        if self.deadline.is_some_and(|d| Instant::now() >= d) && !self.timed_out {
            self.timed_out = true;
            let _ = self.child.kill();
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

impl wit::Host for HostState {
    fn spawn(&mut self, options: SpawnOptions) -> Result<Resource<ChildProcess>, String> {
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
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for name in ["PATH", "HOME"] {
            if let Ok(value) = std::env::var(name) {
                command.env(name, value);
            }
        }
        command.envs(options.env.iter().map(|(k, v)| (k, v)));
        let mut child = command
            .spawn()
            .map_err(|e| format!("cannot spawn {}: {e}", options.program))?;
        tracing::debug!(extension = %self.extension, program = %options.program, "spawned");
        let (tx, rx) = mpsc::channel();
        if let Some(out) = child.stdout.take() {
            pump(out, tx.clone(), true);
        }
        if let Some(err) = child.stderr.take() {
            pump(err, tx, false);
        }
        let process = ChildProcess {
            child,
            rx,
            open_streams: 2,
            deadline: options
                .timeout_ms
                .map(|ms| Instant::now() + Duration::from_millis(ms)),
            timed_out: false,
        };
        self.table.push(process).map_err(|e| e.to_string())
    }
}

impl wit::HostChild for HostState {
    fn read(&mut self, child: Resource<ChildProcess>, wait_ms: u32) -> ReadResult {
        let stop = self.interrupt().is_some();
        let Ok(process) = self.table.get_mut(&child) else {
            return ReadResult::Closed;
        };
        if stop {
            let _ = process.child.kill();
        }
        process.check_timeout();
        if process.open_streams == 0 {
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
            let _ = process.child.kill();
        }
    }

    fn wait(&mut self, child: Resource<ChildProcess>) -> ExitStatus {
        loop {
            let stop = self.interrupt().is_some();
            let Ok(process) = self.table.get_mut(&child) else {
                return ExitStatus {
                    code: None,
                    signal: None,
                    timed_out: false,
                };
            };
            if stop {
                let _ = process.child.kill();
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
        let mut process = self.table.delete(child)?;
        if process.child.try_wait().ok().flatten().is_none() {
            let _ = process.child.kill();
            let _ = process.child.wait();
        }
        Ok(())
    }
}
