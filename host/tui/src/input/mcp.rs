//! `/mcp`: the MCP servers as pi 1.6's manager shows them — the list (name, state, tools,
//! exposure, scope), and for one server its tools, enable/disable, exposure, reconnect and
//! trusting changed definitions (the diff of what changed is shown first). Esc goes back a
//! level. `/mcp reconnect|logout [server]` act at once. Changed definitions found while the
//! session runs are shown and asked about as soon as nothing else is open.
//!
//! Everything a server says (names, descriptions, schemas, errors) is made terminal-safe here
//! before it reaches a picker or the transcript.

use super::{Action, Ui};
use crate::picker::{Entry, Picker, Purpose};
use pi_ai::terminal_text::{Keep, terminal_safe};
use pi_app::App;
use pi_app::app::{EXPOSURE_CHOICES, McpServerView, describe_mcp_state};
use pi_mcp::{ChangedDefinition, ServerState};
use std::collections::HashSet;

/// What `/mcp` remembers between frames.
#[derive(Debug, Default)]
pub(super) struct McpUi {
    /// The server whose menu is open (or was, for Esc from its sub-menus).
    server: Option<String>,
    /// `server:tools` whose changed definitions were already asked about.
    asked: HashSet<String>,
    /// What the open server list showed, to redraw it when a state changes.
    shown: String,
    /// The manager's revision the last look was made at: each frame looks again only when
    /// it moved (reading the configuration files is not a per-frame cost).
    seen: Option<u64>,
}

/// One line of a server's words, safe for the terminal.
pub(super) fn safe(text: &str) -> String {
    terminal_safe(text, Keep::Nothing).into_owned()
}

/// The short line of a server in the list: state · exposure · scope.
fn server_detail(server: &McpServerView) -> String {
    safe(&format!(
        "{} · {} · {}",
        describe_mcp_state(server, true),
        server.exposure.as_str(),
        server.scope
    ))
}

/// pi 1.6's order: servers that need the user first, then by name.
fn attention(server: &McpServerView) -> u8 {
    match server.state {
        ServerState::NeedsAuth => 0,
        ServerState::Failed(_) => 1,
        ServerState::Connecting => 3,
        ServerState::Connected => 4,
        ServerState::Disabled => 5,
    }
}

impl Ui {
    /// `/mcp [args]`.
    pub(super) fn mcp_command(&mut self, args: &str, app: &App) -> Action {
        let words: Vec<&str> = args.split_whitespace().collect();
        match words[..] {
            [] => self.open_mcp_servers(app),
            ["reconnect"] => self.mcp_reconnect(app, None),
            ["reconnect", name] => self.mcp_reconnect(app, Some(name)),
            ["logout"] | ["logout", _] => {
                let (text, level) = app.mcp_logout(words.get(1).copied());
                let error = level == pi_ext_api::hooks::NotifyLevel::Error;
                self.transcript.notice(safe_lines(&text), error);
            }
            ["login"] | ["login", _] => {
                return Action::McpLogin(words.get(1).map(|name| (*name).to_owned()));
            }
            _ => self
                .transcript
                .notice(pi_app::app::MCP_USAGE.to_owned(), true),
        }
        Action::None
    }

    /// The list of servers, the one `select` names under the cursor.
    fn open_mcp_servers(&mut self, app: &App) {
        let overview = app.mcp_overview();
        for error in &overview.errors {
            self.transcript
                .notice(format!("config: {}", safe(error)), true);
        }
        if overview.servers.is_empty() {
            self.transcript.notice(
                format!(
                    "No MCP servers configured. Add them to {} or .pi/mcp.json.",
                    overview.user_config.display()
                ),
                false,
            );
            return;
        }
        let picker = servers_picker(&overview.servers, self.mcp.server.as_deref());
        self.mcp.shown = listing_key(&overview.servers);
        self.open_picker(picker);
    }

    /// One server's menu (pi 1.6's `serverMenu`).
    fn open_mcp_server(&mut self, app: &App, name: &str) {
        let overview = app.mcp_overview();
        let Some(server) = overview.servers.iter().find(|s| s.name == name) else {
            self.transcript.notice(
                format!("MCP server {} is no longer configured.", safe(name)),
                true,
            );
            return;
        };
        self.mcp.server = Some(name.to_owned());
        let title = format!(
            "MCP server {} · State: {} (Enter: select, Esc: back) · {}: {} · {}",
            safe(name),
            safe(&describe_mcp_state(server, false)),
            server.scope,
            server.source.display(),
            safe(&server.transport),
        );
        self.mcp.shown = listing_key(&overview.servers);
        self.open_picker(Picker::new(
            Purpose::McpServer,
            title,
            server_actions(server),
        ));
        if let ServerState::Failed(error) = &server.state {
            self.hint = Some(safe(error.lines().next().unwrap_or_default()));
        }
    }

    /// An entry of the MCP menus was chosen.
    pub(super) fn mcp_chosen(&mut self, purpose: Purpose, value: &str, app: &App) -> Action {
        match purpose {
            Purpose::McpServers => self.open_mcp_server(app, value),
            // Signing in waits for the browser: the session runs it (notices tell the rest).
            Purpose::McpServer if value == "signin" => {
                self.picker = None;
                return Action::McpLogin(self.mcp.server.clone());
            }
            Purpose::McpServer => self.mcp_action(app, value),
            Purpose::McpExposure => self.mcp_exposure(app, value),
            Purpose::McpTrust => self.mcp_trust(app, value == "trust"),
            _ => self.mcp_back(purpose, app),
        }
        Action::None
    }

    /// Esc in an MCP menu: one level up (the list closes).
    pub(super) fn mcp_back(&mut self, purpose: Purpose, app: &App) {
        match (purpose, self.mcp.server.clone()) {
            (Purpose::McpServer, _) => self.open_mcp_servers(app),
            (Purpose::McpTools | Purpose::McpExposure | Purpose::McpTrust, Some(server)) => {
                self.open_mcp_server(app, &server)
            }
            _ => {}
        }
    }

    fn mcp_action(&mut self, app: &App, action: &str) {
        let Some(name) = self.mcp.server.clone() else {
            return;
        };
        let result = match action {
            "tools" => return self.open_mcp_tools(app, &name),
            "exposure" => return self.open_mcp_exposure(app, &name),
            "trust" => return self.ask_mcp_trust(app, &name),
            "reconnect" => app.mcp_reconnect(&name),
            "signout" => {
                let (text, level) = app.mcp_logout(Some(&name));
                let error = level == pi_ext_api::hooks::NotifyLevel::Error;
                self.transcript.notice(safe_lines(&text), error);
                Ok(())
            }
            "enable" | "enable-project" => {
                app.mcp_set_enabled(&name, true, action == "enable-project")
            }
            "disable" | "disable-project" => {
                app.mcp_set_enabled(&name, false, action == "disable-project")
            }
            _ => Ok(()),
        };
        if let Err(error) = result {
            self.transcript.notice(safe_lines(&error), true);
        }
        self.open_mcp_server(app, &name);
    }

    fn open_mcp_tools(&mut self, app: &App, name: &str) {
        let exposure = app
            .mcp_overview()
            .servers
            .iter()
            .find(|s| s.name == name)
            .map(|s| s.exposure);
        let entries: Vec<Entry> = app
            .mcp_tools(name)
            .iter()
            .map(|tool| {
                let mut marks = Vec::new();
                if Some(tool.exposure) != exposure {
                    marks.push(format!("[{}]", tool.exposure.as_str()));
                }
                if tool.changed {
                    marks.push("[changed]".to_owned());
                }
                let first = tool.description.lines().next().unwrap_or_default();
                marks.push(safe(first));
                Entry::choice(&tool.name, safe(&tool.name), marks.join(" "))
            })
            .collect();
        let title = format!(
            "Tools of {} (exposure {}; Esc: back)",
            safe(name),
            exposure.map_or("?", |e| e.as_str())
        );
        self.open_picker(Picker::new(Purpose::McpTools, title, entries));
    }

    fn open_mcp_exposure(&mut self, app: &App, name: &str) {
        let current = app
            .mcp_overview()
            .servers
            .iter()
            .find(|s| s.name == name)
            .map(|s| s.exposure);
        let entries = EXPOSURE_CHOICES
            .iter()
            .map(|(exposure, what)| {
                let mark = if Some(*exposure) == current {
                    "✓ "
                } else {
                    "  "
                };
                Entry::choice(
                    exposure.as_str(),
                    format!("{mark}{}", exposure.as_str()),
                    *what,
                )
            })
            .collect();
        let mut picker = Picker::new(
            Purpose::McpExposure,
            format!("Exposure of {} (Enter: save, Esc: back)", safe(name)),
            entries,
        );
        if let Some(current) = current {
            picker.select_value(current.as_str());
        }
        self.open_picker(picker);
    }

    fn mcp_exposure(&mut self, app: &App, value: &str) {
        let Some(name) = self.mcp.server.clone() else {
            return;
        };
        let chosen = EXPOSURE_CHOICES
            .iter()
            .map(|(e, _)| *e)
            .find(|e| e.as_str() == value);
        if let Some(exposure) = chosen
            && let Err(error) = app.mcp_set_exposure(&name, exposure)
        {
            self.transcript.notice(safe_lines(&error), true);
        }
        self.open_mcp_server(app, &name);
    }

    /// Shows the diff of the server's changed definitions and asks whether to trust them.
    fn ask_mcp_trust(&mut self, app: &App, name: &str) {
        let changed = match app.mcp_changed_definitions(name) {
            Ok(changed) if !changed.is_empty() => changed,
            Ok(_) => {
                self.transcript.notice(
                    format!("No definition of {} changed since pinned.", safe(name)),
                    false,
                );
                return;
            }
            Err(error) => {
                self.transcript.notice(safe_lines(&error), true);
                return;
            }
        };
        self.mcp.server = Some(name.to_owned());
        self.transcript.notice(diff_text(name, &changed), false);
        let entries = vec![
            Entry::choice(
                "trust",
                "Trust them",
                "record the new definitions; the tools are offered from the next request",
            ),
            Entry::choice("keep", "Keep withholding them", "nothing changes"),
        ];
        let title = format!(
            "MCP server {} changed {} tool definition{} (shown above): trust?",
            safe(name),
            changed.len(),
            if changed.len() == 1 { "" } else { "s" }
        );
        self.open_picker(Picker::new(Purpose::McpTrust, title, entries));
    }

    fn mcp_trust(&mut self, app: &App, trust: bool) {
        let Some(name) = self.mcp.server.clone() else {
            return;
        };
        if !trust {
            self.transcript.notice(
                format!(
                    "Still withheld; trust them later with /mcp or `pi mcp trust {}`.",
                    safe(&name)
                ),
                false,
            );
            return;
        }
        match app.mcp_trust(&name) {
            Ok(count) => self.transcript.notice(
                format!(
                    "Trusted the {count} tool definitions of {}: offered from the next request.",
                    safe(&name)
                ),
                false,
            ),
            Err(error) => self.transcript.notice(safe_lines(&error), true),
        }
    }

    fn mcp_reconnect(&mut self, app: &App, name: Option<&str>) {
        let overview = app.mcp_overview();
        let enabled: Vec<&McpServerView> = overview
            .servers
            .iter()
            .filter(|s| s.state != ServerState::Disabled)
            .collect();
        let failed: Vec<&McpServerView> = enabled
            .iter()
            .copied()
            .filter(|s| matches!(s.state, ServerState::Failed(_)))
            .collect();
        let picked = match (name, enabled.as_slice(), failed.as_slice()) {
            (Some(name), _, _) => name.to_owned(),
            (None, [], _) => {
                self.transcript
                    .notice("No enabled MCP server to reconnect.".to_owned(), false);
                return;
            }
            (None, [one], _) | (None, _, [one]) => one.name.clone(),
            (None, _, _) => {
                // Several could be meant: choose one in the list.
                self.open_mcp_servers(app);
                return;
            }
        };
        match app.mcp_reconnect(&picked) {
            Ok(()) => self.transcript.notice(
                format!(
                    "Reconnecting to MCP server \"{}\"… (/mcp shows its state)",
                    safe(&picked)
                ),
                false,
            ),
            Err(error) => self.transcript.notice(safe_lines(&error), true),
        }
    }

    /// Each frame: redraws an open server list whose states changed, keeps `/mcp`'s argument
    /// completions current, and asks about changed definitions found since (one server at a
    /// time, when nothing else is open). Whether anything changed on screen.
    pub fn watch_mcp(&mut self, app: &App) -> bool {
        let Some(revision) = app.mcp().map(|manager| manager.revision()) else {
            return false;
        };
        if self.mcp.seen == Some(revision) {
            return false;
        }
        self.mcp.seen = Some(revision);
        let servers = app.mcp_overview().servers;
        self.completer.set_mcp_servers(
            servers
                .iter()
                .map(|s| {
                    (
                        s.name.clone(),
                        describe_mcp_state(s, true),
                        s.state != ServerState::Disabled,
                    )
                })
                .collect(),
        );
        let open = self
            .picker
            .as_ref()
            .map(|p| (p.purpose, p.query.is_empty()));
        if let Some((purpose @ (Purpose::McpServers | Purpose::McpServer), query_free)) = open {
            // Redrawn while nothing is typed into it, so a search is not lost.
            if !query_free {
                self.mcp.seen = None;
                return false;
            }
            if listing_key(&servers) == self.mcp.shown {
                return false;
            }
            match (purpose, self.mcp.server.clone()) {
                (Purpose::McpServer, Some(server)) => self.open_mcp_server(app, &server),
                _ => self.open_mcp_servers(app),
            }
            return true;
        }
        let pending = servers.iter().find(|s| {
            s.state == ServerState::Connected
                && !s.changed_tools.is_empty()
                && !self
                    .mcp
                    .asked
                    .contains(&format!("{}:{}", s.name, s.changed_tools.join(",")))
        });
        let Some(server) = pending else {
            return false;
        };
        if self.picker.is_some() || self.prompt.is_some() {
            // Asked once nothing else is open: look again then.
            self.mcp.seen = None;
            return false;
        }
        let name = server.name.clone();
        self.mcp
            .asked
            .insert(format!("{}:{}", name, server.changed_tools.join(",")));
        self.ask_mcp_trust(app, &name);
        true
    }
}

fn servers_picker(servers: &[McpServerView], select: Option<&str>) -> Picker {
    let mut sorted: Vec<&McpServerView> = servers.iter().collect();
    sorted.sort_by(|a, b| attention(a).cmp(&attention(b)).then(a.name.cmp(&b.name)));
    let entries = sorted
        .iter()
        .map(|s| Entry::choice(&s.name, safe(&s.name), server_detail(s)))
        .collect();
    let mut picker = Picker::new(
        Purpose::McpServers,
        "MCP servers (Enter: manage, Esc: close)",
        entries,
    );
    if let Some(name) = select {
        picker.select_value(name);
    }
    picker
}

/// What a server's menu offers (pi 1.6's `serverMenu`, with trusting changed definitions).
fn server_actions(server: &McpServerView) -> Vec<Entry> {
    let saved = if server.override_source.is_some() {
        "saved to the project mcp.json".to_owned()
    } else {
        format!("saved to the {} mcp.json", server.scope)
    };
    let in_project = "saved to the project mcp.json";
    let mut items = Vec::new();
    if server.state == ServerState::Disabled {
        items.push(Entry::choice("enable", "Enable", saved));
        if server.in_project {
            items.push(Entry::choice(
                "enable-project",
                "Enable in this project",
                in_project,
            ));
        }
        return items;
    }
    if server.state == ServerState::Connected {
        items.push(Entry::choice(
            "tools",
            "Tools",
            format!("{} offered", server.tools),
        ));
    }
    if !server.changed_tools.is_empty() {
        items.push(Entry::choice(
            "trust",
            "Trust changed definitions",
            format!("withheld: {}", safe(&server.changed_tools.join(", "))),
        ));
    }
    if server.state != ServerState::Connecting {
        items.push(Entry::choice("reconnect", "Reconnect", ""));
    }
    if server.uses_oauth && server.state == ServerState::NeedsAuth {
        items.push(Entry::choice(
            "signin",
            "Sign in",
            "shows the sign-in URL; the browser finishes it",
        ));
    }
    if server.uses_oauth && server.state == ServerState::Connected {
        items.push(Entry::choice(
            "signout",
            "Sign out",
            "deletes the stored credentials",
        ));
    }
    items.push(Entry::choice(
        "exposure",
        "Exposure",
        server.exposure.as_str(),
    ));
    items.push(Entry::choice("disable", "Disable", saved));
    if server.in_project {
        items.push(Entry::choice(
            "disable-project",
            "Disable in this project",
            in_project,
        ));
    }
    items
}

/// What the list shows, to notice a change.
fn listing_key(servers: &[McpServerView]) -> String {
    servers
        .iter()
        .map(|s| format!("{}={}", s.name, server_detail(s)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Several lines of a server's words, safe for the terminal.
pub(super) fn safe_lines(text: &str) -> String {
    terminal_safe(text, Keep::Lines).into_owned()
}

/// The changed definitions as a diff: per tool, each field that changed, pinned lines with
/// `-`, current ones with `+`.
pub(super) fn diff_text(server: &str, changed: &[ChangedDefinition]) -> String {
    let mut lines = vec![format!(
        "MCP server \"{}\" changed these tool definitions since they were pinned (withheld until trusted):",
        safe(server)
    )];
    for change in changed {
        let Some(pinned) = &change.pinned else {
            lines.push(format!("{} (new since pinned):", safe(&change.tool)));
            for field in ["description", "inputSchema", "annotations"] {
                push_field(&mut lines, field, None, change.current.get(field));
            }
            continue;
        };
        lines.push(format!("{}:", safe(&change.tool)));
        for field in ["name", "description", "inputSchema", "annotations"] {
            let (old, new) = (pinned.get(field), change.current.get(field));
            if old != new {
                push_field(&mut lines, field, old, new);
            }
        }
    }
    lines.join("\n")
}

fn push_field(
    lines: &mut Vec<String>,
    field: &str,
    old: Option<&serde_json::Value>,
    new: Option<&serde_json::Value>,
) {
    let text = |value: Option<&serde_json::Value>| -> Vec<String> {
        match value {
            None | Some(serde_json::Value::Null) => Vec::new(),
            Some(serde_json::Value::String(s)) => s.lines().map(safe).collect(),
            Some(other) => serde_json::to_string_pretty(other)
                .unwrap_or_default()
                .lines()
                .map(safe)
                .collect(),
        }
    };
    let (old, new) = (text(old), text(new));
    if old.is_empty() && new.is_empty() {
        return;
    }
    lines.push(format!("  {field}:"));
    for line in line_diff(&old, &new) {
        lines.push(format!("    {line}"));
    }
}

/// A line diff (longest common subsequence): `  ` kept, `- ` pinned only, `+ ` current only.
fn line_diff(old: &[String], new: &[String]) -> Vec<String> {
    let (n, m) = (old.len(), new.len());
    let mut common = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            common[i][j] = if old[i] == new[j] {
                common[i + 1][j + 1] + 1
            } else {
                common[i + 1][j].max(common[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < n || j < m {
        if i < n && j < m && old[i] == new[j] {
            out.push(format!("  {}", old[i]));
            i += 1;
            j += 1;
        } else if i < n && (j == m || common[i + 1][j] >= common[i][j + 1]) {
            out.push(format!("- {}", old[i]));
            i += 1;
        } else {
            out.push(format!("+ {}", new[j]));
            j += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pi_mcp::Exposure;
    use serde_json::json;
    use std::path::PathBuf;

    fn server(name: &str, state: ServerState) -> McpServerView {
        McpServerView {
            name: name.to_owned(),
            state,
            tools: 2,
            resources: false,
            exposure: Exposure::Direct,
            scope: "global".to_owned(),
            transport: "node server.mjs".to_owned(),
            source: PathBuf::from("/agent/mcp.json"),
            override_source: None,
            in_project: true,
            changed_tools: Vec::new(),
            uses_oauth: false,
        }
    }

    fn render(picker: Picker) -> String {
        let (rows, selected, header) = picker.view();
        let mut out = vec![header];
        for (i, (label, detail)) in rows.iter().enumerate() {
            let mark = if i == selected { ">" } else { " " };
            out.push(format!("{mark} {label:<12} {detail}"));
        }
        out.join("\n")
    }

    #[test]
    fn the_server_list_puts_servers_needing_attention_first() {
        let mut changed = server("pins", ServerState::Connected);
        changed.changed_tools = vec!["describe".to_owned()];
        let servers = vec![
            server("zeta", ServerState::Connected),
            server("off", ServerState::Disabled),
            server(
                "broken\u{1b}[31m",
                ServerState::Failed("spawn nope ENOENT".into()),
            ),
            changed,
            server("slow", ServerState::Connecting),
        ];
        insta::assert_snapshot!(
            "mcp_servers",
            render(servers_picker(&servers, Some("zeta")))
        );
    }

    #[test]
    fn a_server_menu_offers_what_its_state_allows() {
        let mut changed = server("pins", ServerState::Connected);
        changed.changed_tools = vec!["describe".to_owned()];
        let mut locked = server("docs", ServerState::NeedsAuth);
        locked.uses_oauth = true;
        let menu =
            |s: &McpServerView| render(Picker::new(Purpose::McpServer, "menu", server_actions(s)));
        insta::assert_snapshot!(
            "mcp_server_menus",
            [
                menu(&changed),
                menu(&server("off", ServerState::Disabled)),
                menu(&server("slow", ServerState::Connecting)),
                menu(&locked),
            ]
            .join("\n\n")
        );
    }

    #[test]
    fn the_diff_shows_changed_fields_only_and_is_terminal_safe() {
        let changed = vec![
            ChangedDefinition {
                tool: "describe".to_owned(),
                pinned: Some(json!({"name": "describe", "description": "Describes.",
                    "inputSchema": {"type": "object", "properties": {"what": {"type": "string"}}}})),
                current: json!({"name": "describe", "description": "Exfiltrates.\u{1b}]0;x\u{7}",
                    "inputSchema": {"type": "object", "properties": {"what": {"type": "string"}, "to": {"type": "string"}}}}),
            },
            ChangedDefinition {
                tool: "extra".to_owned(),
                pinned: None,
                current: json!({"name": "extra", "description": "Added later."}),
            },
        ];
        let text = diff_text("pins", &changed);
        assert!(!text.contains('\u{1b}'), "{text}");
        insta::assert_snapshot!("mcp_diff", text);
    }
}
