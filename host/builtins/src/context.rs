//! Where and how the built-in tools run: the workspace and its path policy, the shell and
//! environment of `bash`, the temp dir, image support, and the engine and cache they are
//! compiled with.

use crate::locks::FileLocks;
use pi_builtin_tools::ancestor_ignores::{self, AncestorIgnores, GitExcludes};
use pi_builtin_tools::{InvocationContext, PathPolicy, ShellConfig};
use pi_ext_host::{ComponentCache, ExtensionHost};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

/// Everything the built-in tools of one session share. Tools made from the same context share
/// its per-file locks, so parallel `edit`/`write` calls to one file run one after another.
#[derive(Clone)]
pub struct ToolContext {
    pub(crate) engine: pi_ext_host::Engine,
    pub(crate) cache: Arc<ComponentCache>,
    cwd: PathBuf,
    /// What `~` expands to in tool paths; also the home whose git config names the global git
    /// excludes of `grep` and `find`.
    pub home: Option<PathBuf>,
    /// The shell `bash` runs commands with.
    pub shell: ShellConfig,
    /// The complete environment of `bash` commands (default: pi's own environment; the host
    /// adds the `PI_*` variables). `grep` and `find` look up git's config files with its
    /// `XDG_CONFIG_HOME`, `GIT_CONFIG_GLOBAL` and `GIT_CONFIG_SYSTEM`.
    pub command_env: Vec<(String, String)>,
    /// Where `bash` saves the full output of a truncated command (default: pi's own temp dir,
    /// [`own_temp_dir`]). `bash` is granted read-write access to it, and the file tools may
    /// read and write there whatever the path policy.
    pub temp_dir: PathBuf,
    /// Where the file tools may read and write besides the workspace (`tools.pathScope`,
    /// `--add-dir`, `tools.writableRoots`, what is always readable). The temp dir is added
    /// to the writable roots by [`ToolContext::policy`].
    pub paths: PathPolicy,
    /// The Landlock sandbox of `bash`'s commands (`None`: off). Under `workspace-write` its
    /// writable directories are set by `bash`'s grant: the workspace, the policy's writable
    /// roots (pi's temp dir among them) and the system temp dir.
    pub sandbox: Option<pi_ext_host::ShellSandbox>,
    /// Whether the current model accepts images; shared, so the host can flip it when the
    /// model changes.
    pub model_supports_images: Arc<AtomicBool>,
    /// pi's `autoResizeImages` (default on).
    pub auto_resize_images: bool,
    /// Reported to the components as `host.session-id`.
    pub session_id: Option<String>,
    /// Files `write` and `edit` are refused whatever the path policy (canonical, see
    /// `pi_ext_host::protected`): default the project's approval rules
    /// (`pi_ext_host::protected::project_files`); pi-app adds the global rules file.
    pub protected_files: Vec<PathBuf>,
    /// Told of every path a tool is about to change (checkpoints keep what it was).
    pub on_write: Option<pi_ext_host::WriteFn>,
    pub(crate) locks: Arc<FileLocks>,
    /// How many instances of its component one `grep` or `find` call runs at once, each on
    /// its share of the tree (see `pi_builtin_tools::tools::shard`). Default: one per CPU,
    /// at most 4 (rg and fd also search on every core; a component has no threads; the
    /// README has what it saves).
    pub shards: usize,
    /// A call is sharded only when its search root's first two levels hold this many entries
    /// (tests set 0 to split every call).
    pub shard_min_entries: usize,
    /// Where the user's global git excludes file is: looked up in git's config files at the
    /// first `grep` or `find` call (from `home` and `command_env` as they are then), once per
    /// context; the file itself is read on every call.
    global_excludes_file: Arc<OnceLock<Option<PathBuf>>>,
}

impl ToolContext {
    /// Tools working in `cwd` (absolute; it is also the workspace root the tools may touch),
    /// compiled with the extension host's engine and cache.
    pub fn new(host: &ExtensionHost, cwd: impl Into<PathBuf>) -> Self {
        Self::with_engine(host.engine().clone(), host.cache().clone(), cwd)
    }

    /// As [`ToolContext::new`], from an engine and a cache.
    pub fn with_engine(
        engine: pi_ext_host::Engine,
        cache: Arc<ComponentCache>,
        cwd: impl Into<PathBuf>,
    ) -> Self {
        let cwd = cwd.into();
        ToolContext {
            engine,
            cache,
            protected_files: pi_ext_host::protected::project_files(&cwd),
            on_write: None,
            cwd,
            home: std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(PathBuf::from),
            shell: ShellConfig::default(),
            command_env: std::env::vars().collect(),
            temp_dir: own_temp_dir(),
            paths: PathPolicy::default(),
            sandbox: None,
            model_supports_images: Arc::new(AtomicBool::new(true)),
            auto_resize_images: true,
            session_id: None,
            locks: Arc::new(FileLocks::default()),
            shards: default_shards(),
            shard_min_entries: crate::shard::MIN_ENTRIES,
            global_excludes_file: Arc::new(OnceLock::new()),
        }
    }

    /// The session cwd and workspace root.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// The path policy the tools apply and their grants are built from: [`Self::paths`] with
    /// the temp dir writable (pi's own temp dir, where bash saves full outputs).
    pub fn policy(&self) -> PathPolicy {
        let mut policy = self.paths.clone();
        if !policy.writable_roots.contains(&self.temp_dir) {
            policy.writable_roots.push(self.temp_dir.clone());
        }
        policy
    }

    /// The context a call of `tool` carries into its component.
    pub(crate) fn invocation_context(&self, tool: &str) -> InvocationContext {
        let mut context = InvocationContext::new(&self.cwd);
        context.home = self.home.clone();
        context.policy = self.policy();
        context.model_supports_images = self.model_supports_images.load(Ordering::Relaxed);
        context.auto_resize_images = self.auto_resize_images;
        if tool == "bash" {
            context.shell = Some(self.shell.path.clone());
            context.command_prefix = self.shell.command_prefix.clone();
            context.command_env = self.command_env.clone();
            context.temp_dir = Some(self.temp_dir.clone());
        }
        if tool == "grep" || tool == "find" {
            // Only the workspace is preopened: the ignore files between it and its repository
            // root, git's global excludes and a worktree root's exclude are read here, on every
            // call so edits to them count at once (where the global file is, once).
            context.ancestor_ignores = AncestorIgnores::read(&self.cwd);
            let global = self.global_excludes_file.get_or_init(|| {
                ancestor_ignores::global_excludes_file(self.home.as_deref(), &self.command_env)
            });
            context.git_excludes = GitExcludes::read(global.as_deref(), &self.cwd);
        }
        context
    }
}

/// pi's own temp dir: `pi-<uid>` in the system temp dir, private to the user (so making it
/// writable for the file tools does not open the whole system temp dir). The system temp dir
/// itself when it cannot be made, or when the name is taken by someone else or by a link.
pub fn own_temp_dir() -> PathBuf {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    let system = std::env::temp_dir();
    let uid = rustix::process::getuid().as_raw();
    let dir = system.join(format!("pi-{uid}"));
    if let Err(error) = std::fs::DirBuilder::new().mode(0o700).create(&dir)
        && error.kind() != std::io::ErrorKind::AlreadyExists
    {
        tracing::warn!(dir = %dir.display(), %error, "cannot create pi's temp dir; using the system's");
        return system;
    }
    match std::fs::symlink_metadata(&dir) {
        Ok(meta) if meta.is_dir() && meta.uid() == uid => dir,
        _ => {
            tracing::warn!(dir = %dir.display(), "pi's temp dir is not the user's own directory; using the system's");
            system
        }
    }
}

/// One `grep`/`find` instance per CPU, at most 4.
fn default_shards() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(4))
}
