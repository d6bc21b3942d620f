//! `ProcessRunner` over the host's `process` interface (granted to `bash` only).
//!
//! The host spawns the command in its own process group, with stdout and stderr on one pipe,
//! and kills the group on `kill`, on the spawn timeout and when the call is aborted; this side
//! forwards output and maps the ending.

use pi_builtin_tools::{ProcessError, ProcessExit, ProcessRunner, SpawnRequest};
use pi_guest_sdk::host;
use pi_guest_sdk::process::{Output, ReadResult, SpawnOptions, spawn};
use std::sync::atomic::{AtomicBool, Ordering};

/// How long one `read` waits for output before abort is checked again.
const READ_WAIT_MS: u32 = 50;

#[derive(Debug, Default, Clone, Copy)]
pub struct HostRunner;

impl ProcessRunner for HostRunner {
    fn run(
        &self,
        request: &SpawnRequest,
        on_output: &mut dyn FnMut(&[u8]),
        cancel: &AtomicBool,
    ) -> Result<ProcessExit, ProcessError> {
        let child = spawn(&SpawnOptions {
            program: request.program.clone(),
            args: request.args.clone(),
            cwd: Some(request.cwd.to_string_lossy().into_owned()),
            env: request.env.clone(),
            timeout_ms: request
                .timeout
                .map(|t| u64::try_from(t.as_millis()).unwrap_or(u64::MAX)),
            // One pipe for both streams, as pi's shell: the output keeps the order in which
            // the command wrote it.
            merge_stderr: true,
        })
        .map_err(|message| ProcessError::Spawn {
            program: request.program.clone(),
            message,
        })?;
        loop {
            if cancel.load(Ordering::SeqCst) || host::aborted() {
                child.kill();
                return Ok(ProcessExit::Aborted);
            }
            match child.read(READ_WAIT_MS) {
                ReadResult::Output(Output::Stdout(bytes) | Output::Stderr(bytes)) => {
                    on_output(&bytes)
                }
                ReadResult::Pending => {}
                ReadResult::Closed => break,
            }
        }
        let status = child.wait();
        if host::aborted() {
            return Ok(ProcessExit::Aborted);
        }
        Ok(if status.timed_out {
            ProcessExit::TimedOut
        } else {
            ProcessExit::Exited(status.code)
        })
    }
}
