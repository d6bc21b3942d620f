//! pi 1.6's `mcp.json`: `<agentDir>/mcp.json` and a trusted project's `.pi/mcp.json`.
//!
//! SKELETON: the signatures are the contract; the configuration work fills in the bodies.

use crate::spec::ServerSpec;
use std::path::{Path, PathBuf};

/// Which file an entry comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// `<agentDir>/mcp.json`.
    User,
    /// `.pi/mcp.json` of a trusted project.
    Project,
}

/// One server entry after the project file was laid over the user file.
#[derive(Debug, Clone)]
pub struct ServerEntry {
    pub name: String,
    pub scope: Scope,
    /// The file that defines it.
    pub source: PathBuf,
    /// A project entry that changes a user entry's `enabled`/`exposure`/`toolExposure` only.
    pub is_override: bool,
    pub enabled: bool,
}

/// Both files, merged; what could not be used is in `errors`, never fatal.
#[derive(Debug, Clone, Default)]
pub struct McpConfig {
    pub entries: Vec<ServerEntry>,
    /// One message per invalid file or entry, naming the file and the server.
    pub errors: Vec<String>,
}

impl McpConfig {
    /// Reads the user file and, when `project_trusted`, the project's.
    pub fn load(agent_dir: &Path, cwd: &Path, project_trusted: bool) -> McpConfig {
        let _ = (agent_dir, cwd, project_trusted);
        McpConfig::default()
    }

    /// The enabled servers, resolved (`${VAR}` and `!cmd` values expanded, `cwd` made
    /// absolute against `cwd`); an entry that cannot be resolved is an error message instead.
    pub fn specs(&self, cwd: &Path) -> (Vec<ServerSpec>, Vec<String>) {
        let _ = cwd;
        (Vec::new(), Vec::new())
    }
}
