//! The command line: every flag of pi's `pi [options] [@files...] [messages...]`, in one clap
//! definition. The doc comments are the `--help` text.

use clap::{Parser, ValueEnum};
use pi_ai::ThinkingLevel;
use pi_app::permissions::PermissionMode;
use pi_app::startup::StartupOptions;
use std::ffi::OsString;

/// Output mode (`--mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    /// Final answer as plain text (print mode).
    Text,
    /// Session header, then every event as one JSON line.
    Json,
    /// JSON commands on stdin, responses and events on stdout.
    Rpc,
}

/// Examples shown after the options in `--help`.
const EXAMPLES: &str = "Examples:
  pi -p \"List the files here\"        answer once and exit
  echo \"Explain main.rs\" | pi        piped input runs print mode
  pi --mode json \"Fix the tests\"     stream events as JSON lines
  pi --list-models sonnet            models you have credentials for
  pi --export session.jsonl out.html export a session to HTML";

/// pi, a coding agent for the terminal.
#[derive(Debug, Clone, Default, Parser)]
#[command(
    name = "pi",
    after_help = EXAMPLES,
    disable_version_flag = true,
    override_usage = "pi [OPTIONS] [@files...] [messages...]",
    max_term_width = 100
)]
pub struct Args {
    /// Print the version and exit.
    #[arg(short = 'v', long)]
    pub version: bool,

    /// Output mode: text (print), json (event lines) or rpc (commands on stdin).
    #[arg(long, value_enum, value_name = "MODE")]
    pub mode: Option<ModeArg>,

    /// The RPC and JSON dialect: 1.6 (pi 1.6's, the default) or 0.73 (pi 0.73's: no
    /// `disposition` in prompt/steer/follow_up responses, and its event fields).
    #[arg(long, value_enum, value_name = "VERSION", default_value = "1.6")]
    pub rpc_protocol: crate::modes::json::Protocol,

    /// Non-interactive: answer the messages, print the final text and exit.
    #[arg(short = 'p', long)]
    pub print: bool,

    /// Continue the most recent session of this directory.
    #[arg(short = 'c', long = "continue")]
    pub continue_session: bool,

    /// Pick a session to resume (needs the interactive UI).
    #[arg(short = 'r', long)]
    pub resume: bool,

    /// Open a session: a file path, or a session-id prefix.
    #[arg(long, value_name = "PATH|ID")]
    pub session: Option<String>,

    /// Use the session with exactly this id in this project, creating it if missing.
    #[arg(long, value_name = "ID")]
    pub session_id: Option<String>,

    /// Fork a session (path or id prefix) into a new session file.
    #[arg(long, value_name = "PATH|ID")]
    pub fork: Option<String>,

    /// Directory for session files (overrides PI_CODING_AGENT_SESSION_DIR and settings).
    #[arg(long, value_name = "DIR")]
    pub session_dir: Option<String>,

    /// Keep the session in memory only.
    #[arg(long)]
    pub no_session: bool,

    /// Session display name.
    #[arg(short = 'n', long, value_name = "NAME")]
    pub name: Option<String>,

    /// Provider of the model (e.g. anthropic, openai, or one from models.json).
    #[arg(long, value_name = "NAME")]
    pub provider: Option<String>,

    /// Model pattern: an id, `provider/id`, or part of a name; `:level` sets thinking.
    #[arg(long, value_name = "PATTERN")]
    pub model: Option<String>,

    /// API key for this run (not saved).
    #[arg(long, value_name = "KEY")]
    pub api_key: Option<String>,

    /// Thinking level: off, minimal, low, medium, high, xhigh, max.
    #[arg(long, value_name = "LEVEL", value_parser = parse_thinking)]
    pub thinking: Option<ThinkingLevel>,

    /// Models to cycle through (comma-separated patterns, globs allowed, `:level` each).
    #[arg(long, value_name = "PATTERNS", value_delimiter = ',')]
    pub models: Vec<String>,

    /// Only these tools (comma-separated names).
    #[arg(short = 't', long, value_name = "LIST", value_delimiter = ',')]
    pub tools: Option<Vec<String>>,

    /// Disable these tools (comma-separated names). Short form: -xt.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub exclude_tools: Vec<String>,

    /// Disable every tool. Short form: -nt.
    #[arg(long)]
    pub no_tools: bool,

    /// Disable the built-in tools, keep extension tools. Short form: -nbt.
    #[arg(long)]
    pub no_builtin_tools: bool,

    /// Let write and edit change files in this directory too (repeatable). Setting:
    /// tools.writableRoots.
    #[arg(long = "add-dir", value_name = "DIR")]
    pub add_dirs: Vec<String>,

    /// Run bash's commands in a Landlock sandbox (Linux): read-only, workspace-write (writes
    /// only in the workspace, the added directories and the temp dir) or off. Setting:
    /// tools.sandbox (default off).
    #[arg(long, value_name = "MODE", value_parser = ["read-only", "workspace-write", "off"])]
    pub sandbox: Option<String>,

    /// What the agent may do without asking: auto (everything, pi's behaviour), ask-writes,
    /// ask-all, or plan (nothing can change anything). Setting: permissionMode (default auto).
    #[arg(long, value_name = "MODE", value_parser = parse_permission_mode)]
    pub permission_mode: Option<PermissionMode>,

    /// Load the extension in this directory (holding pi-extension.toml), or install one for
    /// this run from npm:pkg[@version], git:host/user/repo[@ref] or a git URL (repeatable).
    #[arg(short = 'e', long = "extension", value_name = "SOURCE")]
    pub extensions: Vec<String>,

    /// Load no extensions except those given with -e. Short form: -ne.
    #[arg(long)]
    pub no_extensions: bool,

    /// Run none of the command hooks of the settings (command-hooks.md). Setting: commandHooks.
    #[arg(long)]
    pub no_command_hooks: bool,

    /// Start no MCP servers this run (mcp.md).
    #[arg(long)]
    pub no_mcp: bool,

    /// Load a skill file or directory (repeatable).
    #[arg(long = "skill", value_name = "PATH")]
    pub skills: Vec<String>,

    /// Load only the skills given with --skill. Short form: -ns.
    #[arg(long)]
    pub no_skills: bool,

    /// Load a prompt template file or directory (repeatable).
    #[arg(long = "prompt-template", value_name = "PATH")]
    pub prompt_templates: Vec<String>,

    /// Load only the templates given with --prompt-template. Short form: -np.
    #[arg(long)]
    pub no_prompt_templates: bool,

    /// Do not read AGENTS.md / CLAUDE.md files. Short form: -nc.
    #[arg(long)]
    pub no_context_files: bool,

    /// A theme file to offer (repeatable).
    #[arg(long = "theme", value_name = "PATH")]
    pub themes: Vec<String>,

    /// The theme for this run (a name or a file), instead of the `theme` setting.
    #[arg(long, value_name = "NAME")]
    pub use_theme: Option<String>,

    /// Load no theme files (the built-in dark and light stay).
    #[arg(long)]
    pub no_themes: bool,

    /// Replace the system prompt (text or a file path).
    #[arg(long, value_name = "TEXT|FILE")]
    pub system_prompt: Option<String>,

    /// Append to the system prompt (text or a file path; repeatable).
    #[arg(long, value_name = "TEXT|FILE")]
    pub append_system_prompt: Vec<String>,

    /// List the models you have credentials for (optionally filtered) and exit.
    #[arg(long, value_name = "SEARCH", num_args = 0..=1, default_missing_value = "")]
    pub list_models: Option<String>,

    /// Export a session file to HTML and exit (output path: the next argument).
    #[arg(long, value_name = "SESSION.jsonl")]
    pub export: Option<String>,

    /// No network besides model requests (no version check, no catalog refresh, no probe for
    /// local model servers). Same as PI_OFFLINE=1.
    #[arg(long)]
    pub offline: bool,

    /// Verbose start-up output.
    #[arg(long)]
    pub verbose: bool,

    /// The interactive layout: fullscreen (alternate screen, the default) or regular
    /// (finished messages go to the terminal's scrollback). Setting: tuiMode.
    #[arg(long, value_name = "MODE", value_parser = ["fullscreen", "regular"])]
    pub tui_mode: Option<String>,

    /// Trust the project's local files for this run. Opposite: --no-approve (-na).
    #[arg(short = 'a', long, conflicts_with = "no_approve")]
    pub approve: bool,

    /// Ignore the project's local files for this run.
    #[arg(long)]
    pub no_approve: bool,

    /// Messages; `@path` arguments attach files.
    #[arg(value_name = "MESSAGES", allow_hyphen_values = false)]
    pub messages: Vec<String>,
}

fn parse_thinking(text: &str) -> Result<ThinkingLevel, String> {
    ThinkingLevel::parse(&text.to_ascii_lowercase()).ok_or_else(|| {
        let valid: Vec<&str> = ThinkingLevel::ALL.iter().map(|l| l.as_str()).collect();
        format!("expected one of: {}", valid.join(", "))
    })
}

fn parse_permission_mode(text: &str) -> Result<PermissionMode, String> {
    PermissionMode::parse(text).ok_or_else(|| {
        let valid: Vec<&str> = PermissionMode::ALL.iter().map(|m| m.as_str()).collect();
        format!("expected one of: {}", valid.join(", "))
    })
}

/// pi's multi-letter short flags, which clap cannot declare.
const SHORT_ALIASES: [(&str, &str); 8] = [
    ("-nt", "--no-tools"),
    ("-xt", "--exclude-tools"),
    ("-nbt", "--no-builtin-tools"),
    ("-ne", "--no-extensions"),
    ("-ns", "--no-skills"),
    ("-np", "--no-prompt-templates"),
    ("-nc", "--no-context-files"),
    ("-na", "--no-approve"),
];

/// Rewrites pi's multi-letter short flags to their long form (only before a `--`).
pub fn normalize_argv(argv: impl IntoIterator<Item = OsString>) -> Vec<OsString> {
    let mut out = Vec::new();
    let mut literal = false;
    for arg in argv {
        if literal {
            out.push(arg);
            continue;
        }
        if arg == "--" {
            literal = true;
        }
        let replaced = arg
            .to_str()
            .and_then(|s| SHORT_ALIASES.iter().find(|(short, _)| *short == s))
            .map(|(_, long)| OsString::from(*long));
        out.push(replaced.unwrap_or(arg));
    }
    out
}

impl Args {
    /// Parses `argv` (program name first).
    pub fn try_parse_argv(argv: impl IntoIterator<Item = OsString>) -> Result<Args, clap::Error> {
        Args::try_parse_from(normalize_argv(argv))
    }

    /// `--approve` → `Some(true)`, `--no-approve` → `Some(false)`.
    /// What start-up needs of the command line.
    pub fn startup_options(&self) -> StartupOptions {
        StartupOptions {
            approve: self.approve_override(),
            continue_session: self.continue_session,
            resume: self.resume,
            resume_picker: false,
            session: self.session.clone(),
            session_id: self.session_id.clone(),
            fork: self.fork.clone(),
            session_dir: self.session_dir.clone(),
            no_session: self.no_session,
            name: self.name.clone(),
            provider: self.provider.clone(),
            model: self.model.clone(),
            api_key: self.api_key.clone(),
            thinking: self.thinking,
            models: self.models.clone(),
            tools: self.tools.clone(),
            exclude_tools: self.exclude_tools.clone(),
            no_tools: self.no_tools,
            no_builtin_tools: self.no_builtin_tools,
            add_dirs: self.add_dirs.clone(),
            sandbox: self.sandbox.clone(),
            permission_mode: self.permission_mode,
            extensions: self.extensions.clone(),
            no_extensions: self.no_extensions,
            skills: self.skills.clone(),
            no_skills: self.no_skills,
            prompt_templates: self.prompt_templates.clone(),
            no_prompt_templates: self.no_prompt_templates,
            no_context_files: self.no_context_files,
            system_prompt: self.system_prompt.clone(),
            append_system_prompt: self.append_system_prompt.clone(),
            offline: self.offline || offline_env(),
            no_command_hooks: self.no_command_hooks,
            no_mcp: self.no_mcp,
            command_hooks_can_ask: false,
        }
    }

    pub fn approve_override(&self) -> Option<bool> {
        if self.approve {
            Some(true)
        } else if self.no_approve {
            Some(false)
        } else {
            None
        }
    }

    /// `@file` arguments (without the `@`).
    pub fn file_args(&self) -> Vec<&str> {
        self.messages
            .iter()
            .filter_map(|m| m.strip_prefix('@'))
            .collect()
    }

    /// Message arguments that are not `@file`s.
    pub fn text_messages(&self) -> Vec<&str> {
        self.messages
            .iter()
            .filter(|m| !m.starts_with('@'))
            .map(String::as_str)
            .collect()
    }
}

/// `PI_OFFLINE` set to anything but empty, `0` or `false` means `--offline`.
fn offline_env() -> bool {
    std::env::var("PI_OFFLINE")
        .is_ok_and(|v| !matches!(v.trim().to_ascii_lowercase().as_str(), "" | "0" | "false"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Args, clap::Error> {
        Args::try_parse_argv(
            std::iter::once("pi")
                .chain(args.iter().copied())
                .map(OsString::from),
        )
    }

    #[test]
    fn multi_letter_shorts_and_lists() {
        let args = parse(&["-nt", "-xt", "bash,edit", "-p", "hi", "@a.txt"]).unwrap();
        assert!(args.no_tools && args.print);
        assert_eq!(args.exclude_tools, ["bash", "edit"]);
        assert_eq!(args.file_args(), ["a.txt"]);
        assert_eq!(args.text_messages(), ["hi"]);
    }

    #[test]
    fn list_models_optional_value() {
        assert_eq!(
            parse(&["--list-models"]).unwrap().list_models.as_deref(),
            Some("")
        );
        assert_eq!(
            parse(&["--list-models", "son"])
                .unwrap()
                .list_models
                .as_deref(),
            Some("son")
        );
    }

    #[test]
    fn bad_values_are_usage_errors() {
        for bad in [
            vec!["--thinking", "extreme"],
            vec!["--mode", "xml"],
            vec!["--frobnicate"],
            vec!["-a", "-na"],
        ] {
            let err = parse(&bad).unwrap_err();
            assert_eq!(err.exit_code(), 2, "{bad:?}");
        }
        assert_eq!(
            parse(&["--thinking", "HIGH"]).unwrap().thinking,
            Some(ThinkingLevel::High)
        );
    }
}
