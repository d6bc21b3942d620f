//! What the settings mean once the defaults fill what the user left unset: the values the
//! rest of pi reads, and the `*_mut` accessors that create an object to change a key in it.

use super::choices::{DoubleEscapeAction, IdleTimeout, QuietStartup, TuiMode};
use super::keys::{
    BranchSummary, Compaction, Images, ProviderRetry, Retry, Settings, Terminal, Tools,
};
use pi_agent::QueueMode;

/// `compaction.*` with the defaults applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompactionSettings {
    /// Default true.
    pub enabled: bool,
    /// Default 16384.
    pub reserve_tokens: u64,
    /// Default 20000.
    pub keep_recent_tokens: u64,
}

/// `retry.provider.*` (HTTP-level retry) with the defaults applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProviderRetrySettings {
    /// `None`: the SDK default.
    pub timeout_ms: Option<u64>,
    /// Default 0.
    pub max_retries: u64,
    /// Cap on a server-requested delay; default 60000, 0 disables.
    pub max_retry_delay_ms: u64,
}

/// `retry.*` (agent-level retry) with the defaults applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetrySettings {
    /// Default true.
    pub enabled: bool,
    /// Default 3.
    pub max_retries: u64,
    /// Default 2000; delay = base · 2^(attempt−1).
    pub base_delay_ms: u64,
    pub provider: ProviderRetrySettings,
}

/// `branchSummary.*` with the defaults applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BranchSummarySettings {
    /// Default 16384.
    pub reserve_tokens: u64,
    /// `skipPrompt`: `/tree` does not ask "Summarize branch?" (and leaves no summary).
    pub skip_prompt: bool,
}

impl Settings {
    pub fn compaction(&self) -> CompactionSettings {
        let c = self.compaction.clone().unwrap_or_default();
        CompactionSettings {
            enabled: c.enabled.unwrap_or(true),
            reserve_tokens: c.reserve_tokens.unwrap_or(16384),
            keep_recent_tokens: c.keep_recent_tokens.unwrap_or(20000),
        }
    }

    pub fn branch_summary(&self) -> BranchSummarySettings {
        let branch = self.branch_summary.as_ref();
        BranchSummarySettings {
            reserve_tokens: branch.and_then(|b| b.reserve_tokens).unwrap_or(16384),
            skip_prompt: branch.and_then(|b| b.skip_prompt).unwrap_or(false),
        }
    }

    pub fn retry(&self) -> RetrySettings {
        let r = self.retry.clone().unwrap_or_default();
        let p = r.provider.clone().unwrap_or_default();
        RetrySettings {
            enabled: r.enabled.unwrap_or(true),
            max_retries: r.max_retries.unwrap_or(3),
            base_delay_ms: r.base_delay_ms.unwrap_or(2000),
            provider: ProviderRetrySettings {
                timeout_ms: p.timeout_ms,
                max_retries: p.max_retries.unwrap_or(0),
                max_retry_delay_ms: p.max_retry_delay_ms.unwrap_or(60000),
            },
        }
    }

    pub fn default_provider(&self) -> Option<String> {
        self.default_provider.clone()
    }

    pub fn default_model(&self) -> Option<String> {
        self.default_model.clone()
    }

    pub fn default_thinking_level(&self) -> Option<pi_ai::ThinkingLevel> {
        self.default_thinking_level
    }

    /// `sessionDir` (`~` is expanded by the path resolver).
    pub fn session_dir(&self) -> Option<String> {
        self.session_dir.clone()
    }

    /// `enabledModels` patterns (same format as `--models`).
    pub fn enabled_models(&self) -> Vec<String> {
        self.enabled_models.clone().unwrap_or_default()
    }

    /// `steeringMode`: one at a time unless set.
    pub fn steering_mode(&self) -> QueueMode {
        self.steering_mode.unwrap_or(QueueMode::OneAtATime)
    }

    /// `followUpMode`: one at a time unless set.
    pub fn follow_up_mode(&self) -> QueueMode {
        self.follow_up_mode.unwrap_or(QueueMode::OneAtATime)
    }

    /// `httpIdleTimeoutMs`: default 300000; 0 or `"disabled"` disables (→ `None`).
    pub fn http_idle_timeout_ms(&self) -> Option<u64> {
        match self.http_idle_timeout_ms {
            Some(IdleTimeout::Disabled(_)) => None,
            Some(IdleTimeout::Ms(ms)) => (ms > 0).then_some(ms),
            None => Some(300_000),
        }
    }

    /// `minOAuthValidityMs`, when set.
    pub fn min_oauth_validity_ms(&self) -> Option<u64> {
        self.min_oauth_validity_ms
    }

    pub fn hide_thinking_block(&self) -> bool {
        self.hide_thinking_block.unwrap_or(false)
    }

    /// `quietStartup`: `true` and (pi 1.x) `"header"` both leave the start-up summary out.
    pub fn quiet_startup(&self) -> bool {
        !matches!(self.quiet_startup, None | Some(QuietStartup::Flag(false)))
    }

    /// `tuiMode`; unset: the caller's default (fullscreen).
    pub fn tui_mode(&self) -> Option<TuiMode> {
        self.tui_mode
    }

    /// `doubleEscapeAction`: `tree` unless set.
    pub fn double_escape_action(&self) -> DoubleEscapeAction {
        self.double_escape_action
            .unwrap_or(DoubleEscapeAction::Tree)
    }

    /// `externalEditor`: the command Ctrl+G runs (else `$VISUAL`, `$EDITOR`).
    pub fn external_editor(&self) -> Option<String> {
        self.external_editor
            .clone()
            .filter(|e| !e.trim().is_empty())
    }

    /// `autocompleteMaxVisible`: default 5, clamped to 3–20.
    pub fn autocomplete_max_visible(&self) -> usize {
        self.autocomplete_max_visible.unwrap_or(5).clamp(3, 20) as usize
    }

    /// `theme`: default `dark`.
    pub fn theme(&self) -> String {
        self.theme.clone().unwrap_or_else(|| "dark".into())
    }

    pub fn shell_path(&self) -> Option<String> {
        self.shell_path.clone()
    }

    pub fn shell_command_prefix(&self) -> Option<String> {
        self.shell_command_prefix.clone()
    }

    /// `images.autoResize`: default true.
    pub fn images_auto_resize(&self) -> bool {
        self.images
            .as_ref()
            .and_then(|i| i.auto_resize)
            .unwrap_or(true)
    }

    /// `images.blockImages`: default false.
    pub fn images_block(&self) -> bool {
        self.images
            .as_ref()
            .and_then(|i| i.block_images)
            .unwrap_or(false)
    }

    /// `terminal.showImages`: default true.
    pub fn terminal_show_images(&self) -> bool {
        self.terminal
            .as_ref()
            .and_then(|t| t.show_images)
            .unwrap_or(true)
    }

    /// `probeLocalServers`: with no credentials, look for local OpenAI-compatible servers on
    /// loopback at start. Default true.
    pub fn probe_local_servers(&self) -> bool {
        self.probe_local_servers.unwrap_or(true)
    }

    /// `enableSkillCommands`: default true.
    pub fn enable_skill_commands(&self) -> bool {
        self.enable_skill_commands.unwrap_or(true)
    }

    /// `exposeSessionEnvironment`: default true.
    pub fn expose_session_environment(&self) -> bool {
        self.expose_session_environment.unwrap_or(true)
    }

    /// `checkpoints`: default true.
    pub fn checkpoints(&self) -> bool {
        self.checkpoints.unwrap_or(true)
    }

    /// `tools.pathScope`: where the file tools may go (`workspace`, `default`, `anywhere`);
    /// `None` when unset. Checked by start-up.
    pub fn tools_path_scope(&self) -> Option<String> {
        self.tools.as_ref().and_then(|t| t.path_scope.clone())
    }

    /// `tools.writableRoots`: directories `write` and `edit` may change besides the workspace.
    pub fn tools_writable_roots(&self) -> Vec<String> {
        self.tools
            .as_ref()
            .and_then(|t| t.writable_roots.clone())
            .unwrap_or_default()
    }

    /// `tools.sandbox`: the shell sandbox of `bash` (`off`, `read-only`, `workspace-write`);
    /// `None` when unset (off). Checked by start-up.
    pub fn tools_sandbox(&self) -> Option<String> {
        self.tools.as_ref().and_then(|t| t.sandbox.clone())
    }

    /// `permissionMode`: what the run may do without asking; `None` when unset (`auto`).
    /// Checked by start-up.
    pub fn permission_mode(&self) -> Option<String> {
        self.permission_mode.clone()
    }

    /// `subagents.maxParallel`: how many children of one `subagent` call run at once;
    /// default 4, at least 1.
    pub fn subagents_max_parallel(&self) -> usize {
        self.subagents
            .as_ref()
            .and_then(|s| s.max_parallel)
            .map_or(4, |n| usize::try_from(n.max(1)).unwrap_or(4))
    }

    /// `subagents.timeoutMs`: how long one child may run; default none.
    pub fn subagents_timeout(&self) -> Option<std::time::Duration> {
        self.subagents
            .as_ref()
            .and_then(|s| s.timeout_ms)
            .map(std::time::Duration::from_millis)
    }

    /// `tools.sandboxNetwork`: whether sandboxed commands may open TCP connections; default
    /// true.
    pub fn tools_sandbox_network(&self) -> bool {
        self.tools
            .as_ref()
            .and_then(|t| t.sandbox_network)
            .unwrap_or(true)
    }

    /// A resource list (`extensions`, `skills`, `prompts`, `themes`) as written.
    pub fn resource_list(&self, key: &str) -> Option<&Vec<String>> {
        match key {
            "extensions" => self.extensions.as_ref(),
            "skills" => self.skills.as_ref(),
            "prompts" => self.prompts.as_ref(),
            "themes" => self.themes.as_ref(),
            _ => None,
        }
    }

    /// `compaction`, created empty when unset, to change a key in it.
    pub fn compaction_mut(&mut self) -> &mut Compaction {
        self.compaction.get_or_insert_with(Default::default)
    }

    pub fn branch_summary_mut(&mut self) -> &mut BranchSummary {
        self.branch_summary.get_or_insert_with(Default::default)
    }

    pub fn retry_mut(&mut self) -> &mut Retry {
        self.retry.get_or_insert_with(Default::default)
    }

    pub fn provider_retry_mut(&mut self) -> &mut ProviderRetry {
        self.retry_mut()
            .provider
            .get_or_insert_with(Default::default)
    }

    pub fn terminal_mut(&mut self) -> &mut Terminal {
        self.terminal.get_or_insert_with(Default::default)
    }

    pub fn images_mut(&mut self) -> &mut Images {
        self.images.get_or_insert_with(Default::default)
    }

    pub fn tools_mut(&mut self) -> &mut Tools {
        self.tools.get_or_insert_with(Default::default)
    }
}
