//! auth.json storage, config-value resolution and header merging.

use pi_ai::auth::{AuthError, AuthStorage, Credential, merge_headers, resolve_config_value};
use serde_json::{Value, json};
use std::collections::BTreeMap;

fn read_json(path: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn missing_file_is_empty_and_first_write_creates_it_private() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agent").join("auth.json");
    let store = AuthStorage::open(&path).unwrap();
    assert!(store.providers().is_empty());
    assert_eq!(store.get("openai").unwrap(), None);

    store.set("openai", &Credential::api_key("sk-1")).unwrap();
    assert_eq!(
        read_json(&path),
        json!({"openai": {"type": "api_key", "key": "sk-1"}})
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    // Only auth.json remains: the temporary file was renamed into place, the lock released.
    let mut names: Vec<String> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["auth.json"]);
}

#[test]
fn unknown_fields_and_entries_survive_a_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("auth.json");
    let original = json!({
        "anthropic": {"type": "oauth", "access": "a", "refresh": "r", "expires": 1_900_000_000_000_i64,
                      "accountId": "acct-7"},
        "future": {"type": "aws_profile", "profile": "dev"},
        "openai": {"type": "api_key", "key": "sk", "env": {"OPENAI_ORG": "o"}}
    });
    std::fs::write(&path, original.to_string()).unwrap();
    let store = AuthStorage::open(&path).unwrap();

    let Credential::OAuth { extra, expires, .. } = store.get("anthropic").unwrap().unwrap() else {
        panic!("expected oauth");
    };
    assert_eq!(expires, 1_900_000_000_000);
    assert_eq!(extra.get("accountId"), Some(&json!("acct-7")));

    // Re-storing a credential read from the file keeps its extra fields.
    let openai = store.get("openai").unwrap().unwrap();
    store.set("openai", &openai).unwrap();
    store.set("groq", &Credential::api_key("gsk")).unwrap();
    let written = read_json(&path);
    assert_eq!(written["future"], original["future"]);
    assert_eq!(written["anthropic"], original["anthropic"]);
    assert_eq!(written["openai"], original["openai"]);
    assert_eq!(written["groq"], json!({"type": "api_key", "key": "gsk"}));
    assert_eq!(store.providers(), ["anthropic", "future", "openai", "groq"]);

    // An entry of an unknown type is reported when asked for, not when the file is read.
    assert!(matches!(
        store.get("future"),
        Err(AuthError::BadCredential { .. })
    ));
}

#[test]
fn a_file_that_does_not_parse_is_reported_and_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("auth.json");
    let broken = "{\n  \"openai\": {\"type\": \"api_key\", \"key\": \"sk\"},,\n}";
    std::fs::write(&path, broken).unwrap();
    let err = AuthStorage::open(&path).err().expect("parse error");
    let AuthError::Parse { line, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(*line, 2);
    assert!(err.to_string().contains("auth.json"), "{err}");

    // A store opened before the file broke must not clobber it on write either.
    std::fs::write(&path, "{}").unwrap();
    let store = AuthStorage::open(&path).unwrap();
    std::fs::write(&path, broken).unwrap();
    assert!(matches!(
        store.set("groq", &Credential::api_key("k")),
        Err(AuthError::Parse { .. })
    ));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), broken);
}

#[test]
fn writes_merge_with_changes_made_by_another_process() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("auth.json");
    let first = AuthStorage::open(&path).unwrap();
    let second = AuthStorage::open(&path).unwrap();
    first.set("openai", &Credential::api_key("a")).unwrap();
    second.set("groq", &Credential::api_key("b")).unwrap();
    let written = read_json(&path);
    assert_eq!(written["openai"]["key"], "a");
    assert_eq!(written["groq"]["key"], "b");

    assert!(!first.has("groq"));
    first.reload().unwrap();
    assert!(first.has("groq"));
    assert!(first.remove("groq").unwrap());
    assert!(!first.remove("groq").unwrap());
    assert_eq!(
        read_json(&path),
        json!({"openai": {"type": "api_key", "key": "a"}})
    );
}

#[test]
fn in_memory_storage_never_touches_disk() {
    let store = AuthStorage::in_memory();
    assert!(store.path().is_none());
    store.set("xai", &Credential::api_key("k")).unwrap();
    assert_eq!(store.get("xai").unwrap(), Some(Credential::api_key("k")));
    assert!(store.remove("xai").unwrap());
    assert!(!store.has("xai"));
}

#[test]
fn config_values_literal_env_and_escapes() {
    let home = std::env::var("PATH").unwrap();
    assert_eq!(
        resolve_config_value("sk-literal").unwrap().as_deref(),
        Some("sk-literal")
    );
    assert_eq!(resolve_config_value("$PATH").unwrap(), Some(home.clone()));
    assert_eq!(
        resolve_config_value("x${PATH}y").unwrap(),
        Some(format!("x{home}y"))
    );
    assert_eq!(
        resolve_config_value("$$PATH").unwrap().as_deref(),
        Some("$PATH")
    );
    assert_eq!(
        resolve_config_value("$!echo").unwrap().as_deref(),
        Some("!echo")
    );
    assert_eq!(
        resolve_config_value("$PI_TEST_SURELY_UNSET_VAR_42").unwrap(),
        None
    );
    assert_eq!(resolve_config_value("").unwrap(), None);
}

#[cfg(unix)]
#[test]
fn config_value_commands_use_trimmed_stdout_and_report_stderr() {
    assert_eq!(
        resolve_config_value("!printf '  sk-from-cmd \\n'")
            .unwrap()
            .as_deref(),
        Some("sk-from-cmd")
    );
    assert_eq!(resolve_config_value("!true").unwrap(), None);
    let err = resolve_config_value("!echo vault is locked >&2; exit 3").unwrap_err();
    let AuthError::CommandFailed { stderr, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(stderr.trim(), "vault is locked");
    assert!(err.to_string().contains("vault is locked"), "{err}");
}

fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn merge_headers_later_layers_win_case_insensitively() {
    let model = map(&[("X-Team", "a"), ("Authorization", "Bearer model")]);
    let auth = map(&[("Authorization", "Bearer auth"), ("anthropic-beta", "x")]);
    let explicit = map(&[("authorization", "Bearer explicit"), ("X-Extra", "1")]);
    let merged = merge_headers(Some(&model), &auth, &explicit);
    assert_eq!(
        merged,
        map(&[
            ("X-Extra", "1"),
            ("X-Team", "a"),
            ("anthropic-beta", "x"),
            ("authorization", "Bearer explicit"),
        ])
    );
    assert_eq!(merge_headers(None, &auth, &BTreeMap::new()), auth);
}

/// Set in the child process that [`kill_during_a_write_leaves_a_valid_file`] starts: the
/// path of the store it rewrites until it is killed.
const WRITER_ENV: &str = "PI_TEST_AUTH_WRITER";

/// A real process rewriting auth.json in a loop is killed (SIGKILL) at several moments; each
/// time the file left behind is a complete, private store (the write is temp + rename).
#[test]
fn kill_during_a_write_leaves_a_valid_file() {
    if let Some(path) = std::env::var_os(WRITER_ENV) {
        let store = AuthStorage::open(std::path::PathBuf::from(path)).unwrap();
        let padding = "x".repeat(256 * 1024);
        for n in 0u64.. {
            let credential = Credential::OAuth {
                access: format!("access-{n}-{padding}"),
                refresh: format!("refresh-{n}"),
                expires: i64::try_from(n).unwrap(),
                extra: serde_json::Map::new(),
            };
            store.set("anthropic", &credential).unwrap();
        }
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("auth.json");
    std::fs::write(
        &path,
        r#"{"openai": {"type": "api_key", "key": "sk-kept", "note": 1}}"#,
    )
    .unwrap();
    for round in 0..5u64 {
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "auth::kill_during_a_write_leaves_a_valid_file",
                "--nocapture",
            ])
            .env(WRITER_ENV, &path)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Let it complete a few writes (each changes the file), then kill it wherever it is.
        let mut seen = std::collections::HashSet::new();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        while seen.len() < 3 + round as usize && std::time::Instant::now() < deadline {
            // Every read sees a whole file: the writer only ever renames complete ones in.
            let now = read_json(&path);
            if let Some(refresh) = now["anthropic"]["refresh"].as_str() {
                seen.insert(refresh.to_owned());
            }
        }
        child.kill().unwrap();
        child.wait().unwrap();
        // A writer killed while holding the lock leaves it behind, broken after 10 s as stale
        // (`file_lock`'s own tests); the next round does not wait for that.
        let _ = std::fs::remove_dir(pi_ai::file_lock::lock_path(&path));
        let stored = read_json(&path);
        assert_eq!(
            stored["openai"],
            json!({"type": "api_key", "key": "sk-kept", "note": 1})
        );
        let store = AuthStorage::open(&path).unwrap();
        assert!(matches!(
            store.get("anthropic").unwrap(),
            Some(Credential::OAuth { .. })
        ));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }
}
