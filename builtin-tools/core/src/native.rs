//! [`ProcessRunner`] on `std::process` for native builds (tests, benches, a native host).
//!
//! The child gets its own process group (`process_group(0)`), so a timeout or abort can kill
//! everything the command started, including background jobs. std has no `killpg`, and the
//! workspace forbids `unsafe`, so the group is killed through rustix's safe `kill` wrapper.

use crate::process::{ProcessError, ProcessExit, ProcessRunner, SpawnRequest};
use rustix::process::{Pid, Signal, kill_process_group};
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

/// How often cancellation and the deadline are checked while no output arrives.
const POLL: Duration = Duration::from_millis(20);
/// How long to keep reading after the shell exited while a background job holds the pipes.
const DRAIN_AFTER_EXIT: Duration = Duration::from_millis(500);

#[derive(Debug, Default, Clone, Copy)]
pub struct NativeRunner;

enum Event {
    Data(Vec<u8>),
    Eof,
}

impl ProcessRunner for NativeRunner {
    fn run(
        &self,
        request: &SpawnRequest,
        on_output: &mut dyn FnMut(&[u8]),
        cancel: &AtomicBool,
    ) -> Result<ProcessExit, ProcessError> {
        let (reader, mut child) = spawn(request)?;
        let (tx, rx) = mpsc::channel();
        forward(reader, tx);
        let deadline = request.timeout.map(|t| Instant::now() + t);
        pump(&mut child, &rx, 1, deadline, on_output, cancel)
    }
}

fn io_error(e: std::io::Error) -> ProcessError {
    ProcessError::Io(e.to_string())
}

/// Starts the child with stdout and stderr on ONE pipe, so the output keeps the order in which
/// the command wrote it (two pipes read by two threads interleave arbitrarily).
fn spawn(request: &SpawnRequest) -> Result<(std::io::PipeReader, Child), ProcessError> {
    let (reader, writer) = std::io::pipe().map_err(io_error)?;
    let writer_for_stderr = writer.try_clone().map_err(io_error)?;
    let mut command = Command::new(&request.program);
    command
        .args(&request.args)
        .current_dir(&request.cwd)
        .env_clear()
        .envs(request.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(writer_for_stderr)
        .process_group(0);
    let child = command.spawn().map_err(|e| ProcessError::Spawn {
        program: request.program.clone(),
        message: e.to_string(),
    })?;
    // The Command still holds the write ends; drop it so EOF arrives when the child exits.
    drop(command);
    Ok((reader, child))
}

fn forward(
    mut source: impl Read + Send + 'static,
    tx: mpsc::Sender<Event>,
) -> thread::JoinHandle<()> {
    thread::spawn(move || {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match source.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if tx.send(Event::Data(buf[..n].to_vec())).is_err() {
                        return;
                    }
                }
            }
        }
        let _ = tx.send(Event::Eof);
    })
}

/// Forwards output until the child exits and its pipes close, enforcing cancel and deadline.
fn pump(
    child: &mut Child,
    rx: &Receiver<Event>,
    mut open_readers: usize,
    deadline: Option<Instant>,
    on_output: &mut dyn FnMut(&[u8]),
    cancel: &AtomicBool,
) -> Result<ProcessExit, ProcessError> {
    let mut exited: Option<(Option<i32>, Instant)> = None;
    loop {
        if cancel.load(Ordering::SeqCst) {
            kill_group(child);
            return Ok(ProcessExit::Aborted);
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            kill_group(child);
            return Ok(ProcessExit::TimedOut);
        }
        if exited.is_none()
            && let Some(status) = child
                .try_wait()
                .map_err(|e| ProcessError::Io(e.to_string()))?
        {
            exited = Some((status.code(), Instant::now()));
        }
        if let Some((code, at)) = exited
            && (open_readers == 0 || at.elapsed() >= DRAIN_AFTER_EXIT)
        {
            return Ok(ProcessExit::Exited(code));
        }
        match rx.recv_timeout(POLL) {
            Ok(Event::Data(bytes)) => on_output(&bytes),
            Ok(Event::Eof) => open_readers = open_readers.saturating_sub(1),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => open_readers = 0,
        }
    }
}

/// Kills the child's whole process group (its id is the child's pid: `process_group(0)`),
/// then reaps the child.
fn kill_group(child: &mut Child) {
    let pgid = Pid::from_child(child);
    if let Err(error) = kill_process_group(pgid, Signal::KILL) {
        tracing::warn!(
            pgid = pgid.as_raw_pid(),
            %error,
            "killing the process group failed; killing the shell only"
        );
        let _ = child.kill();
    }
    let _ = child.wait();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stdout_and_stderr_keep_their_interleaving() {
        let request = SpawnRequest {
            program: "/bin/sh".into(),
            args: vec![
                "-c".into(),
                "printf a; printf b >&2; printf c; printf d >&2".into(),
            ],
            cwd: std::env::temp_dir(),
            env: vec![("PATH".into(), "/usr/bin:/bin".into())],
            timeout: None,
        };
        let mut out = Vec::new();
        let exit = NativeRunner
            .run(
                &request,
                &mut |b| out.extend_from_slice(b),
                &AtomicBool::new(false),
            )
            .unwrap();
        assert_eq!(exit, ProcessExit::Exited(Some(0)));
        assert_eq!(String::from_utf8_lossy(&out), "abcd");
    }
}
