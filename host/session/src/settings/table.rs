//! The one table of settings names, defaults and descriptions. The UI's `/settings` screen lists
//! the entries that have a [`Choice`], in this order.

use super::choices::{DoubleEscapeAction, QuietStartup, TuiMode, queue_mode};
use super::keys::Settings;
use pi_agent::QueueMode;

/// A setting: its key as written in `settings.json` (dotted inside objects), its default as
/// text (empty: none) and what it does.
#[derive(Debug, Clone, Copy)]
pub struct SettingInfo {
    pub key: &'static str,
    pub default: &'static str,
    pub description: &'static str,
    /// Set for the settings `/settings` edits in place.
    pub choice: Option<Choice>,
}

/// The values a setting cycles through in `/settings` (the first is the default), and how to
/// read and write it in a layer.
#[derive(Debug, Clone, Copy)]
pub struct Choice {
    pub values: &'static [&'static str],
    /// The value the settings hold (`None`: unset).
    pub get: fn(&Settings) -> Option<String>,
    /// Sets one of `values`.
    pub set: fn(&mut Settings, &str),
}

impl SettingInfo {
    /// The value `settings` give this setting, as text (the default when unset).
    pub fn current(&self, settings: &Settings) -> String {
        self.choice
            .and_then(|choice| (choice.get)(settings))
            .unwrap_or_else(|| self.default.to_owned())
    }
}

/// The settings table entry for `key`.
pub fn setting_info(key: &str) -> Option<&'static SettingInfo> {
    SETTINGS_TABLE.iter().find(|info| info.key == key)
}

const fn plain(key: &'static str, default: &'static str, description: &'static str) -> SettingInfo {
    SettingInfo {
        key,
        default,
        description,
        choice: None,
    }
}

const BOOL_FALSE_FIRST: &[&str] = &["false", "true"];
const BOOL_TRUE_FIRST: &[&str] = &["true", "false"];
const QUEUE_MODES: &[&str] = &["one-at-a-time", "all"];

fn mode(text: &str) -> QueueMode {
    if text == "all" {
        QueueMode::All
    } else {
        QueueMode::OneAtATime
    }
}

fn text(flag: Option<bool>) -> Option<String> {
    flag.map(|b| b.to_string())
}

/// Every key pi 1.6 and this pi read or keep.
pub const SETTINGS_TABLE: &[SettingInfo] = &[
    SettingInfo {
        key: "theme",
        default: "dark",
        description: "Colours (JSON themes: the theme setting)",
        choice: Some(Choice {
            values: &["dark", "light"],
            get: |s| s.theme.clone(),
            set: |s, v| s.theme = Some(v.to_owned()),
        }),
    },
    SettingInfo {
        key: "hideThinkingBlock",
        default: "false",
        description: "Start with thinking collapsed",
        choice: Some(Choice {
            values: BOOL_FALSE_FIRST,
            get: |s| text(s.hide_thinking_block),
            set: |s, v| s.hide_thinking_block = Some(v == "true"),
        }),
    },
    SettingInfo {
        key: "steeringMode",
        default: "one-at-a-time",
        description: "How queued steering messages are sent",
        choice: Some(Choice {
            values: QUEUE_MODES,
            get: |s| s.steering_mode.map(|m| queue_mode::name(m).to_owned()),
            set: |s, v| s.steering_mode = Some(mode(v)),
        }),
    },
    SettingInfo {
        key: "followUpMode",
        default: "one-at-a-time",
        description: "How queued follow-ups are sent",
        choice: Some(Choice {
            values: QUEUE_MODES,
            get: |s| s.follow_up_mode.map(|m| queue_mode::name(m).to_owned()),
            set: |s, v| s.follow_up_mode = Some(mode(v)),
        }),
    },
    SettingInfo {
        key: "compaction.enabled",
        default: "true",
        description: "Compact when the context fills",
        choice: Some(Choice {
            values: BOOL_TRUE_FIRST,
            get: |s| text(s.compaction.as_ref().and_then(|c| c.enabled)),
            set: |s, v| s.compaction_mut().enabled = Some(v == "true"),
        }),
    },
    SettingInfo {
        key: "retry.enabled",
        default: "true",
        description: "Retry failed requests",
        choice: Some(Choice {
            values: BOOL_TRUE_FIRST,
            get: |s| text(s.retry.as_ref().and_then(|r| r.enabled)),
            set: |s, v| s.retry_mut().enabled = Some(v == "true"),
        }),
    },
    SettingInfo {
        key: "doubleEscapeAction",
        default: "tree",
        description: "What Esc twice does",
        choice: Some(Choice {
            values: &["tree", "fork", "rewind", "none"],
            get: |s| s.double_escape_action.map(|a| a.as_str().to_owned()),
            set: |s, v| s.double_escape_action = DoubleEscapeAction::parse(v),
        }),
    },
    SettingInfo {
        key: "tuiMode",
        default: "fullscreen",
        description: "The layout (from the next start)",
        choice: Some(Choice {
            values: &["fullscreen", "regular"],
            get: |s| s.tui_mode.map(|m| m.as_str().to_owned()),
            set: |s, v| s.tui_mode = TuiMode::parse(v),
        }),
    },
    SettingInfo {
        key: "quietStartup",
        default: "false",
        description: "Hide the start-up header (from the next start)",
        choice: Some(Choice {
            values: BOOL_FALSE_FIRST,
            get: |s| match s.quiet_startup {
                Some(QuietStartup::Flag(flag)) => Some(flag.to_string()),
                Some(QuietStartup::Header(_)) => Some("header".to_owned()),
                None => None,
            },
            set: |s, v| s.quiet_startup = Some(QuietStartup::Flag(v == "true")),
        }),
    },
    plain(
        "defaultProvider",
        "",
        "The provider a new session starts on",
    ),
    plain(
        "defaultModel",
        "",
        "The model a new session starts on (Ctrl+S in /model)",
    ),
    plain(
        "defaultThinkingLevel",
        "",
        "off, minimal, low, medium, high, xhigh or max",
    ),
    plain(
        "modelThinkingLevels",
        "",
        "A thinking level per model (provider/id)",
    ),
    plain(
        "enabledModels",
        "",
        "The models Ctrl+P cycles through (patterns as --models)",
    ),
    plain(
        "probeLocalServers",
        "true",
        "Look for local OpenAI-compatible servers",
    ),
    plain(
        "minOAuthValidityMs",
        "300000",
        "Refresh an OAuth login when less remains",
    ),
    plain(
        "httpIdleTimeoutMs",
        "300000",
        "Give up on a silent response; 0 or \"disabled\": never",
    ),
    plain(
        "websocketConnectTimeoutMs",
        "15000",
        "WebSocket connect timeout (not used: SSE only)",
    ),
    plain(
        "transport",
        "auto",
        "sse, websocket, websocket-cached or auto (not used: SSE only)",
    ),
    plain(
        "httpProxy",
        "",
        "Proxy for every request (global file only)",
    ),
    plain(
        "cacheWarming",
        "idle",
        "Prompt-cache warming: off, streaming or idle",
    ),
    plain(
        "showCacheMissNotices",
        "false",
        "Say when a prompt cache was missed",
    ),
    plain(
        "thinkingBudgets",
        "",
        "Thinking tokens per level (minimal, low, medium, high)",
    ),
    plain("sessionDir", "", "Where session files go"),
    plain(
        "sessionShareDestination",
        "auto",
        "Where /share uploads: auto, gist or radius",
    ),
    plain(
        "compaction.reserveTokens",
        "16384",
        "Room kept free for the answer",
    ),
    plain(
        "compaction.keepRecentTokens",
        "20000",
        "Recent conversation a compaction keeps",
    ),
    plain(
        "compaction.modelOverrides",
        "",
        "Compaction sizes per model (provider/id)",
    ),
    plain(
        "branchSummary.reserveTokens",
        "16384",
        "Room kept free when summarising a branch",
    ),
    plain(
        "branchSummary.skipPrompt",
        "false",
        "Skip the \"Summarize branch?\" question",
    ),
    plain("retry.maxRetries", "3", "Retries per prompt"),
    plain(
        "retry.baseDelayMs",
        "2000",
        "First retry delay, doubled each retry",
    ),
    plain(
        "retry.maxAgentDelayMs",
        "60000",
        "Longest delay between agent retries",
    ),
    plain(
        "retry.provider.timeoutMs",
        "",
        "A per-request timeout at the HTTP level",
    ),
    plain("retry.provider.maxRetries", "0", "HTTP-level retries"),
    plain(
        "retry.provider.maxRetryDelayMs",
        "60000",
        "Longest server-requested delay; 0: no cap",
    ),
    plain(
        "externalEditor",
        "",
        "The command Ctrl+G runs (else $VISUAL, $EDITOR)",
    ),
    plain(
        "autocompleteMaxVisible",
        "5",
        "Rows of the completion list (3-20)",
    ),
    plain("editorPaddingX", "0", "Editor padding (0-3)"),
    plain("outputPad", "1", "Padding around output (0 or 1)"),
    plain("showHardwareCursor", "false", "Show the terminal's cursor"),
    plain("treeFilterMode", "default", "The tree's first filter"),
    plain("collapseChangelog", "false", "Show the changelog collapsed"),
    plain("fullscreenScrollbar", "auto", "auto, always or hidden"),
    plain(
        "fullscreenExitOutput",
        "transcript",
        "What fullscreen leaves on exit",
    ),
    plain("fullscreenCopyOnSelect", "true", "Copy a mouse selection"),
    plain(
        "fullscreenWheelScrollLines",
        "auto",
        "Lines per wheel step (1-100 or auto)",
    ),
    plain(
        "terminal.showImages",
        "true",
        "Draw images inline where the terminal can",
    ),
    plain("terminal.imageWidthCells", "60", "Width of inline images"),
    plain(
        "terminal.clearOnShrink",
        "false",
        "Clear the screen when it shrinks",
    ),
    plain(
        "terminal.showTerminalProgress",
        "false",
        "Report progress to the terminal (OSC 9;4)",
    ),
    plain("terminal.hyperlinks", "auto", "Write hyperlinks"),
    plain("terminal.images", "auto", "kitty, iterm2, auto or false"),
    plain("terminal.trueColor", "auto", "Use 24-bit colour"),
    plain("markdown.codeBlockIndent", "  ", "Indent of code blocks"),
    plain(
        "markdown.mermaid",
        "streaming",
        "Mermaid diagrams: off, final or streaming",
    ),
    plain(
        "warnings.anthropicExtraUsage",
        "true",
        "Warn about Anthropic extra usage",
    ),
    plain(
        "images.autoResize",
        "true",
        "Shrink large images read returns",
    ),
    plain(
        "images.blockImages",
        "false",
        "Never send images to the model",
    ),
    plain("shellPath", "", "The shell bash runs commands with"),
    plain("shellCommandPrefix", "", "A line put before every command"),
    plain("npmCommand", "", "The command line for npm"),
    plain("selfUpdateCommand", "", "The command line pi update runs"),
    plain("defaultTools", "", "The tools a session starts with"),
    plain("codemode.mode", "", "Code mode: on or only"),
    plain("codemode.inlineBudget", "3000", "Code mode's inline budget"),
    plain(
        "tools.pathScope",
        "default",
        "Where file tools may go: workspace, default, anywhere",
    ),
    plain(
        "tools.writableRoots",
        "",
        "More directories write and edit may change",
    ),
    plain(
        "tools.sandbox",
        "off",
        "bash's sandbox: off, read-only or workspace-write",
    ),
    plain(
        "tools.sandboxNetwork",
        "true",
        "Whether sandboxed commands may use the network",
    ),
    plain(
        "permissionMode",
        "auto",
        "Permission mode: auto, ask-writes, ask-all or plan (permissions.md)",
    ),
    plain(
        "hooks",
        "",
        "Command hooks: shell commands run on events (command-hooks.md)",
    ),
    plain(
        "commandHooks",
        "true",
        "Run the command hooks of the settings",
    ),
    plain(
        "packages",
        "",
        "Installed packages (pi ext install writes it)",
    ),
    plain("extensions", "", "Extension folders to load"),
    plain("skills", "", "More skill folders"),
    plain("prompts", "", "More prompt-template folders"),
    plain("themes", "", "More theme files"),
    plain(
        "enableSkillCommands",
        "true",
        "Offer and run /skill:name commands",
    ),
    plain(
        "defaultProjectTrust",
        "ask",
        "ask, always or never (global file only)",
    ),
    plain(
        "lastChangelogVersion",
        "",
        "Internal: the last changelog shown",
    ),
    plain(
        "extensionChangelogVersions",
        "",
        "Internal: extension changelogs shown",
    ),
    plain("enableInstallTelemetry", "true", "Report installs"),
    plain("enableAnalytics", "false", "Send analytics"),
    plain("trackingId", "", "Internal: analytics id"),
    plain("deviceId", "", "Internal: device id"),
    plain("$schema", "", "The schema of the file"),
];
