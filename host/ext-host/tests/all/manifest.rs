use pi_ext_host::manifest::{FsAccess, Manifest, World};
use std::path::Path;

fn parse(text: &str) -> Result<Manifest, String> {
    Manifest::parse(text, Path::new("/pkg/pi-extension.toml")).map_err(|e| e.to_string())
}

const HEAD: &str = "[package]\nname = \"hello\"\nversion = \"0.1.0\"\nwit = \"0.3.0\"\n";

/// A manifest using every section (also the fuzz targets' seed).
pub const FULL: &str = r#"[package]
name = "hello-tools"
version = "1.2.3"
description = "Says hello"
wit = "0.3.0"

[[component]]
path = "tools/hello.wasm"
world = "tool"

[[component]]
path = "render.wasm"
world = "renderer"

[capabilities]
filesystem = "read"
temp = true
network = ["api.example.com", "127.0.0.1:8080", "*.example.org"]
env = ["HOME", "MY_TOKEN"]
process = true
llm = true

[resources]
skills = "skills"
prompts = "prompts"
themes = "themes"
agents = "agents"
"#;

#[test]
fn a_full_manifest_parses() {
    let m = parse(FULL).expect("valid");
    assert_eq!(m.name, "hello-tools");
    assert_eq!(m.components.len(), 2);
    assert_eq!(m.components[0].world, World::Tool);
    assert_eq!(m.components[1].path, Path::new("render.wasm"));
    assert_eq!(m.capabilities.filesystem, FsAccess::Read);
    assert!(m.capabilities.temp && m.capabilities.process && m.capabilities.llm);
    assert_eq!(m.capabilities.env, ["HOME", "MY_TOKEN"]);
    assert_eq!(m.resources.themes.as_deref(), Some(Path::new("themes")));
    assert_eq!(m.resources.agents.as_deref(), Some(Path::new("agents")));
}

#[test]
fn defaults_grant_nothing() {
    let m = parse(HEAD).expect("valid");
    assert_eq!(m.capabilities, pi_ext_host::Capabilities::default());
    assert!(m.components.is_empty());
}

#[test]
fn errors_name_the_file_and_the_field() {
    let cases: &[(&str, &str)] = &[
        (
            "[package]\nname = \"Hello\"\nversion = \"0.1.0\"\nwit = \"0.3.0\"\n",
            "/pkg/pi-extension.toml: package.name: `Hello` must start with a lowercase letter and hold only a-z, 0-9, - and _ (at most 64)",
        ),
        (
            "[package]\nname = \"h\"\nversion = \"1.0\"\nwit = \"0.3.0\"\n",
            "/pkg/pi-extension.toml: package.version: `1.0` is not a semantic version (MAJOR.MINOR.PATCH)",
        ),
        // The version names an install directory: a `/` in its pre-release part is refused.
        (
            "[package]\nname = \"h\"\nversion = \"1.0.0-/../../x\"\nwit = \"0.3.0\"\n",
            "/pkg/pi-extension.toml: package.version: `1.0.0-/../../x` is not a semantic version (MAJOR.MINOR.PATCH)",
        ),
        (
            "[package]\nname = \"h\"\nversion = \"1.0.0\"\nwit = \"9.0.0\"\n",
            "/pkg/pi-extension.toml: package.wit: WIT version `9.0.0` is not supported (supported: 0.1.0, 0.2.0, 0.3.0)",
        ),
        (
            "[[component]]\npath = \"a.wasm\"\nworld = \"widget\"\n",
            "/pkg/pi-extension.toml: component[0].world: unknown world `widget` (expected one of: tool, provider, renderer, compactor, hook)",
        ),
        (
            "[resources]\nagents = \"../agents\"\n",
            "/pkg/pi-extension.toml: resources.agents: `../agents` must be a relative path inside the package",
        ),
        (
            "[resources]\nagents = \"/etc/agents\"\n",
            "/pkg/pi-extension.toml: resources.agents: `/etc/agents` must be a relative path inside the package",
        ),
        (
            "[[component]]\npath = \"../a.wasm\"\nworld = \"tool\"\n",
            "/pkg/pi-extension.toml: component[0].path: `../a.wasm` must be a relative path inside the package",
        ),
        (
            "[[component]]\npath = \"a.wasm\"\nworld = \"tool\"\n[[component]]\npath = \"a.wasm\"\nworld = \"renderer\"\n",
            "/pkg/pi-extension.toml: component[1].path: `a.wasm` is listed twice",
        ),
        (
            "[[component]]\npath = \"a.js\"\nworld = \"tool\"\n",
            "/pkg/pi-extension.toml: component[0].path: `a.js` is not a .wasm file",
        ),
        (
            "[capabilities]\nfilesystem = \"all\"\n",
            "/pkg/pi-extension.toml: capabilities.filesystem: `all` is not one of none, read, write",
        ),
        (
            "[capabilities]\nnetwork = [\"https://api.example.com/v1\"]\n",
            "/pkg/pi-extension.toml: capabilities.network: `https://api.example.com/v1` has an invalid port",
        ),
        (
            "[capabilities]\nnetwork = [\"api.example.com/v1\"]\n",
            "/pkg/pi-extension.toml: capabilities.network: `api.example.com/v1` is not a host name (host, host:port or *.domain.tld; no scheme, path or empty parts)",
        ),
        (
            "[capabilities]\nnetwork = [\"*.\"]\n",
            "/pkg/pi-extension.toml: capabilities.network: `*.` is not a host name (host, host:port or *.domain.tld; no scheme, path or empty parts)",
        ),
        (
            "[capabilities]\nnetwork = [\"*\"]\n",
            "/pkg/pi-extension.toml: capabilities.network: `*` is not a host name (host, host:port or *.domain.tld; no scheme, path or empty parts)",
        ),
        (
            "[capabilities]\nnetwork = [\"*.com\"]\n",
            "/pkg/pi-extension.toml: capabilities.network: `*.com` matches too much: a wildcard needs a domain under it (*.example.com)",
        ),
        (
            "[capabilities]\nnetwork = [\"api..example.com\"]\n",
            "/pkg/pi-extension.toml: capabilities.network: `api..example.com` is not a host name (host, host:port or *.domain.tld; no scheme, path or empty parts)",
        ),
        (
            "[capabilities]\nnetwork = [\"a.*.example.com\"]\n",
            "/pkg/pi-extension.toml: capabilities.network: `a.*.example.com` is not a host name (host, host:port or *.domain.tld; no scheme, path or empty parts)",
        ),
        (
            "[capabilities]\nenv = [\"A=B\"]\n",
            "/pkg/pi-extension.toml: capabilities.env: `A=B` is not an environment variable name",
        ),
    ];
    for (extra, expected) in cases {
        let text = if extra.starts_with("[package]") {
            extra.to_string()
        } else {
            format!("{HEAD}{extra}")
        };
        assert_eq!(parse(&text).expect_err(expected), *expected);
    }
}

#[test]
fn unknown_fields_and_bad_toml_are_syntax_errors_with_a_location() {
    let err = parse(&format!("{HEAD}[capabilities]\nsockets = true\n")).expect_err("unknown");
    assert!(
        err.starts_with("/pkg/pi-extension.toml: TOML parse error at line 6"),
        "{err}"
    );
    assert!(err.contains("unknown field `sockets`"), "{err}");
    let err = parse("[package\n").expect_err("bad toml");
    assert!(
        err.starts_with("/pkg/pi-extension.toml: TOML parse error at line 1"),
        "{err}"
    );
}

#[test]
fn grants_match_hosts_exactly() {
    let mut grant = pi_ext_host::Grant::new("/ws");
    grant.network = vec![
        "api.example.com".into(),
        "127.0.0.1:8080".into(),
        "*.example.org".into(),
    ];
    assert!(grant.allows_host("api.example.com"));
    assert!(grant.allows_host("api.example.com:443"));
    assert!(grant.allows_host("127.0.0.1:8080"));
    assert!(!grant.allows_host("127.0.0.1:8081"));
    assert!(!grant.allows_host("evil.com"));
    assert!(!grant.allows_host("api.example.com.evil.com"));
    assert!(grant.allows_host("a.example.org"));
    assert!(!grant.allows_host("example.org"));
}

#[test]
fn a_package_may_shorten_its_deadline_but_never_lengthen_it() {
    use pi_ext_host::Grant;
    use std::time::Duration;
    let default = Grant::new("/ws").limits.timeout;
    let short = parse(&format!("{HEAD}\n[limits]\ntimeout-ms = 1500\n")).expect("valid");
    assert_eq!(short.limits.timeout_ms, Some(1500));
    let grant = Grant::from_manifest(&short, "/ws");
    assert_eq!(grant.limits.timeout, Duration::from_millis(1500));
    let long = parse(&format!("{HEAD}\n[limits]\ntimeout-ms = 3600000\n")).expect("valid");
    assert_eq!(Grant::from_manifest(&long, "/ws").limits.timeout, default);
    let none = parse(HEAD).expect("valid");
    assert_eq!(Grant::from_manifest(&none, "/ws").limits.timeout, default);
    assert_eq!(
        parse(&format!("{HEAD}\n[limits]\ntimeout-ms = 0\n")).expect_err("zero"),
        "/pkg/pi-extension.toml: limits.timeout-ms: must be at least 1 millisecond"
    );
}

#[test]
fn a_hook_package_asks_for_ui_and_session_and_may_fail_closed() {
    let text = format!(
        "{HEAD}\n[[component]]\npath = \"gate.wasm\"\nworld = \"hook\"\n\n\
         [capabilities]\nui = true\nsession = true\n\n[hook]\nfail = \"closed\"\n"
    );
    let m = parse(&text).expect("valid");
    assert_eq!(m.components[0].world, World::Hook);
    assert!(m.capabilities.ui && m.capabilities.session);
    assert!(m.hook.fail_closed);
    let words = m.capabilities.plain_words();
    assert!(words.iter().any(|w| w.starts_with("ui: ")), "{words:?}");
    assert!(
        words.iter().any(|w| w.starts_with("session: ")),
        "{words:?}"
    );
    let none = pi_ext_host::Capabilities::default();
    assert_eq!(m.capabilities.beyond(&none).len(), 2);
    // Open is the default.
    let open = parse(&format!("{HEAD}\n[hook]\nfail = \"open\"\n")).expect("valid");
    assert!(!open.hook.fail_closed);
    assert!(!parse(HEAD).expect("valid").hook.fail_closed);
}

#[test]
fn a_fail_mode_other_than_open_or_closed_and_a_hook_before_0_3_0_are_refused() {
    assert_eq!(
        parse(&format!("{HEAD}\n[hook]\nfail = \"shut\"\n")).unwrap_err(),
        "/pkg/pi-extension.toml: hook.fail: `shut` is not one of open, closed"
    );
    let old = "[package]\nname = \"h\"\nversion = \"0.1.0\"\nwit = \"0.2.0\"\n\n\
               [[component]]\npath = \"gate.wasm\"\nworld = \"hook\"\n";
    assert_eq!(
        parse(old).unwrap_err(),
        "/pkg/pi-extension.toml: package.wit: the `hook` world needs wit = \"0.3.0\" or later (it says \"0.2.0\")"
    );
}
