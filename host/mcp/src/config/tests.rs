#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use serde_json::json;

/// An agent dir and a project, with the given files.
struct Dirs {
    root: tempfile::TempDir,
}

impl Dirs {
    fn new(user: Option<&str>, project: Option<&str>) -> Dirs {
        let root = tempfile::tempdir().unwrap();
        let dirs = Dirs { root };
        std::fs::create_dir_all(dirs.agent()).unwrap();
        std::fs::create_dir_all(dirs.cwd().join(".pi")).unwrap();
        if let Some(text) = user {
            std::fs::write(user_config_path(&dirs.agent()), text).unwrap();
        }
        if let Some(text) = project {
            std::fs::write(project_config_path(&dirs.cwd()), text).unwrap();
        }
        dirs
    }
    fn agent(&self) -> PathBuf {
        self.root.path().join("agent")
    }
    fn cwd(&self) -> PathBuf {
        self.root.path().join("work")
    }
    fn load(&self, trusted: bool) -> McpConfig {
        McpConfig::load(&self.agent(), &self.cwd(), trusted)
    }
}

fn servers(value: Value) -> String {
    json!({ "mcpServers": value }).to_string()
}

/// The message `validate_server` gives for one entry.
fn invalid(name: &str, entry: Value) -> String {
    validate::validate_server(name, &entry).unwrap_err()
}

#[test]
fn every_field_pi_reads_is_read() {
    let dirs = Dirs::new(
        Some(&json!({"autoEnableCodemode": false, "mcpServers": {
            "fs": {"command": "npx", "args": ["-y", "server"], "env": {"A": "1"}, "cwd": "sub",
                   "timeout": 2.5, "exposure": "direct", "description": "Files",
                   "toolExposure": {"write_*": "hidden", "read": "deferred"}},
            "docs": {"type": "streamable-http", "url": "https://docs.example/mcp",
                     "headers": {"X-Key": "k"}, "oauth": {"clientId": "id", "callbackPort": 8123}},
            "team": {"type": "http", "url": "http://127.0.0.1:9/mcp", "auth": {"provider": "anthropic"}},
            "off": {"command": "x", "enabled": false, "exposure": "codemode-deferred"}
        }})
        .to_string()),
        None,
    );
    let config = dirs.load(false);
    assert!(config.errors.is_empty(), "{:?}", config.errors);
    assert_eq!(config.auto_enable_codemode, Some(false));
    let names: Vec<&str> = config.entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["fs", "docs", "team", "off"]);
    let fs = config.entry("fs").unwrap();
    assert_eq!(fs.scope, Scope::User);
    assert_eq!(fs.source, user_config_path(&dirs.agent()));
    assert_eq!(fs.config.describe_transport(), "npx -y server");
    assert_eq!(
        fs.config.tool_exposure,
        [
            ("write_*".to_owned(), Exposure::Hidden),
            ("read".to_owned(), Exposure::Deferred)
        ]
    );
    let off = config.entry("off").unwrap();
    assert!(!off.enabled);
    assert_eq!(off.config.exposure, Exposure::Codemode);
    assert_eq!(
        config.entry("team").unwrap().config.auth_provider(),
        Some("anthropic")
    );

    let (specs, errors) = config.specs(&dirs.cwd());
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(specs.len(), 3, "the disabled server is not started");
    assert_eq!(
        specs[0].transport,
        TransportSpec::Stdio {
            command: "npx".into(),
            args: vec!["-y".into(), "server".into()],
            env: vec![("A".into(), "1".into())],
            cwd: dirs.cwd().join("sub"),
        }
    );
    assert_eq!(specs[0].timeout, Duration::from_millis(2500));
    assert_eq!(specs[0].exposure, Exposure::Direct);
    assert_eq!(specs[0].exposure_of("write_file"), Exposure::Hidden);
    assert_eq!(specs[0].description.as_deref(), Some("Files"));
    assert_eq!(specs[1].timeout, Duration::from_secs(60));
    assert_eq!(specs[1].exposure, Exposure::Codemode, "pi's default");
    assert_eq!(
        specs[1].auth,
        AuthSpec::OAuth(json!({"clientId": "id", "callbackPort": 8123}))
    );
    assert_eq!(specs[2].auth, AuthSpec::Provider("anthropic".into()));
}

#[test]
fn http_auth_is_oauth_unless_an_authorization_header_is_set() {
    let dirs = Dirs::new(
        Some(&servers(json!({
            "a": {"url": "https://a.example/mcp"},
            "b": {"url": "https://b.example/mcp", "headers": {"authorization": "Bearer x"}}
        }))),
        None,
    );
    let config = dirs.load(false);
    assert_eq!(
        config.entry("a").unwrap().config.oauth_url(),
        Some("https://a.example/mcp")
    );
    assert_eq!(config.entry("b").unwrap().config.oauth_url(), None);
    let (specs, _) = config.specs(&dirs.cwd());
    assert_eq!(specs[0].auth, AuthSpec::OAuth(json!({})));
    assert_eq!(specs[1].auth, AuthSpec::None);
}

#[test]
fn invalid_entries_give_pi_messages_and_are_skipped() {
    assert_eq!(
        invalid("a b", json!({"command": "x"})),
        r#"invalid server name "a b" (use letters, digits, "_" and "-")"#
    );
    assert_eq!(invalid("s", json!([])), r#"server "s" must be an object"#);
    assert_eq!(
        invalid("s", json!({"type": "sse", "url": "https://x/sse"})),
        r#"server "s": legacy SSE transport is not supported; use the streamable HTTP URL"#
    );
    assert_eq!(
        invalid("s", json!({"args": []})),
        r#"server "s" needs either "command" (stdio) or "url" (streamable HTTP)"#
    );
    assert_eq!(
        invalid("s", json!({"type": "stdio", "url": "https://x/"})),
        r#"server "s" needs either "command" (stdio) or "url" (streamable HTTP)"#
    );
    let cases = [
        (
            json!({"command": "x", "enabled": "yes"}),
            "enabled must be a boolean",
        ),
        (
            json!({"command": "x", "description": 1}),
            "description must be a string",
        ),
        (
            json!({"command": "x", "timeout": 0}),
            "timeout must be a positive number of seconds",
        ),
        (
            json!({"command": "x", "args": [1]}),
            "args must be an array of strings",
        ),
        (
            json!({"command": "x", "env": {"A": 1}}),
            "env must map names to strings",
        ),
        (json!({"command": "x", "cwd": 1}), "cwd must be a string"),
        (
            json!({"url": "ftp://x/"}),
            "url must be an http or https URL",
        ),
        (
            json!({"url": "https://x/", "headers": []}),
            "headers must map names to strings",
        ),
        (
            json!({"url": "https://x/", "oauth": 1}),
            "oauth must be an object",
        ),
        (
            json!({"url": "https://x/", "oauth": {"clientId": 1}}),
            "oauth.clientId must be a string",
        ),
        (
            json!({"url": "https://x/", "oauth": {"callbackPort": 70000}}),
            "oauth.callbackPort must be a port number",
        ),
        (
            json!({"url": "https://x/", "oauth": {"callbackUrl": "http://example.com/cb"}}),
            "oauth.callbackUrl must be an http URI on localhost, 127.0.0.1, or [::1] without query or fragment",
        ),
        (
            json!({"url": "https://x/", "oauth": {"callbackUrl": "http://localhost:1234/cb", "callbackPort": 99}}),
            "oauth.callbackUrl and oauth.callbackPort name different ports",
        ),
        (
            json!({"url": "https://x/", "oauth": {"clientName": " "}}),
            "oauth.clientName must be a non-empty string",
        ),
        (
            json!({"url": "https://x/", "oauth": {"clientRegistration": "x"}}),
            r#"oauth.clientRegistration must be "auto", "dcr", or "cimd""#,
        ),
        (
            json!({"url": "https://x/", "oauth": {"clientRegistration": "cimd", "clientId": "i"}}),
            r#"oauth.clientRegistration "cimd" cannot be combined with oauth.clientId or oauth.clientName"#,
        ),
        (
            json!({"url": "https://x/", "oauth": {"clientRegistration": "cimd", "callbackUrl": "http://localhost/cb"}}),
            r#"oauth.clientRegistration "cimd" requires oauth.callbackUrl on localhost or 127.0.0.1 with path /callback"#,
        ),
        (
            json!({"url": "https://x/", "oauth": {"authServerMetadataUrl": "http://example.com/m"}}),
            "oauth.authServerMetadataUrl must be an https URL, or http on localhost, 127.0.0.1, or [::1]",
        ),
        (
            json!({"url": "http://example.com/", "auth": {"provider": "p"}}),
            "auth requires an https URL, or http on localhost, 127.0.0.1, or [::1]",
        ),
        (
            json!({"url": "https://x/", "auth": {}}),
            "auth.provider must be a provider name",
        ),
        (
            json!({"command": "x", "exposure": "all"}),
            r#"exposure must be one of "codemode", "deferred", "direct", "hidden""#,
        ),
        (
            json!({"command": "x", "toolExposure": {"t": "x"}}),
            r#"toolExposure "t" must be one of "codemode", "deferred", "direct", "hidden""#,
        ),
        (
            json!({"command": "x", "toolExposure": []}),
            "toolExposure must map tool names to exposures",
        ),
    ];
    for (entry, message) in cases {
        assert_eq!(
            invalid("s", entry.clone()),
            format!(r#"server "s": {message}"#),
            "{entry}"
        );
    }
    assert!(validate::validate_server(
        "s",
        &json!({"url": "http://[::1]:8/", "auth": {"provider": "p"},
                "oauth": {"clientRegistration": "cimd", "callbackUrl": "http://127.0.0.1:7/callback"}})
    )
    .is_ok());

    // In a file: reported with the file's path, the other entries kept.
    let dirs = Dirs::new(
        Some(&servers(
            json!({"bad": {"command": 1}, "good": {"command": "x"}}),
        )),
        None,
    );
    let config = dirs.load(false);
    assert_eq!(config.entries.len(), 1);
    assert_eq!(
        config.errors,
        [format!(
            r#"{}: server "bad" needs either "command" (stdio) or "url" (streamable HTTP)"#,
            user_config_path(&dirs.agent()).display()
        )]
    );
}

#[test]
fn broken_files_are_reported_never_fatal() {
    let dirs = Dirs::new(Some("{ not json"), Some(r#"{"mcpServers": []}"#));
    let config = dirs.load(true);
    assert!(config.entries.is_empty());
    assert_eq!(config.errors.len(), 2, "{:?}", config.errors);
    assert!(
        config.errors[0].starts_with(&format!("{}: ", user_config_path(&dirs.agent()).display()))
    );
    assert_eq!(
        config.errors[1],
        format!(
            r#"{}: expected an object with an "mcpServers" object"#,
            project_config_path(&dirs.cwd()).display()
        )
    );
    let dirs = Dirs::new(Some("\u{feff}{\"autoEnableCodemode\": 1}"), None);
    let config = dirs.load(false);
    assert_eq!(
        config.errors,
        [format!(
            "{}: autoEnableCodemode must be a boolean",
            user_config_path(&dirs.agent()).display()
        )]
    );
    // No files at all: nothing, and no error.
    let config = Dirs::new(None, None).load(true);
    assert!(config.entries.is_empty() && config.errors.is_empty());
}

#[test]
fn names_differing_only_in_dash_and_underscore_clash() {
    let dirs = Dirs::new(
        Some(&servers(json!({"my-srv": {"command": "a"}}))),
        Some(&servers(json!({"my_srv": {"command": "b"}}))),
    );
    let config = dirs.load(true);
    assert_eq!(config.entries.len(), 1);
    assert_eq!(
        config.errors,
        [format!(
            r#"{}: server "my_srv" conflicts with "my-srv""#,
            project_config_path(&dirs.cwd()).display()
        )]
    );
}

#[test]
fn the_project_file_is_read_only_when_trusted_and_overrides_as_pi_does() {
    let user = servers(json!({
        "base": {"url": "https://base.example/mcp", "headers": {"Authorization": "Bearer t"}, "exposure": "direct"},
        "swap": {"command": "old"},
        "keep": {"command": "k"}
    }));
    let project = servers(json!({
        "base": {"enabled": false, "toolExposure": {"t": "hidden"}},
        "swap": {"command": "new"},
        "mine": {"command": "m"},
        "orphan": {"enabled": true},
        "sneaky": {"url": "https://x.example/", "auth": {"provider": "anthropic"}}
    }));
    let dirs = Dirs::new(Some(&user), Some(&project));
    let untrusted = dirs.load(false);
    assert_eq!(untrusted.entries.len(), 3);
    assert!(untrusted.errors.is_empty());
    assert_eq!(untrusted.project_config, None);

    let config = dirs.load(true);
    let project_path = project_config_path(&dirs.cwd());
    let names: Vec<&str> = config.entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(
        names,
        ["base", "swap", "keep", "mine"],
        "replaced in place, new at the end"
    );
    let base = config.entry("base").unwrap();
    assert!(base.is_override && !base.enabled);
    assert_eq!(
        base.scope,
        Scope::User,
        "an override keeps the global entry's scope"
    );
    assert_eq!(base.override_source.as_ref(), Some(&project_path));
    assert_eq!(base.config.exposure, Exposure::Direct);
    assert_eq!(
        base.config.tool_exposure,
        [("t".to_owned(), Exposure::Hidden)]
    );
    assert_eq!(base.config.oauth_url(), None, "the global headers are kept");
    let swap = config.entry("swap").unwrap();
    assert_eq!((swap.scope, swap.is_override), (Scope::Project, false));
    assert_eq!(swap.config.describe_transport(), "new");
    let at = project_path.display();
    assert_eq!(
        config.errors,
        [
            format!(
                r#"{at}: server "orphan" needs "command" or "url", or a global server to override"#
            ),
            format!(r#"{at}: server "sneaky": auth is only allowed in the global mcp.json"#),
        ]
    );
    // An override may set nothing but the three fields, and what it sets is checked.
    let dirs = Dirs::new(
        Some(&user),
        Some(&servers(
            json!({"keep": {"enabled": false, "timeout": 5}, "swap": {"exposure": "x"}}),
        )),
    );
    let config = dirs.load(true);
    let at = project_config_path(&dirs.cwd());
    assert_eq!(
        config.errors,
        [
            format!(
                r#"{}: server "keep": an override can only set enabled, exposure, toolExposure"#,
                at.display()
            ),
            format!(
                r#"{}: server "swap": exposure must be one of "codemode", "deferred", "direct", "hidden""#,
                at.display()
            ),
        ]
    );
    assert!(config.entry("keep").unwrap().enabled);
}

#[test]
fn values_are_resolved_from_variables_and_commands() {
    // Cargo sets CARGO_PKG_NAME for every test run; the PI_MCP_TEST_* variables are set by
    // nobody (tests never change the environment: other threads read it).
    let dirs = Dirs::new(
        Some(&servers(json!({
            "ok": {"command": "x", "env": {"T": "${CARGO_PKG_NAME}", "C": "!printf 'from sh'", "L": "a$$b"}},
            "web": {"url": "https://w.example/", "headers": {"X-T": "Bearer $CARGO_PKG_NAME"},
                    "oauth": {"clientSecret": "!echo shh"}},
            "unset": {"command": "x", "env": {"K": "${PI_MCP_TEST_UNSET}"}},
            "unset2": {"url": "https://u.example/", "headers": {"H": "$PI_MCP_TEST_UNSET $PI_MCP_TEST_UNSET2"}},
            "fails": {"url": "https://f.example/", "oauth": {"clientSecret": "!exit 3"}}
        }))),
        None,
    );
    let (specs, errors) = dirs.load(false).specs(&dirs.cwd());
    assert_eq!(specs.len(), 2);
    let TransportSpec::Stdio { env, .. } = &specs[0].transport else {
        panic!("stdio expected");
    };
    assert_eq!(
        env,
        &[
            ("T".to_owned(), "pi-mcp".to_owned()),
            ("C".to_owned(), "from sh".to_owned()),
            ("L".to_owned(), "a$b".to_owned())
        ]
    );
    let TransportSpec::Http { headers, .. } = &specs[1].transport else {
        panic!("http expected");
    };
    assert_eq!(headers, &[("X-T".to_owned(), "Bearer pi-mcp".to_owned())]);
    assert_eq!(
        specs[1].auth,
        AuthSpec::OAuth(json!({"clientSecret": "shh"}))
    );
    assert_eq!(
        errors,
        [
            r#"Failed to resolve MCP server "unset" env "K" from environment variable: PI_MCP_TEST_UNSET"#,
            r#"Failed to resolve MCP server "unset2" header "H" from environment variables: PI_MCP_TEST_UNSET, PI_MCP_TEST_UNSET2"#,
            r#"Failed to resolve MCP server "fails" oauth.clientSecret from shell command: exit 3"#,
        ]
    );
}

#[test]
fn home_is_expanded_in_command_args_and_cwd() {
    match std::env::var("HOME").ok().filter(|home| !home.is_empty()) {
        Some(home) => {
            assert_eq!(expand_home("~"), home);
            assert_eq!(expand_home("~/bin/x"), format!("{home}/bin/x"));
        }
        // Without a home directory, `~` stays as written.
        None => assert_eq!(expand_home("~/bin/x"), "~/bin/x"),
    }
    assert_eq!(expand_home("a~/b"), "a~/b");
    assert_eq!(expand_home("~user/x"), "~user/x");
}

#[test]
fn adding_and_removing_keep_other_keys_order_and_indentation() {
    let dirs = Dirs::new(None, None);
    let path = dirs.root.path().join("new/dir/mcp.json");
    let first: Map<String, Value> = serde_json::from_value(json!({"command": "a"})).unwrap();
    assert!(!add_server(&path, "a", first).unwrap());
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "{\n  \"mcpServers\": {\n    \"a\": {\n      \"command\": \"a\"\n    }\n  }\n}\n"
    );

    std::fs::write(
        &path,
        "{\n\t\"z\": 1,\n\t\"mcpServers\": {\"b\": {\"url\": \"https://b/\"}, \"c\": {\"command\": \"c\"}},\n\t\"a\": [1]\n}",
    )
    .unwrap();
    let replacement: Map<String, Value> = serde_json::from_value(json!({"command": "b2"})).unwrap();
    assert!(add_server(&path, "b", replacement).unwrap(), "replaced");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.starts_with("{\n\t\"z\": 1,\n\t\"mcpServers\": {\n\t\t\"b\""),
        "{text}"
    );
    let value: Value = serde_json::from_str(&text).unwrap();
    let keys: Vec<&String> = value.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["z", "mcpServers", "a"]);
    let servers: Vec<&String> = value["mcpServers"].as_object().unwrap().keys().collect();
    assert_eq!(servers, ["b", "c"], "replaced in place");
    assert_eq!(value["mcpServers"]["b"], json!({"command": "b2"}));

    assert!(remove_server(&path, "b").unwrap());
    assert!(!remove_server(&path, "b").unwrap());
    assert!(!remove_server(&dirs.root.path().join("missing.json"), "b").unwrap());
    let value: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        value,
        json!({"z": 1, "mcpServers": {"c": {"command": "c"}}, "a": [1]})
    );
    // Only the file itself is in its directory: the temporary file was renamed over it.
    assert_eq!(
        std::fs::read_dir(path.parent().unwrap()).unwrap().count(),
        1
    );
}

#[test]
fn a_file_of_the_wrong_shape_is_not_edited() {
    let dirs = Dirs::new(Some(r#"{"mcpServers": 3}"#), None);
    let path = user_config_path(&dirs.agent());
    let entry: Map<String, Value> = serde_json::from_value(json!({"command": "a"})).unwrap();
    let error = add_server(&path, "a", entry.clone()).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            r#"{}: expected an object with an "mcpServers" object"#,
            path.display()
        )
    );
    std::fs::write(&path, "{oops").unwrap();
    assert!(matches!(
        add_server(&path, "a", entry),
        Err(EditError::Json(_))
    ));
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "{oops",
        "left as it was"
    );
}

#[test]
fn updating_sets_fields_in_place_and_creates_only_overrides() {
    let dirs = Dirs::new(None, None);
    let path = dirs.root.path().join("mcp.json");
    std::fs::write(
        &path,
        "{\n    \"mcpServers\": {\"a\": {\"command\": \"a\", \"exposure\": \"direct\"}, \"b\": {\"url\": \"https://b/\"}}\n}",
    )
    .unwrap();
    let patch = |value: Value| -> Map<String, Value> { serde_json::from_value(value).unwrap() };
    update_server(&path, "a", patch(json!({"enabled": false})), false).unwrap();
    update_server(&path, "a", patch(json!({"exposure": "hidden"})), false).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("{\n    \"mcpServers\""), "{text}");
    let value: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        value["mcpServers"]["a"],
        json!({"command": "a", "exposure": "hidden", "enabled": false})
    );
    assert_eq!(value["mcpServers"]["b"], json!({"url": "https://b/"}));
    let error = update_server(&path, "c", patch(json!({"enabled": true})), false).unwrap_err();
    assert!(matches!(error, EditError::Missing { .. }), "{error}");
    let project = dirs.root.path().join("project.json");
    update_server(&project, "a", patch(json!({"enabled": true})), true).unwrap();
    let value: Value = serde_json::from_str(&std::fs::read_to_string(&project).unwrap()).unwrap();
    assert_eq!(value, json!({"mcpServers": {"a": {"enabled": true}}}));
}
