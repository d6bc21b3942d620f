//! The shell sandbox: Linux Landlock rules applied to the processes a component spawns
//! (pi's `bash` tool under `--sandbox` / `tools.sandbox`).
//!
//! The ruleset is built in pi before the fork (opening the directories its rules name) and
//! only enforced in the child, between fork and exec, so the child does nothing but two
//! system calls there. Landlock rules are inherited: everything the command starts is
//! confined too.
//!
//! - `read-only`: everything may be read and executed, nothing written (but `/dev/null`);
//! - `workspace-write`: the same, plus full access below the writable directories (the
//!   workspace, the writable roots, the temp dirs);
//! - network off: TCP `connect` and `bind` refused (Landlock ABI 4, Linux 6.7). UDP and Unix
//!   sockets are not covered by Landlock at that level.
//!
//! Filesystem rules need Landlock ABI 3 (Linux 6.2: truncation is controlled too); newer
//! file rights (device ioctls) are used when the kernel has them. When the kernel offers
//! less, nothing runs: [`ShellSandbox::check`] fails at start-up and a spawn fails the same
//! way, rather than running the command unconfined. Setting `PI_SANDBOX_FORCE_UNAVAILABLE=1`
//! makes the check fail as on a kernel without Landlock (for tests of that path).

use std::path::PathBuf;

/// The environment variable that makes Landlock look unavailable.
pub const FORCE_UNAVAILABLE_ENV: &str = "PI_SANDBOX_FORCE_UNAVAILABLE";

/// What sandboxed commands may write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SandboxMode {
    /// Nothing (but `/dev/null`).
    ReadOnly,
    /// The writable directories of [`ShellSandbox`].
    WorkspaceWrite,
}

impl SandboxMode {
    /// `read-only` or `workspace-write`, as the flag and the setting spell them.
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxMode::ReadOnly => "read-only",
            SandboxMode::WorkspaceWrite => "workspace-write",
        }
    }
}

/// The sandbox of the processes one component spawns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellSandbox {
    pub mode: SandboxMode,
    /// `workspace-write` only: where commands may create, change and remove files.
    pub writable: Vec<PathBuf>,
    /// Whether commands may open TCP connections and listen.
    pub network: bool,
    /// Plan mode's sandbox (not one the user asked for): a refusal says so.
    pub plan_mode: bool,
}

/// Why the sandbox cannot be had.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SandboxError {
    #[error(
        "--sandbox {mode} needs Linux Landlock (ABI 3, Linux 6.2 or later), which {why}. \
         Nothing was run unconfined; use --sandbox off (or the setting tools.sandbox \"off\") \
         to run commands without it."
    )]
    Unavailable { mode: &'static str, why: String },
    #[error(
        "--sandbox {mode} with the network off (tools.sandboxNetwork false) needs Landlock's \
         TCP rules (ABI 4, Linux 6.7 or later), which this kernel lacks. Set \
         tools.sandboxNetwork to true, or use --sandbox off."
    )]
    NoNetworkRules { mode: &'static str },
    #[error("cannot set up the sandbox: {0}")]
    Setup(String),
    /// Plan mode's sandbox cannot be had: nothing is run unconfined in plan mode.
    #[error(
        "plan mode runs commands only under Linux Landlock (read-only, network off), and {}. \
         Nothing was run; leave plan mode to run commands.",
        .0.reason()
    )]
    PlanMode(Box<SandboxError>),
}

impl SandboxError {
    /// Why Landlock could not be used, in a few words.
    pub fn reason(&self) -> String {
        match self {
            SandboxError::Unavailable { why, .. } => format!("Landlock {why}"),
            SandboxError::NoNetworkRules { .. } => {
                "this kernel lacks Landlock's TCP rules (ABI 4, Linux 6.7 or later)".to_owned()
            }
            SandboxError::Setup(reason) => reason.clone(),
            SandboxError::PlanMode(inner) => inner.reason(),
        }
    }
}

impl ShellSandbox {
    /// Nothing written (but `/dev/null`), no TCP: plan mode's sandbox.
    pub fn read_only_offline() -> Self {
        ShellSandbox {
            mode: SandboxMode::ReadOnly,
            writable: Vec::new(),
            network: false,
            plan_mode: true,
        }
    }

    /// Whether this system can enforce the sandbox: builds its ruleset once, as a spawn would.
    pub fn check(&self) -> Result<(), SandboxError> {
        self.prepared().map(drop)
    }

    /// Confines the process `command` spawns: the ruleset is built now and enforced in the
    /// child between fork and exec (as the bash tool's spawns are). For spawns outside this
    /// crate, such as pi-mcp's stdio servers.
    #[cfg(unix)]
    pub fn confine(&self, command: &mut std::process::Command) -> Result<(), SandboxError> {
        use std::os::unix::process::CommandExt;
        let mut prepared = self.prepared()?;
        // SAFETY: the hook runs in the forked child before exec; it only makes the `prctl` and
        // `landlock_restrict_self` system calls on a ruleset built before the fork (no
        // allocation, no lock), which is what may be done between fork and exec.
        #[allow(unsafe_code)]
        unsafe {
            command.pre_exec(move || prepared.enforce());
        }
        Ok(())
    }

    /// The ruleset of one spawn, ready to be enforced in the child.
    pub(crate) fn prepared(&self) -> Result<Prepared, SandboxError> {
        let prepared = if std::env::var_os(FORCE_UNAVAILABLE_ENV).is_some_and(|v| v == "1") {
            Err(SandboxError::Unavailable {
                mode: self.mode.as_str(),
                why: format!("is made unavailable by {FORCE_UNAVAILABLE_ENV}=1"),
            })
        } else {
            imp::prepare(self)
        };
        prepared.map_err(|error| match self.plan_mode {
            true => SandboxError::PlanMode(Box::new(error)),
            false => error,
        })
    }
}

pub(crate) use imp::Prepared;

#[cfg(target_os = "linux")]
mod imp {
    use super::{SandboxError, SandboxMode, ShellSandbox};
    use landlock::{
        ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, PathBeneath, PathFd,
        RulesetAttr, RulesetCreated, RulesetCreatedAttr, RulesetError, RulesetStatus,
    };

    /// The newest file rights used when the kernel has them.
    const BEST_ABI: ABI = ABI::V5;
    /// The file rights the sandbox cannot do without (truncation came with ABI 3).
    const NEEDED_ABI: ABI = ABI::V3;

    /// A created ruleset, enforced by [`Prepared::enforce`] in the child.
    pub(crate) struct Prepared(Option<RulesetCreated>);

    impl Prepared {
        /// Enforces the ruleset on the calling process. Runs between fork and exec: it
        /// allocates nothing and only makes the `prctl` and `landlock_restrict_self` calls.
        pub(crate) fn enforce(&mut self) -> std::io::Result<()> {
            let Some(ruleset) = self.0.take() else {
                return Err(std::io::ErrorKind::InvalidInput.into());
            };
            match ruleset.restrict_self() {
                Ok(status) if status.ruleset != RulesetStatus::NotEnforced => Ok(()),
                Ok(_) => Err(std::io::ErrorKind::Unsupported.into()),
                Err(_) => Err(std::io::Error::last_os_error()),
            }
        }
    }

    pub(super) fn prepare(sandbox: &ShellSandbox) -> Result<Prepared, SandboxError> {
        let mode = sandbox.mode.as_str();
        let unavailable = |error: RulesetError| SandboxError::Unavailable {
            mode,
            why: format!("this kernel does not offer ({error})"),
        };
        let mut ruleset = landlock::Ruleset::default()
            .set_compatibility(CompatLevel::HardRequirement)
            .handle_access(AccessFs::from_all(NEEDED_ABI))
            .map_err(unavailable)?
            .set_compatibility(CompatLevel::BestEffort)
            .handle_access(AccessFs::from_all(BEST_ABI))
            .map_err(unavailable)?;
        if !sandbox.network {
            ruleset = ruleset
                .set_compatibility(CompatLevel::HardRequirement)
                .handle_access(AccessNet::from_all(ABI::V4))
                .map_err(|_| SandboxError::NoNetworkRules { mode })?
                .set_compatibility(CompatLevel::BestEffort);
        }
        let setup = |error: RulesetError| SandboxError::Setup(error.to_string());
        let mut created = ruleset
            .create()
            .map_err(unavailable)?
            .add_rule(PathBeneath::new(open("/")?, AccessFs::from_read(BEST_ABI)))
            .map_err(setup)?
            .add_rule(PathBeneath::new(
                open("/dev/null")?,
                AccessFs::ReadFile | AccessFs::WriteFile,
            ))
            .map_err(setup)?;
        if sandbox.mode == SandboxMode::WorkspaceWrite {
            for dir in sandbox.writable.iter().filter(|d| d.is_dir()) {
                let rule = PathBeneath::new(open(dir)?, AccessFs::from_all(BEST_ABI));
                created = created.add_rule(rule).map_err(setup)?;
            }
        }
        Ok(Prepared(Some(created)))
    }

    fn open(path: impl AsRef<std::path::Path>) -> Result<PathFd, SandboxError> {
        let path = path.as_ref();
        PathFd::new(path)
            .map_err(|e| SandboxError::Setup(format!("cannot open {}: {e}", path.display())))
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use super::{SandboxError, ShellSandbox};

    /// Nothing to enforce: [`prepare`] always fails off Linux.
    pub(crate) enum Prepared {}

    impl Prepared {
        pub(crate) fn enforce(&mut self) -> std::io::Result<()> {
            match *self {}
        }
    }

    pub(super) fn prepare(sandbox: &ShellSandbox) -> Result<Prepared, SandboxError> {
        Err(SandboxError::Unavailable {
            mode: sandbox.mode.as_str(),
            why: "exists only on Linux".to_owned(),
        })
    }
}
