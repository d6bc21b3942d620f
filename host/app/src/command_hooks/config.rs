//! The command hooks the settings configure, flattened: one [`ConfiguredHook`] per command,
//! with its scope, event, matcher and timeout. Unknown event names and hook types are kept in
//! the file and reported here, never fatal.

use pi_ext_api::hooks::HookEventKind;
use pi_session::settings::Settings;
use std::time::Duration;

/// How long a command may run when its `timeout` is not set.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// Whose settings a hook comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookScope {
    /// `<agentDir>/settings.json`: the user's own, run as written.
    Global,
    /// `.pi/settings.json`: run only in a trusted project, once approved.
    Project,
}

impl HookScope {
    pub fn as_str(self) -> &'static str {
        match self {
            HookScope::Global => "global",
            HookScope::Project => "project",
        }
    }
}

/// The events of Claude Code's and codex's hook format that pi runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookEventName {
    PreToolUse,
    PostToolUse,
    UserPromptSubmit,
    SessionStart,
    Stop,
}

impl HookEventName {
    const ALL: [HookEventName; 5] = [
        HookEventName::PreToolUse,
        HookEventName::PostToolUse,
        HookEventName::UserPromptSubmit,
        HookEventName::SessionStart,
        HookEventName::Stop,
    ];

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|event| event.as_str() == name)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            HookEventName::PreToolUse => "PreToolUse",
            HookEventName::PostToolUse => "PostToolUse",
            HookEventName::UserPromptSubmit => "UserPromptSubmit",
            HookEventName::SessionStart => "SessionStart",
            HookEventName::Stop => "Stop",
        }
    }

    /// The pi event it runs on.
    pub fn kind(self) -> HookEventKind {
        match self {
            HookEventName::PreToolUse => HookEventKind::ToolCall,
            HookEventName::PostToolUse => HookEventKind::ToolResult,
            HookEventName::UserPromptSubmit => HookEventKind::Input,
            HookEventName::SessionStart => HookEventKind::SessionStart,
            HookEventName::Stop => HookEventKind::AgentEnd,
        }
    }
}

/// One configured command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfiguredHook {
    pub scope: HookScope,
    pub event: HookEventName,
    /// As written; `None` when unset.
    pub matcher: Option<String>,
    pub command: String,
    pub timeout: Duration,
    /// `failClosed`: a failure blocks the call (Claude Code's hooks fail open).
    pub fail_closed: bool,
}

/// The commands of one settings layer, in the file's order, and a warning for each entry
/// that does not run (an unknown event or hook type, a command hook without a command).
pub fn configured(
    settings: &Settings,
    scope: HookScope,
    warnings: &mut Vec<String>,
) -> Vec<ConfiguredHook> {
    let mut found = Vec::new();
    let file = match scope {
        HookScope::Global => "settings.json",
        HookScope::Project => ".pi/settings.json",
    };
    for (name, groups) in settings.hooks.iter().flatten() {
        let Some(event) = HookEventName::parse(name) else {
            warnings.push(format!(
                "Warning (hooks): {file}: the event \"{name}\" is not one pi runs (PreToolUse, \
                 PostToolUse, UserPromptSubmit, SessionStart, Stop); its hooks are ignored"
            ));
            continue;
        };
        for group in groups {
            for hook in &group.hooks {
                match (hook.kind.as_str(), &hook.command) {
                    ("command", Some(command)) if !command.trim().is_empty() => {
                        found.push(ConfiguredHook {
                            scope,
                            event,
                            matcher: group.matcher.clone(),
                            command: command.clone(),
                            timeout: hook.timeout.map_or(DEFAULT_TIMEOUT, Duration::from_secs),
                            fail_closed: hook.fail_closed.unwrap_or(false),
                        });
                    }
                    ("command", _) => warnings.push(format!(
                        "Warning (hooks): {file}: a {name} hook has no command; ignored"
                    )),
                    (kind, _) => warnings.push(format!(
                        "Warning (hooks): {file}: a {name} hook of type \"{kind}\" is ignored \
                         (pi runs type \"command\")"
                    )),
                }
            }
        }
    }
    found
}

/// Whether the settings let command hooks run: `commandHooks: false` in either file turns
/// them off (a project can turn the user's off, not on against the user's choice).
pub fn enabled(global: &Settings, project: &Settings) -> bool {
    global.command_hooks != Some(false) && project.command_hooks != Some(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_events_and_types_are_reported_and_the_rest_runs() {
        let settings: Settings = serde_json::from_value(json!({"hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": "a.sh", "timeout": 5, "failClosed": true},
                {"type": "prompt", "prompt": "judge"},
                {"type": "command"}
            ]}],
            "Notification": [{"hooks": [{"type": "command", "command": "b.sh"}]}],
            "Stop": [{"hooks": [{"type": "command", "command": "c.sh"}]}]
        }}))
        .unwrap();
        let mut warnings = Vec::new();
        let hooks = configured(&settings, HookScope::Project, &mut warnings);
        assert_eq!(
            hooks,
            vec![
                ConfiguredHook {
                    scope: HookScope::Project,
                    event: HookEventName::PreToolUse,
                    matcher: Some("Bash".into()),
                    command: "a.sh".into(),
                    timeout: Duration::from_secs(5),
                    fail_closed: true,
                },
                ConfiguredHook {
                    scope: HookScope::Project,
                    event: HookEventName::Stop,
                    matcher: None,
                    command: "c.sh".into(),
                    timeout: DEFAULT_TIMEOUT,
                    fail_closed: false,
                },
            ]
        );
        assert_eq!(warnings.len(), 3, "{warnings:?}");
        assert!(warnings.iter().any(|w| w.contains("\"prompt\"")));
        assert!(warnings.iter().any(|w| w.contains("\"Notification\"")));
        assert!(warnings.iter().any(|w| w.contains("has no command")));
    }
}
