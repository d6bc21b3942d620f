//! `pi hooks list` and `pi hooks approve`: the command hooks of the settings (global and this
//! project's) and the approval of the project's ones. Dispatched before the normal flag
//! parsing; nothing here reaches a model.

use clap::{Parser, Subcommand};
use pi_app::command_hooks::{
    ConfiguredHook, HookScope, approved, configured, enabled, record_approvals,
};
use pi_app::startup::StartupEnv;
use pi_session::settings::SettingsManager;
use std::collections::BTreeSet;
use std::ffi::OsString;
use std::io::{BufRead, IsTerminal, Write};

/// Whether the arguments start a `pi hooks` command.
pub fn is_hooks_command(first: &OsString) -> bool {
    first == "hooks"
}

#[derive(Debug, Parser)]
#[command(
    name = "pi hooks",
    bin_name = "pi hooks",
    about = "List the command hooks of the settings and approve a project's",
    max_term_width = 100
)]
struct HooksArgs {
    #[command(subcommand)]
    command: HooksCommand,
}

#[derive(Debug, Subcommand)]
enum HooksCommand {
    /// Every configured hook: scope, event, matcher, command, and whether it runs
    List,
    /// Show this project's command hooks and approve them (they run with your rights)
    Approve {
        /// Approve without asking
        #[arg(long, short = 'y')]
        yes: bool,
    },
}

/// Runs `pi hooks` with `argv` (program name first) and returns the exit code.
pub fn main(argv: Vec<OsString>) -> i32 {
    let (parsed, env) = match crate::subcommand::start::<HooksArgs>(argv) {
        Ok(started) => started,
        Err(code) => return code,
    };
    let hooks = Hooks::read(&env);
    match parsed.command {
        HooksCommand::List => hooks.list(),
        HooksCommand::Approve { yes } => hooks.approve(&env, yes),
    }
}

/// Whether the project at `env.cwd` is trusted (a saved decision or the default), as start-up
/// decides it without `--approve`.
pub(crate) fn project_trusted(env: &StartupEnv) -> bool {
    trusted(env, &SettingsManager::load(&env.agent_dir, &env.cwd, true))
}

fn trusted(env: &StartupEnv, settings: &SettingsManager) -> bool {
    let store = pi_session::trust::TrustStore::load(&env.agent_dir).unwrap_or_default();
    pi_session::trust::resolve_trust(&env.cwd, None, &store, settings.default_project_trust())
        .is_trusted()
}

/// The configured hooks and what decides whether they run.
struct Hooks {
    all: Vec<ConfiguredHook>,
    approved: BTreeSet<String>,
    trusted: bool,
    enabled: bool,
}

impl Hooks {
    fn read(env: &StartupEnv) -> Self {
        let settings = SettingsManager::load(&env.agent_dir, &env.cwd, true);
        let mut warnings = Vec::new();
        let mut all = configured(settings.global(), HookScope::Global, &mut warnings);
        all.extend(configured(
            settings.project(),
            HookScope::Project,
            &mut warnings,
        ));
        for warning in warnings {
            tell!("{warning}");
        }
        Hooks {
            all,
            approved: approved(&env.agent_dir, &env.cwd),
            trusted: trusted(env, &settings),
            enabled: enabled(settings.global(), settings.project()),
        }
    }

    fn project(&self) -> impl Iterator<Item = &ConfiguredHook> {
        self.all.iter().filter(|h| h.scope == HookScope::Project)
    }

    /// Whether `hook` runs, in words.
    fn state(&self, hook: &ConfiguredHook) -> &'static str {
        match hook.scope {
            HookScope::Global => "runs",
            HookScope::Project if !self.trusted => "ignored: project not trusted",
            HookScope::Project if self.approved.contains(&hook.command) => "approved",
            HookScope::Project => "not approved",
        }
    }

    fn list(&self) -> i32 {
        if self.all.is_empty() {
            say!("No command hooks configured.");
            return 0;
        }
        if !self.enabled {
            say!("Command hooks are turned off (commandHooks: false); none of these runs.");
        }
        for hook in &self.all {
            say!(
                "{:<8} {:<17} {:<12} {}  [{}]",
                hook.scope.as_str(),
                hook.event.as_str(),
                hook.matcher
                    .as_deref()
                    .filter(|m| !m.is_empty())
                    .unwrap_or("*"),
                hook.command,
                self.state(hook)
            );
        }
        0
    }

    fn approve(&self, env: &StartupEnv, yes: bool) -> i32 {
        let project: Vec<&ConfiguredHook> = self.project().collect();
        if project.is_empty() {
            say!("This project has no command hooks (.pi/settings.json `hooks`).");
            return 0;
        }
        tell!("This project's command hooks run these commands with your rights, unsandboxed:");
        for hook in &project {
            tell!(
                "  {} {}: {}",
                hook.event.as_str(),
                hook.matcher
                    .as_deref()
                    .filter(|m| !m.is_empty())
                    .unwrap_or("*"),
                hook.command
            );
        }
        match consent(yes) {
            Consent::Yes => {}
            Consent::No => {
                tell!("Not approved.");
                return 1;
            }
            Consent::NobodyAsked => {
                tell!("Not approved: nobody was asked. Run again with --yes.");
                return 2;
            }
        }
        let commands: Vec<String> = project.iter().map(|h| h.command.clone()).collect();
        if let Err(error) = record_approvals(&env.agent_dir, &env.cwd, &commands, &commands) {
            tell!("Error: {error}");
            return 1;
        }
        say!(
            "Approved {} command hook(s) for this project.",
            commands.len()
        );
        if !self.trusted {
            say!("The project is not trusted: they run once it is (pi --approve).");
        }
        0
    }
}

enum Consent {
    Yes,
    No,
    NobodyAsked,
}

/// `--yes`, or the answer on the terminal; without one nobody can be asked.
fn consent(yes: bool) -> Consent {
    if yes {
        return Consent::Yes;
    }
    if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
        return Consent::NobodyAsked;
    }
    let mut err = std::io::stderr();
    let _ = write!(err, "Approve? [y/N] ");
    let _ = err.flush();
    let mut line = String::new();
    if std::io::stdin().lock().read_line(&mut line).is_err() {
        return Consent::No;
    }
    if matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
        Consent::Yes
    } else {
        Consent::No
    }
}
