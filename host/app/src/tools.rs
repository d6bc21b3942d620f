//! The tools of a `pi` run. Built-ins are WebAssembly components embedded in the binary
//! (pi-builtins), run by the extension host under the least grant each needs, in the session's
//! working directory under the run's path policy (`tool_policy`); extension tools
//! (`extensions`) run under their package's grant. A tool's component is compiled on its first
//! call and kept in `<agentDir>/cache/components`, so start-up compiles nothing. The set is
//! built from a [`ToolSource`] the App keeps ([`RunSources`]), so that entering or leaving plan
//! mode builds it again (`permissions::plan`) and a subagent's set is built the same way with
//! its own names (`ToolSource::with_names`).

use crate::checkpoints::Checkpointed;
use crate::extensions::{ExtensionTool, Extensions};
use crate::permissions::{PermissionMode, plan};
use crate::tool_policy::ToolPolicy;
use pi_agent::AgentTool;
use pi_builtins::ToolContext;
use pi_ext_host::{ComponentTool, ExtensionHost};
use pi_session::checkpoints::Recorder;
use pi_session::settings::SettingsManager;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What the tools know of the session they serve.
pub struct SessionFacts<'a> {
    /// What extension components see as `host.session-id`.
    pub session_id: &'a str,
    /// Added to the environment of `bash` commands (pi's `PI_*` session variables).
    pub command_env: Vec<(String, String)>,
    /// Whether the current model takes images (the `read` tool attaches none otherwise).
    pub model_images: &'a Arc<std::sync::atomic::AtomicBool>,
}

/// What a run's tools and system prompt are built from, kept to build them again (a switch
/// of mode, a child run); `None` for an App built by hand: its tools and prompt are its
/// caller's.
#[derive(Default)]
pub struct RunSources {
    pub tools: Option<ToolSource>,
    pub prompt: Option<(
        pi_session::system_prompt::SystemPromptOptions,
        pi_session::system_prompt::PromptSources,
    )>,
}

/// What a run's tool set is built from, kept so that a switch into or out of plan mode can
/// build it again: the enabled names, the extension tools among them, the built-ins' policy
/// and the settings they read.
#[derive(Clone)]
pub struct ToolSource {
    names: Vec<String>,
    cwd: PathBuf,
    /// Where the files extensions write into the next prompt are recorded
    /// (`pi_session::extension_writes`).
    agent_dir: PathBuf,
    /// What the built-in tools may touch (path policy, shell sandbox).
    policy: ToolPolicy,
    /// Every extension tool (a child run may name one the session did not enable).
    extension_tools: Vec<ExtensionTool>,
    shell_path: Option<String>,
    shell_command_prefix: Option<String>,
    proxy_env: Vec<(String, String)>,
    auto_resize_images: bool,
    /// `exposeSessionEnvironment`: whether commands get the `PI_*` session variables.
    session_env: bool,
    /// Where the tools' changes are recorded for `/rewind` (`None`: not recorded).
    checkpoints: Option<Arc<Recorder>>,
}

impl ToolSource {
    /// The enabled `names`: a name an extension provides is that extension's tool (it
    /// overrides the built-in), anything else the built-in working in `cwd`.
    pub fn new(
        names: &[String],
        (cwd, agent_dir): (&Path, &Path),
        extensions: &Extensions,
        settings: &SettingsManager,
        policy: &ToolPolicy,
    ) -> Self {
        ToolSource {
            names: names.to_vec(),
            cwd: cwd.to_path_buf(),
            agent_dir: agent_dir.to_path_buf(),
            policy: policy.clone(),
            extension_tools: extensions.tools.clone(),
            shell_path: settings.shell_path(),
            shell_command_prefix: settings.shell_command_prefix(),
            proxy_env: settings.http_proxy_env(),
            auto_resize_images: settings.images_auto_resize(),
            session_env: settings.expose_session_environment(),
            checkpoints: None,
        }
    }

    /// The same source with its tools' changes recorded by `recorder`.
    pub fn with_checkpoints(mut self, recorder: Option<Arc<Recorder>>) -> ToolSource {
        self.checkpoints = recorder;
        self
    }

    /// Where the tools' changes are recorded.
    pub fn checkpoints(&self) -> Option<&Arc<Recorder>> {
        self.checkpoints.as_ref()
    }

    /// The same source with other tool names, working in `cwd` (a child run's tools).
    pub fn with_names(&self, names: Vec<String>, cwd: &Path) -> ToolSource {
        ToolSource {
            names,
            cwd: cwd.to_path_buf(),
            ..self.clone()
        }
    }

    /// The enabled tool names, in order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Whether `name` is an extension's tool.
    pub fn is_extension_tool(&self, name: &str) -> bool {
        self.extension_tools
            .iter()
            .any(|t| t.description.name == name)
    }

    /// The names of every extension tool.
    pub fn extension_tool_names(&self) -> impl Iterator<Item = &str> {
        self.extension_tools
            .iter()
            .map(|t| t.description.name.as_str())
    }

    /// The model-facing description of the tool `name` (`None`: no such tool).
    pub fn description(&self, name: &str) -> Option<pi_ext_api::ToolDescription> {
        match self
            .extension_tools
            .iter()
            .find(|t| t.description.name == name)
        {
            Some(tool) => Some(tool.description.clone()),
            None => pi_builtins::description(name),
        }
    }

    /// The tools, in order, as `mode` offers them (see [`plan`] for plan mode's).
    pub fn tools(
        &self,
        host: &ExtensionHost,
        session: SessionFacts<'_>,
        mode: PermissionMode,
    ) -> Vec<Arc<dyn AgentTool>> {
        let planning = mode == PermissionMode::Plan;
        let mut ctx = self.builtin_context(host, session.command_env, session.model_images);
        // Where Landlock is missing plan mode's `bash` refuses every call.
        let mut refusal = None;
        match planning.then(plan::shell_sandbox) {
            Some(Ok(sandbox)) => ctx.sandbox = Some(sandbox),
            Some(Err(error)) => refusal = Some(plan::no_sandbox_message(&error)),
            None => {}
        }
        self.names
            .iter()
            .filter(|name| !planning || plan::offers(name))
            .filter_map(|name| {
                let extension = self
                    .extension_tools
                    .iter()
                    .find(|t| &t.description.name == name);
                let (tool, command) = match extension {
                    Some(tool) => (
                        self.extension_tool(host, tool, session.session_id, planning),
                        tool.component.grant.process,
                    ),
                    None => (
                        builtin_tool(&ctx, name, refusal.as_deref())?,
                        name == "bash",
                    ),
                };
                Some(match &self.checkpoints {
                    Some(recorder) if !planning => Checkpointed::wrap(tool, recorder, command),
                    _ => tool,
                })
            })
            .collect()
    }

    /// What the built-ins work with: the path policy, the shell and its environment.
    fn builtin_context(
        &self,
        host: &ExtensionHost,
        command_env: Vec<(String, String)>,
        model_images: &Arc<std::sync::atomic::AtomicBool>,
    ) -> ToolContext {
        let mut ctx = ToolContext::new(host, &self.cwd);
        ctx.on_write = self.checkpoints.as_ref().map(crate::checkpoints::observer);
        ctx.paths = self.policy.paths.clone();
        ctx.sandbox = self.policy.sandbox.clone();
        ctx.model_supports_images = Arc::clone(model_images);
        // Inherited values (pi run from another pi's command) never leak in, as in pi.
        ctx.command_env
            .retain(|(name, _)| !SESSION_VARIABLES.contains(&name.as_str()));
        if self.session_env {
            ctx.command_env.extend(command_env);
        }
        ctx.command_env.extend(self.proxy_env.iter().cloned());
        ctx.auto_resize_images = self.auto_resize_images;
        if let Some(shell) = &self.shell_path {
            ctx.shell.path = pi_session::paths::expand_tilde(shell)
                .to_string_lossy()
                .into_owned();
        }
        ctx.shell.command_prefix = self.shell_command_prefix.clone();
        // A file tool must not grant the agent approvals (cwd at `$HOME` holds the agent dir).
        ctx.protected_files.push(pi_ext_host::protected::canonical(
            &self.agent_dir.join(crate::permissions::ledger::FILE_NAME),
        ));
        ctx
    }

    /// An extension's tool under its package's grant, or a read-only copy of it in plan mode.
    fn extension_tool(
        &self,
        host: &ExtensionHost,
        tool: &ExtensionTool,
        session_id: &str,
        planning: bool,
    ) -> Arc<dyn AgentTool> {
        let component = if planning {
            plan::read_only_component(&tool.component)
        } else {
            Arc::clone(&tool.component)
        };
        let component = ComponentTool::new(component, tool.description.clone())
            .with_session_id(Some(session_id.to_owned()))
            .with_write_observer(match &self.checkpoints {
                Some(recorder) => crate::checkpoints::both(
                    prompt_writes(&self.agent_dir, &tool.extension),
                    crate::checkpoints::observer(recorder),
                ),
                None => prompt_writes(&self.agent_dir, &tool.extension),
            });
        Arc::new(host.serve_tool(component))
    }
}

/// The built-in `name` (`None`: no such tool); `bash` refusing every call with `refusal` when
/// there is one.
fn builtin_tool(
    ctx: &ToolContext,
    name: &str,
    refusal: Option<&str>,
) -> Option<Arc<dyn AgentTool>> {
    let tool = pi_builtins::select(ctx, &[name]).into_iter().next()?;
    Some(match refusal {
        Some(reason) if name == "bash" => Arc::new(plan::Refused::new(tool, reason.to_owned())),
        _ => tool,
    })
}

/// Records each file `package`'s calls write that a later prompt is built from (rule files,
/// skills, templates), so that the session that loads it says so.
fn prompt_writes(agent_dir: &Path, package: &str) -> pi_ext_host::WriteFn {
    let (agent_dir, package) = (agent_dir.to_path_buf(), package.to_owned());
    Arc::new(move |file: &Path| {
        if pi_session::extension_writes::feeds_prompt(file)
            && let Err(error) = pi_session::extension_writes::record(&agent_dir, file, &package)
        {
            tracing::warn!(
                "cannot record that {package} wrote {}: {error}",
                file.display()
            );
        }
    })
}

/// The session variables [`command_env`] sets.
const SESSION_VARIABLES: [&str; 5] = [
    "PI_SESSION_ID",
    "PI_SESSION_FILE",
    "PI_PROVIDER",
    "PI_MODEL",
    "PI_REASONING_LEVEL",
];

/// pi's `PI_*` variables of `bash` commands: the session, its file, the model and the level.
pub(crate) fn command_env(
    session: &pi_session::session::SessionManager,
    model: &pi_ai::Model,
    thinking: pi_ai::ThinkingLevel,
) -> Vec<(String, String)> {
    let mut env = vec![
        ("PI_SESSION_ID".to_owned(), session.session_id().to_owned()),
        ("PI_PROVIDER".to_owned(), model.provider.clone()),
        ("PI_MODEL".to_owned(), model.id.clone()),
        (
            "PI_REASONING_LEVEL".to_owned(),
            thinking.as_str().to_owned(),
        ),
    ];
    if let Some(file) = session.session_file() {
        env.push((
            "PI_SESSION_FILE".to_owned(),
            file.to_string_lossy().into_owned(),
        ));
    }
    env
}
