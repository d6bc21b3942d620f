//! `pi mcp add|remove|list|login|logout|trust`: configure and check MCP servers without starting a
//! session, with pi 1.6's flags, messages and exit codes (`trust` is this build's: it accepts
//! a server's changed tool definitions). Dispatched before the normal flag parsing.

mod list;
mod login;
mod options;

use options::{Kind, Parsed, parse};
use pi_app::startup::StartupEnv;
use pi_mcp::config::{self, McpConfig, Scope, ServerEntry};
use serde_json::{Map, Value, json};
use std::ffi::OsString;

const HELP: &str = r#"Usage:
  pi mcp add <server> [options] -- <command> [args...]
  pi mcp add <server> [options] --url <url>
  pi mcp remove <server> [-l]
  pi mcp list [--json]
  pi mcp login <server> [-l] [--timeout <seconds>]
  pi mcp logout <server> [-l]
  pi mcp trust <server>
  pi mcp serve [--builtin] [--cwd <dir>]

Configure and check MCP servers and sign in to OAuth servers without starting a session.
Reads ~/.pi/agent/mcp.json and, in trusted projects, .pi/mcp.json.

Commands:
  add <server>            Add or replace a server in mcp.json
  remove <server>         Remove a server from mcp.json
  list                    Show state, tools, and errors (exits 1 on failure)
  login <server>          Sign in through the browser
  logout <server>         Delete the stored OAuth credentials
  trust <server>          Accept the server's current tool definitions after they changed
  serve                   Serve the installed extension tools as an MCP server on stdio

Options for add, remove, login, and logout:
  -l, --local             Use .pi/mcp.json in the current project instead of the global file

Options for add:
  --url <url>             Streamable HTTP server URL (instead of a command)
  --env <KEY=VALUE>       Environment variable for a stdio server (repeatable)
  --cwd <dir>             Working directory for a stdio server
  --header <KEY=VALUE>    HTTP header (repeatable)
  --bearer-token-env-var <NAME>
                          Send "Authorization: Bearer ${NAME}"
  --oauth-client-id <id>  Pre-registered OAuth client id
  --oauth-client-secret <secret>
                          OAuth client secret (may be ${NAME} or !command)
  --oauth-callback-port <port>
                          Fixed OAuth callback port
  --oauth-client-name <name>
                          Client name sent when registering with the OAuth server
  --oauth-client-registration <mode>
                          auto (default), cimd, or dcr
  --exposure <mode>       codemode (default), deferred, direct, or hidden
  --description <text>    What the server offers, shown in the system prompt

Other options:
  --json                  Print the list as JSON
  --timeout <seconds>     Time limit for the whole sign-in (default: 300)"#;

const HELP_HINT: &str = r#"Use "pi mcp --help" for usage."#;

/// Options only an HTTP server takes.
const HTTP_ONLY: [&str; 7] = [
    "header",
    "bearer-token-env-var",
    "oauth-client-id",
    "oauth-client-secret",
    "oauth-callback-port",
    "oauth-client-name",
    "oauth-client-registration",
];
/// Options only a stdio server takes.
const STDIO_ONLY: [&str; 2] = ["env", "cwd"];

/// Whether the arguments start a `pi mcp` command.
pub fn is_mcp_command(first: &OsString) -> bool {
    first == "mcp"
}

/// Runs `pi mcp` with `argv` (program name first) and returns the exit code.
pub fn main(argv: Vec<OsString>) -> i32 {
    let args: Vec<String> = argv
        .iter()
        .skip(2)
        .map(|arg| arg.to_string_lossy().into_owned())
        .collect();
    let options_end = args.iter().position(|a| a == "--").unwrap_or(args.len());
    let wants_help = args[..options_end]
        .iter()
        .any(|a| a == "--help" || a == "-h");
    let Some(command) = args.first().filter(|c| *c != "help" && !wants_help) else {
        say!("{HELP}");
        return 0;
    };
    let env = match StartupEnv::from_process() {
        Ok(env) => env,
        Err(error) => {
            tell!("Error: cannot read the working directory: {error}");
            return 1;
        }
    };
    let rest = &args[1..];
    let result = match command.as_str() {
        "add" => add(rest, &env),
        "remove" => remove(rest, &env),
        "list" => list::run(rest, &env),
        "login" => login::run(rest, &env),
        "logout" => logout(rest, &env),
        "trust" => list::trust(rest, &env),
        other => Err(format!("Unknown mcp command \"{other}\".\n{HELP_HINT}")),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            tell!("{message}");
            1
        }
    }
}

/// The configuration `pi mcp` reads, and pi's note when an untrusted project's file is ignored.
fn load(env: &StartupEnv) -> (McpConfig, Option<String>) {
    let trusted = crate::hooks::project_trusted(env);
    let loaded = McpConfig::load(&env.agent_dir, &env.cwd, trusted);
    let project = config::project_config_path(&env.cwd);
    let note = (!trusted && project.exists()).then(|| {
        format!(
            "{} is ignored because the project is not trusted. Start pi in the project to trust it.",
            project.display()
        )
    });
    (loaded, note)
}

/// The file `-l` picks, and its scope's name.
fn target(parsed: &Parsed, env: &StartupEnv) -> (std::path::PathBuf, Scope) {
    if parsed.flag("local") {
        (config::project_config_path(&env.cwd), Scope::Project)
    } else {
        (config::user_config_path(&env.agent_dir), Scope::User)
    }
}

fn add(args: &[String], env: &StartupEnv) -> Result<i32, String> {
    let usage = format!(
        "Usage: pi mcp add <server> [options] (--url <url> | -- <command> [args...])\n{HELP_HINT}"
    );
    let mut known = vec![
        ("local", Kind::Flag),
        ("url", Kind::Value),
        ("env", Kind::List),
        ("cwd", Kind::Value),
        ("header", Kind::List),
        ("exposure", Kind::Value),
        ("description", Kind::Value),
    ];
    known.extend(HTTP_ONLY[1..].iter().map(|name| (*name, Kind::Value)));
    let parsed = parse(args, &known, 2)?;
    let url = parsed.value("url");
    let Some((name, command)) = parsed.positional.split_first() else {
        return Err(usage);
    };
    if url.is_some() != command.is_empty() {
        return Err(usage);
    }
    let (misplaced, kind) = match url {
        None => (&HTTP_ONLY[..], "HTTP servers (--url)"),
        Some(_) => (&STDIO_ONLY[..], "stdio servers"),
    };
    if let Some(option) = misplaced.iter().find(|option| parsed.has(option)) {
        return Err(format!("--{option} only applies to {kind}."));
    }
    let mut entry = match url {
        Some(url) => http_entry(&parsed, url)?,
        None => stdio_entry(&parsed, command)?,
    };
    for key in ["exposure", "description"] {
        if let Some(value) = parsed.value(key) {
            entry.insert(key.into(), json!(value));
        }
    }
    let (validated, server) = config::validate_entry(name, &Value::Object(entry))?;
    let (path, scope) = target(&parsed, env);
    let replaced = config::add_server(&path, name, validated)
        .map_err(|error| format!("Could not update {}: {error}", path.display()))?;
    let verb = if replaced { "Replaced" } else { "Added" };
    say!(
        r#"{verb} {} MCP server "{name}" in {}."#,
        scope.as_str(),
        path.display()
    );
    if scope == Scope::Project && !crate::hooks::project_trusted(env) {
        say!(
            "The project is not trusted, so {} is ignored until you start pi in the project and trust it.",
            path.display()
        );
    }
    match server.oauth_url() {
        Some(_) => say!("Check it with: pi mcp list. If it requires sign-in: pi mcp login {name}"),
        None => say!("Check it with: pi mcp list"),
    }
    Ok(0)
}

fn http_entry(parsed: &Parsed, url: &str) -> Result<Map<String, Value>, String> {
    let mut headers: Map<String, Value> = options::pairs("header", parsed.list("header"))?
        .into_iter()
        .map(|(key, value)| (key, Value::String(value)))
        .collect();
    if let Some(name) = parsed.value("bearer-token-env-var") {
        headers.insert("Authorization".into(), json!(format!("Bearer ${{{name}}}")));
    }
    let mut oauth = Map::new();
    for (option, key) in [
        ("oauth-client-id", "clientId"),
        ("oauth-client-secret", "clientSecret"),
        ("oauth-callback-port", "callbackPort"),
        ("oauth-client-name", "clientName"),
        ("oauth-client-registration", "clientRegistration"),
    ] {
        if let Some(value) = parsed.value(option) {
            oauth.insert(key.into(), option_value(key, value));
        }
    }
    let mut entry = Map::new();
    entry.insert("url".into(), json!(url));
    if !headers.is_empty() {
        entry.insert("headers".into(), Value::Object(headers));
    }
    if !oauth.is_empty() {
        entry.insert("oauth".into(), Value::Object(oauth));
    }
    Ok(entry)
}

/// An option's value as pi stores it: the callback port as a number (pi's `Number(port)`; what
/// is not one stays text, which validation then refuses).
fn option_value(key: &str, value: &str) -> Value {
    match value.trim().parse::<u64>() {
        Ok(port) if key == "callbackPort" => json!(port),
        _ => json!(value),
    }
}

fn stdio_entry(parsed: &Parsed, command: &[String]) -> Result<Map<String, Value>, String> {
    let env: Map<String, Value> = options::pairs("env", parsed.list("env"))?
        .into_iter()
        .map(|(key, value)| (key, Value::String(value)))
        .collect();
    let mut entry = Map::new();
    if let Some((executable, args)) = command.split_first() {
        entry.insert("command".into(), json!(executable));
        if !args.is_empty() {
            entry.insert("args".into(), json!(args));
        }
    }
    if !env.is_empty() {
        entry.insert("env".into(), Value::Object(env));
    }
    if let Some(cwd) = parsed.value("cwd") {
        entry.insert("cwd".into(), json!(cwd));
    }
    Ok(entry)
}

fn remove(args: &[String], env: &StartupEnv) -> Result<i32, String> {
    let parsed = parse(args, &[("local", Kind::Flag)], usize::MAX)?;
    let [name] = parsed.positional.as_slice() else {
        return Err(format!("Usage: pi mcp remove <server> [-l]\n{HELP_HINT}"));
    };
    let (path, scope) = target(&parsed, env);
    let removed = config::remove_server(&path, name)
        .map_err(|error| format!("Could not update {}: {error}", path.display()))?;
    if removed {
        say!(
            r#"Removed {} MCP server "{name}" from {}."#,
            scope.as_str(),
            path.display()
        );
        return Ok(0);
    }
    let everything = McpConfig::load(&env.agent_dir, &env.cwd, true);
    let elsewhere = everything
        .entries
        .iter()
        .find(|entry| entry.name == *name && entry.scope != scope)
        .map(|other| {
            let hint = match other.scope {
                Scope::Project => "use --local",
                Scope::User => "omit --local",
            };
            format!(" It is defined in {}; {hint}.", other.source.display())
        });
    Err(format!(
        r#"No {} MCP server named "{name}" in {}.{}"#,
        scope.as_str(),
        path.display(),
        elsewhere.unwrap_or_default()
    ))
}

/// The entry a `logout`/`trust` names, or pi's message (with a suggestion for a typo).
fn find_entry<'a>(
    loaded: &'a McpConfig,
    name: &str,
    note: Option<&str>,
) -> Result<&'a ServerEntry, String> {
    if let Some(entry) = loaded.entry(name) {
        return Ok(entry);
    }
    let names: Vec<&str> = loaded.entries.iter().map(|e| e.name.as_str()).collect();
    let suggestion = names
        .iter()
        .find(|candidate| options::edit_distance(candidate, name) <= 2)
        .map(|candidate| format!(r#" Did you mean "{candidate}"?"#))
        .unwrap_or_default();
    let note = note.map(|note| format!(" {note}")).unwrap_or_default();
    let configured = if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    };
    Err(format!(
        r#"No MCP server named "{name}".{suggestion}{note} Configured: {configured}."#
    ))
}

/// The server `login`/`logout` (`verb`) acts on, with its OAuth URL: the named entry, in the
/// project file when `--local` says so, and not one that signs in with a provider's
/// credentials (`pi auth` does that) or uses no OAuth at all.
fn oauth_entry<'c>(
    loaded: &'c McpConfig,
    note: Option<&str>,
    name: &str,
    local: bool,
    verb: &str,
) -> Result<(&'c ServerEntry, String), String> {
    let entry = find_entry(loaded, name, note)?;
    if local && entry.scope != Scope::Project {
        return Err(format!(
            r#"MCP server "{name}" is defined in {}, not in the project; omit --local."#,
            entry.source.display()
        ));
    }
    if let Some(provider) = entry.config.auth_provider() {
        return Err(format!(
            r#"MCP server "{name}" uses the credentials of provider "{provider}". Run "pi auth {verb} {provider}"."#
        ));
    }
    let Some(url) = entry.config.oauth_url() else {
        return Err(format!(
            r#"MCP server "{name}" does not use OAuth. Only HTTP servers without an Authorization header do."#
        ));
    };
    Ok((entry, url.to_owned()))
}

fn logout(args: &[String], env: &StartupEnv) -> Result<i32, String> {
    let parsed = parse(args, &[("local", Kind::Flag)], usize::MAX)?;
    let [name] = parsed.positional.as_slice() else {
        return Err(format!("Usage: pi mcp logout <server> [-l]\n{HELP_HINT}"));
    };
    let (loaded, note) = load(env);
    let (_, url) = oauth_entry(
        &loaded,
        note.as_deref(),
        name,
        parsed.flag("local"),
        "logout",
    )?;
    let removed = pi_mcp::credentials::remove_credentials(&env.agent_dir, name, &url)
        .map_err(|error| format!("Could not update {}: {error}", credentials_file(env)))?;
    if removed {
        say!(r#"Signed out of MCP server "{name}"."#);
    } else {
        say!(r#"No stored credentials for MCP server "{name}"."#);
    }
    Ok(0)
}

fn credentials_file(env: &StartupEnv) -> String {
    pi_mcp::credentials::credentials_path(&env.agent_dir)
        .display()
        .to_string()
}
