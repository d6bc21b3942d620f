//! `pi ext install|remove|update|list|info|publish|new` and pi 1.x's spellings (`pi install`,
//! `pi remove`, `pi uninstall`, `pi update`, `pi list`). Dispatched before the normal flag
//! parsing, so none of it ever reaches a model.
//!
//! What it prints quotes manifests, registries, git and servers (a package's description, its
//! source, an error's text), so every human-readable line goes through
//! `pi_ai::terminal_text` (`say!`, `tell!`); `pi ext list --json` is JSON and is left as it
//! is.

mod approve;
mod new;
mod templates;

use clap::{Parser, Subcommand};
use pi_ext_host::lockfile::LockedPackage;
use pi_ext_host::{Capabilities, FsAccess, Manifest};
use pi_packages::scope::Scope;
use pi_packages::{ConsentRequest, PackageError};
use std::ffi::OsString;
use std::io::{BufRead, IsTerminal, Write};

/// The first arguments that start a package command.
pub fn is_package_command(first: &OsString) -> bool {
    ["ext", "install", "remove", "uninstall", "update", "list"]
        .iter()
        .any(|c| first == c)
}

#[derive(Debug, Parser)]
#[command(
    name = "pi ext",
    // Usage lines say `pi ext <command>`, not the first argument (`ext`).
    bin_name = "pi ext",
    about = "Install, update, remove, inspect, publish and create extension packages",
    after_help = EXT_EXAMPLES,
    max_term_width = 100
)]
struct ExtArgs {
    #[command(subcommand)]
    command: ExtCommand,
}

#[derive(Debug, Subcommand)]
enum ExtCommand {
    /// Install a package: a folder, a .wasm component, git:host/owner/repo[@ref], a git URL,
    /// npm:name[@version], an https URL of a .tar.gz, or oci://registry/repository:tag|@digest
    #[command(
        long_about = "Install a package into the user scope (~/.pi/agent), or with -l
into this project (.pi/). pi shows the capabilities the package asks for (files, network
hosts, processes, environment variables, the LLM) and installs it only once you approve them:
at the prompt, or with --yes / --grant. The package is pinned in the scope's lock file
(resolved ref and hash). `pi install` is the same command."
    )]
    Install {
        /// Where the package comes from: ./folder, x.wasm, git:github.com/u/r@v1, a git URL,
        /// npm:name@1.2.3, https://…/pkg.tar.gz, oci://ghcr.io/u/pkg:1.0
        source: String,
        #[command(flatten)]
        scope: ScopeArgs,
        #[command(flatten)]
        approval: Approval,
    },
    /// Remove a package by name or source
    #[command(
        alias = "uninstall",
        long_about = "Remove an installed package (by its name or the source it was
installed from) from the user scope, or with -l from this project, with its lock entry.
`pi remove` and `pi uninstall` are the same command."
    )]
    Remove {
        /// The package's name (as `pi ext list` shows it) or its source
        package: String,
        #[command(flatten)]
        scope: ScopeArgs,
    },
    /// Fetch a package (or, with none named, all) again; asks again only when it asks for more
    #[command(
        long_about = "Fetch a package (or, with none named, every package of the
scope) from its source again and install the new version. A package that now asks for more
capabilities than you approved is shown again for approval; one that asks for the same or
fewer is updated without asking. `pi update` is the same command."
    )]
    Update {
        /// The package's name or source (default: all)
        package: Option<String>,
        /// Every package of the scope (the default when none is named)
        #[arg(long, conflicts_with = "package")]
        all: bool,
        #[command(flatten)]
        scope: ScopeArgs,
        #[command(flatten)]
        approval: Approval,
    },
    /// Approve a package that was not installed with `pi ext install` (placed in extensions/
    /// by hand, or a project lock entry not installed here): shows its files and capabilities
    Approve {
        /// Its folder, or its name in extensions/ (or in the project's lock file with -l)
        package: String,
        #[command(flatten)]
        scope: ScopeArgs,
        #[command(flatten)]
        approval: Approval,
    },
    /// List the installed packages of both scopes (name, version, source, path)
    #[command(
        long_about = "List the installed packages of the user scope and of this
project: name, version, source and path, marked (filtered) when the scope's settings leave
it out. `pi list` is the same command."
    )]
    List {
        /// Print a JSON array: {scope, name, version, source, filtered, path, resolved, granted}
        #[arg(long)]
        json: bool,
    },
    /// Show one package: components and worlds, grants, source, resolved ref, hash, path
    Info {
        /// The package's name or source
        package: String,
    },
    /// Validate the package in a folder and push it to an OCI registry (oci://host/repo:tag)
    #[command(
        long_about = "Validate the package in a folder (its pi-extension.toml and
components) and push it to an OCI registry (anonymously) as an artifact that
`pi ext install oci://…` installs."
    )]
    Publish {
        /// The package folder (holding pi-extension.toml and the built components)
        dir: std::path::PathBuf,
        /// Where to push it: oci://registry/repository:tag
        target: String,
    },
    /// Write a new package from a template: `pi ext new word-count --lang rust --world tool`
    New(new::NewArgs),
}

/// Shown after `pi ext --help`.
const EXT_EXAMPLES: &str = "Examples:
  pi ext install npm:my-tool                   install from npm (asks to approve its capabilities)
  pi ext install git:github.com/me/tool@v1 -l  install into this project
  pi ext list                                  what is installed, in both scopes
  pi ext update                                fetch every package again
  pi ext new word-count --lang rust            start a package from a template

pi install, pi remove (pi uninstall), pi update and pi list are the same commands.
`pi ext <command> --help` says more.";

/// Which scope a command changes.
#[derive(Debug, clap::Args)]
struct ScopeArgs {
    /// This project (.pi/) instead of the user scope
    #[arg(short = 'l', long)]
    local: bool,
    /// Trust this project for the command (its package config may be changed)
    #[arg(short = 'a', long)]
    approve: bool,
}

/// What the flags approve without asking.
#[derive(Debug, clap::Args)]
struct Approval {
    /// Approve every capability the package asks for
    #[arg(short = 'y', long)]
    yes: bool,
    /// Approve one capability: fs:read, fs:write, temp, process, llm, ui, session, net:<host>,
    /// env:<VAR>, tool:<built-in tool the package replaces>
    #[arg(long = "grant", value_name = "CAP")]
    grants: Vec<String>,
}

/// Runs a package command; `argv` is the program name and then the command (`ext install …` or
/// `install …`). Returns the exit code.
pub fn main(argv: Vec<OsString>) -> i32 {
    let mut args: Vec<OsString> = argv;
    // `pi install x` is `pi ext install x`.
    if args.get(1).is_some_and(|a| a != "ext") {
        args.insert(1, "ext".into());
    }
    let parsed = match ExtArgs::try_parse_from(args.into_iter().skip(1)) {
        Ok(parsed) => parsed,
        Err(error) => {
            let _ = error.print();
            return error.exit_code();
        }
    };
    let env = match pi_app::startup::StartupEnv::from_process() {
        Ok(env) => env,
        Err(error) => {
            tell!("Error: cannot read the working directory: {error}");
            return 1;
        }
    };
    let scope = |args: &ScopeArgs| scope_of(args, &env);
    let result = match parsed.command {
        ExtCommand::Install {
            source,
            scope: args,
            approval,
        } => scope(&args).and_then(|s| {
            let before = code_before(&s, &env);
            install(&source, &s, &env, &approval, None).and_then(|()| trusted_as_is(&env, before))
        }),
        ExtCommand::Remove {
            package,
            scope: args,
        } => scope(&args).and_then(|s| {
            let before = code_before(&s, &env);
            remove(&package, &s).and_then(|()| trusted_as_is(&env, before))
        }),
        // `--all` only spells out the default.
        ExtCommand::Update {
            package,
            all: _,
            scope: args,
            approval,
        } => scope(&args).and_then(|s| {
            let before = code_before(&s, &env);
            update(package.as_deref(), &s, &env, &approval)
                .and_then(|()| trusted_as_is(&env, before))
        }),
        ExtCommand::Approve {
            package,
            scope: args,
            approval,
        } => scope(&args).and_then(|s| approve::approve(&package, &s, &env, &approval)),
        ExtCommand::List { json } => list(&env, json),
        ExtCommand::Info { package } => info(&package, &env),
        ExtCommand::Publish { dir, target } => publish(&env.cwd.join(dir), &target, &env),
        ExtCommand::New(args) => {
            new::run(&args, &env.cwd).map_err(|error| Failure::Error(error.to_string()))
        }
    };
    match result {
        Ok(()) => 0,
        Err(Failure::Refused(message)) => {
            tell!("{message}");
            2
        }
        Err(Failure::Declined) => {
            tell!("Not installed.");
            1
        }
        Err(Failure::Error(error)) => {
            tell!("Error: {error}");
            1
        }
    }
}

/// The scope `args` name. A project's package config is changed only in a trusted project
/// (or with `--approve`) once the project has a settings file, as pi does: before that there
/// is nothing of the project's to protect.
fn scope_of(args: &ScopeArgs, env: &pi_app::startup::StartupEnv) -> Result<Scope, Failure> {
    if !args.local {
        return Ok(Scope::user(&env.agent_dir));
    }
    let scope = Scope::project(&env.cwd);
    if args.approve || !scope.settings_file().exists() {
        return Ok(scope);
    }
    let store = pi_session::trust::TrustStore::load(&env.agent_dir).unwrap_or_default();
    let global = pi_session::settings::SettingsManager::load(&env.agent_dir, &env.cwd, false);
    let decision =
        pi_session::trust::resolve_trust(&env.cwd, None, &store, global.default_project_trust());
    if decision.is_trusted() {
        Ok(scope)
    } else {
        Err(Failure::Error(
            "Project is not trusted. Use --approve to modify local package config.".to_owned(),
        ))
    }
}

enum Failure {
    /// Nobody could be asked and the flags did not approve it (exit 2).
    Refused(String),
    /// The user said no.
    Declined,
    Error(String),
}

impl From<PackageError> for Failure {
    fn from(error: PackageError) -> Self {
        match error {
            PackageError::Refused(message) if message == DECLINED => Failure::Declined,
            PackageError::Refused(message) => Failure::Refused(message),
            other => Failure::Error(other.to_string()),
        }
    }
}

const DECLINED: &str = "declined";

/// Installs `source`; `previous` is the approval of the install being updated, which is kept
/// without asking when the package asks for no more than it.
fn install(
    source: &str,
    scope: &Scope,
    env: &pi_app::startup::StartupEnv,
    approval: &Approval,
    previous: Option<&Capabilities>,
) -> Result<(), Failure> {
    let granted = parse_grants(&approval.grants).map_err(Failure::Error)?;
    let yes = approval.yes;
    let interactive = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    let mut consent = |request: &ConsentRequest| {
        let asks = &request.manifest.capabilities;
        if request.asks.is_empty()
            || yes
            || asks.beyond(&granted).is_empty()
            || previous.is_some_and(|p| asks.beyond(p).is_empty())
        {
            return Ok(asks.clone());
        }
        if !interactive {
            return Err(format!(
                "{} asks to:\n{}\nNot installed: nobody was asked. Run again with --yes, or with \
                 --grant for each capability.",
                request.manifest.name,
                bullets(&request.asks)
            ));
        }
        if ask(request) {
            Ok(asks.clone())
        } else {
            Err(DECLINED.to_owned())
        }
    };
    let installed = pi_packages::install(source, scope, &env.cwd, &env.agent_dir, &mut consent)?;
    let package = &installed.package;
    say!(
        "{} {} {} ({} scope) from {}",
        if installed.replaced {
            "Updated"
        } else {
            "Installed"
        },
        package.name,
        package.version,
        installed.scope.name(),
        package.source
    );
    say!("  path: {}", package.path.display());
    let words = package.approved.plain_words();
    if !words.is_empty() {
        say!("  granted: {}", words.join("; "));
    }
    Ok(())
}

/// The consent prompt on the terminal; true for yes.
fn ask(request: &ConsentRequest) -> bool {
    let manifest = request.manifest;
    let mut err = std::io::stderr();
    let prompt = format!(
        "{} {} ({}) asks to:\n{}\nAllow and install? [y/N] ",
        manifest.name,
        manifest.version,
        request.source,
        bullets(&request.asks)
    );
    let prompt = pi_ai::terminal_text::terminal_safe(&prompt, pi_ai::terminal_text::Keep::Lines);
    let _ = write!(err, "{prompt}");
    let _ = err.flush();
    let mut line = String::new();
    if std::io::stdin().lock().read_line(&mut line).is_err() {
        return false;
    }
    matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

fn bullets(lines: &[String]) -> String {
    lines
        .iter()
        .map(|l| format!("  - {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `--grant` values as capabilities.
fn parse_grants(grants: &[String]) -> Result<Capabilities, String> {
    let mut caps = Capabilities::default();
    for grant in grants {
        match grant.split_once(':') {
            Some(("fs", "read")) => caps.filesystem = caps.filesystem.max(FsAccess::Read),
            Some(("fs", "write")) => caps.filesystem = FsAccess::Write,
            Some(("net", host)) if !host.is_empty() => caps.network.push(host.to_owned()),
            Some(("env", name)) if !name.is_empty() => caps.env.push(name.to_owned()),
            Some(("tool", name)) if !name.is_empty() => caps.replaces.push(name.to_owned()),
            None if grant == "temp" => caps.temp = true,
            None if grant == "process" => caps.process = true,
            None if grant == "llm" => caps.llm = true,
            None if grant == "ui" => caps.ui = true,
            None if grant == "session" => caps.session = true,
            _ => {
                return Err(format!(
                    "unknown --grant \"{grant}\": expected fs:read, fs:write, temp, process, \
                     llm, ui, session, net:<host>, env:<VAR> or tool:<built-in tool it replaces>"
                ));
            }
        }
    }
    Ok(caps)
}

fn publish(
    dir: &std::path::Path,
    target: &str,
    env: &pi_app::startup::StartupEnv,
) -> Result<(), Failure> {
    let (manifest, digest) = pi_packages::publish(dir, target, &env.agent_dir)?;
    say!(
        "Published {} {} to {target}",
        manifest.name,
        manifest.version
    );
    say!("  digest: {digest}");
    Ok(())
}

/// Whether the project's code was as trusted before a `-l` command changed it (`None`: the
/// user scope, or nothing recorded yet).
fn code_before(scope: &Scope, env: &pi_app::startup::StartupEnv) -> Option<bool> {
    if scope.name() != "project" {
        return None;
    }
    pi_app::project_code::status(&env.agent_dir, &env.cwd).unwrap_or(Some(false))
}

/// After a change of the project's packages by its (trusted) user: when the code was as trusted
/// before the command, the change the command made is trusted too, so the next start loads it.
/// When something else had changed (a package planted, a lock entry or setting edited), nothing
/// is recorded, and the user is told.
fn trusted_as_is(env: &pi_app::startup::StartupEnv, before: Option<bool>) -> Result<(), Failure> {
    match before {
        Some(true) => {
            pi_app::project_code::record(&env.agent_dir, &env.cwd).map_err(Failure::Error)
        }
        Some(false) => {
            eprintln!(
                "Note: this project's code (.pi/extensions, .pi/packages.lock.json, or the code \
                 settings of .pi/settings.json) had changed since it was trusted, before this \
                 command: nothing is approved. Check it, then run pi once with --approve."
            );
            Ok(())
        }
        None => Ok(()),
    }
}

fn remove(key: &str, scope: &Scope) -> Result<(), Failure> {
    let removed = pi_packages::remove(key, scope)?;
    say!(
        "Removed {} {} ({} scope)",
        removed.name,
        removed.version,
        scope.name()
    );
    Ok(())
}

fn update(
    key: Option<&str>,
    scope: &Scope,
    env: &pi_app::startup::StartupEnv,
    approval: &Approval,
) -> Result<(), Failure> {
    let installed = pi_packages::list(scope)?;
    let chosen: Vec<&LockedPackage> = match key {
        Some(key) => installed
            .iter()
            .filter(|p| p.name == key || p.source == key)
            .collect(),
        // Bare `update` is `--all`, as pi 0.7x's `pi update` was for packages.
        None => installed.iter().collect(),
    };
    if chosen.is_empty() {
        return match key {
            Some(key) => Err(Failure::Error(format!(
                "not installed: {key} (see `pi ext list`)"
            ))),
            None => {
                say!("No packages installed.");
                Ok(())
            }
        };
    }
    for package in chosen {
        // A local source is recorded relative to the scope's directory.
        let source = if package.fetched() {
            package.source.clone()
        } else {
            package.path.to_string_lossy().into_owned()
        };
        install(&source, scope, env, approval, Some(&package.approved))?;
    }
    Ok(())
}

/// Both scopes' packages (the project's only when it has a lock file).
fn all_packages(env: &pi_app::startup::StartupEnv) -> Result<Vec<(Scope, LockedPackage)>, Failure> {
    let mut out = Vec::new();
    for scope in [Scope::user(&env.agent_dir), Scope::project(&env.cwd)] {
        for package in pi_packages::list(&scope)? {
            out.push((scope.clone(), package));
        }
    }
    Ok(out)
}

fn list(env: &pi_app::startup::StartupEnv, json: bool) -> Result<(), Failure> {
    let packages = all_packages(env)?;
    let filtered: Vec<(&'static str, String)> =
        [Scope::user(&env.agent_dir), Scope::project(&env.cwd)]
            .iter()
            .flat_map(|scope| {
                scope
                    .filtered_sources()
                    .into_iter()
                    .map(|s| (scope.name(), s))
            })
            .collect();
    let is_filtered = |scope: &Scope, p: &LockedPackage| {
        filtered
            .iter()
            .any(|(n, s)| *n == scope.name() && *s == p.source)
    };
    if json {
        let entries: Vec<serde_json::Value> = packages
            .iter()
            .map(|(scope, p)| {
                serde_json::json!({
                    "scope": scope.name(),
                    "name": p.name,
                    "version": p.version,
                    "source": p.source,
                    "filtered": is_filtered(scope, p),
                    "path": p.path,
                    "resolved": p.resolved,
                    "granted": p.approved.plain_words(),
                })
            })
            .collect();
        println!("{}", serde_json::Value::Array(entries));
        return Ok(());
    }
    if packages.is_empty() {
        say!("No packages installed.");
        return Ok(());
    }
    for kind in ["user", "project"] {
        let of_scope: Vec<&(Scope, LockedPackage)> =
            packages.iter().filter(|(s, _)| s.name() == kind).collect();
        if of_scope.is_empty() {
            continue;
        }
        say!("{}{} packages:", kind[..1].to_uppercase(), &kind[1..]);
        for (scope, p) in of_scope {
            let marker = if is_filtered(scope, p) {
                " (filtered)"
            } else {
                ""
            };
            say!("  {} {}  {}{marker}", p.name, p.version, p.source);
            say!("    {}", p.path.display());
        }
    }
    Ok(())
}

fn info(key: &str, env: &pi_app::startup::StartupEnv) -> Result<(), Failure> {
    let (scope, package) = all_packages(env)?
        .into_iter()
        .find(|(_, p)| p.name == key || p.source == key)
        .ok_or_else(|| Failure::Error(format!("not installed: {key} (see `pi ext list`)")))?;
    let manifest = Manifest::load(&package.path).map_err(|e| Failure::Error(e.to_string()))?;
    say!("{} {}", package.name, package.version);
    if !manifest.description.is_empty() {
        say!("  {}", manifest.description);
    }
    say!("scope: {}", scope.name());
    say!("source: {}", package.source);
    if let Some(resolved) = &package.resolved {
        say!("resolved: {resolved}");
    }
    say!("path: {}", package.path.display());
    say!("wit: {}", manifest.wit);
    say!("components:");
    for component in &manifest.components {
        say!(
            "  {} ({})",
            component.path.display(),
            component.world.as_str()
        );
    }
    let words = package.approved.plain_words();
    say!(
        "granted: {}",
        if words.is_empty() {
            "nothing".to_owned()
        } else {
            words.join("; ")
        }
    );
    if package.fetched() {
        say!("content hash: sha256:{}", content_hash(&package));
        say!("files: {}", package.files.len());
    } else {
        say!("content hash: (a local folder, loaded as it is)");
    }
    Ok(())
}

/// One digest over the recorded file hashes (path and hash of each, in order).
fn content_hash(package: &LockedPackage) -> String {
    use sha2::{Digest, Sha256};
    let mut digest = Sha256::new();
    for (path, hash) in &package.files {
        digest.update(path.as_bytes());
        digest.update([0]);
        digest.update(hash.as_bytes());
        digest.update([b'\n']);
    }
    digest
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Fetches the `npm:`/`git:` sources of `-e` into temporary directories for this run and
/// returns the arguments as directories; the guard keeps them until it drops. A source that
/// cannot be fetched is reported and left out.
pub fn fetch_cli_sources(args: &[String]) -> (Vec<String>, Vec<pi_packages::fetch::Installed>) {
    let mut dirs = Vec::new();
    let mut guards = Vec::new();
    for arg in args {
        // pi 1.6's built-in extensions (`builtin:mcp`) are parts of pi, not packages.
        if arg.starts_with("builtin:") {
            dirs.push(arg.clone());
            continue;
        }
        let installed = pi_packages::source::parse(arg)
            .map_err(|e| e.to_string())
            .and_then(|parsed| pi_packages::fetch::install(&parsed).map_err(|e| e.to_string()));
        match installed {
            Ok(Some(installed)) => {
                dirs.push(installed.dir.to_string_lossy().into_owned());
                guards.push(installed);
            }
            Ok(None) => dirs.push(arg.clone()),
            Err(error) => tell!("Warning: extension \"{arg}\" not loaded: {error}"),
        }
    }
    (dirs, guards)
}
