//! `/mcp` typed as a prompt outside the interactive UI (print, JSON and RPC modes), as pi 1.6's
//! command answers there: the plain status as a notice; `login`, `reconnect` and `logout` act
//! (the UI runs the same methods from its own `/mcp`).

use super::App;
use super::mcp::describe_state;
use pi_ext_api::hooks::{NotifyLevel, UserInterface};
use pi_mcp::ServerState;
use pi_mcp::config::McpConfig;
use pi_mcp::oauth::{OAuthSettings, SignInOptions, sign_in};
use std::time::Duration;

/// pi 1.6's usage line.
pub const MCP_USAGE: &str =
    "Usage: /mcp, /mcp login [server], /mcp logout [server], /mcp reconnect [server]";
/// How long `/mcp reconnect` waits for the new connection before answering.
const RECONNECT_WAIT: Duration = Duration::from_secs(30);
/// How long the plain status waits for servers still connecting.
const STATUS_WAIT: Duration = Duration::from_secs(10);

impl App {
    /// Runs `/mcp args` and says the outcome as a notice; `false` when MCP is off in this run
    /// (then `/mcp` is no command).
    pub(super) async fn run_mcp_command(&self, args: &str) -> bool {
        if self.mcp().is_none() {
            return false;
        }
        let (text, level) = self.mcp_command(args).await;
        self.ui.notify("mcp", &text, level);
        true
    }

    /// What `/mcp args` answers: the text and how it is said.
    pub async fn mcp_command(&self, args: &str) -> (String, NotifyLevel) {
        let words: Vec<&str> = args.split_whitespace().collect();
        match words[..] {
            [] => {
                self.wait_for_mcp().await;
                (self.mcp_status_text(), NotifyLevel::Info)
            }
            ["reconnect"] => self.reconnect_picked(None).await,
            ["reconnect", name] => self.reconnect_picked(Some(name)).await,
            ["logout"] => self.mcp_logout(None),
            ["logout", name] => self.mcp_logout(Some(name)),
            ["login"] => self.mcp_login(None, false).await,
            ["login", name] => self.mcp_login(Some(name), false).await,
            _ => (MCP_USAGE.to_owned(), NotifyLevel::Warning),
        }
    }

    /// Waits (at most 10 s) for the servers still connecting, as pi 1.6's status waits for
    /// the start-up connections.
    async fn wait_for_mcp(&self) {
        let Some(manager) = self.mcp() else {
            return;
        };
        let connecting: Vec<String> = manager
            .servers()
            .into_iter()
            .filter(|s| s.state == ServerState::Connecting)
            .map(|s| s.name)
            .collect();
        manager.wait_ready(&connecting, STATUS_WAIT).await;
    }

    async fn reconnect_picked(&self, name: Option<&str>) -> (String, NotifyLevel) {
        let overview = self.mcp_overview();
        let eligible = |s: &&super::McpServerView| s.state != ServerState::Disabled;
        let preferred = |s: &&super::McpServerView| matches!(s.state, ServerState::Failed(_));
        let picked = match pick(&overview.servers, name, eligible, preferred) {
            Ok(server) => server,
            Err(Some(text)) => return (text, NotifyLevel::Error),
            Err(None) => {
                return (
                    "No enabled MCP server to reconnect.".to_owned(),
                    NotifyLevel::Info,
                );
            }
        };
        if let Err(error) = self.mcp_reconnect(&picked) {
            return (error, NotifyLevel::Error);
        }
        if let Some(manager) = self.mcp() {
            manager
                .wait_ready(std::slice::from_ref(&picked), RECONNECT_WAIT)
                .await;
        }
        let now = self.mcp_overview();
        match now.servers.iter().find(|s| s.name == picked) {
            Some(server) if matches!(server.state, ServerState::Failed(_)) => {
                (describe_state(server, true), NotifyLevel::Error)
            }
            Some(server) => (
                format!(
                    r#"Reconnected to MCP server "{picked}" ({})."#,
                    describe_state(server, true)
                ),
                NotifyLevel::Info,
            ),
            None => (
                format!(r#"No MCP server named "{picked}"."#),
                NotifyLevel::Error,
            ),
        }
    }

    /// `/mcp login [server]`: signs in to the server (the only one needing it when none is
    /// named) as `pi mcp login` does — the authorization URL as a notice, the browser's
    /// loopback callback finishing it — then reconnects it; what to say.
    pub async fn mcp_login(&self, name: Option<&str>, browser: bool) -> (String, NotifyLevel) {
        let Some((config, agent_dir, cwd)) = self.mcp_config() else {
            return (
                "MCP is not configured in this run.".to_owned(),
                NotifyLevel::Error,
            );
        };
        let overview = self.mcp_overview();
        let oauth = |s: &&super::McpServerView| s.state != ServerState::Disabled && s.uses_oauth;
        let preferred = |s: &&super::McpServerView| s.state == ServerState::NeedsAuth;
        let none = "No enabled MCP server uses OAuth. Only HTTP servers without an Authorization header do.";
        let picked = match pick(&overview.servers, name, oauth, preferred) {
            Ok(server) => server,
            Err(Some(text)) => return (text, NotifyLevel::Error),
            Err(None) => return (none.to_owned(), NotifyLevel::Info),
        };
        let spec = match config.entry(&picked).map(|e| McpConfig::resolve(e, &cwd)) {
            Some(Ok(spec)) => spec,
            Some(Err(error)) => return (error, NotifyLevel::Error),
            None => return (none.to_owned(), NotifyLevel::Error),
        };
        let (pi_mcp::TransportSpec::Http { url, .. }, pi_mcp::AuthSpec::OAuth(settings)) =
            (&spec.transport, &spec.auth)
        else {
            return (none.to_owned(), NotifyLevel::Error);
        };
        let options = SignInOptions {
            server: picked.clone(),
            url: url.clone(),
            settings: OAuthSettings::from_value(settings),
            agent_dir,
            timeout: super::login::LOGIN_WAIT,
        };
        let ui = super::login::NoticeLogin {
            ui: self.ui.clone(),
            what: format!(r#"MCP server "{picked}""#),
            browser,
            pasted: None,
        };
        if let Err(error) = sign_in(&options, &ui).await {
            return (
                format!(r#"Sign-in to MCP server "{picked}" failed: {error}"#),
                NotifyLevel::Error,
            );
        }
        let (text, level) = self.reconnect_picked(Some(&picked)).await;
        match level {
            NotifyLevel::Error => (format!("Signed in, but {text}"), level),
            _ => (format!(r#"Signed in to MCP server "{picked}"."#), level),
        }
    }

    /// `/mcp logout [server]`: deletes the stored OAuth credentials of the server (the only
    /// one using OAuth when none is named); what to say.
    pub fn mcp_logout(&self, name: Option<&str>) -> (String, NotifyLevel) {
        let Some((config, agent_dir, _)) = self.mcp_config() else {
            return (
                "MCP is not configured in this run.".to_owned(),
                NotifyLevel::Error,
            );
        };
        let overview = self.mcp_overview();
        let oauth = |s: &&super::McpServerView| {
            s.state != ServerState::Disabled
                && config
                    .entry(&s.name)
                    .is_some_and(|e| e.config.oauth_url().is_some())
        };
        let none = "No enabled MCP server uses OAuth. Only HTTP servers without an Authorization header do.";
        let picked = match pick(&overview.servers, name, oauth, |_| false) {
            Ok(server) => server,
            Err(Some(text)) => return (text, NotifyLevel::Error),
            Err(None) => return (none.to_owned(), NotifyLevel::Info),
        };
        let Some(url) = config.entry(&picked).and_then(|e| e.config.oauth_url()) else {
            return (none.to_owned(), NotifyLevel::Error);
        };
        match pi_mcp::credentials::remove_credentials(&agent_dir, &picked, url) {
            Ok(true) => (
                format!(r#"Signed out of MCP server "{picked}"."#),
                NotifyLevel::Info,
            ),
            Ok(false) => (
                format!(r#"No stored credentials for MCP server "{picked}"."#),
                NotifyLevel::Info,
            ),
            Err(error) => (error.to_string(), NotifyLevel::Error),
        }
    }
}

/// The server a subcommand acts on, as pi 1.6 picks it: the named one (an error when it is
/// not eligible), else the only eligible one, else the only preferred one. `Err(None)`: none is
/// eligible; `Err(Some)`: what to say.
fn pick(
    servers: &[super::McpServerView],
    name: Option<&str>,
    eligible: impl Fn(&&super::McpServerView) -> bool,
    preferred: impl Fn(&&super::McpServerView) -> bool,
) -> Result<String, Option<String>> {
    if let Some(name) = name {
        return match servers.iter().find(|s| s.name == name) {
            None => Err(Some(format!(r#"No MCP server named "{name}"."#))),
            Some(server) if eligible(&server) => Ok(server.name.clone()),
            Some(_) => Err(None),
        };
    }
    let candidates: Vec<&super::McpServerView> = servers.iter().filter(&eligible).collect();
    let favoured: Vec<&&super::McpServerView> =
        candidates.iter().filter(|s| preferred(s)).collect();
    match (candidates.as_slice(), favoured.as_slice()) {
        ([], _) => Err(None),
        ([one], _) => Ok(one.name.clone()),
        (_, [one]) => Ok(one.name.clone()),
        _ => Err(Some(
            "More than one MCP server could be meant: name it (/mcp <action> <server>).".to_owned(),
        )),
    }
}
