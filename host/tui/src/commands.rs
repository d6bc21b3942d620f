//! The slash commands the UI runs itself, and `!cmd` / `!!cmd` shell commands. A `/word` that
//! names no command, skill or prompt template is reported and never sent to the model; a first
//! word holding another `/` (`/etc/hosts`) is ordinary text.

use pi_ai::ThinkingLevel;
use pi_app::App;
use pi_app::permissions::PermissionMode;
use pi_app::subagents::{AgentDefinitions, AgentSource};

/// The built-in commands, with what they do (offered after `/`).
pub use pi_app::BUILTIN_COMMANDS as BUILTIN;

/// What a command asks of the UI.
#[derive(Debug, PartialEq)]
pub enum Command {
    /// Not a command of the UI's: send the text as a prompt.
    NotMine,
    /// Done; say this (a notice, `true` for an error).
    Say(String, bool),
    Quit,
    Compact(Option<String>),
    /// The session was replaced (`/new`, `/clone`): draw it again.
    Reloaded(String),
    /// Open the list of earlier prompts (`true`: fork from the one chosen).
    PickPrompt(bool),
    /// Run a shell command (`exclude`: keep it out of the model's context).
    Bash {
        command: String,
        exclude: bool,
    },
    CopyLastAnswer,
    Hotkeys,
    PickModel,
    PickSession,
    /// `/login [provider]`: ask for its API key (choose the provider first when not given).
    Login(Option<String>),
    /// `/logout [provider]`.
    Logout(Option<String>),
    /// `/trust [yes|no]`: save the project trust decision.
    Trust(bool),
    /// `/settings`: the settings editor.
    Settings,
    /// `/tree`: the session tree navigator.
    Tree,
    /// `/rewind`: the prompts to put the files and the conversation back to.
    Rewind,
    /// `/import <file>`: copy a session file in and continue it.
    Import(String),
    /// `/scoped-models`: choose the models Ctrl+P cycles through.
    ScopedModels,
    /// `/reload`: skills, prompt templates, context files, keybindings and the theme again.
    Reload,
    /// `/mode` without a name: choose the permission mode.
    PickMode,
    /// `/mcp [args]` (a run with MCP on).
    Mcp(String),
}

/// What `text` (a submitted prompt) is.
pub fn parse(text: &str, app: &App) -> Command {
    if let Some(rest) = text.strip_prefix("!!") {
        return bash(rest, true);
    }
    if let Some(rest) = text.strip_prefix('!') {
        return bash(rest, false);
    }
    let Some(body) = text.strip_prefix('/') else {
        return Command::NotMine;
    };
    let (name, rest) = body.split_once(char::is_whitespace).unwrap_or((body, ""));
    if name.contains('/') || name.is_empty() {
        return Command::NotMine;
    }
    let rest = rest.trim();
    match name {
        "quit" | "exit" => Command::Quit,
        "compact" => Command::Compact((!rest.is_empty()).then(|| rest.to_owned())),
        "name" => name_session(rest, app),
        "session" => Command::Say(session_text(app), false),
        "new" => reloaded(app.new_session(None), "Started a new session."),
        "clone" => reloaded(app.clone_session(), "Cloned the branch into a new session."),
        "fork" => Command::PickPrompt(true),
        "tree" => Command::Tree,
        "rewind" => Command::Rewind,
        "export" => export(rest, app),
        "copy" => Command::CopyLastAnswer,
        "model" if rest.contains('/') => model(rest, app),
        "model" => Command::PickModel,
        "thinking" => thinking(rest, app),
        "mode" if rest.is_empty() => Command::PickMode,
        "mode" => permission_mode(rest, app),
        "grants" => grants(rest, app),
        "agents" => Command::Say(agents_text(&app.agent_definitions()), false),
        "hotkeys" => Command::Hotkeys,
        "settings" => Command::Settings,
        "scoped-models" => Command::ScopedModels,
        "reload" => Command::Reload,
        "import" if rest.is_empty() => Command::Say("Usage: /import <file.jsonl>".into(), true),
        "import" => Command::Import(rest.to_owned()),
        "resume" => Command::PickSession,
        "trust" => match rest {
            "" | "yes" | "on" | "true" => Command::Trust(true),
            "no" | "off" | "false" => Command::Trust(false),
            _ => Command::Say("Usage: /trust [yes|no]".into(), true),
        },
        "login" => Command::Login((!rest.is_empty()).then(|| rest.to_owned())),
        "logout" => Command::Logout((!rest.is_empty()).then(|| rest.to_owned())),
        "help" => Command::Say(help(app), false),
        "mcp" if app.mcp().is_some() => Command::Mcp(rest.to_owned()),
        _ if name.starts_with("skill:") && !skill_commands(app) => Command::Say(
            format!("/{name}: skill commands are off (enableSkillCommands); nothing was sent"),
            true,
        ),
        _ if is_resource(name, app) => Command::NotMine,
        _ => Command::Say(
            format!("Unknown command: /{name} (nothing was sent; /help lists the commands)"),
            true,
        ),
    }
}

fn bash(command: &str, exclude: bool) -> Command {
    let command = command.trim();
    if command.is_empty() {
        return Command::Say(
            "Usage: !command (or !!command to keep it out of the context)".into(),
            true,
        );
    }
    Command::Bash {
        command: command.to_owned(),
        exclude,
    }
}

/// `enableSkillCommands` (default on).
pub fn skill_commands(app: &App) -> bool {
    app.skill_commands_enabled()
}

/// A skill (`skill:name`) or prompt template the session expands itself.
fn is_resource(name: &str, app: &App) -> bool {
    app.commands().iter().any(|c| c.name == name)
}

fn name_session(rest: &str, app: &App) -> Command {
    if rest.is_empty() {
        return match app.with_session(|s| s.session_name()) {
            Some(name) => Command::Say(format!("Session name: {name}"), false),
            None => Command::Say("Usage: /name <name>".into(), false),
        };
    }
    match app.set_session_name(rest) {
        Ok(()) => Command::Say(
            format!("Session named \"{}\".", rest.replace('\n', " ")),
            false,
        ),
        Err(error) => Command::Say(error.to_string(), true),
    }
}

fn reloaded(result: Result<(), pi_app::AppError>, done: &str) -> Command {
    match result {
        Ok(()) => Command::Reloaded(done.to_owned()),
        Err(error) => Command::Say(error.to_string(), true),
    }
}

fn session_text(app: &App) -> String {
    let stats = app.session_stats();
    let file = stats
        .session_file
        .map_or_else(|| "(not saved)".to_owned(), |p| p.display().to_string());
    let name = app.with_session(|s| s.session_name());
    let t = stats.tokens;
    let mut lines = Vec::new();
    if let Some(name) = name {
        lines.push(format!("Name: {name}"));
    }
    lines.extend([
        format!("File: {file}"),
        format!("ID: {}", stats.session_id),
        format!(
            "Messages: {} user, {} assistant, {} tool calls, {} tool results, {} in all",
            stats.user_messages,
            stats.assistant_messages,
            stats.tool_calls,
            stats.tool_results,
            stats.total_messages
        ),
        format!(
            "Tokens: {} in, {} out, {} cache read, {} cache write, {} in all",
            t.input, t.output, t.cache_read, t.cache_write, t.total
        ),
        format!("Cost: ${:.4}", stats.cost),
    ]);
    lines.join("\n")
}

/// `/export [file]`: HTML, or the session file itself for a `.jsonl` path.
fn export(rest: &str, app: &App) -> Command {
    let path = (!rest.is_empty()).then(|| std::path::PathBuf::from(rest));
    if let Some(target) = path
        .as_ref()
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
    {
        let Some(source) = app.session_stats().session_file else {
            return Command::Say(
                "This session is not saved to a file (--no-session)".into(),
                true,
            );
        };
        return match std::fs::copy(&source, target) {
            Ok(_) => Command::Say(format!("Exported to {}", target.display()), false),
            Err(error) => Command::Say(format!("Cannot write {}: {error}", target.display()), true),
        };
    }
    match app.export_html(path) {
        Ok(written) => Command::Say(format!("Exported to {}", written.display()), false),
        Err(error) => Command::Say(error.to_string(), true),
    }
}

/// `/model provider/id` switches at once; the selector comes with the session commands.
fn model(rest: &str, app: &App) -> Command {
    let Some((provider, id)) = rest.split_once('/') else {
        let current = app.model();
        return Command::Say(
            format!(
                "Model: {}/{} (usage: /model <provider>/<model>)",
                current.provider, current.id
            ),
            false,
        );
    };
    match app.set_model(provider, id) {
        Ok(model) => Command::Say(format!("Model: {}/{}", model.provider, model.id), false),
        Err(error) => Command::Say(error.to_string(), true),
    }
}

fn thinking(rest: &str, app: &App) -> Command {
    let levels: Vec<&str> = app
        .available_thinking_levels()
        .iter()
        .map(|l| l.as_str())
        .collect();
    let Some(level) = ThinkingLevel::parse(&rest.to_ascii_lowercase()) else {
        return Command::Say(
            format!(
                "Thinking: {} (usage: /thinking <{}>)",
                app.thinking_level().as_str(),
                levels.join("|")
            ),
            !rest.is_empty(),
        );
    };
    match app.set_thinking_level(level) {
        Ok(set) => Command::Say(format!("Thinking: {}", set.as_str()), false),
        Err(error) => Command::Say(error.to_string(), true),
    }
}

/// `/mode <name>`: switches at once; the next tool call is gated by it.
fn permission_mode(rest: &str, app: &App) -> Command {
    match PermissionMode::parse(&rest.to_ascii_lowercase()) {
        Some(mode) => {
            app.set_permission_mode(mode);
            Command::Say(format!("Permission mode: {mode}"), false)
        }
        None => {
            let names: Vec<&str> = PermissionMode::ALL.iter().map(|m| m.as_str()).collect();
            Command::Say(
                format!(
                    "Unknown permission mode \"{rest}\": use one of {}",
                    names.join(", ")
                ),
                true,
            )
        }
    }
}

/// `/grants`: who may do what without asking; `/grants revoke <id>` removes a rule.
fn grants(rest: &str, app: &App) -> Command {
    match rest.split_whitespace().collect::<Vec<_>>()[..] {
        [] => Command::Say(app.grants_overview().join("\n"), false),
        ["revoke", id] => match app.revoke_rule(id) {
            Ok(rule) => Command::Say(
                format!(
                    "Revoked {} ({} rule): {}",
                    rule.id,
                    rule.scope.as_str(),
                    rule.describe()
                ),
                false,
            ),
            Err(error) => Command::Say(format!("Cannot revoke {id}: {error}"), true),
        },
        _ => Command::Say("Usage: /grants [revoke <id>]".into(), true),
    }
}

/// `/agents`: each definition with its source, description and file, then the warnings of
/// the last look for them.
pub fn agents_text(definitions: &AgentDefinitions) -> String {
    let mut lines = Vec::new();
    if definitions.is_empty() {
        lines.push(
            "No agents defined (markdown files in <agentDir>/agents/, .pi/agents/ of a trusted \
             project, or an extension package's agents)."
                .to_owned(),
        );
    } else {
        lines.push(format!("Agents ({}):", definitions.agents.len()));
    }
    let width = definitions
        .agents
        .iter()
        .map(|a| a.name.chars().count())
        .max()
        .unwrap_or(0);
    for agent in &definitions.agents {
        let source = match &agent.source {
            AgentSource::User => "user".to_owned(),
            AgentSource::Project => "project".to_owned(),
            AgentSource::Package(name) => format!("package {name}"),
        };
        let description = agent.description.lines().next().unwrap_or("");
        lines.push(format!(
            "  {:<width$}  [{source}] {description}",
            agent.name
        ));
        lines.push(format!("  {:<width$}  {}", "", agent.path.display()));
    }
    if !definitions.warnings.is_empty() {
        lines.push("Warnings:".to_owned());
        lines.extend(definitions.warnings.iter().map(|w| format!("  {w}")));
    }
    lines.join("\n")
}

fn help(app: &App) -> String {
    let mut lines: Vec<String> = BUILTIN
        .iter()
        .map(|(name, what)| format!("/{name:<10} {what}"))
        .collect();
    lines.push(
        "!cmd       Run a shell command; its output joins the context (!!cmd: it does not)".into(),
    );
    // Extensions' commands, each with the package that serves it (their words are the
    // package's: the transcript sanitises them like every extension string).
    for command in app.extension_commands() {
        let hint = command.info.argument_hint.as_deref().unwrap_or("");
        let name = format!("{} {hint}", command.info.name);
        lines.push(format!(
            "/{:<10} {} ({})",
            name.trim_end(),
            command.info.description,
            command.source
        ));
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::agents_text;
    use pi_app::subagents::{AgentDefinition, AgentDefinitions, AgentSource};

    fn agent(name: &str, description: &str, source: AgentSource, path: &str) -> AgentDefinition {
        AgentDefinition {
            name: name.into(),
            description: description.into(),
            tools: None,
            model: None,
            mode: None,
            system_prompt: String::new(),
            source,
            path: path.into(),
        }
    }

    #[test]
    fn agents_lists_each_definition_with_its_source_and_the_warnings() {
        let definitions = AgentDefinitions {
            agents: vec![
                agent(
                    "scout",
                    "Fast codebase recon\nthat returns compressed context",
                    AgentSource::User,
                    "/home/u/.pi/agent/agents/scout.md",
                ),
                agent(
                    "planner",
                    "Creates implementation plans",
                    AgentSource::Project,
                    "/src/demo/.pi/agents/planner.md",
                ),
                agent(
                    "reviewer",
                    "Reviews a diff",
                    AgentSource::Package("review-kit".into()),
                    "/pkgs/review-kit/agents/reviewer.md",
                ),
            ],
            warnings: vec!["/src/demo/.pi/agents/bad.md: no description; skipped".into()],
        };
        insta::assert_snapshot!(agents_text(&definitions));
    }
}
