//! Settings: defaults, deep merge, invalid JSON, trust, saving.

// Test helpers fail loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use pi_agent::QueueMode;
use pi_session::settings::{DefaultProjectTrust, SettingsError, SettingsManager};
use pi_session::trust::{TrustDecision, TrustStore, resolve_trust};
use serde_json::{Value, json};

struct Dirs {
    _root: tempfile::TempDir,
    agent: std::path::PathBuf,
    cwd: std::path::PathBuf,
}

fn dirs(global: Option<&str>, project: Option<&str>) -> Dirs {
    let root = tempfile::tempdir().unwrap();
    let agent = root.path().join("agent");
    let cwd = root.path().join("proj");
    std::fs::create_dir_all(&agent).unwrap();
    std::fs::create_dir_all(cwd.join(".pi")).unwrap();
    if let Some(text) = global {
        std::fs::write(agent.join("settings.json"), text).unwrap();
    }
    if let Some(text) = project {
        std::fs::write(cwd.join(".pi/settings.json"), text).unwrap();
    }
    Dirs {
        _root: root,
        agent,
        cwd,
    }
}

#[test]
fn defaults_match_pi() {
    let d = dirs(None, None);
    let s = SettingsManager::load(&d.agent, &d.cwd, true);
    assert!(s.errors().is_empty());
    let c = s.compaction();
    assert!(c.enabled);
    assert_eq!((c.reserve_tokens, c.keep_recent_tokens), (16384, 20000));
    let r = s.retry();
    assert!(r.enabled);
    assert_eq!((r.max_retries, r.base_delay_ms), (3, 2000));
    assert_eq!(r.provider.max_retries, 0);
    assert_eq!(r.provider.max_retry_delay_ms, 60000);
    assert_eq!(r.provider.timeout_ms, None);
    assert_eq!(s.default_provider(), None);
    assert_eq!(s.default_thinking_level(), None);
    assert_eq!(s.steering_mode(), QueueMode::OneAtATime);
    assert_eq!(s.http_idle_timeout_ms(), Some(300_000));
    assert_eq!(s.theme(), "dark");
    assert!(s.enabled_models().is_empty());
    assert_eq!(s.default_project_trust(), DefaultProjectTrust::Ask);
}

#[test]
fn project_overrides_global_with_deep_merge() {
    let global = json!({
        "defaultProvider": "anthropic",
        "defaultModel": "claude-sonnet-4-5",
        "defaultThinkingLevel": "medium",
        "compaction": {"reserveTokens": 1000, "keepRecentTokens": 500},
        "retry": {"provider": {"maxRetries": 2, "maxRetryDelayMs": 10}},
        "enabledModels": ["a/*", "b"],
        "sessionDir": "~/sessions"
    });
    let project = json!({
        "defaultModel": "claude-opus-4-5",
        "compaction": {"reserveTokens": 2000},
        "retry": {"provider": {"maxRetries": 5}},
        "enabledModels": ["c"]
    });
    let d = dirs(Some(&global.to_string()), Some(&project.to_string()));
    let s = SettingsManager::load(&d.agent, &d.cwd, true);
    assert_eq!(s.default_provider().as_deref(), Some("anthropic"));
    assert_eq!(s.default_model().as_deref(), Some("claude-opus-4-5"));
    assert_eq!(
        s.default_thinking_level(),
        Some(pi_ai::ThinkingLevel::Medium)
    );
    assert_eq!(s.compaction().reserve_tokens, 2000);
    assert_eq!(s.compaction().keep_recent_tokens, 500);
    assert_eq!(s.retry().provider.max_retries, 5);
    assert_eq!(s.retry().provider.max_retry_delay_ms, 10);
    // Arrays replace, they do not merge.
    assert_eq!(s.enabled_models(), vec!["c".to_owned()]);
    assert_eq!(s.session_dir().as_deref(), Some("~/sessions"));
}

#[test]
fn untrusted_project_settings_are_ignored() {
    let d = dirs(
        Some(r#"{"defaultModel": "global-model"}"#),
        Some(r#"{"defaultModel": "project-model"}"#),
    );
    let s = SettingsManager::load(&d.agent, &d.cwd, false);
    assert_eq!(s.default_model().as_deref(), Some("global-model"));
    assert!(s.project_path().is_none());

    let mut store = TrustStore::load(&d.agent).unwrap();
    let default = DefaultProjectTrust::Ask;
    assert_eq!(
        resolve_trust(&d.cwd, None, &store, default),
        TrustDecision::Ask
    );
    assert_eq!(
        resolve_trust(&d.cwd, Some(true), &store, default),
        TrustDecision::Trusted
    );
    assert_eq!(
        resolve_trust(&d.cwd, None, &store, DefaultProjectTrust::Always),
        TrustDecision::Trusted
    );
    // A saved decision for a parent folder applies to the project; --no-approve still wins.
    store.set(d.cwd.parent().unwrap(), true).unwrap();
    let store = TrustStore::load(&d.agent).unwrap();
    assert_eq!(
        resolve_trust(&d.cwd, None, &store, default),
        TrustDecision::Trusted
    );
    assert_eq!(
        resolve_trust(&d.cwd, Some(false), &store, default),
        TrustDecision::Untrusted
    );
    let trusted = resolve_trust(&d.cwd, None, &store, default).is_trusted();
    let s = SettingsManager::load(&d.agent, &d.cwd, trusted);
    assert_eq!(s.default_model().as_deref(), Some("project-model"));
}

#[test]
fn default_project_trust_comes_from_the_global_file_only() {
    let d = dirs(None, Some(r#"{"defaultProjectTrust": "always"}"#));
    let s = SettingsManager::load(&d.agent, &d.cwd, true);
    assert_eq!(s.default_project_trust(), DefaultProjectTrust::Ask);
}

#[test]
fn resource_paths_resolve_against_the_folder_of_their_file() {
    let d = dirs(
        Some(r#"{"skills": ["mine", "/abs/skills"], "prompts": ["p"]}"#),
        Some(r#"{"prompts": ["shared", "~/x"]}"#),
    );
    let s = SettingsManager::load(&d.agent, &d.cwd, true);
    assert_eq!(
        s.resource_paths("skills"),
        [d.agent.join("mine"), "/abs/skills".into()]
    );
    let home = pi_session::paths::home_dir().unwrap();
    assert_eq!(
        s.resource_paths("prompts"),
        [d.cwd.join(".pi/shared"), home.join("x")]
    );
    // Untrusted: the project's list is not read, the global one is resolved as before.
    let s = SettingsManager::load(&d.agent, &d.cwd, false);
    assert_eq!(s.resource_paths("prompts"), [d.agent.join("p")]);
    assert!(s.resource_paths("themes").is_empty());
}

#[test]
fn http_proxy_comes_from_the_global_file_only() {
    let d = dirs(
        None,
        Some(r#"{"httpProxy": "http://project.example:3128"}"#),
    );
    let s = SettingsManager::load(&d.agent, &d.cwd, true);
    assert_eq!(s.http_proxy(), None);
    let d = dirs(
        Some(r#"{"httpProxy": " http://127.0.0.1:3128 "}"#),
        Some(r#"{"httpProxy": "http://project.example:3128"}"#),
    );
    let s = SettingsManager::load(&d.agent, &d.cwd, true);
    assert_eq!(s.http_proxy().as_deref(), Some("http://127.0.0.1:3128"));
    let d = dirs(Some(r#"{"httpProxy": ""}"#), None);
    assert_eq!(
        SettingsManager::load(&d.agent, &d.cwd, true).http_proxy(),
        None
    );
}

#[test]
fn invalid_json_names_file_line_and_column_and_is_never_overwritten() {
    let broken = "{\n  \"defaultModel\": \"x\",\n  oops\n}\n";
    let d = dirs(Some(broken), None);
    let mut s = SettingsManager::load(&d.agent, &d.cwd, true);
    assert_eq!(s.errors().len(), 1);
    let SettingsError::Parse {
        path, line, column, ..
    } = &s.errors()[0]
    else {
        panic!("{:?}", s.errors()[0]);
    };
    assert_eq!(path, &d.agent.join("settings.json"));
    assert_eq!((*line, *column), (3, 3));
    let message = s.errors()[0].to_string();
    assert!(message.contains("settings.json:3:3"), "{message}");
    // Defaults still apply, and saving refuses to replace the broken file.
    assert!(s.compaction().enabled);
    assert!(matches!(
        s.update(|s| s.default_model = Some("y".into())),
        Err(SettingsError::RefuseOverwrite { .. })
    ));
    assert_eq!(
        std::fs::read_to_string(d.agent.join("settings.json")).unwrap(),
        broken
    );
}

#[test]
fn save_keeps_unknown_keys_and_is_atomic() {
    let global = json!({"someFutureKey": {"nested": [1, 2]}, "theme": "light"});
    let d = dirs(Some(&global.to_string()), Some(r#"{"theme": "project"}"#));
    let mut s = SettingsManager::load(&d.agent, &d.cwd, true);
    s.update(|s| {
        s.compaction_mut().enabled = Some(false);
        s.default_model = Some("m".into());
    })
    .unwrap();
    assert!(!s.compaction().enabled);
    let path = d.agent.join("settings.json");
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(saved["someFutureKey"], json!({"nested": [1, 2]}));
    assert_eq!(saved["theme"], "light");
    assert_eq!(saved["compaction"], json!({"enabled": false}));
    assert_eq!(saved["defaultModel"], "m");
    // Project values are not copied into the global file; no temp files are left behind, and
    // the lock was released.
    let mut names: Vec<String> = std::fs::read_dir(&d.agent)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["settings.json"]);
    let again = SettingsManager::load(&d.agent, &d.cwd, true);
    assert_eq!(again.theme(), "project");
    assert!(!again.compaction().enabled);
}

#[test]
fn concurrent_saves_from_several_managers_keep_every_key() {
    let d = dirs(Some("{}"), None);
    let writers: Vec<_> = (0..8)
        .map(|i| {
            let (agent, cwd) = (d.agent.clone(), d.cwd.clone());
            std::thread::spawn(move || {
                for round in 0..10 {
                    let mut s = SettingsManager::load(&agent, &cwd, false);
                    s.update(|s| {
                        s.extra.insert(format!("key{i}"), json!(round));
                    })
                    .unwrap();
                }
            })
        })
        .collect();
    for writer in writers {
        writer.join().unwrap();
    }
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(d.agent.join("settings.json")).unwrap())
            .unwrap();
    for i in 0..8 {
        assert_eq!(saved[format!("key{i}")], 9, "key{i} lost: {saved}");
    }
}

#[test]
fn legacy_keys_are_migrated() {
    let s = SettingsManager::from_values(
        json!({"queueMode": "all", "websockets": true, "retry": {"maxDelayMs": 5},
               "skills": {"enableSkillCommands": false, "customDirectories": ["~/s"]}}),
        Value::Null,
    );
    assert_eq!(s.steering_mode(), QueueMode::All);
    // This build speaks SSE only: `websockets` is left as it is, never turned into a
    // `transport` nothing reads.
    assert_eq!(s.transport, None);
    assert_eq!(s.extra.get("websockets"), Some(&json!(true)));
    assert_eq!(s.retry().provider.max_retry_delay_ms, 5);
    assert!(!s.enable_skill_commands());
    assert_eq!(s.skills, Some(vec!["~/s".to_owned()]));
}

#[test]
fn tools_path_and_sandbox_settings_are_read_and_the_project_wins() {
    let d = dirs(None, None);
    let s = SettingsManager::load(&d.agent, &d.cwd, true);
    assert_eq!(s.tools_path_scope(), None);
    assert!(s.tools_writable_roots().is_empty());
    assert_eq!(s.tools_sandbox(), None);
    assert!(s.tools_sandbox_network());
    let global = json!({"tools": {"pathScope": "workspace", "writableRoots": ["~/notes", "/srv"]}});
    let project = json!({"tools": {"sandbox": "workspace-write", "sandboxNetwork": false}});
    let d = dirs(Some(&global.to_string()), Some(&project.to_string()));
    let s = SettingsManager::load(&d.agent, &d.cwd, true);
    assert_eq!(s.tools_path_scope().as_deref(), Some("workspace"));
    assert_eq!(s.tools_writable_roots(), ["~/notes", "/srv"]);
    assert_eq!(s.tools_sandbox().as_deref(), Some("workspace-write"));
    assert!(!s.tools_sandbox_network());
}
