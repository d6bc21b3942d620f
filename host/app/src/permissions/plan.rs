//! Plan mode's tool set: nothing offered can change anything. The writing built-ins are not
//! offered, `bash` runs under Landlock read-only with the network off (or, where Landlock is
//! missing, is offered but refuses every call: a command is never run unconfined), and
//! extension tool components run under a read-only copy of their grant. The limits are the
//! host's, so no prompt can talk the model out of them.

use pi_agent::{AgentTool, BoxFuture, ExecutionMode, ToolError, ToolOutput, ToolUpdateFn};
use pi_ext_host::{LazyComponent, SandboxError, ShellSandbox};
use serde_json::Value;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// The tools plan mode does not offer.
const WRITING_TOOLS: [&str; 2] = ["write", "edit"];

/// Whether plan mode offers the tool named `name`.
pub fn offers(name: &str) -> bool {
    !WRITING_TOOLS.contains(&name)
}

/// The system prompt's sections in `mode`: plan mode leaves out the writing tools and says
/// what the agent may do.
pub fn prompt_sections(
    options: &pi_session::system_prompt::SystemPromptOptions,
    sources: &pi_session::system_prompt::PromptSources,
    mode: super::PermissionMode,
) -> Vec<pi_session::system_prompt::PromptSection> {
    if mode != super::PermissionMode::Plan {
        return pi_session::system_prompt::sections(options, sources);
    }
    let mut options = options.clone();
    options.tools.retain(|tool| offers(&tool.name));
    options.plan_mode = true;
    pi_session::system_prompt::sections(&options, sources)
}

/// The sandbox of plan mode's commands, or why this system cannot enforce it.
pub fn shell_sandbox() -> Result<ShellSandbox, SandboxError> {
    let sandbox = ShellSandbox::read_only_offline();
    sandbox.check()?;
    Ok(sandbox)
}

/// The same component under its grant made read-only ([`pi_ext_host::Grant::read_only`]).
pub fn read_only_component(component: &LazyComponent) -> Arc<LazyComponent> {
    Arc::new(component.with_grant(Arc::new(component.grant.read_only())))
}

/// What a `bash` call in plan mode answers where Landlock is missing.
pub fn no_sandbox_message(error: &SandboxError) -> String {
    let why = error.reason();
    format!(
        "Refused: plan mode runs commands only under Linux Landlock (read-only, network off), \
         and {why}. The command was not run. Read files with the read, grep, find and ls \
         tools, or leave plan mode to run commands."
    )
}

/// A tool offered as itself whose every call is refused with `reason`.
pub struct Refused {
    tool: Arc<dyn AgentTool>,
    reason: String,
}

impl Refused {
    pub fn new(tool: Arc<dyn AgentTool>, reason: String) -> Self {
        Refused { tool, reason }
    }
}

impl AgentTool for Refused {
    fn name(&self) -> &str {
        self.tool.name()
    }

    fn label(&self) -> &str {
        self.tool.label()
    }

    fn description(&self) -> &str {
        self.tool.description()
    }

    fn parameters(&self) -> &pi_ai::Schema {
        self.tool.parameters()
    }

    fn prepare_arguments(&self, args: Value) -> Value {
        self.tool.prepare_arguments(args)
    }

    fn execution_mode(&self) -> ExecutionMode {
        self.tool.execution_mode()
    }

    fn constrained_sampling(&self) -> Option<bool> {
        self.tool.constrained_sampling()
    }

    fn execute<'a>(
        &'a self,
        _call_id: &'a str,
        _args: Value,
        _cancel: CancellationToken,
        _on_update: ToolUpdateFn,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move { Err(ToolError::new(self.reason.clone())) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_mode_offers_everything_but_the_writing_tools() {
        for name in ["read", "bash", "grep", "find", "ls", "fetch_url"] {
            assert!(offers(name), "{name}");
        }
        assert!(!offers("write"));
        assert!(!offers("edit"));
    }

    #[test]
    fn the_refusal_says_why_and_that_nothing_ran() {
        let message = no_sandbox_message(&SandboxError::Unavailable {
            mode: "read-only",
            why: "is made unavailable by PI_SANDBOX_FORCE_UNAVAILABLE=1".to_owned(),
        });
        assert!(message.contains("plan mode runs commands only under Linux Landlock"));
        assert!(message.contains("PI_SANDBOX_FORCE_UNAVAILABLE=1"));
        assert!(message.contains("not run"));
    }
}
