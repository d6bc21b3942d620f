//! `pi mcp add|remove|list|logout` against temp agent dirs and projects, with pi 1.6's
//! messages and exit codes, and `list --json` compared with the reference pi 1.6's on the same
//! `mcp.json`. Servers that need a connection are the client's tests; here every enabled server
//! is one that cannot start, so the outcome does not depend on the client.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::cli_support::*;
use super::pi_ref;
use serde_json::{Value, json};
use std::process::{Command, Output};

/// A command no machine has: the server fails to start, whoever connects to it.
const MISSING: &str = "pi-mcp-test-no-such-server";

fn read_json(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn code(out: &Output) -> Option<i32> {
    out.status.code()
}

/// `pi mcp list --json`'s document.
fn list_json(pi: &PiEnv) -> (Value, Option<i32>) {
    let out = pi.run(&["mcp", "list", "--json"]);
    let text = stdout(&out);
    let value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    (value, code(&out))
}

fn trust_project(pi: &PiEnv) {
    pi.write_agent_file(
        "trust.json",
        &json!({ pi.cwd().to_string_lossy(): true }).to_string(),
    );
}

#[test]
fn add_list_remove_round_trip_in_the_agent_dir() {
    let pi = PiEnv::empty();
    let file = pi.agent_dir().join("mcp.json");
    let out = pi.run(&[
        "mcp", "add", "local", "--env", "A=1", "--cwd", "sub", "--", MISSING, "--flag",
    ]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        format!(
            "Added global MCP server \"local\" in {}.\nCheck it with: pi mcp list\n",
            file.display()
        )
    );
    let out = pi.run(&[
        "mcp",
        "add",
        "docs",
        "--url",
        "https://docs.example/mcp",
        "--header",
        "X-Team=core",
        "--oauth-client-id",
        "pi",
        "--exposure",
        "direct",
        "--description",
        "The docs",
    ]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out)
            .ends_with("Check it with: pi mcp list. If it requires sign-in: pi mcp login docs\n")
    );
    assert_eq!(
        read_json(&file),
        json!({"mcpServers": {
            "local": {"command": MISSING, "args": ["--flag"], "env": {"A": "1"}, "cwd": "sub"},
            "docs": {"url": "https://docs.example/mcp", "headers": {"X-Team": "core"},
                     "oauth": {"clientId": "pi"}, "exposure": "direct", "description": "The docs"}
        }})
    );
    // Replacing keeps the entry's place.
    let out = pi.run(&["mcp", "add", "local", "--", MISSING]);
    assert!(stdout(&out).starts_with("Replaced global MCP server \"local\""));
    let servers: Vec<String> = read_json(&file)["mcpServers"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(servers, ["local", "docs"]);

    // Disabled by hand: listed without connecting.
    let mut config = read_json(&file);
    config["mcpServers"]["docs"]["enabled"] = json!(false);
    std::fs::write(&file, config.to_string()).unwrap();
    let (list, exit) = list_json(&pi);
    assert_eq!(
        exit,
        Some(1),
        "an enabled server that did not connect fails the list"
    );
    assert_eq!(list["errors"], json!([]));
    assert_eq!(list.get("note"), None);
    let local = &list["servers"][0];
    assert_eq!(
        (
            &local["name"],
            &local["scope"],
            &local["state"],
            &local["transport"]
        ),
        (
            &json!("local"),
            &json!("global"),
            &json!("failed"),
            &json!(MISSING)
        )
    );
    assert!(
        local["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{local}"
    );
    assert_eq!(
        list["servers"][1],
        json!({"name": "docs", "scope": "global", "source": file.display().to_string(),
               "enabled": false, "exposure": "direct", "transport": "https://docs.example/mcp",
               "state": "disabled", "tools": []})
    );

    let out = pi.run(&["mcp", "remove", "local"]);
    assert_eq!(code(&out), Some(0));
    assert_eq!(
        stdout(&out),
        format!(
            "Removed global MCP server \"local\" from {}.\n",
            file.display()
        )
    );
    let out = pi.run(&["mcp", "remove", "local"]);
    assert_eq!(code(&out), Some(1));
    assert_eq!(
        stderr(&out),
        format!(
            "No global MCP server named \"local\" in {}.\n",
            file.display()
        )
    );
    let out = pi.run(&["mcp", "list"]);
    assert_eq!(code(&out), Some(0), "only a disabled server left");
    assert_eq!(
        stdout(&out),
        "docs: disabled (direct, global)\n  https://docs.example/mcp\n"
    );
}

#[test]
fn local_servers_are_read_only_in_a_trusted_project() {
    let pi = PiEnv::empty();
    let project_file = pi.cwd().join(".pi/mcp.json");
    let out = pi.run(&["mcp", "add", "-l", "mine", "--", MISSING]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        format!(
            "Added project MCP server \"mine\" in {p}.\nThe project is not trusted, so {p} is ignored until you start pi in the project and trust it.\nCheck it with: pi mcp list\n",
            p = project_file.display()
        )
    );
    let out = pi.run(&["mcp", "add", "shared", "--", MISSING]);
    assert_eq!(code(&out), Some(0));
    std::fs::write(
        pi.agent_dir().join("mcp.json"),
        json!({"mcpServers": {"shared": {"command": MISSING, "enabled": false}}}).to_string(),
    )
    .unwrap();

    // Untrusted: the project's file is ignored, and said to be.
    let note = format!(
        "{} is ignored because the project is not trusted. Start pi in the project to trust it.",
        project_file.display()
    );
    let (list, exit) = list_json(&pi);
    assert_eq!(exit, Some(0));
    assert_eq!(list["note"], json!(note));
    assert_eq!(list["servers"].as_array().unwrap().len(), 1);
    let out = pi.run(&["mcp", "logout", "mine"]);
    assert_eq!(code(&out), Some(1));
    assert_eq!(
        stderr(&out),
        format!("No MCP server named \"mine\". {note} Configured: shared.\n")
    );
    let out = pi.run(&["mcp", "remove", "shared", "-l"]);
    assert_eq!(code(&out), Some(1));
    assert_eq!(
        stderr(&out),
        format!(
            "No project MCP server named \"shared\" in {}. It is defined in {}; omit --local.\n",
            project_file.display(),
            pi.agent_dir().join("mcp.json").display()
        )
    );

    // Trusted: the project's server, and an override of the global one.
    let mut project = read_json(&project_file);
    project["mcpServers"]["shared"] = json!({"enabled": true, "exposure": "hidden"});
    std::fs::write(&project_file, project.to_string()).unwrap();
    trust_project(&pi);
    let (list, exit) = list_json(&pi);
    assert_eq!(
        exit,
        Some(1),
        "both servers are enabled now, neither can start"
    );
    assert_eq!(list.get("note"), None);
    let servers = list["servers"].as_array().unwrap();
    let shared = &servers[0];
    assert_eq!(
        (
            &shared["name"],
            &shared["scope"],
            &shared["exposure"],
            &shared["override"]
        ),
        (
            &json!("shared"),
            &json!("global"),
            &json!("hidden"),
            &json!(project_file.display().to_string())
        )
    );
    assert_eq!(
        (
            &servers[1]["name"],
            &servers[1]["scope"],
            &servers[1]["source"]
        ),
        (
            &json!("mine"),
            &json!("project"),
            &json!(project_file.display().to_string())
        )
    );
    let out = pi.run(&["mcp", "remove", "-l", "mine"]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    assert_eq!(
        read_json(&project_file)["mcpServers"],
        json!({"shared": {"enabled": true, "exposure": "hidden"}})
    );
}

#[test]
fn invalid_entries_are_reported_and_fail_the_list() {
    let pi = PiEnv::empty();
    let file = pi.agent_dir().join("mcp.json");
    pi.write_agent_file(
        "mcp.json",
        &json!({"mcpServers": {
            "ok": {"command": MISSING, "enabled": false},
            "old": {"type": "sse", "url": "https://x.example/sse"},
            "bad name": {"command": "x"}
        }})
        .to_string(),
    );
    let out = pi.run(&["mcp", "list"]);
    assert_eq!(code(&out), Some(1));
    let at = file.display();
    assert_eq!(
        stdout(&out),
        format!(
            "ok: disabled (codemode, global)\n  {MISSING}\n\
             config error: {at}: server \"old\": legacy SSE transport is not supported; use the streamable HTTP URL\n\
             config error: {at}: invalid server name \"bad name\" (use letters, digits, \"_\" and \"-\")\n"
        )
    );
    // A file that is not JSON is an error of the list, not of pi.
    pi.write_agent_file("mcp.json", "{ nope");
    let (list, exit) = list_json(&pi);
    assert_eq!(exit, Some(1));
    assert_eq!(list["servers"], json!([]));
    assert!(
        list["errors"][0]
            .as_str()
            .unwrap()
            .starts_with(&format!("{at}: "))
    );
    // `add` refuses what the file would refuse, with the same message, and writes nothing.
    std::fs::remove_file(&file).unwrap();
    let out = pi.run(&[
        "mcp",
        "add",
        "s",
        "--url",
        "https://s.example/",
        "--oauth-callback-port",
        "0",
    ]);
    assert_eq!(code(&out), Some(1));
    assert_eq!(
        stderr(&out),
        "server \"s\": oauth.callbackPort must be a port number\n"
    );
    assert!(!file.exists());
}

#[test]
fn usage_errors_and_logout_follow_pi() {
    let pi = PiEnv::empty();
    let cases: [(&[&str], &str); 6] = [
        (
            &["mcp", "frob"],
            "Unknown mcp command \"frob\".\nUse \"pi mcp --help\" for usage.\n",
        ),
        (
            &["mcp", "add", "x", "--nope"],
            "Unknown option --nope.\nUse \"pi mcp --help\" for usage.\n",
        ),
        (
            &["mcp", "add", "x"],
            "Usage: pi mcp add <server> [options] (--url <url> | -- <command> [args...])\nUse \"pi mcp --help\" for usage.\n",
        ),
        (
            &["mcp", "add", "x", "--header", "A=b", "--", "cmd"],
            "--header only applies to HTTP servers (--url).\n",
        ),
        (
            &["mcp", "add", "x", "--url", "https://x/", "--header", "bad"],
            "--header expects KEY=VALUE, got \"bad\".\n",
        ),
        (
            &["mcp", "list", "--json", "extra"],
            "Usage: pi mcp list [--json]\nUse \"pi mcp --help\" for usage.\n",
        ),
    ];
    for (args, message) in cases {
        let out = pi.run(args);
        assert_eq!(
            (code(&out), stderr(&out).as_str()),
            (Some(1), message),
            "{args:?}"
        );
    }
    let out = pi.run(&["mcp", "--help"]);
    assert_eq!(code(&out), Some(0));
    assert!(stdout(&out).contains("pi mcp add <server> [options] -- <command> [args...]"));
    assert!(stdout(&out).contains("trust <server>"));

    pi.write_agent_file(
        "mcp.json",
        &json!({"mcpServers": {
            "docs": {"url": "https://docs.example/mcp", "enabled": false},
            "keyed": {"url": "https://k.example/mcp", "headers": {"Authorization": "Bearer x"}}
        }})
        .to_string(),
    );
    pi.write_agent_file(
        "mcp-auth.json",
        &json!({"mcp__docs|https://docs.example/mcp": {"tokens": {"access_token": "t"}}, "other": {}}).to_string(),
    );
    let out = pi.run(&["mcp", "logout", "docs"]);
    assert_eq!(
        (code(&out), stdout(&out).as_str()),
        (Some(0), "Signed out of MCP server \"docs\".\n")
    );
    assert_eq!(
        read_json(&pi.agent_dir().join("mcp-auth.json")),
        json!({"other": {}})
    );
    let out = pi.run(&["mcp", "logout", "docs"]);
    assert_eq!(
        (code(&out), stdout(&out).as_str()),
        (Some(0), "No stored credentials for MCP server \"docs\".\n")
    );
    let out = pi.run(&["mcp", "logout", "keyed"]);
    assert_eq!(code(&out), Some(1));
    assert_eq!(
        stderr(&out),
        "MCP server \"keyed\" does not use OAuth. Only HTTP servers without an Authorization header do.\n"
    );
    let out = pi.run(&["mcp", "logout", "doc"]);
    assert_eq!(
        stderr(&out),
        "No MCP server named \"doc\". Did you mean \"docs\"? Configured: docs, keyed.\n"
    );
}

/// The reference pi 1.6 with the same home, agent dir and working directory.
fn reference(pi: &PiEnv, args: &[&str]) -> Output {
    Command::new(pi_ref::dir().join("node_modules/.bin/pi"))
        .args(args)
        .current_dir(pi.cwd())
        .env_clear()
        .env("PATH", pi_ref::path())
        .env("HOME", pi.root.path().join("home"))
        .env("PI_CODING_AGENT_DIR", pi.agent_dir())
        .env("PI_OFFLINE", "1")
        .output()
        .unwrap()
}

#[test]
fn list_json_has_the_reference_pis_fields_and_values() {
    let pi = PiEnv::empty();
    pi.write_agent_file(
        "mcp.json",
        &json!({"autoEnableCodemode": true, "mcpServers": {
            "files": {"command": "node", "args": ["server.js", "--root", "."], "enabled": false,
                      "exposure": "codemode-deferred", "toolExposure": {"read_*": "direct"}},
            "docs": {"type": "streamable-http", "url": "https://docs.example/mcp", "enabled": false,
                     "auth": {"provider": "anthropic"}, "exposure": "deferred"},
            "base": {"command": "x", "timeout": 5},
            "old": {"type": "sse", "url": "https://x.example/sse"},
            "my-srv": {"command": "y", "enabled": false}
        }})
        .to_string(),
    );
    std::fs::create_dir_all(pi.cwd().join(".pi")).unwrap();
    std::fs::write(
        pi.cwd().join(".pi/mcp.json"),
        json!({"mcpServers": {
            "base": {"enabled": false, "exposure": "hidden"},
            "my_srv": {"command": "z"},
            "proj": {"type": "http", "url": "http://127.0.0.1:9/mcp", "enabled": false},
            "lonely": {"exposure": "direct"}
        }})
        .to_string(),
    )
    .unwrap();
    trust_project(&pi);
    let (ours, our_exit) = list_json(&pi);
    let out = reference(&pi, &["mcp", "list", "--json"]);
    let theirs: Value = serde_json::from_str(&stdout(&out))
        .unwrap_or_else(|e| panic!("{e}: {} {}", stdout(&out), stderr(&out)));
    assert_eq!(our_exit, code(&out));
    assert_eq!(our_exit, Some(1), "invalid entries");
    // Every server is disabled: nothing connects, so the documents are equal as a whole.
    assert_eq!(ours, theirs);
    let names: Vec<&str> = ours["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["files", "docs", "base", "my-srv", "proj"]);
    assert_eq!(
        ours["errors"].as_array().unwrap().len(),
        3,
        "{}",
        ours["errors"]
    );
}

#[test]
fn an_unresolvable_value_fails_its_server_as_in_the_reference() {
    let pi = PiEnv::empty();
    pi.write_agent_file(
        "mcp.json",
        &json!({"mcpServers": {
            "vars": {"command": MISSING, "env": {"K": "${PI_MCP_TEST_UNSET}", "L": "$PI_MCP_TEST_UNSET2"}},
            "cmd": {"url": "https://c.example/mcp", "headers": {"X-Key": "!exit 3"}},
            "off": {"command": MISSING, "env": {"K": "${PI_MCP_TEST_UNSET}"}, "enabled": false}
        }})
        .to_string(),
    );
    let (ours, exit) = list_json(&pi);
    assert_eq!(exit, Some(1));
    let errors: Vec<&Value> = ours["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| &s["error"])
        .collect();
    assert_eq!(
        errors,
        [
            &json!(
                "Failed to resolve MCP server \"vars\" env \"K\" from environment variable: PI_MCP_TEST_UNSET"
            ),
            &json!(
                "Failed to resolve MCP server \"cmd\" header \"X-Key\" from shell command: exit 3"
            ),
            &Value::Null,
        ]
    );
    let out = reference(&pi, &["mcp", "list", "--json"]);
    let theirs: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!((ours, exit), (theirs, code(&out)));

    // `trust` needs a server that starts: it says why this one cannot, and what is configured.
    let out = pi.run(&["mcp", "trust", "vars"]);
    assert_eq!(code(&out), Some(1));
    assert_eq!(
        stderr(&out),
        "Failed to resolve MCP server \"vars\" env \"K\" from environment variable: PI_MCP_TEST_UNSET\n"
    );
    let out = pi.run(&["mcp", "trust", "nope"]);
    assert_eq!(code(&out), Some(1));
    assert_eq!(
        stderr(&out),
        "No MCP server named \"nope\". Configured: vars, cmd, off.\n"
    );
    let out = pi.run(&["mcp", "trust"]);
    assert_eq!(
        stderr(&out),
        "Usage: pi mcp trust <server>\nUse \"pi mcp --help\" for usage.\n"
    );
}

/// `node …/server-everything/dist/index.js stdio` (installed by `.ci/run` in `target/mcp-tools`).
fn everything_stdio() -> (String, Vec<String>) {
    let index = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "../../target/mcp-tools/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    );
    assert!(
        index.exists(),
        "{} is missing: .ci/run installs it",
        index.display()
    );
    (
        "node".into(),
        vec![index.display().to_string(), "stdio".into()],
    )
}

#[test]
fn list_connects_to_a_real_stdio_server_as_the_reference_does() {
    let pi = PiEnv::empty();
    let (command, args) = everything_stdio();
    pi.write_agent_file(
        "mcp.json",
        &json!({"mcpServers": {"everything": {"command": command, "args": args,
                                              "toolExposure": {"echo": "direct"}}}})
        .to_string(),
    );
    let (ours, exit) = list_json(&pi);
    assert_eq!(exit, Some(0), "{ours}");
    let server = &ours["servers"][0];
    assert_eq!(server["state"], json!("connected"), "{ours}");
    let tools: Vec<&str> = server["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        tools.contains(&"echo") && tools.contains(&"get-sum"),
        "{tools:?}"
    );
    assert_eq!(server["toolExposure"], json!({"echo": "direct"}));
    assert_eq!(server["resources"], json!(true));
    let out = reference(&pi, &["mcp", "list", "--json"]);
    let theirs: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(ours, theirs, "the same document as pi 1.6's");
    let text = stdout(&pi.run(&["mcp", "list"]));
    assert!(
        text.starts_with(&format!(
            "everything: connected, {} tools (codemode, global)\n",
            tools.len()
        )),
        "{text}"
    );
    assert!(
        text.contains("  tools: echo [direct], get-annotated-message"),
        "{text}"
    );
    assert!(text.contains("\n  offers resources\n"), "{text}");
}
