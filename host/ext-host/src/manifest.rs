//! `pi-extension.toml`: what a package holds and what it asks for.
//!
//! ```toml
//! [package]
//! name = "hello"
//! version = "0.1.0"
//! description = "Says hello"
//! wit = "0.3.0"             # the pi:extension WIT version the components were built against
//!
//! [[component]]
//! path = "hello.wasm"
//! world = "tool"
//!
//! [capabilities]
//! filesystem = "read"        # none | read | write (on the workspace)
//! temp = true                # a private temp dir
//! network = ["api.example.com", "127.0.0.1:8080"]
//! env = ["HOME"]
//! process = false
//! llm = false
//! ui = false                 # talk to the user (notices, dialogs, footer status)
//! session = false            # send messages and store entries in the session
//!
//! [resources]
//! skills = "skills"
//! prompts = "prompts"
//! themes = "themes"
//! agents = "agents"         # agent definitions for the `subagent` tool (`*.md`)
//!
//! [limits]
//! timeout-ms = 5000          # a shorter deadline per call than pi's (never a longer one)
//!
//! [hook]
//! fail = "closed"            # a failing hook blocks the tool call (default "open": allows)
//! ```

use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::path::{Component as PathPart, Path, PathBuf};

/// The file name of a manifest inside a package directory.
pub const MANIFEST_FILE: &str = "pi-extension.toml";

/// WIT package versions this host can load, oldest first.
pub const SUPPORTED_WIT: &[&str] = &["0.1.0", "0.2.0", "0.3.0"];

/// A version of the `pi:extension` WIT package this host loads: each has its own host module
/// (`bindings::v0_1_0`, `bindings::v0_2_0`, `bindings::v0_3_0`), picked by the manifest's `wit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum WitVersion {
    /// The first contract; its `tool` world cannot reach the network.
    #[serde(rename = "0.1.0")]
    V0_1_0,
    /// The `tool` world imports `wasi:http/outgoing-handler`.
    #[serde(rename = "0.2.0")]
    V0_2_0,
    /// The `hook` world; the `tool` world imports `ui` and `session`.
    #[serde(rename = "0.3.0")]
    V0_3_0,
}

impl WitVersion {
    /// Every version, oldest first (as [`SUPPORTED_WIT`]).
    pub const ALL: [WitVersion; 3] = [WitVersion::V0_1_0, WitVersion::V0_2_0, WitVersion::V0_3_0];
    /// The version of the repository's `wit/`, which pi's own components and the SDK use.
    pub const LATEST: WitVersion = WitVersion::V0_3_0;

    pub fn as_str(self) -> &'static str {
        match self {
            WitVersion::V0_1_0 => "0.1.0",
            WitVersion::V0_2_0 => "0.2.0",
            WitVersion::V0_3_0 => "0.3.0",
        }
    }

    pub fn parse(s: &str) -> Option<WitVersion> {
        WitVersion::ALL.into_iter().find(|v| v.as_str() == s)
    }
}

impl std::fmt::Display for WitVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A validated manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub name: String,
    pub version: String,
    pub description: String,
    pub wit: WitVersion,
    pub components: Vec<ComponentEntry>,
    pub capabilities: Capabilities,
    pub resources: Resources,
    /// Absent from start-up indexes written before limits existed.
    #[serde(default)]
    pub limits: PackageLimits,
    /// How the package's hook components fail.
    #[serde(default)]
    pub hook: HookSettings,
}

/// The `[hook]` table: settings of a package's hook components.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct HookSettings {
    /// `fail = "closed"`: a hook that traps, times out or answers garbage blocks the tool call
    /// instead of allowing it.
    pub fail_closed: bool,
}

/// Limits a package sets on its own calls. They can only tighten pi's: a longer deadline
/// would be a capability, which a manifest cannot grant itself.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PackageLimits {
    /// The deadline of each call, in milliseconds (at most pi's default).
    pub timeout_ms: Option<u64>,
}

/// One component of a package.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ComponentEntry {
    /// Path relative to the package directory.
    pub path: PathBuf,
    pub world: World,
}

/// The worlds of the `pi:extension` package.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum World {
    Tool,
    Provider,
    Renderer,
    Compactor,
    /// Lifecycle hooks and slash commands (WIT 0.3.0 on).
    Hook,
}

impl World {
    pub const ALL: [World; 5] = [
        World::Tool,
        World::Provider,
        World::Renderer,
        World::Compactor,
        World::Hook,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            World::Tool => "tool",
            World::Provider => "provider",
            World::Renderer => "renderer",
            World::Compactor => "compactor",
            World::Hook => "hook",
        }
    }

    pub fn parse(s: &str) -> Option<World> {
        World::ALL.into_iter().find(|w| w.as_str() == s)
    }

    /// The interface a component of this world exports, without its version.
    pub fn export_name(self) -> &'static str {
        match self {
            World::Tool => "pi:extension/tool-guest",
            World::Provider => "pi:extension/provider-guest",
            World::Renderer => "pi:extension/renderer-guest",
            World::Compactor => "pi:extension/compactor-guest",
            World::Hook => "pi:extension/hook-guest",
        }
    }

    /// The interface a component of this world built against `wit` must export.
    pub fn export_interface(self, wit: WitVersion) -> String {
        format!("{}@{wit}", self.export_name())
    }
}

/// Access to the workspace directory, least first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FsAccess {
    #[default]
    None,
    Read,
    Write,
}

/// What a package asks for. Nothing by default.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Capabilities {
    pub filesystem: FsAccess,
    pub temp: bool,
    pub network: Vec<String>,
    pub env: Vec<String>,
    pub process: bool,
    pub llm: bool,
    /// Talk to the user: notices, dialogs, the footer status (the `ui` import).
    #[serde(default)]
    pub ui: bool,
    /// Send messages into the conversation and store entries in the session file (the
    /// `session` import).
    #[serde(default)]
    pub session: bool,
    /// Built-in tools (`bash`, `read`…) the package's tools of the same name replace: they
    /// see every command, path and content the model sends that tool.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replaces: Vec<String>,
}

impl Capabilities {
    /// Each capability in plain words, for a consent prompt (empty: asks for nothing).
    pub fn plain_words(&self) -> Vec<String> {
        let mut out = Vec::new();
        match self.filesystem {
            FsAccess::None => {}
            FsAccess::Read => out.push("read files in the working directory".to_owned()),
            FsAccess::Write => out.push("read and write files in the working directory".to_owned()),
        }
        if self.temp {
            out.push("use a private temporary directory".to_owned());
        }
        if !self.network.is_empty() {
            out.push(format!("reach these hosts: {}", self.network.join(", ")));
        }
        if !self.env.is_empty() {
            out.push(format!(
                "read these environment variables: {}",
                self.env.join(", ")
            ));
        }
        if self.process {
            out.push("run processes".to_owned());
        }
        if self.llm {
            out.push("call models with your credentials".to_owned());
        }
        if self.ui {
            out.push("ui: show notices and ask you questions (dialogs, footer status)".to_owned());
        }
        if self.session {
            out.push(
                "session: add messages to the conversation and store data in the session"
                    .to_owned(),
            );
        }
        if !self.replaces.is_empty() {
            out.push(format!(
                "replace these built-in tools: {}",
                self.replaces.join(", ")
            ));
        }
        out
    }

    /// What `self` asks for beyond `approved`, in plain words (empty: covered).
    pub fn beyond(&self, approved: &Capabilities) -> Vec<String> {
        let extra = Capabilities {
            filesystem: if self.filesystem > approved.filesystem {
                self.filesystem
            } else {
                FsAccess::None
            },
            temp: self.temp && !approved.temp,
            network: missing(&self.network, &approved.network),
            env: missing(&self.env, &approved.env),
            process: self.process && !approved.process,
            llm: self.llm && !approved.llm,
            ui: self.ui && !approved.ui,
            session: self.session && !approved.session,
            replaces: missing(&self.replaces, &approved.replaces),
        };
        extra.plain_words()
    }
}

fn missing(asked: &[String], approved: &[String]) -> Vec<String> {
    asked
        .iter()
        .filter(|a| !approved.contains(a))
        .cloned()
        .collect()
}

/// Folders of skills, prompt templates, themes and agent definitions shipped in the package
/// (relative paths).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Resources {
    pub skills: Option<PathBuf>,
    pub prompts: Option<PathBuf>,
    pub themes: Option<PathBuf>,
    /// Agent definitions (`*.md`, the `subagent` tool's agents).
    #[serde(default)]
    pub agents: Option<PathBuf>,
}

/// Why a manifest was refused. Always names the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ManifestError {
    #[error("cannot read {path}: {reason}")]
    Read { path: PathBuf, reason: String },
    #[error("{path}: {reason}")]
    Syntax { path: PathBuf, reason: String },
    #[error("{path}: {field}: {reason}")]
    Invalid {
        path: PathBuf,
        field: String,
        reason: String,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawManifest {
    package: RawPackage,
    #[serde(default, rename = "component")]
    components: Vec<RawComponent>,
    #[serde(default)]
    capabilities: RawCapabilities,
    #[serde(default)]
    resources: RawResources,
    #[serde(default)]
    limits: RawLimits,
    #[serde(default)]
    hook: RawHook,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawHook {
    fail: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawLimits {
    timeout_ms: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPackage {
    name: String,
    version: String,
    #[serde(default)]
    description: String,
    wit: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawComponent {
    path: String,
    world: String,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawCapabilities {
    filesystem: Option<String>,
    #[serde(default)]
    temp: bool,
    #[serde(default)]
    network: Vec<String>,
    #[serde(default)]
    env: Vec<String>,
    #[serde(default)]
    process: bool,
    #[serde(default)]
    llm: bool,
    #[serde(default)]
    ui: bool,
    #[serde(default)]
    session: bool,
    #[serde(default)]
    replaces: Vec<String>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawResources {
    skills: Option<String>,
    prompts: Option<String>,
    themes: Option<String>,
    agents: Option<String>,
}

impl Manifest {
    /// Reads and validates `dir/pi-extension.toml`.
    pub fn load(dir: &Path) -> Result<Manifest, ManifestError> {
        let path = dir.join(MANIFEST_FILE);
        let text = std::fs::read_to_string(&path).map_err(|e| ManifestError::Read {
            path: path.clone(),
            reason: e.to_string(),
        })?;
        Manifest::parse(&text, &path)
    }

    /// Parses and validates manifest text; `path` is used in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Manifest, ManifestError> {
        let raw: RawManifest = toml::from_str(text).map_err(|e| ManifestError::Syntax {
            path: path.to_owned(),
            reason: e.to_string().trim_end().to_owned(),
        })?;
        let invalid = |field: &str, reason: String| ManifestError::Invalid {
            path: path.to_owned(),
            field: field.to_owned(),
            reason,
        };
        check_name(&raw.package.name).map_err(|r| invalid("package.name", r))?;
        check_version(&raw.package.version).map_err(|r| invalid("package.version", r))?;
        let wit = WitVersion::parse(&raw.package.wit).ok_or_else(|| {
            invalid(
                "package.wit",
                format!(
                    "WIT version `{}` is not supported (supported: {})",
                    raw.package.wit,
                    SUPPORTED_WIT.join(", ")
                ),
            )
        })?;
        let components = parse_components(&raw.components).map_err(|(f, r)| invalid(&f, r))?;
        let capabilities = parse_capabilities(raw.capabilities).map_err(|(f, r)| invalid(&f, r))?;
        let resources = Resources {
            skills: relative("resources.skills", raw.resources.skills.as_deref())
                .map_err(|(f, r)| invalid(&f, r))?,
            prompts: relative("resources.prompts", raw.resources.prompts.as_deref())
                .map_err(|(f, r)| invalid(&f, r))?,
            themes: relative("resources.themes", raw.resources.themes.as_deref())
                .map_err(|(f, r)| invalid(&f, r))?,
            agents: relative("resources.agents", raw.resources.agents.as_deref())
                .map_err(|(f, r)| invalid(&f, r))?,
        };
        if raw.limits.timeout_ms == Some(0) {
            return Err(invalid(
                "limits.timeout-ms",
                "must be at least 1 millisecond".to_owned(),
            ));
        }
        let fail_closed = match raw.hook.fail.as_deref() {
            None | Some("open") => false,
            Some("closed") => true,
            Some(other) => {
                return Err(invalid(
                    "hook.fail",
                    format!("`{other}` is not one of open, closed"),
                ));
            }
        };
        if wit < WitVersion::V0_3_0 && components.iter().any(|c| c.world == World::Hook) {
            return Err(invalid(
                "package.wit",
                format!("the `hook` world needs wit = \"0.3.0\" or later (it says \"{wit}\")"),
            ));
        }
        Ok(Manifest {
            limits: PackageLimits {
                timeout_ms: raw.limits.timeout_ms,
            },
            hook: HookSettings { fail_closed },
            name: raw.package.name,
            version: raw.package.version,
            description: raw.package.description,
            wit,
            components,
            capabilities,
            resources,
        })
    }
}

type FieldError = (String, String);

fn parse_components(raw: &[RawComponent]) -> Result<Vec<ComponentEntry>, FieldError> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (i, c) in raw.iter().enumerate() {
        let field = format!("component[{i}]");
        let world = World::parse(&c.world).ok_or_else(|| {
            (
                format!("{field}.world"),
                format!(
                    "unknown world `{}` (expected one of: tool, provider, renderer, compactor, hook)",
                    c.world
                ),
            )
        })?;
        let path = relative(&format!("{field}.path"), Some(&c.path))?.unwrap_or_default();
        if path.extension().and_then(|e| e.to_str()) != Some("wasm") {
            return Err((
                format!("{field}.path"),
                format!("`{}` is not a .wasm file", c.path),
            ));
        }
        if !seen.insert(path.clone()) {
            return Err((
                format!("{field}.path"),
                format!("`{}` is listed twice", c.path),
            ));
        }
        out.push(ComponentEntry { path, world });
    }
    Ok(out)
}

fn parse_capabilities(raw: RawCapabilities) -> Result<Capabilities, FieldError> {
    let filesystem = match raw.filesystem.as_deref() {
        None | Some("none") => FsAccess::None,
        Some("read") => FsAccess::Read,
        Some("write") => FsAccess::Write,
        Some(other) => {
            return Err((
                "capabilities.filesystem".into(),
                format!("`{other}` is not one of none, read, write"),
            ));
        }
    };
    for host in &raw.network {
        check_host(host).map_err(|r| ("capabilities.network".to_owned(), r))?;
    }
    for name in &raw.env {
        let valid = !name.is_empty()
            && !name.contains('=')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err((
                "capabilities.env".into(),
                format!("`{name}` is not an environment variable name"),
            ));
        }
    }
    for name in &raw.replaces {
        let valid = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !valid {
            return Err((
                "capabilities.replaces".into(),
                format!("`{name}` is not a tool name"),
            ));
        }
    }
    Ok(Capabilities {
        filesystem,
        temp: raw.temp,
        network: raw.network,
        env: raw.env,
        process: raw.process,
        llm: raw.llm,
        ui: raw.ui,
        session: raw.session,
        replaces: raw.replaces,
    })
}

/// Checks a package name (`package.name`); `pi ext new` asks the same of the name it is given.
pub fn check_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
    if ok {
        Ok(())
    } else {
        Err(format!(
            "`{name}` must start with a lowercase letter and hold only a-z, 0-9, - and _ (at most 64)"
        ))
    }
}

fn check_version(version: &str) -> Result<(), String> {
    let core = version.split(['-', '+']).next().unwrap_or_default();
    let parts: Vec<&str> = core.split('.').collect();
    // Pre-release and build parts hold semver's characters only: the version names an
    // install directory, so it must never carry a `/`.
    let ok = parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
        && version.len() <= 64
        && version
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || ".-+".contains(c));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "`{version}` is not a semantic version (MAJOR.MINOR.PATCH)"
        ))
    }
}

/// A granted host: `name`, `name:port`, `*.domain.tld` (any subdomain) or an IPv4 address,
/// each label 1-63 letters, digits or `-` (not at either end). Degenerate patterns (`*`,
/// `*.`, `*.com`, `a.*`, empty labels) would grant far more than anyone reading them thinks.
fn check_host(host: &str) -> Result<(), String> {
    let (name, port) = match host.rsplit_once(':') {
        Some((name, port)) => (name, Some(port)),
        None => (host, None),
    };
    if let Some(port) = port
        && port.parse::<u16>().is_err()
    {
        return Err(format!("`{host}` has an invalid port"));
    }
    let (wildcard, rest) = match name.strip_prefix("*.") {
        Some(rest) => (true, rest),
        None => (false, name),
    };
    let labels: Vec<&str> = rest.split('.').collect();
    let label_ok = |l: &&str| {
        (1..=63).contains(&l.len())
            && !l.starts_with('-')
            && !l.ends_with('-')
            && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    };
    if !labels.iter().all(label_ok) {
        return Err(format!(
            "`{host}` is not a host name (host, host:port or *.domain.tld; no scheme, path or \
             empty parts)"
        ));
    }
    if wildcard && labels.len() < 2 {
        return Err(format!(
            "`{host}` matches too much: a wildcard needs a domain under it (*.example.com)"
        ));
    }
    Ok(())
}

/// A path inside the package: relative, without `..`.
fn relative(field: &str, path: Option<&str>) -> Result<Option<PathBuf>, FieldError> {
    let Some(path) = path else { return Ok(None) };
    let p = PathBuf::from(path);
    let escapes = p.is_absolute()
        || p.components().any(|c| {
            matches!(
                c,
                PathPart::ParentDir | PathPart::RootDir | PathPart::Prefix(_)
            )
        });
    if path.is_empty() || escapes {
        return Err((
            field.to_owned(),
            format!("`{path}` must be a relative path inside the package"),
        ));
    }
    Ok(Some(p))
}
