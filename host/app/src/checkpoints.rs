//! The tools' side of checkpoints (`pi_session::checkpoints`): every path a tool's component
//! is about to change reaches the session's [`Recorder`] from the extension host's filesystem
//! layer ([`observer`]); a tool that runs processes (`bash`, an extension granted processes,
//! an MCP server's tool over stdio) is wrapped ([`Checkpointed`]) so that the work tree is
//! snapshotted before it runs and after.

use pi_agent::{AgentTool, BoxFuture, ExecutionMode, ToolError, ToolOutput, ToolUpdateFn};
use pi_session::checkpoints::Recorder;
use serde_json::Value;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// The write observer that keeps each path's state before a component changes it.
pub(crate) fn observer(recorder: &Arc<Recorder>) -> pi_ext_host::WriteFn {
    let recorder = Arc::clone(recorder);
    Arc::new(move |path: &std::path::Path| recorder.before_write(path))
}

/// Two observers in one.
pub(crate) fn both(a: pi_ext_host::WriteFn, b: pi_ext_host::WriteFn) -> pi_ext_host::WriteFn {
    Arc::new(move |path: &std::path::Path| {
        a(path);
        b(path);
    })
}

/// A tool whose calls are recorded: the states after its writes, and for a command the work
/// tree before and after.
pub(crate) struct Checkpointed {
    inner: Arc<dyn AgentTool>,
    recorder: Arc<Recorder>,
    /// It runs processes, whose writes the filesystem layer does not see.
    command: bool,
}

impl Checkpointed {
    pub(crate) fn wrap(
        inner: Arc<dyn AgentTool>,
        recorder: &Arc<Recorder>,
        command: bool,
    ) -> Arc<dyn AgentTool> {
        Arc::new(Checkpointed {
            inner,
            recorder: Arc::clone(recorder),
            command,
        })
    }
}

impl AgentTool for Checkpointed {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn label(&self) -> &str {
        self.inner.label()
    }

    fn description(&self) -> &str {
        self.inner.description()
    }

    fn parameters(&self) -> &pi_ai::Schema {
        self.inner.parameters()
    }

    fn prepare_arguments(&self, args: Value) -> Value {
        self.inner.prepare_arguments(args)
    }

    fn execution_mode(&self) -> ExecutionMode {
        self.inner.execution_mode()
    }

    fn constrained_sampling(&self) -> Option<bool> {
        self.inner.constrained_sampling()
    }

    fn execute<'a>(
        &'a self,
        call_id: &'a str,
        args: Value,
        cancel: CancellationToken,
        on_update: ToolUpdateFn,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let name = self.inner.name().to_owned();
            if self.command {
                let recorder = Arc::clone(&self.recorder);
                let taken =
                    tokio::task::spawn_blocking(move || recorder.before_command(&name)).await;
                if let Err(error) = taken {
                    tracing::warn!("no snapshot before the call: {error}");
                }
            }
            let result = self.inner.execute(call_id, args, cancel, on_update).await;
            self.recorder.after_tool();
            if self.command {
                self.recorder.after_command(self.inner.name());
            }
            result
        })
    }
}
