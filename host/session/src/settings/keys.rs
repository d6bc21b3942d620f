//! The keys of `settings.json` as pi 1.6 defines them (its settings schema), plus this pi's
//! own (`probeLocalServers`, `minOAuthValidityMs`, `tools`).
//!
//! Every key is an `Option`: `None` is "the user did not set it", so a save writes only what
//! the user chose. Every object keeps the keys this version does not know in `extra`, so a
//! file written by a newer pi is written back with them unchanged.

use super::choices::{
    CacheWarming, CodemodeMode, DefaultProjectTrust, DoubleEscapeAction, FullscreenExitOutput,
    FullscreenScrollbar, IdleTimeout, Mermaid, OutputPad, QuietStartup, SessionShareDestination,
    Switch, TerminalImages, Transport, TreeFilterMode, TuiMode, WheelScrollLines,
};
use pi_agent::QueueMode;
use pi_ai::ThinkingLevel;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// One settings file (a layer), or the merge of both.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    #[serde(rename = "$schema", skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_changelog_version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extension_changelog_versions: Option<BTreeMap<String, String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_provider: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_thinking_level: Option<ThinkingLevel>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_thinking_levels: Option<BTreeMap<String, ThinkingLevel>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transport: Option<Transport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_share_destination: Option<SessionShareDestination>,
    #[serde(
        default,
        with = "super::choices::queue_mode",
        skip_serializing_if = "Option::is_none"
    )]
    pub steering_mode: Option<QueueMode>,
    #[serde(
        default,
        with = "super::choices::queue_mode",
        skip_serializing_if = "Option::is_none"
    )]
    pub follow_up_mode: Option<QueueMode>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compaction: Option<Compaction>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch_summary: Option<BranchSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry: Option<Retry>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hide_thinking_block: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub show_cache_miss_notices: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub external_editor: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shell_path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quiet_startup: Option<QuietStartup>,
    /// Global file only: a project cannot trust itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_project_trust: Option<DefaultProjectTrust>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shell_command_prefix: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub npm_command: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub self_update_command: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub collapse_changelog: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enable_install_telemetry: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enable_analytics: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tracking_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub packages: Option<Vec<PackageEntry>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skills: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompts: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub themes: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enable_skill_commands: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terminal: Option<Terminal>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub images: Option<Images>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enabled_models: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_tools: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub double_escape_action: Option<DoubleEscapeAction>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tree_filter_mode: Option<TreeFilterMode>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking_budgets: Option<ThinkingBudgets>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub editor_padding_x: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_pad: Option<OutputPad>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub autocomplete_max_visible: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub show_hardware_cursor: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub markdown: Option<Markdown>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warnings: Option<Warnings>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub codemode: Option<Codemode>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_dir: Option<String>,
    /// Global file only: a project cannot send the requests through a proxy of its choosing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http_proxy: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http_idle_timeout_ms: Option<IdleTimeout>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_warming: Option<CacheWarming>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub websocket_connect_timeout_ms: Option<IdleTimeout>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tui_mode: Option<TuiMode>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fullscreen_exit_output: Option<FullscreenExitOutput>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fullscreen_scrollbar: Option<FullscreenScrollbar>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fullscreen_copy_on_select: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fullscreen_wheel_scroll_lines: Option<WheelScrollLines>,
    /// This pi: look for local OpenAI-compatible servers when there are no credentials.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probe_local_servers: Option<bool>,
    /// This pi: refresh an OAuth login when less than this remains.
    #[serde(rename = "minOAuthValidityMs", skip_serializing_if = "Option::is_none")]
    pub min_oauth_validity_ms: Option<u64>,
    /// This pi: what the built-in tools may touch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<Tools>,
    /// Command hooks (Claude Code's and codex's shape): event name → matcher groups.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hooks: Option<BTreeMap<String, Vec<HookGroup>>>,
    /// This pi: whether the command hooks run at all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command_hooks: Option<bool>,
    /// pi's `exposeSessionEnvironment` bash option, as a setting: whether `bash` commands get
    /// the `PI_*` session variables.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expose_session_environment: Option<bool>,
    /// This pi: whether tools' file changes are recorded for `/rewind` (`docs/rewind.md`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoints: Option<bool>,
    /// This pi: the permission mode (`auto`, `ask-writes`, `ask-all`, `plan`). Checked by
    /// start-up.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permission_mode: Option<String>,
    /// This pi: how `subagent` calls run their children.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subagents: Option<Subagents>,
    /// Keys this version does not know, in the file's order.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `compaction`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Compaction {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reserve_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keep_recent_tokens: Option<u64>,
    /// Per model (`provider/id`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_overrides: Option<BTreeMap<String, CompactionOverride>>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `compaction.modelOverrides.<model>`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactionOverride {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reserve_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keep_recent_tokens: Option<u64>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `branchSummary`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BranchSummary {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reserve_tokens: Option<u64>,
    /// Not read: this pi never asks "Summarize branch?" (the tree's Enter and Alt+Enter choose).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skip_prompt: Option<bool>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `retry` (agent-level retry).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Retry {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_retries: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_delay_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_agent_delay_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<ProviderRetry>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `retry.provider` (HTTP-level retry).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderRetry {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_retries: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_retry_delay_ms: Option<u64>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `terminal`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Terminal {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub show_images: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image_width_cells: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clear_on_shrink: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub show_terminal_progress: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hyperlinks: Option<Switch>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub images: Option<TerminalImages>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub true_color: Option<Switch>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `images`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Images {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_resize: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block_images: Option<bool>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `thinkingBudgets`: tokens per level.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThinkingBudgets {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub minimal: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub low: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub medium: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub high: Option<u64>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `markdown`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Markdown {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code_block_indent: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mermaid: Option<Mermaid>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `warnings`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Warnings {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anthropic_extra_usage: Option<bool>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `codemode`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Codemode {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<CodemodeMode>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inline_budget: Option<u64>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `tools` (this pi). The scope and sandbox stay text: start-up refuses an unknown value
/// with its own message rather than quietly running without the limit the user asked for.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tools {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path_scope: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub writable_roots: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox_network: Option<bool>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `subagents` (this pi).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Subagents {
    /// How many children of one call run at once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_parallel: Option<u32>,
    /// How long one child may run before it is stopped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A matcher group of `hooks.<event>`: the commands to run for the tools `matcher` names.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HookGroup {
    /// A tool name or a regex over tool names; unset, empty or `*`: every tool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matcher: Option<String>,
    #[serde(default)]
    pub hooks: Vec<HookCommand>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One hook of a matcher group. Only `type: "command"` runs; other types are kept and
/// reported.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HookCommand {
    #[serde(rename = "type", default)]
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Seconds before the command is killed (default 60).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout: Option<u64>,
    /// This pi: a hook that fails (a crash, a wrong path, its timeout) blocks the tool call
    /// instead of allowing it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fail_closed: Option<bool>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// An entry of `packages`: a source, or a source with the resources to load from it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PackageEntry {
    Source(String),
    Filtered(PackageFilter),
}

/// The object form of a `packages` entry.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PackageFilter {
    pub source: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub autoload: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skills: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompts: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub themes: Option<Vec<String>>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl PackageEntry {
    pub fn source(&self) -> &str {
        match self {
            PackageEntry::Source(source) => source,
            PackageEntry::Filtered(filter) => &filter.source,
        }
    }
}
