//! `pi mcp login <server> [-l] [--timeout <seconds>]`: connects first (a server that works
//! needs no sign-in), then signs in through the browser: the URL is printed (and opened on a
//! terminal), and the loopback callback or a redirect URL pasted on stdin finishes it. pi
//! 1.6's messages and exit codes.

use super::options::{Kind, parse};
use super::{HELP_HINT, load, oauth_entry};
use pi_ai::oauth::LoginUi;
use pi_app::startup::StartupEnv;
use pi_mcp::config::McpConfig;
use pi_mcp::oauth::{OAuthError, OAuthSettings, SignInOptions, sign_in};
use pi_mcp::{AuthSpec, ManagerOptions, McpManager, ServerSpec, ServerState};
use std::io::{BufRead, IsTerminal};
use std::time::Duration;

/// `--timeout`'s default, in seconds.
const DEFAULT_TIMEOUT_SECS: f64 = 300.0;
/// The longest wait for a connection.
const MAX_WAIT: Duration = Duration::from_secs(60);

pub(super) fn run(args: &[String], env: &StartupEnv) -> Result<i32, String> {
    let parsed = parse(
        args,
        &[("local", Kind::Flag), ("timeout", Kind::Value)],
        usize::MAX,
    )?;
    let [name] = parsed.positional.as_slice() else {
        return Err(format!("Usage: pi mcp login <server> [-l]\n{HELP_HINT}"));
    };
    let (loaded, note) = load(env);
    let (entry, url) = oauth_entry(
        &loaded,
        note.as_deref(),
        name,
        parsed.flag("local"),
        "login",
    )?;
    let timeout = match parsed.value("timeout") {
        None => DEFAULT_TIMEOUT_SECS,
        Some(text) => text
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|t| t.is_finite() && *t > 0.0)
            .ok_or("--timeout must be a positive number of seconds.")?,
    };
    let spec = McpConfig::resolve(entry, &env.cwd)?;
    let settings = match &spec.auth {
        AuthSpec::OAuth(value) => OAuthSettings::from_value(value),
        _ => OAuthSettings::default(),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|error| format!("Error: cannot start the runtime: {error}"))?;
    let options = SignInOptions {
        server: name.clone(),
        url,
        settings,
        agent_dir: env.agent_dir.clone(),
        timeout: Duration::from_secs_f64(timeout),
    };
    let code = runtime.block_on(login(spec, &options, env));
    // A read of stdin may still wait for a line nobody types.
    runtime.shutdown_background();
    code
}

async fn login(spec: ServerSpec, options: &SignInOptions, env: &StartupEnv) -> Result<i32, String> {
    let name = &options.server;
    match connect(spec.clone(), env).await {
        (ServerState::Connected, tools) => {
            say!(r#"Already signed in to MCP server "{name}" ({tools} tools)."#);
            return Ok(0);
        }
        (ServerState::NeedsAuth, _) => {}
        (state, _) => {
            return Err(format!(
                r#"MCP server "{name}" failed to connect: {}"#,
                failure(&state)
            ));
        }
    }
    let ui = LoginPrompt { server: name };
    if let Err(error) = sign_in(options, &ui).await {
        return Err(match error {
            OAuthError::TimedOut => format!(
                r#"Sign-in to MCP server "{name}" was cancelled or not completed within {} seconds."#,
                options.timeout.as_secs_f64().round()
            ),
            other => format!(r#"Sign-in to MCP server "{name}" failed: {other}"#),
        });
    }
    match connect(spec, env).await {
        (ServerState::Connected, tools) => {
            say!(r#"Signed in to MCP server "{name}" ({tools} tools)."#);
            Ok(0)
        }
        (state, _) => Err(format!("Signed in, but {}", failure(&state))),
    }
}

fn failure(state: &ServerState) -> String {
    match state {
        ServerState::Failed(error) => error.clone(),
        ServerState::NeedsAuth => "the server still requires sign-in".to_owned(),
        _ => "the server did not connect in time".to_owned(),
    }
}

/// Connects to the server alone and reports its state and how many tools it offers.
async fn connect(spec: ServerSpec, env: &StartupEnv) -> (ServerState, usize) {
    let options = ManagerOptions {
        agent_dir: env.agent_dir.clone(),
        sandbox: None,
        roots: vec![env.cwd.clone()],
        held: false,
    };
    let name = spec.name.clone();
    let wait = spec.timeout.min(MAX_WAIT);
    let manager = McpManager::start(vec![spec], options);
    manager.wait_ready(std::slice::from_ref(&name), wait).await;
    let state = manager
        .servers()
        .into_iter()
        .find(|status| status.name == name)
        .map_or(ServerState::Connecting, |status| status.state);
    let tools = manager.tools().len();
    manager.shutdown().await;
    (state, tools)
}

/// The terminal side of the sign-in: the URL on stdout (and a browser on a terminal), a
/// pasted redirect URL from stdin.
struct LoginPrompt<'a> {
    server: &'a str,
}

impl LoginUi for LoginPrompt<'_> {
    fn show_url(&self, url: &str) {
        say!(
            r#"Sign in to MCP server "{}" in your browser:"#,
            self.server
        );
        say!("{url}");
        // Not on a terminal (tests, scripts): the URL is only printed.
        if std::io::stdout().is_terminal() {
            pi_ai::oauth::open_browser(url);
        }
    }

    fn show_device_code(&self, _: &str, _: &str) {}

    fn progress(&self, message: &str) {
        tell!("{message}");
    }

    /// Reads on a plain thread so an unanswered read never holds up the exit.
    fn read_line(&self) -> pi_agent::BoxFuture<'_, Option<String>> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        std::thread::spawn(move || {
            let stdin = std::io::stdin();
            if stdin.is_terminal() {
                eprint!(
                    "If the browser cannot reach this machine, paste the URL it was redirected to: "
                );
            }
            let mut line = String::new();
            let read = match stdin.lock().read_line(&mut line) {
                Ok(n) if n > 0 => Some(line),
                _ => None,
            };
            let _ = tx.send(read);
        });
        Box::pin(async move { rx.await.ok().flatten() })
    }
}
