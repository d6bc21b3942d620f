//! `pi auth login|logout|status|check|print-api-key|print-bearer-token`: sign-in and
//! credential checks without starting a session. Dispatched before the normal flag parsing,
//! like `pi ext`.
//!
//! `status` never contacts a server: it says whether each credential is usable as stored
//! (exit 0 ready, 1 something not ready, 2 something invalid). `check` is pi 1.6's check of
//! one provider (`auth/check.rs`); given providers without `--provider` it is `status`. The
//! `print-*` commands resolve exactly as a model request does (refreshing an OAuth login
//! when due).

mod check;
mod ui;

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser, Subcommand};
use pi_ai::oauth::{LoginOptions, SignIn};
use pi_ai::{AuthStorage, Credential, ResolveOptions};
use serde_json::{Value, json};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Whether `first` starts an auth command.
pub fn is_auth_command(first: &OsString) -> bool {
    first == "auth"
}

/// Shown after `pi auth --help`.
const AUTH_EXAMPLES: &str = "Examples:
  pi auth login anthropic                       sign in with your Claude account
  echo \"$KEY\" | pi auth login groq --api-key    store an API key
  pi auth check --provider anthropic --json     is anthropic ready? (exit 0, 1 or 2)
  pi auth status                                every stored credential and its state
  pi auth print-api-key --provider openai       the key a request would use

Credentials are stored in auth.json in the agent directory (~/.pi/agent, or
PI_CODING_AGENT_DIR), readable only by you. `pi auth <command> --help` says more.";

#[derive(Debug, Parser)]
#[command(
    name = "pi auth",
    about = "Sign in to model providers, and check or print their credentials (auth.json)",
    after_help = AUTH_EXAMPLES,
    max_term_width = 100
)]
struct AuthArgs {
    #[command(subcommand)]
    command: AuthCommand,
}

#[derive(Debug, Subcommand)]
enum AuthCommand {
    /// Sign in to a provider and store the credential in auth.json
    #[command(
        long_about = "Sign in to a provider and store the credential in auth.json.

anthropic, openai-codex, github-copilot, openrouter, xai and kimi-coding sign in with an
account (OAuth: a browser page, a pasted redirect URL or a device code). Every other
provider, and any provider with --api-key, stores an API key read from stdin (prompted
for on a terminal). Exit 0 when stored, 1 when the sign-in failed."
    )]
    Login {
        /// Provider id, as auth.json keys it (anthropic, openai-codex, groq, …)
        provider: String,
        /// Store an API key (read from stdin) instead of signing in with an account
        #[arg(long)]
        api_key: bool,
        /// Do not open a browser; the URL is printed either way
        #[arg(long)]
        no_browser: bool,
        /// GitHub Enterprise domain (github-copilot only), e.g. github.example.com
        #[arg(long)]
        domain: Option<String>,
    },
    /// Remove a provider's stored credential (environment variables and models.json stay)
    #[command(
        long_about = "Remove a provider's stored credential from auth.json. API keys in
environment variables and in models.json are left alone. Exit 0 when removed, 1 when nothing
was stored for the provider."
    )]
    Logout {
        /// Provider id, as auth.json keys it
        provider: String,
    },
    /// Report the state of every credential: ready, not ready or invalid (exit 0, 1 or 2)
    #[command(
        long_about = "Report the state of every stored credential, and of every known
provider whose API key variable is set: ready, not ready or invalid, where it comes from
(auth.json, the environment) and what to do. Never contacts a server. Exit 0 when all are
ready, 1 when one is not ready, 2 when one is invalid."
    )]
    Status {
        /// Providers to report (default: every stored one and every one with an env key)
        providers: Vec<String>,
        /// Print {status, providers: [{provider, status, source, type, expires, message}]}
        #[arg(long)]
        json: bool,
    },
    /// Check one provider's credential: print ready, not_ready or invalid; exit 0, 1 or 2
    #[command(
        args_override_self = true,
        override_usage = "pi auth check --provider <PROVIDER> [--json] [--credentials] [--no-refresh]
       pi auth check --model <MODEL> [--json] [--credentials] [--no-refresh]
       pi auth check <PROVIDERS>... [--json]",
        long_about = "Check one provider's credential, as pi 1.6 does: print ready, not_ready
or invalid, and exit 0, 1 or 2. The credential is resolved as a request would resolve it (a
`!command` key is run, an expired OAuth login is refreshed) unless --no-refresh is given.

With --json the answer is one object: {\"status\":\"ready\",\"provider\":\"anthropic\",
\"authType\":\"api_key\"|\"oauth\"}, or {\"status\":\"not_ready\"|\"invalid\",
\"provider\":…,\"reason\":\"provider_not_found\"|\"credentials_not_configured\"|
\"invalid_state\"}; --credentials adds \"credentials\":\"<key or token>\".

The older form `pi auth check <provider>… [--json]` (without --provider) is `pi auth status`
for those providers."
    )]
    Check {
        /// The provider to check (given twice, the last one counts)
        #[arg(long, value_name = "PROVIDER")]
        provider: Option<String>,
        /// Check the provider of this model (an id, provider/id or part of a name)
        #[arg(long, value_name = "MODEL")]
        model: Option<String>,
        /// Print the result as one JSON object
        #[arg(long)]
        json: bool,
        /// Print the credential itself when ready (in the JSON: a `credentials` field)
        #[arg(long)]
        credentials: bool,
        /// Only look at what is stored: run no key command and refresh no OAuth login
        #[arg(long)]
        no_refresh: bool,
        /// The older form: report these providers as `pi auth status` does
        #[arg(value_name = "PROVIDERS", conflicts_with_all = ["provider", "model", "credentials", "no_refresh"])]
        providers: Vec<String>,
    },
    /// Print the API key (or OAuth access token) a request to the provider would use
    #[command(
        long_about = "Print the API key (or OAuth access token) a request to the
provider would use, for an external client: the stored credential (refreshed first when an
OAuth login is about to expire), else the provider's API key variable, else models.json's
apiKey. Exit 1 when there is none."
    )]
    PrintApiKey {
        /// Provider id (anthropic, openai, groq, …)
        #[arg(long)]
        provider: String,
    },
    /// Print the provider's bearer token, refreshed first if it expires sooner than
    /// --min-expiry
    #[command(
        long_about = "Print the provider's bearer token (an OAuth access token, or the
API key), refreshing an OAuth login first when it expires sooner than --min-expiry. Exit 1
when there is none or the refresh failed."
    )]
    PrintBearerToken {
        /// Provider id (anthropic, openai-codex, github-copilot, …)
        #[arg(long)]
        provider: String,
        /// Least remaining validity, e.g. 30m, 90s, 2h (default and minimum: 5m)
        #[arg(long, value_parser = parse_duration)]
        min_expiry: Option<Duration>,
    },
}

/// Why an auth command failed (exit 1).
#[derive(Debug, thiserror::Error)]
enum AuthCliError {
    #[error(transparent)]
    Auth(#[from] pi_ai::AuthError),
    #[error(transparent)]
    OAuth(#[from] pi_ai::oauth::OAuthError),
    #[error("{0}")]
    Message(String),
}

/// Runs `pi auth …` and returns the exit code.
pub fn main(argv: Vec<OsString>) -> i32 {
    let parsed = match AuthArgs::try_parse_from(
        std::iter::once(OsString::from("pi auth")).chain(argv.into_iter().skip(2)),
    ) {
        Ok(parsed) => parsed,
        // `pi auth` alone prints the help, as pi 1.6 does.
        Err(error)
            if matches!(
                error.kind(),
                ErrorKind::MissingSubcommand | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) =>
        {
            let _ = AuthArgs::command().print_help();
            return 0;
        }
        Err(error) => {
            let _ = error.print();
            // pi 1.6 exits 1 on a malformed auth command; help (on stdout) exits 0.
            return if error.use_stderr() { 1 } else { 0 };
        }
    };
    let agent_dir = pi_session::paths::agent_dir();
    // Sign-in and refresh requests go through `httpProxy` like the provider requests (only
    // the global file counts, so no project needs to be looked at).
    let settings = pi_session::settings::SettingsManager::load(&agent_dir, Path::new("."), false);
    if let Err(error) = pi_ai::http_client::configure_proxy(settings.http_proxy().as_deref()) {
        eprintln!("Error: {error} (in {})", settings.global_path().display());
        return 1;
    }
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("Error: cannot start the runtime: {error}");
            return 1;
        }
    };
    match runtime.block_on(dispatch(parsed.command, &agent_dir)) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("Error: {error}");
            1
        }
    }
}

async fn dispatch(command: AuthCommand, agent_dir: &Path) -> Result<i32, AuthCliError> {
    let auth_path = agent_dir.join("auth.json");
    match command {
        AuthCommand::Login {
            provider,
            api_key,
            no_browser,
            domain,
        } => {
            let storage = AuthStorage::open(&auth_path)?;
            login(&storage, &provider, api_key, no_browser, domain).await?;
            eprintln!(
                "Logged in to {provider}; the credential is stored in {}",
                auth_path.display()
            );
            Ok(0)
        }
        AuthCommand::Logout { provider } => {
            let storage = AuthStorage::open(&auth_path)?;
            if storage.remove(&provider)? {
                eprintln!("Logged out of {provider}");
                Ok(0)
            } else {
                eprintln!("Nothing stored for {provider} in {}", auth_path.display());
                Ok(1)
            }
        }
        AuthCommand::Status { providers, json } => Ok(status(&auth_path, &providers, json)),
        AuthCommand::Check {
            providers,
            json,
            provider,
            model,
            credentials,
            no_refresh,
        } => {
            if !providers.is_empty() {
                return Ok(status(&auth_path, &providers, json));
            }
            let request = check::CheckRequest {
                provider,
                model,
                json,
                credentials,
                no_refresh,
            };
            Ok(check::run(&request, agent_dir).await)
        }
        AuthCommand::PrintApiKey { provider } => {
            print_key(agent_dir, &provider, ResolveOptions::default()).await
        }
        AuthCommand::PrintBearerToken {
            provider,
            min_expiry,
        } => {
            let options = ResolveOptions {
                min_validity: min_expiry.unwrap_or(pi_ai::oauth::REFRESH_WINDOW),
                ..ResolveOptions::default()
            };
            print_key(agent_dir, &provider, options).await
        }
    }
}

async fn login(
    storage: &AuthStorage,
    provider: &str,
    api_key: bool,
    no_browser: bool,
    domain: Option<String>,
) -> Result<(), AuthCliError> {
    let sign_in = SignIn::for_provider(provider).filter(|_| !api_key);
    let Some(sign_in) = sign_in else {
        let key = ui::read_api_key(provider)?;
        storage.set(provider, &Credential::api_key(key))?;
        return Ok(());
    };
    let ui = ui::CliLoginUi::new(sign_in, !no_browser);
    let options = LoginOptions {
        enterprise_domain: domain,
    };
    let credential = sign_in.login(&ui, &options).await?;
    storage.set(provider, &credential)?;
    Ok(())
}

async fn print_key(
    agent_dir: &Path,
    provider: &str,
    options: ResolveOptions,
) -> Result<i32, AuthCliError> {
    let storage = AuthStorage::open(agent_dir.join("auth.json"))?;
    let registry =
        pi_ai::ModelRegistry::load_with_providers(Some(&agent_dir.join("models.json")), &[]);
    let models_key = registry
        .as_ref()
        .ok()
        .and_then(|r| r.provider_api_key(provider).map(str::to_owned));
    let key =
        pi_ai::resolve_api_key(provider, None, &storage, models_key.as_deref(), &options).await?;
    match key {
        Some(key) => {
            println!("{key}");
            Ok(0)
        }
        None => Err(AuthCliError::Message(format!(
            "no credential for \"{provider}\": run `pi auth login {provider}`{}",
            env_hint(provider)
        ))),
    }
}

fn env_hint(provider: &str) -> String {
    match pi_ai::auth::env_var_names(provider).first() {
        Some(var) => format!(" or set {var}"),
        None => String::new(),
    }
}

/// One provider's state as `status` reports it.
struct Check {
    provider: String,
    state: State,
    source: &'static str,
    kind: Option<&'static str>,
    expires: Option<i64>,
    message: String,
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum State {
    Ready,
    NotReady,
    Invalid,
}

impl State {
    fn as_str(self) -> &'static str {
        match self {
            State::Ready => "ready",
            State::NotReady => "not ready",
            State::Invalid => "invalid",
        }
    }

    fn exit_code(self) -> i32 {
        match self {
            State::Ready => 0,
            State::NotReady => 1,
            State::Invalid => 2,
        }
    }
}

fn status(auth_path: &PathBuf, providers: &[String], json: bool) -> i32 {
    let checks = match AuthStorage::open(auth_path) {
        Ok(storage) => {
            let names = if providers.is_empty() {
                default_providers(&storage)
            } else {
                providers.to_vec()
            };
            names.iter().map(|p| check_one(&storage, p)).collect()
        }
        Err(error) => vec![Check {
            provider: String::new(),
            state: State::Invalid,
            source: "auth.json",
            kind: None,
            expires: None,
            message: format!("{error}"),
        }],
    };
    let worst = checks
        .iter()
        .map(|c| c.state)
        .max()
        .unwrap_or(State::NotReady);
    if json {
        let entries: Vec<Value> = checks.iter().map(check_json).collect();
        println!(
            "{}",
            json!({"status": worst.as_str(), "providers": entries})
        );
    } else if checks.is_empty() {
        println!(
            "No credentials: run `pi auth login <provider>` or set a provider's API key variable."
        );
    } else {
        for c in &checks {
            println!(
                "{}: {} ({}) {}",
                c.provider,
                c.state.as_str(),
                c.source,
                c.message
            );
        }
    }
    worst.exit_code()
}

fn check_json(c: &Check) -> Value {
    json!({
        "provider": c.provider,
        "status": c.state.as_str(),
        "source": c.source,
        "type": c.kind,
        "expires": c.expires,
        "message": c.message,
    })
}

/// Every stored provider, then every sign-in provider and known provider with an env key.
fn default_providers(storage: &AuthStorage) -> Vec<String> {
    let mut names = storage.providers();
    let known = pi_ai::ModelRegistry::load_with_providers(None, &[])
        .map(|r| {
            r.providers()
                .into_iter()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    for provider in known {
        if !names.contains(&provider) && pi_ai::auth::env_api_key(&provider).is_some() {
            names.push(provider);
        }
    }
    names
}

fn check_one(storage: &AuthStorage, provider: &str) -> Check {
    let mut c = Check {
        provider: provider.to_owned(),
        state: State::Ready,
        source: "auth.json",
        kind: None,
        expires: None,
        message: String::new(),
    };
    match storage.get(provider) {
        Err(error) => (c.state, c.message) = (State::Invalid, error.to_string()),
        Ok(Some(Credential::ApiKey { key, .. })) => {
            c.kind = Some("api_key");
            match pi_ai::auth::resolve_config_value(&key) {
                Ok(Some(_)) => c.message = "API key".to_owned(),
                Ok(None) => {
                    c.state = State::Invalid;
                    c.message = format!(
                        "the stored key resolves to nothing: run `pi auth login {provider}`"
                    );
                }
                Err(error) => (c.state, c.message) = (State::Invalid, error.to_string()),
            }
        }
        Ok(Some(Credential::OAuth { expires, .. })) => {
            c.kind = Some("oauth");
            c.expires = Some(expires);
            oauth_state(&mut c, provider, expires);
        }
        Ok(None) => match pi_ai::auth::env_api_key(provider) {
            Some(_) => {
                c.source = "environment";
                c.kind = Some("api_key");
                c.message = "API key from the environment".to_owned();
            }
            None => {
                c.state = State::NotReady;
                c.source = "none";
                c.message = format!(
                    "no credential: run `pi auth login {provider}`{}",
                    env_hint(provider)
                );
            }
        },
    }
    c
}

fn oauth_state(c: &mut Check, provider: &str, expires: i64) {
    if SignIn::for_provider(provider).is_none() {
        c.state = State::Invalid;
        c.message = format!(
            "an OAuth login, but pi has no OAuth sign-in for {provider}: run `pi auth login {provider}`"
        );
        return;
    }
    let left = expires - pi_ai::now_ms();
    if left > 0 {
        c.message = format!(
            "OAuth login, {} min left (refreshed when needed)",
            left / 60_000
        );
    } else {
        c.state = State::NotReady;
        c.message = format!(
            "OAuth login expired; it is refreshed on next use, or run `pi auth login {provider}`"
        );
    }
}

/// `30m`, `90s`, `2h`, `1500ms`, or a number of seconds.
fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let n: u64 = number
        .parse()
        .map_err(|_| format!("\"{text}\" is not a duration (e.g. 30m, 90s, 2h)"))?;
    let secs = match unit {
        "" | "s" => n,
        "m" => n * 60,
        "h" => n * 3600,
        "d" => n * 86_400,
        "ms" => return Ok(Duration::from_millis(n)),
        _ => {
            return Err(format!(
                "\"{text}\": unknown unit \"{unit}\" (use ms, s, m, h or d)"
            ));
        }
    };
    Ok(Duration::from_secs(secs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30m"), Ok(Duration::from_secs(1800)));
        assert_eq!(parse_duration("90"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("1500ms"), Ok(Duration::from_millis(1500)));
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("5y").is_err());
    }
}
