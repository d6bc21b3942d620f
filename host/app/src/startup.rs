//! Start-up: read the options and settings, choose the session, then prepare the
//! model, prompts, skills, extensions and tools. Nothing here touches the network; components
//! are compiled on first use (an extension package new to the cache is compiled once to list
//! its tools). The first request is the first network use.

use crate::extensions::{ExtensionSearch, Extensions};
use crate::local_servers::LocalProbe;
use crate::model_select::{
    self, InitialModelInputs, ModelSelectError, ScopedModel, cli_model, initial_model,
    initial_thinking, scoped_models,
};
use pi_ai::models::Reached;
use pi_ai::{AuthStorage, Model, ModelRegistry, ModelsError, ThinkingLevel};
use pi_ext_api::ToolDescription;
use pi_session::paths;
use pi_session::prompt_templates::{PromptTemplates, TemplateSearch};
use pi_session::session::{SessionError, SessionManager, find_session_by_id, is_session_path};
use pi_session::settings::SettingsManager;
use pi_session::skills::{SkillRegistry, SkillSearch, discover};
use pi_session::system_prompt::{PromptSection, PromptSources, SystemPromptOptions};
use pi_session::trust::{TrustStore, resolve_trust};
use std::path::{Path, PathBuf};

use pi_builtins::{DEFAULT_ENABLED, TOOL_NAMES as BUILTIN_TOOL_NAMES};

/// What the command line asked of start-up. Every field defaults to "not given".
#[derive(Debug, Clone, Default)]
pub struct StartupOptions {
    /// `--approve` (true) / `--no-approve` (false): the project trust decision for this run.
    pub approve: Option<bool>,
    /// `-c`: continue the latest session of this directory.
    pub continue_session: bool,
    /// `-r`: pick a session to resume.
    pub resume: bool,
    /// The caller shows the session picker for `-r` (the interactive UI): start a new session
    /// until one is chosen. Without it `-r` is refused.
    pub resume_picker: bool,
    /// `--session <path|id>`.
    pub session: Option<String>,
    /// `--session-id <id>`: open or create the session with this id.
    pub session_id: Option<String>,
    /// `--fork <path|id>`.
    pub fork: Option<String>,
    /// `--session-dir`.
    pub session_dir: Option<String>,
    /// `--no-session`: keep the session in memory.
    pub no_session: bool,
    /// `--name`: the session's display name.
    pub name: Option<String>,
    pub provider: Option<String>,
    pub model: Option<String>,
    /// `--api-key`, used for the chosen model's provider only.
    pub api_key: Option<String>,
    pub thinking: Option<ThinkingLevel>,
    /// `--models`: the scope model cycling goes through.
    pub models: Vec<String>,
    /// `--tools`: exactly these tools.
    pub tools: Option<Vec<String>>,
    pub exclude_tools: Vec<String>,
    pub no_tools: bool,
    pub no_builtin_tools: bool,
    /// `--add-dir`: more directories `write` and `edit` may change.
    pub add_dirs: Vec<String>,
    /// `--sandbox`: `read-only`, `workspace-write` or `off` (overrides `tools.sandbox`).
    pub sandbox: Option<String>,
    /// `--permission-mode` (overrides the setting `permissionMode`).
    pub permission_mode: Option<crate::permissions::PermissionMode>,
    /// `-e`: extension packages (folders or sources) for this run.
    pub extensions: Vec<String>,
    pub no_extensions: bool,
    pub skills: Vec<String>,
    pub no_skills: bool,
    pub prompt_templates: Vec<String>,
    pub no_prompt_templates: bool,
    pub no_context_files: bool,
    pub system_prompt: Option<String>,
    pub append_system_prompt: Vec<String>,
    /// `--offline` / `PI_OFFLINE`: no network besides model requests (no local-server probe).
    pub offline: bool,
    /// `--no-mcp`: no MCP servers this run.
    pub no_mcp: bool,
    /// `--no-command-hooks`: run none of the settings' command hooks.
    pub no_command_hooks: bool,
    /// Someone can be asked (the interactive UI): a project's command hook not yet approved
    /// asks at its first use instead of being skipped.
    pub command_hooks_can_ask: bool,
}

/// Why start-up stopped. Every variant is a user-facing message; the exit code is 1.
#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    #[error("{0}")]
    Session(#[from] SessionError),
    #[error("{0}")]
    Model(#[from] ModelSelectError),
    #[error("{0}")]
    ModelsJson(#[from] ModelsError),
    #[error("{0}")]
    Auth(#[from] pi_ai::AuthError),
    #[error("{0}")]
    NoModel(String),
    #[error("{0}")]
    NoApiKey(String),
    #[error("{0}")]
    Policy(#[from] crate::tool_policy::PolicyError),
    #[error(
        "Invalid permissionMode \"{0}\" in settings: use \"auto\", \"ask-writes\", \"ask-all\" or \"plan\"."
    )]
    PermissionMode(String),
    #[error("Cannot start the extension host: {0}")]
    ExtensionHost(String),
    #[error("{error} (in {})", settings.display())]
    Proxy {
        error: pi_ai::http_client::ProxyError,
        settings: PathBuf,
    },
    #[error(
        "--resume needs the interactive session picker. Use --continue, or --session <path|id>."
    )]
    ResumeNeedsUi,
    #[error(
        "Invalid --session-id \"{0}\": use letters, digits, '.', '_' or '-', starting and ending with a letter or digit."
    )]
    InvalidSessionId(String),
    #[error(
        "Use only one of --continue, --resume, --session, --session-id, --fork and --no-session."
    )]
    ConflictingSessionFlags,
    /// An error that ended start-up after warnings were gathered: they may say why (an
    /// extension refused, a setting ignored), so a face shows them first
    /// ([`StartupError::warnings`]).
    #[error("{error}")]
    AfterWarnings {
        error: Box<StartupError>,
        warnings: Vec<String>,
    },
}

impl StartupError {
    /// The warnings gathered before this error, to show before it.
    pub fn warnings(&self) -> &[String] {
        match self {
            StartupError::AfterWarnings { warnings, .. } => warnings,
            _ => &[],
        }
    }

    fn after(self, warnings: Vec<String>) -> StartupError {
        if warnings.is_empty() {
            return self;
        }
        StartupError::AfterWarnings {
            error: Box::new(self),
            warnings,
        }
    }
}

/// Environment the start-up reads (so tests can pass their own).
#[derive(Debug, Clone)]
pub struct StartupEnv {
    pub cwd: PathBuf,
    pub agent_dir: PathBuf,
    pub home_dir: Option<PathBuf>,
}

impl StartupEnv {
    /// The process's working directory, `$PI_CODING_AGENT_DIR` or `~/.pi/agent`, and `$HOME`.
    pub fn from_process() -> std::io::Result<Self> {
        Ok(StartupEnv {
            cwd: std::env::current_dir()?,
            agent_dir: paths::agent_dir(),
            home_dir: paths::home_dir(),
        })
    }
}

/// Where compiled components (built-in and extension) are cached.
pub fn component_cache_dir(agent_dir: &Path) -> PathBuf {
    agent_dir.join("cache").join("components")
}

/// Settings, trust, the model registry and credentials: what every mode (and `--list-models`)
/// needs before anything else.
pub struct Base {
    pub env: StartupEnv,
    pub settings: SettingsManager,
    pub trusted: bool,
    pub registry: ModelRegistry,
    pub auth: AuthStorage,
    /// Runs the built-in and extension components (one engine and cache for all).
    pub host: pi_ext_host::ExtensionHost,
    pub extensions: Extensions,
    pub warnings: Vec<String>,
    /// Whether local servers were probed for lack of credentials, and what answered.
    pub local_probe: LocalProbe,
}

impl Base {
    /// Loads what every mode needs; a failure carries the warnings gathered before it.
    pub fn load(opts: &StartupOptions, env: StartupEnv) -> Result<Base, StartupError> {
        let mut warnings = Vec::new();
        Self::load_warning(opts, env, &mut warnings)
            .map_err(|error| error.after(std::mem::take(&mut warnings)))
    }

    fn load_warning(
        opts: &StartupOptions,
        env: StartupEnv,
        warnings: &mut Vec<String>,
    ) -> Result<Base, StartupError> {
        let global = SettingsManager::load(&env.agent_dir, &env.cwd, false);
        let store = TrustStore::load(&env.agent_dir).unwrap_or_else(|e| {
            warnings.push(format!("Warning (startup, trust): {e}"));
            TrustStore::default()
        });
        let trusted = resolve_trust(
            &env.cwd,
            opts.approve,
            &store,
            global.default_project_trust(),
        )
        .is_trusted();
        let (settings, code_approved) = if trusted {
            load_trusted_settings(opts, &env, warnings)
        } else {
            (global, true)
        };
        for error in settings.errors() {
            warnings.push(format!("Warning (startup, settings): {error}"));
        }
        pi_ai::http_client::configure_proxy(settings.http_proxy().as_deref()).map_err(|error| {
            StartupError::Proxy {
                error,
                settings: settings.global_path().to_path_buf(),
            }
        })?;
        let host = pi_ext_host::ExtensionHost::new(component_cache_dir(&env.agent_dir))
            .map_err(StartupError::ExtensionHost)?;
        let mut extensions =
            load_extensions(opts, &env, &settings, trusted && code_approved, &host);
        warnings.append(&mut extensions.warnings);
        warnings.append(&mut extensions.grants);
        // Extension providers first: models.json may configure them like built-in ones.
        let mut registry = ModelRegistry::load_with_providers(
            Some(&env.agent_dir.join("models.json")),
            &crate::extensions::provider_names(&extensions),
        )?;
        let auth = AuthStorage::open(env.agent_dir.join("auth.json"))?;
        warnings.extend(crate::extensions::register_providers(
            &extensions,
            &mut registry,
        ));
        let (local_probe, found) = crate::local_servers::discover(
            opts.offline,
            settings.probe_local_servers(),
            opts.api_key.is_some(),
            &mut registry,
            &auth,
        );
        warnings.extend(found);
        Ok(Base {
            env,
            settings,
            trusted,
            registry,
            auth,
            host,
            extensions,
            warnings: std::mem::take(warnings),
            local_probe,
        })
    }
}

/// Everything a mode needs to start the agent session.
pub struct Prepared {
    pub base: Base,
    pub session: SessionManager,
    pub model: Model,
    pub thinking: ThinkingLevel,
    pub scoped: Vec<ScopedModel>,
    /// `--api-key`, used for the chosen model's provider only (never for an extension's
    /// provider the user did not name).
    pub api_key: Option<String>,
    pub skills: SkillRegistry,
    pub templates: PromptTemplates,
    /// Names of the tools enabled for this run, in order. A name an extension provides is
    /// that extension's tool (it overrides a built-in of the same name), else a built-in.
    pub tool_names: Vec<String>,
    pub prompt_options: SystemPromptOptions,
    pub system_prompt: Vec<PromptSection>,
    /// How to find the skills, templates and context files again (`/reload`).
    pub resource_search: ResourceSearch,
    /// Whether the chosen model takes images, shared by the `read` tool and the session.
    pub model_images: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// What the built-in tools may touch.
    pub tool_policy: crate::tool_policy::ToolPolicy,
    /// The settings' command hooks, for the hook pipeline after the component hooks; the
    /// caller gives them its user interface (`set_ui`).
    pub command_hooks: crate::command_hooks::CommandHooks,
    /// The mode the run starts in (`--permission-mode`, else `permissionMode`, else `auto`).
    pub permission_mode: crate::permissions::PermissionMode,
    /// Records what the tools change for `/rewind` (`None`: `checkpoints: false`, or no
    /// session file).
    pub checkpoints: Option<std::sync::Arc<pi_session::checkpoints::Recorder>>,
    /// What the system prompt was built from, to build it again for another mode.
    pub prompt_sources: PromptSources,
    /// The MCP servers to start and which of their tools the run may offer (`None`: MCP is
    /// off this run; no servers when none is configured).
    pub mcp: Option<crate::mcp::McpSetup>,
    /// The agents a `subagent` call can name (the tool is offered when there is one).
    pub agents: crate::subagents::AgentDefinitions,
}

/// Runs the start-up sequence for a session-running mode.
/// A failure carries every warning gathered before it (the base's and its own).
pub fn prepare(opts: &StartupOptions, base: Base) -> Result<Prepared, StartupError> {
    let mut base = base;
    let mut warnings = std::mem::take(&mut base.warnings);
    prepare_warning(opts, base, &mut warnings)
        .map_err(|error| error.after(std::mem::take(&mut warnings)))
}

fn prepare_warning(
    opts: &StartupOptions,
    mut base: Base,
    warnings: &mut Vec<String>,
) -> Result<Prepared, StartupError> {
    let session = open_session(opts, &base)?;
    warnings.extend(session_warnings(&session));
    let resuming = !session.is_empty();
    let patterns = if opts.models.is_empty() {
        base.settings.enabled_models()
    } else {
        opts.models.clone()
    };
    let (scoped, scope_warnings) = scoped_models(&base.registry, &patterns);
    warnings.extend(scope_warnings);
    let (chosen, reached) = choose_model(opts, &base, &session, &scoped, resuming)?;
    if let Some(extension) = crate::extensions::serving(&base.extensions, &chosen.model) {
        // The conversation and the credential go to third-party code: say so.
        let unnamed = (reached == Some(Reached::ExtensionUnnamed))
            .then_some(opts.model.as_deref())
            .flatten();
        warnings.push(model_select::served_by_extension(
            &chosen.model,
            &extension,
            unnamed,
        ));
    }
    let session_thinking = resuming.then(|| session_thinking_level(&session)).flatten();
    let thinking = initial_thinking(
        &chosen.model,
        opts.thinking,
        chosen.thinking,
        session_thinking,
        base.settings.default_thinking_level(),
    );
    let permission_mode = permission_mode(opts, &base.settings)?;
    let (tool_names, tool_warnings) = enabled_tools(opts, &base.extensions.tool_names());
    warnings.extend(tool_warnings);
    let resource_search = ResourceSearch::new(opts, &base, &tool_names);
    let Resources {
        skills,
        templates,
        prompt_options,
        prompt_sources,
        prompt_files,
    } = resource_search.load();
    let system_prompt = crate::permissions::plan::prompt_sections(
        &prompt_options,
        &prompt_sources,
        permission_mode,
    );
    warnings.extend(skill_warnings(&skills));
    warnings.extend(pi_session::extension_writes::notices(
        &base.env.agent_dir,
        &prompt_files,
    ));
    let tool_policy = crate::tool_policy::tool_policy(
        policy_flags(opts, &base.env),
        &base.settings,
        resource_search.readable_roots(&skills),
        warnings,
    )?;
    let command_hooks = load_command_hooks(opts, &base, &session);
    warnings.extend(command_hooks.warnings.iter().cloned());
    let mcp = mcp_setup(opts, &base, &tool_policy, warnings);
    let agents = resource_search.agents();
    warnings.extend(agents.warnings.iter().cloned());
    base.warnings = std::mem::take(warnings);
    let checkpoints = checkpoint_recorder(&base, &session);
    Ok(Prepared {
        checkpoints,
        mcp,
        agents,
        command_hooks,
        permission_mode,
        prompt_sources,
        tool_policy,
        model_images: std::sync::Arc::new(std::sync::atomic::AtomicBool::new(
            chosen.model.supports_images(),
        )),
        api_key: opts.api_key.clone(),
        base,
        session,
        model: chosen.model,
        thinking,
        scoped,
        skills,
        templates,
        tool_names,
        prompt_options,
        system_prompt,
        resource_search,
    })
}

/// The recorder of the session's checkpoints, unless turned off or the session is not saved.
fn checkpoint_recorder(
    base: &Base,
    session: &SessionManager,
) -> Option<std::sync::Arc<pi_session::checkpoints::Recorder>> {
    if !base.settings.checkpoints() || session.session_file().is_none() {
        return None;
    }
    let env = &base.env;
    // pi's own files (temp output, approvals, caches) are not the user's work.
    // The extension host reports real paths, so these are compared as real paths too.
    let ignore = [pi_builtins::own_temp_dir(), env.agent_dir.clone()]
        .iter()
        .map(|dir| pi_ext_host::protected::canonical(dir))
        .collect();
    Some(std::sync::Arc::new(pi_session::checkpoints::Recorder::new(
        &env.cwd, ignore,
    )))
}

/// The run's MCP servers from `mcp.json` (the project's only when trusted); what cannot be
/// used is a warning, never fatal.
fn mcp_setup(
    opts: &StartupOptions,
    base: &Base,
    policy: &crate::tool_policy::ToolPolicy,
    warnings: &mut Vec<String>,
) -> Option<crate::mcp::McpSetup> {
    let flags = crate::mcp::McpFlags {
        no_mcp: opts.no_mcp,
        no_extensions: opts.no_extensions,
        extensions: &opts.extensions,
    };
    if !crate::mcp::mcp_enabled(flags, &base.settings) {
        return None;
    }
    let env = &base.env;
    let config = pi_mcp::config::McpConfig::load(&env.agent_dir, &env.cwd, base.trusted);
    let (servers, errors) = config.specs(&env.cwd);
    warnings.extend(
        config
            .errors
            .iter()
            .chain(&errors)
            .map(|e| format!("Warning: MCP: {e}")),
    );
    Some(crate::mcp::McpSetup {
        servers,
        filter: crate::mcp::ToolFilter::new(
            opts.tools.as_deref(),
            opts.no_tools,
            &opts.exclude_tools,
        ),
        options: pi_mcp::ManagerOptions {
            agent_dir: env.agent_dir.clone(),
            sandbox: policy.sandbox.clone(),
            roots: vec![env.cwd.clone()],
            held: true,
        },
    })
}

/// The run's permission mode: the flag, else the setting (an invalid one stops start-up),
/// else `auto`.
fn permission_mode(
    opts: &StartupOptions,
    settings: &SettingsManager,
) -> Result<crate::permissions::PermissionMode, StartupError> {
    use crate::permissions::PermissionMode;
    if let Some(mode) = opts.permission_mode {
        return Ok(mode);
    }
    match settings.permission_mode() {
        None => Ok(PermissionMode::default()),
        Some(value) => PermissionMode::parse(&value).ok_or(StartupError::PermissionMode(value)),
    }
}

/// The settings' command hooks for this run, reporting the session they run in.
fn load_command_hooks(
    opts: &StartupOptions,
    base: &Base,
    session: &SessionManager,
) -> crate::command_hooks::CommandHooks {
    use crate::command_hooks::{CommandHooks, LoadOptions};
    let hooks = CommandHooks::load(
        &LoadOptions {
            settings: &base.settings,
            agent_dir: &base.env.agent_dir,
            cwd: &base.env.cwd,
            disabled: opts.no_command_hooks,
            can_ask: opts.command_hooks_can_ask,
        },
        None,
    );
    hooks.set_session(
        session.session_id(),
        session.session_file().map(Path::to_path_buf),
    );
    hooks
}

/// One line per problem found while loading the skills, with the file and the reason (pi shows
/// them at start): a skill without a description is not loaded, one whose name another skill
/// took first is not loaded, the rest load with the warning.
fn skill_warnings(skills: &SkillRegistry) -> Vec<String> {
    use pi_session::skills::DiagnosticKind;
    skills
        .diagnostics
        .iter()
        .map(|d| match &d.kind {
            DiagnosticKind::Warning => {
                format!("Warning (skills): {}: {}", d.path.display(), d.message)
            }
            DiagnosticKind::Collision {
                name,
                winner_path,
                loser_path,
            } => format!(
                "Warning (skills): {}: not loaded: the name \"{name}\" is taken by {}",
                loser_path.display(),
                winner_path.display()
            ),
        })
        .collect()
}

/// The settings of a trusted project, and whether its code is as it was trusted (see
/// [`crate::project_code`]). When it is not, the project's code-bearing settings are dropped
/// (the user's own apply), its extensions and packages are not loaded, and the warning says
/// which and how to approve them.
pub(crate) fn load_trusted_settings(
    opts: &StartupOptions,
    env: &StartupEnv,
    warnings: &mut Vec<String>,
) -> (SettingsManager, bool) {
    let mut settings = SettingsManager::load(&env.agent_dir, &env.cwd, true);
    if project_code_approved(opts, env, warnings) {
        return (settings, true);
    }
    let mut keys = vec!["extensions", "packages"];
    keys.extend(crate::project_code::CODE_SETTINGS);
    let dropped = settings.drop_project_keys(&keys);
    if !dropped.is_empty() {
        warnings.push(format!(
            "Warning: not used from .pi/settings.json until the project is approved again: {}",
            dropped.join(", ")
        ));
    }
    (settings, false)
}

/// The extensions of this run. `project_code`: the project is trusted and its code is as it
/// was trusted, so its packages load.
pub(crate) fn load_extensions(
    opts: &StartupOptions,
    env: &StartupEnv,
    settings: &SettingsManager,
    project_code: bool,
    host: &pi_ext_host::ExtensionHost,
) -> Extensions {
    let mut warnings = Vec::new();
    let settings_paths = settings.resource_paths("extensions");
    let trusted = project_code;
    let approvals = pi_ext_host::approvals::Approvals::load(&env.agent_dir).unwrap_or_else(|e| {
        warnings.push(format!("Warning: package approvals not read: {e}"));
        pi_ext_host::approvals::Approvals::default()
    });
    let packages = installed_packages(env, trusted, &approvals, &mut warnings);
    let protected = protected_dirs(opts, env, settings);
    let mut extensions = crate::extensions::load(
        host,
        &ExtensionSearch {
            agent_dir: &env.agent_dir,
            cwd: &env.cwd,
            project_trusted: trusted,
            no_extensions: opts.no_extensions,
            settings_paths: &settings_paths,
            cli_paths: &opts.extensions,
            packages: &packages,
            protected: &protected,
            approvals: &approvals,
        },
    );
    let project_files = pi_ext_host::protected::project_files(&env.cwd);
    if !extensions.loaded.is_empty()
        && protected
            .iter()
            .filter(|dir| !project_files.contains(dir))
            .any(|dir| dir.starts_with(pi_ext_host::protected::canonical(&env.cwd)))
    {
        warnings.push(format!(
            "Note: the working directory holds pi's own directory {}; extensions cannot read or \
             write it.",
            env.agent_dir.display()
        ));
    }
    extensions.warnings.splice(0..0, warnings);
    extensions
}

/// pi's own directories, which no extension reaches whatever its grant (see
/// `pi_ext_host::protected`): the agent directory (credentials, settings, packages, trust
/// records), the session directory, and the project's approval rules.
fn protected_dirs(
    opts: &StartupOptions,
    env: &StartupEnv,
    settings: &SettingsManager,
) -> Vec<PathBuf> {
    use pi_ext_host::protected::canonical;
    let sessions = paths::session_dir_for(
        opts.session_dir.as_deref(),
        settings.session_dir().as_deref(),
        &env.agent_dir,
        &env.cwd,
    );
    let mut dirs = vec![canonical(&env.agent_dir)];
    let sessions = canonical(&sessions.path);
    if !sessions.starts_with(&dirs[0]) {
        dirs.push(sessions);
    }
    dirs.extend(pi_ext_host::protected::project_files(&env.cwd));
    dirs
}

/// Whether a trusted project's extensions and packages are the ones that were trusted (see
/// [`crate::project_code`]); when not, they are not loaded and the warning says how to
/// approve them.
fn project_code_approved(
    opts: &StartupOptions,
    env: &StartupEnv,
    warnings: &mut Vec<String>,
) -> bool {
    use crate::project_code::{CodeCheck, check};
    match check(&env.agent_dir, &env.cwd, opts.approve == Some(true)) {
        Ok(CodeCheck::Approved) => true,
        Ok(CodeCheck::Changed) => {
            warnings.push(
                "Warning: this project's code (.pi/extensions, .pi/packages.lock.json, or the \
                 `extensions`, `packages`, `shellPath`, `shellCommandPrefix`, `externalEditor` \
                 or `tools` of .pi/settings.json) changed since the project was trusted, so it \
                 is not used. Check it, then run pi once with --approve to trust the project as \
                 it is now."
                    .to_owned(),
            );
            false
        }
        Err(error) => {
            warnings.push(format!("Warning: project extensions not loaded: {error}"));
            false
        }
    }
}

/// The packages `pi ext install` recorded in a scope's lock file that its settings still list
/// (`packages`), with each entry's filter: the user scope's, then the trusted project's, which
/// load later and so win for the same package name. An entry whose filter is malformed is
/// skipped with a warning (loading all of it could load what the user meant to leave out).
fn installed_packages(
    env: &StartupEnv,
    trusted: bool,
    approvals: &pi_ext_host::approvals::Approvals,
    warnings: &mut Vec<String>,
) -> Vec<crate::extensions::InstalledPackage> {
    use crate::extensions::{InstalledPackage, filter::PackageFilter};
    use pi_ext_host::lockfile::{LOCK_FILE, LockFile};
    let mut scopes = vec![env.agent_dir.clone()];
    if trusted {
        scopes.push(env.cwd.join(".pi"));
    }
    let mut out = Vec::new();
    for dir in scopes {
        let settings_file = dir.join("settings.json");
        let settings = pi_session::settings::read_settings_file(&settings_file).unwrap_or_default();
        let mut listed = Vec::new();
        for entry in settings
            .get("packages")
            .and_then(serde_json::Value::as_array)
            .into_iter()
            .flatten()
        {
            let Some(source) = pi_session::settings::package_entry_source(entry) else {
                continue;
            };
            match PackageFilter::of_entry(entry) {
                Ok(filter) => listed.push((source, filter)),
                Err(error) => warnings.push(format!(
                    "Warning: package {source} not loaded: {}: its `packages` entry: {error}",
                    settings_file.display()
                )),
            }
        }
        if listed.is_empty() {
            continue;
        }
        // The user's lock file is in the agent directory, out of every extension's reach; the
        // project's is the workspace's, so each of its entries must be the one `pi ext
        // install` recorded.
        let project = dir != env.agent_dir;
        match LockFile::load(&dir.join(LOCK_FILE)) {
            Ok(lock) => out.extend(lock.packages.into_iter().filter_map(|locked| {
                let (_, filter) = listed.iter().find(|(s, _)| *s == locked.source)?;
                if project && !approvals.vouches_for(&locked) {
                    warnings.push(format!(
                        "Warning: package {} not loaded: its entry in {} is not one `pi ext \
                         install` made on this machine (its source, path, files or approved \
                         capabilities differ from what was approved); run `pi ext approve {} -l` \
                         to review and approve it",
                        locked.name,
                        dir.join(LOCK_FILE).display(),
                        locked.name
                    ));
                    return None;
                }
                Some(InstalledPackage {
                    filter: filter.clone(),
                    locked,
                })
            })),
            Err(error) => warnings.push(format!("Warning: packages not loaded: {error}")),
        }
    }
    out
}

/// The session the flags ask for.
/// The lines of the opened session file that could not be read, the first few by number.
fn session_warnings(session: &SessionManager) -> Vec<String> {
    const SHOWN: usize = 5;
    let found = session.warnings();
    let file = session
        .session_file()
        .map_or_else(String::new, |p| format!("{}: ", p.display()));
    let mut out: Vec<String> = found
        .iter()
        .take(SHOWN)
        .map(|w| format!("Warning (session): {file}{w}"))
        .collect();
    if found.len() > SHOWN {
        out.push(format!(
            "Warning (session): {} more lines could not be read",
            found.len() - SHOWN
        ));
    }
    out
}

pub fn open_session(opts: &StartupOptions, base: &Base) -> Result<SessionManager, StartupError> {
    let chosen = [
        opts.continue_session,
        opts.resume,
        opts.session.is_some(),
        opts.session_id.is_some(),
        opts.fork.is_some(),
        opts.no_session,
    ];
    if chosen.iter().filter(|c| **c).count() > 1 {
        return Err(StartupError::ConflictingSessionFlags);
    }
    let cwd = &base.env.cwd;
    let dir = paths::session_dir_for(
        opts.session_dir.as_deref(),
        base.settings.session_dir().as_deref(),
        &base.env.agent_dir,
        cwd,
    );
    let mut session = if opts.no_session {
        SessionManager::in_memory(cwd)
    } else if opts.resume && !opts.resume_picker {
        return Err(StartupError::ResumeNeedsUi);
    } else if opts.continue_session {
        SessionManager::continue_recent(cwd, &dir)?
    } else if let Some(id) = &opts.session_id {
        SessionManager::open_or_create_with_id(cwd, &dir.path, id)
            .ok_or_else(|| StartupError::InvalidSessionId(id.clone()))??
    } else if let Some(arg) = &opts.session {
        let (path, local) = locate_session(arg, base, &dir.path)?;
        if local {
            SessionManager::open(&path, cwd)?
        } else {
            // A session of another project: pi asks before forking it here; without a UI we
            // fork (the original stays untouched).
            SessionManager::fork_from(&path, cwd, &dir.path)?
        }
    } else if let Some(arg) = &opts.fork {
        let (path, _) = locate_session(arg, base, &dir.path)?;
        SessionManager::fork_from(&path, cwd, &dir.path)?
    } else {
        SessionManager::create(cwd, &dir.path)
    };
    if let Some(name) = &opts.name {
        let name = name.replace(['\n', '\r'], " ").trim().to_owned();
        if !name.is_empty() {
            session.append_session_info(Some(name))?;
        }
    }
    Ok(session)
}

/// A `--session`/`--fork` argument as a file path, and whether it belongs to this project.
fn locate_session(
    arg: &str,
    base: &Base,
    local_dir: &Path,
) -> Result<(PathBuf, bool), StartupError> {
    if is_session_path(arg) {
        let path = paths::expand_tilde(arg);
        let path = if path.is_absolute() {
            path
        } else {
            base.env.cwd.join(path)
        };
        return Ok((path, true));
    }
    let found = find_session_by_id(arg, local_dir, &paths::sessions_root(&base.env.agent_dir))?;
    let local = found.local || Path::new(&found.cwd) == base.env.cwd;
    Ok((found.path, local))
}

fn session_thinking_level(session: &SessionManager) -> Option<ThinkingLevel> {
    session
        .branch_settings()
        .thinking_level
        .and_then(|level| ThinkingLevel::parse(&level))
}

fn choose_model(
    opts: &StartupOptions,
    base: &Base,
    session: &SessionManager,
    scoped: &[ScopedModel],
    resuming: bool,
) -> Result<(ScopedModel, Option<Reached>), StartupError> {
    let cli = cli_model(
        &base.registry,
        opts.provider.as_deref(),
        opts.model.as_deref(),
    )?;
    let reached = cli.as_ref().map(|c| c.reached);
    let cli = cli.map(|c| c.scoped);
    let session_model = resuming
        .then(|| session.branch_settings().model)
        .flatten()
        .map(|m| (m.provider, m.model_id));
    let inputs = InitialModelInputs {
        registry: &base.registry,
        auth: &base.auth,
        cli,
        scoped,
        resuming,
        session_model,
        default_provider: base.settings.default_provider(),
        default_model: base.settings.default_model(),
    };
    let chosen = initial_model(&inputs).ok_or_else(|| {
        StartupError::NoModel(no_model_message(&base.env.agent_dir, &base.local_probe))
    })?;
    if opts.api_key.is_some() {
        let extension = crate::extensions::serving(&base.extensions, &chosen.model);
        model_select::check_api_key_target(&chosen.model, extension.as_deref(), reached)?;
    }
    let has_key = opts.api_key.is_some()
        || base
            .registry
            .has_credential(&chosen.model.provider, &base.auth);
    if !has_key {
        return Err(StartupError::NoApiKey(no_api_key_message(
            &chosen.model,
            &base.env.agent_dir,
        )));
    }
    Ok((chosen, reached))
}

/// The tool names enabled by `--tools`, `--exclude-tools`, `--no-tools` and
/// `--no-builtin-tools`, with warnings for unknown names. `extension_tools` are the names the
/// loaded extensions provide: enabled by default, selectable with `--tools` like built-ins,
/// kept by `--no-builtin-tools`.
pub fn enabled_tools(
    opts: &StartupOptions,
    extension_tools: &[String],
) -> (Vec<String>, Vec<String>) {
    let from_extension = |n: &str| extension_tools.iter().any(|e| e == n);
    let mut warnings = Vec::new();
    let mut names: Vec<String> = match &opts.tools {
        Some(list) => list
            .iter()
            .map(|n| n.trim())
            .filter(|n| !n.is_empty())
            // MCP tools and the tools that come with them are chosen by `crate::mcp::ToolFilter`.
            .filter(|n| !crate::mcp::is_mcp_tool(n))
            .filter(|n| {
                let known = BUILTIN_TOOL_NAMES.contains(n)
                    || *n == crate::subagents::TOOL_NAME
                    || from_extension(n);
                if !known {
                    warnings.push(format!("Warning: unknown tool \"{n}\" ignored"));
                }
                known
            })
            .map(str::to_owned)
            .collect(),
        None if opts.no_tools => Vec::new(),
        // `subagent` is offered only when an agent is defined (`App::offer_subagents`).
        None => DEFAULT_ENABLED
            .iter()
            .chain([&crate::subagents::TOOL_NAME])
            .map(|n| (*n).to_owned())
            .chain(extension_tools.iter().cloned())
            .collect(),
    };
    if opts.no_builtin_tools {
        names.retain(|n| {
            let builtin =
                BUILTIN_TOOL_NAMES.contains(&n.as_str()) || n == crate::subagents::TOOL_NAME;
            !builtin || from_extension(n)
        });
    }
    names.retain(|n| !opts.exclude_tools.iter().any(|x| x.trim() == n));
    let mut seen = Vec::new();
    names.retain(|n| {
        let first = !seen.contains(n);
        seen.push(n.clone());
        first
    });
    (names, warnings)
}

/// What the command line says about the tools' policy.
pub(crate) fn policy_flags<'a>(
    opts: &'a StartupOptions,
    env: &'a StartupEnv,
) -> crate::tool_policy::PolicyFlags<'a> {
    crate::tool_policy::PolicyFlags {
        cwd: &env.cwd,
        add_dirs: &opts.add_dirs,
        sandbox: opts.sandbox.as_deref(),
    }
}

/// Resolves settings resource paths (`~`, relative to the agent dir).
/// Where skills, prompt templates and context files are found, kept so `/reload` can look
/// again with what start-up resolved (flags, trust, package folders, the enabled tools).
#[derive(Debug, Clone)]
pub struct ResourceSearch {
    opts: StartupOptions,
    env: StartupEnv,
    trusted: bool,
    skill_paths: Vec<PathBuf>,
    template_paths: Vec<PathBuf>,
    /// The prompt-template folders packages ship (also in `template_paths`).
    package_prompt_dirs: Vec<PathBuf>,
    package_skill_dirs: Vec<PathBuf>,
    /// The agent-definition folders packages ship, with the package's name.
    package_agent_dirs: Vec<(String, PathBuf)>,
    tools: Vec<ToolDescription>,
    /// pi's own documentation on disk, named by the system prompt (`None`: not available).
    docs: Option<crate::shipped_docs::ShippedDocs>,
}

/// What one look found.
pub struct Resources {
    pub skills: SkillRegistry,
    pub templates: PromptTemplates,
    pub prompt_options: SystemPromptOptions,
    /// The files' contents the prompt is built from.
    pub prompt_sources: PromptSources,
    /// The files the prompt and the templates may come from (rule files, `SYSTEM.md` and
    /// `APPEND_SYSTEM.md`, skills, templates).
    pub prompt_files: Vec<PathBuf>,
}

impl ResourceSearch {
    fn new(opts: &StartupOptions, base: &Base, tool_names: &[String]) -> Self {
        let mut template_paths = base.settings.resource_paths("prompts");
        template_paths.extend(base.extensions.prompt_dirs.iter().cloned());
        ResourceSearch {
            opts: opts.clone(),
            env: base.env.clone(),
            trusted: base.trusted,
            skill_paths: base.settings.resource_paths("skills"),
            template_paths,
            package_prompt_dirs: base.extensions.prompt_dirs.clone(),
            package_skill_dirs: base.extensions.skill_dirs.clone(),
            package_agent_dirs: base.extensions.agent_dirs.clone(),
            tools: tool_names
                .iter()
                .filter_map(|name| prompt_tool(name, &base.extensions))
                .collect(),
            docs: crate::shipped_docs::install(&base.env.agent_dir),
        }
    }

    /// The folders the file tools may always read: where skills and prompt templates are
    /// looked for (the user's, the settings', the command line's, the packages'), the folder
    /// of each skill in `found`, and pi's own documentation.
    pub fn readable_roots(&self, found: &SkillRegistry) -> Vec<PathBuf> {
        let env = &self.env;
        let mut locations = vec![env.agent_dir.join("skills"), env.agent_dir.join("prompts")];
        locations.extend(
            env.home_dir
                .iter()
                .map(|h| h.join(".agents").join("skills")),
        );
        locations.extend(self.skill_paths.iter().cloned());
        locations.extend(self.template_paths.iter().cloned());
        locations.extend(self.package_skill_dirs.iter().cloned());
        let cli = self.opts.skills.iter().chain(&self.opts.prompt_templates);
        locations.extend(cli.map(|p| {
            let path = paths::expand_tilde(p);
            if path.is_absolute() {
                path
            } else {
                env.cwd.join(path)
            }
        }));
        locations.extend(found.skills.iter().map(|s| s.base_dir.clone()));
        let mut roots = crate::tool_policy::readable_roots(locations);
        // Known to be a directory: added after the check so it costs no second `stat`.
        roots.extend(self.docs.iter().map(|d| d.root.clone()));
        roots
    }

    /// Start-up's view of the command line, the directories and trust.
    pub(crate) fn startup(&self) -> (&StartupOptions, &StartupEnv, bool) {
        (&self.opts, &self.env, self.trusted)
    }

    /// Takes in what reloaded extensions ship and the tools now enabled, for the next
    /// [`load`](Self::load).
    pub(crate) fn set_extensions(&mut self, extensions: &Extensions, tool_names: &[String]) {
        self.template_paths
            .retain(|p| !self.package_prompt_dirs.contains(p));
        self.package_prompt_dirs = extensions.prompt_dirs.clone();
        self.template_paths
            .extend(self.package_prompt_dirs.iter().cloned());
        self.package_skill_dirs = extensions.skill_dirs.clone();
        self.package_agent_dirs = extensions.agent_dirs.clone();
        self.tools = tool_names
            .iter()
            .filter_map(|name| prompt_tool(name, extensions))
            .collect();
    }

    /// The agent definitions of the packages, the user and the project (when trusted) as the
    /// disk has them now.
    pub fn agents(&self) -> crate::subagents::AgentDefinitions {
        crate::subagents::definitions::discover(&crate::subagents::AgentSearch {
            agent_dir: &self.env.agent_dir,
            cwd: &self.env.cwd,
            trusted: self.trusted,
            package_dirs: &self.package_agent_dirs,
        })
    }

    /// Skills, prompt templates and the system prompt (with the context files) as the disk has
    /// them now.
    pub fn load(&self) -> Resources {
        let (opts, env) = (&self.opts, &self.env);
        let skills = discover(&SkillSearch {
            agent_dir: &env.agent_dir,
            home_dir: env.home_dir.as_deref(),
            cwd: &env.cwd,
            project_trusted: self.trusted,
            no_skills: opts.no_skills,
            settings_paths: &self.skill_paths,
            package_dirs: &self.package_skill_dirs,
            cli_paths: &opts.skills,
        });
        let templates = PromptTemplates::discover(&TemplateSearch {
            agent_dir: &env.agent_dir,
            cwd: &env.cwd,
            project_trusted: self.trusted,
            no_templates: opts.no_prompt_templates,
            extra_paths: &self.template_paths,
            cli_paths: &opts.prompt_templates,
        });
        let mut options = SystemPromptOptions::new(&env.cwd, &env.agent_dir);
        options.project_trusted = self.trusted;
        options.system_prompt = opts.system_prompt.clone();
        options.append_system_prompt = opts.append_system_prompt.clone();
        options.no_context_files = opts.no_context_files;
        options.skills = skills.skills.clone();
        options.tools = self.tools.clone();
        if let Some(docs) = &self.docs {
            options.docs = docs.paths.clone();
        }
        let sources = PromptSources::load(&options);
        let mut prompt_files: Vec<PathBuf> = sources
            .context_files
            .iter()
            .map(|f| f.path.clone())
            .collect();
        for name in ["SYSTEM.md", "APPEND_SYSTEM.md"] {
            prompt_files.push(env.agent_dir.join(name));
            if self.trusted {
                prompt_files.push(env.cwd.join(".pi").join(name));
            }
        }
        prompt_files.extend(skills.skills.iter().map(|s| s.file_path.clone()));
        prompt_files.extend(templates.templates.iter().map(|t| t.file_path.clone()));
        Resources {
            skills,
            templates,
            prompt_options: options,
            prompt_sources: sources,
            prompt_files,
        }
    }
}

/// What the system prompt says about one enabled tool (the extension's when it provides it).
fn prompt_tool(name: &str, extensions: &Extensions) -> Option<ToolDescription> {
    match extensions.tool(name) {
        Some(tool) => Some(tool.description.clone()),
        None => pi_builtins::description(name),
    }
}

/// What to do when no model has credentials.
pub fn no_model_message(agent_dir: &Path, local_probe: &LocalProbe) -> String {
    let models_json = agent_dir.join("models.json");
    let probed = local_probe
        .summary()
        .map(|s| format!("\n\n{s}"))
        .unwrap_or_default();
    format!(
        "No models available: pi found no credentials for any provider.\n\
         \n\
         Fix it in one of these ways:\n\
         \x20 1. Set an API key environment variable, for example:\n\
         \x20      export ANTHROPIC_API_KEY=...     (Anthropic)\n\
         \x20      export OPENAI_API_KEY=...        (OpenAI)\n\
         \x20      export GEMINI_API_KEY=...        (Google Gemini)\n\
         \x20      export OPENROUTER_API_KEY=...    (OpenRouter)\n\
         \x20 2. Sign in or store a key: pi auth login <provider> (or /login <provider> in\n\
         \x20    interactive pi).\n\
         \x20 3. Pass --provider <name> --model <id> --api-key <key> for one run.\n\
         \x20 4. Start a local OpenAI-compatible server (Ollama, llama.cpp, vLLM, LM Studio) on its\n\
         \x20    usual port, or add one to {path}, e.g.\n\
         \x20      {{\"providers\": {{\"ollama\": {{\"baseUrl\": \"http://localhost:11434/v1\",\n\
         \x20        \"api\": \"openai-completions\", \"apiKey\": \"ollama\",\n\
         \x20        \"models\": [{{\"id\": \"qwen2.5-coder:7b\"}}]}}}}}}\n\
         \x20    (llama.cpp's llama-server: \"baseUrl\": \"http://localhost:8080/v1\").{probed}",
        path = models_json.display()
    )
}

/// What to do when the chosen model's provider has no key.
pub fn no_api_key_message(model: &Model, agent_dir: &Path) -> String {
    let vars = pi_ai::auth::env_var_names(&model.provider);
    let env_hint = match vars.first() {
        Some(var) => format!("set {var}, "),
        None => String::new(),
    };
    format!(
        "No API key for provider \"{provider}\" (model {provider}/{id}).\n\
         To fix it: {env_hint}run `pi auth login {provider}` (or /login {provider} in \
         interactive pi), pass --api-key <key>, \
         or give the provider an \"apiKey\" in {models_json}.",
        provider = model.provider,
        id = model.id,
        models_json = agent_dir.join("models.json").display()
    )
}

/// Keeps `model_select` reachable for callers that only import `startup`.
pub use model_select::DEFAULT_THINKING_LEVEL;

/// What a prepared run's tools are built from.
pub fn prepared_source(prepared: &Prepared) -> crate::tools::ToolSource {
    let env = &prepared.base.env;
    crate::tools::ToolSource::new(
        &prepared.tool_names,
        (&env.cwd, &env.agent_dir),
        &prepared.base.extensions,
        &prepared.base.settings,
        &prepared.tool_policy,
    )
    .with_checkpoints(prepared.checkpoints.clone())
}

/// The tools of a prepared run (built-in and extension components) in its permission mode,
/// with pi's `PI_*` variables for `bash` commands.
pub fn session_tools(prepared: &Prepared) -> Vec<std::sync::Arc<dyn pi_agent::AgentTool>> {
    prepared_source(prepared).tools(
        &prepared.base.host,
        crate::tools::SessionFacts {
            session_id: prepared.session.session_id(),
            command_env: crate::tools::command_env(
                &prepared.session,
                &prepared.model,
                prepared.thinking,
            ),
            model_images: &prepared.model_images,
        },
        prepared.permission_mode,
    )
}
