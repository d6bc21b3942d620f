//! Typed settings: every known key through the struct and back, unknown keys kept as they
//! are, a wrong-typed value reported without losing the rest, the settings table.

use pi_agent::QueueMode;
use pi_session::settings::{
    DoubleEscapeAction, SETTINGS_TABLE, Settings, SettingsError, SettingsManager, TuiMode,
};
use serde_json::{Value, json};

/// A file setting every key pi 1.6 and this pi know, in the struct's order.
fn every_key() -> Value {
    serde_json::from_str(
        r#"{
        "$schema": "https://pi.dev/schemas/settings.schema.json",
        "lastChangelogVersion": "1.6.0",
        "extensionChangelogVersions": {"ext-a": "1.0.0"},
        "defaultProvider": "anthropic",
        "defaultModel": "claude-sonnet-4-5",
        "defaultThinkingLevel": "high",
        "modelThinkingLevels": {"openai/gpt-5": "low"},
        "transport": "websocket-cached",
        "sessionShareDestination": "gist",
        "steeringMode": "all",
        "followUpMode": "all",
        "theme": "light",
        "compaction": {"enabled": false, "reserveTokens": 1000, "keepRecentTokens": 2000,
                       "modelOverrides": {"a/b": {"reserveTokens": 10, "keepRecentTokens": 20}}},
        "branchSummary": {"reserveTokens": 3000, "skipPrompt": true},
        "retry": {"enabled": false, "maxRetries": 7, "baseDelayMs": 10, "maxAgentDelayMs": 500,
                  "provider": {"timeoutMs": 9000, "maxRetries": 2, "maxRetryDelayMs": 0}},
        "hideThinkingBlock": true,
        "showCacheMissNotices": true,
        "externalEditor": "code --wait",
        "shellPath": "/bin/zsh",
        "quietStartup": "header",
        "defaultProjectTrust": "never",
        "shellCommandPrefix": "set -e",
        "npmCommand": ["mise", "exec", "--", "npm"],
        "selfUpdateCommand": ["npm", "i", "-g", "pi"],
        "collapseChangelog": true,
        "enableInstallTelemetry": false,
        "enableAnalytics": true,
        "trackingId": "t-1",
        "deviceId": "d-1",
        "packages": ["npm:one", {"source": "git:example.com/a/b", "autoload": false,
                                 "extensions": ["x"], "skills": [], "prompts": ["p"], "themes": ["t"]}],
        "extensions": ["ext"],
        "skills": ["sk"],
        "prompts": ["pr"],
        "themes": ["th"],
        "enableSkillCommands": false,
        "terminal": {"showImages": false, "imageWidthCells": 40, "clearOnShrink": true,
                     "showTerminalProgress": true, "hyperlinks": "auto", "images": false,
                     "trueColor": true},
        "images": {"autoResize": false, "blockImages": true},
        "enabledModels": ["a/*", "b"],
        "defaultTools": ["read", "bash"],
        "doubleEscapeAction": "fork",
        "treeFilterMode": "labeled-only",
        "thinkingBudgets": {"minimal": 1, "low": 2, "medium": 3, "high": 4},
        "editorPaddingX": 2,
        "outputPad": 0,
        "autocompleteMaxVisible": 9,
        "showHardwareCursor": true,
        "markdown": {"codeBlockIndent": "    ", "mermaid": "final"},
        "warnings": {"anthropicExtraUsage": false},
        "codemode": {"mode": "only", "inlineBudget": 100},
        "sessionDir": "~/sessions",
        "httpProxy": "http://127.0.0.1:3128",
        "httpIdleTimeoutMs": "disabled",
        "cacheWarming": "streaming",
        "websocketConnectTimeoutMs": 1000,
        "tuiMode": "regular",
        "fullscreenExitOutput": "resume-hint",
        "fullscreenScrollbar": "hidden",
        "fullscreenCopyOnSelect": false,
        "fullscreenWheelScrollLines": 3,
        "probeLocalServers": false,
        "minOAuthValidityMs": 600000,
        "tools": {"pathScope": "workspace", "writableRoots": ["/srv"], "sandbox": "read-only",
                  "sandboxNetwork": false},
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
                  "command": "./check.sh", "timeout": 5}]}]},
        "commandHooks": false,
        "permissionMode": "plan"
    }"#,
    )
    .unwrap()
}

fn agent_dir(text: Option<&str>) -> (tempfile::TempDir, std::path::PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let agent = root.path().join("agent");
    std::fs::create_dir_all(&agent).unwrap();
    if let Some(text) = text {
        std::fs::write(agent.join("settings.json"), text).unwrap();
    }
    (root, agent)
}

fn saved(agent: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(agent.join("settings.json")).unwrap()).unwrap()
}

/// Every leaf path of `value` (`compaction.enabled`); `records` are leaves as a whole.
fn leaf_paths(value: &Value, prefix: &str, out: &mut Vec<String>) {
    const RECORDS: [&str; 5] = [
        "hooks",
        "extensionChangelogVersions",
        "modelThinkingLevels",
        "compaction.modelOverrides",
        "thinkingBudgets",
    ];
    match value {
        Value::Object(object) if !RECORDS.contains(&prefix) => {
            for (key, inner) in object {
                let path = if prefix.is_empty() {
                    key.clone()
                } else {
                    format!("{prefix}.{key}")
                };
                leaf_paths(inner, &path, out);
            }
        }
        _ => out.push(prefix.to_owned()),
    }
}

#[test]
fn every_known_key_is_written_through_the_typed_struct_and_read_back_equal() {
    let full: Settings = serde_json::from_value(every_key()).unwrap();
    // Every key is known: nothing lands in an `extra` map.
    assert!(full.extra.is_empty(), "{:?}", full.extra);
    assert!(full.compaction.as_ref().unwrap().extra.is_empty());
    assert!(
        full.retry
            .as_ref()
            .unwrap()
            .provider
            .as_ref()
            .unwrap()
            .extra
            .is_empty()
    );
    assert!(full.terminal.as_ref().unwrap().extra.is_empty());
    assert!(full.tools.as_ref().unwrap().extra.is_empty());
    assert_eq!(full.double_escape_action, Some(DoubleEscapeAction::Fork));
    assert_eq!(full.tui_mode, Some(TuiMode::Regular));
    assert_eq!(full.steering_mode, Some(QueueMode::All));

    let (_root, agent) = agent_dir(None);
    let mut manager = SettingsManager::load(&agent, agent.parent().unwrap(), false);
    manager.update(|s| *s = full.clone()).unwrap();
    assert_eq!(saved(&agent), every_key());
    let again = SettingsManager::load(&agent, agent.parent().unwrap(), false);
    assert!(again.errors().is_empty(), "{:?}", again.errors());
    assert_eq!(again.global(), &full);
    assert_eq!(again.effective(), &full);

    // A project layer setting every key wins every key (no field is left out of the merge).
    let merged = SettingsManager::from_values(json!({"theme": "dark"}), every_key());
    assert_eq!(merged.effective(), &full);

    // The table names every key the struct has, and nothing else.
    let mut paths = Vec::new();
    leaf_paths(&every_key(), "", &mut paths);
    let table: Vec<&str> = SETTINGS_TABLE.iter().map(|info| info.key).collect();
    for path in &paths {
        assert!(table.contains(&path.as_str()), "{path} is not in the table");
    }
    for key in &table {
        assert!(paths.iter().any(|p| p == key), "{key} is not a key");
    }
}

#[test]
fn unknown_keys_top_level_and_nested_are_read_and_saved_back_unchanged() {
    // Known keys first in each object (the struct's order), then the unknown ones in the
    // file's own order, which is not alphabetical.
    let file = json!({
        "defaultModel": "m",
        "compaction": {"enabled": true, "zeta": 1, "alpha": {"deep": [1, 2]}},
        "retry": {"provider": {"maxRetries": 1, "futureKnob": "x"}, "later": null},
        "zzzFuture": {"b": 1, "a": 2},
        "aaaFuture": [true, "text", 1.5]
    });
    let text = serde_json::to_string_pretty(&file).unwrap();
    let (_root, agent) = agent_dir(Some(&text));
    let mut manager = SettingsManager::load(&agent, agent.parent().unwrap(), false);
    assert!(manager.errors().is_empty(), "{:?}", manager.errors());
    let compaction = manager.global().compaction.clone().unwrap();
    assert_eq!(
        compaction.extra.get("alpha"),
        Some(&json!({"deep": [1, 2]}))
    );
    assert_eq!(
        serde_json::to_string(manager.global()).unwrap(),
        serde_json::to_string(&file).unwrap(),
        "read and serialised back as it was, order included"
    );

    // Changing keys inside the objects that hold unknown keys rewrites those objects: their
    // unknown keys come back with their values and order.
    manager
        .update(|s| {
            s.compaction_mut().enabled = Some(false);
            s.provider_retry_mut().max_retries = Some(4);
        })
        .unwrap();
    let mut expected = file.clone();
    expected["compaction"]["enabled"] = json!(false);
    expected["retry"]["provider"]["maxRetries"] = json!(4);
    assert_eq!(
        serde_json::to_string(&saved(&agent)).unwrap(),
        serde_json::to_string(&expected).unwrap()
    );
}

#[test]
fn a_wrong_typed_key_is_reported_and_the_rest_is_kept() {
    let file = json!({
        "theme": 5,
        "defaultModel": "m",
        "compaction": {"enabled": "yes", "reserveTokens": 100},
        "steeringMode": "sometimes",
        "future": 1
    });
    let (_root, agent) = agent_dir(Some(&file.to_string()));
    let mut manager = SettingsManager::load(&agent, agent.parent().unwrap(), false);
    let mut reported: Vec<String> = manager
        .errors()
        .iter()
        .map(|e| match e {
            SettingsError::WrongType { path, key, .. } => {
                assert_eq!(path, &agent.join("settings.json"));
                key.clone()
            }
            other => panic!("{other}"),
        })
        .collect();
    reported.sort();
    assert_eq!(reported, ["compaction.enabled", "steeringMode", "theme"]);
    let message = manager.errors()[0].to_string();
    assert!(message.contains("settings.json: theme: "), "{message}");
    // The other keys are read; the wrong ones count as unset.
    assert_eq!(manager.default_model().as_deref(), Some("m"));
    assert_eq!(manager.compaction().reserve_tokens, 100);
    assert!(manager.compaction().enabled);
    assert_eq!(manager.theme(), "dark");
    assert_eq!(manager.steering_mode(), QueueMode::OneAtATime);

    // A save keeps the wrong values where the user has not set the key since.
    manager
        .update(|s| {
            s.compaction_mut().reserve_tokens = Some(200);
            s.steering_mode = Some(QueueMode::All);
        })
        .unwrap();
    let saved = saved(&agent);
    assert_eq!(
        saved["compaction"],
        json!({"reserveTokens": 200, "enabled": "yes"})
    );
    assert_eq!(saved["steeringMode"], "all");
    assert_eq!(saved["theme"], 5);
    assert_eq!(saved["future"], 1);
}

#[test]
fn the_table_choices_read_and_write_their_key() {
    let choices: Vec<_> = SETTINGS_TABLE
        .iter()
        .filter_map(|info| info.choice.map(|c| (info, c)))
        .collect();
    assert!(choices.len() >= 9);
    for (info, choice) in choices {
        assert_eq!(choice.values[0], info.default, "{}", info.key);
        let mut settings = Settings::default();
        assert_eq!((choice.get)(&settings), None, "{}", info.key);
        assert_eq!(info.current(&settings), info.default);
        for value in choice.values {
            (choice.set)(&mut settings, value);
            assert_eq!(info.current(&settings), *value, "{}", info.key);
        }
    }
}

#[test]
fn the_table_defaults_are_the_defaults_the_settings_apply() {
    let s = Settings::default();
    let default = |key: &str| {
        pi_session::settings::setting_info(key)
            .unwrap_or_else(|| panic!("{key} is not in the table"))
            .default
            .to_owned()
    };
    let (c, r, b) = (s.compaction(), s.retry(), s.branch_summary());
    let applied = [
        ("compaction.enabled", c.enabled.to_string()),
        ("compaction.reserveTokens", c.reserve_tokens.to_string()),
        (
            "compaction.keepRecentTokens",
            c.keep_recent_tokens.to_string(),
        ),
        ("branchSummary.reserveTokens", b.reserve_tokens.to_string()),
        ("retry.enabled", r.enabled.to_string()),
        ("retry.maxRetries", r.max_retries.to_string()),
        ("retry.baseDelayMs", r.base_delay_ms.to_string()),
        (
            "retry.provider.maxRetries",
            r.provider.max_retries.to_string(),
        ),
        (
            "retry.provider.maxRetryDelayMs",
            r.provider.max_retry_delay_ms.to_string(),
        ),
        (
            "httpIdleTimeoutMs",
            s.http_idle_timeout_ms().unwrap_or(0).to_string(),
        ),
        (
            "minOAuthValidityMs",
            pi_ai::oauth::REFRESH_WINDOW.as_millis().to_string(),
        ),
        ("hideThinkingBlock", s.hide_thinking_block().to_string()),
        ("quietStartup", s.quiet_startup().to_string()),
        (
            "doubleEscapeAction",
            s.double_escape_action().as_str().to_owned(),
        ),
        (
            "autocompleteMaxVisible",
            s.autocomplete_max_visible().to_string(),
        ),
        ("theme", s.theme()),
        ("images.autoResize", s.images_auto_resize().to_string()),
        ("images.blockImages", s.images_block().to_string()),
        ("terminal.showImages", s.terminal_show_images().to_string()),
        ("probeLocalServers", s.probe_local_servers().to_string()),
        ("enableSkillCommands", s.enable_skill_commands().to_string()),
        (
            "tools.sandboxNetwork",
            s.tools_sandbox_network().to_string(),
        ),
        (
            "steeringMode",
            match s.steering_mode() {
                QueueMode::All => "all".to_owned(),
                QueueMode::OneAtATime => "one-at-a-time".to_owned(),
            },
        ),
        (
            "followUpMode",
            match s.follow_up_mode() {
                QueueMode::All => "all".to_owned(),
                QueueMode::OneAtATime => "one-at-a-time".to_owned(),
            },
        ),
    ];
    for (key, value) in applied {
        assert_eq!(default(key), value, "{key}");
    }
}

#[test]
fn command_hooks_keep_unknown_events_types_and_fields_and_a_misshapen_value_is_reported() {
    let hooks = json!({
        "PreToolUse": [{"matcher": "Bash", "note": "mine",
                        "hooks": [{"type": "command", "command": "./a.sh", "timeout": 5,
                                   "statusMessage": "checking"}]}],
        "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}],
        "Stop": [{"hooks": [{"type": "prompt", "prompt": "done?"}]}]
    });
    let file = json!({"hooks": hooks, "commandHooks": true});
    let (_root, agent) = agent_dir(Some(&file.to_string()));
    let mut manager = SettingsManager::load(&agent, agent.parent().unwrap(), false);
    assert!(manager.errors().is_empty(), "{:?}", manager.errors());
    let read = manager.global().hooks.clone().unwrap();
    assert_eq!(
        read["PreToolUse"][0].hooks[0].command.as_deref(),
        Some("./a.sh")
    );
    assert_eq!(read["Stop"][0].hooks[0].kind, "prompt");
    manager.update(|s| s.theme = Some("light".into())).unwrap();
    assert_eq!(saved(&agent)["hooks"], hooks);

    let (_root, agent) = agent_dir(Some(
        r#"{"hooks": {"PreToolUse": "oops"}, "theme": "dark"}"#,
    ));
    let mut manager = SettingsManager::load(&agent, agent.parent().unwrap(), false);
    assert!(
        matches!(manager.errors(), [SettingsError::WrongType { key, .. }] if key.starts_with("hooks")),
        "{:?}",
        manager.errors()
    );
    manager.update(|s| s.theme = Some("light".into())).unwrap();
    assert_eq!(saved(&agent)["hooks"], json!({"PreToolUse": "oops"}));
}
