//! What an extension may touch: built from the manifest's requests and the user's approval.

use crate::manifest::{Capabilities, FsAccess, Manifest};
use crate::sandbox::ShellSandbox;
use std::path::PathBuf;
use std::time::Duration;

/// Resource limits of one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Longest a call may run before it is interrupted. Default 30 s.
    pub timeout: Duration,
    /// Linear memory cap per store, in MiB. Default 64.
    pub memory_mib: u64,
    /// Bytes of stdout/stderr kept per call (then writes fail). Default 64 KiB.
    pub output_bytes: usize,
    /// Longest tool result (and error) text; longer is cut with a note. Default 1 MiB.
    pub result_bytes: usize,
    /// Images one result may hold (the rest become a note). Default 8.
    pub images: usize,
    /// Largest image (base64 bytes) a result may hold, as the `read` tool sends at most.
    /// Default 4.5 MiB.
    pub image_bytes: usize,
    /// Whether result images are first fitted as the `read` tool fits them (2000×2000,
    /// 4.5 MiB, BMP converted). Default true; off only for pi's own tools under
    /// `images.autoResize: false`, whose images then go as the tool made them (the size limit
    /// still applies).
    pub fit_images: bool,
    /// Largest `details` JSON of a result (it goes into the session file); larger is
    /// replaced by a note. Default 256 KiB.
    pub details_bytes: usize,
    /// Tools one package may offer (providers accept about 128 in all). Default 64.
    pub tools: usize,
    /// Largest parameter schema (JSON bytes) of one tool; it is sent with every request.
    /// Default 64 KiB.
    pub schema_bytes: usize,
    /// How long after an abort the component may still run to wind down on its own (it sees
    /// `host.aborted()` and its processes are killed at once); then it is interrupted.
    /// Default 0: interrupted at once.
    pub abort_grace: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout: Duration::from_secs(30),
            memory_mib: 64,
            output_bytes: 64 * 1024,
            result_bytes: 1024 * 1024,
            images: 8,
            image_bytes: 4608 * 1024,
            fit_images: true,
            details_bytes: 256 * 1024,
            tools: 64,
            schema_bytes: 64 * 1024,
            abort_grace: Duration::ZERO,
        }
    }
}

/// A host directory preopened at its own path besides the workspace. Only the host's own
/// tools get these (built from pi's path policy); a manifest cannot ask for one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preopen {
    /// Absolute host path, also the path the component sees.
    pub path: PathBuf,
    /// `Read` or `Write` (`None` preopens nothing).
    pub access: FsAccess,
}

/// Capabilities granted to one extension. Deny by default: [`Grant::new`] grants nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    /// The session's working directory (absolute). Preopened at this same path when
    /// `filesystem` is not `None`.
    pub workspace: PathBuf,
    pub filesystem: FsAccess,
    /// More directories preopened at their real paths (the built-in tools' read and write
    /// roots). A directory missing when a call starts is left out of that call.
    pub preopens: Vec<Preopen>,
    /// Host directories and files (canonical, see [`crate::protected::canonical`]) no call
    /// reaches through any preopen, whatever the path: pi's agent and session directories and
    /// the project's approval rules ([`crate::protected::project_files`]). A workspace inside
    /// one is not preopened at all.
    pub protected: Vec<PathBuf>,
    /// A private temp dir, preopened at its real path and named by `TMPDIR`.
    pub temp: bool,
    /// An existing host directory used as the temp dir instead of a private one: preopened
    /// read-write at its real path, named by `TMPDIR`, never removed (files written there
    /// outlive the call, e.g. a saved command output the user is pointed to).
    pub temp_dir: Option<PathBuf>,
    /// Hosts (`name` or `name:port`) HTTP requests may go to.
    pub network: Vec<String>,
    /// Names of host environment variables the extension sees.
    pub env: Vec<String>,
    pub process: bool,
    /// Landlock rules for the processes spawned under `process` (pi's own `bash` tool under
    /// `--sandbox`); a manifest cannot ask for one.
    pub sandbox: Option<ShellSandbox>,
    pub llm: bool,
    /// The `ui` import answers (otherwise dialogs answer none and notices are dropped).
    pub ui: bool,
    /// The `session` import answers (otherwise every call is refused).
    pub session: bool,
    pub limits: Limits,
}

impl Grant {
    /// Nothing granted; `workspace` is still reported as the cwd.
    pub fn new(workspace: impl Into<PathBuf>) -> Self {
        Grant {
            workspace: workspace.into(),
            filesystem: FsAccess::None,
            preopens: Vec::new(),
            protected: Vec::new(),
            temp: false,
            temp_dir: None,
            network: Vec::new(),
            env: Vec::new(),
            process: false,
            sandbox: None,
            llm: false,
            ui: false,
            session: false,
            limits: Limits::default(),
        }
    }

    /// Everything the manifest asked for (the user approved it all).
    pub fn from_capabilities(capabilities: &Capabilities, workspace: impl Into<PathBuf>) -> Self {
        Grant {
            filesystem: capabilities.filesystem,
            temp: capabilities.temp,
            network: capabilities.network.clone(),
            env: capabilities.env.clone(),
            process: capabilities.process,
            llm: capabilities.llm,
            ui: capabilities.ui,
            session: capabilities.session,
            ..Grant::new(workspace)
        }
    }

    /// Everything the manifest asked for, with the limits it sets on itself (a package may
    /// shorten its calls' deadline, never lengthen it).
    pub fn from_manifest(manifest: &Manifest, workspace: impl Into<PathBuf>) -> Self {
        let mut grant = Self::from_capabilities(&manifest.capabilities, workspace);
        if let Some(ms) = manifest.limits.timeout_ms {
            grant.limits.timeout = grant.limits.timeout.min(Duration::from_millis(ms));
        }
        grant
    }

    /// The same grant with nothing it could change anything with (plan mode): the workspace
    /// and preopens at most readable, no persistent temp dir (a private one instead, removed
    /// with the session), and processes, when granted, under Landlock read-only with the
    /// network off (a spawn fails where Landlock is missing). HTTP to the granted hosts stays:
    /// what a request does on the server is beyond the host's reach.
    pub fn read_only(&self) -> Grant {
        let mut grant = self.clone();
        grant.filesystem = grant.filesystem.min(FsAccess::Read);
        for preopen in &mut grant.preopens {
            preopen.access = preopen.access.min(FsAccess::Read);
        }
        if grant.temp_dir.take().is_some() {
            grant.temp = true;
        }
        if grant.process {
            grant.sandbox = Some(ShellSandbox::read_only_offline());
        }
        grant
    }

    /// Whether an HTTP request to `authority` (`host` or `host:port`) is allowed. A granted
    /// name without a port allows any port of that host.
    pub fn allows_host(&self, authority: &str) -> bool {
        let host = authority.rsplit_once(':').map_or(authority, |(h, _)| h);
        self.network.iter().any(|granted| {
            if granted.contains(':') {
                granted.eq_ignore_ascii_case(authority)
            } else if let Some(suffix) = granted.strip_prefix("*.") {
                host.len() > suffix.len() + 1
                    && host
                        .to_ascii_lowercase()
                        .ends_with(&format!(".{}", suffix.to_ascii_lowercase()))
            } else {
                granted.eq_ignore_ascii_case(host)
            }
        })
    }
}

/// What a call of an import the extension was not granted returns to the component.
pub(crate) fn not_granted(capability: &str, extension: &crate::error::ExtensionId) -> String {
    format!("capability `{capability}` was not granted to {extension}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::SandboxMode;

    fn writer() -> Grant {
        Grant {
            filesystem: FsAccess::Write,
            preopens: vec![
                Preopen {
                    path: "/data".into(),
                    access: FsAccess::Write,
                },
                Preopen {
                    path: "/docs".into(),
                    access: FsAccess::Read,
                },
            ],
            temp_dir: Some("/kept".into()),
            network: vec!["example.com".into()],
            process: true,
            sandbox: Some(ShellSandbox {
                mode: SandboxMode::WorkspaceWrite,
                writable: vec!["/w".into()],
                network: true,
                plan_mode: false,
            }),
            ..Grant::new("/w")
        }
    }

    #[test]
    fn a_read_only_grant_reads_what_the_original_reaches_and_writes_nothing() {
        let grant = writer().read_only();
        assert_eq!(grant.filesystem, FsAccess::Read);
        assert!(grant.preopens.iter().all(|p| p.access == FsAccess::Read));
        assert_eq!(grant.preopens.len(), 2);
        assert_eq!(grant.temp_dir, None);
        assert!(grant.temp, "a private temp dir replaces the kept one");
        assert_eq!(grant.sandbox, Some(ShellSandbox::read_only_offline()));
        assert!(grant.process);
        assert_eq!(grant.network, vec!["example.com".to_owned()]);
        assert_eq!(grant.workspace, PathBuf::from("/w"));
    }

    #[test]
    fn a_read_only_grant_adds_nothing_the_original_lacked() {
        let none = Grant::new("/w");
        assert_eq!(none.read_only(), none);
        let reader = Grant {
            filesystem: FsAccess::Read,
            ..Grant::new("/w")
        };
        assert_eq!(reader.read_only(), reader);
    }
}
