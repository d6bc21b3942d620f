//! The tools of a `pi` run. Built-ins are WebAssembly components embedded in the binary
//! (pi-builtins), run by the extension host under the least grant each needs, in
//! the session's working directory under the run's path policy (`tool_policy`); extension tools (`extensions`) run under their package's
//! grant. A tool's component is compiled on its first call and kept
//! in `<agentDir>/cache/components`, so start-up compiles nothing.

use crate::extensions::Extensions;
use pi_agent::AgentTool;
use pi_builtins::ToolContext;
use pi_ext_host::{ComponentTool, ExtensionHost};
use pi_session::settings::SettingsManager;
use std::path::Path;
use std::sync::Arc;

/// What the tools know of the session they serve.
pub struct SessionFacts<'a> {
    /// What extension components see as `host.session-id`.
    pub session_id: &'a str,
    /// Added to the environment of `bash` commands (pi's `PI_*` session variables).
    pub command_env: Vec<(String, String)>,
    /// Whether the current model takes images (the `read` tool attaches none otherwise).
    pub model_images: &'a Arc<std::sync::atomic::AtomicBool>,
    /// What the built-in tools may touch (path policy, shell sandbox).
    pub policy: &'a crate::tool_policy::ToolPolicy,
    /// Where the files extensions write into the next prompt are recorded
    /// (`pi_session::extension_writes`).
    pub agent_dir: &'a Path,
}

/// The enabled tools, in order: a name an extension provides is that extension's tool (it
/// overrides the built-in), anything else the built-in working in `cwd`.
pub fn tools(
    names: &[String],
    cwd: &Path,
    host: &ExtensionHost,
    extensions: &Extensions,
    session: SessionFacts<'_>,
    settings: &SettingsManager,
) -> Vec<Arc<dyn AgentTool>> {
    let SessionFacts {
        session_id,
        command_env,
        model_images,
        policy,
        agent_dir,
    } = session;
    let mut ctx = ToolContext::new(host, cwd);
    ctx.paths = policy.paths.clone();
    ctx.sandbox = policy.sandbox.clone();
    ctx.model_supports_images = Arc::clone(model_images);
    ctx.command_env.extend(command_env);
    ctx.command_env.extend(settings.http_proxy_env());
    ctx.auto_resize_images = settings.images_auto_resize();
    if let Some(shell) = settings.shell_path() {
        ctx.shell.path = pi_session::paths::expand_tilde(&shell)
            .to_string_lossy()
            .into_owned();
    }
    ctx.shell.command_prefix = settings.shell_command_prefix();
    // A file tool must not grant the agent approvals (cwd at `$HOME` holds the agent dir).
    ctx.protected_files.push(pi_ext_host::protected::canonical(
        &agent_dir.join(crate::permissions::ledger::FILE_NAME),
    ));
    names
        .iter()
        .filter_map(|name| match extensions.tool(name) {
            Some(tool) => {
                let component =
                    ComponentTool::new(Arc::clone(&tool.component), tool.description.clone())
                        .with_session_id(Some(session_id.to_owned()))
                        .with_write_observer(prompt_writes(agent_dir, &tool.extension));
                let component = host.serve_tool(component);
                Some(Arc::new(component) as Arc<dyn AgentTool>)
            }
            None => pi_builtins::select(&ctx, &[name.as_str()])
                .into_iter()
                .next(),
        })
        .collect()
}

/// The tools of a prepared run (built-in and extension components, see [`tools`]), with pi's `PI_*`
/// variables for `bash` commands.
pub fn session_tools(prepared: &crate::startup::Prepared) -> Vec<Arc<dyn AgentTool>> {
    tools(
        &prepared.tool_names,
        &prepared.base.env.cwd,
        &prepared.base.host,
        &prepared.base.extensions,
        SessionFacts {
            session_id: prepared.session.session_id(),
            command_env: command_env(&prepared.session, &prepared.model, prepared.thinking),
            model_images: &prepared.model_images,
            policy: &prepared.tool_policy,
            agent_dir: &prepared.base.env.agent_dir,
        },
        &prepared.base.settings,
    )
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
