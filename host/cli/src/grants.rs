//! `pi grants list|revoke <id>|clear [--project]`: the approval rules the user left behind
//! (`<agentDir>/approvals.json`, the project's `.pi/approvals.json`) and the extension
//! packages' install-time grants, in one place: who may do what without asking. Dispatched
//! before the normal flag parsing; nothing here reaches a model.

use clap::{Parser, Subcommand};
use pi_app::permissions::{Ledger, Scope};
use pi_app::startup::StartupEnv;
use std::ffi::OsString;

/// Whether the arguments start a `pi grants` command.
pub fn is_grants_command(first: &OsString) -> bool {
    first == "grants"
}

#[derive(Debug, Parser)]
#[command(
    name = "pi grants",
    bin_name = "pi grants",
    about = "List and revoke the approval rules (\"always allow\") and see the extension \
             packages' grants",
    max_term_width = 100
)]
struct GrantsArgs {
    #[command(subcommand)]
    command: GrantsCommand,
}

#[derive(Debug, Subcommand)]
enum GrantsCommand {
    /// The rules of this project and your global ones, with their ids, then what each
    /// installed extension package was granted
    List,
    /// Remove one rule by its id (as `pi grants list` shows it, e.g. p2 or g1)
    Revoke {
        /// The rule's id
        id: String,
    },
    /// Remove every global rule, or with --project every rule of this project
    Clear {
        /// Clear this project's rules (.pi/approvals.json), also when it was changed outside pi
        #[arg(long)]
        project: bool,
    },
}

/// Runs `pi grants` with `argv` (program name first) and returns the exit code.
pub fn main(argv: Vec<OsString>) -> i32 {
    let (parsed, env) = match crate::subcommand::start::<GrantsArgs>(argv) {
        Ok(started) => started,
        Err(code) => return code,
    };
    let trusted = crate::hooks::project_trusted(&env);
    let (ledger, warnings) = Ledger::load(&env.agent_dir, &env.cwd, trusted);
    for warning in warnings {
        tell!("{warning}");
    }
    let result = match parsed.command {
        GrantsCommand::List => {
            list(&ledger, &env);
            Ok(())
        }
        GrantsCommand::Revoke { id } => ledger.revoke(&id).map(|rule| {
            say!(
                "Revoked {} ({} rule): {}",
                rule.id,
                rule.scope.as_str(),
                rule.describe()
            );
        }),
        GrantsCommand::Clear { project } => {
            let scope = if project {
                Scope::Project
            } else {
                Scope::Global
            };
            ledger.clear(scope).map(|count| {
                say!("Cleared {count} {} rule(s).", scope.as_str());
            })
        }
    };
    match result {
        Ok(()) => 0,
        Err(error) => {
            tell!("Error: {error}");
            1
        }
    }
}

fn list(ledger: &Ledger, env: &StartupEnv) {
    for line in pi_app::permissions::rule_lines(ledger, false) {
        say!("{line}");
    }
    packages(env);
}

/// The installed packages of both scopes and what each was granted when it was installed (as
/// `pi ext info` shows it).
fn packages(env: &StartupEnv) {
    use pi_packages::scope::Scope as PackageScope;
    say!("Extension packages (granted at install):");
    let mut any = false;
    for scope in [
        PackageScope::user(&env.agent_dir),
        PackageScope::project(&env.cwd),
    ] {
        let installed = match pi_packages::list(&scope) {
            Ok(installed) => installed,
            Err(error) => {
                tell!("Warning: {} packages not read: {error}", scope.name());
                continue;
            }
        };
        for package in installed {
            any = true;
            let words = package.approved.plain_words();
            let granted = if words.is_empty() {
                "nothing".to_owned()
            } else {
                words.join("; ")
            };
            say!(
                "  {:<8} {} {}: {granted}",
                scope.name(),
                package.name,
                package.version
            );
        }
    }
    if !any {
        say!("  (none installed)");
    }
}
