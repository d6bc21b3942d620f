//! What the built-in tools of a run may touch, from the flags and settings: the file tools'
//! path policy (`tools.pathScope`, `--add-dir`, `tools.writableRoots`, and the folders that
//! are always readable: skills and package resources, whose paths the system prompt gives
//! the model to `read`), and the Landlock sandbox of `bash`'s commands (`--sandbox`,
//! `tools.sandbox`, `tools.sandboxNetwork`), checked here so that a system that cannot
//! enforce it stops start-up instead of running commands unconfined. Bad values stop start-up
//! with a message naming the flag or setting.

use pi_builtins::{PathPolicy, PathScope};
use pi_ext_host::{SandboxError, SandboxMode, ShellSandbox};
use pi_session::paths::expand_tilde;
use pi_session::settings::SettingsManager;
use std::path::{Path, PathBuf};

/// Why the tool policy could not be built.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    #[error("--add-dir {dir}: {reason}")]
    AddDir { dir: String, reason: String },
    #[error(
        "Invalid tools.pathScope \"{0}\" in settings: use \"workspace\", \"default\" or \"anywhere\"."
    )]
    PathScope(String),
    #[error(
        "Invalid tools.sandbox \"{0}\" in settings: use \"off\", \"read-only\" or \"workspace-write\"."
    )]
    SandboxMode(String),
    #[error("{0}")]
    Sandbox(#[from] SandboxError),
}

/// The policy of the built-in tools of one run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolPolicy {
    pub paths: PathPolicy,
    /// The sandbox of `bash`'s commands (`None`: off); its writable directories are filled in
    /// by the bash tool's grant.
    pub sandbox: Option<ShellSandbox>,
}

/// What the command line asked for.
#[derive(Debug, Clone, Copy)]
pub struct PolicyFlags<'a> {
    /// The working directory relative paths are resolved against.
    pub cwd: &'a Path,
    /// `--add-dir`.
    pub add_dirs: &'a [String],
    /// `--sandbox` (wins over `tools.sandbox`).
    pub sandbox: Option<&'a str>,
}

/// The policy the flags and settings ask for; `readable` are the folders always readable.
/// A writable root from the settings that is not a directory is left out with a warning; an
/// `--add-dir` that is not one stops start-up.
pub fn tool_policy(
    flags: PolicyFlags<'_>,
    settings: &SettingsManager,
    readable: Vec<PathBuf>,
    warnings: &mut Vec<String>,
) -> Result<ToolPolicy, PolicyError> {
    let scope = match settings.tools_path_scope() {
        None => PathScope::Default,
        Some(value) => PathScope::parse(&value).ok_or(PolicyError::PathScope(value))?,
    };
    let mut writable_roots = Vec::new();
    for dir in flags.add_dirs {
        let path = absolute(dir, flags.cwd);
        if !path.is_dir() {
            return Err(PolicyError::AddDir {
                dir: dir.clone(),
                reason: format!("{} is not a directory", path.display()),
            });
        }
        writable_roots.push(path);
    }
    for dir in settings.tools_writable_roots() {
        let path = absolute(&dir, flags.cwd);
        if path.is_dir() {
            writable_roots.push(path);
        } else {
            warnings.push(format!(
                "Warning (settings): tools.writableRoots entry {dir} is not a directory; ignored"
            ));
        }
    }
    Ok(ToolPolicy {
        paths: PathPolicy::new(scope, writable_roots, readable, flags.cwd),
        sandbox: sandbox(flags.sandbox, settings)?,
    })
}

/// The sandbox the flag or the setting asks for, once this system is known to enforce it.
fn sandbox(
    flag: Option<&str>,
    settings: &SettingsManager,
) -> Result<Option<ShellSandbox>, PolicyError> {
    let value = flag.map(str::to_owned).or_else(|| settings.tools_sandbox());
    let mode = match value.as_deref() {
        None | Some("off") => return Ok(None),
        Some("read-only") => SandboxMode::ReadOnly,
        Some("workspace-write") => SandboxMode::WorkspaceWrite,
        Some(other) => return Err(PolicyError::SandboxMode(other.to_owned())),
    };
    let sandbox = ShellSandbox {
        mode,
        writable: Vec::new(),
        network: settings.tools_sandbox_network(),
        plan_mode: false,
    };
    sandbox.check()?;
    Ok(Some(sandbox))
}

/// `~` expanded, relative to `cwd` (the policy folds `.` and `..`).
fn absolute(dir: &str, cwd: &Path) -> PathBuf {
    cwd.join(expand_tilde(dir))
}

/// Folders the file tools may always read: where skills and prompt templates are found (the
/// system prompt lists skills by path for the model to `read`), those packages ship, and the
/// folder of each skill found. A file's folder stands for the file.
pub fn readable_roots(locations: impl IntoIterator<Item = PathBuf>) -> Vec<PathBuf> {
    locations
        .into_iter()
        .filter_map(|path| {
            if path.is_file() {
                path.parent().map(Path::to_path_buf)
            } else {
                Some(path)
            }
        })
        .collect()
}
