//! pi 1.6's `mcp.json`: `<agentDir>/mcp.json` and a trusted project's `.pi/mcp.json`, both in
//! the `{"mcpServers": {name: {...}}}` shape other MCP clients share.
//!
//! A project entry replaces the global entry of the same name; one without `command`, `url` or
//! `type` only overrides `enabled`, `exposure` and `toolExposure` of the global entry, keeping
//! the rest (credentials included, which a repository may not set). An invalid file or entry is
//! reported in [`McpConfig::errors`] and skipped, never fatal. Values in `env`, `headers` and
//! `oauth.clientSecret` may be `${VAR}`/`$VAR` or a whole `!command`, resolved when a server
//! is started ([`McpConfig::resolve`]).

mod edit;
#[cfg(test)]
mod tests;
mod validate;

pub use edit::{EditError, add_server, remove_server, update_server};

use crate::naming::mcp_namespace;
use crate::spec::{AuthSpec, Exposure, ServerSpec, TransportSpec};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The project's directory of pi files (`.pi`).
const PROJECT_DIR: &str = ".pi";
/// The fields a project override may set.
const OVERRIDE_KEYS: [&str; 3] = ["enabled", "exposure", "toolExposure"];
/// pi's request deadline when `timeout` is not set.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// Which file an entry comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// `<agentDir>/mcp.json`.
    User,
    /// `.pi/mcp.json` of a trusted project.
    Project,
}

impl Scope {
    /// pi 1.6's names (`pi mcp list --json`'s `scope`): `global`, `project`.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::User => "global",
            Scope::Project => "project",
        }
    }
}

/// How a configured server is reached, as the file gives it (values not yet resolved).
#[derive(Debug, Clone, PartialEq)]
pub enum ServerTransport {
    Stdio {
        command: String,
        args: Vec<String>,
        env: Vec<(String, String)>,
        cwd: Option<String>,
    },
    Http {
        url: String,
        headers: Vec<(String, String)>,
        /// The `oauth {…}` block.
        oauth: Option<Value>,
        /// `auth {provider}` (global file only).
        auth_provider: Option<String>,
    },
}

/// One valid server entry.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerConfig {
    pub transport: ServerTransport,
    pub enabled: bool,
    pub exposure: Exposure,
    /// In file order.
    pub tool_exposure: Vec<(String, Exposure)>,
    pub description: Option<String>,
    /// Seconds.
    pub timeout: Option<f64>,
}

impl ServerConfig {
    /// The URL, or the command line, as `pi mcp list` shows it.
    pub fn describe_transport(&self) -> String {
        match &self.transport {
            ServerTransport::Http { url, .. } => url.clone(),
            ServerTransport::Stdio { command, args, .. } => std::iter::once(command.as_str())
                .chain(args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" "),
        }
    }

    /// The provider whose login token an HTTP server is sent (`auth {provider}`).
    pub fn auth_provider(&self) -> Option<&str> {
        match &self.transport {
            ServerTransport::Http { auth_provider, .. } => auth_provider.as_deref(),
            ServerTransport::Stdio { .. } => None,
        }
    }

    /// The URL of an HTTP server that signs in with OAuth: one without `auth {provider}` and
    /// without an `Authorization` header.
    pub fn oauth_url(&self) -> Option<&str> {
        match &self.transport {
            ServerTransport::Http {
                url,
                headers,
                auth_provider: None,
                ..
            } if !has_authorization(headers) => Some(url),
            _ => None,
        }
    }
}

fn has_authorization(headers: &[(String, String)]) -> bool {
    headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("authorization"))
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
    /// The project file of the override, when `is_override`.
    pub override_source: Option<PathBuf>,
    pub config: ServerConfig,
    /// The entry's JSON (aliases replaced), which a project override is laid over.
    raw: Map<String, Value>,
}

/// Both files, merged; what could not be used is in `errors`, never fatal.
#[derive(Debug, Clone, Default)]
pub struct McpConfig {
    pub entries: Vec<ServerEntry>,
    /// One message per invalid file or entry, naming the file and the server.
    pub errors: Vec<String>,
    /// The top-level `autoEnableCodemode` (the project's beats the global one).
    pub auto_enable_codemode: Option<bool>,
    /// The project file, when the project is trusted (whether or not it exists).
    pub project_config: Option<PathBuf>,
}

/// One entry checked as pi 1.6 checks it: its JSON with exposure aliases replaced (what `pi
/// mcp add` writes) and its typed form, or pi's message (`server "<name>": …`).
pub fn validate_entry(
    name: &str,
    entry: &Value,
) -> Result<(Map<String, Value>, ServerConfig), String> {
    validate::validate_server(name, entry)
}

/// `<agentDir>/mcp.json`.
pub fn user_config_path(agent_dir: &Path) -> PathBuf {
    agent_dir.join("mcp.json")
}

/// `<cwd>/.pi/mcp.json`.
pub fn project_config_path(cwd: &Path) -> PathBuf {
    cwd.join(PROJECT_DIR).join("mcp.json")
}

impl McpConfig {
    /// Reads the user file and, when `project_trusted`, the project's.
    pub fn load(agent_dir: &Path, cwd: &Path, project_trusted: bool) -> McpConfig {
        let mut config = McpConfig::default();
        config.read_file(&user_config_path(agent_dir), Scope::User);
        if project_trusted {
            let path = project_config_path(cwd);
            config.read_file(&path, Scope::Project);
            config.project_config = Some(path);
        }
        config
    }

    /// The entry named `name`.
    pub fn entry(&self, name: &str) -> Option<&ServerEntry> {
        self.entries.iter().find(|entry| entry.name == name)
    }

    /// The enabled servers, resolved (`${VAR}` and `!cmd` values expanded, `cwd` made
    /// absolute against `cwd`); an entry that cannot be resolved is an error message instead.
    pub fn specs(&self, cwd: &Path) -> (Vec<ServerSpec>, Vec<String>) {
        let mut specs = Vec::new();
        let mut errors = Vec::new();
        for entry in self.entries.iter().filter(|entry| entry.enabled) {
            match Self::resolve(entry, cwd) {
                Ok(spec) => specs.push(spec),
                Err(error) => errors.push(error),
            }
        }
        (specs, errors)
    }

    /// One entry resolved to what the client needs; pi's message when a value cannot be
    /// resolved (an unset variable, a failing command).
    pub fn resolve(entry: &ServerEntry, cwd: &Path) -> Result<ServerSpec, String> {
        let config = &entry.config;
        let context = format!(r#"MCP server "{}""#, entry.name);
        let transport = match &config.transport {
            ServerTransport::Stdio {
                command,
                args,
                env,
                cwd: dir,
            } => TransportSpec::Stdio {
                command: expand_home(command),
                args: args.iter().map(|arg| expand_home(arg)).collect(),
                env: resolve_pairs(env, |key| format!(r#"{context} env "{key}""#))?,
                cwd: cwd.join(expand_home(dir.as_deref().unwrap_or("."))),
            },
            ServerTransport::Http { url, headers, .. } => TransportSpec::Http {
                url: url.clone(),
                headers: resolve_pairs(headers, |key| format!(r#"{context} header "{key}""#))?,
            },
        };
        Ok(ServerSpec {
            name: entry.name.clone(),
            transport,
            timeout: config.timeout.map_or(DEFAULT_TIMEOUT, |seconds| {
                Duration::try_from_secs_f64(seconds).unwrap_or(Duration::MAX)
            }),
            exposure: config.exposure,
            tool_exposure: config.tool_exposure.clone(),
            description: config.description.clone(),
            auth: auth_spec(config, &context)?,
        })
    }

    fn read_file(&mut self, path: &Path, scope: Scope) {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return,
            Err(error) => return self.error(path, &error.to_string()),
        };
        let parsed: Value = match serde_json::from_str(text.trim_start_matches('\u{feff}')) {
            Ok(parsed) => parsed,
            Err(error) => return self.error(path, &error.to_string()),
        };
        let servers = match parsed.get("mcpServers") {
            _ if !parsed.is_object() => None,
            None => Some(Map::new()),
            Some(Value::Object(servers)) => Some(servers.clone()),
            Some(_) => None,
        };
        let Some(servers) = servers else {
            return self.error(path, r#"expected an object with an "mcpServers" object"#);
        };
        match parsed.get("autoEnableCodemode") {
            None => {}
            Some(Value::Bool(auto)) => self.auto_enable_codemode = Some(*auto),
            Some(_) => self.error(path, "autoEnableCodemode must be a boolean"),
        }
        for (name, value) in &servers {
            if let Err(error) = self.read_entry(path, scope, name, value) {
                self.error(path, &error);
            }
        }
    }

    fn read_entry(
        &mut self,
        path: &Path,
        scope: Scope,
        name: &str,
        value: &Value,
    ) -> Result<(), String> {
        if scope == Scope::Project
            && let Some(fields) = value.as_object().filter(|fields| is_override(fields))
        {
            return self.read_override(path, name, fields);
        }
        let (raw, config) = validate::validate_server(name, value)?;
        let namespace = mcp_namespace(name);
        if let Some(clash) = self
            .entries
            .iter()
            .find(|other| other.name != name && mcp_namespace(&other.name) == namespace)
        {
            return Err(format!(
                r#"server "{name}" conflicts with "{}""#,
                clash.name
            ));
        }
        if scope == Scope::Project && config.auth_provider().is_some() {
            return Err(format!(
                r#"server "{name}": auth is only allowed in the global mcp.json"#
            ));
        }
        self.set(ServerEntry {
            name: name.to_owned(),
            scope,
            source: path.to_owned(),
            is_override: false,
            enabled: config.enabled,
            override_source: None,
            config,
            raw,
        });
        Ok(())
    }

    /// A project entry with only `enabled`/`exposure`/`toolExposure`, laid over a global one.
    fn read_override(
        &mut self,
        path: &Path,
        name: &str,
        fields: &Map<String, Value>,
    ) -> Result<(), String> {
        let Some(base) = self.entry(name).cloned() else {
            return Err(format!(
                r#"server "{name}" needs "command" or "url", or a global server to override"#
            ));
        };
        if fields
            .keys()
            .any(|key| !OVERRIDE_KEYS.contains(&key.as_str()))
        {
            return Err(format!(
                r#"server "{name}": an override can only set {}"#,
                OVERRIDE_KEYS.join(", ")
            ));
        }
        let mut merged = base.raw.clone();
        merged.extend(fields.clone());
        let (raw, config) = validate::validate_server(name, &Value::Object(merged))?;
        self.set(ServerEntry {
            is_override: true,
            enabled: config.enabled,
            override_source: Some(path.to_owned()),
            config,
            raw,
            ..base
        });
        Ok(())
    }

    /// Adds `entry`, or replaces the one of the same name in its place.
    fn set(&mut self, entry: ServerEntry) {
        match self.entries.iter_mut().find(|e| e.name == entry.name) {
            Some(slot) => *slot = entry,
            None => self.entries.push(entry),
        }
    }

    fn error(&mut self, path: &Path, message: &str) {
        self.errors.push(format!("{}: {message}", path.display()));
    }
}

/// An entry that names no transport overrides a server defined elsewhere.
fn is_override(fields: &Map<String, Value>) -> bool {
    !["command", "url", "type"]
        .iter()
        .any(|key| fields.contains_key(*key))
}

/// `~` and `~/…` name the home directory, as in a shell.
fn expand_home(value: &str) -> String {
    let home = std::env::var("HOME").ok().filter(|home| !home.is_empty());
    match (home, value) {
        (Some(home), "~") => home,
        (Some(home), _) if value.starts_with("~/") => format!("{home}/{}", &value[2..]),
        _ => value.to_owned(),
    }
}

/// Every value resolved; `describe(key)` names a value in the error.
fn resolve_pairs(
    pairs: &[(String, String)],
    describe: impl Fn(&str) -> String,
) -> Result<Vec<(String, String)>, String> {
    pairs
        .iter()
        .map(|(key, value)| Ok((key.clone(), resolve_value(value, &describe(key))?)))
        .collect()
}

/// A `${VAR}`/`$VAR` template or a `!command` value, with pi's message when it cannot be
/// resolved: an unset or empty variable, a command that fails or prints nothing.
pub fn resolve_value(raw: &str, description: &str) -> Result<String, String> {
    if let Some(command) = raw.strip_prefix('!') {
        return match pi_ai::resolve_config_value(raw) {
            Ok(Some(value)) => Ok(value),
            Ok(None) | Err(_) => Err(format!(
                "Failed to resolve {description} from shell command: {command}"
            )),
        };
    }
    let missing: Vec<String> = pi_ai::config_value_env_names(raw)
        .into_iter()
        .filter(|name| std::env::var(name).map_or(true, |value| value.is_empty()))
        .collect();
    match missing.as_slice() {
        [] => pi_ai::resolve_config_value(raw)
            .map(Option::unwrap_or_default)
            .map_err(|error| format!("Failed to resolve {description}: {error}")),
        [one] => Err(format!(
            "Failed to resolve {description} from environment variable: {one}"
        )),
        many => Err(format!(
            "Failed to resolve {description} from environment variables: {}",
            many.join(", ")
        )),
    }
}

/// How an HTTP server is signed in to: a provider's token, OAuth (its block, or discovered on
/// a 401 when no `Authorization` header is set), or headers only. `oauth.clientSecret` is
/// resolved here.
fn auth_spec(config: &ServerConfig, context: &str) -> Result<AuthSpec, String> {
    if let Some(provider) = config.auth_provider() {
        return Ok(AuthSpec::Provider(provider.to_owned()));
    }
    if config.oauth_url().is_none() {
        return Ok(AuthSpec::None);
    }
    let ServerTransport::Http { oauth, .. } = &config.transport else {
        return Ok(AuthSpec::None);
    };
    let mut oauth = oauth.clone().unwrap_or_else(|| Value::Object(Map::new()));
    if let Some(secret) = oauth.get_mut("clientSecret")
        && let Some(raw) = secret.as_str()
    {
        let description = format!("{context} oauth.clientSecret");
        *secret = Value::String(resolve_value(raw, &description)?);
    }
    Ok(AuthSpec::OAuth(oauth))
}
